"""Vector search against a store other writers change: every backend, then
two daemons on one PostgreSQL database.

The hybrid ranker (daemon/semantic/hybrid.py) searches the vectors the store
holds at the moment of the query, in the read that ranks: a vector removed,
archived or rewritten by any writer (on PostgreSQL, another daemon) is never
ranked again, and one another daemon stored is ranked at once, with nothing
to follow. Each queued entry is claimed by one daemon's worker at a time
(daemon/semantic/vectors.py).

The model is a stand-in with fixed vectors: what is tested is the
bookkeeping, not the embedding.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import anyio
import pytest

from memoryd.daemon.retrieval import search
from memoryd.daemon.semantic import vectors
from memoryd.daemon.storage.store import Store, Tx
from tests.contract.conftest import opened, pg_section

np = pytest.importorskip("numpy")
hybrid = pytest.importorskip("memoryd.daemon.semantic.hybrid")
embedding = pytest.importorskip("memoryd.daemon.semantic.embedding")
quantise = pytest.importorskip("memoryd.daemon.semantic.quantise")

NOW = "2026-01-01T00:00:00.000000Z"
OWNER = "own_a"
# Every stored vector points one way and the query the same way: any vector
# the index holds is a neighbour, so only the store's check can keep one out.
AXIS = np.array([1.0, 0.0, 0.0], dtype=np.float32)


class FixedModel:
    """A stand-in model: every entry and every query is ``AXIS``; the ranker's
    neutral anchor sentences lie across it, so its floor is the 0.80 minimum."""

    model_id = "fixed-3"
    dim = 3

    def passages(self, texts: list[str]) -> Any:
        across = np.array([0.0, 0.0, 1.0], dtype=np.float32)
        return np.stack([across if t in hybrid.ANCHORS else AXIS for t in texts])

    def query(self, text: str) -> Any:
        return AXIS


# The columns a value is written to where SQLite keeps it apart from the
# column it is read as: ``summary`` is generated over ``summary_text``,
# ``basis`` over ``basis_text``, the times over ``*_text`` and
# ``content_hash`` over ``content_key`` (daemon/storage/sqlite_schema.py, ENTRIES_TABLE).
_SQLITE_STORED = {
    "summary": "summary_text",
    "basis": "basis_text",
    "updated_at": "updated_text",
    "renewed_at": "renewed_text",
    "content_hash": "content_key",
}


def column(tx: Tx, name: str) -> str:
    """The column ``name``'s value is written to on ``tx``'s backend."""
    return _SQLITE_STORED.get(name, name) if tx.dialect == "sqlite" else name


def add_entry(tx: Tx, entry_id: str, scope: str = "default") -> None:
    c = {name: column(tx, name) for name in _SQLITE_STORED}
    tx.exec(
        "INSERT INTO entries(id, owner, target, scope, type, title, body, "  # noqa: S608
        f"{c['summary']}, status, revision, source, eligible, {c['basis']}, pinned, created_at,"
        f" {c['updated_at']}, {c['renewed_at']}, ttl_days, expires_at, {c['content_hash']})"
        " VALUES (?, ?, 'memory', ?, 'fact', ?, 'body', 'summary', 'active', 1, 'user', 1,"
        " '{}', 0, ?, ?, ?, 90, '2099-01-01', 'h1')",
        (entry_id, OWNER, scope, "title " + entry_id, NOW, NOW, NOW),
    )


def embed(tx: Tx, entry_id: str) -> list[str]:
    scale, blob = quantise.quantise(AXIS)
    return vectors.store_vectors(tx, FixedModel.model_id, 3, [(entry_id, "h1", scale, blob)], [])


def vector_ids(store: Store, ranker: Any, where: str) -> tuple[list[str], dict[str, Any]]:
    """What ``ranker`` ranks for a query no entry's words match: vector candidates only."""

    def rank(tx: Tx) -> tuple[list[str], dict[str, Any]]:
        args = (OWNER,)
        plan = search.plan(tx, "zzzz", where, args)
        rows, info = ranker.ranked(tx, plan, where, args, 50, AXIS, ("p.owner = ?", args))
        return [r["id"] for r in rows], info

    return store.run_sync(rank, write=False)


def ready_ranker(store: Store) -> Any:
    """The daemon's ranker, made before the changes a test makes to ``store``."""
    return hybrid.Ranker(FixedModel(), worker=None)


# --- every backend: what the store no longer holds is never ranked -------------------

CHANGES = [
    ("archived", "UPDATE entries SET status = 'archived' WHERE id = ?"),
    ("superseded", "UPDATE entries SET status = 'superseded' WHERE id = ?"),
    (
        "removed",
        "UPDATE entries SET status = 'removed', title = '', body = '', {summary} = '' WHERE id = ?",
    ),
    ("purged", "DELETE FROM entries WHERE id = ?"),
    ("rewritten", "UPDATE entries SET body = 'other', {content_hash} = 'h2' WHERE id = ?"),
]


@pytest.mark.parametrize(("name", "sql"), CHANGES, ids=[c[0] for c in CHANGES])
def test_a_vector_the_store_no_longer_holds_is_never_ranked(
    tmp_path: Path, store_config: str, name: str, sql: str
) -> None:
    with opened(tmp_path / "h", store_config) as store:

        def fill(tx: Tx) -> None:
            for entry_id in ("ent_1", "ent_2"):
                add_entry(tx, entry_id)
                assert embed(tx, entry_id) == [entry_id]

        store.run_sync(fill)
        ranker = ready_ranker(store)
        # Every status: a search of archived or removed entries must not
        # bring one back by a vector it no longer has either.
        where = "e.owner = ?"
        before, _ = vector_ids(store, ranker, where)
        assert before == ["ent_1", "ent_2"]
        store.run_sync(
            lambda tx: tx.exec(
                sql.format(summary=column(tx, "summary"), content_hash=column(tx, "content_hash")),
                ("ent_1",),
            )
        )
        after, info = vector_ids(store, ranker, where)
        assert after == ["ent_2"]
        assert info["vector_candidates"] == 1


@pytest.mark.parametrize(("name", "sql"), CHANGES, ids=[c[0] for c in CHANGES])
def test_a_deleted_vectors_bytes_leave_its_pack(
    tmp_path: Path, store_config: str, name: str, sql: str
) -> None:
    with opened(tmp_path / "h", store_config) as store:

        def fill(tx: Tx) -> None:
            add_entry(tx, "ent_1")
            add_entry(tx, "ent_2")
            assert vectors.store_vectors(
                tx,
                FixedModel.model_id,
                3,
                [("ent_1", "h1", 0.5, b"\x11\x12\x13"), ("ent_2", "h1", 0.5, b"\x21\x22\x23")],
                [],
            ) == ["ent_1", "ent_2"]

        store.run_sync(fill)
        store.run_sync(
            lambda tx: tx.exec(
                sql.format(summary=column(tx, "summary"), content_hash=column(tx, "content_hash")),
                ("ent_1",),
            )
        )
        packs = store.run_sync(
            lambda tx: tx.all("SELECT live, vecs FROM vector_packs"), write=False
        )
        assert [(p["live"], bytes(p["vecs"])) for p in packs] == [(1, b"\x00\x00\x00\x21\x22\x23")]


def test_a_vector_stored_again_for_the_same_text_is_ranked_once(
    tmp_path: Path, store_config: str
) -> None:
    with opened(tmp_path / "h", store_config) as store:

        def fill(tx: Tx) -> None:
            add_entry(tx, "ent_1")
            embed(tx, "ent_1")

        store.run_sync(fill)
        ranker = ready_ranker(store)
        store.run_sync(lambda tx: embed(tx, "ent_1"))
        assert vector_ids(store, ranker, "e.owner = ?")[0] == ["ent_1"]


# --- two daemons on one PostgreSQL database -------------------------------------------


@contextmanager
def two_daemons(tmp: Path, schema: str) -> Iterator[tuple[Store, Store]]:
    with (
        opened(tmp / "a", pg_section(schema)) as first,
        opened(tmp / "b", pg_section(schema)) as second,
    ):
        yield first, second


def worker(store: Store) -> Any:
    return embedding.Worker(store, FixedModel())


def steps(*workers: Any, rounds: int = 1) -> None:
    """Start each worker that has not started, then run ``rounds`` rounds of each."""

    async def go() -> None:
        for w in workers:
            if not w.started:
                await w.start()
        for _ in range(rounds):
            for w in workers:
                await w.step()

    anyio.run(go, backend="asyncio")


def held(store: Store) -> set[str]:
    """The entries whose vectors a search through ``store`` finds."""
    return set(
        store.run_sync(
            lambda tx: [
                entry_id
                for entry_id, _ in hybrid.nearest(
                    tx, FixedModel.model_id, AXIS, "p.owner = ?", (OWNER,), 100, floor=-1
                )
            ],
            write=False,
        )
    )


def test_each_queued_entry_is_claimed_by_one_worker_until_its_lease_ends(
    tmp_path: Path, pg_schema: str
) -> None:
    with two_daemons(tmp_path, pg_schema) as (first, second):

        def fill(tx: Tx) -> None:
            for i in range(10):
                add_entry(tx, f"ent_{i:02}")

        first.run_sync(fill)
        claim = vectors.claim
        a = first.run_sync(lambda tx: claim(tx, "worker-a", 8, 60.0), governed=False)
        b = second.run_sync(lambda tx: claim(tx, "worker-b", 8, 60.0), governed=False)
        again = first.run_sync(lambda tx: claim(tx, "worker-a", 8, 60.0), governed=False)
        assert len(a) == 8 and len(b) == 2 and again == []
        assert {r["id"] for r in a} | {r["id"] for r in b} == {f"ent_{i:02}" for i in range(10)}
        assert not second.run_sync(vectors.claimable, write=False)
        # A worker that stopped mid-batch: its lease ends, another takes the entries.
        second.run_sync(
            lambda tx: tx.exec(
                "UPDATE embed_queue SET claimed_until = claimed_until - interval '1 hour'"
                " WHERE claimed_by = 'worker-a'"
            )
        )
        assert second.run_sync(vectors.claimable, write=False)
        taken = second.run_sync(lambda tx: claim(tx, "worker-b", 8, 60.0), governed=False)
        assert sorted(r["id"] for r in taken) == sorted(r["id"] for r in a)


def test_workers_on_one_database_embed_each_entry_once_and_both_search_it(
    tmp_path: Path, pg_schema: str
) -> None:
    with two_daemons(tmp_path, pg_schema) as (first, second):
        wa, wb = worker(first), worker(second)
        steps(wa, wb)

        def fill(tx: Tx) -> None:
            for i in range(12):
                add_entry(tx, f"ent_{i:02}")

        first.run_sync(fill)
        steps(wa, wb, rounds=3)
        made = {f"ent_{i:02}" for i in range(12)}
        assert held(first) == made and held(second) == made
        assert wa.progress.embedded + wb.progress.embedded == 12
        assert wa.progress.embedded > 0 and wb.progress.embedded > 0


def test_one_daemons_deletions_and_rewrites_leave_the_others_search_at_once(
    tmp_path: Path, pg_schema: str
) -> None:
    with two_daemons(tmp_path, pg_schema) as (first, second):
        wa, wb = worker(first), worker(second)

        def fill(tx: Tx) -> None:
            for i in range(4):
                add_entry(tx, f"ent_{i}")

        first.run_sync(fill)
        steps(wa, wb, rounds=2)
        assert held(second) == {"ent_0", "ent_1", "ent_2", "ent_3"}

        def change(tx: Tx) -> None:
            tx.exec("UPDATE entries SET status = 'archived' WHERE id = 'ent_0'")
            tx.exec(
                "UPDATE entries SET status = 'removed', title = '', body = '',"
                " summary = '' WHERE id = 'ent_1'"
            )
            tx.exec("DELETE FROM entries WHERE id = 'ent_2'")
            tx.exec("UPDATE entries SET body = 'other', content_hash = 'h2' WHERE id = 'ent_3'")

        first.run_sync(change)
        # The second daemon's search sees it with no round of its worker.
        assert held(second) == set()
        assert (
            second.run_sync(
                lambda tx: vectors.owner_count(tx, OWNER, FixedModel.model_id), write=False
            )
            == 0
        )
        # The rewritten entry is queued again; embedded by either, found by both.
        steps(wa, wb, rounds=2)
        assert held(first) == held(second) == {"ent_3"}
        # Counted for memory.status from the packs, on each backend.
        for store in (first, second):
            assert (
                store.run_sync(
                    lambda tx: vectors.owner_count(tx, OWNER, FixedModel.model_id), write=False
                )
                == 1
            )
