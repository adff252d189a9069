"""The PostgreSQL store's schema: its tables, functions and triggers, its version
and the migrations that bring an older schema to it.

Owns: every statement that shapes the store's PostgreSQL schema (the
daemon's own tables and the plpgsql functions and triggers that keep the
search index, usage totals, revisions, snapshot cards and vectors in step
with ``entries``; the postings and the extraction queue hand theirs over),
``SCHEMA_VERSION`` and ``MIGRATIONS``, the schema name's check
(``SCHEMA_NAME``) and how Python booleans are stored (``BoolAsInt``).
daemon/storage/store_pg.py and the store copy (daemon/storage/storecopy.py)
call ``install``, which makes them all in one transaction.

Invariants:
- ``install`` runs in one transaction (a savepoint of the caller's, when it
  holds one) under an advisory lock, so two daemons starting at once install
  once: a schema is brought to ``SCHEMA_VERSION`` whole, or left as it was;
  a version newer than this memoryd's is refused unchanged;
- every statement is idempotent (``IF NOT EXISTS``, ``CREATE OR REPLACE``,
  triggers dropped and made again), so installing over the current schema
  changes nothing;
- the search index, ``scope_usage``, revisions, snapshot cards and vectors
  follow ``entries`` through triggers in the writer's own transaction;
- a schema name reaches SQL only once ``SCHEMA_NAME`` admitted it.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import psycopg
from psycopg.adapt import Dumper
from psycopg.types.numeric import FloatLoader

from memoryd.audit.chain import EMPTY_HEAD
from memoryd.daemon.extraction import extract_queue
from memoryd.daemon.retrieval import episodes, postings
from memoryd.daemon.storage.seam import StoreVersionError, readable_version

# The PostgreSQL schema has its own version line (it is not a copy of the
# SQLite file's history): MIGRATIONS takes a database from its key to the next.
SCHEMA_VERSION = 7

# Text compares byte-wise ("C"), as SQLite's does: listings page in the same
# order on both backends, whatever the database's locale.
_T = 'TEXT COLLATE "C"'

SCHEMA = f"""
CREATE TABLE IF NOT EXISTS meta(key {_T} PRIMARY KEY, value {_T} NOT NULL);
CREATE TABLE IF NOT EXISTS consent(
  owner {_T} PRIMARY KEY, read BIGINT NOT NULL, contribute BIGINT NOT NULL,
  learn_from_tools BIGINT NOT NULL, version BIGINT NOT NULL, updated_at {_T} NOT NULL);
CREATE TABLE IF NOT EXISTS tokens(
  token_id {_T} PRIMARY KEY, token_hash {_T} NOT NULL UNIQUE, owner {_T} NOT NULL,
  kind {_T} NOT NULL, scopes {_T}, created_at {_T} NOT NULL, expires_at {_T},
  revoked_at {_T});
CREATE TABLE IF NOT EXISTS token_labels(token_id {_T} PRIMARY KEY, label {_T} NOT NULL);
CREATE TABLE IF NOT EXISTS tasks(
  task_id {_T} PRIMARY KEY, owner {_T} NOT NULL, peer_uid BIGINT NOT NULL,
  channel {_T} NOT NULL, role {_T} NOT NULL, parent_task {_T}, scopes {_T} NOT NULL,
  user_scope {_T} NOT NULL, consent {_T} NOT NULL, grants {_T} NOT NULL,
  tools_used BIGINT NOT NULL, token_id {_T}, created_at {_T} NOT NULL,
  expires_at {_T} NOT NULL, ended_at {_T}, snapshot {_T});
CREATE INDEX IF NOT EXISTS tasks_owner ON tasks(owner, ended_at);
CREATE INDEX IF NOT EXISTS tasks_begun ON tasks(owner, created_at);
CREATE TABLE IF NOT EXISTS entries(
  id {_T} PRIMARY KEY, owner {_T} NOT NULL, target {_T} NOT NULL, scope {_T} NOT NULL,
  type {_T} NOT NULL, title {_T} NOT NULL, body {_T} NOT NULL, summary {_T} NOT NULL,
  status {_T} NOT NULL, revision BIGINT NOT NULL, source {_T} NOT NULL,
  eligible BIGINT NOT NULL, basis {_T} NOT NULL, validity {_T}, pinned BIGINT NOT NULL,
  created_at {_T} NOT NULL, updated_at {_T} NOT NULL, renewed_at {_T} NOT NULL,
  ttl_days DOUBLE PRECISION NOT NULL, expires_at {_T} NOT NULL,
  use_count BIGINT NOT NULL DEFAULT 0, last_used_at {_T}, superseded_by {_T},
  content_hash {_T} NOT NULL, evidence_hash {_T}, archive_reason {_T}, status_at {_T},
  context {_T}, observed_at {_T}, episode {_T}, proposed_at {_T});
CREATE UNIQUE INDEX IF NOT EXISTS entries_active_title
  ON entries(owner, target, scope, title) WHERE status = 'active';
CREATE INDEX IF NOT EXISTS entries_expiry ON entries(status, expires_at);
-- memory.list pages in (title, id) order; the index holds every column the
-- listing filters on (as daemon/storage/store.py's).
CREATE INDEX IF NOT EXISTS entries_listing
  ON entries(owner, title, id, target, scope, status, expires_at);
-- Active stored bytes per namespace (the scope budget), and the active
-- entries' count and length in characters: BM25's statistics for recall
-- (search.view_stats). memoryd_entries_changed keeps them in step.
CREATE TABLE IF NOT EXISTS scope_usage(
  owner {_T} NOT NULL, target {_T} NOT NULL, scope {_T} NOT NULL,
  active_bytes BIGINT NOT NULL, active_docs BIGINT NOT NULL DEFAULT 0,
  active_chars BIGINT NOT NULL DEFAULT 0, PRIMARY KEY(owner, target, scope));
CREATE TABLE IF NOT EXISTS revisions(
  entry_id {_T} NOT NULL, revision BIGINT NOT NULL, type {_T}, title {_T}, body {_T},
  summary {_T}, basis {_T}, validity {_T}, content_hash {_T} NOT NULL,
  created_at {_T} NOT NULL, context {_T}, observed_at {_T}, PRIMARY KEY(entry_id, revision));
CREATE TABLE IF NOT EXISTS operations(
  operation_id {_T} PRIMARY KEY, owner {_T} NOT NULL, ts {_T} NOT NULL,
  action {_T} NOT NULL, channel {_T} NOT NULL, items {_T} NOT NULL,
  undo_of {_T}, undone_by {_T});
CREATE INDEX IF NOT EXISTS operations_owner ON operations(owner, ts);
CREATE TABLE IF NOT EXISTS actions(
  action_id {_T} PRIMARY KEY, owner {_T} NOT NULL, status {_T} NOT NULL,
  created_at {_T} NOT NULL, expires_at {_T} NOT NULL, decided_at {_T},
  task_id {_T}, channel {_T} NOT NULL, proposal {_T}, proposal_key {_T} NOT NULL,
  resources {_T} NOT NULL, content_hashes {_T} NOT NULL, policy_hash {_T} NOT NULL,
  ops_summary {_T} NOT NULL, entry_ids {_T} NOT NULL, result {_T});
CREATE INDEX IF NOT EXISTS actions_status ON actions(status, expires_at);
CREATE INDEX IF NOT EXISTS actions_owner ON actions(owner, status);
CREATE INDEX IF NOT EXISTS actions_key ON actions(owner, proposal_key, status);
CREATE TABLE IF NOT EXISTS idempotency(
  owner {_T} NOT NULL, key {_T} NOT NULL, request_hash {_T} NOT NULL,
  answer {_T} NOT NULL, created_at {_T} NOT NULL, PRIMARY KEY(owner, key));
CREATE TABLE IF NOT EXISTS receipts(
  receipt_id {_T} PRIMARY KEY, owner {_T} NOT NULL, entry_id {_T} NOT NULL,
  status {_T} NOT NULL, created_at {_T} NOT NULL, updated_at {_T} NOT NULL);
-- One row per event in audit/packing.py's form (the body deflated, the hash
-- as 32 bytes), as daemon/storage/store.py keeps it: readers unpack either the same way.
CREATE TABLE IF NOT EXISTS audit(seq BIGINT PRIMARY KEY, body BYTEA NOT NULL, hash BYTEA NOT NULL);
-- The chain's one head: every write group locks this row first (FOR UPDATE),
-- so daemons on several hosts append one after another, never side by side.
CREATE TABLE IF NOT EXISTS audit_head(
  id BIGINT PRIMARY KEY CHECK (id = 1), seq BIGINT NOT NULL, hash {_T} NOT NULL);
-- Each daemon signs checkpoints with its own key: one row per (seq, key).
CREATE TABLE IF NOT EXISTS checkpoints(
  seq BIGINT NOT NULL, hash {_T} NOT NULL, ts {_T} NOT NULL, signature {_T} NOT NULL,
  public_key {_T} NOT NULL, PRIMARY KEY(seq, public_key));
-- Team scopes (daemon/access/teams.py): which owners share a team:NAME scope, as
-- daemon/storage/sqlite_schema.py's TEAM_SCHEMA.
CREATE TABLE IF NOT EXISTS teams(scope {_T} PRIMARY KEY, created_at {_T} NOT NULL);
CREATE TABLE IF NOT EXISTS team_members(
  scope {_T} NOT NULL REFERENCES teams(scope), member {_T} NOT NULL,
  added_at {_T} NOT NULL, PRIMARY KEY(scope, member));
CREATE INDEX IF NOT EXISTS team_members_member ON team_members(member, scope);
-- Lexical index: one tsvector per entry, never a copy of the text. Without
-- a pending list (fastupdate): with one, every search reads the entries
-- written since the last vacuum in full (INDEX_SETTINGS).
CREATE TABLE IF NOT EXISTS search_index(entry_id {_T} PRIMARY KEY, doc tsvector NOT NULL);
CREATE INDEX IF NOT EXISTS search_index_doc ON search_index USING gin(doc)
  WITH (fastupdate = off);
CREATE TABLE IF NOT EXISTS snapshot_cards(
  task_id {_T} NOT NULL, pos BIGINT NOT NULL, entry_id {_T} NOT NULL, card {_T}, line {_T},
  PRIMARY KEY(task_id, pos));
CREATE INDEX IF NOT EXISTS snapshot_cards_entry ON snapshot_cards(entry_id);
CREATE TABLE IF NOT EXISTS entry_vectors(
  vid BIGSERIAL PRIMARY KEY, entry_id {_T} NOT NULL UNIQUE, model {_T} NOT NULL,
  dim BIGINT NOT NULL, scale DOUBLE PRECISION NOT NULL, vec BYTEA NOT NULL,
  content_hash {_T} NOT NULL);
ALTER TABLE entry_vectors ADD COLUMN IF NOT EXISTS pack BIGINT,
  ADD COLUMN IF NOT EXISTS slot BIGINT;
CREATE INDEX IF NOT EXISTS entry_vectors_unpacked ON entry_vectors(vid) WHERE pack IS NULL;
-- Each namespace's vectors, a few hundred to a row: what a search reads
-- (daemon/semantic/vectors.py, "packs").
CREATE TABLE IF NOT EXISTS vector_packs(
  id BIGSERIAL PRIMARY KEY, owner {_T} NOT NULL, target {_T} NOT NULL, scope {_T} NOT NULL,
  model {_T} NOT NULL, dim BIGINT NOT NULL, used BIGINT NOT NULL, live BIGINT NOT NULL,
  vids BYTEA NOT NULL, scales BYTEA NOT NULL, vecs BYTEA NOT NULL);
CREATE INDEX IF NOT EXISTS vector_packs_space ON vector_packs(owner, target, scope, model);
-- A queued entry is claimed by one daemon's worker for a lease (daemon/semantic/vectors.py).
CREATE TABLE IF NOT EXISTS embed_queue(entry_id {_T} PRIMARY KEY, claimed_by {_T},
  claimed_until TIMESTAMPTZ);
CREATE TABLE IF NOT EXISTS projection_outbox(
  entry_id {_T} PRIMARY KEY, owner {_T} NOT NULL, target {_T} NOT NULL, scope {_T} NOT NULL,
  generation BIGINT NOT NULL, seq BIGINT NOT NULL, state {_T} NOT NULL,
  action {_T}, revision BIGINT, content_hash {_T}, resource {_T}, decided_generation BIGINT,
  decided_under {_T}, acked_generation BIGINT NOT NULL DEFAULT 0,
  projected BIGINT NOT NULL DEFAULT 0, attempts BIGINT NOT NULL DEFAULT 0,
  next_at {_T}, lease_until {_T}, reason {_T}, updated_at {_T} NOT NULL);
CREATE INDEX IF NOT EXISTS projection_outbox_state ON projection_outbox(state, seq);
-- One daemon sends at a time, and approvals are bound to its start
-- (daemon/external/projection_outbox.py).
CREATE TABLE IF NOT EXISTS projection_sender(
  id BIGINT PRIMARY KEY CHECK (id = 1), holder {_T} NOT NULL, epoch {_T} NOT NULL,
  until {_T} NOT NULL);
CREATE TABLE IF NOT EXISTS projection_approvals(
  under {_T} NOT NULL, resource {_T} NOT NULL, PRIMARY KEY(under, resource));
CREATE TABLE IF NOT EXISTS projection_recall(
  id BIGSERIAL PRIMARY KEY, ts {_T} NOT NULL, task_id {_T}, mode {_T} NOT NULL,
  status {_T} NOT NULL, reason {_T}, returned BIGINT NOT NULL, kept BIGINT NOT NULL,
  flagged BIGINT NOT NULL, overlap BIGINT NOT NULL, local BIGINT NOT NULL,
  latency_ms DOUBLE PRECISION NOT NULL);
"""

# CJK runs become their characters plus overlapping bigrams, as
# daemon/retrieval/text_index.py's fts_text does for SQLite, so a Chinese word query finds
# the same entries on both backends. Every run of ASCII punctuation and
# symbols becomes a space, as unicode61 splits text on SQLite: PostgreSQL's
# own parser would keep a path, a URL, a host name, an e-mail address or a
# version whole, and a query word ("syslog", "grafana") could never find it
# (docs/decisions/0493). (A character class such as [:alnum:] would follow
# the columns' "C" collation, in which no letter outside ASCII is one.)
FUNCTIONS = r"""
CREATE OR REPLACE FUNCTION memoryd_fts_text(t text) RETURNS text
LANGUAGE plpgsql IMMUTABLE AS $$
DECLARE
  out text := '';
  piece text;
  i int;
BEGIN
  IF t IS NULL THEN RETURN ''; END IF;
  FOR piece IN SELECT m[1] FROM regexp_matches(t,
      '([\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff]+|'
      '[^\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff]+)', 'g') AS m
  LOOP
    IF piece ~ '^[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff]' THEN
      FOR i IN 1..length(piece) LOOP
        out := out || ' ' || substr(piece, i, 1);
      END LOOP;
      FOR i IN 1..length(piece) - 1 LOOP
        out := out || ' ' || substr(piece, i, 2);
      END LOOP;
      out := out || ' ';
    ELSE
      out := out || regexp_replace(piece, '[][!"#$%&''()*+,./:;<=>?@\\^_`{|}~-]+', ' ', 'g');
    END IF;
  END LOOP;
  RETURN out;
END $$;

CREATE OR REPLACE FUNCTION memoryd_fts_doc(title text, summary text, body text)
RETURNS tsvector LANGUAGE sql IMMUTABLE AS $$
  SELECT to_tsvector('english', memoryd_fts_text(title) || ' ' || memoryd_fts_text(summary)
                     || ' ' || memoryd_fts_text(body))
$$;

-- An entry's observed time in words, as daemon/retrieval/text_index.py's when_words:
-- "Saturday 8 March 2025" for a value starting with that calendar date.
CREATE OR REPLACE FUNCTION memoryd_when_words(observed_at text) RETURNS text
LANGUAGE sql IMMUTABLE AS $$
  SELECT CASE WHEN observed_at ~ '^[0-9]{4}-[0-9]{2}-[0-9]{2}'
    THEN to_char(to_date(left(observed_at, 10), 'YYYY-MM-DD'), 'FMDay FMDD FMMonth YYYY')
    ELSE '' END
$$;

-- The body is indexed with the entry's context and observed time beside it
-- (daemon/retrieval/text_index.py's body_text). Each position carries its
-- column as a weight (title A, summary B, body D): the per-owner postings
-- count a lexeme's positions by column (daemon/retrieval/postings.py).
CREATE OR REPLACE FUNCTION memoryd_fts_doc(title text, summary text, body text, context text,
                                           observed_at text)
RETURNS tsvector LANGUAGE sql IMMUTABLE AS $$
  SELECT setweight(to_tsvector('english', memoryd_fts_text(title)), 'A')
         || setweight(to_tsvector('english', memoryd_fts_text(summary)), 'B')
         || to_tsvector('english', memoryd_fts_text(body) || ' ' || memoryd_fts_text(context)
                        || ' ' || memoryd_when_words(observed_at))
$$;

CREATE OR REPLACE FUNCTION memoryd_stored(e entries) RETURNS bigint
LANGUAGE sql IMMUTABLE AS $$
  SELECT coalesce(octet_length(e.title), 0) + coalesce(octet_length(e.body), 0)
       + coalesce(octet_length(e.summary), 0) + coalesce(octet_length(e.basis), 0)
       + coalesce(octet_length(e.validity), 0) + coalesce(octet_length(e.context), 0)
       + coalesce(octet_length(e.observed_at), 0)
$$;

-- What SQLite's triggers do (daemon/storage/store.py, daemon/semantic/vectors.py), in one
-- function per event, inside the writer's own transaction.
CREATE OR REPLACE FUNCTION memoryd_chars(e entries) RETURNS bigint
LANGUAGE sql IMMUTABLE AS $$
  SELECT length(e.title) + length(e.summary) + length(e.body) + coalesce(length(e.context), 0)
$$;

CREATE OR REPLACE FUNCTION memoryd_entries_changed() RETURNS trigger
LANGUAGE plpgsql AS $$
DECLARE
  -- The change rewrites what an active entry's postings hold (its text,
  -- status or namespace): they are dropped while its old document is
  -- still there, and added again from the new one below.
  moved boolean := TG_OP <> 'UPDATE' OR NEW.status IS DISTINCT FROM OLD.status
    OR NEW.owner IS DISTINCT FROM OLD.owner OR NEW.target IS DISTINCT FROM OLD.target
    OR NEW.scope IS DISTINCT FROM OLD.scope OR NEW.title IS DISTINCT FROM OLD.title
    OR NEW.summary IS DISTINCT FROM OLD.summary OR NEW.body IS DISTINCT FROM OLD.body
    OR NEW.context IS DISTINCT FROM OLD.context
    OR NEW.observed_at IS DISTINCT FROM OLD.observed_at;
  -- The change moves what the namespace's running totals count (as
  -- SQLite's trigger, which fires on these columns only): a use count or a
  -- timestamp alone leaves them as they are.
  sized boolean := moved OR NEW.basis IS DISTINCT FROM OLD.basis
    OR NEW.validity IS DISTINCT FROM OLD.validity;
BEGIN
  IF TG_OP IN ('UPDATE', 'DELETE') AND OLD.status = 'active' AND moved THEN
    PERFORM memoryd_terms_drop(OLD);
  END IF;
  IF TG_OP IN ('UPDATE', 'DELETE') AND OLD.status = 'active' AND sized THEN
    UPDATE scope_usage SET active_bytes = active_bytes - memoryd_stored(OLD),
        active_docs = active_docs - 1, active_chars = active_chars - memoryd_chars(OLD)
      WHERE owner = OLD.owner AND target = OLD.target AND scope = OLD.scope;
  END IF;
  IF TG_OP IN ('INSERT', 'UPDATE') AND NEW.status = 'active' AND sized THEN
    INSERT INTO scope_usage(owner, target, scope, active_bytes, active_docs, active_chars)
      VALUES (NEW.owner, NEW.target, NEW.scope, memoryd_stored(NEW), 1, memoryd_chars(NEW))
      ON CONFLICT(owner, target, scope) DO UPDATE
      SET active_bytes = scope_usage.active_bytes + excluded.active_bytes,
          active_docs = scope_usage.active_docs + 1,
          active_chars = scope_usage.active_chars + excluded.active_chars;
  END IF;
  -- A revision row keeps text an entry no longer holds, for memory.undo of a
  -- replace (daemon/storage/sqlite_schema.py's REVISION_TRIGGER): written when a change
  -- rewrites the content, never for an add, never for a removal.
  IF TG_OP = 'UPDATE' AND NEW.status <> 'removed' AND (
      NEW.type IS DISTINCT FROM OLD.type OR NEW.title IS DISTINCT FROM OLD.title
      OR NEW.body IS DISTINCT FROM OLD.body OR NEW.summary IS DISTINCT FROM OLD.summary
      OR NEW.basis IS DISTINCT FROM OLD.basis OR NEW.validity IS DISTINCT FROM OLD.validity
      OR NEW.context IS DISTINCT FROM OLD.context
      OR NEW.observed_at IS DISTINCT FROM OLD.observed_at) THEN
    INSERT INTO revisions(entry_id, revision, type, title, body, summary, basis, validity,
                          content_hash, created_at, context, observed_at)
      VALUES (OLD.id, OLD.revision, OLD.type, OLD.title, OLD.body, OLD.summary, OLD.basis,
              OLD.validity, OLD.content_hash, OLD.updated_at, OLD.context, OLD.observed_at)
      ON CONFLICT(entry_id, revision) DO UPDATE SET type = excluded.type,
        title = excluded.title, body = excluded.body, summary = excluded.summary,
        basis = excluded.basis, validity = excluded.validity,
        context = excluded.context, observed_at = excluded.observed_at,
        content_hash = excluded.content_hash, created_at = excluded.created_at;
  END IF;
  IF TG_OP = 'DELETE' THEN
    DELETE FROM search_index WHERE entry_id = OLD.id;
    UPDATE snapshot_cards SET card = NULL, line = NULL WHERE entry_id = OLD.id;
    DELETE FROM entry_vectors WHERE entry_id = OLD.id;
    DELETE FROM embed_queue WHERE entry_id = OLD.id;
    RETURN OLD;
  END IF;
  IF TG_OP = 'INSERT' OR NEW.title IS DISTINCT FROM OLD.title
      OR NEW.summary IS DISTINCT FROM OLD.summary OR NEW.body IS DISTINCT FROM OLD.body
      OR NEW.context IS DISTINCT FROM OLD.context
      OR NEW.observed_at IS DISTINCT FROM OLD.observed_at THEN
    INSERT INTO search_index(entry_id, doc)
      VALUES (NEW.id, memoryd_fts_doc(NEW.title, NEW.summary, NEW.body, NEW.context,
                                      NEW.observed_at))
      ON CONFLICT(entry_id) DO UPDATE SET doc = excluded.doc;
  END IF;
  IF NEW.status = 'active' AND moved THEN
    PERFORM memoryd_terms_add(NEW);
  END IF;
  IF TG_OP = 'UPDATE' AND NEW.status = 'removed' AND OLD.status IS DISTINCT FROM 'removed' THEN
    UPDATE snapshot_cards SET card = NULL, line = NULL WHERE entry_id = NEW.id;
  END IF;
  -- A vector lives only as long as the active text it was made from
  -- (daemon/semantic/vectors.py); the content hash counts as text, as SQLite's
  -- trigger fires on every rewrite of the content.
  IF TG_OP = 'UPDATE' AND (NEW.status <> 'active' OR NEW.type IS DISTINCT FROM OLD.type
      OR NEW.title IS DISTINCT FROM OLD.title OR NEW.body IS DISTINCT FROM OLD.body
      OR NEW.content_hash IS DISTINCT FROM OLD.content_hash) THEN
    DELETE FROM entry_vectors WHERE entry_id = OLD.id;
    IF NEW.status <> 'active' THEN
      DELETE FROM embed_queue WHERE entry_id = OLD.id;
    END IF;
  END IF;
  -- An entry that becomes active, or whose text changes while active, waits
  -- for a vector of the text it holds now: a claim taken on older text is void.
  IF NEW.status = 'active' AND (TG_OP = 'INSERT' OR OLD.status IS DISTINCT FROM 'active'
      OR NEW.type IS DISTINCT FROM OLD.type OR NEW.title IS DISTINCT FROM OLD.title
      OR NEW.body IS DISTINCT FROM OLD.body
      OR NEW.content_hash IS DISTINCT FROM OLD.content_hash) THEN
    INSERT INTO embed_queue(entry_id) VALUES (NEW.id)
      ON CONFLICT(entry_id) DO UPDATE SET claimed_by = NULL, claimed_until = NULL;
  END IF;
  RETURN NEW;
END $$;

CREATE OR REPLACE FUNCTION memoryd_tasks_changed() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'DELETE' THEN
    DELETE FROM snapshot_cards WHERE task_id = OLD.task_id;
    RETURN OLD;
  END IF;
  IF NEW.snapshot IS NULL AND OLD.snapshot IS NOT NULL THEN
    DELETE FROM snapshot_cards WHERE task_id = NEW.task_id;
  END IF;
  RETURN NEW;
END $$;

-- The projection outbox's desired state, written in the change's own
-- transaction (daemon/external/projection_outbox.py's SQLite triggers, the same
-- columns): only while meta.projection = 'on'. Write groups take the chain's
-- head lock first, so max(seq) + 1 is never taken twice.
CREATE OR REPLACE FUNCTION memoryd_projection_changed() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  IF NOT EXISTS (SELECT 1 FROM meta WHERE key = 'projection' AND value = 'on') THEN
    RETURN NULL;
  END IF;
  INSERT INTO projection_outbox(entry_id, owner, target, scope, generation, seq, state,
                                updated_at)
  VALUES (NEW.id, NEW.owner, NEW.target, NEW.scope, 1,
          (SELECT coalesce(max(seq), 0) + 1 FROM projection_outbox), 'dirty',
          to_char(clock_timestamp() AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'))
  ON CONFLICT(entry_id) DO UPDATE SET
    generation = projection_outbox.generation + 1, seq = excluded.seq, attempts = 0,
    next_at = NULL,
    state = CASE WHEN projection_outbox.state = 'reconcile' THEN 'reconcile' ELSE 'dirty' END,
    updated_at = excluded.updated_at;
  RETURN NULL;
END $$;
DROP TRIGGER IF EXISTS projection_changed ON entries;
CREATE TRIGGER projection_changed
  AFTER INSERT OR UPDATE OF status, revision, content_hash, eligible ON entries
  FOR EACH ROW EXECUTE FUNCTION memoryd_projection_changed();
DROP TRIGGER IF EXISTS entries_changed ON entries;
CREATE TRIGGER entries_changed AFTER INSERT OR UPDATE OR DELETE ON entries
  FOR EACH ROW EXECUTE FUNCTION memoryd_entries_changed();
DROP TRIGGER IF EXISTS tasks_changed ON tasks;
CREATE TRIGGER tasks_changed AFTER UPDATE OF snapshot OR DELETE ON tasks
  FOR EACH ROW EXECUTE FUNCTION memoryd_tasks_changed();
-- A deleted vector's slot in its pack is zeroed in the same transaction
-- (daemon/semantic/vectors.py, PACKED); a pack without a live slot goes.
CREATE OR REPLACE FUNCTION memoryd_vector_unpacked() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  IF OLD.pack IS NOT NULL THEN
    UPDATE vector_packs SET live = live - 1,
      vids = overlay(vids PLACING '\x0000000000000000'::bytea FROM OLD.slot::int * 8 + 1 FOR 8),
      scales = overlay(scales PLACING '\x00000000'::bytea FROM OLD.slot::int * 4 + 1 FOR 4),
      vecs = overlay(vecs PLACING decode(repeat('00', dim::int), 'hex')
                     FROM OLD.slot::int * dim::int + 1 FOR dim::int)
    WHERE id = OLD.pack;
    DELETE FROM vector_packs WHERE id = OLD.pack AND live = 0;
  END IF;
  RETURN OLD;
END $$;
DROP TRIGGER IF EXISTS vectors_unpacked ON entry_vectors;
CREATE TRIGGER vectors_unpacked AFTER DELETE ON entry_vectors
  FOR EACH ROW EXECUTE FUNCTION memoryd_vector_unpacked();
-- Vectors are searched in the store at each query (docs/decisions/0410): the
-- change feed each daemon's in-memory copy followed is gone where it was.
DROP TRIGGER IF EXISTS vectors_changed ON entry_vectors;
DROP FUNCTION IF EXISTS memoryd_vectors_changed();
DROP TABLE IF EXISTS vector_feed;
DELETE FROM meta WHERE key = 'vector_feed_pruned';
"""


def _migrate_1_to_2(conn: psycopg.Connection[Any]) -> None:
    """Version 2: hybrid recall on PostgreSQL (docs/decisions/0037).

    The queue gets its claim columns (FUNCTIONS then makes the triggers that
    queue entries). Version 1 never queued an entry, its recall being
    lexical: every active entry is queued now, in the same transaction as the
    rest of the migration."""
    conn.execute(f"ALTER TABLE embed_queue ADD COLUMN IF NOT EXISTS claimed_by {_T},"
                 " ADD COLUMN IF NOT EXISTS claimed_until TIMESTAMPTZ")
    conn.execute("INSERT INTO embed_queue(entry_id) SELECT id FROM entries"
                 " WHERE status = 'active' ON CONFLICT DO NOTHING")


def _migrate_2_to_3(conn: psycopg.Connection[Any]) -> None:
    """Version 3: an entry's context and observed time (daemon/storage/store.py's
    version 10). Existing rows hold neither, so their index documents stay
    as they are; FUNCTIONS indexes and counts the new columns from here on."""
    for table in ("entries", "revisions"):
        conn.execute(f"ALTER TABLE {table} ADD COLUMN IF NOT EXISTS context {_T},"
                     f" ADD COLUMN IF NOT EXISTS observed_at {_T}")


def _migrate_3_to_4(conn: psycopg.Connection[Any]) -> None:
    """Version 4: each owner's postings (daemon/retrieval/postings.py,
    docs/decisions/0460). Nothing to alter: ``install`` makes the tables
    and, for a store that had none, writes every index document again with
    its columns' weights and fills the postings from them, once the
    functions they need are made. An older memoryd refuses the store: its
    functions would stop keeping the postings."""
    del conn


def _migrate_4_to_5(conn: psycopg.Connection[Any]) -> None:
    """Version 5: the index text is split into words as unicode61 splits it
    (``memoryd_fts_text``, docs/decisions/0493). Every index document is
    written again, and the postings taken from them: the postings table is
    dropped here, so ``install`` makes it anew and fills it, once the new
    functions are made, as it does for a store that never had one."""
    conn.execute("DROP TABLE IF EXISTS entry_terms")


def _migrate_5_to_6(conn: psycopg.Connection[Any]) -> None:
    """Version 6: the episode an agent's write belongs to (SQLite's version
    12, daemon/retrieval/episodes.py); entries written before hold none."""
    conn.execute(f"ALTER TABLE entries ADD COLUMN IF NOT EXISTS episode {_T}")


def _migrate_6_to_7(conn: psycopg.Connection[Any]) -> None:
    """Version 7: the episode index keyed by namespace too, and ordered by
    when the task wrote each entry (SQLite's version 13); the install makes
    it anew."""
    conn.execute(f"ALTER TABLE entries ADD COLUMN IF NOT EXISTS proposed_at {_T}")
    conn.execute("DROP INDEX IF EXISTS entries_episode")


MIGRATIONS: dict[int, Callable[[psycopg.Connection[Any]], None]] = {
    1: _migrate_1_to_2, 2: _migrate_2_to_3, 3: _migrate_3_to_4, 4: _migrate_4_to_5,
    5: _migrate_5_to_6, 6: _migrate_6_to_7}


class BoolAsInt(Dumper):
    """Python booleans land in the integer flag columns, as they do in SQLite."""

    oid = psycopg.adapters.types["int8"].oid

    def dump(self, obj: Any) -> bytes:
        return b"1" if obj else b"0"


SCHEMA_NAME = re.compile(r"^[a-z_][a-z0-9_]{0,62}$")


def install(conn: psycopg.Connection[Any], schema: str) -> None:
    """Create or migrate ``schema`` in one transaction, or refuse a newer one.

    Inside a transaction the caller holds, this is a savepoint of it: the
    store copy (daemon/storage/storecopy.py) makes the schema and fills it in one."""
    if not SCHEMA_NAME.match(schema):
        raise StoreVersionError("[store] schema must be a lower-case SQL name")
    conn.adapters.register_dumper(bool, BoolAsInt)
    conn.adapters.register_loader("numeric", FloatLoader)
    with conn.transaction():
        # Two daemons starting at once: one installs, the other waits and sees it.
        conn.execute("SELECT pg_advisory_xact_lock(hashtext('memoryd_schema'))")
        conn.execute(f'CREATE SCHEMA IF NOT EXISTS "{schema}"')  # validated above
        conn.execute(f'SET LOCAL search_path TO "{schema}"')
        present = conn.execute(
            "SELECT 1 FROM pg_tables WHERE schemaname = %s AND tablename = 'meta'",
            (schema,)).fetchone()
        if present:
            row = conn.execute(
                "SELECT value FROM meta WHERE key = 'schema_version'").fetchone()
            version = readable_version(
                str(row["value"]) if row else "", SCHEMA_VERSION, "the PostgreSQL schema",
                "it was not written by memoryd; point [store] schema at an empty one")
            while version < SCHEMA_VERSION:
                MIGRATIONS[version](conn)
                version += 1
        unfilled = conn.execute(
            "SELECT 1 FROM pg_tables WHERE schemaname = %s AND tablename = 'entry_terms'",
            (schema,)).fetchone() is None
        conn.execute(SCHEMA)
        conn.execute(postings.PG_SCHEMA)
        conn.execute(episodes.FOLLOWERS)
        conn.execute(INDEX_SETTINGS)
        # The extraction queue (daemon/extraction/extract_queue.py): new tables only.
        conn.execute(extract_queue.SCHEMA)
        conn.execute(FUNCTIONS)
        conn.execute(postings.PG_FUNCTIONS)
        if unfilled:
            # Each owner's postings, from every active entry (none in a new schema).
            conn.execute(postings.PG_FILL)
        conn.execute("INSERT INTO audit_head(id, seq, hash) VALUES (1, %s, %s)"
                     " ON CONFLICT(id) DO NOTHING", (EMPTY_HEAD.seq, EMPTY_HEAD.hash))
        conn.execute("INSERT INTO meta(key, value) VALUES ('schema_version', %s)"
                     " ON CONFLICT(key) DO UPDATE SET value = excluded.value",
                     (str(SCHEMA_VERSION),))


# An index made with a pending list (before it was turned off) loses it:
# what it holds moves into the index, and later writes go there directly.
# Each search's plan probes every query term; a pending list of a few
# thousand entries made a probe of a rare term scan all of them (13 ms at
# 10k fresh entries against 0.2 ms once moved; docs/recall.md).
INDEX_SETTINGS = """
ALTER INDEX search_index_doc SET (fastupdate = off);
SELECT gin_clean_pending_list('search_index_doc'::regclass);
"""
