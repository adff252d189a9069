"""Stored embeddings: their table, the queue of entries waiting for one, and
the triggers that keep both in step with ``entries``.

Owns: the ``entry_vectors`` and ``embed_queue`` tables, the triggers that
destroy a vector the moment its entry stops being active or its text
changes, when a queued entry is claimed by one worker at a time (the
claims themselves are the store's: ``Tx.claim_embeds``), and the small
read/write helpers the embedding worker and the hybrid ranker use (the
ranker reads the vectors of a caller's view at each query:
daemon/semantic/hybrid.py). Nothing here needs the ``semantic`` extra: the
schema and its deletion triggers exist in every store, so a store embedded
once keeps destroying vectors on removal even if the extra is later
uninstalled. (The PostgreSQL schema's tables and triggers are in
daemon/storage/pg_schema.py; the statements here run on both.)

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

import base64
import struct
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
CREATE TABLE IF NOT EXISTS vector_packs(
  id INTEGER PRIMARY KEY AUTOINCREMENT, owner TEXT NOT NULL, target TEXT NOT NULL,
  scope TEXT NOT NULL, model TEXT NOT NULL, dim INTEGER NOT NULL, used INTEGER NOT NULL,
  live INTEGER NOT NULL, vids BLOB NOT NULL, scales BLOB NOT NULL, vecs BLOB NOT NULL);
CREATE INDEX IF NOT EXISTS vector_packs_space ON vector_packs(owner, target, scope, model);
"""  # noqa: S608 (built from our own constants only)

# A deleted vector row's slot in its pack is zeroed in the same statement:
# its vid (0: no vector), its scale and its bytes (secure_delete zeroes the
# pages the old pack row held); a pack left without a live slot goes.
PACKED = """
CREATE INDEX IF NOT EXISTS entry_vectors_unpacked ON entry_vectors(vid) WHERE pack IS NULL;
CREATE TRIGGER IF NOT EXISTS entry_vectors_unpack AFTER DELETE ON entry_vectors
WHEN old.pack IS NOT NULL BEGIN
  UPDATE vector_packs SET live = live - 1,
    vids = CAST(substr(vids, 1, old.slot * 8) || zeroblob(8)
                || substr(vids, old.slot * 8 + 9) AS BLOB),
    scales = CAST(substr(scales, 1, old.slot * 4) || zeroblob(4)
                  || substr(scales, old.slot * 4 + 5) AS BLOB),
    vecs = CAST(substr(vecs, 1, old.slot * dim) || zeroblob(dim)
                || substr(vecs, (old.slot + 1) * dim + 1) AS BLOB)
  WHERE id = old.pack;
  DELETE FROM vector_packs WHERE id = old.pack AND live = 0;
END;
"""


def install(conn: apsw.Connection) -> None:
    """Create the tables and triggers (inside the store's opening transaction).

    A store that had entries before vectors existed gets every active entry
    queued once.
    """
    fresh = not list(conn.execute(
        "SELECT 1 FROM sqlite_master WHERE name = 'embed_queue'"))
    conn.execute(SCHEMA)
    columns = {str(r["name"]) for r in conn.execute("PRAGMA table_info(entry_vectors)")}
    if "pack" not in columns:  # a store from before the packs: its vectors are packed at start
        conn.execute("ALTER TABLE entry_vectors ADD COLUMN pack INTEGER")
        conn.execute("ALTER TABLE entry_vectors ADD COLUMN slot INTEGER")
    conn.execute(PACKED)
    if fresh:
        conn.execute("INSERT OR IGNORE INTO embed_queue(entry_id)"  # noqa: S608 (a constant)
                     f" SELECT id FROM entries WHERE status = 'active' AND {EMBEDDING}")


# --- quantisation ---------------------------------------------------------------

# The smallest normal float32: a step below it is zero once stored as float32.
_FLOAT32_TINY = 1.1754943508222875e-38


def scale_of(max_abs: float) -> float:
    """The int8 step for a vector whose largest component is ``max_abs``; a
    vector too small for a float32 step (zero, or subnormal) is all zeros."""
    step = max_abs / 127.0
    return step if step >= _FLOAT32_TINY else 1.0


# --- what the worker reads and writes --------------------------------------------

# The meta row that keeps the hybrid ranker's anchor vectors (hybrid.py
# ``Ranker.prepare``): "KEY\nBASE64" of little-endian float32 rows, KEY naming
# the model and the anchor sentences they were embedded from.
ANCHORS_KEY = "vector_anchors"


def kept_anchors(tx: Tx, key: str) -> bytes | None:
    """The anchor vectors kept for ``key``, or None (none kept, or for another key)."""
    row = tx.one("SELECT value FROM meta WHERE key = ?", (ANCHORS_KEY,))
    if row is None:
        return None
    kept_key, _, blob = str(row["value"]).partition("\n")
    if kept_key != key:
        return None
    try:
        return base64.b64decode(blob, validate=True)
    except ValueError:  # binascii.Error is one
        return None


def keep_anchors(tx: Tx, key: str, data: bytes) -> None:
    """Keep the anchor vectors embedded for ``key``; any kept before are replaced."""
    tx.exec("INSERT INTO meta(key, value) VALUES (?, ?)"
            " ON CONFLICT(key) DO UPDATE SET value = excluded.value",
            (ANCHORS_KEY, key + "\n" + base64.b64encode(data).decode("ascii")))


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
        row = tx.one("INSERT INTO entry_vectors(entry_id, model, dim, scale, vec,"
                     " content_hash) VALUES (?, ?, ?, ?, ?, ?) RETURNING vid",
                     (entry_id, model, dim, scale, blob, content_hash))
        assert row is not None
        space = tx.one("SELECT owner, target, scope FROM entries WHERE id = ?", (entry_id,))
        assert space is not None
        append(tx, space, model, dim, [(int(row["vid"]), scale, blob)])
        tx.exec("DELETE FROM embed_queue WHERE entry_id = ?", (entry_id,))
        stored.append(entry_id)
    for entry_id in drop:
        tx.exec("DELETE FROM embed_queue WHERE entry_id = ? AND NOT EXISTS (SELECT 1"
                " FROM entries WHERE id = ? AND status = 'active')", (entry_id, entry_id))
    return stored


# --- packs: each namespace's vectors, a few hundred to a row, for search ----------

# Vectors per pack row: a search reads one row per PACK vectors of the view
# (a pack of 384-dimension vectors is ~100 KB), and storing one vector
# rewrites at most one pack.
PACK = 256


def _pack_bytes(rows: list[tuple[int, float, bytes]]) -> tuple[bytes, bytes, bytes]:
    vids = b"".join(vid.to_bytes(8, "little") for vid, _, _ in rows)
    scales = b"".join(struct.pack("<f", scale) for _, scale, _ in rows)
    return vids, scales, b"".join(blob for _, _, blob in rows)


def append(tx: Tx, space: dict[str, Any], model: str, dim: int,
           rows: list[tuple[int, float, bytes]], *, fill: bool = True) -> None:
    """Put ``(vid, scale, int8 bytes)`` rows of one namespace into its packs:
    with ``fill``, the newest pack with room first, one at a time (its slot
    is the one the database hands out, so two daemons appending at once
    never share one); the rest in new packs of up to ``PACK``."""
    key = (space["owner"], space["target"], space["scope"], model, dim)
    while rows:
        free = None if not fill else tx.one(
            "SELECT id FROM vector_packs WHERE owner = ? AND target = ? AND scope = ?"
            " AND model = ? AND dim = ? AND used < ? ORDER BY id DESC LIMIT 1", (*key, PACK))
        if free is not None:
            vid = rows[0][0]
            vids, scales, vecs = _pack_bytes([rows[0]])
            # SQLite's || makes text of two blobs: the bytes, cast back.
            put = tx.one("UPDATE vector_packs SET used = used + 1, live = live + 1,"
                         " vids = CAST(vids || ? AS BLOB), scales = CAST(scales || ? AS BLOB),"
                         " vecs = CAST(vecs || ? AS BLOB)"
                         " WHERE id = ? AND used < ? RETURNING used - 1 AS slot",
                         (vids, scales, vecs, free["id"], PACK))
            if put is not None:
                tx.exec("UPDATE entry_vectors SET pack = ?, slot = ? WHERE vid = ?",
                        (free["id"], put["slot"], vid))
                rows = rows[1:]
            continue
        part, rows = rows[:PACK], rows[PACK:]
        vids, scales, vecs = _pack_bytes(part)
        made = tx.one("INSERT INTO vector_packs(owner, target, scope, model, dim, used, live,"
                      " vids, scales, vecs) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id",
                      (*key, len(part), len(part), vids, scales, vecs))
        assert made is not None
        for slot, (vid, _, _) in enumerate(part):
            tx.exec("UPDATE entry_vectors SET pack = ?, slot = ? WHERE vid = ?",
                    (made["id"], slot, vid))


def unpacked(tx: Tx) -> bool:
    """Whether stored vectors wait to be packed (a store from before the packs)."""
    return tx.one("SELECT 1 AS x FROM entry_vectors WHERE pack IS NULL LIMIT 1") is not None


def pack_unpacked(tx: Tx, limit: int = 4_096) -> int:
    """Pack up to ``limit`` stored vectors that are in no pack; how many."""
    # Held by this transaction: another daemon packing at once skips them.
    rows = tx.claimed_rows("SELECT v.vid, v.model, v.dim, v.scale, v.vec, e.owner, e.target,"
                           " e.scope FROM entry_vectors AS v JOIN entries AS e"
                           " ON e.id = v.entry_id WHERE v.pack IS NULL ORDER BY v.vid LIMIT ?",
                           (limit,), of="v")
    groups: dict[tuple[Any, ...], list[tuple[int, float, bytes]]] = {}
    for r in rows:
        key = (r["owner"], r["target"], r["scope"], r["model"], int(r["dim"]))
        groups.setdefault(key, []).append((int(r["vid"]), float(r["scale"]), bytes(r["vec"])))
    for (owner, target, scope, model, dim), part in groups.items():
        append(tx, {"owner": owner, "target": target, "scope": scope}, model, dim, part,
               fill=False)
    return len(rows)


# --- claims: one worker per queued entry on a shared store -------------------------

# How long a claim holds: far more than one batch takes, so a live worker
# never loses its entries; a worker that died mid-batch gives them back then.
LEASE_S = 60.0


def claimable(tx: Tx) -> bool:
    """Whether a queued entry is free for this worker to claim (a read, so an
    idle worker does not take the writer to find out there is nothing)."""
    free = tx.claimable_embeds()
    return backlog(tx) > 0 if free is None else free


def claim(tx: Tx, worker: str, limit: int, lease_s: float = LEASE_S) -> list[dict[str, Any]]:
    """Up to ``limit`` queued entries, with the text to embed, now this worker's.

    On a store one daemon owns (SQLite) that is simply the oldest queued.
    On a shared one (PostgreSQL) the store claims the rows (``Tx.claim_embeds``)
    for ``lease_s`` seconds of the database's clock (hosts' clocks may
    differ): another daemon's worker skips them until the lease ends, so each
    entry is embedded once while its claimer lives. Text changes and
    reactivation clear the claim (the entries trigger), so the new text is
    claimed again.
    """
    claimed = tx.claim_embeds(worker, limit, lease_s)
    return queued(tx, limit) if claimed is None else claimed


def release(tx: Tx, worker: str, entry_ids: list[str]) -> None:
    """Give back claims this worker could not use (its model failed on them)."""
    tx.release_embeds(worker, entry_ids)


def backlog(tx: Tx) -> int:
    row = tx.one("SELECT count(*) AS n FROM embed_queue")
    return int(row["n"]) if row else 0


def owner_backlog(tx: Tx, where: str, args: tuple[Any, ...]) -> int:
    """Queued entries matching the SQL filter ``where`` on ``e`` (one owner's view)."""
    row = tx.one("SELECT count(*) AS n FROM embed_queue AS q JOIN entries AS e"  # noqa: S608 (no client text in SQL)
                 " ON e.id = q.entry_id WHERE " + where, args)
    return int(row["n"]) if row else 0


def owner_count(tx: Tx, owner: str, model: str) -> int:
    """The owner's stored vectors of ``model``.

    Read from the packs' live counts (a few hundred rows at 100,000 vectors,
    kept by the same statements and triggers that fill and empty the slots;
    an entry's owner never changes), plus the vectors not packed yet: what
    counting every vector row against its entry gives, without reading one
    row per vector on each ``memory.status`` (a quarter of a second at
    100,000). ``tests/unit/test_vectors.py`` holds the two equal."""
    packed = tx.one("SELECT coalesce(sum(live), 0) AS n FROM vector_packs"
                    " WHERE owner = ? AND model = ?", (owner, model))
    # From the unpacked vectors' partial index, each one's entry looked up:
    # a join would walk all of the owner's entries instead.
    loose = tx.one("SELECT count(*) AS n FROM entry_vectors AS v WHERE v.pack IS NULL"
                   " AND v.model = ? AND EXISTS (SELECT 1 FROM entries AS e"
                   " WHERE e.id = v.entry_id AND e.owner = ?)", (model, owner))
    return sum(int(row["n"]) for row in (packed, loose) if row is not None)
