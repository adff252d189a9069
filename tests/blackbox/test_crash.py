"""Crash safety: SIGKILL at random moments, and storage failures at commit.

What must stay true (SPEC §5, §8): every acknowledged write survives with its
audit event; no part of an unacknowledged batch is visible; the database file
is sound and the chain verifies after every restart; a failed commit is never
retried into an acknowledgement, and governed writes stay refused until the
chain verifies again while reads go on.

The kill loop is bounded by a count (8 rounds; 40 with ``--slow``) and uses a
seeded random source, printed on failure, so a failing run can be repeated.
"""

from __future__ import annotations

import random
import shutil
import tempfile
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import apsw
import pytest

from memoryd.rpc.client import Client, RpcError
from tests.harness import Daemon, entry, running, short_tempdir

WRITERS = 4


@dataclass
class Ledger:
    """What one writer was told: acknowledged writes and the calls left unanswered."""

    acked: list[tuple[str, list[str], list[str]]] = field(default_factory=list)
    unanswered: list[list[str]] = field(default_factory=list)


def _writer(path: Path, scope: str, name: str, stop: threading.Event, ledger: Ledger) -> None:
    rng = random.Random(name)
    n = 0
    with Client(path, timeout=20) as c:
        while not stop.is_set():
            n += 1
            size = 3 if rng.random() < 0.5 else 1
            titles = [f"{name} n{n} k{k}" for k in range(size)]
            if size == 1:
                params: dict[str, Any] = {"target": "memory", "scope": scope, "action": "add",
                                          "entry": entry(titles[0], f"note {n} of {name}")}
            else:
                params = {"target": "memory", "scope": scope, "action": "batch",
                          "ops": [{"action": "add", "entry": entry(t, f"part {k} of {n}")}
                                  for k, t in enumerate(titles)]}
            try:
                result = c.call("memory.write", params)
            except (OSError, RpcError, TimeoutError):
                # The daemon died under this call (or refused it): unacknowledged.
                ledger.unanswered.append(titles)
                return
            ids = [e["id"] for e in result["entries"]]
            ledger.acked.append((result["operation_id"], ids, titles))


def _crashed_copy(d: Daemon, into: Path) -> apsw.Connection:
    """Open a copy of the files a SIGKILL left behind (recovering its WAL there)."""
    for suffix in ("", "-wal"):
        src = d.home / f"memory.db{suffix}"
        if src.exists():
            shutil.copyfile(src, into / f"memory.db{suffix}")
    return apsw.Connection(str(into / "memory.db"))


def _export_operation_ids(c: Client) -> set[str]:
    ops: set[str] = set()
    after = 0
    while True:
        page = c.call("audit.export", {"after_seq": after, "limit": 5000})
        for event in page["events"]:
            if event["kind"] == "operation":
                ops.add(event["details"]["operation_id"])
        if page["next_after_seq"] is None:
            return ops
        after = page["next_after_seq"]


def _integrity(conn: apsw.Connection) -> str:
    return str(conn.execute("PRAGMA integrity_check").fetchall()[0][0])


@pytest.fixture
def crash_daemon() -> Iterator[Daemon]:
    with running(config="checkpoint = { every_events = 50, every_seconds = 0.2 }\n") as d:
        yield d


def test_acknowledged_writes_survive_kill_9_and_batches_stay_whole(
        crash_daemon: Daemon, slow: bool) -> None:
    d = crash_daemon
    seed = random.randrange(1 << 30)
    rng = random.Random(seed)
    rounds = 40 if slow else 8
    acked_total: list[tuple[str, list[str], list[str]]] = []
    for rnd in range(rounds):
        stop = threading.Event()
        ledgers = [Ledger() for _ in range(WRITERS)]
        threads = [threading.Thread(target=_writer, args=(
            d.control_path, f"crash:r{rnd}", f"s{seed} r{rnd} w{i}", stop, ledgers[i]))
            for i in range(WRITERS)]
        for t in threads:
            t.start()
        stop.wait(rng.uniform(0.05, 0.8))
        d.kill()
        stop.set()
        for t in threads:
            t.join(30)
        acked = [a for ledger in ledgers for a in ledger.acked]
        unanswered = [u for ledger in ledgers for u in ledger.unanswered]
        acked_total.extend(acked)

        with tempfile.TemporaryDirectory(dir="/tmp") as tmp:
            conn = _crashed_copy(d, Path(tmp))
            try:
                assert _integrity(conn) == "ok", f"seed {seed} round {rnd}"
                titles = {r[0] for r in conn.execute("SELECT title FROM entries")}
            finally:
                conn.close()
        for batch in unanswered:
            seen = [t in titles for t in batch]
            assert all(seen) or not any(seen), f"seed {seed} round {rnd}: partial batch"

        d.start()
        with d.control() as c:
            status = c.call("memory.status", {})
            assert status["audit"]["verified"] is True, f"seed {seed} round {rnd}"
            assert c.call("audit.verify", {})["ok"] is True, f"seed {seed} round {rnd}"
            operations = _export_operation_ids(c)
            for op_id, ids, _titles in acked:
                assert op_id in operations, f"seed {seed} round {rnd}: {op_id} not audited"
                for i in range(0, len(ids), 10):
                    got = c.call("memory.read", {"ids": ids[i:i + 10]})["entries"]
                    assert [e["id"] for e in got] == ids[i:i + 10], f"seed {seed} round {rnd}"
    assert acked_total, "no write was acknowledged in any round"
    d.stop()
    conn = apsw.Connection(str(d.home / "memory.db"), flags=apsw.SQLITE_OPEN_READONLY)
    try:
        assert _integrity(conn) == "ok"
    finally:
        conn.close()


# --- injected storage failures ----------------------------------------------------


@pytest.fixture(params=["commit=disk_full", "commit=io_error"])
def faulty(request: pytest.FixtureRequest) -> Iterator[Daemon]:
    with running(env={"MEMORYD_TEST_FAULTS": request.param}) as d:
        yield d


def _write(c: Client, title: str, **extra: Any) -> Any:
    return c.call("memory.write", {"target": "memory", "action": "add",
                                   "entry": entry(title, f"body of {title}"), **extra})


def _store_unavailable(c: Client, title: str, **extra: Any) -> RpcError:
    with pytest.raises(RpcError) as err:
        _write(c, title, **extra)
    return err.value


def test_a_failed_commit_is_store_unavailable_and_not_acknowledged(faulty: Daemon) -> None:
    with faulty.control() as c:
        err = _store_unavailable(c, "Lost note", idempotency_key="k-1")
        assert (err.code, err.data["code"]) == (-32006, "store_unavailable")
        assert c.call("memory.list", {"query": "Lost"})["items"] == []
        assert _export_operation_ids(c) == set()


def test_after_a_failed_commit_governed_writes_stay_refused(faulty: Daemon) -> None:
    with faulty.control() as c:
        _store_unavailable(c, "First")
        err = _store_unavailable(c, "Second")
        assert err.data["code"] == "store_unavailable"
        status = c.call("memory.status", {})
        assert status["backend"]["health"] == "degraded"


def test_reads_go_on_while_writes_are_refused(faulty: Daemon) -> None:
    with faulty.control() as c:
        _store_unavailable(c, "First")
        assert c.call("memory.list", {})["items"] == []
        assert c.call("memory.status", {})["audit"]["verified"] is True


def test_writes_resume_once_the_chain_verifies_and_the_failed_call_never_appears(
        faulty: Daemon) -> None:
    with faulty.control() as c:
        _store_unavailable(c, "Lost note", idempotency_key="k-1")
        verdict = c.call("audit.verify", {})
        assert verdict["ok"] is True and verdict["recovered"] is True
        # The same idempotency key starts afresh: nothing of the failed call was kept.
        retried = _write(c, "Lost note", idempotency_key="k-1")
        assert retried["outcome"] == "applied"
        assert _export_operation_ids(c) == {retried["operation_id"]}
    faulty.restart()
    with faulty.control() as c:
        items = c.call("memory.list", {})["items"]
        assert [i["id"] for i in items] == [e["id"] for e in retried["entries"]]


def test_an_unknown_fault_plan_stops_the_daemon_at_start() -> None:
    root = short_tempdir()
    try:
        d = Daemon(root / "h", env={"MEMORYD_TEST_FAULTS": "commit=maybe"})
        with pytest.raises(RuntimeError, match="MEMORYD_TEST_FAULTS"):
            d.start()
    finally:
        shutil.rmtree(root, ignore_errors=True)
