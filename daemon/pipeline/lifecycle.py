"""Entry lifecycle after the write path: retention, delete receipts, journal, undo.

Owns:
- the janitor: soft-expires active entries past ``expires_at`` (status
  ``expired``, audited ``retention_expired``) and hard-purges expired entries
  after ``retention.purge_grace_days`` (text destroyed like a removal, audited
  ``retention_purged``), in small transactions so requests interleave;
- settling delete receipts after the removal committed: WAL checkpoint, then a
  re-read of the primary store; ``verified`` only when nothing is left;
  receipts a crash left ``pending`` become ``interrupted`` at start-up and the
  janitor re-verifies them;
- ``memory.journal`` (newest first, sealed cursors) and ``memory.gc`` on
  the control channel; ``memory.undo`` is registered here and runs through
  the governed write path (daemon/pipeline/governance.py, daemon/pipeline/undo.py).

Invariants:
- the journal and every event written here hold ids, revisions, hashes and
  counts only, never memory text;
- a receipt never says ``verified`` before the WAL was checkpointed and the
  store re-read without a trace of the entry's text.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from datetime import datetime
from typing import Any

import anyio
import structlog

from memoryd.audit.keyed import KeyedHasher
from memoryd.daemon.access.gate import ControlCall, Gate, ReadCheck
from memoryd.daemon.clock import Clock, fmt, plus
from memoryd.daemon.config import RetentionConfig
from memoryd.daemon.external import projection_outbox
from memoryd.daemon.pipeline import entries, writes
from memoryd.daemon.pipeline.entries import View
from memoryd.daemon.retrieval.cursors import Cursor, seal, unseal
from memoryd.daemon.storage.store import Store, Tx, loads
from memoryd.daemon.storage.txn import audit_subject
from memoryd.kernel.capability import Capability, Effect
from memoryd.kernel.errors import CursorError, NotFound, Unavailable
from memoryd.rpc import schema
from memoryd.rpc.protocol import CallContext, MethodSpec

log = structlog.get_logger()

# Rows per janitor transaction: small enough that a request queued behind a
# sweep waits for one short transaction, not for the whole clean-up.
BATCH = 100
JOURNAL_FILTER = "memory.journal"

# Failures a test may inject through the in-process seam (tests/inproc.py
# builds ``Receipts(store, clock, faults=...)``); ``memoryd serve`` never sets any and
# reads no switch from its environment. Each stands for a real failure the
# receipt states must survive.
FAULTS: dict[str, str] = {
    "defer_receipts": "do not settle a receipt after its removal (it stays pending)",
    "checkpoint_busy": "report the WAL checkpoint as not completed",
    "projection_unconfirmed": "act as if an external projection has not confirmed a delete",
}



# --- retention -----------------------------------------------------------------


def _audit_by_owner(tx: Tx, kind: str, now: str, rows: list[dict[str, Any]]) -> None:
    owners: dict[str, list[dict[str, Any]]] = {}
    for row in rows:
        owners.setdefault(row["owner"], []).append(row)
    for owner, group in owners.items():
        tx.audit(kind, now, subject=audit_subject(owner),
                 entry_ids=[r["id"] for r in group],
                 revisions=[r["revision"] for r in group],
                 content_hashes=[r["content_hash"] for r in group],
                 details={"count": len(group)})


def expire_batch(tx: Tx, now: str, limit: int = BATCH) -> int:
    """Mark up to ``limit`` active entries past ``expires_at`` as ``expired``
    (never a pinned one: it does not expire)."""
    rows = tx.all("SELECT id, owner, revision FROM entries WHERE status = 'active'"
                  " AND pinned = 0 AND expires_at <= ? ORDER BY expires_at LIMIT ?",
                  (now, limit))
    done = []
    for row in rows:
        # A status change is a new revision, so a holder of the old one can tell.
        done.append(entries.update(tx, row["id"], status="expired",
                                   revision=row["revision"] + 1, status_at=now))
    _audit_by_owner(tx, "retention_expired", now, done)
    return len(done)


def purge_batch(tx: Tx, now_dt: datetime, grace_days: float, limit: int = BATCH) -> int:
    """Destroy the text of up to ``limit`` entries expired longer than the grace period."""
    now = fmt(now_dt)
    cutoff = fmt(plus(now_dt, days=-grace_days))
    rows = tx.all("SELECT id FROM entries WHERE status = 'expired' AND status_at <= ?"
                  " ORDER BY status_at LIMIT ?", (cutoff, limit))
    done = [entries.destroy(tx, row["id"], now) for row in rows]
    _audit_by_owner(tx, "retention_purged", now, done)
    return len(done)


# --- receipts ----------------------------------------------------------------------


def _snapshot_holds(value: Any, entry_id: str) -> bool:
    if isinstance(value, dict):
        if value.get("id") == entry_id and any(value.get(k) for k in ("title", "summary",
                                                                      "body", "snippet")):
            return True
        return any(_snapshot_holds(v, entry_id) for v in value.values())
    if isinstance(value, list):
        return any(_snapshot_holds(v, entry_id) for v in value)
    return False


def traces_of(tx: Tx, entry_id: str) -> list[str]:
    """Where the primary store still holds text of a removed entry (names of places)."""
    found = []
    entry = tx.one("SELECT title, body, summary, status, evidence_hash FROM entries"
                   " WHERE id = ?", (entry_id,))
    if entry is not None and (entry["status"] != "removed" or entry["title"] or entry["body"]
                              or entry["summary"] or entry["evidence_hash"]):
        found.append("entry")
    rev = tx.one("SELECT count(*) AS n FROM revisions WHERE entry_id = ? AND (type IS NOT NULL"
                 " OR title IS NOT NULL OR body IS NOT NULL OR summary IS NOT NULL"
                 " OR basis IS NOT NULL OR validity IS NOT NULL)", (entry_id,))
    if rev is not None and rev["n"]:
        found.append("revisions")
    for action in tx.all("SELECT entry_ids FROM actions WHERE proposal IS NOT NULL"):
        if entry_id in loads(action["entry_ids"]):
            found.append("actions")
            break
    if tx.one("SELECT 1 AS x FROM sqlite_master WHERE name = 'snapshot_cards'") and tx.one(
            "SELECT 1 AS x FROM snapshot_cards WHERE entry_id = ? AND (card IS NOT NULL"
            " OR line IS NOT NULL) LIMIT 1", (entry_id,)):
        found.append("snapshot_cards")
    for task in tx.all("SELECT snapshot FROM tasks WHERE snapshot IS NOT NULL"
                       " AND instr(snapshot, ?) > 0", (entry_id,)):
        if _snapshot_holds(loads(task["snapshot"]), entry_id):
            found.append("snapshots")
            break
    # An embedding can be inverted into text: a removal must destroy it too
    # (daemon/semantic/vectors.py triggers), and the receipt proves it.
    if tx.one("SELECT 1 AS x FROM entry_vectors WHERE entry_id = ?", (entry_id,)):
        found.append("vectors")
    return found


def settle(tx: Tx, receipt_id: str, now: str, *, wal_clean: bool,
           projection_pending: bool) -> schema.ReceiptOut:
    """Re-read the store for a removal's receipt and record how far it is proven."""
    row = tx.one("SELECT * FROM receipts WHERE receipt_id = ?", (receipt_id,))
    if row is None:
        raise NotFound("not_found")
    traces = traces_of(tx, row["entry_id"])
    if not wal_clean:
        traces.append("wal")
    if traces:
        status = "incomplete"
    elif projection_pending or projection_outbox.holds_remote(tx, row["entry_id"]):
        status = "external_unverified"
    else:
        status = "verified"
    tx.exec("UPDATE receipts SET status = ?, updated_at = ? WHERE receipt_id = ?",
            (status, now, receipt_id))
    tx.audit("receipt", now, subject=audit_subject(row["owner"]), entry_ids=[row["entry_id"]],
             details={"receipt_id": receipt_id, "status": status, "traces": traces})
    return schema.ReceiptOut(receipt_id=receipt_id, entry_id=row["entry_id"], status=status,
                             created_at=row["created_at"], updated_at=now)


def interrupt_pending(tx: Tx, now: str) -> int:
    """At start-up: a receipt still ``pending`` was cut off by a crash or a stop."""
    rows = tx.all("SELECT receipt_id, owner, entry_id FROM receipts WHERE status = 'pending'")
    for row in rows:
        tx.exec("UPDATE receipts SET status = 'interrupted', updated_at = ?"
                " WHERE receipt_id = ?", (now, row["receipt_id"]))
        tx.audit("receipt", now, subject=audit_subject(row["owner"]), entry_ids=[row["entry_id"]],
                 details={"receipt_id": row["receipt_id"], "status": "interrupted"})
    return len(rows)


# --- journal -------------------------------------------------------------------------


def journal(tx: Tx, hasher: KeyedHasher, boot_id: str, owner: str, p: schema.MemoryJournal,
            shown: Callable[[str], bool] | None = None) -> schema.JournalPage:
    """A page of the owner's operations, newest first. ``shown(entry_id)`` is
    the read policy: an item about an entry it refuses is left out and
    counted in ``omitted``."""
    clauses = "owner = ?"
    args: list[Any] = [owner]
    if p.cursor is not None:
        cur = unseal(hasher, p.cursor)
        if cur.owner != owner or cur.boot != boot_id or cur.filters != JOURNAL_FILTER:
            raise CursorError("cursor_invalid")
        clauses += " AND (ts < ? OR (ts = ? AND operation_id < ?))"
        args += [cur.after_title, cur.after_title, cur.after_id]
    rows = tx.all("SELECT * FROM operations WHERE " + clauses  # noqa: S608 (no client text in SQL)
                  + " ORDER BY ts DESC, operation_id DESC LIMIT ?", (*args, p.page_size + 1))
    more = len(rows) > p.page_size
    rows = rows[:p.page_size]
    next_cursor = None
    if more:
        last = rows[-1]
        next_cursor = seal(hasher, Cursor(
            owner, JOURNAL_FILTER, boot_id, last["ts"], last["operation_id"]))
    omitted = 0
    items = []
    for r in rows:
        parts = writes.unpack_items(r["items"])
        if shown is not None:
            kept = [i for i in parts if shown(i["entry_id"])]
            omitted += len(parts) - len(kept)
            if parts and not kept:
                continue
            parts = kept
        items.append(schema.JournalItem(
            operation_id=r["operation_id"], ts=r["ts"], action=r["action"],
            channel=r["channel"], items=parts, undo_of=r["undo_of"], undone_by=r["undone_by"]))
    return schema.JournalPage(items=items, next_cursor=next_cursor, omitted=omitted)


# --- the services --------------------------------------------------------------------


@dataclass
class Receipts:
    """Settles delete receipts: right after a removal committed (the write
    path's ``settle``), at start-up (``interrupt_pending``) and from the
    janitor. Built before the app, which hands ``settle`` to the write path."""

    store: Store
    clock: Clock
    faults: frozenset[str] = frozenset()

    def __post_init__(self) -> None:
        # Refused loudly: a mistyped fault must not quietly test nothing.
        unknown = self.faults - FAULTS.keys()
        if unknown:
            raise ValueError(f"unknown lifecycle faults; known: {sorted(FAULTS)}")

    def checkpoint(self) -> bool:
        # TRUNCATE moves every frame into the database (where secure_delete
        # has zeroed freed space) and empties the -wal file, so old page
        # images holding removed text leave the disk.
        done = self.store.checkpoint_wal()
        return done and "checkpoint_busy" not in self.faults

    async def settle(self, receipt_id: str) -> schema.ReceiptOut:
        """Settle a removal's receipt right after its transaction committed."""
        if "defer_receipts" in self.faults:
            return await self.store.run(
                lambda tx: _receipt_out(tx, receipt_id), write=False)
        return await self.verify(receipt_id)

    async def verify(self, receipt_id: str) -> schema.ReceiptOut:
        wal_clean = await anyio.to_thread.run_sync(self.checkpoint)
        now = fmt(self.clock.now())
        # A copy the primary store cannot reach (a PostgreSQL WAL archive or
        # replica) is unconfirmed like an external projection.
        projection = ("projection_unconfirmed" in self.faults
                      or await anyio.to_thread.run_sync(self.store.external_copies))
        out = await self.store.run(lambda tx: settle(
            tx, receipt_id, now, wal_clean=wal_clean, projection_pending=projection))
        log.info("receipt_settled", receipt_id=receipt_id, status=out.status)
        return out

    def interrupt_pending(self) -> int:
        """At start-up, before serving: pending receipts were cut off."""
        now = fmt(self.clock.now())
        try:
            count = self.store.run_sync(lambda tx: interrupt_pending(tx, now))
        except Unavailable:
            return 0
        if count:
            log.warning("receipts_interrupted", count=count)
        return count


# A read method's run through the gate (``App.read_call``): method name, task,
# identity and the body to run over the readable view.
ReadCall = Callable[[CallContext, str, str | None, schema.Identity | None,
                     Callable[[Tx, ReadCheck, View], Any]], Awaitable[Any]]


@dataclass
class Lifecycle:
    """The janitor and the lifecycle methods, over their collaborators."""

    store: Store
    clock: Clock
    retention: RetentionConfig
    hasher: KeyedHasher
    boot_id: str
    gate: Gate
    receipts: Receipts
    control: ControlCall
    read_call: ReadCall
    # Pending actions past their time closed as expired (their count).
    expire_actions: Callable[[], Awaitable[int]]
    # ``memory.undo`` through the governed write path (daemon/pipeline/governance.py).
    undo: Callable[[CallContext, schema.MemoryUndo], Awaitable[schema.WriteResult]]

    def methods(self) -> list[MethodSpec]:
        """The methods this module serves (control.sock only)."""
        return [
            MethodSpec("memory.journal", schema.MemoryJournal, self.memory_journal,
                       schema.JournalPage),
            MethodSpec("memory.undo", schema.MemoryUndo, self.memory_undo, schema.WriteResult),
            MethodSpec("memory.gc", schema.NoParams, self.memory_gc, schema.GcOut),
        ]

    # -- janitor ---------------------------------------------------------------

    async def sweep(self) -> dict[str, int]:
        """One janitor pass; each batch is its own short transaction."""
        store, grace = self.store, self.retention.purge_grace_days
        expired = purged = 0
        while True:
            now = fmt(self.clock.now())
            n = await store.run(lambda tx, now=now: expire_batch(tx, now))  # type: ignore[misc]
            expired += n
            if n < BATCH:
                break
        while True:
            now_dt = self.clock.now()
            n = await store.run(
                lambda tx, t=now_dt: purge_batch(tx, t, grace))  # type: ignore[misc]
            purged += n
            if n < BATCH:
                break
        if purged or store.sharing == "single-host":
            # On SQLite every pass truncates the WAL: a truncation that a
            # denial, an expired proposal or an extraction job's end tried
            # while a reader's snapshot held the WAL gave up, and the frames
            # holding the dropped text would stay until some removal. (On
            # PostgreSQL the same step rewrites every table: left to purges;
            # a denial's and a job's own table is retried by their owners.)
            await anyio.to_thread.run_sync(self.receipts.checkpoint)
        open_receipts = await store.run(lambda tx: [r["receipt_id"] for r in tx.all(
            "SELECT receipt_id FROM receipts WHERE status IN ('pending', 'interrupted',"
            " 'incomplete') ORDER BY created_at LIMIT ?", (BATCH,))], write=False)
        for receipt_id in open_receipts:
            await self.receipts.verify(receipt_id)
        if expired or purged or open_receipts:
            log.info("janitor_swept", expired=expired, purged=purged,
                     receipts=len(open_receipts))
        return {"expired": expired, "purged": purged, "receipts_rechecked": len(open_receipts)}

    # -- methods ---------------------------------------------------------------

    async def memory_gc(self, ctx: CallContext, p: schema.NoParams) -> schema.GcOut:
        self.control.require(ctx, Capability.GOVERNANCE_DECIDE)
        actions = await self.expire_actions()
        swept = await self.sweep()
        return schema.GcOut(expired=swept["expired"], purged=swept["purged"],
                            receipts_rechecked=swept["receipts_rechecked"],
                            actions_expired=actions)

    async def memory_journal(self, ctx: CallContext,
                             p: schema.MemoryJournal) -> schema.JournalPage:
        self.control.require(ctx, Capability.GOVERNANCE_DECIDE)
        owner = self.control.owner_for(p.identity)
        gate = self.gate

        def body(tx: Tx, check: ReadCheck, _view: View) -> schema.JournalPage:
            if not gate.read_rules_apply():
                return journal(tx, self.hasher, self.boot_id, owner, p)

            def shown(entry_id: str) -> bool:
                row = tx.one("SELECT target, scope FROM entries WHERE id = ?", (entry_id,))
                if row is None:
                    return False
                decision = gate.namespace(check, row["target"], row["scope"])
                check.note(decision)
                return decision.effect is Effect.ALLOW

            return journal(tx, self.hasher, self.boot_id, owner, p, shown)

        return await self.read_call(ctx, "memory.journal", None, p.identity, body)

    async def memory_undo(self, ctx: CallContext, p: schema.MemoryUndo) -> schema.WriteResult:
        return await self.undo(ctx, p)


def _receipt_out(tx: Tx, receipt_id: str) -> schema.ReceiptOut:
    row = tx.one("SELECT * FROM receipts WHERE receipt_id = ?", (receipt_id,))
    if row is None:
        raise NotFound("not_found")
    return writes.receipt_wire(row)
