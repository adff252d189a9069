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
  in the file; the FTS5 index runs with ``secure-delete`` for the same reason;
- the search index and snapshot cards follow ``entries`` through SQL triggers
  in the writer's own transaction; any connection that writes ``entries`` must
  first call ``daemon.retrieval.search.register`` (the triggers use its function);
- ``scope_usage`` holds each namespace's active stored bytes, kept by triggers
  on ``entries`` in the same transaction (the scope budget reads it).
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

from memoryd.audit.chain import EMPTY_HEAD, ChainHead, StoredEvent, next_row, verify_chain
from memoryd.audit.event import EventSubject
from memoryd.audit.packing import (
    Packer,
    Unpacker,
    first_needed,
    pack_body,
    pack_hash,
    pack_row,
    unpack_hash,
    unpack_rows,
)
from memoryd.daemon.external import projection_outbox
from memoryd.daemon.extraction import extract_queue
from memoryd.daemon.retrieval import postings, search
from memoryd.daemon.semantic import vectors
from memoryd.daemon.storage.txn import Tx as Tx  # the one Tx protocol, re-exported
from memoryd.kernel.errors import Unavailable

T = TypeVar("T")

# The version this memoryd writes. Each step of MIGRATIONS takes a store from
# its key to the next version; all steps run in the one transaction that opens
# the store, so a crash leaves the old version whole.
SCHEMA_VERSION = 11


class StoreVersionError(Exception):
    """The store's schema version is not one this memoryd can open."""


def _migrate_1_to_2(conn: apsw.Connection) -> None:
    # Version 1 stores may predate scope_usage: count each namespace's active
    # bytes once; the triggers created with the schema keep them from here on.
    if conn.execute("SELECT 1 FROM sqlite_master WHERE name = 'scope_usage'").fetchall():
        return
    conn.execute(SCHEMA)  # idempotent: creates the table and its triggers
    conn.execute(
        "INSERT INTO scope_usage(owner, target, scope, active_bytes)"
        " SELECT owner, target, scope, sum(length(CAST(body AS BLOB)))"
        " FROM entries WHERE status = 'active' GROUP BY owner, target, scope")


def _migrate_2_to_3(conn: apsw.Connection) -> None:
    # Version 3 stems English in the lexical index (porter over unicode61);
    # the index is rebuilt in its current form by the step to version 6
    # (search.ensure_index), which re-tokenises every entry. Version 3 also
    # keeps vectors (daemon/semantic/vectors.py): their tables are created and every
    # active entry is queued for embedding.
    vectors.install(conn)


def _migrate_3_to_4(conn: apsw.Connection) -> None:
    # Version 4 keeps audit rows packed (audit/packing.py: the body deflated,
    # the hash as 32 bytes) and no second copy of an entry's live text in
    # revisions (a revision row is written when a change replaces it:
    # REVISION_TRIGGER). The audit table is rebuilt row by row, in seq order,
    # each body unpacked back to the bytes that were hashed first; with
    # secure_delete on, the old table's pages are zeroed as they are freed.
    _rebuild_audit(conn, "audit_v3", _packed_v1)
    # A revision row equal to the entry's live revision was that copy.
    conn.execute("DELETE FROM revisions WHERE EXISTS (SELECT 1 FROM entries AS e"
                 " WHERE e.id = revisions.entry_id AND e.revision = revisions.revision)")
    for name in DROPPED_INDEXES:
        conn.execute(f"DROP INDEX IF EXISTS {name}")


def _migrate_4_to_5(conn: apsw.Connection) -> None:
    # Team scopes (daemon/access/teams.py): membership tables, empty. Entries of an
    # older store keep their owners; a scope named ``team:…`` there stays its
    # writer's own (docs/decisions/0022-team-scopes.md).
    conn.execute(TEAM_SCHEMA)


def _migrate_5_to_6(conn: apsw.Connection) -> None:
    # Version 6 stores what it uses once (docs/performance.md, "Storage,
    # schema 6"): an entry's summary equal to its body is not kept twice
    # (ENTRIES_TABLE), the lexical index is keyed by the entry's own integer
    # ``key`` (search_keys, the map beside it, is gone) and keeps no token
    # positions (search.INDEX_OPTIONS), indexes no query reads are dropped
    # (DROPPED_INDEXES), nothing is queued for embedding before a model
    # embeds, and audit rows leave out what the chain derives. Entries are
    # copied into the new table with the index keys they had (their triggers
    # are made again by the schema); the old tables' pages are zeroed as they
    # are freed (secure_delete), and the index is rebuilt from the new rows.
    columns = {str(r["name"]) for r in conn.execute("PRAGMA table_xinfo(entries)")}
    if "summary_text" not in columns:
        kept = [c for c in ENTRY_COLUMNS if c in columns]
        keyed = bool(conn.execute(
            "SELECT 1 FROM sqlite_master WHERE name = 'search_keys'").fetchall())
        conn.execute(ENTRIES_V6.replace("entries(", "entries_v6(", 1))
        names = ", ".join(kept)
        picked = ", ".join(f"e.{c}" for c in kept)
        conn.execute(
            f"INSERT INTO entries_v6(key, summary_text, {names})"  # noqa: S608 (our column names)
            f" SELECT {'s.key' if keyed else 'NULL'},"
            " CASE WHEN e.summary = e.body THEN NULL ELSE e.summary END,"
            f" {picked} FROM entries AS e"
            + (" LEFT JOIN search_keys AS s ON s.entry_id = e.id ORDER BY s.key" if keyed
               else " ORDER BY e.rowid"))
        conn.execute("DROP TABLE entries")  # its indexes and triggers go with it
        conn.execute("ALTER TABLE entries_v6 RENAME TO entries")
    conn.execute("DROP TABLE IF EXISTS search_keys")
    for name in DROPPED_INDEXES:
        conn.execute(f"DROP INDEX IF EXISTS {name}")
    search.ensure_index(conn)
    # A store no model ever embedded keeps no embedding queue (vectors.EMBEDDING):
    # requeue_for_model queues every active entry when the first model comes.
    conn.execute(f"DELETE FROM embed_queue WHERE NOT {vectors.EMBEDDING}")  # noqa: S608 (a constant)
    _repack_audit(conn)


def _migrate_6_to_7(conn: apsw.Connection) -> None:
    # Version 7 keeps no value an entry row can derive (ENTRIES_TABLE): a time
    # equal to the one it follows, the default basis, and the content hash in
    # its hex text form. The rows are copied into the new table with their
    # keys, in key order, so the lexical index (keyed by ``key``) stays as it
    # is; the old table's pages are zeroed as they are freed (secure_delete),
    # and its indexes and triggers are made again by the schema.
    columns = {str(r["name"]) for r in conn.execute("PRAGMA table_xinfo(entries)")}
    if "content_key" in columns:
        return
    kept = [c for c in ENTRY_COLUMNS if c not in DERIVED_COLUMNS]
    conn.execute(ENTRIES_TABLE.replace("entries(", "entries_v7(", 1))
    names = ", ".join(kept)
    conn.execute(
        f"INSERT INTO entries_v7(key, summary_text, {names}, basis_text, updated_text,"  # noqa: S608 (our column names)
        " renewed_text, status_text, content_key)"
        f" SELECT key, summary_text, {names}, nullif(basis, ?), nullif(updated_at, created_at),"
        " nullif(renewed_at, updated_at),"
        " CASE WHEN status_at IS NULL THEN '' WHEN status_at = updated_at THEN NULL"
        " ELSE status_at END,"
        " CASE WHEN content_hash GLOB ? THEN unhex(substr(content_hash, 5))"
        " ELSE content_hash END"
        " FROM entries ORDER BY key", (DEFAULT_BASIS, HASH_GLOB))
    conn.execute("DROP TABLE entries")  # its indexes and triggers go with it
    conn.execute("ALTER TABLE entries_v7 RENAME TO entries")


def _migrate_7_to_8(conn: apsw.Connection) -> None:
    # Version 8 writes new audit rows in audit/packing.py's V3 form, which an
    # older memoryd cannot read (it would report its own store's chain as
    # broken): the version is what makes it refuse the store instead. Rows
    # already stored keep their form; every form stays readable.
    del conn


def _migrate_8_to_9(conn: apsw.Connection) -> None:
    # Version 9 adds the extraction queue (daemon/extraction/extract_queue.py).
    conn.execute(extract_queue.SCHEMA)


def _repack_audit(conn: apsw.Connection) -> None:
    # Audit rows take audit/packing.py's V2 form: the prev hash the row before
    # holds is cut, and each body is deflated against the one before it in its
    # block. The table is rebuilt in seq order. A row that does not read back
    # (damaged), or whose hash is not 32 bytes, is kept exactly as stored; a
    # row after it that would need it is kept in the V1 form, which stands
    # alone; so verification reports the same first bad row as before.
    _rebuild_audit(conn, "audit_v5", _packed_v2)


AuditRow = tuple[int, Any, Any]


def _rebuild_audit(conn: apsw.Connection, old: str,
                   rows: Callable[[Iterator[AuditRow]], Iterator[AuditRow]]) -> None:
    """Rename ``audit`` to ``old``, make the current table and copy every
    row into it in seq order as ``rows`` turns it, then drop ``old``."""
    conn.execute(f"ALTER TABLE audit RENAME TO {old}")
    conn.execute(AUDIT_TABLE)
    cursor = conn.cursor()
    cursor.row_trace = None
    insert = conn.cursor()
    for row in rows(cursor.execute(f"SELECT seq, body, hash FROM {old} ORDER BY seq")):  # noqa: S608 (our table name)
        insert.execute("INSERT INTO audit(seq, body, hash) VALUES (?, ?, ?)", row)
    conn.execute(f"DROP TABLE {old}")


def _packed_v1(rows: Iterator[AuditRow]) -> Iterator[AuditRow]:
    for seq, body, hsh in rows:
        # Only canonical JSON is packed (a row already packed stays as it
        # is); packing is lossless, so a damaged row stays exactly as damaged
        # and verification goes on reporting it at its own seq.
        packed = pack_body(body) if isinstance(body, bytes) and body[:1] == b"{" else body
        try:
            hsh = pack_hash(hsh) if isinstance(hsh, str) and len(hsh) == 64 else hsh
        except ValueError:  # not hex: kept as it is, a mismatch for the verifier
            pass
        yield seq, packed, hsh


def _packed_v2(rows: Iterator[AuditRow]) -> Iterator[AuditRow]:
    previous: StoredEvent | None = None
    for event, (seq, body, hsh) in _with_rows(rows):
        readable = event.body[:1] == b"{" and isinstance(hsh, bytes) and len(hsh) == 32
        if not readable:
            yield seq, body, hsh
        elif previous is not None and previous.seq == seq - 1:
            yield pack_row(event, previous.hash,
                           previous.body if previous.body[:1] == b"{" else None)
        else:
            yield pack_row(event, EMPTY_HEAD.hash if seq == 1 else "", None)
        previous = event


def _with_rows(rows: Iterator[tuple[int, bytes, Any]]) -> Iterator[
        tuple[StoredEvent, tuple[int, bytes, Any]]]:
    """Each stored row beside the event it reads as (audit/packing.py)."""
    unpacker = Unpacker()
    for seq, body, hsh in rows:
        yield unpacker.feed(seq, bytes(body), hsh), (seq, bytes(body), hsh)


def _migrate_9_to_10(conn: apsw.Connection) -> None:
    # Version 10 lets an entry keep its surroundings and its time: ``context``
    # (indexed and searched, not shown as the body) and ``observed_at`` (the
    # time the entry speaks of, indexed in words), in entries and in the
    # revisions a replace leaves. Existing rows hold neither, so the index
    # keeps every token it has; its triggers are made again by SEARCH_SCHEMA
    # with the new columns (an older table made by a step above may already
    # have them).
    for table in ("entries", "revisions"):
        columns = {str(r["name"]) for r in conn.execute(f"PRAGMA table_xinfo({table})")}
        for column in ("context", "observed_at"):
            if column not in columns:
                conn.execute(f"ALTER TABLE {table} ADD COLUMN {column} TEXT")
    for name in ("entries_search_ai", "entries_search_au", "entries_search_ad"):
        conn.execute(f"DROP TRIGGER IF EXISTS {name}")


def _migrate_10_to_11(conn: apsw.Connection) -> None:
    # Version 11 keeps each active entry's index terms as numbers, per
    # namespace (daemon/retrieval/postings.py): made and filled from the
    # entries by postings.install, at this open. Its triggers call a
    # function only this memoryd registers, so an older one must not open
    # the store (it would refuse every write).
    postings.install(conn)


MIGRATIONS: dict[int, Callable[[apsw.Connection], None]] = {
    1: _migrate_1_to_2, 2: _migrate_2_to_3, 3: _migrate_3_to_4, 4: _migrate_4_to_5,
    5: _migrate_5_to_6, 6: _migrate_6_to_7, 7: _migrate_7_to_8,
    8: _migrate_8_to_9, 9: _migrate_9_to_10, 10: _migrate_10_to_11}

# Indexes an older schema made that no query needs (docs/design.md names the
# query each kept index serves). entries_scope(owner, target, scope, status)
# only answered what entries_listing, which starts with owner and holds
# every filter column, answers from the same pages. entries_active_title
# (owner, target, scope, title) WHERE status = 'active' served the title
# check of a write (entries.check_title), which entries_listing's (owner,
# title) prefix answers as well; the check, not the index, refuses a
# duplicate (docs/decisions/0040-no-unique-index-on-active-titles.md).
DROPPED_INDEXES: tuple[str, ...] = ("entries_scope", "entries_active_title")

# Version 6's entries table (the step from version 5 copies rows into it;
# tests make a version 6 store from it).
ENTRIES_V6 = """CREATE TABLE IF NOT EXISTS entries(
  key INTEGER PRIMARY KEY, id TEXT NOT NULL UNIQUE, owner TEXT NOT NULL,
  target TEXT NOT NULL, scope TEXT NOT NULL, type TEXT NOT NULL, title TEXT NOT NULL,
  body TEXT NOT NULL, summary_text TEXT,
  summary TEXT GENERATED ALWAYS AS (coalesce(summary_text, body)) VIRTUAL,
  status TEXT NOT NULL, revision INTEGER NOT NULL, source TEXT NOT NULL,
  eligible INTEGER NOT NULL, basis TEXT NOT NULL, validity TEXT, pinned INTEGER NOT NULL,
  created_at TEXT NOT NULL, updated_at TEXT NOT NULL, renewed_at TEXT NOT NULL,
  ttl_days REAL NOT NULL, expires_at TEXT NOT NULL, use_count INTEGER NOT NULL DEFAULT 0,
  last_used_at TEXT, superseded_by TEXT, content_hash TEXT NOT NULL,
  evidence_hash TEXT, archive_reason TEXT, status_at TEXT)"""

# The basis an entry gets when its writer gives none, as stored (dumps).
DEFAULT_BASIS = '{"kind":"unknown","note":""}'
# The one form of a stored content hash (audit/keyed.py): kept as its 32 bytes.
HASH_PREFIX = "b3k:"
HASH_GLOB = HASH_PREFIX + "[0-9a-f]" * 64

# An entry row. ``key`` is the lexical index's rowid: an explicit INTEGER
# PRIMARY KEY, so VACUUM never renumbers it. No value the row can derive is
# stored; a generated column reads it back, so every query reads the names it
# always read (``summary``, ``basis``, ``updated_at``, ``renewed_at``,
# ``status_at``, ``content_hash``) with the values it always had:
# - ``summary_text`` is NULL when the summary is the body (a short note's);
# - ``basis_text`` is NULL when the basis is DEFAULT_BASIS;
# - ``updated_text`` is NULL when ``updated_at`` is ``created_at``,
#   ``renewed_text`` and ``status_text`` when theirs is ``updated_at``
#   (``status_text`` is '' for a NULL ``status_at``, which no write makes);
# - ``content_key`` holds a ``b3k:`` hash as its 32 bytes (any other text as
#   it is), and ``content_hash`` reads it back as the same text.
# Only daemon/pipeline/entries.py writes these columns (``_as_stored``); PostgreSQL's
# table stores every value as given.
ENTRIES_TABLE = f"""CREATE TABLE IF NOT EXISTS entries(
  key INTEGER PRIMARY KEY, id TEXT NOT NULL UNIQUE, owner TEXT NOT NULL,
  target TEXT NOT NULL, scope TEXT NOT NULL, type TEXT NOT NULL, title TEXT NOT NULL,
  body TEXT NOT NULL, summary_text TEXT,
  summary TEXT GENERATED ALWAYS AS (coalesce(summary_text, body)) VIRTUAL,
  status TEXT NOT NULL, revision INTEGER NOT NULL, source TEXT NOT NULL,
  eligible INTEGER NOT NULL, basis_text TEXT,
  basis TEXT GENERATED ALWAYS AS (coalesce(basis_text, '{DEFAULT_BASIS}')) VIRTUAL,
  validity TEXT, pinned INTEGER NOT NULL, created_at TEXT NOT NULL, updated_text TEXT,
  updated_at TEXT GENERATED ALWAYS AS (coalesce(updated_text, created_at)) VIRTUAL,
  renewed_text TEXT,
  renewed_at TEXT GENERATED ALWAYS AS (coalesce(renewed_text, updated_at)) VIRTUAL,
  ttl_days REAL NOT NULL, expires_at TEXT NOT NULL, use_count INTEGER NOT NULL DEFAULT 0,
  last_used_at TEXT, superseded_by TEXT, content_key BLOB NOT NULL,
  content_hash TEXT GENERATED ALWAYS AS (CASE WHEN typeof(content_key) = 'blob'
    THEN '{HASH_PREFIX}' || lower(hex(content_key)) ELSE content_key END) VIRTUAL,
  evidence_hash TEXT, archive_reason TEXT, status_text TEXT,
  status_at TEXT GENERATED ALWAYS AS (CASE WHEN status_text IS NULL THEN updated_at
    ELSE nullif(status_text, '') END) VIRTUAL, context TEXT, observed_at TEXT)"""
# Columns version 7 derives from what it stores (ENTRIES_TABLE).
DERIVED_COLUMNS = ("basis", "updated_at", "renewed_at", "content_hash", "status_at")
# The columns every version's entries table has, stored or derived (version
# 6 adds ``key`` and ``summary_text``, and derives ``summary``; version 7
# derives DERIVED_COLUMNS).
ENTRY_COLUMNS = (
    "id", "owner", "target", "scope", "type", "title", "body", "status", "revision", "source",
    "eligible", "basis", "validity", "pinned", "created_at", "updated_at", "renewed_at",
    "ttl_days", "expires_at", "use_count", "last_used_at", "superseded_by", "content_hash",
    "evidence_hash", "archive_reason", "status_at")

# One row per event (audit/chain.py's StoredEvent) in audit/packing.py's form.
AUDIT_TABLE = ("CREATE TABLE IF NOT EXISTS audit("
               "seq INTEGER PRIMARY KEY, body BLOB NOT NULL, hash BLOB NOT NULL)")

SCHEMA = f"""
CREATE TABLE IF NOT EXISTS meta(key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS consent(
  owner TEXT PRIMARY KEY, read INTEGER NOT NULL, contribute INTEGER NOT NULL,
  learn_from_tools INTEGER NOT NULL, version INTEGER NOT NULL, updated_at TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS tokens(
  token_id TEXT PRIMARY KEY, token_hash TEXT NOT NULL UNIQUE, owner TEXT NOT NULL,
  kind TEXT NOT NULL, scopes TEXT, created_at TEXT NOT NULL, expires_at TEXT,
  revoked_at TEXT);
-- Operator-chosen token labels (token.issue --label): text, so never audited.
CREATE TABLE IF NOT EXISTS token_labels(
  token_id TEXT PRIMARY KEY, label TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS tasks(
  task_id TEXT PRIMARY KEY, owner TEXT NOT NULL, peer_uid INTEGER NOT NULL,
  channel TEXT NOT NULL, role TEXT NOT NULL, parent_task TEXT, scopes TEXT NOT NULL,
  user_scope TEXT NOT NULL, consent TEXT NOT NULL, grants TEXT NOT NULL,
  tools_used INTEGER NOT NULL, token_id TEXT, created_at TEXT NOT NULL,
  expires_at TEXT NOT NULL, ended_at TEXT, snapshot TEXT);
CREATE INDEX IF NOT EXISTS tasks_owner ON tasks(owner, ended_at);
CREATE INDEX IF NOT EXISTS tasks_begun ON tasks(owner, created_at);
{ENTRIES_TABLE};
CREATE INDEX IF NOT EXISTS entries_expiry ON entries(status, expires_at);
-- memory.list pages in (title, id) order: walking this index yields rows in
-- page order and holds every column the listing filters on, so a page costs
-- the rows it skips in the index, not a sort of the owner's whole store.
CREATE INDEX IF NOT EXISTS entries_listing
  ON entries(owner, title, id, target, scope, status, expires_at);
-- Active stored bytes per namespace, for the scope budget checked on every
-- write, and the active entries' count and length in characters (title +
-- summary + body): BM25's statistics for recall (search.view_stats).
-- Triggers in USAGE_TRIGGERS keep them in step.
CREATE TABLE IF NOT EXISTS scope_usage(
  owner TEXT NOT NULL, target TEXT NOT NULL, scope TEXT NOT NULL,
  active_bytes INTEGER NOT NULL, active_docs INTEGER NOT NULL DEFAULT 0,
  active_chars INTEGER NOT NULL DEFAULT 0, PRIMARY KEY(owner, target, scope)) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS revisions(
  entry_id TEXT NOT NULL, revision INTEGER NOT NULL, type TEXT, title TEXT, body TEXT,
  summary TEXT, basis TEXT, validity TEXT, content_hash TEXT NOT NULL,
  created_at TEXT NOT NULL, context TEXT, observed_at TEXT, PRIMARY KEY(entry_id, revision));
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
CREATE TABLE IF NOT EXISTS checkpoints(
  seq INTEGER PRIMARY KEY, hash TEXT NOT NULL, ts TEXT NOT NULL, signature TEXT NOT NULL,
  public_key TEXT NOT NULL);
"""

# Team scopes (daemon/access/teams.py): which owners share a ``team:NAME`` scope.
# Plain tables and SQL both primary stores speak (no SQLite-only clauses).
TEAM_SCHEMA = """
CREATE TABLE IF NOT EXISTS teams(
  scope TEXT PRIMARY KEY, created_at TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS team_members(
  scope TEXT NOT NULL REFERENCES teams(scope), member TEXT NOT NULL,
  added_at TEXT NOT NULL, PRIMARY KEY(scope, member));
CREATE INDEX IF NOT EXISTS team_members_member ON team_members(member, scope);
"""

def _stored(row: str) -> str:
    """SQL for the bytes an entry holds: every text column as written (a
    summary stored once as the body still counts: the budget measures the
    entry's text, not how the row keeps it)."""
    return " + ".join(f"coalesce(length(CAST({row}.{col} AS BLOB)), 0)"
                      for col in ("title", "body", "summary", "basis", "validity", "context",
                                  "observed_at"))


# Active stored bytes per namespace: every text column of the entry (title,
# summary, body, basis, validity, context, observed_at), not the body alone, so no field can grow a
# scope past its budget. Triggers keep it in step with entries in the writer's
# own transaction, whatever path changes an entry (write, archive, supersede,
# undo, expiry, removal, gc), so the check costs one lookup, not a sum over
# the scope. They are dropped and made again at every open, and the totals
# recounted when the way of counting changed (USAGE_COUNTS in meta).
def _chars(row: str) -> str:
    """SQL for an entry's length as BM25 measures it: characters of its text
    (its context included: it is searched as the body is)."""
    return (f"length({row}.title) + length({row}.summary) + length({row}.body)"
            f" + coalesce(length({row}.context), 0)")


USAGE_COUNTS = "all_text_columns,docs,chars,context"
USAGE_TRIGGERS = f"""
DROP TRIGGER IF EXISTS entries_usage_ai;
DROP TRIGGER IF EXISTS entries_usage_au;
DROP TRIGGER IF EXISTS entries_usage_ad;
CREATE TRIGGER entries_usage_ai AFTER INSERT ON entries
WHEN new.status = 'active' BEGIN
  INSERT INTO scope_usage(owner, target, scope, active_bytes, active_docs, active_chars)
    VALUES (new.owner, new.target, new.scope, {_stored("new")}, 1, {_chars("new")})
    ON CONFLICT(owner, target, scope) DO UPDATE
    SET active_bytes = active_bytes + excluded.active_bytes,
        active_docs = active_docs + 1, active_chars = active_chars + excluded.active_chars;
END;
CREATE TRIGGER entries_usage_au
AFTER UPDATE OF status, title, body, summary_text, basis_text, validity, context,
  observed_at, owner, target, scope ON entries
WHEN old.status = 'active' OR new.status = 'active' BEGIN
  UPDATE scope_usage SET active_bytes = active_bytes - ({_stored("old")}),
      active_docs = active_docs - 1, active_chars = active_chars - ({_chars("old")})
    WHERE old.status = 'active'
      AND owner = old.owner AND target = old.target AND scope = old.scope;
  INSERT INTO scope_usage(owner, target, scope, active_bytes, active_docs, active_chars)
    SELECT new.owner, new.target, new.scope, {_stored("new")}, 1, {_chars("new")}
    WHERE new.status = 'active'
    ON CONFLICT(owner, target, scope) DO UPDATE
    SET active_bytes = active_bytes + excluded.active_bytes,
        active_docs = active_docs + 1, active_chars = active_chars + excluded.active_chars;
END;
CREATE TRIGGER entries_usage_ad AFTER DELETE ON entries
WHEN old.status = 'active' BEGIN
  UPDATE scope_usage SET active_bytes = active_bytes - ({_stored("old")}),
      active_docs = active_docs - 1, active_chars = active_chars - ({_chars("old")})
    WHERE owner = old.owner AND target = old.target AND scope = old.scope;
END;
"""  # noqa: S608 (the SQL is built from our own column names only)
# A revision row keeps text an entry no longer holds, for memory.undo of a
# replace: when a change rewrites an entry's content, the revision it leaves
# is kept. An added entry's text is in entries alone (no copy), and a removal
# keeps nothing (destroy() empties the rows it left before).
REVISION_TRIGGER = """
DROP TRIGGER IF EXISTS entries_revision_au;
CREATE TRIGGER entries_revision_au
AFTER UPDATE OF type, title, body, summary_text, basis_text, validity, context, observed_at
  ON entries
WHEN new.status <> 'removed' BEGIN
  INSERT OR REPLACE INTO revisions(entry_id, revision, type, title, body, summary, basis,
    validity, content_hash, created_at, context, observed_at)
  VALUES (old.id, old.revision, old.type, old.title, old.body, old.summary, old.basis,
    old.validity, old.content_hash, old.updated_at, old.context, old.observed_at);
END;
"""
RECOUNT_USAGE = f"""
DELETE FROM scope_usage;
INSERT INTO scope_usage(owner, target, scope, active_bytes, active_docs, active_chars)
  SELECT owner, target, scope, sum({_stored("entries")}), count(*), sum({_chars("entries")})
  FROM entries WHERE status = 'active' GROUP BY owner, target, scope;
"""  # noqa: S608 (the SQL is built from our own column names only)


# Lexical index (daemon/retrieval/search.py) and frozen recall snapshots
# (daemon/retrieval/recall.py).
# The index's rowid is the entry's ``key``. Its body column holds the body,
# the entry's context and its observed time in words (search.FTS_BODY).
# The FTS5 table is contentless: tokens only, never a copy of the text. Rows leave it through FTS5's
# 'delete' command with the old text (which the index function re-tokenises
# identically), because only that path honours 'secure-delete'
# (contentless_delete=1 tables keep the deleted tokens behind tombstones). A
# snapshot's header lives in tasks.snapshot and its cards' text in
# snapshot_cards, so removing an entry destroys its text in every snapshot
# holding it (snapshot_cards_removed).
SEARCH_SCHEMA = f"""
{search.INDEX_TABLE};
CREATE TABLE IF NOT EXISTS snapshot_cards(
  task_id TEXT NOT NULL, pos INTEGER NOT NULL, entry_id TEXT NOT NULL, card TEXT, line TEXT,
  PRIMARY KEY(task_id, pos));
CREATE INDEX IF NOT EXISTS snapshot_cards_entry ON snapshot_cards(entry_id);
CREATE TRIGGER IF NOT EXISTS entries_search_ai AFTER INSERT ON entries BEGIN
  INSERT INTO entries_fts(rowid, title, summary, body) VALUES (new.key,
    memoryd_fts_text(new.title), memoryd_fts_text(new.summary_text),
    {search.FTS_BODY}(new.body, new.context, new.observed_at));
END;
CREATE TRIGGER IF NOT EXISTS entries_search_au
AFTER UPDATE OF title, summary_text, body, context, observed_at ON entries
BEGIN
  INSERT INTO entries_fts(entries_fts, rowid, title, summary, body) VALUES ('delete', old.key,
    memoryd_fts_text(old.title), memoryd_fts_text(old.summary_text),
    {search.FTS_BODY}(old.body, old.context, old.observed_at));
  INSERT INTO entries_fts(rowid, title, summary, body) VALUES (new.key,
    memoryd_fts_text(new.title), memoryd_fts_text(new.summary_text),
    {search.FTS_BODY}(new.body, new.context, new.observed_at));
END;
CREATE TRIGGER IF NOT EXISTS entries_search_ad AFTER DELETE ON entries BEGIN
  INSERT INTO entries_fts(entries_fts, rowid, title, summary, body) VALUES ('delete', old.key,
    memoryd_fts_text(old.title), memoryd_fts_text(old.summary_text),
    {search.FTS_BODY}(old.body, old.context, old.observed_at));
  UPDATE snapshot_cards SET card = NULL, line = NULL WHERE entry_id = old.id;
END;
CREATE TRIGGER IF NOT EXISTS snapshot_cards_removed AFTER UPDATE OF status ON entries
WHEN new.status = 'removed' BEGIN
  UPDATE snapshot_cards SET card = NULL, line = NULL WHERE entry_id = new.id;
END;
CREATE TRIGGER IF NOT EXISTS snapshot_cards_dropped AFTER UPDATE OF snapshot ON tasks
WHEN new.snapshot IS NULL BEGIN
  DELETE FROM snapshot_cards WHERE task_id = new.task_id;
END;
CREATE TRIGGER IF NOT EXISTS snapshot_cards_task_gone AFTER DELETE ON tasks BEGIN
  DELETE FROM snapshot_cards WHERE task_id = old.task_id;
END;
"""  # noqa: S608 (the SQL is built from our own constants only)

_json = msgspec.json.Encoder()
_decode_json = msgspec.json.Decoder()


def readable_version(text: str, current: int, store: str, unreadable: str) -> int:
    """The schema version ``text`` names, refused when unreadable or newer than ``current``."""
    if not text.isdigit():
        raise StoreVersionError(f"{store} has no readable schema version: {unreadable}")
    version = int(text)
    if version > current:
        raise StoreVersionError(
            f"{store} has schema version {version}, newer than this memoryd's"
            f" {current}: upgrade memoryd (the store was left unchanged)")
    return version


def _upgrade(conn: apsw.Connection) -> None:
    """Bring an existing store to SCHEMA_VERSION, or refuse it (inside the
    caller's transaction). A new, empty file is left to the schema."""
    if not conn.execute("SELECT 1 FROM sqlite_master WHERE name = 'meta'").fetchall():
        return
    rows: list[Any] = conn.execute(
        "SELECT value FROM meta WHERE key = 'schema_version'").fetchall()
    text = str(rows[0]["value"]) if rows else ""  # rows are dicts (the row tracer)
    version = readable_version(
        text, SCHEMA_VERSION, "memory.db", "it was not written by memoryd, or it is damaged;"
        " restore it from a backup")
    while version < SCHEMA_VERSION:
        MIGRATIONS[version](conn)
        version += 1


def dumps(value: Any) -> str:
    return _json.encode(value).decode()


def loads(text: str | None) -> Any:
    return None if text is None else _decode_json.decode(text)


class SqliteTx:
    """One open transaction on SQLite.

    ``dialect`` names the SQL the connection speaks: the daemon's statements
    are SQLite's, written portably; the few that cannot be (full-text
    matching) ask it. daemon/storage/store_pg.py's ``PgTx`` has the same face.
    """

    dialect = "sqlite"

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

    def audit(self, kind: str, ts: str, **fields: Any) -> StoredEvent:
        """Append one event to the chain inside this transaction; the row stored."""
        subject = fields.pop("subject", None)
        if isinstance(subject, dict):
            subject = EventSubject(**subject)
        stored = next_row(self._head, kind, ts, subject=subject, **fields)
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

    def checkpoint_wal(self) -> bool: ...

    def external_copies(self) -> bool: ...

    def close(self) -> None: ...


J = TypeVar("J")


def next_group(jobs: queue.SimpleQueue[J | None], max_group: int) -> tuple[list[J], bool]:
    """A writer's next group: the first job (waited for), then every job
    already queued, up to ``max_group``; and whether the stop mark (None)
    was met. An empty group means stop now."""
    first = jobs.get()
    if first is None:
        return [], True
    batch = [first]
    while len(batch) < max_group:
        try:
            job = jobs.get_nowait()
        except queue.Empty:
            break
        if job is None:
            return batch, True
        batch.append(job)
    return batch, False


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


def _resolve_all(jobs: list[_Job]) -> None:
    for job in jobs:
        job._resolve()


def _call_on(loop: asyncio.AbstractEventLoop, jobs: list[_Job]) -> None:
    try:
        loop.call_soon_threadsafe(_resolve_all, jobs)
    except RuntimeError:  # the loop is closed: nobody is waiting any more
        pass


class _Job:
    """One unit of work for the writer thread, and how its caller is answered."""

    __slots__ = (
        "_event",
        "_future",
        "_loop",
        "error",
        "fn",
        "governed",
        "raw",
        "result",
        "settled",
    )

    def __init__(self, fn: Callable[..., Any], *, governed: bool = True, raw: bool = False,
                 loop: asyncio.AbstractEventLoop | None = None) -> None:
        self.fn = fn
        self.governed = governed  # refused while the store is degraded
        self.raw = raw  # runs outside any transaction, between groups
        self.result: Any = None
        self.error: BaseException | None = None
        self.settled = False
        self._loop = loop
        self._future: asyncio.Future[Any] | None = loop.create_future() if loop else None
        self._event = None if loop else threading.Event()

    def finish(self, result: Any = None, error: BaseException | None = None, *,
               later: bool = False) -> bool:
        """Settle the job and tell its caller; with ``later``, the caller of a
        job on an event loop is told by ``tell_loops`` (once per loop for a
        whole group). True if this call settled it."""
        if self.settled:
            return False
        self.settled = True
        self.result, self.error = result, error
        if self._loop is not None:
            if not later:
                _call_on(self._loop, [self])
        else:
            assert self._event is not None
            self._event.set()
        return True

    def _resolve(self) -> None:
        assert self._future is not None
        if self._future.done():  # the caller went away; the work is done regardless
            return
        if self.error is not None:
            self._future.set_exception(self.error)
        else:
            self._future.set_result(self.result)

    @staticmethod
    def tell_loops(jobs: list[_Job]) -> None:
        """Answer the callers of ``jobs`` that wait on event loops: one wake-up
        per loop, however many of its callers the group held."""
        by_loop: dict[asyncio.AbstractEventLoop, list[_Job]] = {}
        for job in jobs:
            if job._loop is not None:
                by_loop.setdefault(job._loop, []).append(job)
        for loop, waiting in by_loop.items():
            _call_on(loop, waiting)

    async def wait_async(self) -> Any:
        assert self._future is not None
        return await self._future

    def wait(self) -> Any:
        assert self._event is not None
        self._event.wait()
        if self.error is not None:
            raise self.error
        return self.result


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
            _upgrade(self.conn)
            self.conn.execute(SCHEMA)
            self.conn.execute(AUDIT_TABLE)
            columns = {str(r["name"]) for r in self.conn.execute(
                "PRAGMA table_info(scope_usage)")}  # rows are dicts (the row tracer)
            for column in ("active_docs", "active_chars"):
                if column not in columns:  # a store from before recall's totals
                    self.conn.execute(f"ALTER TABLE scope_usage ADD COLUMN {column}"
                                      " INTEGER NOT NULL DEFAULT 0")
            self.conn.execute(USAGE_TRIGGERS)
            self.conn.execute(REVISION_TRIGGER)
            counted: list[Any] = self.conn.execute(
                "SELECT value FROM meta WHERE key = 'usage_counts'").fetchall()
            if counted != [{"value": USAGE_COUNTS}]:  # rows are dicts (the row tracer)
                # A store made before scope_usage existed, or counting less
                # than every stored byte: count what it holds once; the
                # triggers keep the totals from here on.
                self.conn.execute(RECOUNT_USAGE)
                self.conn.execute("INSERT OR REPLACE INTO meta(key, value)"
                                  " VALUES ('usage_counts', ?)", (USAGE_COUNTS,))
            self.conn.execute(SEARCH_SCHEMA)
            # Each active entry's index terms as numbers, per namespace: what
            # an owner's ranking reads (daemon/retrieval/postings.py).
            postings.install(self.conn)
            # The projection outbox (daemon/external/projection_outbox.py): its triggers
            # record desired state in the same transaction as each change.
            self.conn.execute(projection_outbox.SCHEMA)
            self.conn.execute(TEAM_SCHEMA)
            self.conn.execute(extract_queue.SCHEMA)
            vectors.install(self.conn)
            # secure-delete: removed text must not linger in the index's pages either.
            self.conn.execute(search.INDEX_SETTINGS)
            self.conn.execute(
                "INSERT OR REPLACE INTO meta(key, value) VALUES ('schema_version', ?)",
                (str(SCHEMA_VERSION),),
            )
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
        # connection, answered like a write (``_Job``): anyio's worker-thread
        # hop (a limiter, a shielded scope, a thread pool's bookkeeping) cost
        # ~250 K instructions per read against ~60 K for a queue and one
        # call into the loop.
        self._read_jobs: queue.SimpleQueue[tuple[_Job, contextvars.Context] | None] = (
            queue.SimpleQueue())
        self._readers = [threading.Thread(target=self._reader_loop, name=f"store-reader-{i}",
                                          daemon=True) for i in range(self.readers)]
        for reader in self._readers:
            reader.start()
        self._jobs: queue.SimpleQueue[_Job | None] = queue.SimpleQueue()
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
        search.register(conn)
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
        for seq, hsh in cursor.execute("SELECT seq, hash FROM audit ORDER BY seq DESC LIMIT 1"):
            return ChainHead(seq=seq, hash=unpack_hash(hsh))
        return EMPTY_HEAD

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
        job = _Job(fn, governed=governed)
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
            read = _Job(fn, loop=loop)
            # The caller's context goes with the read, as anyio's hop took
            # it (log lines bound to the connection keep its id).
            self._read_jobs.put((read, contextvars.copy_context()))
            return await read.wait_async()
        job = _Job(fn, governed=governed, loop=loop)
        self._submit(job)
        return await job.wait_async()

    def _submit(self, job: _Job) -> None:
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
            group: list[_Job] = []
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

    def _commit_group(self, group: list[_Job]) -> None:
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

    def _run_group(self, group: list[_Job]) -> None:
        conn = self.conn
        head = self.head
        done: list[tuple[_Job, Any]] = []
        failed: list[tuple[_Job, BaseException]] = []
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
        _Job.tell_loops(answered)

    def _writer_call(self, fn: Callable[[apsw.Connection], T]) -> T:
        """Run ``fn(conn)`` on the writer thread, between groups, outside a transaction."""
        job = _Job(fn, governed=False, raw=True)
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

    def checkpoint_wal(self) -> bool:
        """Checkpoint and truncate the WAL; False when it could not complete (busy)."""
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
