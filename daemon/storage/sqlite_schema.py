"""The SQLite store's schema: its tables, indexes and triggers, its version and the
migrations that bring an older ``memory.db`` to it.

Owns: every statement that shapes ``memory.db`` (the daemon's own tables here;
the lexical index, postings, vectors, the projection outbox and the extraction
queue hand theirs over, and ``install`` makes them all in one transaction),
``SCHEMA_VERSION`` and ``MIGRATIONS``, and how an ``entries`` row keeps no
value its generated columns derive (``stored_entry``).
daemon/storage/store.py opens the file and calls ``install`` once, inside its
first transaction.

Invariants:
- ``install`` runs in the caller's transaction: a store is brought to
  ``SCHEMA_VERSION`` whole, or left as it was (a crash mid-migration leaves
  the old version); a version newer than this memoryd's is refused unchanged;
- every statement is idempotent (``IF NOT EXISTS``, triggers dropped and made
  again), so installing over the current schema changes nothing;
- the search index and snapshot cards follow ``entries`` through triggers in
  the writer's own transaction; ``scope_usage`` holds each namespace's active
  stored bytes, kept by triggers on ``entries`` (the scope budget reads it).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from typing import Any

import apsw

from memoryd.audit.chain import EMPTY_HEAD, StoredEvent
from memoryd.audit.packing import Unpacker, pack_body, pack_hash, pack_row
from memoryd.daemon.external import projection_outbox
from memoryd.daemon.extraction import extract_queue
from memoryd.daemon.retrieval import episodes, postings, text_index
from memoryd.daemon.semantic import vectors
from memoryd.daemon.storage.seam import readable_version

# The version this memoryd writes. Each step of MIGRATIONS takes a store from
# its key to the next version; all steps run in the one transaction that opens
# the store, so a crash leaves the old version whole.
SCHEMA_VERSION = 13


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
    # (text_index.ensure_index), which re-tokenises every entry. Version 3 also
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
    # positions (text_index.INDEX_OPTIONS), indexes no query reads are dropped
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
    text_index.ensure_index(conn)
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


def _add_text_columns(conn: apsw.Connection, table: str, *names: str) -> None:
    """Add each of ``names`` to ``table`` as a TEXT column, unless it has it
    (a table made by an earlier step from today's definition already does)."""
    columns = {str(r["name"]) for r in conn.execute(f"PRAGMA table_xinfo({table})")}
    for name in names:
        if name not in columns:
            conn.execute(f"ALTER TABLE {table} ADD COLUMN {name} TEXT")


def _migrate_9_to_10(conn: apsw.Connection) -> None:
    # Version 10 lets an entry keep its surroundings and its time: ``context``
    # (indexed and searched, not shown as the body) and ``observed_at`` (the
    # time the entry speaks of, indexed in words), in entries and in the
    # revisions a replace leaves. Existing rows hold neither, so the index
    # keeps every token it has; its triggers are made again by SEARCH_SCHEMA
    # with the new columns (an older table made by a step above may already
    # have them).
    for table in ("entries", "revisions"):
        _add_text_columns(conn, table, "context", "observed_at")
    for name in ("entries_search_ai", "entries_search_au", "entries_search_ad"):
        conn.execute(f"DROP TRIGGER IF EXISTS {name}")


def _migrate_10_to_11(conn: apsw.Connection) -> None:
    # Version 11 keeps each active entry's index terms as numbers, per
    # namespace (daemon/retrieval/postings.py): made and filled from the
    # entries by postings.install, at this open. Its triggers call a
    # function only this memoryd registers, so an older one must not open
    # the store (it would refuse every write).
    postings.install(conn)


def _migrate_11_to_12(conn: apsw.Connection) -> None:
    # Version 12 keeps the episode an agent's write belongs to (a keyed hash
    # of its task's id, daemon/retrieval/episodes.py); entries written
    # before hold none and follow nothing. (An entries table made by a step
    # above from ENTRIES_TABLE already has the column.)
    _add_text_columns(conn, "entries", "episode")


def _migrate_12_to_13(conn: apsw.Connection) -> None:
    # Version 13 keys the episode index by namespace too, so a follower's
    # look-up reads nothing of the task's other namespaces, and orders an
    # episode by when its task wrote each entry (``proposed_at``, kept for
    # an entry a later approval applied): the old index goes, and the
    # store's install makes the new one (episodes.FOLLOWERS).
    _add_text_columns(conn, "entries", "proposed_at")
    conn.execute("DROP INDEX IF EXISTS entries_episode")


MIGRATIONS: dict[int, Callable[[apsw.Connection], None]] = {
    1: _migrate_1_to_2, 2: _migrate_2_to_3, 3: _migrate_3_to_4, 4: _migrate_4_to_5,
    5: _migrate_5_to_6, 6: _migrate_6_to_7, 7: _migrate_7_to_8,
    8: _migrate_8_to_9, 9: _migrate_9_to_10, 10: _migrate_10_to_11,
    11: _migrate_11_to_12, 12: _migrate_12_to_13}

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
# Only ``stored_entry`` below makes these columns (daemon/pipeline/entries.py
# writes through ``SqliteTx.stored_entry``); PostgreSQL's table stores every
# value as given.
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
    ELSE nullif(status_text, '') END) VIRTUAL, context TEXT, observed_at TEXT,
  episode TEXT, proposed_at TEXT)"""
# Columns version 7 derives from what it stores (ENTRIES_TABLE).
DERIVED_COLUMNS = ("basis", "updated_at", "renewed_at", "content_hash", "status_at")

# Columns a write may give that ENTRIES_TABLE derives from other columns:
# what ``stored_entry`` needs of the row to store them.
_TIMES = ("created_at", "updated_at", "renewed_at", "status_at")
DERIVING = ("summary", "body", *_TIMES)
_HASH_TEXT = re.compile(re.escape(HASH_PREFIX) + "[0-9a-f]{64}")


def stored_entry(changes: dict[str, Any],
                 current: dict[str, Any] | None = None) -> dict[str, Any]:
    """The columns of ENTRIES_TABLE to write for ``changes`` (columns as
    every reader sees them).

    No value the row derives is stored: it writes ``summary_text`` (NULL
    for a summary equal to the body), ``basis_text`` (NULL for
    DEFAULT_BASIS), ``updated_text``, ``renewed_text`` and ``status_text``
    (NULL for a time equal to the one it follows) and ``content_key`` (a
    ``b3k:`` hash as its 32 bytes), and reads the generated columns.
    ``current`` holds the row's ``DERIVING`` columns, needed when
    ``changes`` sets some of them and not the others."""
    out = dict(changes)
    before = current or {}

    def final(name: str) -> Any:
        return changes[name] if name in changes else before[name]

    if "summary" in changes or "body" in changes:
        summary = out.pop("summary", None) if "summary" in changes else before["summary"]
        out["summary_text"] = None if summary == final("body") else summary
    if "basis" in changes:
        basis = out.pop("basis")
        out["basis_text"] = None if basis == DEFAULT_BASIS else basis
    if "content_hash" in changes:
        out["content_key"] = _hash_key(out.pop("content_hash"))
    if any(name in changes for name in _TIMES):
        for name in _TIMES[1:]:
            out.pop(name, None)
        updated, renewed, status_at = final("updated_at"), final("renewed_at"), final("status_at")
        out["updated_text"] = None if updated == final("created_at") else updated
        out["renewed_text"] = None if renewed == updated else renewed
        out["status_text"] = ("" if status_at is None
                              else None if status_at == updated else status_at)
    return out


def _hash_key(content_hash: Any) -> Any:
    """How ENTRIES_TABLE keeps a content hash: a ``b3k:`` hash of 64 lower-case
    hex digits as its 32 bytes (read back as the same text), anything else as is."""
    if isinstance(content_hash, str) and _HASH_TEXT.fullmatch(content_hash):
        return bytes.fromhex(content_hash[len(HASH_PREFIX):])
    return content_hash
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


# Lexical index (daemon/retrieval/text_index.py) and frozen recall snapshots
# (daemon/retrieval/recall.py).
# The index's rowid is the entry's ``key``. Its body column holds the body,
# the entry's context and its observed time in words (text_index.FTS_BODY).
# The FTS5 table is contentless: tokens only, never a copy of the text. Rows leave it through FTS5's
# 'delete' command with the old text (which the index function re-tokenises
# identically), because only that path honours 'secure-delete'
# (contentless_delete=1 tables keep the deleted tokens behind tombstones). A
# snapshot's header lives in tasks.snapshot and its cards' text in
# snapshot_cards, so removing an entry destroys its text in every snapshot
# holding it (snapshot_cards_removed).
SEARCH_SCHEMA = f"""
{text_index.INDEX_TABLE};
CREATE TABLE IF NOT EXISTS snapshot_cards(
  task_id TEXT NOT NULL, pos INTEGER NOT NULL, entry_id TEXT NOT NULL, card TEXT, line TEXT,
  PRIMARY KEY(task_id, pos));
CREATE INDEX IF NOT EXISTS snapshot_cards_entry ON snapshot_cards(entry_id);
CREATE TRIGGER IF NOT EXISTS entries_search_ai AFTER INSERT ON entries BEGIN
  INSERT INTO entries_fts(rowid, title, summary, body) VALUES (new.key,
    memoryd_fts_text(new.title), memoryd_fts_text(new.summary_text),
    {text_index.FTS_BODY}(new.body, new.context, new.observed_at));
END;
CREATE TRIGGER IF NOT EXISTS entries_search_au
AFTER UPDATE OF title, summary_text, body, context, observed_at ON entries
BEGIN
  INSERT INTO entries_fts(entries_fts, rowid, title, summary, body) VALUES ('delete', old.key,
    memoryd_fts_text(old.title), memoryd_fts_text(old.summary_text),
    {text_index.FTS_BODY}(old.body, old.context, old.observed_at));
  INSERT INTO entries_fts(rowid, title, summary, body) VALUES (new.key,
    memoryd_fts_text(new.title), memoryd_fts_text(new.summary_text),
    {text_index.FTS_BODY}(new.body, new.context, new.observed_at));
END;
CREATE TRIGGER IF NOT EXISTS entries_search_ad AFTER DELETE ON entries BEGIN
  INSERT INTO entries_fts(entries_fts, rowid, title, summary, body) VALUES ('delete', old.key,
    memoryd_fts_text(old.title), memoryd_fts_text(old.summary_text),
    {text_index.FTS_BODY}(old.body, old.context, old.observed_at));
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


def install(conn: apsw.Connection) -> None:
    """Bring ``conn``'s file to SCHEMA_VERSION inside the caller's transaction:
    migrate an older store, or refuse a newer one (StoreVersionError); then
    make every table, index and trigger the current schema holds."""
    _upgrade(conn)
    conn.execute(SCHEMA)
    conn.execute(AUDIT_TABLE)
    columns = {str(r["name"]) for r in conn.execute(
        "PRAGMA table_info(scope_usage)")}  # rows are dicts (the row tracer)
    for column in ("active_docs", "active_chars"):
        if column not in columns:  # a store from before recall's totals
            conn.execute(f"ALTER TABLE scope_usage ADD COLUMN {column}"
                         " INTEGER NOT NULL DEFAULT 0")
    conn.execute(USAGE_TRIGGERS)
    conn.execute(REVISION_TRIGGER)
    counted: list[Any] = conn.execute(
        "SELECT value FROM meta WHERE key = 'usage_counts'").fetchall()
    if counted != [{"value": USAGE_COUNTS}]:  # rows are dicts (the row tracer)
        # A store made before scope_usage existed, or counting less than
        # every stored byte: count what it holds once; the triggers keep
        # the totals from here on.
        conn.execute(RECOUNT_USAGE)
        conn.execute("INSERT OR REPLACE INTO meta(key, value)"
                     " VALUES ('usage_counts', ?)", (USAGE_COUNTS,))
    conn.execute(SEARCH_SCHEMA)
    # Each active entry's index terms as numbers, per namespace: what an
    # owner's ranking reads (daemon/retrieval/postings.py).
    postings.install(conn)
    # A namespace's entries in the order they were written: what recall
    # reads for an entry's follower (daemon/retrieval/episodes.py).
    conn.execute(episodes.FOLLOWERS)
    # The projection outbox (daemon/external/projection_outbox.py): its triggers
    # record desired state in the same transaction as each change.
    conn.execute(projection_outbox.SCHEMA)
    conn.execute(TEAM_SCHEMA)
    conn.execute(extract_queue.SCHEMA)
    vectors.install(conn)
    # secure-delete: removed text must not linger in the index's pages either.
    conn.execute(text_index.INDEX_SETTINGS)
    conn.execute(
        "INSERT OR REPLACE INTO meta(key, value) VALUES ('schema_version', ?)",
        (str(SCHEMA_VERSION),),
    )
