"""The projection outbox: durable desired state of every projected document.

Owns: the outbox and recall-evaluation tables, the SQL triggers that record a
new desired generation in the same transaction as every change to an entry,
and the state transitions of one outbox row (functions over an open ``Tx``).

States: ``dirty`` (changed, not yet decided) -> ``blocked`` (a decision is not
allow, or the daemon restarted) | ``pending`` (both decisions allow; waiting
for its turn or its backoff) -> ``processing`` (leased to the sender) ->
``completed`` | ``pending`` again (transport error, with backoff) | ``failed``
(contract or authentication error, or attempts exhausted) | ``reconcile``
(ambiguous outcome: fenced until a reseed).

Invariants:
- the row for an entry is written by triggers on ``entries`` in the writer's
  own transaction, so there is never a committed change without its desired
  generation, whichever path made it (write, approval, undo, expiry, purge);
  the triggers act only while ``meta.projection = 'on'``;
- ``generation`` only grows; a sender settles a row only if the generation it
  leased is still the row's (a newer change re-dirties it, and the newer one
  is what gets sent next: the newest desired generation wins);
- a row in ``reconcile`` stays there whatever changes, until a reseed;
- the outbox holds ids, revisions, hashes and states: never memory text; the
  payload is read from the entry itself when it is sent;
- ``projected`` is 1 from the moment a replace may have reached the provider
  until a delete of the document is acknowledged (receipts read it);
- one daemon sends at a time: the holder of the sender lease
  (``projection_sender``), which it renews every pass and which ends when it
  is not renewed (its daemon died or hung). Its ``epoch`` is the holder's
  start, and every decision and operator approval is bound to it, so a new
  sender, or the sender's restart, voids them all (``projection_approvals``
  is emptied whenever the epoch changes). On SQLite the one daemon of the
  file takes it at start; on PostgreSQL the daemons sharing the database
  take turns.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Final

if TYPE_CHECKING:
    from memoryd.daemon.storage.txn import Tx

STATES: Final = ("dirty", "blocked", "pending", "processing", "completed", "failed",
                 "reconcile")

_UPSERT = """
  INSERT INTO projection_outbox(entry_id, owner, target, scope, generation, seq, state,
                                updated_at)
  VALUES (new.id, new.owner, new.target, new.scope, 1,
          (SELECT coalesce(max(seq), 0) + 1 FROM projection_outbox), 'dirty',
          strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))
  ON CONFLICT(entry_id) DO UPDATE SET
    generation = generation + 1, seq = excluded.seq, attempts = 0, next_at = NULL,
    state = CASE WHEN state = 'reconcile' THEN 'reconcile' ELSE 'dirty' END,
    updated_at = excluded.updated_at;
"""

# A constant: only the trigger body above is formatted in, no value.
SCHEMA = f"""
CREATE TABLE IF NOT EXISTS projection_outbox(
  entry_id TEXT PRIMARY KEY, owner TEXT NOT NULL, target TEXT NOT NULL, scope TEXT NOT NULL,
  generation INTEGER NOT NULL, seq INTEGER NOT NULL, state TEXT NOT NULL,
  action TEXT, revision INTEGER, content_hash TEXT, resource TEXT, decided_generation INTEGER,
  decided_under TEXT, acked_generation INTEGER NOT NULL DEFAULT 0,
  projected INTEGER NOT NULL DEFAULT 0, attempts INTEGER NOT NULL DEFAULT 0,
  next_at TEXT, lease_until TEXT, reason TEXT, updated_at TEXT NOT NULL);
CREATE INDEX IF NOT EXISTS projection_outbox_state ON projection_outbox(state, seq);
CREATE TABLE IF NOT EXISTS projection_recall(
  id INTEGER PRIMARY KEY, ts TEXT NOT NULL, task_id TEXT, mode TEXT NOT NULL,
  status TEXT NOT NULL, reason TEXT, returned INTEGER NOT NULL, kept INTEGER NOT NULL,
  flagged INTEGER NOT NULL, overlap INTEGER NOT NULL, local INTEGER NOT NULL,
  latency_ms REAL NOT NULL);
CREATE TABLE IF NOT EXISTS projection_sender(
  id INTEGER PRIMARY KEY CHECK (id = 1), holder TEXT NOT NULL, epoch TEXT NOT NULL,
  until TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS projection_approvals(
  under TEXT NOT NULL, resource TEXT NOT NULL, PRIMARY KEY(under, resource));
CREATE TRIGGER IF NOT EXISTS projection_outbox_ai AFTER INSERT ON entries
WHEN EXISTS (SELECT 1 FROM meta WHERE key = 'projection' AND value = 'on') BEGIN
{_UPSERT}
END;
-- content_key: the stored hash (entries.content_hash is generated from it).
CREATE TRIGGER IF NOT EXISTS projection_outbox_au
AFTER UPDATE OF status, revision, content_key, eligible ON entries
WHEN EXISTS (SELECT 1 FROM meta WHERE key = 'projection' AND value = 'on') BEGIN
{_UPSERT}
END;
"""  # noqa: S608 (constant text, see above)


def set_enabled(tx: Tx, on: bool) -> None:
    if on:
        tx.exec("INSERT OR REPLACE INTO meta(key, value) VALUES ('projection', 'on')")
    else:
        tx.exec("DELETE FROM meta WHERE key = 'projection'")


def counts(tx: Tx) -> dict[str, int]:
    out = dict.fromkeys(STATES, 0)
    for row in tx.all("SELECT state, count(*) AS n FROM projection_outbox GROUP BY state"):
        out[row["state"]] = row["n"]
    return out


def holds_remote(tx: Tx, entry_id: str) -> bool:
    """Whether the provider may still hold a document for this entry."""
    row = tx.one("SELECT projected FROM projection_outbox WHERE entry_id = ?", (entry_id,))
    return bool(row and row["projected"])


def restart(tx: Tx, now: str) -> dict[str, int]:
    """At start-up: every open item returns to ``blocked`` and is decided again;
    changes made while projection was off are picked up from the entries."""
    reblocked = tx.exec(
        "UPDATE projection_outbox SET state = 'blocked', decided_under = NULL, lease_until = NULL,"
        " updated_at = ? WHERE state IN ('dirty', 'blocked', 'pending', 'processing')", (now,))
    # Entries that changed while projection was off (their triggers were idle).
    stale = tx.exec(
        "UPDATE projection_outbox SET generation = generation + 1, state = 'blocked',"
        " decided_under = NULL, updated_at = ? WHERE state IN ('completed', 'failed')"
        " AND (SELECT e.revision FROM entries e WHERE e.id = entry_id) IS DISTINCT FROM revision",
        (now,))
    seeded = _seed_missing(tx, now, "blocked")
    return {"reblocked": reblocked, "stale": stale, "seeded": seeded}


def _seed_missing(tx: Tx, now: str, state: str) -> int:
    return tx.exec(
        "INSERT INTO projection_outbox(entry_id, owner, target, scope, generation, seq, state,"
        " updated_at) SELECT e.id, e.owner, e.target, e.scope, 1,"
        " (SELECT coalesce(max(seq), 0) FROM projection_outbox) + row_number() OVER"
        " (ORDER BY e.id), ?, ? FROM entries e WHERE e.status = 'active' AND e.eligible = 1"
        " AND NOT EXISTS (SELECT 1 FROM projection_outbox o WHERE o.entry_id = e.id)",
        (state, now))


def reseed(tx: Tx, now: str) -> int:
    """Rebuild the remote side from local state: every document gets a new
    generation and is decided again; reconcile fences are lifted."""
    changed = tx.exec(
        "UPDATE projection_outbox SET generation = generation + 1, state = 'blocked',"
        " decided_under = NULL, attempts = 0, next_at = NULL, lease_until = NULL,"
        " reason = NULL, updated_at = ?", (now,))
    return changed + _seed_missing(tx, now, "blocked")


def retry(tx: Tx, now: str, entry_ids: list[str] | None) -> int:
    """Failed items go back to be decided again, with their attempts reset."""
    sql = ("UPDATE projection_outbox SET state = 'blocked', decided_under = NULL, attempts = 0,"
           " next_at = NULL, reason = NULL, updated_at = ? WHERE state = 'failed'")
    args: list[Any] = [now]
    if entry_ids is not None:
        sql += f" AND entry_id IN ({','.join('?' * len(entry_ids))})"
        args += entry_ids
    return tx.exec(sql, args)


def expire_leases(tx: Tx, now: str) -> int:
    """A lease past its time (the sender died or hung) goes back to pending."""
    return tx.exec("UPDATE projection_outbox SET state = 'pending', lease_until = NULL,"
                   " updated_at = ? WHERE state = 'processing' AND lease_until <= ?",
                   (now, now))


def to_decide(tx: Tx, under: str, limit: int) -> list[dict[str, Any]]:
    return tx.all(
        "SELECT o.*, e.status AS e_status, e.eligible AS e_eligible, e.revision AS e_revision,"
        " e.content_hash AS e_hash, e.type AS e_type FROM projection_outbox o"
        " LEFT JOIN entries e ON e.id = o.entry_id"
        " WHERE o.state = 'dirty' OR (o.state = 'blocked' AND o.decided_under IS DISTINCT FROM ?)"
        " ORDER BY o.seq LIMIT ?", (under, limit))


def head_pending(tx: Tx) -> dict[str, Any] | None:
    """The oldest authorised item: items are sent strictly in order."""
    return tx.one("SELECT * FROM projection_outbox WHERE state = 'pending'"
                  " ORDER BY seq LIMIT 1")


def set_state(tx: Tx, entry_id: str, generation: int, now: str, **changes: Any) -> bool:
    """Change a row only if it is still at ``generation``; False if it moved on."""
    sets = ", ".join(f"{k} = ?" for k in changes)
    return tx.exec(
        f"UPDATE projection_outbox SET {sets}, updated_at = ?"  # noqa: S608 (names are ours)
        " WHERE entry_id = ? AND generation = ?",
        (*changes.values(), now, entry_id, generation)) == 1


# -- the sender lease and the approvals bound to its epoch ----------------------------


def hold(tx: Tx, holder: str, epoch: str, now: str, until: str, *, force: bool = False
         ) -> str | None:
    """Take or renew the sender lease for ``holder`` (its start: ``epoch``); the
    epoch in force after it, or None while another daemon's lease runs.

    ``force`` takes it whatever it holds: only where no other daemon can send
    (the SQLite file's one daemon, at its start). A new epoch voids every
    approval, as a restart does."""
    row = tx.one("SELECT holder, epoch, until FROM projection_sender WHERE id = 1")
    if row is not None and row["holder"] != holder and row["until"] > now and not force:
        return str(row["epoch"])
    if row is None:
        tx.exec("INSERT INTO projection_sender(id, holder, epoch, until) VALUES (1, ?, ?, ?)",
                (holder, epoch, until))
    else:
        tx.exec("UPDATE projection_sender SET holder = ?, epoch = ?, until = ? WHERE id = 1",
                (holder, epoch, until))
    if row is None or row["epoch"] != epoch:
        tx.exec("DELETE FROM projection_approvals")
    return epoch


def release(tx: Tx, holder: str | None) -> None:
    """End the sender lease (only ``holder``'s, when given): the approvals
    bound to its epoch are void with it."""
    if holder is None:
        ended = tx.exec("DELETE FROM projection_sender")
    else:
        ended = tx.exec("DELETE FROM projection_sender WHERE holder = ?", (holder,))
    if ended:
        tx.exec("DELETE FROM projection_approvals")


def sender(tx: Tx) -> tuple[str, str] | None:
    """The lease's holder and epoch, expired or not (None before any daemon sent)."""
    row = tx.one("SELECT holder, epoch FROM projection_sender WHERE id = 1")
    return None if row is None else (str(row["holder"]), str(row["epoch"]))


def live_epoch(tx: Tx, now: str) -> str | None:
    """The epoch of a lease still running at ``now`` (None: none runs). An
    expired lease binds nothing: its sender died or hung, and what it was
    given ends with it."""
    row = tx.one("SELECT epoch, until FROM projection_sender WHERE id = 1")
    return None if row is None or row["until"] <= now else str(row["epoch"])


def approve(tx: Tx, under: str, resource: str) -> bool:
    """Record an approval; False if it was there already."""
    return tx.exec("INSERT OR IGNORE INTO projection_approvals(under, resource) VALUES (?, ?)",
                   (under, resource)) == 1


def approved(tx: Tx, under: str, resource: str) -> bool:
    return tx.one("SELECT 1 AS y FROM projection_approvals WHERE under = ? AND resource = ?",
                  (under, resource)) is not None


def approvals(tx: Tx, under: str) -> int:
    row = tx.one("SELECT count(*) AS n FROM projection_approvals WHERE under = ?", (under,))
    return int(row["n"]) if row else 0
