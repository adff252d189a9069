"""The primary store: SQLite (through apsw) in WAL mode under ``HOME/memory.db``.

Owns: the schema, the one writer connection, transactions, and the audit
table's append discipline. Callers never hold a cursor across an ``await``:
they hand a function to ``Store.run`` which executes it in one transaction on
the store's worker thread.

Invariants:
- every governed change and the audit events describing it commit in one
  transaction, or neither does (``Tx.audit`` appends inside the caller's
  transaction; the in-memory chain head advances only after COMMIT);
- a failed COMMIT or audit append rolls everything back, marks the store
  ``degraded`` (governed writes refused with ``store_unavailable``, reads go
  on) and is never retried into an acknowledgement;
- ``synchronous=FULL`` by default: an acknowledged write survives power loss;
- ``secure_delete=ON``: freed pages are zeroed, so removed text does not linger
  in the file.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any, Protocol, TypeVar, cast

import anyio
import apsw
import msgspec

from audit.chain import EMPTY_HEAD, ChainHead, StoredEvent, next_event, to_stored, verify_chain
from audit.event import AuditEvent, EventSubject
from kernel.errors import Unavailable

T = TypeVar("T")

SCHEMA_VERSION = 1

SCHEMA = """
CREATE TABLE IF NOT EXISTS meta(key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS consent(
  owner TEXT PRIMARY KEY, read INTEGER NOT NULL, contribute INTEGER NOT NULL,
  learn_from_tools INTEGER NOT NULL, version INTEGER NOT NULL, updated_at TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS tokens(
  token_id TEXT PRIMARY KEY, token_hash TEXT NOT NULL UNIQUE, owner TEXT NOT NULL,
  kind TEXT NOT NULL, scopes TEXT, created_at TEXT NOT NULL, expires_at TEXT,
  revoked_at TEXT);
CREATE TABLE IF NOT EXISTS tasks(
  task_id TEXT PRIMARY KEY, owner TEXT NOT NULL, peer_uid INTEGER NOT NULL,
  channel TEXT NOT NULL, role TEXT NOT NULL, parent_task TEXT, scopes TEXT NOT NULL,
  user_scope TEXT NOT NULL, consent TEXT NOT NULL, grants TEXT NOT NULL,
  tools_used INTEGER NOT NULL, token_id TEXT, created_at TEXT NOT NULL,
  expires_at TEXT NOT NULL, ended_at TEXT, snapshot TEXT);
CREATE INDEX IF NOT EXISTS tasks_owner ON tasks(owner, ended_at);
CREATE TABLE IF NOT EXISTS entries(
  id TEXT PRIMARY KEY, owner TEXT NOT NULL, target TEXT NOT NULL, scope TEXT NOT NULL,
  type TEXT NOT NULL, title TEXT NOT NULL, body TEXT NOT NULL, summary TEXT NOT NULL,
  status TEXT NOT NULL, revision INTEGER NOT NULL, source TEXT NOT NULL,
  eligible INTEGER NOT NULL, basis TEXT NOT NULL, validity TEXT, pinned INTEGER NOT NULL,
  created_at TEXT NOT NULL, updated_at TEXT NOT NULL, renewed_at TEXT NOT NULL,
  ttl_days REAL NOT NULL, expires_at TEXT NOT NULL, use_count INTEGER NOT NULL DEFAULT 0,
  last_used_at TEXT, superseded_by TEXT, content_hash TEXT NOT NULL,
  evidence_hash TEXT, archive_reason TEXT, status_at TEXT);
CREATE UNIQUE INDEX IF NOT EXISTS entries_active_title
  ON entries(owner, target, scope, title) WHERE status = 'active';
CREATE INDEX IF NOT EXISTS entries_scope ON entries(owner, target, scope, status);
CREATE INDEX IF NOT EXISTS entries_expiry ON entries(status, expires_at);
CREATE TABLE IF NOT EXISTS revisions(
  entry_id TEXT NOT NULL, revision INTEGER NOT NULL, type TEXT, title TEXT, body TEXT,
  summary TEXT, basis TEXT, validity TEXT, content_hash TEXT NOT NULL,
  created_at TEXT NOT NULL, PRIMARY KEY(entry_id, revision));
CREATE TABLE IF NOT EXISTS operations(
  operation_id TEXT PRIMARY KEY, owner TEXT NOT NULL, ts TEXT NOT NULL,
  action TEXT NOT NULL, channel TEXT NOT NULL, items TEXT NOT NULL,
  undo_of TEXT, undone_by TEXT);
CREATE INDEX IF NOT EXISTS operations_owner ON operations(owner, ts);
CREATE TABLE IF NOT EXISTS actions(
  action_id TEXT PRIMARY KEY, owner TEXT NOT NULL, status TEXT NOT NULL,
  created_at TEXT NOT NULL, expires_at TEXT NOT NULL, decided_at TEXT,
  task_id TEXT, channel TEXT NOT NULL, proposal TEXT, proposal_key TEXT NOT NULL,
  resources TEXT NOT NULL, content_hashes TEXT NOT NULL, policy_hash TEXT NOT NULL,
  ops_summary TEXT NOT NULL, entry_ids TEXT NOT NULL, result TEXT);
CREATE INDEX IF NOT EXISTS actions_status ON actions(status, expires_at);
CREATE INDEX IF NOT EXISTS actions_owner ON actions(owner, status);
CREATE INDEX IF NOT EXISTS actions_key ON actions(owner, proposal_key, status);
CREATE TABLE IF NOT EXISTS idempotency(
  owner TEXT NOT NULL, key TEXT NOT NULL, request_hash TEXT NOT NULL,
  answer TEXT NOT NULL, created_at TEXT NOT NULL, PRIMARY KEY(owner, key));
CREATE TABLE IF NOT EXISTS receipts(
  receipt_id TEXT PRIMARY KEY, owner TEXT NOT NULL, entry_id TEXT NOT NULL,
  status TEXT NOT NULL, created_at TEXT NOT NULL, updated_at TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS audit(seq INTEGER PRIMARY KEY, body BLOB NOT NULL, hash TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS checkpoints(
  seq INTEGER PRIMARY KEY, hash TEXT NOT NULL, ts TEXT NOT NULL, signature TEXT NOT NULL,
  public_key TEXT NOT NULL);
"""

_json = msgspec.json.Encoder()
_decode_json = msgspec.json.Decoder()


def dumps(value: Any) -> str:
    return _json.encode(value).decode()


def loads(text: str | None) -> Any:
    return None if text is None else _decode_json.decode(text)


class Tx:
    """One open transaction. Only valid inside the function given to ``Store.run``."""

    def __init__(self, conn: apsw.Connection, store: SqliteStore) -> None:
        self.conn = conn
        self._store = store
        self._head = store.head
        self.events: list[AuditEvent] = []

    def one(self, sql: str, args: Sequence[Any] = ()) -> dict[str, Any] | None:
        for row in self.conn.execute(sql, args):
            return cast(dict[str, Any], row)
        return None

    def all(self, sql: str, args: Sequence[Any] = ()) -> list[dict[str, Any]]:
        return list(self.conn.execute(sql, args))

    def exec(self, sql: str, args: Sequence[Any] = ()) -> int:
        self.conn.execute(sql, args)
        return int(self.conn.changes())

    def audit(self, kind: str, ts: str, **fields: Any) -> AuditEvent:
        """Append one event to the chain inside this transaction."""
        subject = fields.pop("subject", None)
        if isinstance(subject, dict):
            subject = EventSubject(**subject)
        event = next_event(self._head, kind, ts, subject=subject, **fields)
        stored = to_stored(event)
        self.conn.execute(
            "INSERT INTO audit(seq, body, hash) VALUES (?, ?, ?)",
            (stored.seq, stored.body, stored.hash),
        )
        self._head = ChainHead(seq=stored.seq, hash=stored.hash)
        self.events.append(event)
        return event


class Store(Protocol):
    """The seam a second backend (PostgreSQL) implements."""

    head: ChainHead
    degraded: str | None

    async def run(self, fn: Callable[[Tx], T], *, write: bool = True) -> T: ...

    def run_sync(self, fn: Callable[[Tx], T], *, write: bool = True) -> T: ...

    def close(self) -> None: ...


def _row_trace(cursor: apsw.Cursor, row: tuple[Any, ...]) -> dict[str, Any]:
    return {d[0]: v for d, v in zip(cursor.get_description(), row, strict=True)}


class SqliteStore:
    kind = "sqlite"

    def __init__(self, path: Path, *, synchronous: str = "FULL") -> None:
        self.path = path
        self.conn = apsw.Connection(str(path))
        self.conn.set_busy_timeout(5_000)
        self.conn.row_trace = _row_trace
        for pragma in (
            "PRAGMA journal_mode=WAL",
            f"PRAGMA synchronous={synchronous}",
            "PRAGMA secure_delete=ON",
            "PRAGMA foreign_keys=ON",
            "PRAGMA trusted_schema=OFF",
        ):
            self.conn.execute(pragma).fetchall()
        with self.conn:
            self.conn.execute(SCHEMA)
            self.conn.execute(
                "INSERT OR IGNORE INTO meta(key, value) VALUES ('schema_version', ?)",
                (str(SCHEMA_VERSION),),
            )
        self._lock = threading.Lock()
        self._limiter = anyio.CapacityLimiter(1)
        self.degraded: str | None = None
        self.head = self._last_head()
        self.fail_next_commit: Exception | None = None  # failure injection for tests

    # -- transactions -------------------------------------------------------

    def run_sync(self, fn: Callable[[Tx], T], *, write: bool = True) -> T:
        with self._lock:
            if write and self.degraded is not None:
                raise Unavailable("store_unavailable")
            tx = Tx(self.conn, self)
            self.conn.execute("BEGIN IMMEDIATE" if write else "BEGIN")
            try:
                result = fn(tx)
            except BaseException:
                self.conn.execute("ROLLBACK")
                raise
            try:
                # Only a write consumes an injected fault: a read commits nothing.
                if write and self.fail_next_commit is not None:
                    exc, self.fail_next_commit = self.fail_next_commit, None
                    raise exc
                self.conn.execute("COMMIT")
            except Exception:  # noqa: BLE001 (any commit failure must degrade, not escape)
                # The outcome of a failed COMMIT is unknown to us; never retry it
                # into an acknowledgement (the fsyncgate lesson). Roll back what we
                # can and refuse governed writes until the chain verifies again.
                try:
                    if not self.conn.getautocommit():
                        self.conn.execute("ROLLBACK")
                except apsw.Error:
                    pass
                self.degraded = "commit_failed"
                raise Unavailable("store_unavailable") from None
            self.head = tx._head
            return result

    async def run(self, fn: Callable[[Tx], T], *, write: bool = True) -> T:
        return await anyio.to_thread.run_sync(
            lambda: self.run_sync(fn, write=write), limiter=self._limiter
        )

    # -- audit --------------------------------------------------------------

    def audit_rows(self, after_seq: int = 0) -> Iterator[StoredEvent]:
        cursor = self.conn.cursor()
        cursor.row_trace = None
        for seq, body, hsh in cursor.execute(
            "SELECT seq, body, hash FROM audit WHERE seq > ? ORDER BY seq", (after_seq,)
        ):
            yield StoredEvent(seq, bytes(body), hsh)

    def verify_audit(self, expect: ChainHead | None = None) -> Any:
        """Walk the whole chain; with ``expect`` (a checkpoint's head) it must pass through it."""
        with self._lock:
            return verify_chain(self.audit_rows(), expect=expect)

    def _last_head(self) -> ChainHead:
        rows: list[Any] = self.conn.execute(
            "SELECT seq, hash FROM audit ORDER BY seq DESC LIMIT 1").fetchall()
        return ChainHead(seq=rows[0]["seq"], hash=rows[0]["hash"]) if rows else EMPTY_HEAD

    def try_recover(self, expect: ChainHead | None = None) -> bool:
        """Re-verify the chain; clear ``degraded`` when it verifies again."""
        result = self.verify_audit(expect)
        with self._lock:
            if result.ok:
                self.head = self._last_head()
                self.degraded = None
            else:
                self.degraded = "audit_chain_broken"
        return bool(result.ok)

    def checkpoint_wal(self) -> None:
        with self._lock:
            self.conn.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchall()

    def close(self) -> None:
        with self._lock:
            self.conn.close()
