"""Stored embeddings: their table, the queue of entries waiting for one, and
the triggers that keep both in step with ``entries``.

Owns: the ``entry_vectors`` and ``embed_queue`` tables, the triggers that
destroy a vector the moment its entry stops being active or its text
changes, the claims that give each queued entry to one worker at a time,
and the small read/write helpers the embedding worker and the hybrid ranker
use (the ranker reads the vectors of a caller's view at each query:
daemon/semantic/hybrid.py). Nothing
here needs the ``semantic`` extra: the schema and its deletion triggers
exist in every store, so a store embedded once keeps destroying vectors on
removal even if the extra is later uninstalled. (The PostgreSQL schema's
tables and triggers are in daemon/storage/store_pg.py; the statements here run on
both.)

Invariants:
- a vector exists only for an ``active`` entry, computed from the text the
  entry holds now (``content_hash`` is checked when it is stored); archive,
  supersede, expiry, removal, purge and any text change delete it in the
  writer's own transaction (with ``secure_delete`` on, its bytes are zeroed);
- pending proposals are never embedded: only entries are, so a denied or
  expired proposal never had a vector;
- the queue and the vectors hold ids, hashes and numbers, never text;
- vectors are int8 with one float scale each (``quantise``), tagged with the
  model id that made them; only the current model's vectors are ranked;
- on a shared store (PostgreSQL) a queued entry is claimed by one worker
  for a lease, so two daemons do not embed it twice.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import apsw

if TYPE_CHECKING:
    from memoryd.daemon.storage.txn import Tx

# Entries are queued for embedding once a model has embedded in this store
# (``requeue_for_model`` records it in meta, and queues every active entry
# without its vector then): a store that never embeds keeps no queue.
EMBEDDING = "EXISTS (SELECT 1 FROM meta WHERE key = 'vector_model')"
SCHEMA = f"""
CREATE TABLE IF NOT EXISTS entry_vectors(
  vid INTEGER PRIMARY KEY AUTOINCREMENT, entry_id TEXT NOT NULL UNIQUE, model TEXT NOT NULL,
  dim INTEGER NOT NULL, scale REAL NOT NULL, vec BLOB NOT NULL, content_hash TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS embed_queue(entry_id TEXT PRIMARY KEY) WITHOUT ROWID;
CREATE TRIGGER IF NOT EXISTS entries_vec_ai AFTER INSERT ON entries
WHEN new.status = 'active' AND {EMBEDDING} BEGIN
  INSERT OR IGNORE INTO embed_queue(entry_id) VALUES (new.id);
END;
CREATE TRIGGER IF NOT EXISTS entries_vec_text AFTER UPDATE OF type, title, body ON entries
BEGIN
  DELETE FROM entry_vectors WHERE entry_id = old.id;
  INSERT OR IGNORE INTO embed_queue(entry_id) SELECT new.id
    WHERE new.status = 'active' AND {EMBEDDING};
END;
CREATE TRIGGER IF NOT EXISTS entries_vec_status AFTER UPDATE OF status ON entries
WHEN new.status IS NOT old.status BEGIN
  DELETE FROM entry_vectors WHERE entry_id = old.id AND new.status != 'active';
  DELETE FROM embed_queue WHERE entry_id = old.id AND new.status != 'active';
  INSERT OR IGNORE INTO embed_queue(entry_id) SELECT new.id
    WHERE new.status = 'active' AND {EMBEDDING};
END;
CREATE TRIGGER IF NOT EXISTS entries_vec_ad AFTER DELETE ON entries BEGIN
  DELETE FROM entry_vectors WHERE entry_id = old.id;
  DELETE FROM embed_queue WHERE entry_id = old.id;
END;
"""  # noqa: S608 (built from our own constants only)


def install(conn: apsw.Connection) -> None:
    """Create the tables and triggers (inside the store's opening transaction).

    A store that had entries before vectors existed gets every active entry
    queued once.
    """
    fresh = not list(conn.execute(
        "SELECT 1 FROM sqlite_master WHERE name = 'embed_queue'"))
    conn.execute(SCHEMA)
    if fresh:
        conn.execute("INSERT OR IGNORE INTO embed_queue(entry_id)"  # noqa: S608 (a constant)
                     f" SELECT id FROM entries WHERE status = 'active' AND {EMBEDDING}")


# --- quantisation ---------------------------------------------------------------

def scale_of(max_abs: float) -> float:
    """The int8 step for a vector whose largest component is ``max_abs``."""
    return max_abs / 127.0 if max_abs > 0 else 1.0


# --- what the worker reads and writes --------------------------------------------

def requeue_for_model(tx: Tx, model: str) -> int:
    """Queue every active entry without a vector of ``model``; once per model
    change. Recording the model is what turns queueing on (``EMBEDDING``)."""
    row = tx.one("SELECT value FROM meta WHERE key = 'vector_model'")
    if row is not None and row["value"] == model:
        return 0
    n = tx.exec("INSERT OR IGNORE INTO embed_queue(entry_id) SELECT e.id FROM entries AS e"
                " WHERE e.status = 'active' AND NOT EXISTS (SELECT 1 FROM entry_vectors AS v"
                " WHERE v.entry_id = e.id AND v.model = ?)", (model,))
    tx.exec("INSERT INTO meta(key, value) VALUES ('vector_model', ?)"
            " ON CONFLICT(key) DO UPDATE SET value = excluded.value", (model,))
    return n


def queued(tx: Tx, limit: int) -> list[dict[str, Any]]:
    """Up to ``limit`` queued entries with the text to embed, oldest id first."""
    return tx.all(
        "SELECT q.entry_id AS id, e.title, e.body, e.content_hash, e.status"
        " FROM embed_queue AS q LEFT JOIN entries AS e ON e.id = q.entry_id"
        " ORDER BY q.entry_id LIMIT ?", (limit,))


def store_vectors(tx: Tx, model: str, dim: int, items: list[tuple[str, str, float, bytes]],
                  drop: list[str]) -> list[str]:
    """Store ``(entry_id, content_hash, scale, int8 bytes)``; the ids actually stored.

    A vector is kept only if its entry is still active with the same content
    hash (the text it was computed from); otherwise it is dropped, and the
    entry stays queued if it still needs one. ``drop`` are queued ids whose
    entry is no longer active: they need nothing.
    """
    stored: list[str] = []
    for entry_id, content_hash, scale, blob in items:
        current = tx.one("SELECT 1 AS ok FROM entries WHERE id = ? AND status = 'active'"
                         " AND content_hash = ?", (entry_id, content_hash))
        if current is None:
            continue
        # Delete, then insert: the old row's bytes are zeroed like any
        # other deleted row's.
        tx.exec("DELETE FROM entry_vectors WHERE entry_id = ?", (entry_id,))
        tx.exec("INSERT INTO entry_vectors(entry_id, model, dim, scale, vec,"
                " content_hash) VALUES (?, ?, ?, ?, ?, ?)",
                (entry_id, model, dim, scale, blob, content_hash))
        tx.exec("DELETE FROM embed_queue WHERE entry_id = ?", (entry_id,))
        stored.append(entry_id)
    for entry_id in drop:
        tx.exec("DELETE FROM embed_queue WHERE entry_id = ? AND NOT EXISTS (SELECT 1"
                " FROM entries WHERE id = ? AND status = 'active')", (entry_id, entry_id))
    return stored


# --- claims: one worker per queued entry on a shared store -------------------------

# How long a claim holds: far more than one batch takes, so a live worker
# never loses its entries; a worker that died mid-batch gives them back then.
LEASE_S = 60.0


def claimable(tx: Tx) -> bool:
    """Whether a queued entry is free for this worker to claim (a read, so an
    idle worker does not take the writer to find out there is nothing)."""
    if tx.dialect != "postgresql":
        return backlog(tx) > 0
    row = tx.one("SELECT EXISTS (SELECT 1 FROM embed_queue WHERE claimed_until IS NULL"
                 " OR claimed_until < statement_timestamp()) AS free")
    return bool(row and row["free"])


def claim(tx: Tx, worker: str, limit: int, lease_s: float = LEASE_S) -> list[dict[str, Any]]:
    """Up to ``limit`` queued entries, with the text to embed, now this worker's.

    On a store one daemon owns (SQLite) that is simply the oldest queued.
    On a shared one (PostgreSQL) the rows are claimed for ``lease_s``
    seconds of the database's clock (hosts' clocks may differ): another
    daemon's worker skips them until the lease ends, so each entry is
    embedded once while its claimer lives. Text changes and reactivation
    clear the claim (the entries trigger), so the new text is claimed again.
    """
    if tx.dialect != "postgresql":
        return queued(tx, limit)
    return tx.all(
        "WITH picked AS (SELECT entry_id FROM embed_queue WHERE claimed_until IS NULL"
        " OR claimed_until < statement_timestamp() ORDER BY entry_id LIMIT ?"
        " FOR UPDATE SKIP LOCKED),"
        " claimed AS (UPDATE embed_queue AS q SET claimed_by = ?,"
        " claimed_until = statement_timestamp() + make_interval(secs => ?)"
        " FROM picked WHERE q.entry_id = picked.entry_id RETURNING q.entry_id)"
        " SELECT c.entry_id AS id, e.title, e.body, e.content_hash, e.status"
        " FROM claimed AS c LEFT JOIN entries AS e ON e.id = c.entry_id ORDER BY c.entry_id",
        (limit, worker, float(lease_s)))


def release(tx: Tx, worker: str, entry_ids: list[str]) -> None:
    """Give back claims this worker could not use (its model failed on them)."""
    if tx.dialect != "postgresql" or not entry_ids:
        return
    marks = ",".join("?" * len(entry_ids))
    tx.exec("UPDATE embed_queue SET claimed_by = NULL, claimed_until = NULL"  # noqa: S608 (placeholders only)
            f" WHERE claimed_by = ? AND entry_id IN ({marks})", (worker, *entry_ids))


def backlog(tx: Tx) -> int:
    row = tx.one("SELECT count(*) AS n FROM embed_queue")
    return int(row["n"]) if row else 0


def owner_backlog(tx: Tx, where: str, args: tuple[Any, ...]) -> int:
    """Queued entries matching the SQL filter ``where`` on ``e`` (one owner's view)."""
    row = tx.one("SELECT count(*) AS n FROM embed_queue AS q JOIN entries AS e"  # noqa: S608 (no client text in SQL)
                 " ON e.id = q.entry_id WHERE " + where, args)
    return int(row["n"]) if row else 0


def owner_count(tx: Tx, owner: str, model: str) -> int:
    """The owner's stored vectors of ``model``."""
    row = tx.one("SELECT count(*) AS n FROM entry_vectors AS v JOIN entries AS e"
                 " ON e.id = v.entry_id WHERE e.owner = ? AND v.model = ?", (owner, model))
    return int(row["n"]) if row else 0
