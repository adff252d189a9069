"""What the store costs on disk for a fixed workload of short agent notes.

Usage, from the repository root::

    .venv/bin/python bench/storage.py [--notes N] [--json FILE]

Writes ``--notes`` single-entry agent writes (about 170 bytes of text each,
allowed by policy, one call each, as an agent taking notes would) to a fresh
daemon, stops it (which checkpoints the WAL into the database), then reads
SQLite's ``dbstat`` table for the bytes every table and index occupies.
Reports bytes on disk per entry (everything included), bytes per audit event
(the ``audit`` table and its index), the share of each table (its indexes
included) and the bytes of each b-tree on its own, so a change to the schema
shows up as a figure rather than a guess.
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
from collections import defaultdict
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import apsw

from bench.run import ALLOWED, CONFIG, POLICY, Corpus
from tests.harness import Daemon, enable_consent, short_tempdir


def _note(corpus: Corpus) -> dict[str, Any]:
    """A short agent note: about 170 bytes of title and body."""
    body = corpus.text(22)[:150].rsplit(" ", 1)[0].capitalize() + "."
    return {"type": "fact", "title": f"{corpus.text(2).capitalize()} {corpus.n}", "body": body}


def _btrees(db: Path) -> dict[str, int]:
    """Bytes of every b-tree (table or index) in the file, by its own name."""
    conn = apsw.Connection(str(db), flags=apsw.SQLITE_OPEN_READONLY)
    try:
        return {str(name): int(size) for name, size in
                conn.execute("SELECT name, sum(pgsize) FROM dbstat GROUP BY name")}
    finally:
        conn.close()


def _tables(db: Path, btrees: dict[str, int]) -> dict[str, int]:
    """Bytes per table, its indexes included; FTS5 shadow tables are summed
    under their index's name."""
    conn = apsw.Connection(str(db), flags=apsw.SQLITE_OPEN_READONLY)
    try:
        owner = {name: tbl for name, tbl in conn.execute(
            "SELECT name, tbl_name FROM sqlite_master WHERE type IN ('table', 'index')")}
    finally:
        conn.close()
    sizes: dict[str, int] = defaultdict(int)
    for name, size in btrees.items():
        table = owner.get(name, name)
        for fts in ("entries_fts",):
            if table.startswith(fts + "_"):
                table = fts
        sizes[table] += size
    return dict(sizes)


def _count(db: Path, sql: str) -> int:
    conn = apsw.Connection(str(db), flags=apsw.SQLITE_OPEN_READONLY)
    try:
        return int(next(iter(conn.execute(sql)))[0])
    finally:
        conn.close()


def measure(notes: int = 2_000) -> dict[str, Any]:
    root = short_tempdir()
    d = Daemon(root / "h", config=CONFIG, policy=POLICY)
    corpus = Corpus(seed=17)
    text_bytes = 0
    try:
        d.start()
        with d.control(timeout=120) as control, d.agent(timeout=120) as agent:
            enable_consent(control)
            task = agent.call("task.begin", {"scopes": [ALLOWED]})["task_id"]
            for _ in range(notes):
                corpus.n += 1
                note = _note(corpus)
                text_bytes += len(note["title"].encode()) + len(note["body"].encode())
                agent.call("memory.write", {"task_id": task, "action": "add",
                                            "scope": ALLOWED, "entry": note})
        d.stop()
        db = d.home / "memory.db"
        wal = d.home / "memory.db-wal"
        on_disk = db.stat().st_size + (wal.stat().st_size if wal.exists() else 0)
        btrees = _btrees(db)
        tables = _tables(db, btrees)
        events = _count(db, "SELECT count(*) FROM audit")
        audit_bytes = sum(size for name, size in tables.items() if name == "audit")
    finally:
        d.kill()
        shutil.rmtree(root, ignore_errors=True)
    return {
        "notes": notes,
        "text_bytes_per_note": round(text_bytes / notes, 1),
        "bytes_per_entry": round(on_disk / notes, 1),
        "bytes_per_entry_vs_text": round(on_disk / text_bytes, 1),
        "audit_events": events,
        "bytes_per_audit_event": round(audit_bytes / events, 1) if events else None,
        "tables": dict(sorted(tables.items(), key=lambda kv: -kv[1])),
        "btrees": dict(sorted(btrees.items(), key=lambda kv: -kv[1])),
    }


def print_table(result: dict[str, Any]) -> None:
    print(f"\nstorage after {result['notes']} agent notes "
          f"(~{result['text_bytes_per_note']:.0f} B of text each):")
    print(f"  bytes on disk per entry   {result['bytes_per_entry']:>10.1f}"
          f"  ({result['bytes_per_entry_vs_text']}x its text)")
    print(f"  bytes per audit event     {result['bytes_per_audit_event']:>10.1f}"
          f"  ({result['audit_events']} events)")
    total = sum(result["tables"].values())
    for name, size in list(result["tables"].items())[:10]:
        print(f"    {name:<26} {size / result['notes']:>8.1f} B/entry  {size / total:>6.1%}")
    print("  largest b-trees (tables and indexes apart):")
    for name, size in list(result["btrees"].items())[:12]:
        print(f"    {name:<32} {size / result['notes']:>8.1f} B/entry")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--notes", type=int, default=2_000)
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    result = measure(args.notes)
    print_table(result)
    if args.json:
        args.json.write_text(json.dumps(result, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
