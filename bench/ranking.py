"""What ranking one recall costs, in-process, beside the planned-FTS floor.

Usage, from the repository root::

    .venv/bin/python bench/ranking.py [--sizes 1000 10000 100000] [--queries N] [--json FILE]
    .venv/bin/python bench/ranking.py --sizes 10000 --other 30000
    .venv/bin/python bench/ranking.py --sizes 10000 --backend postgresql

``--backend postgresql`` does the same on fresh schemas of the test
database (``MEMORYD_TEST_PG_DSN``, as bench/daemon.py), dropped after; its
floor is the server's own ranked query over the daemon's ``search_index``
(``ts_rank``, top 12), as bench/_floors.py's.

``--other N`` instead ranks the first size's queries on two stores holding
the same entries of the owner, the second with N more of another owner's
entries in the same words, alternately query by query: whether another
owner's use of the same words moves the owner's time (beyond the machine's
noise) or any answer.

For each size, fills a fresh store (the daemon's own schema and triggers,
``daemon/storage/store.py``) with that many entries straight through SQL, three
quarters one owner's in three scopes, the rest another owner's; then, for the
same queries as ``bench/recall.py`` (rare words mixed with very common ones),
times what ``memory.context`` does to rank in one read transaction: the plan
(``postings.plan``), the view's BM25 statistics (``search.view_stats``) and
the ranked candidates (``postings.ranked``, recall's limit and filter: the
owner's active entries in two of its scopes), read from the owner's postings
(daemon/retrieval/postings.py) as recall reads them. The floor is the raw FTS5
query of the same planned expression, ordered by FTS5's bm25, top 12, on the
same connection. No socket, no freezing commit, no embedding model: this is
the lexical ranking alone, the part that grows with the store.
"""

from __future__ import annotations

import argparse
import json
import random
import shutil
import statistics
import sys
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.daemon import PG_DSN, short_tempdir
from bench.recall import _body, _vocab, queries
from memoryd.daemon.retrieval import search, text_index
from memoryd.daemon.storage.store import SqliteStore, Tx

try:
    from memoryd.daemon.retrieval import postings
except ImportError:  # code from before postings, for "before" runs
    postings = None  # type: ignore[assignment]

NOW = "2026-12-01T00:00:00.000000Z"
OWNER = "own_bench_a"
SPACES = (("memory", "s0"), ("memory", "s1"))
WHERE = (
    "e.owner = ? AND e.status = 'active' AND e.expires_at > ? AND ("
    + " OR ".join("(e.target = ? AND e.scope = ?)" for _ in SPACES)
    + ")"
)
ARGS = (OWNER, NOW, *(x for pair in SPACES for x in pair))
LIMIT = 200  # recall's CANDIDATES
VIEW = None if postings is None else postings.OwnView(OWNER, SPACES, NOW)


# The same row on PostgreSQL, whose entries name a few columns otherwise.
_SQLITE_INSERT = (
    "INSERT INTO entries(id, owner, target, scope, type, title, body, summary_text,"
    " status, revision, source, eligible, basis_text, pinned, created_at, updated_text,"
    " renewed_text, ttl_days, expires_at, content_key, status_text) VALUES"
    " (?, ?, 'memory', ?, 'fact', ?, ?, ?, 'active', 1, 'agent', 1, '{}', 0,"
    " ?, ?, ?, 120, '2099-01-01T00:00:00.000000Z', 'h', ?)"
)
_PG_INSERT = (
    "INSERT INTO entries(id, owner, target, scope, type, title, body, summary, status, revision,"
    " source, eligible, basis, pinned, created_at, updated_at, renewed_at, ttl_days, expires_at,"
    " content_hash, status_at) VALUES (?, ?, 'memory', ?, 'fact', ?, ?, ?, 'active', 1, 'agent',"
    " 1, '{}', 0, ?, ?, ?, 120, '2099-01-01T00:00:00.000000Z', 'h', ?)"
)


@contextmanager
def opened(backend: str) -> Iterator[Any]:
    """A fresh store: a SQLite file, or a PostgreSQL schema; removed after."""
    if backend == "postgresql":
        from memoryd.daemon.storage.store_pg import PostgresStore

        schema = "b_" + uuid.uuid4().hex[:16]
        pg = PostgresStore(PG_DSN, schema=schema)
        try:
            yield pg
        finally:
            pg.close()
            import psycopg

            with psycopg.connect(PG_DSN, autocommit=True) as conn:
                conn.execute(f'DROP SCHEMA IF EXISTS "{schema}" CASCADE')
        return
    root = short_tempdir()
    store = SqliteStore(root / "memory.db", synchronous="OFF")
    try:
        yield store
    finally:
        store.close()
        shutil.rmtree(root, ignore_errors=True)


def fill(store: Any, n: int, other: int = 0) -> None:
    """``n`` entries, three quarters ``OWNER``'s; then ``other`` more of
    another owner's, written with the same words."""
    vocab = _vocab()
    weights = [1.0 / (rank + 1) for rank in range(len(vocab))]  # Zipf
    rng = random.Random(n)

    def batch(tx: Tx, lo: int, hi: int) -> None:
        sql = _PG_INSERT if tx.dialect == "postgresql" else _SQLITE_INSERT
        for i in range(lo, hi):
            body = _body(rng, vocab, weights)
            owner = OWNER if i % 4 and i < n else "own_bench_b"
            tx.exec(
                sql,
                (
                    f"ent_{i:08d}",
                    owner,
                    f"s{i % 3}",
                    f"note {i}",
                    body,
                    body[:80],
                    NOW,
                    NOW,
                    NOW,
                    NOW,
                ),
            )

    for lo in range(0, n + other, 5_000):
        store.run_sync(lambda tx, lo=lo: batch(tx, lo, min(n + other, lo + 5_000)))
    if store.kind == "postgresql":
        # The planner's statistics of the rows written, as autovacuum's
        # analyse gives them once a table has grown: without them it guesses.
        store.run_sync(lambda tx: tx.exec("ANALYZE"))


def _pct(samples: list[float], q: float) -> float:
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def rank(tx: Tx, q: str) -> list[dict[str, Any]]:
    """What ``memory.context`` does to rank ``q`` for OWNER's view."""
    if postings is not None:
        plan = postings.plan(tx, q, WHERE, ARGS, VIEW)
        if plan.match is None:
            return []
        stats = search.view_stats(tx, OWNER, SPACES, NOW)
        return postings.ranked(tx, plan, WHERE, ARGS, LIMIT, stats=stats, view=VIEW)
    # code from before postings, for "before" runs
    plan = search.plan(tx, q, WHERE, ARGS)
    if plan.match is None:
        return []
    stats = search.view_stats(tx, OWNER, SPACES, NOW)
    return search.ranked(tx, plan, WHERE, ARGS, LIMIT, stats=stats)


def run_isolation(n: int, other: int, k: int, backend: str = "sqlite") -> dict[str, Any]:
    """OWNER's ranking on two stores holding the same OWNER entries, the
    second with ``other`` more of another owner's entries in the same
    words: timed query by query, alternately, so the machine's load falls
    on both alike; and whether every answer is the same."""
    with opened(backend) as alone, opened(backend) as beside:
        stores = [alone, beside]
        for store, extra in zip(stores, (0, other), strict=True):
            fill(store, n, extra)
        qs = queries(random.Random(1), _vocab(), k)
        times: list[list[float]] = [[], []]
        answers: list[list[Any]] = [[], []]
        for q in qs[:5]:  # warm the page caches
            for store in stores:
                store.run_sync(lambda tx, q=q: rank(tx, q), write=False)
        for q in qs:
            for at, store in enumerate(stores):
                t = time.perf_counter()
                answers[at].append(store.run_sync(lambda tx, q=q: rank(tx, q), write=False))
                times[at].append((time.perf_counter() - t) * 1000)
    return {
        "entries": n,
        "other_owner_entries": other,
        "queries": k,
        "alone_p50_ms": round(statistics.median(times[0]), 3),
        "alone_p90_ms": round(_pct(times[0], 0.9), 3),
        "beside_p50_ms": round(statistics.median(times[1]), 3),
        "beside_p90_ms": round(_pct(times[1], 0.9), 3),
        "answers_equal": answers[0] == answers[1],
    }


def _floor(tx: Tx, plan: search.Plan) -> None:
    """The planned FTS query, ranked by the index itself, top 12."""
    if tx.dialect == "postgresql":
        tx.all(
            "SELECT f.entry_id, ts_rank(f.doc, t.q) AS score FROM search_index AS f,"  # noqa: S608 (placeholders only)
            " (SELECT " + search.pg_query(len(plan.terms)) + " AS q) AS t"
            " WHERE f.doc @@ t.q ORDER BY score DESC LIMIT 12",
            plan.terms,
        )
        return
    tx.all(
        "SELECT rowid FROM entries_fts WHERE entries_fts MATCH ?"
        " ORDER BY bm25(entries_fts, ?, ?, ?) LIMIT 12",
        (plan.match, *text_index.WEIGHTS),
    )


def run_size(n: int, k: int, backend: str = "sqlite") -> dict[str, Any]:
    with opened(backend) as store:
        fill(store, n)
        qs = queries(random.Random(1), _vocab(), k)
        ranking: list[float] = []
        floor: list[float] = []

        def one(tx: Tx, q: str) -> None:
            t = time.perf_counter()
            rank(tx, q)
            ranking.append((time.perf_counter() - t) * 1000)
            # The floor ranks the same plan (made either way, it is the same).
            plan = search.plan(tx, q, WHERE, ARGS)
            t = time.perf_counter()
            if plan.match is not None:
                _floor(tx, plan)
            floor.append((time.perf_counter() - t) * 1000)

        for q in qs[:5]:  # warm the page cache
            store.run_sync(lambda tx, q=q: one(tx, q), write=False)
        ranking.clear()
        floor.clear()
        for q in qs:
            store.run_sync(lambda tx, q=q: one(tx, q), write=False)
    out = {
        "entries": n,
        "queries": k,
        "ranking_p50_ms": round(statistics.median(ranking), 3),
        "ranking_p99_ms": round(_pct(ranking, 0.99), 3),
        "fts_planned_p50_ms": round(statistics.median(floor), 3),
        "fts_planned_p99_ms": round(_pct(floor, 0.99), 3),
    }
    out["ranking_p99_vs_fts_planned_p99"] = round(
        out["ranking_p99_ms"] / max(out["fts_planned_p99_ms"], 1e-6), 2
    )
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[1_000, 10_000])
    parser.add_argument("--queries", type=int, default=100)
    parser.add_argument("--json", type=Path)
    parser.add_argument("--backend", choices=("sqlite", "postgresql"), default="sqlite")
    parser.add_argument(
        "--other",
        type=int,
        metavar="N",
        help="instead: the first size's ranking alone and beside another"
        " owner's N more entries in the same words",
    )
    args = parser.parse_args()
    if args.other:
        r = run_isolation(args.sizes[0], args.other, args.queries, args.backend)
        print(
            f"{r['entries']:>7} entries: ranking p50 {r['alone_p50_ms']:.2f} ms"
            f"  p90 {r['alone_p90_ms']:.2f} ms;  beside another owner's"
            f" {r['other_owner_entries']}: p50 {r['beside_p50_ms']:.2f} ms"
            f"  p90 {r['beside_p90_ms']:.2f} ms;  answers equal: {r['answers_equal']}"
        )
        if args.json:
            args.json.write_text(json.dumps(r, indent=2) + "\n")
        return 0
    results = []
    for n in args.sizes:
        r = run_size(n, args.queries, args.backend)
        results.append(r)
        print(
            f"{n:>7} entries: ranking p50 {r['ranking_p50_ms']:8.2f} ms"
            f"  p99 {r['ranking_p99_ms']:8.2f} ms   fts_planned p50"
            f" {r['fts_planned_p50_ms']:7.2f} ms  p99 {r['fts_planned_p99_ms']:7.2f} ms"
            f"   p99 ratio {r['ranking_p99_vs_fts_planned_p99']}"
        )
    if args.json:
        args.json.write_text(json.dumps(results, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
