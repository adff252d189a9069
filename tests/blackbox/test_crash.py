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
from collections.abc import Awaitable, Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import anyio
import apsw
import pytest

from memoryd.rpc.client import Client, RpcError
from tests.harness import Daemon, entry, pg_connect, pg_store_of, running
from tests.inproc import CallFailed, InProcess, composed

WRITERS = 4


@dataclass
class Ledger:
    """What one writer was told: acknowledged writes and the calls left unanswered."""

    acked: list[tuple[str, list[str], list[str]]] = field(default_factory=list)
    unanswered: list[list[str]] = field(default_factory=list)
    # Set at this writer's first acknowledgement.
    first_ack: threading.Event = field(default_factory=threading.Event)


def _writer(path: Path, scope: str, name: str, stop: threading.Event, ledger: Ledger) -> None:
    rng = random.Random(name)
    n = 0
    with Client(path, timeout=20) as c:
        while not stop.is_set():
            n += 1
            size = 3 if rng.random() < 0.5 else 1
            titles = [f"{name} n{n} k{k}" for k in range(size)]
            if size == 1:
                params: dict[str, Any] = {
                    "target": "memory",
                    "scope": scope,
                    "action": "add",
                    "entry": entry(titles[0], f"note {n} of {name}"),
                }
            else:
                params = {
                    "target": "memory",
                    "scope": scope,
                    "action": "batch",
                    "ops": [
                        {"action": "add", "entry": entry(t, f"part {k} of {n}")}
                        for k, t in enumerate(titles)
                    ],
                }
            try:
                result = c.call("memory.write", params)
            except (OSError, RpcError, TimeoutError):
                # The daemon died under this call (or refused it): unacknowledged.
                ledger.unanswered.append(titles)
                return
            ids = [e["id"] for e in result["entries"]]
            ledger.acked.append((result["operation_id"], ids, titles))
            ledger.first_ack.set()


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


def _titles_after_kill(d: Daemon, where: str) -> set[str]:
    """The titles the store holds after a SIGKILL, read as the next start
    would find them: on SQLite, a copy of the files left behind (checked
    whole first); on PostgreSQL, the server's committed rows."""
    store = pg_store_of(d.home)
    if store is not None:
        with pg_connect(*store) as conn:
            return {str(r[0]) for r in conn.execute("SELECT title FROM entries")}
    with tempfile.TemporaryDirectory(dir="/tmp") as tmp:
        conn = _crashed_copy(d, Path(tmp))
        try:
            assert _integrity(conn) == "ok", where
            return {r[0] for r in conn.execute("SELECT title FROM entries")}
        finally:
            conn.close()


@pytest.fixture
def crash_daemon() -> Iterator[Daemon]:
    with running(config="checkpoint = { every_events = 50, every_seconds = 0.2 }\n") as d:
        yield d


def test_acknowledged_writes_survive_kill_9_and_batches_stay_whole(
    crash_daemon: Daemon, slow: bool
) -> None:
    d = crash_daemon
    seed = random.randrange(1 << 30)
    rng = random.Random(seed)
    rounds = 40 if slow else 8
    acked_total: list[tuple[str, list[str], list[str]]] = []
    for rnd in range(rounds):
        stop = threading.Event()
        ledgers = [Ledger() for _ in range(WRITERS)]
        threads = [
            threading.Thread(
                target=_writer,
                args=(d.control_path, f"crash:r{rnd}", f"s{seed} r{rnd} w{i}", stop, ledgers[i]),
            )
            for i in range(WRITERS)
        ]
        for t in threads:
            t.start()
        if rnd % 2:
            # Every other round kills only once a write has been acknowledged,
            # so that the rounds check acknowledged writes however slowly a
            # loaded machine lets the first ones through; the other rounds
            # kill at any moment, before the first acknowledgement included.
            assert ledgers[0].first_ack.wait(60), f"seed {seed} round {rnd}: no acknowledgement"
        stop.wait(rng.uniform(0.05, 0.8))
        d.kill()
        stop.set()
        for t in threads:
            t.join(30)
        acked = [a for ledger in ledgers for a in ledger.acked]
        unanswered = [u for ledger in ledgers for u in ledger.unanswered]
        acked_total.extend(acked)

        titles = _titles_after_kill(d, f"seed {seed} round {rnd}")
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
                    got = c.call("memory.read", {"ids": ids[i : i + 10]})["entries"]
                    assert [e["id"] for e in got] == ids[i : i + 10], f"seed {seed} round {rnd}"
    assert acked_total, "no write was acknowledged in any round"
    d.stop()
    if pg_store_of(d.home) is None:
        conn = apsw.Connection(str(d.home / "memory.db"), flags=apsw.SQLITE_OPEN_READONLY)
        try:
            assert _integrity(conn) == "ok"
        finally:
            conn.close()


# --- injected storage failures ----------------------------------------------------
#
# On the in-process seam (tests/inproc.py): the store's next COMMIT raises what
# SQLite raises on a full disk or a failed fsync. Composing again on the same
# home is the restart.

FAILURES: dict[str, Callable[[], Exception]] = {
    "disk_full": lambda: apsw.FullError("database or disk is full"),
    "io_error": lambda: apsw.IOError("disk I/O error"),
}
Body = Callable[[InProcess], Awaitable[None]]


@pytest.fixture(params=sorted(FAILURES))
def failing(request: pytest.FixtureRequest, tmp_path: Path) -> Callable[[Body], None]:
    """Run a body on a composed daemon whose first COMMIT fails."""

    def run(body: Body) -> None:
        async def go() -> None:
            with composed(tmp_path / "h") as daemon:
                daemon.store.fail_next_commit = FAILURES[request.param]()
                await body(daemon)

        anyio.run(go, backend="asyncio")

    return run


async def _write_in(daemon: InProcess, title: str, **extra: Any) -> Any:
    return await daemon.call(
        "control",
        "memory.write",
        {"target": "memory", "action": "add", "entry": entry(title, f"body of {title}"), **extra},
    )


async def _store_unavailable(daemon: InProcess, title: str, **extra: Any) -> CallFailed:
    with pytest.raises(CallFailed) as err:
        await _write_in(daemon, title, **extra)
    return err.value


async def _operation_ids(daemon: InProcess) -> set[str]:
    events = (await daemon.call("control", "audit.export", {"limit": 5000}))["events"]
    return {e["details"]["operation_id"] for e in events if e["kind"] == "operation"}


def test_a_failed_commit_is_store_unavailable_and_not_acknowledged(
    failing: Callable[[Body], None],
) -> None:
    async def body(daemon: InProcess) -> None:
        err = await _store_unavailable(daemon, "Lost note", idempotency_key="k-1")
        assert (err.error["code"], err.data_code) == (-32006, "store_unavailable")
        assert (await daemon.call("control", "memory.list", {"query": "Lost"}))["items"] == []
        assert await _operation_ids(daemon) == set()

    failing(body)


def test_after_a_failed_commit_governed_writes_stay_refused(
    failing: Callable[[Body], None],
) -> None:
    async def body(daemon: InProcess) -> None:
        await _store_unavailable(daemon, "First")
        err = await _store_unavailable(daemon, "Second")
        assert err.data_code == "store_unavailable"
        status = await daemon.call("control", "memory.status", {})
        assert status["backend"]["health"] == "degraded"

    failing(body)


def test_reads_go_on_while_writes_are_refused(failing: Callable[[Body], None]) -> None:
    async def body(daemon: InProcess) -> None:
        await _store_unavailable(daemon, "First")
        assert (await daemon.call("control", "memory.list", {}))["items"] == []
        status = await daemon.call("control", "memory.status", {})
        assert status["audit"]["verified"] is True

    failing(body)


def test_writes_resume_once_the_chain_verifies_and_the_failed_call_never_appears(
    failing: Callable[[Body], None], tmp_path: Path
) -> None:
    retried: dict[str, Any] = {}

    async def body(daemon: InProcess) -> None:
        await _store_unavailable(daemon, "Lost note", idempotency_key="k-1")
        verdict = await daemon.call("control", "audit.verify", {})
        assert verdict["ok"] is True and verdict["recovered"] is True
        # The same idempotency key starts afresh: nothing of the failed call was kept.
        retried.update(await _write_in(daemon, "Lost note", idempotency_key="k-1"))
        assert retried["outcome"] == "applied"
        assert await _operation_ids(daemon) == {retried["operation_id"]}

    failing(body)

    async def restarted() -> list[str]:
        with composed(tmp_path / "h") as daemon:
            items = (await daemon.call("control", "memory.list", {}))["items"]
            return [i["id"] for i in items]

    assert anyio.run(restarted, backend="asyncio") == [e["id"] for e in retried["entries"]]


def test_the_daemon_reads_no_test_switch_from_its_environment() -> None:
    # Failures are injected through the in-process seam (tests/inproc.py);
    # the program an operator runs has no switch that breaks it on purpose.
    env = {
        "MEMORYD_TEST_FAULTS": "commit=disk_full",
        "MEMORYD_TEST_RECEIPT_FAULTS": "defer_receipts,checkpoint_busy",
    }
    with running(env=env) as d, d.control() as c:
        written = c.call("memory.write", {"action": "add", "entry": entry("Kept note", "kept")})
        assert written["outcome"] == "applied"
        [e] = written["entries"]
        removed = c.call(
            "memory.write", {"action": "remove", "id": e["id"], "expected_revision": e["revision"]}
        )
        assert removed["receipt"]["status"] == "verified"
    assert "test_faults" not in d.log()
