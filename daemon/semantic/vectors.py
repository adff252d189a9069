"""Stored embeddings: their table, the queue of entries waiting for one, and
the triggers that keep both in step with ``entries``.

Owns: the ``entry_vectors`` and ``embed_queue`` tables, the triggers that
destroy a vector the moment its entry stops being active or its text
changes, how committed deletions reach the in-memory index (``Changes`` on
SQLite, the ``vector_feed`` on a database several daemons share), the
claims that give each queued entry to one worker at a time, and the small
read/write helpers the embedding worker and the hybrid ranker use. Nothing
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
- a vector row is known by its ``vid``, never reused, so a reader can tell
  the row it holds from the one that replaced it;
- on a shared store (PostgreSQL) every vector row written or deleted is one
  ``vector_feed`` row, numbered in commit order: each daemon's index follows
  the others' changes from it, and one that fell behind the pruned part of
  the feed loads every vector again; a queued entry is claimed by one
  worker for a lease, so two daemons do not embed it twice.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
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


class Changes:
    """Vector rows the writer deleted, told to the in-memory index once they commit.

    The writer connection's update hook (``register``) notes every deleted
    ``entry_vectors`` row by its ``vid`` (AUTOINCREMENT: never reused). The
    store settles them after each transaction: on COMMIT they go to the
    listeners (the index drops them), on rollback they are discarded. A
    savepoint rolled back inside a committed group may report a deletion
    that did not happen; the index re-reads such entries from the store
    (``hybrid.Index`` suspects), so the store stays the truth.
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._pending: list[int] = []
        self._listeners: list[Callable[[list[int]], None]] = []

    def subscribe(self, on_gone: Callable[[list[int]], None]) -> None:
        with self._lock:
            self._listeners.append(on_gone)

    def deleted(self, vid: int) -> None:
        with self._lock:
            self._pending.append(vid)

    def settle(self, *, committed: bool) -> None:
        with self._lock:
            gone, self._pending = self._pending, []
            listeners = list(self._listeners)
        if committed and gone:
            for listener in listeners:
                listener(gone)


# The writer connection's watch on deleted vector rows: a TEMP trigger (the
# connection's own, never stored in the file) calling back into Python for
# those rows only. An update hook was told of every row change of every
# table (about eight a write, each a Python call) to find these.
_DELETED_FUNCTION = "memoryd_vector_deleted"
_WATCH = (f"CREATE TEMP TRIGGER IF NOT EXISTS memoryd_vector_deleted AFTER DELETE"
          f" ON main.entry_vectors BEGIN SELECT {_DELETED_FUNCTION}(old.vid); END")


def register(conn: apsw.Connection, changes: Changes) -> None:
    """Watch ``conn`` for deleted vector rows (the writer's connection is the
    one that deletes), once its schema holds ``entry_vectors`` (``install``).

    A TEMP trigger belongs to the connection: it fires for every deletion this
    connection makes (a cascade or a trigger's too) and for none of another's."""

    def deleted(*args: Any) -> None:
        changes.deleted(int(args[0]))  # old.vid: an INTEGER PRIMARY KEY

    conn.create_scalar_function(_DELETED_FUNCTION, deleted, 1)
    conn.execute(_WATCH)


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
        # Delete, then insert: the old row's deletion is reported like any
        # other (a REPLACE would delete it silently).
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


# --- the change feed: how a daemon follows vectors other daemons change ------------

# Feed rows read per round, and kept once every daemon could have read them:
# a daemon further behind than KEEP_FEED rows loads every vector again.
FEED_PAGE = 2_000
KEEP_FEED = 100_000


def feed_head(tx: Tx) -> int:
    """The newest feed row: where a daemon that just loaded every vector follows on from.

    Read before the vectors themselves, so a change committed between the
    two reads is in both (following it again changes nothing)."""
    row = tx.one("SELECT coalesce(max(seq), 0) AS seq FROM vector_feed")
    return int(row["seq"]) if row else 0


def feed_since(tx: Tx, after: int, limit: int = FEED_PAGE) -> tuple[list[dict[str, Any]], int]:
    """Feed rows after ``after`` (oldest first), and the newest seq pruned.

    The rows are read first: a prune committed between the two reads then
    shows in the second, and the caller loads everything again rather than
    miss the rows it removed. Rows arrive in commit order: every write of a
    vector holds the audit chain's head lock (store_pg's triggers)."""
    rows = tx.all("SELECT seq, vid, entry_id, op FROM vector_feed WHERE seq > ?"
                  " ORDER BY seq LIMIT ?", (after, limit))
    pruned = tx.one("SELECT value FROM meta WHERE key = 'vector_feed_pruned'")
    return rows, int(pruned["value"]) if pruned else 0


def prune_feed(tx: Tx, keep: int = KEEP_FEED) -> int:
    """Drop feed rows older than the newest ``keep``; the rows dropped."""
    head = feed_head(tx)
    upto = head - keep
    row = tx.one("SELECT value FROM meta WHERE key = 'vector_feed_pruned'")
    if upto <= (int(row["value"]) if row else 0):
        return 0
    n = tx.exec("DELETE FROM vector_feed WHERE seq <= ?", (upto,))
    tx.exec("INSERT INTO meta(key, value) VALUES ('vector_feed_pruned', ?)"
            " ON CONFLICT(key) DO UPDATE SET value = excluded.value", (str(upto),))
    return n


def backlog(tx: Tx) -> int:
    row = tx.one("SELECT count(*) AS n FROM embed_queue")
    return int(row["n"]) if row else 0


def owner_backlog(tx: Tx, where: str, args: tuple[Any, ...]) -> int:
    """Queued entries matching the SQL filter ``where`` on ``e`` (one owner's view)."""
    row = tx.one("SELECT count(*) AS n FROM embed_queue AS q JOIN entries AS e"  # noqa: S608 (no client text in SQL)
                 " ON e.id = q.entry_id WHERE " + where, args)
    return int(row["n"]) if row else 0


def load_rows(tx: Tx, model: str, ids: list[str] | None = None) -> list[dict[str, Any]]:
    """Stored vectors of ``model`` with their entry's owner and namespace."""
    sql = ("SELECT v.vid, v.entry_id, v.scale, v.vec, e.owner, e.target, e.scope FROM entry_vectors"
           " AS v JOIN entries AS e ON e.id = v.entry_id WHERE v.model = ?"
           " AND e.status = 'active'")
    if ids is None:
        return tx.all(sql, (model,))
    marks = ",".join("?" * len(ids))
    return tx.all(sql + f" AND v.entry_id IN ({marks})", (model, *ids))
