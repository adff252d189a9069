"""Stored vectors follow their entry (daemon/semantic/vectors.py), and the hybrid
ranker's pure parts hold their laws (daemon/semantic/hybrid.py): fusion is
deterministic with ties by id, quantisation keeps cosine, and vector search
sees only the caller's view and only what the store holds now.
"""

from __future__ import annotations

import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from memoryd.daemon.semantic import vectors
from memoryd.daemon.storage.store import SqliteStore, Tx

np = pytest.importorskip("numpy")
hybrid = pytest.importorskip("memoryd.daemon.semantic.hybrid")
quantise = pytest.importorskip("memoryd.daemon.semantic.quantise")

NOW = "2026-01-01T00:00:00.000000Z"


@pytest.fixture
def bare() -> Iterator[SqliteStore]:
    """A store no model has embedded in yet."""
    with tempfile.TemporaryDirectory() as tmp:
        s = SqliteStore(Path(tmp) / "memory.db", synchronous="NORMAL")
        try:
            yield s
        finally:
            s.close()


@pytest.fixture
def store(bare: SqliteStore) -> SqliteStore:
    """A store that embeds: the worker has recorded its model, as it does at start."""
    bare.run_sync(lambda tx: vectors.requeue_for_model(tx, "m"))
    return bare


def _entry(tx: Tx, entry_id: str, status: str = "active") -> None:
    tx.exec(
        "INSERT INTO entries(id, owner, target, scope, type, title, body, summary_text, status,"
        " revision, source, eligible, basis_text, pinned, created_at, updated_text, renewed_text,"
        " ttl_days, expires_at, content_key) VALUES (?, 'own_a', 'memory', 'default', 'fact',"
        " ?, 'body', 'summary', ?, 1, 'user', 1, '{}', 0, ?, ?, ?, 90, '2099-01-01', 'h1')",
        (entry_id, "title " + entry_id, status, NOW, NOW, NOW),
    )


def _embed(tx: Tx, entry_id: str) -> list[str]:
    return vectors.store_vectors(tx, "m", 3, [(entry_id, "h1", 0.01, b"\x01\x02\x03")], [])


def _vector_rows(tx: Tx, entry_id: str) -> int:
    row = tx.one("SELECT count(*) AS n FROM entry_vectors WHERE entry_id = ?", (entry_id,))
    return int(row["n"]) if row else 0


CHANGES = [
    ("archived", "UPDATE entries SET status = 'archived' WHERE id = ?", 0),
    ("superseded", "UPDATE entries SET status = 'superseded' WHERE id = ?", 0),
    ("expired", "UPDATE entries SET status = 'expired' WHERE id = ?", 0),
    (
        "removed",
        "UPDATE entries SET status = 'removed', title = '', body = '', summary_text = ''"
        " WHERE id = ?",
        0,
    ),
    ("purged", "DELETE FROM entries WHERE id = ?", 0),
    ("body replaced", "UPDATE entries SET body = 'other', content_key = 'h2' WHERE id = ?", 0),
    ("title replaced", "UPDATE entries SET title = 'other' WHERE id = ?", 0),
    ("recalled", "UPDATE entries SET use_count = use_count + 1 WHERE id = ?", 1),
    ("renewed", "UPDATE entries SET expires_at = '2100-01-01' WHERE id = ?", 1),
]


@pytest.mark.parametrize(("name", "sql", "left"), CHANGES, ids=[c[0] for c in CHANGES])
def test_a_vector_lives_only_as_long_as_its_active_text(
    store: SqliteStore, name: str, sql: str, left: int
) -> None:
    def run(tx: Tx) -> int:
        _entry(tx, "ent_1")
        assert _embed(tx, "ent_1") == ["ent_1"]
        tx.exec(sql, ("ent_1",))
        return _vector_rows(tx, "ent_1")

    assert store.run_sync(run) == left


def test_a_new_active_entry_is_queued_and_an_inactive_one_is_not(store: SqliteStore) -> None:
    def run(tx: Tx) -> list[str]:
        _entry(tx, "ent_a")
        _entry(tx, "ent_b", status="archived")
        return [r["id"] for r in vectors.queued(tx, 10)]

    assert store.run_sync(run) == ["ent_a"]


def test_a_store_no_model_embeds_in_keeps_no_queue_until_the_first_model_queues_all(
    bare: SqliteStore,
) -> None:
    def before(tx: Tx) -> int:
        _entry(tx, "ent_a")
        _entry(tx, "ent_b", status="archived")
        return vectors.backlog(tx)

    assert bare.run_sync(before) == 0

    def first_model(tx: Tx) -> tuple[int, list[str]]:
        queued = vectors.requeue_for_model(tx, "m")
        _entry(tx, "ent_c")  # written once the model embeds: queued by the trigger
        return queued, [r["id"] for r in vectors.queued(tx, 10)]

    assert bare.run_sync(first_model) == (1, ["ent_a", "ent_c"])


def test_a_vector_for_text_that_changed_meanwhile_is_not_stored(store: SqliteStore) -> None:
    def run(tx: Tx) -> tuple[list[str], int, int]:
        _entry(tx, "ent_1")
        tx.exec("UPDATE entries SET content_key = 'h2' WHERE id = 'ent_1'")
        stored = _embed(tx, "ent_1")  # computed from the text hashed h1
        return stored, _vector_rows(tx, "ent_1"), vectors.backlog(tx)

    assert store.run_sync(run) == ([], 0, 1)


def _near(tx: Tx, where: str, args: tuple[Any, ...]) -> list[str]:
    q = np.array([1.0, 2.0, 3.0], dtype=np.float32) / np.sqrt(14)
    return [i for i, _ in hybrid.nearest(tx, "m", q, where, args, 10, floor=-1)]


def test_a_committed_deletion_leaves_vector_search_and_a_rolled_back_one_does_not(
    store: SqliteStore,
) -> None:
    def add(tx: Tx) -> None:
        _entry(tx, "ent_1")
        _entry(tx, "ent_2")
        _embed(tx, "ent_1")
        _embed(tx, "ent_2")

    store.run_sync(add)
    mine = ("p.owner = ?", ("own_a",))
    assert store.run_sync(lambda tx: _near(tx, *mine), write=False) == ["ent_1", "ent_2"]

    def remove_then_fail(tx: Tx) -> None:
        tx.exec("DELETE FROM entries WHERE id = 'ent_2'")
        raise RuntimeError("rolled back")

    with pytest.raises(RuntimeError):
        store.run_sync(remove_then_fail)
    store.run_sync(lambda tx: tx.exec("DELETE FROM entries WHERE id = 'ent_1'"))
    assert store.run_sync(lambda tx: _near(tx, *mine), write=False) == ["ent_2"]
    assert store.run_sync(lambda tx: vectors.owner_count(tx, "own_a", "m"), write=False) == 1


def test_another_owner_or_namespace_has_no_neighbours_in_my_view(store: SqliteStore) -> None:
    def add(tx: Tx) -> None:
        _entry(tx, "ent_x")
        _embed(tx, "ent_x")

    store.run_sync(add)

    def near(where: str, *args: Any) -> list[str]:
        return store.run_sync(lambda tx: _near(tx, where, args), write=False)

    assert near("p.owner = ?", "own_b") == []
    assert near("p.owner = ? AND p.target = 'memory' AND p.scope = ?", "own_a", "other") == []
    assert near("p.owner = ? AND p.target = 'memory' AND p.scope = ?", "own_a", "default") == [
        "ent_x"
    ]


def _packs(tx: Tx) -> list[dict[str, Any]]:
    return tx.all("SELECT used, live, vids, scales, vecs FROM vector_packs ORDER BY id")


def test_a_deleted_vector_leaves_its_pack_and_the_others_stay_searchable(
    store: SqliteStore,
) -> None:
    def add(tx: Tx) -> None:
        for entry_id, blob in (
            ("ent_1", b"\x11\x12\x13"),
            ("ent_2", b"\x21\x22\x23"),
            ("ent_3", b"\x31\x32\x33"),
        ):
            _entry(tx, entry_id)
            vectors.store_vectors(tx, "m", 3, [(entry_id, "h1", 0.01, blob)], [])

    store.run_sync(add)
    [pack] = store.run_sync(_packs, write=False)
    assert (pack["used"], pack["live"]) == (3, 3)
    assert pack["vecs"] == b"\x11\x12\x13\x21\x22\x23\x31\x32\x33"
    store.run_sync(lambda tx: tx.exec("UPDATE entries SET status = 'archived' WHERE id = 'ent_2'"))
    [pack] = store.run_sync(_packs, write=False)
    assert (pack["used"], pack["live"]) == (3, 2)
    assert pack["vecs"] == b"\x11\x12\x13\x00\x00\x00\x31\x32\x33"
    assert pack["vids"][8:16] == bytes(8) and pack["scales"][4:8] == bytes(4)
    mine = ("p.owner = ?", ("own_a",))
    assert sorted(store.run_sync(lambda tx: _near(tx, *mine), write=False)) == ["ent_1", "ent_3"]
    store.run_sync(lambda tx: tx.exec("DELETE FROM entries WHERE id IN ('ent_1', 'ent_3')"))
    assert store.run_sync(_packs, write=False) == []


def test_vectors_stored_before_the_packs_are_packed_and_recall_waits_for_them(
    store: SqliteStore,
) -> None:
    def add(tx: Tx) -> None:
        for entry_id in ("ent_1", "ent_2"):
            _entry(tx, entry_id)
            tx.exec(
                "INSERT INTO entry_vectors(entry_id, model, dim, scale, vec, content_hash)"
                " VALUES (?, 'm', 3, 0.01, x'010203', 'h1')",
                (entry_id,),
            )
        tx.exec("DELETE FROM embed_queue")

    store.run_sync(add)
    ranker = hybrid.Ranker(_FakeEmbedder(), worker=None)  # type: ignore[arg-type]
    info = store.run_sync(lambda tx: ranker.info(tx, "e.owner = ?", ("own_a",)), write=False)
    assert (info["ranker"], info["reason"]) == ("lexical", "vector_index_loading")
    assert store.run_sync(vectors.pack_unpacked) == 2
    assert not store.run_sync(vectors.unpacked, write=False)
    mine = ("p.owner = ?", ("own_a",))
    assert store.run_sync(lambda tx: _near(tx, *mine), write=False) == ["ent_1", "ent_2"]
    info = store.run_sync(lambda tx: ranker.info(tx, "e.owner = ?", ("own_a",)), write=False)
    assert info["ranker"] == "hybrid"


def test_a_namespace_fills_packs_of_pack_size_and_searches_all_of_them(
    store: SqliteStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(vectors, "PACK", 2)

    def add(tx: Tx) -> None:
        for i in range(5):
            _entry(tx, f"ent_{i}")
            _embed(tx, f"ent_{i}")

    store.run_sync(add)
    assert [p["used"] for p in store.run_sync(_packs, write=False)] == [2, 2, 1]
    mine = ("p.owner = ?", ("own_a",))
    assert store.run_sync(lambda tx: _near(tx, *mine), write=False) == [
        f"ent_{i}" for i in range(5)
    ]


_IDS = st.sampled_from([f"ent_{i}" for i in range(8)])


@given(
    st.lists(st.tuples(_IDS, st.floats(0, 20, allow_nan=False)), unique_by=lambda t: t[0]),
    st.lists(st.tuples(_IDS, st.floats(-1, 1, allow_nan=False)), unique_by=lambda t: t[0]),
    st.floats(-1, 1, allow_nan=False),
)
def test_fusion_is_deterministic_and_breaks_ties_by_id(
    lexical: list[tuple[str, float]], vector: list[tuple[str, float]], floor: float
) -> None:
    fused = hybrid.fuse(lexical, vector, floor)
    assert fused == hybrid.fuse(lexical, vector, floor)
    assert {i for i, _ in fused} == (
        {i for i, _ in lexical} | {i for i, cosine in vector if cosine >= floor}
    )
    keys = [(-score, entry_id) for entry_id, score in fused]
    assert keys == sorted(keys)


def test_fusion_ranks_first_an_entry_both_rankers_found_at_their_top() -> None:
    fused = hybrid.fuse([("a", 2.0), ("b", 2.0)], [("b", 0.95), ("c", 0.9)], floor=0.8)
    assert fused[0][0] == "b"


@given(st.lists(st.floats(-1, 1, allow_nan=False, width=32), min_size=8, max_size=8))
def test_int8_quantisation_keeps_the_direction(values: list[float]) -> None:
    vec = np.array(values, dtype=np.float32)
    if float(np.linalg.norm(vec)) < 1e-3:
        return
    vec /= np.linalg.norm(vec)
    scale, blob = quantise.quantise(vec)
    back = quantise.dequantise(scale, blob)
    assert len(blob) == 8
    assert float(back @ vec) / float(np.linalg.norm(back)) > 0.99


class _FakeEmbedder:
    model_id = "fake"
    dim = 3

    def passages(self, texts: list[str]) -> Any:
        return np.tile(np.array([0.0, 0.0, 1.0], dtype=np.float32), (len(texts), 1))

    def query(self, text: str) -> Any:
        return np.array([1.0, 0.0, 0.0], dtype=np.float32)


def test_an_entry_not_yet_embedded_is_ranked_lexically_and_counted(store: SqliteStore) -> None:
    from memoryd.daemon.retrieval import search

    ranker = hybrid.Ranker(_FakeEmbedder(), worker=None)  # type: ignore[arg-type]

    def run(tx: Tx) -> tuple[list[str], dict[str, Any]]:
        _entry(tx, "ent_1")  # queued, not embedded: its title holds "title"
        plan = search.plan(tx, "title")
        rows, info = ranker.ranked(
            tx,
            plan,
            "e.owner = ? AND e.status = 'active'",
            ("own_a",),
            10,
            np.array([1.0, 0.0, 0.0], np.float32),
            ("p.owner = ?", ["own_a"]),
        )
        return [r["id"] for r in rows], info

    ids, info = store.run_sync(run)
    assert ids == ["ent_1"]
    assert info["ranker"] == "hybrid" and info["unembedded"] == 1
    assert info["note"] == "entries not yet embedded are ranked lexically"


@settings(max_examples=60, deadline=None)
@given(
    rows=st.lists(
        st.lists(st.floats(-1, 1, width=32), min_size=8, max_size=8), min_size=1, max_size=20
    ),
    q=st.lists(st.floats(-1, 1, width=32), min_size=8, max_size=8),
)
# A vector whose largest component is subnormal: its step is zero in
# float32, so it is stored as zeros (quantising once divided by zero).
@example(rows=[[0.0] * 7 + [1.401298464324817e-45]], q=[0.0] * 8)
def test_a_packs_cosines_are_its_dequantised_vectors_times_the_query(
    rows: list[list[float]], q: list[float]
) -> None:
    # pack_cosines scales after the product; the reference dequantises each
    # vector first. Equal up to float32 rounding, far below the 6 places
    # a cosine is rounded to.
    coded = [quantise.quantise(np.array(r, dtype=np.float32)) for r in rows]
    query = np.array(q, dtype=np.float32)
    got = hybrid.pack_cosines(
        b"".join(blob for _s, blob in coded),
        np.array([s for s, _b in coded], dtype="<f4").tobytes(),
        len(rows),
        query,
    )
    want = [float(quantise.dequantise(s, blob) @ query) for s, blob in coded]
    assert np.allclose(got, want, rtol=0, atol=1e-6)


# What ``owner_count`` reads from the packs' live counts must be what counting
# every vector row against its entry gives, whatever was stored, packed later,
# replaced or removed, for any owner and model.
_COUNT_STEPS = st.lists(
    st.tuples(
        st.sampled_from(
            ["embed", "embed_unpacked", "pack", "archive", "purge", "retitle", "reactivate"]
        ),
        st.integers(0, 7),
        st.sampled_from(["m", "m2"]),
    ),
    max_size=40,
)


def _counted(tx: Tx, owner: str, model: str) -> int:
    row = tx.one(
        "SELECT count(*) AS n FROM entry_vectors AS v JOIN entries AS e ON e.id = v.entry_id"
        " WHERE e.owner = ? AND v.model = ?",
        (owner, model),
    )
    return int(row["n"]) if row else 0


@settings(max_examples=40, deadline=None)
@given(steps=_COUNT_STEPS)
def test_an_owners_vector_count_from_the_packs_is_the_count_of_its_vectors(
    steps: list[tuple[str, int, str]],
) -> None:
    owners = ("own_a", "own_b")

    def entries(tx: Tx) -> None:
        vectors.requeue_for_model(tx, "m")
        for i in range(8):
            tx.exec(
                "INSERT INTO entries(id, owner, target, scope, type, title, body, summary_text,"
                " status, revision, source, eligible, basis_text, pinned, created_at,"
                " updated_text, renewed_text, ttl_days, expires_at, content_key) VALUES (?, ?,"
                " 'memory', ?, 'fact', 'title', 'body', 'summary', 'active', 1, 'user', 1, '{}',"
                " 0, ?, ?, ?, 90, '2099-01-01', 'h1')",
                (f"ent_{i}", owners[i % 2], ("default", "other")[i // 4], NOW, NOW, NOW),
            )

    def step(tx: Tx, op: str, i: int, model: str) -> None:
        entry_id = f"ent_{i}"
        if op == "embed":
            vectors.store_vectors(tx, model, 3, [(entry_id, "h1", 0.01, b"\x01\x02\x03")], [])
        elif op == "embed_unpacked":
            tx.exec(
                "INSERT OR IGNORE INTO entry_vectors(entry_id, model, dim, scale, vec,"
                " content_hash) SELECT id, ?, 3, 0.01, x'010203', 'h1' FROM entries"
                " WHERE id = ? AND status = 'active'",
                (model, entry_id),
            )
        elif op == "pack":
            vectors.pack_unpacked(tx, limit=1 + i % 3)
        elif op == "archive":
            tx.exec("UPDATE entries SET status = 'archived' WHERE id = ?", (entry_id,))
        elif op == "purge":
            tx.exec("DELETE FROM entries WHERE id = ?", (entry_id,))
        elif op == "retitle":
            tx.exec("UPDATE entries SET title = title || 'x' WHERE id = ?", (entry_id,))
        else:
            tx.exec("UPDATE entries SET status = 'active' WHERE id = ?", (entry_id,))

    with tempfile.TemporaryDirectory() as tmp, pytest.MonkeyPatch.context() as mp:
        mp.setattr(vectors, "PACK", 2)
        s = SqliteStore(Path(tmp) / "memory.db", synchronous="OFF")
        try:
            s.run_sync(entries)
            for op, i, model in steps:
                s.run_sync(lambda tx, op=op, i=i, model=model: step(tx, op, i, model))

            def both(tx: Tx) -> list[tuple[int, int]]:
                return [
                    (vectors.owner_count(tx, owner, model), _counted(tx, owner, model))
                    for owner in owners
                    for model in ("m", "m2")
                ]

            counts = s.run_sync(both, write=False)
        finally:
            s.close()
    assert [fast for fast, _ in counts] == [counted for _, counted in counts]
