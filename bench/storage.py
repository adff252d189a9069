"""What the store costs on disk for a fixed workload of short agent notes.

Usage, from the repository root::

    .venv/bin/python bench/storage.py [--notes N] [--backend {sqlite,postgresql}] [--json FILE]

Writes ``--notes`` single-entry agent writes (about 170 bytes of text each,
allowed by policy, one call each, as an agent taking notes would) to a fresh
daemon, stops it (which checkpoints the WAL into the database), then reads
SQLite's ``dbstat`` table for the bytes every table and index occupies.
Reports bytes on disk per entry (everything included), bytes per audit event
(the ``audit`` table and its index), the share of each table (its indexes
included) and the bytes of each b-tree on its own, so a change to the schema
shows up as a figure rather than a guess.

On PostgreSQL (a fresh schema, dropped after) the bytes are
``pg_total_relation_size`` of each of the schema's tables (its indexes, TOAST
and free-space maps included), in 8 KiB pages; since a fresh schema's empty
tables and indexes already take a few pages each, it also reports the bytes
the notes added (``bytes_per_entry_added``: after less before, per note).
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

from bench.daemon import Daemon, enable_consent, pg_connect, pg_store_of, short_tempdir
from bench.run import ALLOWED, BACKENDS, POLICY, Corpus, home_config


def _note(corpus: Corpus) -> dict[str, Any]:
    """A short agent note: about 170 bytes of title and body."""
    body = corpus.text(22)[:150].rsplit(" ", 1)[0].capitalize() + "."
    return {"type": "fact", "title": f"{corpus.text(2).capitalize()} {corpus.n}", "body": body}


def _btrees(db: Path) -> dict[str, int]:
    """Bytes of every b-tree (table or index) in the file, by its own name."""
    conn = apsw.Connection(str(db), flags=apsw.SQLITE_OPEN_READONLY)
    try:
        return {
            str(name): int(size)
            for name, size in conn.execute("SELECT name, sum(pgsize) FROM dbstat GROUP BY name")
        }
    finally:
        conn.close()


def _tables(db: Path, btrees: dict[str, int]) -> dict[str, int]:
    """Bytes per table, its indexes included; FTS5 shadow tables are summed
    under their index's name."""
    conn = apsw.Connection(str(db), flags=apsw.SQLITE_OPEN_READONLY)
    try:
        owner = {
            name: tbl
            for name, tbl in conn.execute(
                "SELECT name, tbl_name FROM sqlite_master WHERE type IN ('table', 'index')"
            )
        }
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


def _pg_tables(dsn: str, schema: str) -> dict[str, int]:
    """Bytes per table of ``schema``, its indexes, TOAST and free-space maps included."""
    with pg_connect(dsn, schema) as conn:
        rows = conn.execute(
            "SELECT c.relname, pg_total_relation_size(c.oid) FROM pg_class AS c"
            " JOIN pg_namespace AS n ON n.oid = c.relnamespace"
            " WHERE n.nspname = %s AND c.relkind = 'r'",
            (schema,),
        ).fetchall()
    return {str(name): int(size) for name, size in rows}


def measure(notes: int = 2_000, backend: str = "sqlite") -> dict[str, Any]:
    with home_config(backend) as config:
        return _measure(notes, backend, config)


def _measure(notes: int, backend: str, config: str) -> dict[str, Any]:
    root = short_tempdir()
    d = Daemon(root / "h", config=config, policy=POLICY)
    corpus = Corpus(seed=17)
    text_bytes = 0
    extra: dict[str, Any] = {}
    try:
        d.start()
        store = pg_store_of(d.home)
        empty = sum(_pg_tables(*store).values()) if store is not None else 0
        with d.control(timeout=120) as control, d.agent(timeout=120) as agent:
            enable_consent(control)
            task = agent.call("task.begin", {"scopes": [ALLOWED]})["task_id"]
            for _ in range(notes):
                corpus.n += 1
                note = _note(corpus)
                text_bytes += len(note["title"].encode()) + len(note["body"].encode())
                agent.call(
                    "memory.write",
                    {"task_id": task, "action": "add", "scope": ALLOWED, "entry": note},
                )
        d.stop()
        btrees: dict[str, int] = {}
        if store is not None:
            tables = _pg_tables(*store)
            on_disk = sum(tables.values())
            with pg_connect(*store) as conn:
                row = conn.execute("SELECT count(*) FROM audit").fetchone()
            events = int(row[0])
            extra = {
                "empty_bytes": empty,
                "bytes_per_entry_added": round((on_disk - empty) / notes, 1),
            }
        else:
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
        "backend": backend,
        "notes": notes,
        "text_bytes_per_note": round(text_bytes / notes, 1),
        "bytes_per_entry": round(on_disk / notes, 1),
        "bytes_per_entry_vs_text": round(on_disk / text_bytes, 1),
        **extra,
        "audit_events": events,
        "bytes_per_audit_event": round(audit_bytes / events, 1) if events else None,
        "tables": dict(sorted(tables.items(), key=lambda kv: -kv[1])),
        "btrees": dict(sorted(btrees.items(), key=lambda kv: -kv[1])),
    }


def print_table(result: dict[str, Any]) -> None:
    print(
        f"\nstorage after {result['notes']} agent notes "
        f"(~{result['text_bytes_per_note']:.0f} B of text each):"
    )
    print(
        f"  bytes on disk per entry   {result['bytes_per_entry']:>10.1f}"
        f"  ({result['bytes_per_entry_vs_text']}x its text)"
    )
    if "bytes_per_entry_added" in result:
        print(
            f"  bytes added per entry     {result['bytes_per_entry_added']:>10.1f}"
            f"  (less the empty schema's {result['empty_bytes']} B)"
        )
    print(
        f"  bytes per audit event     {result['bytes_per_audit_event']:>10.1f}"
        f"  ({result['audit_events']} events)"
    )
    total = sum(result["tables"].values())
    for name, size in list(result["tables"].items())[:10]:
        print(f"    {name:<26} {size / result['notes']:>8.1f} B/entry  {size / total:>6.1%}")
    if result["btrees"]:
        print("  largest b-trees (tables and indexes apart):")
    for name, size in list(result["btrees"].items())[:12]:
        print(f"    {name:<32} {size / result['notes']:>8.1f} B/entry")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--notes", type=int, default=2_000)
    parser.add_argument("--backend", choices=BACKENDS, default="sqlite")
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    result = measure(args.notes, args.backend)
    print_table(result)
    if args.json:
        args.json.write_text(json.dumps(result, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
