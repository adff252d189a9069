"""The primary store: SQLite (through apsw) in WAL mode under ``HOME/memory.db``.

Owns: the one writer connection and its group commit, the read
connections, transactions, and the audit table's append discipline (the
schema and its migrations: daemon/storage/sqlite_schema.py). Callers never
hold a cursor across an ``await``: they hand a function to ``Store.run``
which executes it in one transaction on the store's worker thread.

Invariants:
- every governed change and the audit events describing it commit in one
  transaction, or neither does (``Tx.audit`` appends inside the caller's
  transaction; the in-memory chain head advances only after COMMIT);
- a failed COMMIT or audit append rolls everything back, marks the store
  ``degraded`` (governed writes refused with ``store_unavailable``, reads go
  on) and is never retried into an acknowledgement;
- ``synchronous=FULL`` by default: an acknowledged write survives power loss;
- ``secure_delete=ON``: freed pages are zeroed, so removed text does not linger
  in the file; the FTS5 index runs with ``secure-delete`` for the same reason;
- every connection calls ``daemon.retrieval.text_index.register`` as it opens:
  the schema's triggers on ``entries`` use its function.
"""

from __future__ import annotations

import asyncio
import contextvars
import queue
import threading
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any, Protocol, TypeVar

import anyio
import apsw
import msgspec

from memoryd.audit.chain import ChainHead, StoredEvent, verify_chain
from memoryd.audit.packing import Packer, first_needed, unpack_rows
from memoryd.daemon.retrieval import search, text_index
from memoryd.daemon.storage.seam import NEWEST_AUDIT_ROW, Job, audit_row, head_of, next_group
from memoryd.daemon.storage.seam import StoreVersionError as StoreVersionError
from memoryd.daemon.storage.sqlite_schema import DERIVING, install, stored_entry
from memoryd.daemon.storage.txn import Tx as Tx  # the one Tx protocol, re-exported
from memoryd.kernel.errors import Unavailable

T = TypeVar("T")

_json = msgspec.json.Encoder()
_decode_json = msgspec.json.Decoder()


def dumps(value: Any) -> str:
    return _json.encode(value).decode()


def loads(text: str | None) -> Any:
    return None if text is None else _decode_json.decode(text)


class SqliteTx(Tx):
    """One open transaction on SQLite.

    ``dialect`` names the SQL the connection speaks: the daemon's statements
    are SQLite's, written portably; its full-text index is FTS5
    (``fulltext``), and an entry row keeps no value it derives
    (``stored_entry``). daemon/storage/store_pg.py's ``PgTx`` has the same face.
    """

    dialect = "sqlite"
    fulltext = search.FTS5

    def __init__(self, conn: apsw.Connection, store: SqliteStore) -> None:
        self.conn = conn
        self._store = store
        self._head = store.head
        # One cursor for the statements of this transaction that are read
        # to the end, or to their first row, before the helper returns
        # (``one``, ``all``, ``tuples``, ``exec``, ``audit``): apsw makes and
        # frees a cursor per ``Connection.execute``. Running the next
        # statement on it resets the one before; ``close`` resets the last
        # before the store releases the job's savepoint. ``rows`` yields
        # while its caller may run other statements, so it takes its own.
        self._cursor = conn.cursor()
        self._cursor.row_trace = None

    def close(self) -> None:
        """Reset the transaction's cursor (its last statement may stand at a row)."""
        self._cursor.close()

    @property
    def head(self) -> ChainHead:
        """The chain's head inside this transaction (the store's committed head may lag)."""
        return self._head

    # Rows come back as dicts keyed by column name. The connection's row
    # tracer (``_row_trace``) asks apsw for the statement's description on
    # every row, which builds a tuple per column each time; these helpers
    # read plain tuples instead and take the names from the store's table
    # of them per statement text (``SqliteStore.columns``), so a statement
    # run again costs one dict look-up for its names.

    def one(self, sql: str, args: Sequence[Any] = ()) -> dict[str, Any] | None:
        cursor = self._cursor
        for row in cursor.execute(sql, args):
            return dict(zip(self._store.column_names(cursor, sql), row, strict=True))
        return None

    def rows(self, sql: str, args: Sequence[Any] = ()) -> Iterator[dict[str, Any]]:
        """Rows one at a time, for walks over a whole table."""
        cursor = self.conn.cursor()
        cursor.row_trace = None
        cursor.execute(sql, args)
        names = self._store.column_names(cursor, sql)
        for row in cursor:
            yield dict(zip(names, row, strict=True))

    def all(self, sql: str, args: Sequence[Any] = (), *,
            binary: bool = False) -> list[dict[str, Any]]:
        cursor = self._cursor
        cursor.execute(sql, args)
        names = self._store.column_names(cursor, sql)
        return [dict(zip(names, row, strict=True)) for row in cursor]

    def tuples(self, sql: str, args: Sequence[Any] = ()) -> list[tuple[Any, ...]]:
        """Rows as tuples, in the statement's column order: no dict per row."""
        return list(self._cursor.execute(sql, args))

    def exec(self, sql: str, args: Sequence[Any] = ()) -> int:
        self._cursor.execute(sql, args)
        return int(self.conn.changes())

    def stored_entry(self, changes: dict[str, Any],
                     entry_id: str | None = None) -> dict[str, Any]:
        current = None
        if entry_id is not None and any(name in changes for name in DERIVING):
            current = self.one(f"SELECT {', '.join(DERIVING)} FROM entries WHERE id = ?",  # noqa: S608 (our column names)
                               (entry_id,))
        return stored_entry(changes, current)

    def audit(self, kind: str, ts: str, **fields: Any) -> StoredEvent:
        """Append one event to the chain inside this transaction; the row stored."""
        stored = audit_row(self._head, kind, ts, fields)
        # V3 (audit/packing.py): the store's one packer goes on with its
        # stream only when this row follows the row it packed last; a job or
        # group rolled back since leaves a head it did not pack last.
        self._cursor.execute("INSERT INTO audit(seq, body, hash) VALUES (?, ?, ?)",
                             self._store.packer.pack(stored, self._head.hash))
        self._head = ChainHead(seq=stored.seq, hash=stored.hash)
        return stored


class Store(Protocol):
    """The only face of the primary store daemon/ talks to: ``SqliteStore``
    here, ``PostgresStore`` in daemon/storage/store_pg.py."""

    kind: str
    sharing: str
    # What a commit promises, as ``memory.status`` reports it.
    durability: str
    degraded: str | None
    fail_next_commit: Exception | None
    # A number that moves whenever a row of tasks, tokens or consent changes
    # (on the writer thread, as the change is made); None where the store
    # cannot see every such change (another daemon writes the same rows).
    authz_generation: int | None

    @property
    def head(self) -> ChainHead: ...

    async def run(self, fn: Callable[[Tx], T], *, write: bool = True,
                  governed: bool = True) -> T: ...

    def run_sync(self, fn: Callable[[Tx], T], *, write: bool = True,
                 governed: bool = True) -> T: ...

    def audit_rows(self, after_seq: int = 0) -> Iterator[StoredEvent]: ...

    def verify_audit(self, expect: ChainHead | None = None) -> Any: ...

    def try_recover(self, expect: ChainHead | None = None) -> bool: ...

    def checkpoint_wal(self, tables: tuple[str, ...] = ()) -> bool:
        """Make deleted rows' bytes leave the files; ``tables`` names where
        they were (empty: every table a removed entry may have been in)."""
        ...

    def external_copies(self) -> bool: ...

    def close(self) -> None: ...


# The tables whose rows an agent write's authorization reads (daemon/access/gate.py):
# a task's row (ended?), its token's (revoked?), the owner's consent. A new
# task or token changes nothing already verified; any other change does.
_AUTHZ_TABLES = frozenset({"tasks", "tokens", "consent"})
# Watched by TEMP triggers on the writer's connection (its own, never stored
# in the file): an update or deletion of any of them, and a new consent row
# (a task's grants read the newest). Inserted tasks and tokens change no
# verification already made. Only these rows call back into Python; an
# update hook was told of every row change of every table.
_AUTHZ_FUNCTION = "memoryd_authz_changed"
_AUTHZ_WATCH = "".join(
    f"CREATE TEMP TRIGGER IF NOT EXISTS memoryd_authz_{table}_{event.lower()}"
    f" AFTER {event} ON main.{table} BEGIN SELECT {_AUTHZ_FUNCTION}(); END;"
    for table in sorted(_AUTHZ_TABLES)
    for event in ("UPDATE", "DELETE", *(("INSERT",) if table == "consent" else ())))


# Statement texts whose column names a store keeps (``column_names``).
_COLUMNS_KEPT = 2048


def _row_trace(cursor: apsw.Cursor, row: tuple[Any, ...]) -> dict[str, Any]:
    return {d[0]: v for d, v in zip(cursor.get_description(), row, strict=True)}


class SqliteStore:
    """SQLite behind one writer thread (group commit) and a few read connections.

    Writes: ``run(fn)`` queues ``fn`` for the writer thread, which owns the
    only writing connection. The writer takes every job queued so far, opens
    one ``BEGIN IMMEDIATE``, runs each job inside its own SAVEPOINT (a job that
    raises rolls back only its savepoint and gets its exception), COMMITs once
    (one fsync for the group), and only then answers each caller. A failed
    COMMIT fails every job of the group with ``store_unavailable`` and
    degrades the store: nothing of that group is ever acknowledged. The
    callers of a committed group that wait on one event loop are answered
    with one call into that loop (one wake-up), not one per job. The audit
    chain head advances job by job inside the group; a rolled-back job leaves
    it where it was, and the store's ``head`` moves only after COMMIT.

    Reads: ``run(fn, write=False)`` runs on a read-only connection of a small
    pool (WAL readers never wait for the writer). A caller that awaited its
    write reads it back: the write was committed before the caller was
    answered, and a read transaction begun later sees every earlier commit.

    Checkpoints: automatic WAL checkpoints are off on the writer connection
    (they would run inside a COMMIT and land in the tail latency); instead
    the writer thread runs a PASSIVE checkpoint when it has nothing queued and
    the WAL has grown past ``checkpoint_pages`` (between groups, so it completes
    and the next write starts the WAL over), or regardless once the WAL passes
    ``checkpoint_pages_max`` under sustained load. A checkpoint run from a
    second thread instead chases a WAL that never stops growing: it never
    completes, never lets the WAL restart, and runs back to back.
    """

    kind = "sqlite"
    sharing = "single-host"
    max_group = 64
    checkpoint_pages = 1000
    checkpoint_pages_max = 20_000
    readers = 2

    def __init__(self, path: Path, *, synchronous: str = "FULL") -> None:
        self.path = path
        self._pragmas = (
            f"PRAGMA synchronous={synchronous}",
            "PRAGMA secure_delete=ON",
            "PRAGMA foreign_keys=ON",
            "PRAGMA trusted_schema=OFF",
        )
        self.durability = f"wal+synchronous={synchronous.lower()}"
        # The writer's V3 packer (writer thread only): its stream starts anew
        # in every process, so it never continues rows it did not pack.
        self.packer = Packer()
        # Moves on every change to a row an agent write's authorization reads
        # (``_AUTHZ_TABLES``), made by anyone on the one writing connection,
        # and at a group's start after any commit by another connection.
        self.authz_generation: int | None = 0
        # Column names per statement text (``column_names``), shared by the
        # writer and the readers: one dict operation at a time, under the GIL.
        self.columns: dict[str, tuple[str, ...]] = {}
        self.conn = self._open(writer=True)
        self.conn.execute("PRAGMA journal_mode=WAL").fetchall()
        with self.conn:
            install(self.conn)
        # The writer's watch, on the schema just settled: every change to a
        # row an agent write's authorization reads.
        self.conn.create_scalar_function(_AUTHZ_FUNCTION, self._authz_changed, 0)
        self.conn.execute(_AUTHZ_WATCH)
        self.conn.execute("PRAGMA wal_autocheckpoint=0").fetchall()
        self._wal_pages = 0
        # The file's data version as this connection left it (SQLite's
        # SQLITE_FCNTL_DATA_VERSION: it moves with every commit, this
        # connection's or another's, the other's seen at the next BEGIN).
        self._data_version = self.conn.data_version()
        self.conn.set_wal_hook(self._on_wal)
        self.degraded: str | None = None
        self._head = self._last_head(self.conn)
        self._group_head = self._head
        self._writer_ident: int | None = None
        self.fail_next_commit: Exception | None = None  # failure injection for tests
        self._closed = False
        # Read-only connections: a read can never fork the audit chain or
        # write around the writer thread.
        self._read_pool: queue.SimpleQueue[apsw.Connection] = queue.SimpleQueue()
        self._read_conns: list[apsw.Connection] = []
        for _ in range(self.readers):
            rconn = self._open()
            rconn.execute("PRAGMA query_only=ON").fetchall()
            self._read_conns.append(rconn)
            self._read_pool.put(rconn)
        self._read_limiter = anyio.CapacityLimiter(self.readers)
        # Reads from the event loop run on these threads, one per read
        # connection, answered like a write (``Job``): anyio's worker-thread
        # hop (a limiter, a shielded scope, a thread pool's bookkeeping) cost
        # ~250 K instructions per read against ~60 K for a queue and one
        # call into the loop.
        self._read_jobs: queue.SimpleQueue[tuple[Job, contextvars.Context] | None] = (
            queue.SimpleQueue())
        self._readers = [threading.Thread(target=self._reader_loop, name=f"store-reader-{i}",
                                          daemon=True) for i in range(self.readers)]
        for reader in self._readers:
            reader.start()
        self._jobs: queue.SimpleQueue[Job | None] = queue.SimpleQueue()
        self._writer = threading.Thread(target=self._writer_loop, name="store-writer",
                                        daemon=True)
        self._writer.start()

    def _open(self, *, writer: bool = False) -> apsw.Connection:
        # Never through a link planted in the home (the home check at start
        # refuses one; this closes the window after it).
        conn = apsw.Connection(str(self.path), flags=apsw.SQLITE_OPEN_READWRITE
                               | apsw.SQLITE_OPEN_CREATE | apsw.SQLITE_OPEN_NOFOLLOW)
        conn.set_busy_timeout(5_000)
        # Plans never depend on a bound value (SQLite's query planner
        # stability guarantee). Without it a statement whose plan could use
        # one is prepared again on every run: each join of the lexical index
        # with ``entries`` filtered by a bound owner, and each ``LIMIT ?``,
        # was re-parsed and re-planned at every step (FTS5's own statements
        # with it), a tenth of a recall's instructions.
        conn.config(apsw.SQLITE_DBCONFIG_ENABLE_QPSG, 1)
        conn.row_trace = _row_trace
        for pragma in self._pragmas:
            conn.execute(pragma).fetchall()
        text_index.register(conn)
        return conn

    def column_names(self, cursor: apsw.Cursor, sql: str) -> tuple[str, ...]:
        """The column names of ``sql``'s rows (``cursor`` has just run it).

        Kept per statement text: a statement's columns are fixed by the
        schema, and this store's schema is settled when it opens (a row of
        another width would fail the caller's strict zip, never pair a
        value with the wrong name)."""
        names = self.columns.get(sql)
        if names is None:
            try:
                names = tuple(d[0] for d in cursor.get_description())
            except apsw.ExecutionCompleteError:
                return ()  # no row to name; learnt when the statement yields one
            if len(self.columns) >= _COLUMNS_KEPT:
                # Statement texts are the daemon's own, so few; a listing's
                # filters vary its text, which this bounds.
                self.columns.clear()
            self.columns[sql] = names
        return names

    @staticmethod
    def _last_head(conn: apsw.Connection) -> ChainHead:
        cursor = conn.cursor()
        cursor.row_trace = None
        return head_of(cursor.execute(NEWEST_AUDIT_ROW))

    @property
    def head(self) -> ChainHead:
        """The newest committed event; inside a write job, the group's own head.

        A job may read ``store.head`` as the true newest event (a checkpoint
        signs it): on the writer thread that is the head after the jobs
        before it in the same group; everywhere else, only what has committed.
        """
        if threading.get_ident() == self._writer_ident:
            return self._group_head
        return self._head

    @head.setter
    def head(self, value: ChainHead) -> None:
        self._head = self._group_head = value

    # -- transactions -------------------------------------------------------

    def run_sync(self, fn: Callable[[Tx], T], *, write: bool = True,
                 governed: bool = True) -> T:
        """Run ``fn`` in one transaction. ``governed=False`` marks bookkeeping
        writes that serve reads (task rows, frozen snapshots): they go on while
        the store is degraded, as reads do."""
        if not write:
            return self._read(fn)
        job = Job(fn, governed=governed)
        self._submit(job)
        return job.wait()

    async def run(self, fn: Callable[[Tx], T], *, write: bool = True,
                  governed: bool = True) -> T:
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:  # another event loop (trio): wait in a worker thread
            if not write:
                return await anyio.to_thread.run_sync(self._read, fn, limiter=self._read_limiter)
            return await anyio.to_thread.run_sync(
                lambda: self.run_sync(fn, governed=governed))
        if not write:
            if self._closed:
                raise Unavailable("store_unavailable")
            read = Job(fn, loop=loop)
            # The caller's context goes with the read, as anyio's hop took
            # it (log lines bound to the connection keep its id).
            self._read_jobs.put((read, contextvars.copy_context()))
            return await read.wait_async()
        job = Job(fn, governed=governed, loop=loop)
        self._submit(job)
        return await job.wait_async()

    def _submit(self, job: Job) -> None:
        if self._closed:
            raise Unavailable("store_unavailable")
        self._jobs.put(job)

    def _read(self, fn: Callable[[Tx], T]) -> T:
        conn = self._read_pool.get()
        try:
            tx = SqliteTx(conn, self)
            conn.execute("BEGIN")
            try:
                return fn(tx)
            finally:
                tx.close()
                conn.execute("ROLLBACK")  # nothing to keep: the connection is read-only
        finally:
            self._read_pool.put(conn)

    def _reader_loop(self) -> None:
        while True:
            item = self._read_jobs.get()
            if item is None:
                return
            job, context = item
            try:
                job.finish(context.run(self._read, job.fn))
            except BaseException as exc:  # noqa: BLE001 (handed to its caller)
                job.finish(error=exc)

    def _writer_loop(self) -> None:
        self._writer_ident = threading.get_ident()
        while True:
            batch, stop = next_group(self._jobs, self.max_group)
            if not batch:
                return
            group: list[Job] = []
            for job in batch:
                if job.raw:
                    self._commit_group(group)
                    group = []
                    try:
                        job.finish(job.fn(self.conn))
                    except BaseException as exc:  # noqa: BLE001 (handed to its caller)
                        job.finish(error=exc)
                else:
                    group.append(job)
            self._commit_group(group)
            if self._wal_pages >= self.checkpoint_pages_max or (
                    self._wal_pages >= self.checkpoint_pages and self._jobs.empty()):
                self._checkpoint()
            if stop:
                return

    def _commit_group(self, group: list[Job]) -> None:
        if not group:
            return
        try:
            self._run_group(group)
        except BaseException:  # noqa: BLE001 (the writer thread must outlive any failure)
            # BEGIN refused (busy, I/O error) or a savepoint statement failed:
            # whatever this group did is rolled back and none of it is
            # acknowledged; jobs already answered stay answered.
            try:
                if not self.conn.getautocommit():
                    self.conn.execute("ROLLBACK")
            except apsw.Error:
                pass
            for job in group:
                job.finish(error=Unavailable("store_unavailable"))

    def _run_group(self, group: list[Job]) -> None:
        conn = self.conn
        head = self.head
        done: list[tuple[Job, Any]] = []
        failed: list[tuple[Job, BaseException]] = []
        single = len(group) == 1
        conn.execute("BEGIN IMMEDIATE")
        # Holding the write lock now, nobody else commits until this group
        # ends. A commit since the last group that was not this connection's
        # (an operator's sqlite3 shell) may have changed a task, token or
        # consent row the writer's watch never saw: the authorization generation
        # moves (a verification is all it costs).
        version = conn.data_version()
        if version != self._data_version:
            self._data_version = version
            assert self.authz_generation is not None
            self.authz_generation += 1
        for job in group:
            if job.governed and self.degraded is not None:
                failed.append((job, Unavailable("store_unavailable")))
                continue
            self._group_head = head
            tx = SqliteTx(conn, self)
            if not single:
                conn.execute("SAVEPOINT job")
            try:
                try:
                    result = job.fn(tx)
                finally:
                    tx.close()
            except BaseException as exc:  # noqa: BLE001 (handed to its caller)
                failed.append((job, exc))
                if single:
                    break
                try:
                    conn.execute("ROLLBACK TO job")
                    conn.execute("RELEASE job")
                    continue
                except apsw.Error:
                    pass
                if conn.getautocommit():
                    # SQLite itself abandoned the transaction (I/O error, disk
                    # full): the work of the jobs before this one is gone too.
                    # Nothing was acknowledged, so say so to each of them.
                    for other, _ in done:
                        failed.append((other, Unavailable("store_unavailable")))
                    done = []
                    head = self._head
                    for rest in group[group.index(job) + 1:]:
                        failed.append((rest, Unavailable("store_unavailable")))
                    break
                continue
            if not single:
                conn.execute("RELEASE job")
            head = tx._head
            done.append((job, result))
        self._group_head = self._head
        if not done:
            if not conn.getautocommit():
                conn.execute("ROLLBACK")
            for job, err in failed:
                job.finish(error=err)
            return
        try:
            if self.fail_next_commit is not None:
                injected, self.fail_next_commit = self.fail_next_commit, None
                raise injected
            conn.execute("COMMIT")
            self._data_version = conn.data_version()  # this commit's own step
        except Exception:  # noqa: BLE001 (any commit failure must degrade, not escape)
            # The outcome of a failed COMMIT is unknown to us; never retry it
            # into an acknowledgement (the fsyncgate lesson). Roll back what we
            # can and refuse governed writes until the chain verifies again.
            try:
                if not conn.getautocommit():
                    conn.execute("ROLLBACK")
            except apsw.Error:
                pass
            self.degraded = "commit_failed"
            for job, _ in done:
                job.finish(error=Unavailable("store_unavailable"))
            for job, err in failed:
                job.finish(error=err)
            return
        self.head = head
        answered = [job for job, result in done if job.finish(result, later=True)]
        answered += [job for job, err in failed if job.finish(error=err, later=True)]
        Job.tell_loops(answered)

    def _writer_call(self, fn: Callable[[apsw.Connection], T]) -> T:
        """Run ``fn(conn)`` on the writer thread, between groups, outside a transaction."""
        job = Job(fn, governed=False, raw=True)
        self._submit(job)
        return job.wait()

    # -- checkpoints ----------------------------------------------------------

    def _authz_changed(self, *_args: Any) -> None:
        # On the writer thread, while the statement runs (``_AUTHZ_WATCH``):
        # a job after it (in this group or a later one) sees the new
        # generation. A change later rolled back moves it too, which only
        # costs a verification.
        assert self.authz_generation is not None
        self.authz_generation += 1

    def _on_wal(self, _conn: apsw.Connection, _name: str, pages: int) -> int:
        self._wal_pages = pages
        return int(apsw.SQLITE_OK)

    def _checkpoint(self) -> None:
        try:
            self.conn.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchall()
            self._wal_pages = 0
        except apsw.Error:
            pass  # tried again after the next commits; the WAL stays valid meanwhile

    # -- audit --------------------------------------------------------------

    def audit_rows(self, after_seq: int = 0) -> Iterator[StoredEvent]:
        """Every stored event after ``after_seq``, from one read snapshot."""
        conn = self._read_pool.get()
        try:
            cursor = conn.cursor()
            cursor.row_trace = None
            conn.execute("BEGIN")
            try:
                yield from unpack_rows(cursor.execute(
                    "SELECT seq, body, hash FROM audit WHERE seq >= ? ORDER BY seq",
                    (first_needed(after_seq + 1),)), after_seq)
            finally:
                conn.execute("ROLLBACK")
        finally:
            self._read_pool.put(conn)

    def verify_audit(self, expect: ChainHead | None = None) -> Any:
        """Walk the whole chain; with ``expect`` (a checkpoint's head) it must pass through it."""
        return verify_chain(self.audit_rows(), expect=expect)

    def try_recover(self, expect: ChainHead | None = None) -> bool:
        """Re-verify the chain; clear ``degraded`` when it verifies again."""
        result = self.verify_audit(expect)

        def settle(conn: apsw.Connection) -> None:
            if result.ok:
                self.head = self._last_head(conn)
                self.degraded = None
            else:
                self.degraded = "audit_chain_broken"

        self._writer_call(settle)
        return bool(result.ok)

    def checkpoint_wal(self, tables: tuple[str, ...] = ()) -> bool:
        """Checkpoint and truncate the WAL; False when it could not complete
        (busy). The WAL is the file's, whichever ``tables`` held the rows."""
        def truncate(conn: apsw.Connection) -> bool:
            cursor = conn.cursor()
            cursor.row_trace = None
            for busy, _log, _done in cursor.execute("PRAGMA wal_checkpoint(TRUNCATE)"):
                return not busy
            return False

        return self._writer_call(truncate)

    def external_copies(self) -> bool:
        """A home's SQLite file has no archive or replica of its own."""
        return False

    def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        self._jobs.put(None)
        self._writer.join()
        # A read under way finishes before its connection closes.
        for _ in self._readers:
            self._read_jobs.put(None)
        for reader in self._readers:
            reader.join()
        while True:  # nothing is left waiting on a read no thread will run
            try:
                item = self._read_jobs.get_nowait()
            except queue.Empty:
                break
            if item is not None:
                item[0].finish(error=Unavailable("store_unavailable"))
        for conn in (*self._read_conns, self.conn):
            conn.close()
