"""SQLite and PostgreSQL side by side: governed writes, search, and two daemons on one database.

Runs in one process, in one go:

- ``floor``: raw psycopg, no memoryd code: one entry-like row, one audit-like
  row and the head row's update, COMMIT (the PostgreSQL counterpart of
  ``bench/_floors.py``'s commit floor), and the same with the head's row lock
  (``SELECT ... FOR UPDATE``) taken first: the lock's cost;
- ``write``: ``memory.write`` (add) over control.sock, one client, on a
  daemon per backend; ``search``: ``memory.list`` with a query over the
  entries just written;
- ``two_daemons``: two homes sharing one schema (and root secret), one writer
  thread on each, all writes counted and the chain verified after.

Usage: ``python bench/postgresql.py [--writes N] [--json FILE]``. Needs the
server of ``MEMORYD_TEST_PG_DSN`` (default: local, trust, database ``test``);
every schema it makes is dropped after.
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
import threading
import time
import uuid
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import psycopg

from tests.harness import (
    PG_DSN,
    Daemon,
    drop_pg_schemas,
    enable_consent,
    entry,
    pg_store_section,
    shared_pair,
    short_tempdir,
)


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def us(values: list[float], q: float = 0.5) -> float:
    return round(pct(values, q) * 1e6, 1)


def floor(n: int) -> dict[str, float]:
    schema = "f_" + uuid.uuid4().hex[:12]
    plain: list[float] = []
    locked: list[float] = []
    with psycopg.connect(PG_DSN, autocommit=True) as conn:
        conn.execute(f"CREATE SCHEMA {schema}")
        conn.execute(f"SET search_path TO {schema}")
        conn.execute("CREATE TABLE e(id text PRIMARY KEY, body text NOT NULL)")
        conn.execute("CREATE TABLE a(seq bigint PRIMARY KEY, body bytea NOT NULL, hash text)")
        conn.execute("CREATE TABLE h(id int PRIMARY KEY, seq bigint, hash text)")
        conn.execute("INSERT INTO h VALUES (1, 0, '')")
        conn.autocommit = False
        seq = 0
        try:
            for i in range(2 * n):
                seq += 1
                start = time.perf_counter()
                with conn.transaction():
                    if i % 2:
                        conn.execute("SELECT seq FROM h WHERE id = 1 FOR UPDATE")
                    conn.execute("INSERT INTO e VALUES (%s, %s)", (f"e{seq}", "x" * 170))
                    conn.execute("INSERT INTO a VALUES (%s, %s, %s)", (seq, b"y" * 400, "z" * 64))
                    conn.execute("UPDATE h SET seq = %s, hash = %s WHERE id = 1", (seq, "z"))
                (locked if i % 2 else plain).append(time.perf_counter() - start)
        finally:
            conn.autocommit = True
            conn.execute(f"DROP SCHEMA {schema} CASCADE")
    return {"commit_p50_us": us(plain), "commit_locked_p50_us": us(locked),
            "head_lock_cost_us": round(us(locked) - us(plain), 1)}


def daemon_figures(d: Daemon, n: int, tag: str) -> dict[str, float]:
    writes: list[float] = []
    searches: list[float] = []
    with d.control() as c:
        enable_consent(c)
        for i in range(n):
            start = time.perf_counter()
            c.call("memory.write", {"target": "memory", "action": "add", "entry": entry(
                f"{tag} note {i}", f"Deploy step {i}: run the migration, then the osprey job.")})
            writes.append(time.perf_counter() - start)
        for _ in range(max(20, n // 5)):
            start = time.perf_counter()
            c.call("memory.list", {"query": "osprey migration"})
            searches.append(time.perf_counter() - start)
    return {"write_p50_us": us(writes), "write_p99_us": us(writes, 0.99),
            "search_p50_us": us(searches), "search_p99_us": us(searches, 0.99)}


def two_daemons(n: int) -> dict[str, Any]:
    root = short_tempdir()
    first, second = shared_pair(root, "b_" + uuid.uuid4().hex[:12])
    try:
        with first.control() as c:
            enable_consent(c)
        done = [0, 0]

        def writer(k: int, d: Daemon) -> None:
            with d.control() as c:
                for i in range(n):
                    c.call("memory.write", {"target": "memory", "action": "add",
                                            "entry": entry(f"d{k} {i}", f"Two hosts {i}.")})
                    done[k] += 1

        start = time.perf_counter()
        threads = [threading.Thread(target=writer, args=(k, d))
                   for k, d in enumerate((first, second))]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        elapsed = time.perf_counter() - start
        with second.control() as c:
            verified = c.call("audit.verify", {})["ok"]
        return {"writes": sum(done), "writes_per_s": round(sum(done) / elapsed, 1),
                "chain_verified": verified}
    finally:
        first.stop()
        second.stop()
        shutil.rmtree(root, ignore_errors=True)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--writes", type=int, default=200)
    parser.add_argument("--json", metavar="FILE")
    args = parser.parse_args(argv)
    out: dict[str, Any] = {"floor": floor(args.writes)}
    try:
        for backend, config in (("sqlite", ""), ("postgresql", pg_store_section())):
            root = short_tempdir()
            d = Daemon(root / "h", config=config).start()
            try:
                out[backend] = daemon_figures(d, args.writes, backend)
            finally:
                d.stop()
                shutil.rmtree(root, ignore_errors=True)
        out["two_daemons"] = two_daemons(args.writes // 2)
    finally:
        drop_pg_schemas()
    out["ratios"] = {"pg_write_vs_floor": round(
        out["postgresql"]["write_p50_us"] / out["floor"]["commit_locked_p50_us"], 2),
        "pg_write_vs_sqlite_write": round(
        out["postgresql"]["write_p50_us"] / out["sqlite"]["write_p50_us"], 2)}
    print(json.dumps(out, indent=2))
    if args.json:
        Path(args.json).write_text(json.dumps(out, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
