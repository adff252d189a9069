"""The schema floor: the daemon's own SQL for one governed write, replayed raw.

Usage, from the repository root::

    .venv/bin/python bench/schema_floor.py [--writes N] [--json FILE]

The commit floor (``bench/_floors.py``) is one small transaction of two rows;
a governed write does more, because the schema asks for more (revisions,
operations, the search index and its triggers, the audit row). To tell what
the schema costs from what the Python around it costs, this composes the
daemon in-process exactly as ``memoryd serve`` does (no sockets), records
with apsw's exec tracer every statement the writer connection runs for each
of ``--writes`` governed agent writes (allowed by policy), then replays those
statements with their bindings, raw, on a copy of the store taken before the
writes, one transaction per write, with the daemon's ``synchronous`` setting.
Triggers fire on replay as they did in the daemon. The result is the time of
SQLite doing exactly the daemon's work for a write, with no Python around it,
plus how many statements a write runs and how many WAL frames its commit
writes.
"""

from __future__ import annotations

import argparse
import json
import logging
import shutil
import statistics
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import anyio
import apsw
import structlog

from bench.daemon import composed, short_tempdir
from bench.run import ALLOWED, CONFIG, POLICY, Corpus
from memoryd.daemon.retrieval import text_index

Statement = tuple[str, Any]


class _Recorder:
    """Collects the statements one connection runs, grouped by transaction."""

    def __init__(self) -> None:
        self.current: list[Statement] = []
        self.writes: list[list[Statement]] = []
        self.on = False

    def __call__(self, _cursor: apsw.Cursor, sql: str, bindings: Any) -> bool:
        if self.on:
            self.current.append((sql, bindings))
            if sql.strip().upper() == "COMMIT":
                self.writes.append(self.current)
                self.current = []
        return True


def capture(root: Path, writes: int) -> tuple[list[list[Statement]], Path, str]:
    """Run ``writes`` governed agent writes in-process; return their statements,
    a copy of the store from before them, and the store's synchronous mode."""
    corpus = Corpus(seed=23)
    recorder = _Recorder()
    before = root / "before.db"

    with composed(root / "h", config=CONFIG, policy=POLICY) as daemon:
        store = daemon.store

        async def drive() -> None:
            consent = await daemon.call("control", "consent.get", {})
            await daemon.call(
                "control",
                "consent.set",
                {"read": True, "contribute": True, "version": consent["version"]},
            )
            task = (await daemon.call("agent", "task.begin", {"scopes": [ALLOWED]}))["task_id"]
            for _ in range(20):  # warm-up, and a store that is not empty
                await daemon.call(
                    "agent",
                    "memory.write",
                    {"task_id": task, "action": "add", "scope": ALLOWED, "entry": corpus.entry()},
                )
            await anyio.to_thread.run_sync(store.checkpoint_wal)
            shutil.copyfile(store.path, before)
            store.conn.exec_trace = recorder
            recorder.on = True
            for _ in range(writes):
                await daemon.call(
                    "agent",
                    "memory.write",
                    {"task_id": task, "action": "add", "scope": ALLOWED, "entry": corpus.entry()},
                )
            recorder.on = False

        anyio.run(drive, backend="asyncio")
        return recorder.writes, before, daemon.app.config.synchronous


def replay(db: Path, writes: list[list[Statement]], synchronous: str) -> dict[str, Any]:
    conn = apsw.Connection(str(db))
    text_index.register(conn)  # the SQL functions the daemon's statements and triggers call
    try:
        for pragma in (
            f"PRAGMA synchronous={synchronous}",
            "PRAGMA secure_delete=ON",
            "PRAGMA foreign_keys=ON",
            "PRAGMA journal_mode=WAL",
        ):
            conn.execute(pragma).fetchall()
        frames: list[int] = []
        conn.set_wal_hook(lambda _c, _n, pages: frames.append(pages) or apsw.SQLITE_OK)
        samples = []
        for statements in writes:
            t0 = time.perf_counter()
            for sql, bindings in statements:
                conn.execute(sql, bindings).fetchall()
            samples.append(time.perf_counter() - t0)
    finally:
        conn.close()
    counts = [len(s) for s in writes]
    return {
        "writes": len(writes),
        "schema_floor_p50_us": round(statistics.median(samples) * 1e6, 1),
        "statements_per_write": round(statistics.fmean(counts), 1),
        "wal_frames_per_commit": (round(statistics.fmean(_deltas(frames)), 1) if frames else None),
    }


def _deltas(pages: list[int]) -> list[int]:
    """The WAL hook reports the WAL's size in frames after each commit."""
    out, last = [], 0
    for p in pages:
        out.append(p - last if p >= last else p)
        last = p
    return out


def measure(writes: int = 200) -> dict[str, Any]:
    # The in-process daemon logs like the real one; only warnings matter here.
    structlog.configure(wrapper_class=structlog.make_filtering_bound_logger(logging.WARNING))
    root = short_tempdir()
    try:
        captured, before, synchronous = capture(root, writes)
        if len(captured) != writes:
            raise SystemExit(f"bench: captured {len(captured)} transactions for {writes} writes")
        return replay(before, captured, synchronous)
    finally:
        shutil.rmtree(root, ignore_errors=True)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--writes", type=int, default=200)
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    result = measure(args.writes)
    print(json.dumps(result, indent=2))
    if args.json:
        args.json.write_text(json.dumps(result, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
