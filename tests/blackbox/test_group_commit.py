"""Group commit: concurrent writes share a transaction, each answered only once durable.

Two levels. Through a real daemon: eight concurrent writers all succeed and
the chain verifies; every write that was answered survives ``kill -9`` and a
restart. On the store itself, where a group can be formed deterministically
(a first job holds the writer thread while the next ones queue up): a job
that raises rolls back only its own savepoint and the chain head skips it,
and a failed COMMIT fails every job of the group.
"""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Callable, Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import apsw
import pytest

from memoryd.audit.packing import TAG_V3
from memoryd.daemon.clock import fmt
from memoryd.daemon.storage.store import SqliteStore, Tx
from memoryd.kernel.errors import Unavailable
from memoryd.rpc.client import Client
from tests.harness import Daemon, entry, running


def _writer(
    d: Daemon, prefix: str, count: int, answered: list[str], errors: list[BaseException]
) -> Callable[[], None]:
    def work() -> None:
        try:
            with d.control() as c:
                for i in range(count):
                    out = c.call(
                        "memory.write",
                        {"action": "add", "scope": "group", "entry": entry(title=f"{prefix} {i}")},
                    )
                    answered.append(out["entries"][0]["id"])
        except BaseException as exc:  # noqa: BLE001 (reported by the test, not lost in a thread)
            errors.append(exc)

    return work


def _read_all(c: Client, ids: list[str]) -> set[str]:
    found: set[str] = set()
    for i in range(0, len(ids), 10):
        out = c.call("memory.read", {"ids": ids[i : i + 10]})
        found.update(e["id"] for e in out["entries"])
    return found


def test_concurrent_writers_all_succeed_and_the_chain_verifies() -> None:
    with running() as d:
        answered: list[str] = []
        errors: list[BaseException] = []
        threads = [
            threading.Thread(target=_writer(d, f"w{n}", 15, answered, errors)) for n in range(8)
        ]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert errors == []
        assert len(set(answered)) == 8 * 15
        with d.control() as c:
            assert _read_all(c, answered) == set(answered)
            assert c.call("audit.verify", {})["ok"] is True


def test_every_answered_write_survives_kill_9() -> None:
    with running() as d:
        answered: list[str] = []
        errors: list[BaseException] = []
        threads = [
            threading.Thread(target=_writer(d, f"k{n}", 1_000, answered, errors)) for n in range(8)
        ]
        for t in threads:
            t.start()
        deadline = time.monotonic() + 60
        while len(answered) < 40 and time.monotonic() < deadline:
            time.sleep(0.01)
        d.kill()  # SIGKILL while the eight writers are mid-stream
        for t in threads:
            t.join()
        acknowledged = list(answered)
        assert len(acknowledged) >= 40
        d.start()
        with d.control() as c:
            assert _read_all(c, acknowledged) == set(acknowledged)
            assert c.call("audit.verify", {})["ok"] is True


# --- the store itself -----------------------------------------------------------------


@pytest.fixture
def store(tmp_path: Path) -> Iterator[SqliteStore]:
    s = SqliteStore(tmp_path / "memory.db")
    try:
        yield s
    finally:
        s.close()


NOW = fmt(datetime(2026, 11, 1, 12, 0, tzinfo=UTC))


def _put(key: str, fail: bool = False) -> Callable[[Tx], str]:
    """A job that appends an audit event and a row, then (optionally) raises."""

    def job(tx: Tx) -> str:
        tx.audit("policy_loaded", NOW, details={"policy_hash": "b3:" + "0" * 64, "rules": 0})
        tx.exec("INSERT INTO meta(key, value) VALUES (?, 'x')", (key,))
        if fail:
            raise ValueError("this job fails after writing")
        return key

    return job


def _in_one_group(store: SqliteStore, jobs: list[Callable[[Tx], Any]]) -> list[Any]:
    """Run ``jobs`` as one group: the writer thread is held (outside any
    transaction) until all of them are queued, then takes them together."""
    entered, release = threading.Event(), threading.Event()

    def hold(conn: apsw.Connection) -> None:
        entered.set()
        release.wait(30)

    holder = threading.Thread(target=store._writer_call, args=(hold,))
    holder.start()
    assert entered.wait(30)
    outcomes: list[Any] = [None] * len(jobs)

    def call(i: int) -> None:
        try:
            outcomes[i] = store.run_sync(jobs[i])
        except BaseException as exc:  # noqa: BLE001 (the outcome under test)
            outcomes[i] = exc

    callers = [threading.Thread(target=call, args=(i,)) for i in range(len(jobs))]
    for t in callers:
        t.start()
    deadline = time.monotonic() + 30
    while store._jobs.qsize() < len(jobs) and time.monotonic() < deadline:
        time.sleep(0.001)
    assert store._jobs.qsize() == len(jobs)
    release.set()
    holder.join()
    for t in callers:
        t.join()
    return outcomes


def _keys(store: SqliteStore) -> set[str]:
    rows = store.run_sync(
        lambda tx: tx.all("SELECT key FROM meta WHERE key LIKE 'k%'"), write=False
    )
    return {r["key"] for r in rows}


def test_a_failing_job_rolls_back_only_itself(store: SqliteStore) -> None:
    outcomes = _in_one_group(store, [_put("k1"), _put("k2", fail=True), _put("k3")])
    assert outcomes[0] == "k1" and outcomes[2] == "k3"
    assert isinstance(outcomes[1], ValueError)
    assert _keys(store) == {"k1", "k3"}


def test_the_chain_head_skips_a_rolled_back_job(store: SqliteStore) -> None:
    _in_one_group(store, [_put("k1"), _put("k2", fail=True), _put("k3")])
    result = store.verify_audit()
    assert result.ok and result.checked == 2
    assert store.head.seq == 2


def test_a_failed_commit_fails_every_job_of_the_group(store: SqliteStore) -> None:
    store.fail_next_commit = apsw.IOError("disk I/O error")
    outcomes = _in_one_group(store, [_put("k1"), _put("k2")])
    assert all(isinstance(o, Unavailable) for o in outcomes)
    assert store.degraded == "commit_failed"
    assert _keys(store) == set()
    assert store.head.seq == 0


def _every_row_reads_back(store: SqliteStore) -> None:
    """The whole chain verifies, and each row reads back alone from the row
    a reader starts at (audit/packing.py's ``first_needed``)."""
    assert store.verify_audit().ok
    events = list(store.audit_rows())
    for event in events:
        assert next(iter(store.audit_rows(event.seq - 1))) == event


def _opens(store: SqliteStore) -> list[int]:
    """The seqs of the V3 rows that open a stream."""
    rows = store.run_sync(
        lambda tx: tx.all("SELECT seq, body FROM audit ORDER BY seq"), write=False
    )
    assert {bytes(r["body"])[:1] for r in rows} == {TAG_V3}
    # The varint after the tag holds ``cut * 2 + opens``: its first byte's low bit.
    return [r["seq"] for r in rows if bytes(r["body"])[1] & 1]


def test_audit_rows_after_rollbacks_a_failed_commit_and_a_restart_read_back(tmp_path: Path) -> None:
    # The writer's open compressor (V3) must never go on from a row that did
    # not reach the disk: a rolled-back job, a failed commit and a new
    # process each make the next row open a stream of its own.
    path = tmp_path / "memory.db"
    store = SqliteStore(path)
    try:
        store.run_sync(_put("k1"))
        store.run_sync(_put("k2"))
        _in_one_group(store, [_put("k3"), _put("k4", fail=True), _put("k5")])
        with pytest.raises(ValueError):
            store.run_sync(_put("k6", fail=True))
        store.run_sync(_put("k7"))
        store.fail_next_commit = apsw.IOError("disk I/O error")
        _in_one_group(store, [_put("k8"), _put("k9")])
        assert store.try_recover()
        store.run_sync(_put("k10"))
        _every_row_reads_back(store)
    finally:
        store.close()
    store = SqliteStore(path)
    try:
        store.run_sync(_put("k11"))
        store.run_sync(_put("k12"))
        _every_row_reads_back(store)
        # seq 1 (the first), 4 (after k4's rollback), 5 (after k6's), 6
        # (after the failed commit), 7 (after the restart).
        assert _opens(store) == [1, 4, 5, 6, 7]
        assert store.head.seq == 8
    finally:
        store.close()


def test_a_committed_write_is_read_back_at_once(store: SqliteStore) -> None:
    store.run_sync(_put("k1"))
    assert _keys(store) == {"k1"}


def test_a_group_wakes_its_callers_event_loop_once(store: SqliteStore) -> None:
    # Callers waiting on one event loop are answered by one call into it per
    # group, not one per job: each call is a wake-up of the loop.
    entered, release = threading.Event(), threading.Event()

    def hold(conn: apsw.Connection) -> None:
        entered.set()
        release.wait(30)

    async def go() -> tuple[list[str], int]:
        loop = asyncio.get_running_loop()
        wakeups = 0
        real = loop.call_soon_threadsafe

        def counted(*args: Any, **kwargs: Any) -> Any:
            nonlocal wakeups
            wakeups += 1
            return real(*args, **kwargs)

        loop.call_soon_threadsafe = counted  # type: ignore[method-assign]
        holder = threading.Thread(target=store._writer_call, args=(hold,))
        holder.start()
        await asyncio.to_thread(entered.wait, 30)
        wakeups = 0
        calls = [asyncio.ensure_future(store.run(_put(f"k{i}"))) for i in range(5)]
        while store._jobs.qsize() < len(calls):
            await asyncio.sleep(0)
        release.set()
        results = await asyncio.gather(*calls)
        holder.join()
        return list(results), wakeups

    results, wakeups = asyncio.run(go())
    assert results == [f"k{i}" for i in range(5)]
    assert wakeups == 1
