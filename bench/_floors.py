"""The physical floors the benchmark compares memoryd against, measured in the same run.

Owns three measurements that involve no memoryd code on the measured path:

- ``commit``: one raw apsw transaction holding an entry-like row and an
  audit-like row, in WAL mode with the daemon's ``synchronous`` setting, in a
  database beside the daemon's own (same disk, same file system);
- ``echo``: one NDJSON request/reply over a Unix socket to a bare anyio echo
  server in a child process, driven by the project's own client;
- ``fts``: a raw FTS5 BM25 top-k query over the daemon's own index, opened
  read-only, with the same column weights the daemon ranks with.

Invariants: nothing here writes to the daemon's database, and every child
process or file it starts or creates is gone when the function returns.
"""

from __future__ import annotations

import os
import random
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import apsw

from memoryd.rpc.client import Client

# The echo server runs in a child so its CPU time is not the client's.
_ECHO_SERVER = r"""
import sys
import anyio
import msgspec
from anyio.streams.buffered import BufferedByteReceiveStream

decode = msgspec.json.Decoder().decode
encode = msgspec.json.Encoder().encode

async def serve(stream):
    async with stream:
        buffered = BufferedByteReceiveStream(stream)
        while True:
            try:
                line = await buffered.receive_until(b"\n", 1 << 20)
            except (anyio.EndOfStream, anyio.IncompleteRead):
                return
            req = decode(line)
            reply = {"jsonrpc": "2.0", "result": req.get("params"), "id": req.get("id")}
            await stream.send(encode(reply) + b"\n")

async def main(path):
    listener = await anyio.create_unix_listener(path)
    print("ready", flush=True)
    await listener.serve(serve)

anyio.run(main, sys.argv[1])
"""


def timed(fn: Callable[[], object], n: int) -> list[float]:
    """Seconds per call of ``fn``, ``n`` calls."""
    out = []
    for _ in range(n):
        t0 = time.perf_counter()
        fn()
        out.append(time.perf_counter() - t0)
    return out


def commit_floor(folder: Path, n: int, synchronous: str = "FULL") -> list[float]:
    """Raw INSERT of an entry row plus an audit row and COMMIT, per transaction."""
    path = folder / "floor.db"
    conn = apsw.Connection(str(path))
    try:
        conn.execute("PRAGMA journal_mode=WAL").fetchall()
        conn.execute(f"PRAGMA synchronous={synchronous}").fetchall()
        conn.execute("PRAGMA secure_delete=ON").fetchall()
        conn.execute(
            "CREATE TABLE entries(id TEXT PRIMARY KEY, owner TEXT, scope TEXT, title TEXT,"
            " body TEXT, summary TEXT, content_hash TEXT, created_at TEXT);"
            "CREATE TABLE audit(seq INTEGER PRIMARY KEY, body BLOB NOT NULL, hash TEXT NOT NULL);"
        )
        body = "The user prefers short answers with code first and prose after. " * 3
        audit = os.urandom(600)
        counter = iter(range(10**9))

        def one() -> None:
            i = next(counter)
            conn.execute("BEGIN IMMEDIATE")
            conn.execute("INSERT INTO entries VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                         (f"ent_{i:026d}", "own_x", "bench", f"Title {i}", body, body[:80],
                          "b3k:" + "ab" * 32, "2026-11-01T12:00:00.000000Z"))
            conn.execute("INSERT INTO audit VALUES (?, ?, ?)", (i + 1, audit, "cd" * 32))
            conn.execute("COMMIT")

        timed(one, min(20, n))  # warm the page cache and the WAL file
        return timed(one, n)
    finally:
        conn.close()
        for suffix in ("", "-wal", "-shm"):
            Path(str(path) + suffix).unlink(missing_ok=True)


def echo_floor(folder: Path, n: int, params: dict[str, object]) -> list[float]:
    """One NDJSON round trip to a bare anyio server, through ``rpc.client.Client``."""
    path = folder / "echo.sock"
    proc = subprocess.Popen(  # noqa: S603 (our own interpreter and our own script)
        [sys.executable, "-c", _ECHO_SERVER, str(path)],
        stdout=subprocess.PIPE)
    try:
        assert proc.stdout is not None
        proc.stdout.readline()
        with Client(path, timeout=10) as client:
            timed(lambda: client.call("echo", params), min(50, n))
            return timed(lambda: client.call("echo", params), n)
    finally:
        proc.kill()
        proc.wait()
        path.unlink(missing_ok=True)


def fts_floor(db: Path, n: int, vocabulary: list[str], seed: int = 7) -> list[float] | None:
    """Raw FTS5 BM25 top-12 over the daemon's index; None when there is no index."""
    conn = apsw.Connection(f"file:{db}?mode=ro", flags=apsw.SQLITE_OPEN_READONLY
                           | apsw.SQLITE_OPEN_URI)
    try:
        names = {r[0] for r in conn.execute("SELECT name FROM sqlite_master")}
        if "entries_fts" not in names:
            return None
        rnd = random.Random(seed)
        sql = ("SELECT rowid, bm25(entries_fts, 10.0, 5.0, 1.0) AS score FROM entries_fts"
               " WHERE entries_fts MATCH ? ORDER BY score LIMIT 12")
        queries = [" OR ".join(f'"{w}"' for w in rnd.sample(vocabulary, 3)) for _ in range(n)]
        it = iter(queries * 2)
        timed(lambda: conn.execute(sql, (next(it),)).fetchall(), min(20, n))
        it = iter(queries)
        return timed(lambda: conn.execute(sql, (next(it),)).fetchall(), n)
    finally:
        conn.close()
