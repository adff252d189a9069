"""The hybrid ranker's order on a fixed corpus, on every backend, against the
order recorded from the exact in-memory search it replaced.

Same corpus, same queries, same ranked ids and fused scores: where the
vectors are searched (daemon/semantic/hybrid.py) changes no answer. The
corpus is two owners' entries in three namespaces, each with a fixed vector
near one of five query directions (a seeded generator: no model), and
titles that give some queries lexical hits too, so both lists are fused.
The recorded order is ``vector_ranking_expected.json`` beside this file;
``python -m tests.contract.test_vector_ranking`` prints the current one.
"""

from __future__ import annotations

import json
import sys
import tempfile
from pathlib import Path
from typing import Any

import pytest

from memoryd.daemon.retrieval import search
from memoryd.daemon.semantic import vectors
from memoryd.daemon.storage.store import Store, Tx
from tests.contract.conftest import opened

np = pytest.importorskip("numpy")
hybrid = pytest.importorskip("memoryd.daemon.semantic.hybrid")
quantise = pytest.importorskip("memoryd.daemon.semantic.quantise")

EXPECTED = Path(__file__).with_name("vector_ranking_expected.json")
NOW = "2026-01-01T00:00:00.000000Z"
DIM = 16
MODEL = "fixed-16"
WORDS = ("alpha", "bravo", "charlie", "delta", "echo")
SPACES = (
    ("own_a", "memory", "default"),
    ("own_a", "memory", "work"),
    ("own_a", "project", "p1"),
    ("own_b", "memory", "default"),
)
ENTRIES = 240


def _directions() -> Any:
    rng = np.random.default_rng(36)
    axes = rng.normal(size=(len(WORDS), DIM)).astype(np.float32)
    return axes / np.linalg.norm(axes, axis=1, keepdims=True)


class Model:
    """Queries point along one of five fixed directions (by their first
    word); the ranker's anchor sentences lie across all of them, so its
    floor is the 0.80 minimum."""

    model_id = MODEL
    dim = DIM

    def passages(self, texts: list[str]) -> Any:
        across = np.zeros(DIM, dtype=np.float32)
        across[0] = 1.0
        return np.stack([across for _ in texts])

    def query(self, text: str) -> Any:
        return _directions()[WORDS.index(text.split()[0])]


def corpus() -> list[tuple[str, str, str, str, str, bytes, float]]:
    """(id, owner, target, scope, title, int8 vector, scale) of every entry."""
    rng = np.random.default_rng(7)
    axes = _directions()
    out = []
    for i in range(ENTRIES):
        owner, target, scope = SPACES[i % len(SPACES)]
        near = axes[i % len(WORDS)]
        vec = near + rng.normal(scale=0.09, size=DIM).astype(np.float32)
        scale, blob = quantise.quantise(vec / np.linalg.norm(vec))
        title = f"{WORDS[(i // 7) % len(WORDS)]} note {i}"
        out.append((f"ent_{i:03d}", owner, target, scope, title, blob, scale))
    return out


def fill(tx: Tx) -> None:
    vectors.requeue_for_model(tx, MODEL)
    sqlite = tx.dialect == "sqlite"
    summary, basis = ("summary_text", "basis_text") if sqlite else ("summary", "basis")
    times = ("updated_text", "renewed_text") if sqlite else ("updated_at", "renewed_at")
    content = "content_key" if sqlite else "content_hash"
    for entry_id, owner, target, scope, title, blob, scale in corpus():
        tx.exec(
            "INSERT INTO entries(id, owner, target, scope, type, title, body, "  # noqa: S608
            f"{summary}, status, revision, source, eligible, {basis}, pinned, created_at,"
            f" {times[0]}, {times[1]}, ttl_days, expires_at, {content}) VALUES (?, ?, ?, ?,"
            " 'fact', ?, 'body', 'summary', 'active', 1, 'user', 1, '{}', 0, ?, ?, ?, 90,"
            " '2099-01-01', 'h1')",
            (entry_id, owner, target, scope, title, NOW, NOW, NOW),
        )
        assert vectors.store_vectors(tx, MODEL, DIM, [(entry_id, "h1", scale, blob)], []) == [
            entry_id
        ]


# (name, the caller's view as a filter on owner, target and scope, its
# arguments): ``{a}`` is the table's alias
VIEWS = [
    ("owner_a_all", "{a}owner = ?", ("own_a",)),
    (
        "owner_a_memory",
        "{a}owner = ? AND {a}target = 'memory' AND {a}scope IN ('default', 'work')",
        ("own_a",),
    ),
    ("owner_b_all", "{a}owner = ?", ("own_b",)),
]
QUERIES = [f"{word} zzzz" for word in WORDS] + ["bravo note", "delta note"]
LIMITS = (50, 12)


def ranker_for(store: Store) -> Any:
    """The daemon's hybrid ranker over ``store``: it searches the store's vectors."""
    return hybrid.Ranker(Model(), worker=None)


def ranked(store: Store) -> dict[str, list[list[Any]]]:
    """Every view's ranked (id, fused score) for every query and limit."""
    ranker = ranker_for(store)
    out: dict[str, list[list[Any]]] = {}
    for name, view, args in VIEWS:
        where = view.format(a="e.") + " AND e.status = 'active'"
        spaces = (view.format(a="p."), args)
        for query in QUERIES:
            for limit in LIMITS:

                def rank(
                    tx: Tx,
                    query: str = query,
                    limit: int = limit,
                    where: str = where,
                    args: tuple[str, ...] = args,
                    spaces: tuple[str, tuple[str, ...]] = spaces,
                ) -> list[list[Any]]:
                    plan = search.plan(tx, query, where, args)
                    qvec = np.asarray(Model().query(query), dtype=np.float32)
                    rows, info = ranker.ranked(tx, plan, where, args, limit, qvec, spaces)
                    assert info["ranker"] == "hybrid"
                    return [[r["id"], r["score"]] for r in rows]

                out[f"{name} | {query} | {limit}"] = store.run_sync(rank, write=False)
    return out


def test_hybrid_ranking_is_the_recorded_exact_order(tmp_path: Path, store_config: str) -> None:
    expected = json.loads(EXPECTED.read_text())
    with opened(tmp_path, store_config) as store:
        store.run_sync(fill)
        got = ranked(store)
    assert any(len(v) == 50 for v in got.values())  # the candidate cut is reached
    assert got.keys() == expected.keys()
    for case, order in expected.items():
        assert got[case] == order, case


if __name__ == "__main__":
    with tempfile.TemporaryDirectory() as tmp, opened(Path(tmp), "") as s:
        s.run_sync(fill)
        json.dump(ranked(s), sys.stdout, indent=0)
