"""PostgreSQL going away and coming back, under a write loop (issue #18 item 6).

Restarting the server disturbs every other test using it, so this module
runs in the PostgreSQL leg only (``--backend postgresql``, which ``.ci/run``
runs on its own, after the main suite).
"""

from __future__ import annotations

import subprocess
import threading
import time
from collections.abc import Iterator

import psycopg
import pytest

from memoryd.rpc.client import RpcError
from tests.harness import PG_DSN, Daemon, backend, enable_consent, entry, running

pytestmark = pytest.mark.skipif(
    backend() != "postgresql",
    reason="restarts the shared PostgreSQL server: runs in the PostgreSQL leg, alone",
)


def _version() -> str:
    """The server's major version (the cluster's name for pg_ctlcluster)."""
    with psycopg.connect(PG_DSN) as conn:
        return str(conn.info.server_version // 10_000)


VERSION: list[str] = []


def _cluster(action: str) -> None:
    if not VERSION:
        VERSION.append(_version())  # asked while the server still answers
    subprocess.run(
        ["pg_ctlcluster", "--skip-systemctl-redirect", VERSION[0], "main", action],
        check=True,
        capture_output=True,
        timeout=120,
    )


def _ready(timeout: float = 60.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if subprocess.run(["pg_isready", "-q", "-h", "127.0.0.1"], check=False).returncode == 0:
            return
        time.sleep(0.2)
    raise TimeoutError("PostgreSQL did not come back")


@pytest.fixture
def d() -> Iterator[Daemon]:
    with running() as daemon:
        with daemon.control() as c:
            enable_consent(c)
        yield daemon


def test_no_acknowledged_write_is_lost_across_a_server_restart(d: Daemon) -> None:
    acked: list[str] = []
    refused: list[str | None] = []
    stop = threading.Event()

    def loop() -> None:
        with d.control() as c:
            i = 0
            while not stop.is_set():
                i += 1
                try:
                    out = c.call(
                        "memory.write",
                        {
                            "target": "memory",
                            "action": "add",
                            "entry": entry(f"Loop {i}", f"Write {i}."),
                        },
                    )
                    acked.append(out["entries"][0]["id"])
                except RpcError as exc:
                    refused.append(exc.data_code)
                    time.sleep(0.05)

    def acked_at_least(n: int) -> None:
        # Waits on the writes themselves, not on the clock: the loop is
        # writing before the restart, and writing again after it.
        deadline = time.monotonic() + 60
        while len(acked) < n:
            assert time.monotonic() < deadline, f"only {len(acked)} of {n} writes acknowledged"
            time.sleep(0.02)

    writer = threading.Thread(target=loop)
    writer.start()
    try:
        acked_at_least(20)
        _cluster("restart")
        _ready()
        acked_at_least(len(acked) + 20)
    finally:
        stop.set()
        writer.join(60)
    assert acked
    assert set(refused) <= {"store_unavailable"}
    with d.control() as c:
        found = [
            e
            for i in range(0, len(acked), 10)
            for e in c.call("memory.read", {"ids": acked[i : i + 10]})["entries"]
        ]
        status = c.call("memory.status", {})
    assert sorted(e["id"] for e in found) == sorted(acked)
    assert status["backend"]["health"] == "ok"


def test_an_unreachable_server_is_store_unavailable_with_a_hint(d: Daemon) -> None:
    _cluster("stop")
    try:
        with d.control() as c:
            with pytest.raises(RpcError) as info:
                c.call(
                    "memory.write",
                    {
                        "target": "memory",
                        "action": "add",
                        "entry": entry("While down", "Not stored."),
                    },
                )
            assert info.value.data_code == "store_unavailable"
            assert "reconnects by itself" in (info.value.recovery or "")
            with pytest.raises(RpcError) as read:
                c.call("memory.list", {})
            assert read.value.data_code == "store_unavailable"
    finally:
        _cluster("start")
        _ready()
    with d.control() as c:
        for _ in range(50):
            try:
                c.call(
                    "memory.write",
                    {"target": "memory", "action": "add", "entry": entry("After", "Back again.")},
                )
                break
            except RpcError:
                time.sleep(0.2)
        status = c.call("memory.status", {})
    assert status["backend"]["health"] == "ok"
    assert "dbname" not in d.log() and "127.0.0.1" not in d.log()
