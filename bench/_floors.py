"""The physical floors the benchmark compares memoryd against, measured in the same run.

Owns the measurements that involve no memoryd code on the measured path:

- ``commit``: one raw apsw transaction holding an entry-like row and an
  audit-like row, in WAL mode with the daemon's ``synchronous`` setting, in a
  database beside the daemon's own (same disk, same file system);
- ``pg_commit``: its PostgreSQL counterpart, raw psycopg on the daemon's
  server, in a schema of its own: the same entry-like and audit-like rows,
  the chain head's update, COMMIT; and the same with the head's row lock
  (``SELECT ... FOR UPDATE``) taken first, as every write group of the
  daemon takes it;
- ``echo``: one NDJSON request/reply over a Unix socket to a bare anyio echo
  server in a child process, driven by the project's own client;
- ``fts``: a raw FTS5 BM25 top-k query over the daemon's own index, opened
  read-only, with the same column weights the daemon ranks with, for each
  text a scenario sent the daemon: the terms the daemon's plan keeps of it
  (``search.plan``, not timed), matched as the daemon matches them;
- ``pg_fts``: its PostgreSQL counterpart over the daemon's own
  ``search_index``, in read-only transactions: the same plans, matched with
  the daemon's own tsquery (``search.pg_query``) and ranked top-k by
  ``ts_rank`` in the server.

A full-text floor answers the scenario's own queries. A floor of other
queries does other work: three words drawn evenly from the vocabulary (what
earlier runs used) are a few dozen postings each, where the context
scenario's intents, three to eight words drawn as the corpus draws them,
keep up to 4,000 postings in their plans.

Invariants: nothing here writes to the daemon's store, and every child
process, file or schema it starts or creates is gone when the function
returns.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
import uuid
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import apsw

from memoryd.daemon.retrieval import search
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


# The rows both commit floors write: an entry-like row of eight columns and
# a 600-byte audit-like row with its hash.
_ENTRY_COLUMNS = (
    "id TEXT PRIMARY KEY, owner TEXT, scope TEXT, title TEXT, body TEXT,"
    " summary TEXT, content_hash TEXT, created_at TEXT"
)
_BODY = "The user prefers short answers with code first and prose after. " * 3
_AUDIT = os.urandom(600)


def _entry_row(i: int) -> tuple[str, ...]:
    return (
        f"ent_{i:026d}",
        "own_x",
        "bench",
        f"Title {i}",
        _BODY,
        _BODY[:80],
        "b3k:" + "ab" * 32,
        "2026-11-01T12:00:00.000000Z",
    )


def commit_floor(folder: Path, n: int, synchronous: str = "FULL") -> list[float]:
    """Raw INSERT of an entry row plus an audit row and COMMIT, per transaction."""
    path = folder / "floor.db"
    conn = apsw.Connection(str(path))
    try:
        conn.execute("PRAGMA journal_mode=WAL").fetchall()
        conn.execute(f"PRAGMA synchronous={synchronous}").fetchall()
        conn.execute("PRAGMA secure_delete=ON").fetchall()
        conn.execute(
            f"CREATE TABLE entries({_ENTRY_COLUMNS});"
            "CREATE TABLE audit(seq INTEGER PRIMARY KEY, body BLOB NOT NULL,"
            " hash TEXT NOT NULL);"
        )
        counter = iter(range(10**9))

        def one() -> None:
            i = next(counter)
            conn.execute("BEGIN IMMEDIATE")
            conn.execute("INSERT INTO entries VALUES (?, ?, ?, ?, ?, ?, ?, ?)", _entry_row(i))
            conn.execute("INSERT INTO audit VALUES (?, ?, ?)", (i + 1, _AUDIT, "cd" * 32))
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
        [sys.executable, "-c", _ECHO_SERVER, str(path)], stdout=subprocess.PIPE
    )
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


class _SqliteReadTx:
    """Enough of the daemon's transaction face for ``search.plan``: one read."""

    fulltext = search.FTS5

    def __init__(self, conn: apsw.Connection) -> None:
        self.conn = conn

    def one(self, sql: str, args: Sequence[Any] = ()) -> dict[str, Any] | None:
        cursor = self.conn.cursor()
        for row in cursor.execute(sql, tuple(args)):
            return {d[0]: v for d, v in zip(cursor.getdescription(), row, strict=True)}
        return None


def _timed_each(run: Callable[[Any], object], planned: list[Any]) -> list[float]:
    """Each of ``planned`` run once to warm the pages the daemon's own calls
    warmed, then once timed: seconds per query."""
    for one in planned:
        run(one)
    out = []
    for one in planned:
        t0 = time.perf_counter()
        run(one)
        out.append(time.perf_counter() - t0)
    return out


def fts_floor(db: Path, queries: Sequence[str]) -> list[float] | None:
    """Raw FTS5 BM25 top-12 over the daemon's index for each of ``queries``
    (the texts a scenario sent the daemon), matching the terms the daemon's
    plan keeps of it (``search.plan``, not timed); None when there is no index
    or no query keeps a term."""
    conn = apsw.Connection(
        f"file:{db}?mode=ro", flags=apsw.SQLITE_OPEN_READONLY | apsw.SQLITE_OPEN_URI
    )
    try:
        names = {r[0] for r in conn.execute("SELECT name FROM sqlite_master")}
        if "entries_fts" not in names:
            return None
        tx = _SqliteReadTx(conn)
        plans = [search.plan(tx, q) for q in queries]  # type: ignore[arg-type]
        planned = [p.match for p in plans if p.match]
        if not planned:
            return None
        sql = (
            "SELECT rowid, bm25(entries_fts, 10.0, 5.0, 1.0) AS score FROM entries_fts"
            " WHERE entries_fts MATCH ? ORDER BY score LIMIT 12"
        )
        return _timed_each(lambda match: conn.execute(sql, (match,)).fetchall(), planned)
    finally:
        conn.close()


# --- PostgreSQL -------------------------------------------------------------------------


def pg_commit_floor(dsn: str, n: int) -> tuple[list[float], list[float]]:
    """Raw psycopg, per transaction: INSERT of an entry row and an audit row,
    UPDATE of the chain head, COMMIT; without and with the head's row lock
    taken first. The two kinds alternate, so both see the same load."""
    import psycopg

    schema = "floor_" + uuid.uuid4().hex[:12]
    plain: list[float] = []
    locked: list[float] = []
    with psycopg.connect(dsn, autocommit=True) as conn:
        conn.execute(f"CREATE SCHEMA {schema}")  # a fixed prefix and hex digits
        try:
            conn.execute(f"SET search_path TO {schema}")
            conn.execute(f"CREATE TABLE entries({_ENTRY_COLUMNS})")
            conn.execute(
                "CREATE TABLE audit(seq BIGINT PRIMARY KEY, body BYTEA NOT NULL,"
                " hash TEXT NOT NULL)"
            )
            conn.execute(
                "CREATE TABLE audit_head(id INT PRIMARY KEY, seq BIGINT NOT NULL,"
                " hash TEXT NOT NULL)"
            )
            conn.execute("INSERT INTO audit_head VALUES (1, 0, '')")
            conn.autocommit = False
            counter = iter(range(10**9))

            def one(lock: bool) -> None:
                i = next(counter)
                with conn.transaction():
                    if lock:
                        conn.execute("SELECT seq, hash FROM audit_head WHERE id = 1 FOR UPDATE")
                    conn.execute(
                        "INSERT INTO entries VALUES (%s, %s, %s, %s, %s, %s, %s, %s)", _entry_row(i)
                    )
                    conn.execute(
                        "INSERT INTO audit VALUES (%s, %s, %s)", (i + 1, _AUDIT, "cd" * 32)
                    )
                    conn.execute(
                        "UPDATE audit_head SET seq = %s, hash = %s WHERE id = 1", (i + 1, "cd" * 32)
                    )

            for k in range(min(20, n)):  # warm the connection, the plans and the buffers
                one(lock=bool(k % 2))
            for _ in range(n):
                plain.extend(timed(lambda: one(lock=False), 1))
                locked.extend(timed(lambda: one(lock=True), 1))
        finally:
            conn.autocommit = True
            conn.execute(f"DROP SCHEMA {schema} CASCADE")
    return plain, locked


class _ReadTx:
    """Enough of the daemon's transaction face for ``search.plan``: one read."""

    fulltext = search.TSVECTOR

    def __init__(self, conn: Any) -> None:
        self.conn = conn

    def one(self, sql: str, args: Sequence[Any] = ()) -> dict[str, Any] | None:
        from memoryd.daemon.storage.store_pg import translate

        row: dict[str, Any] | None = self.conn.execute(translate(sql), tuple(args)).fetchone()
        return row


@contextmanager
def _pg_reader(dsn: str, schema: str) -> Iterator[Any]:
    """A read-only connection to ``dsn`` with ``schema`` as its search path."""
    import psycopg
    import psycopg.sql
    from psycopg.rows import dict_row

    with psycopg.connect(dsn, autocommit=True, row_factory=dict_row) as conn:
        conn.execute(
            psycopg.sql.SQL("SET search_path TO {}").format(psycopg.sql.Identifier(schema))
        )
        conn.execute("SET default_transaction_read_only = on")
        yield conn


def pg_fts_floor(dsn: str, schema: str, queries: Sequence[str]) -> list[float] | None:
    """Ranked top-12 in the server over the daemon's ``search_index`` for the
    terms its plan keeps of each of ``queries`` (``fts_floor``'s queries);
    None when the schema has no index (or no query keeps a term)."""
    from memoryd.daemon.storage.store_pg import translate

    with _pg_reader(dsn, schema) as conn:
        if conn.execute("SELECT to_regclass('search_index') AS t").fetchone()["t"] is None:
            return None
        tx = _ReadTx(conn)
        plans = [search.plan(tx, q).terms for q in queries]  # type: ignore[arg-type]
        # The statement of each plan, made before the clock runs.
        planned = [
            (
                translate(
                    "SELECT f.entry_id, ts_rank(f.doc, t.q) AS score"  # noqa: S608 (placeholders only)
                    " FROM search_index AS f, (SELECT "
                    + search.pg_query(len(terms))
                    + " AS q) AS t WHERE f.doc @@ t.q ORDER BY score DESC LIMIT 12"
                ),
                terms,
            )
            for terms in plans
            if terms
        ]
        if not planned:
            return None
        return _timed_each(lambda statement: conn.execute(*statement).fetchall(), planned)
