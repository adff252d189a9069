"""A connection holds a slot only while it is used.

``agent.sock`` has ``max_connections`` slots. A connection that sends
nothing but blank lines (which the protocol skips without an answer) is not
in use: it is closed ``idle_timeout_s`` after its last request, whoever its
peer is, the daemon's own uid included (which the per-uid cap does not
bound). Time here is the daemon's own idle timer, waited for with a
deadline on reaching a state, never asserted as a duration.
"""

from __future__ import annotations

import json
import socket
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.harness import Daemon, running

STATUS = b'{"jsonrpc":"2.0","id":1,"method":"memory.status","params":{}}\n'


@pytest.fixture(scope="module")
def d() -> Iterator[Daemon]:
    with running(config="max_connections = 2\nidle_timeout_s = 1.0\n") as daemon:
        yield daemon


def _connect(path: Path) -> socket.socket:
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    sock.settimeout(10)
    sock.connect(str(path))
    return sock


def _answered(sock: socket.socket) -> bool:
    sock.sendall(STATUS)
    data = b""
    while not data.endswith(b"\n"):
        chunk = sock.recv(65536)
        if not chunk:
            return False
        data += chunk
    return "result" in json.loads(data)


def _keep_alive_until_closed(socks: list[socket.socket], within: float = 20) -> bool:
    """Send each of ``socks`` a blank line every tenth of a second until the
    daemon has closed them all (True) or ``within`` seconds have passed."""
    deadline = time.monotonic() + within
    open_ = list(socks)
    while open_ and time.monotonic() < deadline:
        for sock in list(open_):
            try:
                sock.sendall(b"\n")
                sock.setblocking(False)
                try:
                    if sock.recv(1) == b"":
                        open_.remove(sock)
                except BlockingIOError:
                    pass
                finally:
                    sock.setblocking(True)
            except (BrokenPipeError, ConnectionResetError):
                open_.remove(sock)
        time.sleep(0.1)
    return not open_


def test_blank_lines_from_the_daemons_own_uid_do_not_keep_a_slot(d: Daemon) -> None:
    held = [_connect(d.agent_path) for _ in range(2)]
    try:
        assert all(_answered(s) for s in held)
        assert _keep_alive_until_closed(held)
        with d.agent(timeout=10) as fresh:
            fresh.call("memory.status", {})
    finally:
        for sock in held:
            sock.close()
    assert "connection_idle_closed" in d.log()


def test_a_connection_in_use_keeps_its_slot(d: Daemon) -> None:
    # Requests, unlike blank lines, are use: each one starts the idle time again.
    with _connect(d.agent_path) as busy:
        deadline = time.monotonic() + 3
        while time.monotonic() < deadline:
            assert _answered(busy)
            time.sleep(0.2)


def test_a_flood_of_blank_lines_does_not_keep_a_slot(d: Daemon) -> None:
    # Sent without pause, so the daemon always has one to read and never
    # has to wait for the next.
    with _connect(d.agent_path) as flood:
        assert _answered(flood)
        deadline = time.monotonic() + 20
        closed = False
        while not closed and time.monotonic() < deadline:
            try:
                flood.sendall(b"\n" * 4096)
            except (BrokenPipeError, ConnectionResetError):
                closed = True
        assert closed
