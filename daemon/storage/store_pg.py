"""The primary store on PostgreSQL (psycopg 3 and its pool): memory shared across hosts.

Owns: the writer thread's group commit, the one audit chain several daemons
append to, and the SQL dialect seam (``PgTx``) that runs the daemon's portable
statements. The schema, its version check and its migrations are
daemon/storage/pg_schema.py's: the store installs it as it opens.

The daemon's modules speak one SQL: SQLite's, written to be portable where
it costs nothing. ``PgTx`` carries it to PostgreSQL through a small, cached
rewrite (``translate``): ``?`` placeholders become ``%s``, ``INSERT OR
IGNORE`` becomes ``ON CONFLICT DO NOTHING``, ``INSERT OR REPLACE`` an upsert
on the table's key (``_KEYS``), and the two catalogue probes SQLite spells
its own way are spelled PostgreSQL's way. What cannot be portable is
``PgTx``'s own: its full-text index (``fulltext``, daemon/retrieval/search.py's
``TSVECTOR``) and the claims that let several daemons share the embedding
queue (``claim_embeds`` and the rest: ``FOR UPDATE SKIP LOCKED`` and a
lease on the database's clock).

Invariants:
- every governed change and its audit events commit in one transaction;
- the audit chain has one head for every daemon on the database: each write
  group takes the row lock on ``audit_head`` first, so appends from several
  daemons serialise and the chain never forks (the cost is measured in
  docs/performance.md); ``expected_revision`` and idempotency checks read
  under the same lock, so they hold across hosts;
- a write group runs on this daemon's one writer connection, each job in its
  own SAVEPOINT, and COMMITs once (group commit); nothing is acknowledged
  before COMMIT returned;
- reads run on pooled connections in READ ONLY transactions: a read can never
  write or fork the chain;
- vectors are searched where they are stored, at each query
  (daemon/semantic/hybrid.py): no daemon holds a copy to keep in step;
- when the database cannot be reached every call answers ``store_unavailable``
  with a recovery hint and ``memory.status`` says ``database_unreachable``;
  nothing falls back to a local store, and the pool reconnects by itself;
- the DSN and its password never reach a log, an error or ``memory.status``:
  connection failures are reported by a fixed reason, never by the driver's
  message (which names the server).
"""

from __future__ import annotations

import itertools
import logging
import queue
import re
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from typing import Any, TypeVar

import anyio
import psycopg
import psycopg_pool
import structlog
from psycopg.rows import dict_row, tuple_row
from psycopg.types.numeric import FloatLoader

from memoryd.audit.chain import EMPTY_HEAD, ChainHead, StoredEvent, verify_chain
from memoryd.audit.packing import first_needed, row_of, unpack_rows
from memoryd.daemon.retrieval import search
from memoryd.daemon.storage.pg_schema import SCHEMA_NAME, BoolAsInt, install
from memoryd.daemon.storage.seam import Job as _Job
from memoryd.daemon.storage.seam import StoreVersionError, audit_row, next_group
from memoryd.daemon.storage.txn import Tx
from memoryd.kernel.errors import Unavailable

T = TypeVar("T")

UNREACHABLE_HINT = ("the PostgreSQL database cannot be reached; memoryd reconnects by itself"
                    " when it returns; the operator should check memctl status")


# --- the dialect seam ------------------------------------------------------------

# The key INSERT OR REPLACE replaces on, per table (only tables it is used on).
_KEYS: dict[str, tuple[str, ...]] = {
    "meta": ("key",), "revisions": ("entry_id", "revision"),
    "checkpoints": ("seq", "public_key"),
}
_OR_REPLACE = re.compile(r"INSERT OR REPLACE INTO (\w+)\s*\(([^)]*)\)(.*)", re.S)
_REWRITES: tuple[tuple[re.Pattern[str], str], ...] = (
    (re.compile(r"FROM sqlite_master WHERE name = '(\w+)'"),
     r"FROM pg_tables WHERE schemaname = current_schema() AND tablename = '\1'"),
    (re.compile(r"\binstr\(([\w.]+), \?\) > 0"), r"strpos(\1, ?) > 0"),
    # SQLite's unary plus keeps its planner off an index; PostgreSQL has no
    # unary plus on text, and plans without the hint.
    (re.compile(r"\(\+(?=[a-z_])"), "("),
    # The elements of a JSON array of strings, as rows of one column `value`.
    (re.compile(r"SELECT value FROM json_each\(\?\)"),
     "SELECT value FROM json_array_elements_text(?::json)"),
    # SQLite's || makes text of two blobs, cast back to bytes; bytea's || is bytea.
    (re.compile(r"CAST\((\w+) \|\| \? AS BLOB\)"), r"\1 || ?"),
)
_translated: dict[str, str] = {}


def translate(sql: str) -> str:
    """``sql`` as the daemon writes it (SQLite), in PostgreSQL's spelling. Cached."""
    done = _translated.get(sql)
    if done is not None:
        return done
    out = sql
    for pattern, replacement in _REWRITES:
        out = pattern.sub(replacement, out)
    tail = ""
    if "INSERT OR IGNORE INTO" in out:
        out = out.replace("INSERT OR IGNORE INTO", "INSERT INTO")
        tail = " ON CONFLICT DO NOTHING"
    replace = _OR_REPLACE.search(out)
    if replace is not None:
        table, cols = replace.group(1), [c.strip() for c in replace.group(2).split(",")]
        keys = _KEYS[table]  # a table without a declared key is a bug: fail loudly
        sets = ", ".join(f"{c} = excluded.{c}" for c in cols if c not in keys)
        out = (out[:replace.start()] + f"INSERT INTO {table}({', '.join(cols)})"
               + replace.group(3))
        tail = f" ON CONFLICT({', '.join(keys)}) DO " + (f"UPDATE SET {sets}" if sets
                                                         else "NOTHING")
    out = out.rstrip().rstrip(";") + tail
    out = out.replace("%", "%%").replace("?", "%s")
    _translated[sql] = out
    return out


# A ``rows`` walk's cursor names (unique on the connection while open), and
# how many rows each of its fetches brings.
_WALK_NAMES = itertools.count(1)
WALK_FETCH = 256


class PgTx(Tx):
    """One open transaction on PostgreSQL; the same face as ``store.Tx``."""

    dialect = "postgresql"
    fulltext = search.TSVECTOR

    def __init__(self, conn: psycopg.Connection[Any], store: PostgresStore,
                 head: ChainHead) -> None:
        self.conn = conn
        self._store = store
        self._head = head
        # The ``rows`` walks begun and not yet ended (``close`` ends them).
        self._walks: set[psycopg.ServerCursor[Any]] = set()

    def close(self) -> None:
        """End every walk left unfinished, before the store ends the job's
        savepoint or the transaction (a cursor closed later, from whatever
        thread drops the walk, would run CLOSE in some other transaction)."""
        while self._walks:
            self._walks.pop().close()

    @property
    def head(self) -> ChainHead:
        return self._head

    def one(self, sql: str, args: Sequence[Any] = ()) -> dict[str, Any] | None:
        row: dict[str, Any] | None = self.conn.execute(translate(sql), tuple(args)).fetchone()
        return row

    def all(self, sql: str, args: Sequence[Any] = (), *,
            binary: bool = False) -> list[dict[str, Any]]:
        return list(self.conn.execute(translate(sql), tuple(args), binary=binary).fetchall())

    def tuples(self, sql: str, args: Sequence[Any] = ()) -> list[tuple[Any, ...]]:
        with self.conn.cursor(row_factory=tuple_row) as cur:
            return list(cur.execute(translate(sql), tuple(args)).fetchall())

    def exec(self, sql: str, args: Sequence[Any] = ()) -> int:
        cur = self.conn.execute(translate(sql), tuple(args))
        return max(cur.rowcount, 0)

    def rows(self, sql: str, args: Sequence[Any] = ()) -> Iterator[dict[str, Any]]:
        """Rows one at a time, for walks over a whole table.

        The caller may run other statements on this transaction between two
        rows, as on SQLite: the walk is a server-side cursor fetched
        ``WALK_FETCH`` rows at a time, which holds the connection only while
        a fetch runs. (``Cursor.stream`` holds psycopg's connection lock from
        its first row to its last: the next statement of the same thread
        waited on that lock for ever, and so did the savepoint's release or
        the COMMIT after a walk left unfinished.)"""
        cur = self.conn.cursor(name=f"memoryd_walk_{next(_WALK_NAMES)}")
        cur.itersize = WALK_FETCH
        self._walks.add(cur)
        try:
            cur.execute(translate(sql), tuple(args))
            yield from cur
        finally:
            self._walks.discard(cur)
            if not cur.closed:  # ``close`` ended it already: not even the lock
                cur.close()

    def audit(self, kind: str, ts: str, **fields: Any) -> StoredEvent:
        """Append one event to the chain; the group holds the head's row lock."""
        stored = audit_row(self._head, kind, ts, fields)
        self.conn.execute("INSERT INTO audit(seq, body, hash) VALUES (%s, %s, %s)",
                          row_of(stored))
        self.conn.execute("UPDATE audit_head SET seq = %s, hash = %s WHERE id = 1",
                          (stored.seq, stored.hash))
        self._head = ChainHead(seq=stored.seq, hash=stored.hash)
        return stored

    # -- claims: one worker per queued entry, whichever daemon runs it ---------------

    def claimable_embeds(self) -> bool:
        """A read, so an idle worker does not take the writer to find out
        there is nothing to claim."""
        row = self.one("SELECT EXISTS (SELECT 1 FROM embed_queue WHERE claimed_until IS NULL"
                       " OR claimed_until < statement_timestamp()) AS free")
        return bool(row and row["free"])

    def claim_embeds(self, worker: str, limit: int, lease_s: float) -> list[dict[str, Any]]:
        """Claimed for ``lease_s`` seconds of the database's clock (hosts'
        clocks may differ): another daemon's worker skips them until the
        lease ends. Text changes and reactivation clear the claim (the
        entries trigger, daemon/storage/pg_schema.py)."""
        return self.all(
            "WITH picked AS (SELECT entry_id FROM embed_queue WHERE claimed_until IS NULL"
            " OR claimed_until < statement_timestamp() ORDER BY entry_id LIMIT ?"
            " FOR UPDATE SKIP LOCKED),"
            " claimed AS (UPDATE embed_queue AS q SET claimed_by = ?,"
            " claimed_until = statement_timestamp() + make_interval(secs => ?)"
            " FROM picked WHERE q.entry_id = picked.entry_id RETURNING q.entry_id)"
            " SELECT c.entry_id AS id, e.title, e.body, e.content_hash, e.status"
            " FROM claimed AS c LEFT JOIN entries AS e ON e.id = c.entry_id"
            " ORDER BY c.entry_id",
            (limit, worker, float(lease_s)))

    def release_embeds(self, worker: str, entry_ids: Sequence[str]) -> None:
        if not entry_ids:
            return
        marks = ",".join("?" * len(entry_ids))
        self.exec("UPDATE embed_queue SET claimed_by = NULL, claimed_until = NULL"  # noqa: S608 (placeholders only)
                  f" WHERE claimed_by = ? AND entry_id IN ({marks})", (worker, *entry_ids))

    def claimed_rows(self, sql: str, args: Sequence[Any], *, of: str) -> list[dict[str, Any]]:
        return self.all(f"{sql} FOR UPDATE OF {of} SKIP LOCKED", args)


# --- the store ---------------------------------------------------------------------

# Every table a removed entry's text (or its tokens, vectors, cards) may have
# been in: what a removal rewrites before its receipt can say ``verified``.
VACUUMED = ("entries", "revisions", "actions", "tasks", "snapshot_cards", "search_index",
            "entry_terms", "entry_vectors", "vector_packs", "embed_queue")


# How long a removal's receipt waits for transactions older than the removal
# before it is left to the janitor (``checkpoint_wal``).
SNAPSHOT_WAIT_S = 1.0

# Whatever holds back what VACUUM may remove in this database, older than the
# transaction id ``x`` (a 32-bit xid): another session's snapshot, a prepared
# transaction, a replication slot.
_OLDER_HOLDERS = """
SELECT (SELECT count(*) FROM pg_stat_activity
         WHERE pid <> pg_backend_pid() AND datname = current_database()
           AND backend_xmin IS NOT NULL AND age(backend_xmin) > age(%(x)s::text::xid))
     + (SELECT count(*) FROM pg_prepared_xacts
         WHERE database = current_database() AND age(transaction) > age(%(x)s::text::xid))
     + (SELECT count(*) FROM pg_replication_slots
         WHERE (xmin IS NOT NULL AND age(xmin) > age(%(x)s::text::xid))
            OR (catalog_xmin IS NOT NULL AND age(catalog_xmin) > age(%(x)s::text::xid)))
       AS holders"""


def _older_snapshots_end(conn: psycopg.Connection[Any], deadline: float) -> bool:
    """Wait until nothing that began before now can still see a deleted row."""
    # The next transaction id, read without taking one (txid_current would
    # assign an id to this read for nothing).
    row = conn.execute("SELECT (pg_snapshot_xmax(pg_current_snapshot())::text::bigint"
                       " % 4294967296)::text").fetchone()
    assert row is not None
    xid = str(row[0])
    while True:
        held = conn.execute(_OLDER_HOLDERS, {"x": xid}).fetchone()
        if held is None or not held[0]:
            return True
        if time.monotonic() >= deadline:
            return False
        time.sleep(0.05)


def _configure(schema: str) -> Callable[[psycopg.Connection[Any]], None]:
    def configure(conn: psycopg.Connection[Any]) -> None:
        conn.adapters.register_dumper(bool, BoolAsInt)
        # avg() and sum() of integers are numeric: read them as floats, as SQLite gives.
        conn.adapters.register_loader("numeric", FloatLoader)
        conn.execute(f'SET search_path TO "{schema}"')  # validated: SCHEMA_NAME
        conn.commit()
    return configure


class PostgresStore:
    """PostgreSQL behind one writer connection (group commit) and a pool of readers."""

    kind = "postgresql"
    sharing = "multi-host"
    durability = "postgresql-commit"
    # Other daemons change the same rows: no in-process number can vouch for
    # an authorization, so every write reads it in its transaction.
    authz_generation: int | None = None
    max_group = 64
    readers = 4

    def __init__(self, conninfo: str, *, schema: str = "memoryd",
                 connect_timeout: float = 5.0) -> None:
        if not SCHEMA_NAME.match(schema):
            raise StoreVersionError("[store] schema must be a lower-case SQL name")
        self.schema = schema
        self.degraded: str | None = None
        self.fail_next_commit: Exception | None = None
        self._log = structlog.get_logger()
        # psycopg and its pool log connection failures with the server's
        # address (and, for some errors, more of the DSN): never let them
        # reach the daemon's log. Outages are logged as store_unreachable.
        for name in ("psycopg", "psycopg.pool"):
            quiet = logging.getLogger(name)
            quiet.addHandler(logging.NullHandler())
            quiet.propagate = False
        self._conninfo = conninfo
        self._timeout = connect_timeout
        self._closed = False
        self._writer_ident: int | None = None
        self._group_head = EMPTY_HEAD
        self._known_head = EMPTY_HEAD
        self._local = threading.local()
        # The writer's own connection; made again when the database returns.
        self._wconn: psycopg.Connection[Any] | None = None
        try:
            conn = self._connect(configure=False)
        except psycopg.Error:
            raise StoreVersionError(
                "the PostgreSQL database cannot be reached (check [store] dsn and that the"
                " server runs); memoryd did not start") from None
        with conn:
            self._install(conn)
        self._pool: psycopg_pool.ConnectionPool[Any] = psycopg_pool.ConnectionPool(
            conninfo, min_size=1, max_size=self.readers, open=True,
            kwargs={"row_factory": dict_row, "connect_timeout": int(connect_timeout)},
            configure=_configure(schema), check=psycopg_pool.ConnectionPool.check_connection,
            timeout=connect_timeout, name="memoryd-readers")
        self._jobs: queue.SimpleQueue[_Job | None] = queue.SimpleQueue()
        self._writer = threading.Thread(target=self._writer_loop, name="store-writer-pg",
                                        daemon=True)
        self._writer.start()

    # -- connections ------------------------------------------------------------

    def _connect(self, *, configure: bool = True) -> psycopg.Connection[Any]:
        conn: psycopg.Connection[Any] = psycopg.connect(
            self._conninfo, row_factory=dict_row, connect_timeout=int(self._timeout))
        if configure:
            _configure(self.schema)(conn)
        return conn

    def _install(self, conn: psycopg.Connection[Any]) -> None:
        install(conn, self.schema)

    def _writer_conn(self) -> psycopg.Connection[Any]:
        conn = self._wconn
        if conn is not None and not conn.closed and not conn.broken:
            return conn
        if conn is not None:
            conn.close()
        self._wconn = None
        conn = self._connect()
        self._wconn = conn
        return conn

    def _unreachable(self) -> Unavailable:
        if self.degraded != "database_unreachable":
            self._log.warning("store_unreachable", backend=self.kind)
        self.degraded = "database_unreachable"
        return Unavailable("store_unavailable", recovery=UNREACHABLE_HINT,
                           details={"reason": "database_unreachable"})

    def _reachable(self) -> None:
        if self.degraded == "database_unreachable":
            self.degraded = None
            self._log.info("store_reconnected", backend=self.kind)

    # -- the chain head -------------------------------------------------------------

    @property
    def head(self) -> ChainHead:
        """Inside a write job: the group's own head. Elsewhere: the newest committed event."""
        if threading.get_ident() == self._writer_ident:
            return self._group_head
        # Inside a read: that read's own snapshot (and no second connection,
        # which a full pool could not give).
        inside: PgTx | None = getattr(self._local, "tx", None)
        query = "SELECT seq, hash FROM audit_head WHERE id = 1"
        try:
            row = (inside.one(query) if inside is not None
                   else self._read(lambda tx: tx.one(query)))
        except Unavailable:
            # The database is away: the newest head this daemon saw. Callers
            # such as the checkpoint poll must not die of an outage; every
            # call that needs the store still answers store_unavailable.
            return self._known_head
        self._known_head = EMPTY_HEAD if row is None else ChainHead(seq=row["seq"],
                                                                   hash=row["hash"])
        return self._known_head

    # -- transactions ------------------------------------------------------------------

    def run_sync(self, fn: Callable[[PgTx], T], *, write: bool = True,
                 governed: bool = True) -> T:
        if not write:
            return self._read(fn)
        if self._closed:
            raise Unavailable("store_unavailable")
        job = _Job(fn, governed=governed)
        self._jobs.put(job)
        result: T = job.wait()
        return result

    async def run(self, fn: Callable[[PgTx], T], *, write: bool = True,
                  governed: bool = True) -> T:
        return await anyio.to_thread.run_sync(
            lambda: self.run_sync(fn, write=write, governed=governed))

    def _read(self, fn: Callable[[PgTx], T]) -> T:
        try:
            with self._pool.connection() as conn:
                with conn.transaction():
                    conn.execute("SET TRANSACTION READ ONLY")
                    tx = PgTx(conn, self, EMPTY_HEAD)
                    self._local.tx = tx
                    try:
                        result = fn(tx)
                    finally:
                        self._local.tx = None
                        tx.close()
        except (psycopg.OperationalError, psycopg_pool.PoolTimeout):
            raise self._unreachable() from None
        if self.degraded == "database_unreachable":
            self._reachable()
        return result

    def _writer_loop(self) -> None:
        self._writer_ident = threading.get_ident()
        while True:
            batch, stop = next_group(self._jobs, self.max_group)
            if not batch:
                return
            self._run_group(batch)
            if stop:
                return

    def _run_group(self, group: list[_Job]) -> None:
        live = [j for j in group if not (j.governed and self.degraded not in
                                         (None, "database_unreachable"))]
        for job in group:
            if job not in live:
                job.finish(error=Unavailable("store_unavailable"))
        if not live:
            return
        done: list[tuple[_Job, Any]] = []
        failed: list[tuple[_Job, BaseException]] = []
        try:
            conn = self._writer_conn()
            with conn.transaction():
                # The row lock that serialises every daemon's appends (module docstring).
                row = conn.execute(
                    "SELECT seq, hash FROM audit_head WHERE id = 1 FOR UPDATE").fetchone()
                if row is None:  # made with the schema; gone means someone removed it
                    raise StoreVersionError("the audit chain's head row is missing")
                head = ChainHead(seq=row["seq"], hash=row["hash"])
                for job in live:
                    self._group_head = head
                    tx = PgTx(conn, self, head)
                    try:
                        with conn.transaction():  # a SAVEPOINT per job
                            try:
                                result = job.fn(tx)
                            finally:
                                tx.close()
                    except psycopg.OperationalError:
                        raise
                    except BaseException as exc:  # noqa: BLE001 (handed to its caller)
                        failed.append((job, exc))
                        continue
                    head = tx.head
                    done.append((job, result))
                if self.fail_next_commit is not None and done:
                    injected, self.fail_next_commit = self.fail_next_commit, None
                    raise injected
        except (psycopg.OperationalError, psycopg_pool.PoolTimeout):
            # The outcome of a COMMIT cut off is unknown: never acknowledged.
            # The chain lives in the database, so nothing here can fork it;
            # a client retries with its idempotency key.
            lost = self._unreachable()
            for job in live:
                job.finish(error=lost)
            return
        except BaseException:  # noqa: BLE001 (the writer thread must outlive any failure)
            for job in live:
                job.finish(error=Unavailable("store_unavailable"))
            return
        finally:
            self._group_head = EMPTY_HEAD
        self._reachable()
        for job, result in done:
            job.finish(result)
        for job, err in failed:
            job.finish(error=err)

    # -- audit ---------------------------------------------------------------------------

    def audit_rows(self, after_seq: int = 0) -> Iterator[StoredEvent]:
        """Every stored event after ``after_seq``, from one read snapshot."""
        with self._pool.connection() as conn, conn.transaction():
            conn.execute("SET TRANSACTION READ ONLY, ISOLATION LEVEL REPEATABLE READ")
            with conn.cursor(row_factory=psycopg.rows.tuple_row) as cur:
                # Rows copied from a SQLite home may be packed against the
                # rows before them (audit/packing.py): read from there.
                yield from unpack_rows(cur.stream(
                    "SELECT seq, body, hash FROM audit WHERE seq >= %s ORDER BY seq",
                    (first_needed(after_seq + 1),)), after_seq)

    def verify_audit(self, expect: ChainHead | None = None) -> Any:
        return verify_chain(self.audit_rows(), expect=expect)

    def try_recover(self, expect: ChainHead | None = None) -> bool:
        result = self.verify_audit(expect)
        self.degraded = None if result.ok else "audit_chain_broken"
        return bool(result.ok)

    def checkpoint_wal(self, tables: tuple[str, ...] = ()) -> bool:
        """Make removed text leave the database's files before a receipt says ``verified``.

        PostgreSQL leaves a deleted row's bytes in its page (and an index's
        entries) until the page is rewritten. ``VACUUM FULL`` writes each
        table that may have held the text, and its indexes and TOAST, into
        new files and truncates the old ones at commit; a ``CHECKPOINT``
        then flushes them (skipped when the role may not). ``tables`` names
        the tables the deleted rows were in (a job's transcript, a dropped
        proposal); empty, every table a removed entry's text may have been in. What stays in
        ``pg_wal`` until recycled is named in docs/lifecycle.md. False when
        any step failed: the receipt then says ``incomplete``.

        ``VACUUM FULL`` keeps a deleted row some transaction may still see:
        one whose snapshot is older than the removal (another daemon's long
        read, an operator's open ``psql`` session, a prepared transaction, a
        replication slot). So it runs only once no such holder is left, waited
        for up to ``SNAPSHOT_WAIT_S``; while one remains this is False and the
        janitor settles the receipt again later.
        """
        try:
            with psycopg.connect(self._conninfo, autocommit=True,
                                 connect_timeout=int(self._timeout)) as conn:
                conn.execute(f'SET search_path TO "{self.schema}"')  # validated name
                if not _older_snapshots_end(conn, time.monotonic() + SNAPSHOT_WAIT_S):
                    return False
                for table in tables or VACUUMED:
                    conn.execute(f"VACUUM FULL {table}")  # names from this package's callers
                try:
                    conn.execute("CHECKPOINT")
                except psycopg.errors.InsufficientPrivilege:
                    pass  # the rewritten files are already all there is in base/
        except psycopg.Error:
            return False
        return True

    def external_copies(self) -> bool:
        """True when WAL archiving or a replica may hold removed text beyond this server."""
        row = self._read(lambda tx: tx.one(
            "SELECT current_setting('archive_mode') AS archive,"
            " (SELECT count(*) FROM pg_stat_replication) AS replicas"))
        return row is not None and (row["archive"] != "off" or bool(row["replicas"]))

    def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        self._jobs.put(None)
        self._writer.join()
        if self._wconn is not None:
            self._wconn.close()
        self._pool.close()
