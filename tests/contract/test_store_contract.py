"""One store contract, every backend: what daemon/ relies on from ``Store`` and ``Tx``.

Each test runs on SQLite and on PostgreSQL (``store_config``); the answers
must be the same on both.
"""

from __future__ import annotations

import threading
import time
from pathlib import Path
from typing import Any

import anyio
import pytest

from memoryd.audit.chain import EMPTY_HEAD
from memoryd.daemon.storage.backends import BackendError
from memoryd.daemon.storage.store import Tx
from tests.contract.conftest import opened
from tests.harness import entry
from tests.inproc import CallFailed, InProcess, composed

TS = "2026-01-01T00:00:00.000000Z"


def test_a_change_and_its_audit_event_commit_together(tmp_path: Path, store_config: str) -> None:
    with opened(tmp_path, store_config) as store:

        def write(tx: Tx) -> None:
            tx.exec("INSERT INTO meta(key, value) VALUES (?, ?)", ("k1", "v1"))
            tx.audit(
                "checkpoint",
                TS,
                details={"checkpoint_seq": 0, "checkpoint_hash": "0" * 64, "reason": "shutdown"},
            )

        store.run_sync(write)
        assert store.head.seq == 1
        assert store.verify_audit().ok

        def fails(tx: Tx) -> None:
            tx.exec("INSERT INTO meta(key, value) VALUES (?, ?)", ("k2", "v2"))
            tx.audit(
                "checkpoint",
                TS,
                details={"checkpoint_seq": 0, "checkpoint_hash": "0" * 64, "reason": "shutdown"},
            )
            raise RuntimeError("abandon")

        with pytest.raises(RuntimeError):
            store.run_sync(fails)
        assert store.head.seq == 1
        assert (
            store.run_sync(
                lambda tx: tx.one("SELECT value FROM meta WHERE key = ?", ("k2",)), write=False
            )
            is None
        )
        assert [e.seq for e in store.audit_rows()] == [1]


def test_a_read_transaction_cannot_write(tmp_path: Path, store_config: str) -> None:
    with opened(tmp_path, store_config) as store:
        with pytest.raises(Exception):  # noqa: B017 (each driver has its own read-only error)
            store.run_sync(
                lambda tx: tx.exec("INSERT INTO meta(key, value) VALUES ('x', 'y')"), write=False
            )
        assert (
            store.run_sync(lambda tx: tx.one("SELECT value FROM meta WHERE key = 'x'"), write=False)
            is None
        )


def test_upserts_mean_the_same_on_both(tmp_path: Path, store_config: str) -> None:
    with opened(tmp_path, store_config) as store:

        def upserts(tx: Tx) -> list[dict[str, Any]]:
            tx.exec("INSERT OR REPLACE INTO meta(key, value) VALUES ('u', 'one')")
            tx.exec("INSERT OR REPLACE INTO meta(key, value) VALUES ('u', 'two')")
            tx.exec("INSERT OR IGNORE INTO embed_queue(entry_id) VALUES (?)", ("e1",))
            tx.exec("INSERT OR IGNORE INTO embed_queue(entry_id) VALUES (?)", ("e1",))
            return [
                *tx.all("SELECT value FROM meta WHERE key = 'u'"),
                *tx.all("SELECT entry_id FROM embed_queue"),
            ]

        assert store.run_sync(upserts) == [{"value": "two"}, {"entry_id": "e1"}]


def test_text_orders_byte_wise(tmp_path: Path, store_config: str) -> None:
    keys = ["b", "B", "a", "_", "é", "Z", "10", "9", "a b", "ab"]
    with opened(tmp_path, store_config) as store:

        def fill(tx: Tx) -> list[str]:
            for k in keys:
                tx.exec("INSERT INTO meta(key, value) VALUES (?, '')", ("o:" + k,))
            return [
                r["key"][2:]
                for r in tx.all(
                    "SELECT key FROM meta WHERE key >= 'o:' AND key < 'o;' ORDER BY key"
                )
            ]

        assert store.run_sync(fill) == sorted(keys, key=lambda k: k.encode())


def test_percent_and_question_marks_in_values_are_data(tmp_path: Path, store_config: str) -> None:
    with opened(tmp_path, store_config) as store:
        value = "100% sure? '; DROP TABLE meta; --"
        got = store.run_sync(
            lambda tx: (
                tx.exec("INSERT INTO meta(key, value) VALUES (?, ?)", ("p", value)),
                tx.one("SELECT value FROM meta WHERE key = ? AND value LIKE '%sure%'", ("p",)),
            )[1]
        )
        assert got == {"value": value}


def test_the_empty_store_has_the_empty_head(tmp_path: Path, store_config: str) -> None:
    with opened(tmp_path, store_config) as store:
        assert store.head == EMPTY_HEAD
        assert store.degraded is None


# --- the daemon on each backend: writes, reads, search, undo ------------------------


def run(config: str, tmp: Path, body: Any) -> Any:
    async def go() -> Any:
        with composed(tmp / "h", config=config) as daemon:
            await consent(daemon)
            return await body(daemon)

    return anyio.run(go, backend="asyncio")


async def consent(daemon: InProcess) -> None:
    current = await daemon.call("control", "consent.get", {})
    await daemon.call(
        "control", "consent.set", {"read": True, "contribute": True, "version": current["version"]}
    )


async def add(daemon: InProcess, title: str, body: str, **extra: Any) -> dict[str, Any]:
    out = await daemon.call(
        "control",
        "memory.write",
        {"target": "memory", "action": "add", "entry": entry(title, body, "fact"), **extra},
    )
    return out["entries"][0]  # type: ignore[no-any-return]


def test_write_then_read_back(tmp_path: Path, store_config: str) -> None:
    async def body(daemon: InProcess) -> Any:
        made = await add(daemon, "Editor", "The user prefers vim keybindings.")
        got = await daemon.call("control", "memory.read", {"ids": [made["id"]]})
        return made["revision"], [(e["title"], e["body"]) for e in got["entries"]]

    assert run(store_config, tmp_path, body) == (
        1,
        [("Editor", "The user prefers vim keybindings.")],
    )


def test_search_ranks_the_same_on_both(tmp_path: Path, store_config: str) -> None:
    async def body(daemon: InProcess) -> Any:
        await add(daemon, "Osprey nest", "An osprey nests by the lake; ospreys return in spring.")
        await add(daemon, "Lake house", "The lake house has a dock. " * 5 + "One osprey.")
        await add(daemon, "Heron", "A heron fishes at dawn.")
        await add(daemon, "机器学习", "机器学习 is machine learning.")
        page = await daemon.call("control", "memory.list", {"query": "osprey lake"})
        cjk = await daemon.call("control", "memory.list", {"query": "学习"})
        return (
            [(i["title"], i["score"]) for i in page["items"]],
            [i["title"] for i in cjk["items"]],
        )

    ranked, cjk = run(store_config, tmp_path, body)
    assert [t for t, _ in ranked] == ["Osprey nest", "Lake house"]
    assert ranked[0][1] > ranked[1][1] > 0
    assert cjk == ["机器学习"]


def test_expected_revision_and_idempotency(tmp_path: Path, store_config: str) -> None:
    async def body(daemon: InProcess) -> Any:
        params = {
            "target": "memory",
            "action": "add",
            "idempotency_key": "k-1",
            "entry": entry("Once", "Written once.", "fact"),
        }
        first = await daemon.call("control", "memory.write", params)
        again = await daemon.call("control", "memory.write", params)
        made = first["entries"][0]
        stale: str | None = None
        await daemon.call(
            "control",
            "memory.write",
            {
                "target": "memory",
                "action": "replace",
                "id": made["id"],
                "expected_revision": 1,
                "entry": entry("Once", "Written twice.", "fact"),
            },
        )
        try:
            await daemon.call(
                "control",
                "memory.write",
                {
                    "target": "memory",
                    "action": "replace",
                    "id": made["id"],
                    "expected_revision": 1,
                    "entry": entry("Once", "Lost update.", "fact"),
                },
            )
        except CallFailed as exc:
            stale = exc.data_code
        return first == again, stale

    assert run(store_config, tmp_path, body) == (True, "revision_conflict")


def test_replace_keeps_one_chain_and_status_names_the_backend(
    tmp_path: Path, store_config: str
) -> None:
    async def body(daemon: InProcess) -> Any:
        made = await add(daemon, "Replace me", "First.")
        await daemon.call(
            "control",
            "memory.write",
            {
                "target": "memory",
                "action": "replace",
                "id": made["id"],
                "expected_revision": 1,
                "entry": entry("Replace me", "Second.", "fact"),
            },
        )
        got = await daemon.call("control", "memory.read", {"ids": [made["id"]]})
        status = await daemon.call("control", "memory.status", {})
        return (
            [(e["revision"], e["body"]) for e in got["entries"]],
            daemon.store.verify_audit().ok,
            status["backend"],
        )

    entries, ok, backend = run(store_config, tmp_path, body)
    assert entries == [(2, "Second.")]
    assert ok is True
    assert backend["health"] == "ok"
    assert backend["kind"] == ("postgresql" if store_config else "sqlite")
    assert backend["sharing"] == ("multi-host" if store_config else "single-host")


def test_postgresql_refuses_a_newer_schema_and_leaves_it(tmp_path: Path, pg_schema: str) -> None:
    from tests.contract.conftest import pg_section

    with opened(tmp_path / "one", pg_section(pg_schema)) as store:
        store.run_sync(
            lambda tx: tx.exec("UPDATE meta SET value = '99' WHERE key = 'schema_version'")
        )
    with pytest.raises(BackendError) as info:
        with opened(tmp_path / "two", pg_section(pg_schema)):
            pass
    assert "newer than this memoryd's" in str(info.value)
    assert "\n" not in str(info.value) and "127.0.0.1" not in str(info.value)
    with psycopg_connect() as conn:
        row = conn.execute(
            f'SELECT value FROM "{pg_schema}".meta'  # noqa: S608 (our own name)
            " WHERE key = 'schema_version'"
        ).fetchone()
    assert row == ("99",)


def psycopg_connect() -> Any:
    import psycopg

    from tests.harness import PG_DSN

    return psycopg.connect(PG_DSN)


# --- schema 4's storage, the same on both backends ----------------------------------


def test_revisions_audit_rows_and_usage_totals_follow_schema_4(
    tmp_path: Path, store_config: str
) -> None:
    """An add keeps its text once (no revision row), a replace keeps the text
    it replaced; audit rows are audit/packing.py's form; the running totals
    view_stats reads equal a scan of the owner's view."""
    from memoryd.audit.packing import unpack_rows
    from memoryd.daemon.retrieval.search import view_stats

    async def body(daemon: InProcess) -> Any:
        kept = await add(daemon, "Kept", "Stays as written.")
        made = await add(daemon, "Replace me", "First text.")
        after_add = daemon.store.run_sync(
            lambda tx: tx.all("SELECT entry_id, revision, body FROM revisions ORDER BY entry_id"),
            write=False,
        )
        await daemon.call(
            "control",
            "memory.write",
            {
                "target": "memory",
                "action": "replace",
                "id": made["id"],
                "expected_revision": 1,
                "entry": entry("Replace me", "Second text, longer.", "fact"),
            },
        )
        await daemon.call(
            "control",
            "memory.write",
            {
                "action": "archive",
                "id": kept["id"],
                "expected_revision": 1,
                "reason": "no longer true",
            },
        )

        def look(tx: Tx) -> Any:
            revisions = tx.all("SELECT entry_id, revision, body FROM revisions")
            audit = tx.all("SELECT seq, body, hash FROM audit ORDER BY seq")
            owner = tx.one("SELECT owner FROM entries WHERE id = ?", (made["id"],))
            assert owner is not None
            spaces = [
                (r["target"], r["scope"])
                for r in tx.all(
                    "SELECT DISTINCT target, scope FROM entries WHERE owner = ?", (owner["owner"],)
                )
            ]
            scan = tx.one(
                "SELECT count(*) AS n, avg(length(title) + length(summary)"
                " + length(body)) AS avgdl FROM entries WHERE owner = ?"
                " AND status = 'active'",
                (owner["owner"],),
            )
            assert scan is not None
            stats = view_stats(tx, owner["owner"], spaces, "0001-01-01T00:00:00.000000Z")
            return revisions, audit, stats, (int(scan["n"]), float(scan["avgdl"]))

        revisions, audit, stats, scanned = daemon.store.run_sync(look, write=False)
        return after_add, made["id"], revisions, audit, stats, scanned

    after_add, made_id, revisions, audit, stats, scanned = run(store_config, tmp_path, body)
    assert after_add == []
    assert revisions == [{"entry_id": made_id, "revision": 1, "body": "First text."}]
    assert audit, "the writes were audited"
    events = list(unpack_rows((row["seq"], row["body"], row["hash"]) for row in audit))
    for row, event in zip(audit, events, strict=True):
        assert isinstance(row["hash"], bytes) and len(row["hash"]) == 32
        assert event.body[:1] == b"{"
        assert event.hash == row["hash"].hex()
    assert stats[0] == scanned[0] == 1
    assert stats[1] == pytest.approx(scanned[1])


def test_a_recalls_use_count_leaves_the_running_totals_unwritten(
    tmp_path: Path, store_config: str
) -> None:
    """Counting a recall touches the entries alone: no namespace's running
    totals row is rewritten (on PostgreSQL each such rewrite was two
    statements and a dead row of one hot row, twelve times per context
    call). A change of text still moves them."""
    from memoryd.daemon.pipeline import entries

    def version(tx: Tx) -> Any:
        # A row's version: PostgreSQL's xmin; on SQLite the rows the
        # statement and its triggers changed.
        if tx.dialect == "postgresql":
            return tx.tuples(
                "SELECT xmin::text, active_bytes, active_docs, active_chars FROM scope_usage"
            )
        return tx.tuples(
            "SELECT total_changes(), active_bytes, active_docs, active_chars FROM scope_usage"
        )

    async def body(daemon: InProcess) -> Any:
        made = await add(daemon, "Counted", "A note recalled twice.")

        def count(tx: Tx) -> Any:
            first = version(tx)
            entries.note_use(tx, [made["id"]], "2026-12-06T00:00:00.000000Z")
            return first, version(tx)

        before, counted = daemon.store.run_sync(count)
        await daemon.call(
            "control",
            "memory.write",
            {
                "target": "memory",
                "action": "replace",
                "id": made["id"],
                "expected_revision": 1,
                "entry": entry("Counted", "A note recalled twice, then rewritten.", "fact"),
            },
        )
        after = daemon.store.run_sync(version, write=False)
        return before, counted, after

    before, counted, after = run(store_config, tmp_path, body)
    [(_v0, *totals0)] = before
    [(v1, *totals1)] = counted
    [(_v2, *totals2)] = after
    assert totals1 == totals0
    if isinstance(v1, str):  # PostgreSQL: the row was not rewritten
        assert v1 == _v0
    else:  # SQLite: the update and its triggers changed one row, the entry's
        assert v1 - _v0 == 1
    assert totals2 != totals0


WALKED = [f"w:{i}" for i in range(5)]


def _walk(tx: Tx) -> list[str]:
    """A ``rows`` walk during which the job runs other statements on its
    transaction (updating the walked rows), then a ``one`` left at its first
    row of many, and a second walk left unfinished."""
    seen = []
    for row in tx.rows("SELECT key FROM meta WHERE key >= 'w:' AND key < 'w;' ORDER BY key"):
        seen.append(row["key"])
        tx.one("SELECT key FROM meta WHERE key >= 'w:' ORDER BY key")
        tx.exec(
            "UPDATE meta SET value = CAST(CAST(value AS INTEGER) + 1 AS TEXT) WHERE key = ?",
            (row["key"],),
        )
        assert tx.tuples("SELECT key FROM meta WHERE key = ?", (row["key"],)) == [(row["key"],)]
    tx.one("SELECT key FROM meta WHERE key >= 'w:' ORDER BY key")
    left = tx.rows("SELECT key FROM meta WHERE key >= 'w:' ORDER BY key")
    assert next(left)["key"] == WALKED[0]
    assert tx.one("SELECT value FROM meta WHERE key = ?", (WALKED[0],)) is not None
    return seen


def _read_walk(tx: Tx) -> list[str]:
    seen = []
    for row in tx.rows("SELECT key FROM meta WHERE key >= 'w:' AND key < 'w;' ORDER BY key"):
        seen.append(row["key"])
        assert tx.one("SELECT value FROM meta WHERE key = ?", (row["key"],)) is not None
    left = tx.rows("SELECT key FROM meta WHERE key >= 'w:' ORDER BY key")
    assert next(left)["key"] == WALKED[0]
    return seen


def _fails_mid_walk(tx: Tx) -> None:
    walk = tx.rows("SELECT key FROM meta WHERE key >= 'w:' ORDER BY key")
    assert next(walk)["key"] == WALKED[0]
    raise RuntimeError("abandon")  # the traceback keeps ``walk`` alive


# A broken promise here used to block its thread for good (PostgreSQL's
# connection lock, held by a walk between its rows): the thread method ends
# the run with every thread's stack rather than wait on it.
@pytest.mark.timeout(90, method="thread")
def test_a_walk_goes_on_while_its_job_runs_other_statements(
    tmp_path: Path, store_config: str
) -> None:
    with opened(tmp_path, store_config) as store:
        store.run_sync(
            lambda tx: [
                tx.exec("INSERT INTO meta(key, value) VALUES (?, '0')", (k,)) for k in WALKED
            ]
        )
        assert store.run_sync(_walk) == WALKED
        assert store.run_sync(_read_walk, write=False) == WALKED
        # Two walks in one group, each in its own savepoint: a job holds the
        # writer until both are queued behind it.
        held, release = threading.Event(), threading.Event()

        def hold(tx: Tx) -> None:
            held.set()
            release.wait()

        answers: dict[str, Any] = {}

        def submit(name: str, fn: Any) -> threading.Thread:
            def go() -> None:
                answers[name] = store.run_sync(fn)

            thread = threading.Thread(target=go, daemon=True)
            thread.start()
            return thread

        threads = [submit("hold", hold)]
        held.wait()
        threads += [submit(name, _walk) for name in ("a", "b")]
        while store._jobs.qsize() < 2:  # type: ignore[attr-defined]
            time.sleep(0.01)
        release.set()
        for thread in threads:
            thread.join()
        assert answers == {"hold": None, "a": WALKED, "b": WALKED}
        assert store.run_sync(
            lambda tx: tx.all(
                "SELECT value FROM meta WHERE key >= 'w:' AND key < 'w;' ORDER BY key"
            ),
            write=False,
        ) == [{"value": "3"}] * len(WALKED)
        # A job that fails with a walk still held: its savepoint (or its read
        # transaction) still ends, and the writer goes on afterwards.
        for write in (True, False):
            with pytest.raises(RuntimeError):
                store.run_sync(_fails_mid_walk, write=write)
        store.run_sync(
            lambda tx: tx.exec("UPDATE meta SET value = '0' WHERE key = ?", (WALKED[0],))
        )


@pytest.mark.timeout(90, method="thread")
def test_a_walk_longer_than_one_fetch_reads_every_row_once(
    tmp_path: Path, store_config: str
) -> None:
    keys = [f"l:{i:04d}" for i in range(700)]  # PostgreSQL fetches a walk 256 rows at a time
    with opened(tmp_path, store_config) as store:
        store.run_sync(
            lambda tx: [tx.exec("INSERT INTO meta(key, value) VALUES (?, '0')", (k,)) for k in keys]
        )

        def walk(tx: Tx) -> list[str]:
            seen = []
            for row in tx.rows(
                "SELECT key FROM meta WHERE key >= 'l:' AND key < 'l;' ORDER BY key"
            ):
                seen.append(row["key"])
                tx.exec("UPDATE meta SET value = '1' WHERE key = ?", (row["key"],))
            return seen

        assert store.run_sync(walk) == keys
        assert (
            store.run_sync(
                lambda tx: [
                    r["key"]
                    for r in tx.rows(
                        "SELECT key FROM meta WHERE key >= 'l:' AND key < 'l;' AND value = '1'"
                        " ORDER BY key"
                    )
                ],
                write=False,
            )
            == keys
        )
