"""SPEC §2 over the real sockets: file modes, who may connect, limits, timeouts.

Tests that need a second uid or a group create them (CI runs as root) and
remove them afterwards; they are skipped, saying why, when not run as root.
The peer is a forked child that drops to that uid: it needs no interpreter of
its own (the test's interpreter may live where another uid cannot reach).
"""

from __future__ import annotations

import grp
import json
import os
import pwd
import secrets
import shutil
import socket
import stat
import subprocess
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from memoryd.rpc.client import Client
from tests.harness import Daemon, running

STATUS = b'{"jsonrpc":"2.0","method":"memory.status","params":{},"id":1}\n'

needs_root = pytest.mark.skipif(
    os.geteuid() != 0 or shutil.which("useradd") is None or shutil.which("groupadd") is None,
    reason="needs root with useradd/groupadd to create a second uid and a group",
)


@pytest.fixture(scope="module")
def daemon() -> Iterator[Daemon]:
    """Left exactly as the daemon made it: the modes tests read it."""
    with running() as d:
        yield d


@pytest.fixture(scope="module")
def reachable() -> Iterator[Daemon]:
    """A daemon whose sockets any uid can reach (see ``_open_path_to_everyone``)."""
    with running() as d:
        _open_path_to_everyone(d)
        yield d


def _mode(path: Path) -> int:
    return stat.S_IMODE(path.lstat().st_mode)


# --- helpers: a second user, a group, a peer running as that user ---------------


@pytest.fixture(scope="module")
def other_user() -> Iterator[pwd.struct_passwd]:
    if os.geteuid() != 0 or shutil.which("useradd") is None:
        pytest.skip("needs root with useradd to create a second uid")
    name = "memoryd-test-" + secrets.token_hex(3)
    subprocess.run(
        ["useradd", "--system", "--no-create-home", "--shell", "/usr/sbin/nologin", name],
        check=True,
        capture_output=True,
    )
    try:
        yield pwd.getpwnam(name)
    finally:
        subprocess.run(["userdel", name], check=False, capture_output=True)


@pytest.fixture
def agent_group() -> Iterator[grp.struct_group]:
    if os.geteuid() != 0 or shutil.which("groupadd") is None:
        pytest.skip("needs root with groupadd to create a group")
    name = "memoryd-test-" + secrets.token_hex(3)
    subprocess.run(["groupadd", "--system", name], check=True, capture_output=True)
    try:
        yield grp.getgrnam(name)
    finally:
        subprocess.run(["groupdel", name], check=False, capture_output=True)


def _talk(path: str, send: bytes | None) -> dict[str, Any]:
    """Connect to ``path``, optionally send, and report what came back."""
    try:
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        sock.settimeout(10)
        sock.connect(path)
    except OSError as exc:
        return {"connect_error": exc.errno}
    try:
        if send is not None:
            sock.sendall(send)
        data = b""
        while not data.endswith(b"\n"):
            chunk = sock.recv(65536)
            if not chunk:
                return {"eof": True, "data": data.decode()}
            data += chunk
        return {"eof": False, "data": data.decode()}
    except (BrokenPipeError, ConnectionResetError):
        # Closed by the daemon before (or while) the request went out.
        return {"eof": True, "data": ""}
    finally:
        sock.close()


def _in_child_as(
    user: pwd.struct_passwd, work: Callable[[], Any], groups: tuple[int, ...] = ()
) -> Any:
    """Run ``work`` in a forked child that has dropped to ``user``; its
    JSON-able result comes back through a pipe."""
    read_end, write_end = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: never returns into pytest
        code = 0
        try:
            os.close(read_end)
            os.setgroups(list(groups))
            os.setgid(user.pw_gid)
            os.setuid(user.pw_uid)
            os.write(write_end, json.dumps(work()).encode())
        except BaseException as exc:  # noqa: BLE001 - report anything, then leave
            code = 1
            os.write(write_end, json.dumps({"child_failed": repr(exc)}).encode())
        finally:
            os._exit(code)
    os.close(write_end)
    with os.fdopen(read_end, "rb") as pipe:
        out = pipe.read()
    _, status = os.waitpid(pid, 0)
    assert os.waitstatus_to_exitcode(status) == 0, out
    return json.loads(out)


def _as_user(
    user: pwd.struct_passwd, path: Path, send: bytes | None = STATUS, groups: tuple[int, ...] = ()
) -> dict[str, Any]:
    """Run ``_talk`` in a forked child that has dropped to ``user``."""
    result: dict[str, Any] = _in_child_as(user, lambda: _talk(str(path), send), groups)
    return result


def _open_path_to_everyone(d: Daemon) -> None:
    """Test-only: make both sockets reachable by any uid, so that the daemon's
    own SO_PEERCRED check is what refuses a stranger."""
    for folder in (d.home.parent, d.home, d.home / "run"):
        os.chmod(folder, 0o711)  # noqa: S103 - test-only, see above
    for sock in (d.agent_path, d.control_path):
        os.chmod(sock, 0o666)  # noqa: S103 - test-only, see above


# --- modes ------------------------------------------------------------------------


def test_home_run_sockets_and_keys_are_private_by_default(daemon: Daemon) -> None:
    assert _mode(daemon.home) == 0o700
    assert _mode(daemon.home / "run") == 0o700
    assert _mode(daemon.agent_path) == 0o600
    assert _mode(daemon.control_path) == 0o600
    assert stat.S_ISSOCK(daemon.agent_path.lstat().st_mode)
    keys = daemon.home / "keys"
    assert _mode(keys) == 0o700
    key_files = [p for p in keys.iterdir() if p.is_file()]
    assert key_files
    assert {_mode(p) for p in key_files} == {0o600}


def test_nothing_in_home_is_open_to_group_or_others_by_default(daemon: Daemon) -> None:
    wide = [str(p) for p in [daemon.home, *daemon.home.rglob("*")] if _mode(p) & 0o077]
    assert wide == []


def test_agent_group_opens_agent_sock_to_the_group_only(agent_group: grp.struct_group) -> None:
    with running(config=f'agent_group = "{agent_group.gr_name}"\n') as d:
        run = d.home / "run"
        assert _mode(d.agent_path) == 0o660
        assert d.agent_path.lstat().st_gid == agent_group.gr_gid
        assert _mode(run) == 0o710
        assert run.lstat().st_gid == agent_group.gr_gid
        assert _mode(d.control_path) == 0o600
        assert _mode(d.home / "keys") == 0o700
        with d.control() as c:
            c.call("memory.status", {})


def test_an_unknown_agent_group_stops_the_start(tmp_path: Path) -> None:
    d = Daemon(tmp_path / "h", config='agent_group = "no-such-group-memoryd"\n')
    d.start(wait=False)
    assert d.proc is not None
    assert d.proc.wait(20) != 0
    assert "agent_group" in d.log()
    assert not d.agent_path.exists()


@needs_root
def test_a_member_of_agent_group_reaches_agent_sock_but_not_control_sock(
    other_user: pwd.struct_passwd, agent_group: grp.struct_group
) -> None:
    subprocess.run(
        ["gpasswd", "-a", other_user.pw_name, agent_group.gr_name], check=True, capture_output=True
    )
    with running(config=f'agent_group = "{agent_group.gr_name}"\n') as d:
        # Only the test's own temporary parent is opened; the home and run/
        # are as the daemon made them.
        os.chmod(d.home.parent, 0o711)  # noqa: S103 - the test's own temporary parent
        groups = (agent_group.gr_gid,)
        agent = _as_user(other_user, d.agent_path, groups=groups)
        assert agent.get("connect_error") is None, agent
        assert agent["eof"] is False
        assert json.loads(agent["data"])["id"] == 1
        control = _as_user(other_user, d.control_path, groups=groups)
        assert control.get("connect_error") is not None or control["eof"]
        outsider = _as_user(other_user, d.agent_path)
        assert outsider.get("connect_error") is not None or outsider["eof"]


# --- peer credentials ---------------------------------------------------------------


@needs_root
@pytest.mark.parametrize("channel", ["agent", "control"])
def test_another_uid_is_closed_before_any_reply(
    reachable: Daemon, other_user: pwd.struct_passwd, channel: str
) -> None:
    daemon = reachable
    path = daemon.agent_path if channel == "agent" else daemon.control_path
    result = _as_user(other_user, path)
    assert result == {"eof": True, "data": ""}
    refused = [json.loads(line) for line in daemon.log().splitlines() if '"peer_refused"' in line]
    assert any(e["channel"] == channel and e["peer_uid"] == other_user.pw_uid for e in refused)
    # The daemon itself is unaffected.
    with daemon.control() as c:
        c.call("memory.status", {})


@needs_root
def test_another_uid_without_sending_anything_sees_the_connection_closed(
    reachable: Daemon, other_user: pwd.struct_passwd
) -> None:
    assert _as_user(other_user, reachable.agent_path, send=None) == {"eof": True, "data": ""}


@needs_root
def test_allowed_uids_admits_that_uid_to_agent_sock_only(other_user: pwd.struct_passwd) -> None:
    with running(config=f"allowed_uids = [{other_user.pw_uid}]\n") as d:
        _open_path_to_everyone(d)
        agent = _as_user(other_user, d.agent_path)
        assert agent.get("connect_error") is None, agent
        assert agent["eof"] is False
        reply = json.loads(agent["data"])
        assert reply["id"] == 1
        # Allowed in means answered: a result, or a typed error, never a drop.
        assert "result" in reply or reply["error"]["code"] != -32603
        control = _as_user(other_user, d.control_path)
        assert control == {"eof": True, "data": ""}
        assert '"peer_refused"' in d.log()


# --- connection cap -----------------------------------------------------------------


def test_the_connection_over_the_cap_gets_a_clear_error_then_close() -> None:
    with running(config="max_connections = 4\n") as d:
        held = [d.agent(timeout=10) for _ in range(4)]
        try:
            for c in held:
                c.call("memory.status", {})  # accepted and counted
            result = _talk(str(d.agent_path), None)
            assert result["eof"] is False
            reply = json.loads(result["data"])
            assert reply["id"] is None
            assert reply["error"]["data"]["code"] == "too_many_connections"
            assert reply["error"]["data"]["recovery"]
            # The cap is per socket: control.sock still has room.
            with d.control() as c:
                c.call("memory.status", {})
            held.pop().close()
            assert _eventually_answered(d.agent_path)
            for c in held:  # the connections within the cap were never disturbed
                c.call("memory.status", {})
        finally:
            for c in held:
                c.close()


def _eventually_answered(path: Path) -> bool:
    # The daemon notices a closed connection asynchronously; until it has,
    # the slot is still taken and the answer is too_many_connections.
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:
        result = _talk(str(path), STATUS)
        if not result["eof"] and "result" in json.loads(result["data"]):
            return True
        time.sleep(0.05)
    return False


# --- stalled and idle clients --------------------------------------------------------


@pytest.fixture(scope="module")
def impatient() -> Iterator[Daemon]:
    with running(config="frame_timeout_s = 1.0\nidle_timeout_s = 2.0\n") as d:
        yield d


def _connect(path: Path) -> socket.socket:
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    sock.connect(str(path))
    return sock


def _still_open(sock: socket.socket) -> bool:
    sock.setblocking(False)
    try:
        return sock.recv(1) != b""
    except BlockingIOError:
        return True
    finally:
        sock.setblocking(True)


def _wait_closed(sock: socket.socket, within: float = 20) -> bool:
    sock.settimeout(within)
    try:
        return sock.recv(1) == b""
    except ConnectionResetError:
        return True
    except TimeoutError:
        return False


def test_a_half_sent_frame_is_closed_while_others_are_served(impatient: Daemon) -> None:
    with _connect(impatient.agent_path) as stalled:
        stalled.sendall(b'{"jsonrpc":"2.0","method":"memory.sta')
        with impatient.agent(timeout=10) as other:
            other.call("memory.status", {})
            # Served while the half-sent client is still holding its frame open.
            assert _still_open(stalled)
        assert _wait_closed(stalled)
    assert "connection_stalled_closed" in impatient.log()


def test_a_client_trickling_bytes_is_still_cut_at_the_frame_timeout(impatient: Daemon) -> None:
    # A byte at a time, each well within the timeout: the bound is per frame,
    # not per read, so this never becomes a request and the connection closes.
    with _connect(impatient.agent_path) as trickle:
        trickle.settimeout(0.2)
        closed = False
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            try:
                trickle.sendall(b" ")
                if trickle.recv(1) == b"":
                    closed = True
                    break
            except TimeoutError:
                continue
            except (BrokenPipeError, ConnectionResetError):
                closed = True
                break
        assert closed


def test_an_idle_connection_is_closed_after_the_idle_timeout(impatient: Daemon) -> None:
    with _connect(impatient.control_path) as idle:
        with impatient.control(timeout=10) as other:
            other.call("memory.status", {})
            assert _still_open(idle)
        assert _wait_closed(idle)
    assert "connection_idle_closed" in impatient.log()


def test_a_client_that_never_reads_its_replies_does_not_block_others(impatient: Daemon) -> None:
    with _connect(impatient.control_path) as greedy:
        greedy.setblocking(False)
        # Requests whose replies fill the socket buffer, never read.
        batch = b"[" + b",".join([STATUS.strip()] * 50) + b"]\n"
        try:
            for _ in range(500):
                greedy.send(batch)
        except BlockingIOError:
            pass
        with Client(impatient.control_path, timeout=10) as other:
            other.call("memory.status", {})


# --- fairness between agent uids --------------------------------------------------------


def _hold(path: Path, count: int) -> list[str]:
    """Open ``count`` connections to ``path`` one after another, keeping each
    open, and report each answer."""
    held, answers = [], []
    for _ in range(count):
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        sock.settimeout(10)
        sock.connect(str(path))
        try:
            sock.sendall(STATUS)
        except BrokenPipeError:
            # Over the cap the daemon writes its refusal and closes at
            # once, possibly before this request arrives: the refusal
            # is still there to read.
            pass
        data = b""
        while not data.endswith(b"\n"):
            chunk = sock.recv(65536)
            if not chunk:
                break
            data += chunk
        reply = json.loads(data)
        answers.append("result" if "result" in reply else reply["error"]["data"]["code"])
        held.append(sock)
    return answers


def _hold_as_user(user: pwd.struct_passwd, path: Path, count: int) -> list[str]:
    """``_hold`` in a forked child that has dropped to ``user``."""
    answers: list[str] = _in_child_as(user, lambda: _hold(path, count))
    return answers


def test_one_agent_uid_cannot_take_every_agent_slot(other_user: pwd.struct_passwd) -> None:
    config = (
        f"allowed_uids = [{other_user.pw_uid}]\nmax_connections = 8\nmax_connections_per_uid = 2\n"
    )
    with running(config=config) as d:
        _open_path_to_everyone(d)
        assert _hold_as_user(other_user, d.agent_path, 3) == [
            "result",
            "result",
            "too_many_connections",
        ]
        # The daemon's own uid (the operator) is not held to that share, and
        # control.sock counts apart.
        held = [d.agent(timeout=10) for _ in range(3)]
        try:
            for c in held:
                c.call("memory.status", {})
            with d.control() as c:
                c.call("memory.status", {})
        finally:
            for c in held:
                c.close()


def test_a_clean_stop_removes_its_sockets_and_memctl_says_what_to_do() -> None:
    with running() as d:
        assert d.agent_path.exists() and d.control_path.exists()
        assert d.stop() == 0
        assert not d.agent_path.exists() and not d.control_path.exists()
        done = d.memctl("status", process=True)
        assert done.returncode == 3
        assert b"memoryd is not running" in done.stderr
        assert b"what to do: start it with `memoryd serve`" in done.stderr


def test_memctl_against_a_stale_socket_says_what_to_do() -> None:
    with running() as d:
        d.kill()  # no clean stop: the socket stays behind
        assert d.control_path.exists()
        done = d.memctl("status", process=True)
        assert done.returncode == 3
        assert b"memoryd is not running" in done.stderr
        assert b"what to do: start it with `memoryd serve`" in done.stderr
