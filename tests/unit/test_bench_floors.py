"""The benchmark's full-text floor answers the scenario's own queries (bench/_floors.py).

A floor is the raw engine doing the same work as the scenario minus the
product: ``fts_floor`` is given the texts a recall scenario sent the daemon
and times FTS5's own ranked top-12 for the terms the daemon's plan keeps of
each, one timing per query that keeps a term; ``bench/run.py`` hands each
recall scenario's texts to it and takes each scenario's ratio against its
own floor. Speed itself is never asserted here.
"""

from __future__ import annotations

from pathlib import Path

import anyio

from bench import _floors
from bench.run import CONFIG, Bench, recall_ratios
from tests.inproc import composed


def _store(home: Path) -> Path:
    """A SQLite home holding a few entries that share the word "harbour"."""

    async def main() -> None:
        with composed(home, config=CONFIG) as daemon:
            ops = [
                {
                    "action": "add",
                    "scope": "bench:fill00",
                    "entry": {
                        "type": "fact",
                        "title": f"Harbour crane {i}",
                        "body": f"The harbour crane number {i} is serviced on Mondays.",
                    },
                }
                for i in range(30)
            ]
            await daemon.call("control", "memory.write", {"action": "batch", "ops": ops})

    anyio.run(main, backend="asyncio")
    return home / "memory.db"


def test_the_floor_times_each_query_that_keeps_a_term(tmp_path: Path) -> None:
    db = _store(tmp_path / "h")
    queries = ["harbour crane", "please help with the harbour", "zyxwv qqqq", "the and of"]
    timings = _floors.fts_floor(db, queries)
    # "zyxwv qqqq" keeps its terms (they match nothing) and is timed; only
    # stop words keep none.
    assert timings is not None and len(timings) == 3
    assert all(t > 0 for t in timings)
    assert _floors.fts_floor(db, ["the and of"]) is None
    assert _floors.fts_floor(db, []) is None


def test_each_recall_scenario_is_divided_by_the_floor_of_its_own_queries() -> None:
    bench = Bench.__new__(Bench)
    bench.results = {
        "context_1k": {"p50_us": 1.0, "p99_us": 900.0, "ops_per_s": 1.0},
        "search_1k": {"p50_us": 1.0, "p99_us": 400.0, "ops_per_s": 1.0},
    }
    bench.recall = {"1k": {"fts_p99_us": 300.0, "fts_search_p99_us": 100.0}}
    ratios = recall_ratios(bench)
    assert ratios["context_vs_fts_1k"] == 3.0
    assert ratios["search_vs_fts_1k"] == 4.0
