"""Benchmark recall: memory.context (freezing) and memory.list search over the real socket.

Starts a real memoryd on a temporary home (tests/harness.py), loads N entries
through the governed write path (control-channel batches of 50), then times:

- ``memory.context``: each sample begins a new task (not timed) and times the
  call that ranks and freezes its snapshot (RPC, plan, rank, render, persist,
  audit, fsync);
- ``memory.list`` in search mode;
- the floor: a raw FTS5 top-k query on the same data, in this process,
  through a read-only apsw connection to the daemon's memory.db, using the
  same MATCH expression the daemon's plan chose ("fts_planned"), and the
  naive query that ORs every word of the intent ("fts_naive": the cliff).

Queries mix rare words with very common ones ("the", "project", "notes"...).

    .venv/bin/python bench/recall.py            # 1k and 10k entries
    .venv/bin/python bench/recall.py --full     # also 100k
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from pathlib import Path
from typing import Any

import apsw

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.daemon import enable_consent, running
from memoryd.daemon.retrieval import search, text_index

CONFIG = "scope_budget_bytes = 1000000000\n"
COMMON = ["project", "notes", "team", "build", "service", "user"]
CJK = ["部署", "服务", "数据", "模型", "测试", "配置", "日志", "缓存"]


def _vocab(n: int = 20_000) -> list[str]:
    rng = random.Random(7)
    letters = "bcdfghjklmnpqrstvwxz"
    return [
        "".join(rng.choice(letters) + rng.choice("aeiou") for _ in range(3)) + str(i)
        for i in range(n)
    ]


def _body(rng: random.Random, vocab: list[str], weights: list[float]) -> str:
    words = rng.choices(vocab, weights=weights, k=25) + rng.sample(COMMON, 3) + ["the", "and"]
    rng.shuffle(words)
    text = " ".join(words)
    if rng.random() < 0.1:
        text += " " + "".join(rng.sample(CJK, 3))
    return text


def load(c: Any, n: int, vocab: list[str], weights: list[float]) -> None:
    rng = random.Random(n)
    for start in range(0, n, 50):
        ops = [
            {
                "action": "add",
                "entry": {"type": "fact", "title": f"note {i}", "body": _body(rng, vocab, weights)},
            }
            for i in range(start, min(n, start + 50))
        ]
        c.call("memory.write", {"action": "batch", "ops": ops})


def _pct(samples: list[float], q: float) -> float:
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def _fmt(name: str, samples: list[float]) -> str:
    return (
        f"  {name:<14} p50 {statistics.median(samples):7.3f} ms   p99 {_pct(samples, 0.99):7.3f} ms"
    )


def queries(rng: random.Random, vocab: list[str], k: int) -> list[str]:
    out = []
    for i in range(k):
        rare = rng.sample(vocab[200:], 2)
        mid = rng.choice(vocab[:200])
        if i % 5 == 4:
            out.append(f"{rng.choice(CJK)} 的 配置 {rare[0]}")
        else:
            out.append(
                f"the {rng.choice(COMMON)} notes about {rare[0]} and {mid} for the "
                f"{rng.choice(COMMON)} {rare[1]}"
            )
    return out


def run_size(n: int, samples: int) -> dict[str, float]:
    vocab = _vocab()
    weights = [1.0 / (rank + 1) for rank in range(len(vocab))]  # Zipf
    with running(config=CONFIG) as d:
        with d.control(timeout=600) as c:
            enable_consent(c)
            t0 = time.perf_counter()
            load(c, n, vocab, weights)
            load_s = time.perf_counter() - t0
        db = apsw.Connection(str(d.home / "memory.db"), flags=apsw.SQLITE_OPEN_READONLY)
        db.set_busy_timeout(5_000)
        rng = random.Random(1)
        qs = queries(rng, vocab, samples)
        ctx, lst, floor_plan, floor_naive = [], [], [], []
        w = text_index.WEIGHTS
        with d.agent() as a:
            for q in qs:
                task = a.call("task.begin", {})["task_id"]
                t = time.perf_counter()
                a.call("memory.context", {"task_id": task, "intent": q})
                ctx.append((time.perf_counter() - t) * 1000)
                t = time.perf_counter()
                a.call("memory.list", {"task_id": task, "query": q})
                lst.append((time.perf_counter() - t) * 1000)
                a.call("task.end", {"task_id": task})
        cur = db.cursor()

        class _Tx:
            fulltext = search.FTS5

            def one(self, sql: str, args: Any = ()) -> dict[str, Any] | None:
                for row in cur.execute(sql, args):
                    return {d[0]: v for d, v in zip(cur.get_description(), row, strict=True)}
                return None

        for q in qs:
            plan = search.plan(_Tx(), q)  # type: ignore[arg-type]
            naive = " OR ".join(text_index.quote(t.lower()) for t in q.split())
            for expr, out in ((plan.match, floor_plan), (naive, floor_naive)):
                t = time.perf_counter()
                if expr:
                    cur.execute(
                        "SELECT rowid FROM entries_fts WHERE entries_fts MATCH ?"
                        " ORDER BY bm25(entries_fts, ?, ?, ?) LIMIT 12",
                        (expr, *w),
                    ).fetchall()
                out.append((time.perf_counter() - t) * 1000)
        db.close()
    print(f"{n} entries (loaded in {load_s:.1f} s, {samples} queries)")
    for name, s in (
        ("context", ctx),
        ("list_search", lst),
        ("fts_planned", floor_plan),
        ("fts_naive", floor_naive),
    ):
        print(_fmt(name, s))
    ratio = _pct(ctx, 0.99) / max(_pct(floor_plan, 0.99), 1e-9)
    print(f"  context_p99 / fts_planned_p99 = {ratio:.1f}")
    print(
        f"  context_p99 / fts_naive_p99   = "
        f"{_pct(ctx, 0.99) / max(_pct(floor_naive, 0.99), 1e-9):.2f}"
    )
    return {"ratio": ratio}


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--full", action="store_true", help="also run 100k entries")
    parser.add_argument("--samples", type=int, default=200)
    args = parser.parse_args()
    for n in (1_000, 10_000, *((100_000,) if args.full else ())):
        run_size(n, args.samples)


if __name__ == "__main__":
    main()
