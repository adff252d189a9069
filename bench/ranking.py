"""What ranking one recall costs, in-process, beside the planned-FTS floor.

Usage, from the repository root::

    .venv/bin/python bench/ranking.py [--sizes 1000 10000 100000] [--queries N] [--json FILE]

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
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.daemon import short_tempdir
from bench.recall import _body, _vocab, queries
from memoryd.daemon.retrieval import search
from memoryd.daemon.storage.store import SqliteStore, Tx

try:
    from memoryd.daemon.retrieval import postings
except ImportError:  # code from before postings, for "before" runs
    postings = None  # type: ignore[assignment]

NOW = "2026-12-01T00:00:00.000000Z"
OWNER = "own_bench_a"
SPACES = (("memory", "s0"), ("memory", "s1"))
WHERE = ("e.owner = ? AND e.status = 'active' AND e.expires_at > ? AND ("
         + " OR ".join("(e.target = ? AND e.scope = ?)" for _ in SPACES) + ")")
ARGS = (OWNER, NOW, *(x for pair in SPACES for x in pair))
LIMIT = 200  # recall's CANDIDATES
VIEW = None if postings is None else postings.OwnView(OWNER, SPACES, NOW)


def fill(store: SqliteStore, n: int) -> None:
    vocab = _vocab()
    weights = [1.0 / (rank + 1) for rank in range(len(vocab))]  # Zipf
    rng = random.Random(n)

    def batch(tx: Tx, lo: int, hi: int) -> None:
        for i in range(lo, hi):
            body = _body(rng, vocab, weights)
            tx.exec(
                "INSERT INTO entries(id, owner, target, scope, type, title, body, summary_text,"
                " status, revision, source, eligible, basis_text, pinned, created_at, updated_text,"
                " renewed_text, ttl_days, expires_at, content_key, status_text) VALUES"
                " (?, ?, 'memory', ?, 'fact', ?, ?, ?, 'active', 1, 'agent', 1, '{}', 0,"
                " ?, ?, ?, 120, '2099-01-01T00:00:00.000000Z', 'h', ?)",
                (f"ent_{i:08d}", OWNER if i % 4 else "own_bench_b", f"s{i % 3}",
                 f"note {i}", body, body[:80], NOW, NOW, NOW, NOW))

    for lo in range(0, n, 5_000):
        store.run_sync(lambda tx, lo=lo: batch(tx, lo, min(n, lo + 5_000)))


def _pct(samples: list[float], q: float) -> float:
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def run_size(n: int, k: int) -> dict[str, Any]:
    root = short_tempdir()
    try:
        store = SqliteStore(root / "memory.db", synchronous="OFF")
        try:
            fill(store, n)
            qs = queries(random.Random(1), _vocab(), k)
            ranking: list[float] = []
            floor: list[float] = []

            def one(tx: Tx, q: str) -> None:
                t = time.perf_counter()
                if postings is not None:
                    plan = postings.plan(tx, q, WHERE, ARGS, VIEW)
                    if plan.match is not None:
                        stats = search.view_stats(tx, OWNER, SPACES, NOW)
                        postings.ranked(tx, plan, WHERE, ARGS, LIMIT, stats=stats, view=VIEW)
                else:  # code from before postings, for "before" runs
                    plan = search.plan(tx, q, WHERE, ARGS)
                    if plan.match is not None:
                        stats = search.view_stats(tx, OWNER, SPACES, NOW)
                        search.ranked(tx, plan, WHERE, ARGS, LIMIT, stats=stats)
                ranking.append((time.perf_counter() - t) * 1000)
                t = time.perf_counter()
                if plan.match is not None:
                    tx.all("SELECT rowid FROM entries_fts WHERE entries_fts MATCH ?"
                           " ORDER BY bm25(entries_fts, ?, ?, ?) LIMIT 12",
                           (plan.match, *search.WEIGHTS))
                floor.append((time.perf_counter() - t) * 1000)

            for q in qs[:5]:  # warm the page cache
                store.run_sync(lambda tx, q=q: one(tx, q), write=False)
            ranking.clear()
            floor.clear()
            for q in qs:
                store.run_sync(lambda tx, q=q: one(tx, q), write=False)
        finally:
            store.close()
    finally:
        shutil.rmtree(root, ignore_errors=True)
    out = {
        "entries": n, "queries": k,
        "ranking_p50_ms": round(statistics.median(ranking), 3),
        "ranking_p99_ms": round(_pct(ranking, 0.99), 3),
        "fts_planned_p50_ms": round(statistics.median(floor), 3),
        "fts_planned_p99_ms": round(_pct(floor, 0.99), 3),
    }
    out["ranking_p99_vs_fts_planned_p99"] = round(
        out["ranking_p99_ms"] / max(out["fts_planned_p99_ms"], 1e-6), 2)
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[1_000, 10_000])
    parser.add_argument("--queries", type=int, default=100)
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    results = []
    for n in args.sizes:
        r = run_size(n, args.queries)
        results.append(r)
        print(f"{n:>7} entries: ranking p50 {r['ranking_p50_ms']:8.2f} ms"
              f"  p99 {r['ranking_p99_ms']:8.2f} ms   fts_planned p50"
              f" {r['fts_planned_p50_ms']:7.2f} ms  p99 {r['fts_planned_p99_ms']:7.2f} ms"
              f"   p99 ratio {r['ranking_p99_vs_fts_planned_p99']}")
    if args.json:
        args.json.write_text(json.dumps(results, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
