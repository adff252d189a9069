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
- ``memory.journal`` (newest first, sealed cursors), ``memory.undo`` and
  ``memory.gc`` on the control channel.

Invariants:
- the journal and every event written here hold ids, revisions, hashes and
  counts only, never memory text;
- an undo is decided by the kernel (``MemoryWrite``, action ``undo``) and
  audited like any write; it applies only if every entry of the operation is
  still at the revision the operation produced, all items or none;
- a removal is final: its undo is refused with the reason, never attempted;
- a receipt never says ``verified`` before the WAL was checkpointed and the
  store re-read without a trace of the entry's text.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, Any

import anyio
import structlog

from memoryd.daemon import projection_outbox, reads, tasks, writes
from memoryd.daemon.clock import fmt, plus
from memoryd.daemon.cursors import Cursor, seal, unseal
from memoryd.daemon.entries import View
from memoryd.daemon.gate import ReadCheck
from memoryd.daemon.ids import random_id
from memoryd.daemon.store import Tx, dumps, loads
from memoryd.kernel.capability import Capability, Channel, Effect, Role, Subject
from memoryd.kernel.errors import Conflict, CursorError, Denied, NotFound, Unavailable
from memoryd.rpc import schema
from memoryd.rpc.protocol import CallContext

if TYPE_CHECKING:
    from memoryd.daemon.app import App

log = structlog.get_logger()

# Rows per janitor transaction: small enough that a request queued behind a
# sweep waits for one short transaction, not for the whole clean-up.
BATCH = 100
JOURNAL_FILTER = "memory.journal"

# Test-only failure switches (env MEMORYD_TEST_RECEIPT_FAULTS, read in
# daemon/cli.py only). Each stands for a real failure the receipt states must survive.
FAULTS: dict[str, str] = {
    "defer_receipts": "do not settle a receipt after its removal (it stays pending)",
    "checkpoint_busy": "report the WAL checkpoint as not completed",
    "projection_unconfirmed": "act as if an external projection has not confirmed a delete",
}

# Why an operation cannot be undone: details.reason -> a fixed recovery hint.
UNDO_IMPOSSIBLE: dict[str, str] = {
    "remove_is_final": "a removal destroyed the body and cannot be undone; write the entry again",
    "already_undone": "this operation was already undone; see memory.journal",
    "undo_is_final": "an undo cannot itself be undone; write the change again instead",
}

# The status an entry must have for each journal item action to be undone.
_UNDOABLE_STATUS: dict[str, str] = {
    "add": "active",
    "replace": "active",
    "supersede": "superseded",
    "archive": "archived",
}

Handler = Callable[[CallContext, Any], Awaitable[Any]]


def parse_faults(text: str | None) -> frozenset[str]:
    """The fault switches named in ``text`` (comma separated); unknown names refused."""
    names = frozenset(n.strip() for n in (text or "").split(",") if n.strip())
    unknown = names - FAULTS.keys()
    if unknown:
        # Refused loudly: a mistyped switch must not quietly test nothing.
        raise SystemExit(f"memoryd: MEMORYD_TEST_RECEIPT_FAULTS names one of {sorted(FAULTS)}")
    return names


# --- retention -----------------------------------------------------------------


def _audit_by_owner(tx: Tx, kind: str, now: str, rows: list[dict[str, Any]]) -> None:
    owners: dict[str, list[dict[str, Any]]] = {}
    for row in rows:
        owners.setdefault(row["owner"], []).append(row)
    for owner, group in owners.items():
        tx.audit(kind, now, subject={"owner": owner},
                 entry_ids=[r["id"] for r in group],
                 revisions=[r["revision"] for r in group],
                 content_hashes=[r["content_hash"] for r in group],
                 details={"count": len(group)})


def expire_batch(tx: Tx, now: str, limit: int = BATCH) -> int:
    """Mark up to ``limit`` active entries past ``expires_at`` as ``expired``."""
    rows = tx.all("SELECT id, owner, revision FROM entries WHERE status = 'active'"
                  " AND expires_at <= ? ORDER BY expires_at LIMIT ?", (now, limit))
    done = []
    for row in rows:
        # A status change is a new revision, so a holder of the old one can tell.
        done.append(writes._update(tx, row["id"], status="expired",
                                   revision=row["revision"] + 1, status_at=now))
    _audit_by_owner(tx, "retention_expired", now, done)
    return len(done)


def purge_batch(tx: Tx, now_dt: datetime, grace_days: float, limit: int = BATCH) -> int:
    """Destroy the text of up to ``limit`` entries expired longer than the grace period."""
    now = fmt(now_dt)
    cutoff = fmt(plus(now_dt, days=-grace_days))
    rows = tx.all("SELECT id FROM entries WHERE status = 'expired' AND status_at <= ?"
                  " ORDER BY status_at LIMIT ?", (cutoff, limit))
    done = [writes.destroy(tx, row["id"], now) for row in rows]
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
    # (daemon/vectors.py triggers), and the receipt proves it.
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
    tx.audit("receipt", now, subject={"owner": row["owner"]}, entry_ids=[row["entry_id"]],
             details={"receipt_id": receipt_id, "status": status, "traces": traces})
    return schema.ReceiptOut(receipt_id=receipt_id, entry_id=row["entry_id"], status=status,
                             created_at=row["created_at"], updated_at=now)


def interrupt_pending(tx: Tx, now: str) -> int:
    """At start-up: a receipt still ``pending`` was cut off by a crash or a stop."""
    rows = tx.all("SELECT receipt_id, owner, entry_id FROM receipts WHERE status = 'pending'")
    for row in rows:
        tx.exec("UPDATE receipts SET status = 'interrupted', updated_at = ?"
                " WHERE receipt_id = ?", (now, row["receipt_id"]))
        tx.audit("receipt", now, subject={"owner": row["owner"]}, entry_ids=[row["entry_id"]],
                 details={"receipt_id": row["receipt_id"], "status": "interrupted"})
    return len(rows)


# --- journal -------------------------------------------------------------------------


def journal(tx: Tx, app: App, owner: str, p: schema.MemoryJournal,
            shown: Callable[[str], bool] | None = None) -> dict[str, Any]:
    """A page of the owner's operations, newest first. ``shown(entry_id)`` is
    the read policy: an item about an entry it refuses is left out and
    counted in ``omitted``."""
    clauses = "owner = ?"
    args: list[Any] = [owner]
    if p.cursor is not None:
        cur = unseal(app.hasher, p.cursor)
        if cur.owner != owner or cur.boot != app.boot_id or cur.filters != JOURNAL_FILTER:
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
        next_cursor = seal(app.hasher, Cursor(
            owner, JOURNAL_FILTER, app.boot_id, last["ts"], last["operation_id"]))
    omitted = 0
    items = []
    for r in rows:
        parts = loads(r["items"])
        if shown is not None:
            kept = [i for i in parts if shown(i["entry_id"])]
            omitted += len(parts) - len(kept)
            if parts and not kept:
                continue
            parts = kept
        items.append({"operation_id": r["operation_id"], "ts": r["ts"], "action": r["action"],
                      "channel": r["channel"], "items": parts, "undo_of": r["undo_of"],
                      "undone_by": r["undone_by"]})
    return {"items": items, "next_cursor": next_cursor, "omitted": omitted}


# --- undo ------------------------------------------------------------------------------


def _control_caller(owner: str) -> writes.Caller:
    return writes.Caller(
        subject=Subject(channel=Channel.CONTROL, role=Role.OPERATOR, owner=owner, task_id=None),
        view=View(owner, None), default_scope="default", user_scope=tasks.user_scope(owner),
        channel="control", read_allowed=True,
    )


@dataclass
class _Step:
    item: dict[str, Any]
    row: dict[str, Any]
    op: writes.Op
    restore: dict[str, Any] | None = None  # the revision a replace goes back to


def plan_undo(tx: Tx, owner: str, operation_id: str) -> tuple[list[_Step], dict[str, Any]]:
    """Check an operation can be undone now; the steps in reverse order of application."""
    op_row = tx.one("SELECT * FROM operations WHERE operation_id = ? AND owner = ?",
                    (operation_id, owner))
    if op_row is None:
        # Name the field, not the value: an id param is any short string,
        # and errors never echo what the client sent (SPEC §3).
        raise NotFound("not_found", details={"field": "operation_id"})
    if op_row["undone_by"] is not None:
        raise _impossible("already_undone", undone_by=op_row["undone_by"])
    if op_row["undo_of"] is not None:
        raise _impossible("undo_is_final")
    items = loads(op_row["items"])
    if any(i["action"] == "remove" for i in items):
        raise _impossible("remove_is_final")
    steps = []
    # Reverse order: a supersede's new entry is archived before the old one
    # comes back, so the title is free again when it is checked.
    for item in reversed(items):
        row = tx.one("SELECT * FROM entries WHERE id = ? AND owner = ?",
                     (item["entry_id"], owner))
        if (row is None or row["revision"] != item["revision_after"]
                or row["status"] != _UNDOABLE_STATUS.get(item["action"])):
            raise Conflict("revision_conflict", details={
                "entry_id": item["entry_id"], "expected_revision": item["revision_after"],
                "current_revision": row["revision"] if row else None})
        restore = None
        chash = row["content_hash"]
        if item["action"] == "replace":
            restore = tx.one("SELECT * FROM revisions WHERE entry_id = ? AND revision = ?",
                             (row["id"], item["revision_before"]))
            if restore is None or restore["body"] is None:
                raise Conflict("revision_conflict", details={
                    "entry_id": row["id"], "missing_revision": item["revision_before"]})
            chash = restore["content_hash"]
        op = writes.Op(action="undo", target=row["target"], scope=row["scope"],
                       entry_id=row["id"], expected_revision=row["revision"],
                       entry={"type": row["type"]}, content_hash=chash)
        steps.append(_Step(item, row, op, restore))
    return steps, op_row


def _impossible(reason: str, **details: Any) -> Conflict:
    return Conflict("undo_impossible", details={"reason": reason, **details},
                    recovery=UNDO_IMPOSSIBLE[reason])


def _renewal(row: dict[str, Any], now_dt: datetime) -> dict[str, Any]:
    now = fmt(now_dt)
    return {"revision": row["revision"] + 1, "updated_at": now, "status_at": now,
            "renewed_at": now, "expires_at": fmt(plus(now_dt, days=row["ttl_days"]))}


def apply_undo(tx: Tx, owner: str, steps: list[_Step], limits: writes.Limits,
               now_dt: datetime) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """Apply the planned steps; returns (rows after, journal items)."""
    now = fmt(now_dt)
    rows: list[dict[str, Any]] = []
    items: list[dict[str, Any]] = []
    for step in steps:
        row, op, action = step.row, step.op, step.item["action"]
        if action == "add":
            after = writes._update(tx, row["id"], status="archived", revision=row["revision"] + 1,
                                   updated_at=now, status_at=now)
        elif action == "replace":
            old = step.restore
            assert old is not None
            if old["title"] != row["title"]:
                writes._check_title(tx, owner, op, old["title"], row["id"])
            delta = len(old["body"].encode()) - len(row["body"].encode())
            if delta > 0:
                writes._check_budget(tx, owner, op, delta, limits)
            after = writes._update(tx, row["id"], type=old["type"], title=old["title"],
                                   body=old["body"], summary=old["summary"], basis=old["basis"],
                                   validity=old["validity"], content_hash=old["content_hash"],
                                   **_renewal(row, now_dt))
            writes._save_revision(tx, after, now)
        else:  # supersede (the old entry) or archive: it becomes active again
            writes._check_title(tx, owner, op, row["title"], row["id"])
            writes._check_budget(tx, owner, op, len(row["body"].encode()), limits)
            after = writes._update(tx, row["id"], status="active", superseded_by=None,
                                   archive_reason=None, **_renewal(row, now_dt))
        rows.append(after)
        items.append({"action": "undo", "undoes": action, "entry_id": after["id"],
                      "revision_before": row["revision"], "revision_after": after["revision"],
                      "content_hash": after["content_hash"]})
    rows.reverse()
    items.reverse()
    return rows, items


# --- the service ---------------------------------------------------------------------


class _UndoDenied(Exception):
    def __init__(self, verdict: writes.Verdict, caller: writes.Caller,
                 ops: list[writes.Op]) -> None:
        self.verdict, self.caller, self.ops = verdict, caller, ops


@dataclass
class Lifecycle:
    """The lifecycle methods and janitor bound to one running ``App``."""

    app: App
    faults: frozenset[str] = frozenset()

    def methods(self) -> list[tuple[str, type, Handler]]:
        return [
            ("memory.journal", schema.MemoryJournal, self.memory_journal),
            ("memory.undo", schema.MemoryUndo, self.memory_undo),
            ("memory.gc", schema.NoParams, self.memory_gc),
        ]

    def install(self) -> None:
        """Register the control methods and take over settling delete receipts."""
        self.app.extra_methods.extend(self.methods())
        self.app.finish_receipt = self.finish_receipt

    # -- receipts -------------------------------------------------------------

    def _checkpoint(self) -> bool:
        # TRUNCATE moves every frame into the database (where secure_delete
        # has zeroed freed space) and empties the -wal file, so old page
        # images holding removed text leave the disk.
        done = self.app.store.checkpoint_wal()
        return done and "checkpoint_busy" not in self.faults

    async def finish_receipt(self, receipt_id: str) -> schema.ReceiptOut:
        """Settle a removal's receipt right after its transaction committed."""
        if "defer_receipts" in self.faults:
            return await self.app.store.run(
                lambda tx: _receipt_out(tx, receipt_id), write=False)
        return await self._verify(receipt_id)

    async def _verify(self, receipt_id: str) -> schema.ReceiptOut:
        wal_clean = await anyio.to_thread.run_sync(self._checkpoint)
        now = fmt(self.app.clock.now())
        # A copy the primary store cannot reach (a PostgreSQL WAL archive or
        # replica) is unconfirmed like an external projection.
        projection = ("projection_unconfirmed" in self.faults
                      or await anyio.to_thread.run_sync(self.app.store.external_copies))
        out = await self.app.store.run(lambda tx: settle(
            tx, receipt_id, now, wal_clean=wal_clean, projection_pending=projection))
        log.info("receipt_settled", receipt_id=receipt_id, status=out.status)
        return out

    def interrupt_pending(self) -> int:
        """At start-up, before serving: pending receipts were cut off."""
        now = fmt(self.app.clock.now())
        try:
            count = self.app.store.run_sync(lambda tx: interrupt_pending(tx, now))
        except Unavailable:
            return 0
        if count:
            log.warning("receipts_interrupted", count=count)
        return count

    # -- janitor ---------------------------------------------------------------

    async def sweep(self) -> dict[str, int]:
        """One janitor pass; each batch is its own short transaction."""
        store, grace = self.app.store, self.app.config.retention.purge_grace_days
        expired = purged = 0
        while True:
            now = fmt(self.app.clock.now())
            n = await store.run(lambda tx, now=now: expire_batch(tx, now))  # type: ignore[misc]
            expired += n
            if n < BATCH:
                break
        while True:
            now_dt = self.app.clock.now()
            n = await store.run(
                lambda tx, t=now_dt: purge_batch(tx, t, grace))  # type: ignore[misc]
            purged += n
            if n < BATCH:
                break
        if purged:
            await anyio.to_thread.run_sync(self._checkpoint)
        open_receipts = await store.run(lambda tx: [r["receipt_id"] for r in tx.all(
            "SELECT receipt_id FROM receipts WHERE status IN ('pending', 'interrupted',"
            " 'incomplete') ORDER BY created_at LIMIT ?", (BATCH,))], write=False)
        for receipt_id in open_receipts:
            await self._verify(receipt_id)
        if expired or purged or open_receipts:
            log.info("janitor_swept", expired=expired, purged=purged,
                     receipts=len(open_receipts))
        return {"expired": expired, "purged": purged, "receipts_rechecked": len(open_receipts)}

    # -- methods ---------------------------------------------------------------

    async def memory_gc(self, ctx: CallContext, p: schema.NoParams) -> Any:
        self.app._governance(ctx, Capability.GOVERNANCE_DECIDE)
        actions = await self.app.expire_actions()
        return {**await self.sweep(), "actions_expired": actions}

    async def memory_journal(self, ctx: CallContext, p: schema.MemoryJournal) -> Any:
        self.app._governance(ctx, Capability.GOVERNANCE_DECIDE)
        owner = self.app._owner_for_control(p.identity)
        gate = self.app.gate

        def body(tx: Tx, check: ReadCheck, _view: View) -> Any:
            if not gate.read_rules_apply():
                return journal(tx, self.app, owner, p)

            def shown(entry_id: str) -> bool:
                row = tx.one("SELECT target, scope FROM entries WHERE id = ?", (entry_id,))
                if row is None:
                    return False
                decision = gate.namespace(check, row["target"], row["scope"])
                check.note(decision)
                return decision.effect is Effect.ALLOW

            return journal(tx, self.app, owner, p, shown)

        return await self.app._read(ctx, "memory.journal", None, p.identity, body)

    async def memory_undo(self, ctx: CallContext, p: schema.MemoryUndo) -> Any:
        if ctx.channel != "control":
            raise Denied("channel_forbidden")
        app = self.app
        owner = app._owner_for_control(p.identity)
        caller = _control_caller(owner)
        policy = app.policy
        now_dt = app.clock.now()
        now = fmt(now_dt)
        limits = writes.Limits(app.config.entry_max_bytes, app.config.scope_budget_bytes)

        def run(tx: Tx) -> schema.WriteResult:
            steps, _op_row = plan_undo(tx, owner, p.operation_id)
            ops = [s.op for s in steps]
            verdict = writes.decide_ops(caller, ops, policy)
            if verdict.effect != Effect.ALLOW:
                # An undo applies now or not at all: there is no pending undo,
                # so anything short of allow refuses it (fail closed).
                raise _UndoDenied(verdict, caller, ops)
            rows, items = apply_undo(tx, owner, steps, limits, now_dt)
            operation_id = random_id("op")
            tx.exec("INSERT INTO operations(operation_id, owner, ts, action, channel, items,"
                    " undo_of) VALUES (?, ?, ?, 'undo', 'control', ?, ?)",
                    (operation_id, owner, now, dumps(items), p.operation_id))
            tx.exec("UPDATE operations SET undone_by = ? WHERE operation_id = ?",
                    (operation_id, p.operation_id))
            writes.audit_decision(tx, caller, verdict, ops, now)
            applied = writes.Applied(operation_id, rows, [], [], unchanged=False)
            writes.audit_operation(tx, caller, verdict, applied, now, undo_of=p.operation_id)
            return schema.WriteResult(
                outcome="applied", operation_id=operation_id, decision=verdict.wire(),
                entries=[reads.wire(r, now) for r in rows], warnings=[])

        try:
            result = await app.store.run(run)
        except _UndoDenied as denied:
            await app.store.run(lambda tx, d=denied: writes.audit_decision(  # type: ignore[misc]
                tx, d.caller, d.verdict, d.ops, now))
            raise Denied("policy_denied", details={
                "decision_id": denied.verdict.decision_id,
                "rule_ids": list(denied.verdict.rule_ids),
                "effect": denied.verdict.effect.value,
                "explicit": denied.verdict.explicit}) from None
        log.info("operation_undone", undo_of=p.operation_id, operation_id=result.operation_id)
        return result


def _receipt_out(tx: Tx, receipt_id: str) -> schema.ReceiptOut:
    row = tx.one("SELECT * FROM receipts WHERE receipt_id = ?", (receipt_id,))
    if row is None:
        raise NotFound("not_found")
    return writes.receipt_wire(row)
