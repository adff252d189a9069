"""The governed write path's steps inside the writer's transaction (SPEC §5).

Owns: the shapes a write travels in (``Caller``, ``Op``, ``Proposal``,
``Verdict``, ``Written``); the stored types a decision reads
(``touched_types``); idempotency records; applying operations
(through daemon/pipeline/entries.py, the owner of entry rows) with their receipts; and
the audit events that describe a decision, an operation or a rejection. The
order of the steps, and the steps that need no store (normalise, scan,
decide), are daemon/pipeline/governance.py's; pending actions live in
daemon/pipeline/actions.py.

Invariants:
- all operations of one call commit together with their audit events, or
  nothing does; a revision mismatch changes nothing;
- an idempotency record keeps ids and revisions only and re-reads entries on
  replay;
- a caller without ``read`` gets ids, the revisions its own write made,
  outcomes and errors only: no stored text, no revision or id it did not hold
  (``EntryRef`` answers, conflict details withheld); so does a caller in a
  namespace a ``memory.read`` by it would be refused (``Caller.reveals``):
  no figure of that namespace's budget, no ``unchanged`` outcome, no
  covering entry checked there;
- a refused scope name never reaches the audit chain, not even inside a
  resource string.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Literal

import msgspec
from msgspec import UNSET

from memoryd.daemon.clock import fmt
from memoryd.daemon.ids import random_id
from memoryd.daemon.pipeline import entries
from memoryd.daemon.pipeline.entries import Provenance, View
from memoryd.daemon.storage.store import Tx, dumps, loads
from memoryd.daemon.storage.txn import audit_subject
from memoryd.kernel.capability import (
    Capability,
    Effect,
    Resource,
    Subject,
)
from memoryd.kernel.errors import Conflict, MemorydError
from memoryd.rpc import schema
from memoryd.rpc.errors import InvalidParams

__all__ = [
    "BASIS_WARNING", "MAX_OPS", "Applied", "Caller", "Limits", "Op", "Problem", "Proposal",
    "Provenance", "Verdict", "Written", "apply", "audit_decision", "audit_operation",
    "audit_rejection", "idempotent_replay", "receipt_wire", "remember",
]

MAX_OPS = 50
# A malformed call found while drafting, raised later in pipeline order.
Problem = MemorydError | InvalidParams
Outcome = Literal["applied", "pending", "unchanged"]
BASIS_WARNING = "content changed without refreshed attribution"
_canonical = msgspec.json.Encoder(order="sorted")


@dataclass(frozen=True, slots=True)
class Caller:
    """Who is writing, resolved from the channel, identity and task."""

    subject: Subject
    view: View
    default_scope: str
    user_scope: str
    channel: str
    read_allowed: bool
    task_id: str | None = None
    # The task's grants on agent.sock: the kernel's input for every operation
    # (None on control.sock, where grants do not gate).
    grants: frozenset[str] | None = None
    # Whether a memory.read by this caller would show a namespace
    # (``gate.Gate.reads_of``); None: every namespace ``read_allowed`` covers
    # (a pending proposal's caller, answered to the operator at approval).
    reads: Callable[[str, str], bool] | None = None

    def reveals(self, target: str, scope: str) -> bool:
        """May the write answer this caller what is stored in the namespace."""
        return self.read_allowed and (self.reads is None or self.reads(target, scope))


# The fields of a new entry a caller may leave out (``msgspec.UNSET`` in an
# op's entry): a replace keeps the entry's own, an add takes the default.
UNSET_FIELDS = ("basis", "validity", "context", "observed_at")
_LEGACY_UNSET = "unset"


@dataclass
class Op:
    action: str
    target: str
    # None only in a draft: the caller named no scope and its default is not
    # known before the caller is (``resolve`` fills it in).
    scope: str | None
    entry_id: str | None
    expected_revision: int | None
    entry: dict[str, Any] | None  # normalised new content (type, title, body, summary, ...)
    content_hash: str | None
    reason_given: bool = False
    covered_by: dict[str, Any] | None = None
    # Scanned with the op, never stored (not part of ``wire``):
    reason: str | None = None
    # Whether the summary was derived from the body; None for a stored op,
    # where it is told by comparing the two.
    summary_derived: bool | None = None
    # A malformed op, raised in pipeline order by ``resolve`` (a draft only).
    error: Problem | None = None

    @property
    def namespace(self) -> tuple[str, str]:
        assert self.scope is not None, "a draft op is resolved before it is used"
        return self.target, self.scope

    def in_scope(self, scope: str) -> Op:
        """This op with ``scope``: what ``dataclasses.replace(self, scope=scope)``
        gives (``Op`` has no ``__post_init__``), without its walk over every field."""
        new = object.__new__(type(self))
        new.__dict__.update(self.__dict__)
        new.scope = scope
        return new

    def resource(self) -> Resource:
        target, scope = self.namespace
        return Resource(
            target="user" if target == "user" else "memory",
            scope=scope,
            action=self.action,
            entry_id=self.entry_id,
            expected_revision=self.expected_revision,
            content_hash=self.content_hash,
            type=self.entry["type"] if self.entry else None,
        )

    def wire(self) -> dict[str, Any]:
        """The op as stored with a pending action (and keyed for dedup): a
        field the caller left out is left out."""
        entry = self.entry
        if entry is not None:
            entry = {k: v for k, v in entry.items() if v is not UNSET}
        return {
            "action": self.action, "target": self.target, "scope": self.scope,
            "entry_id": self.entry_id, "expected_revision": self.expected_revision,
            "entry": entry, "content_hash": self.content_hash,
            "reason_given": self.reason_given, "covered_by": self.covered_by,
        }

    @classmethod
    def from_wire(cls, data: dict[str, Any]) -> Op:
        entry = data["entry"]
        if entry is not None:
            # A field left out is UNSET again; an older memoryd stored it as
            # the string "unset" (still read, never written).
            entry = {k: (UNSET if k in UNSET_FIELDS and entry.get(k, _LEGACY_UNSET)
                         == _LEGACY_UNSET else entry[k])
                     for k in schema.EntryIn.__struct_fields__}
        return cls(**(data | {"entry": entry}))


@dataclass
class Proposal:
    ops: list[Op]
    provenance: Provenance
    warnings: list[str] = field(default_factory=list)


# --- deciding ----------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Verdict:
    decision_id: str
    effect: Effect
    rule_ids: tuple[str, ...]
    explicit: bool
    policy_hash: str
    resources: tuple[str, ...]

    def wire(self) -> schema.DecisionOut:
        return schema.DecisionOut(
            decision_id=self.decision_id, effect=str(self.effect),
            rule_ids=list(self.rule_ids)
        )


# The enum values every write's audit events name, read once.
_MEMORY_WRITE: str = Capability.MEMORY_WRITE.value
_ALLOW: str = Effect.ALLOW.value

# What an audit event names instead of a resource string whose scope name the
# content scan refuses: the name never reaches the permanent chain.
WITHHELD_RESOURCE = "memory/withheld:scope_refused"


def audit_decision(tx: Tx, caller: Caller, verdict: Verdict, ops: list[Op], now: str,
                   *, withheld: frozenset[int] = frozenset(), **details: Any) -> None:
    """The decision event of a write. ``withheld``: positions of ops whose
    scope name the scan refuses (a deny is audited whatever the scan found),
    named ``WITHHELD_RESOURCE`` instead of their resource strings."""
    resources = [WITHHELD_RESOURCE if i in withheld else r
                 for i, r in enumerate(verdict.resources)]
    tx.audit(
        "decision", now,
        subject=audit_subject(caller.subject),
        capability=_MEMORY_WRITE,
        resource=resources[0],
        decision_id=verdict.decision_id,
        effect=str(verdict.effect),
        rule_ids=list(verdict.rule_ids),
        entry_ids=[op.entry_id for op in ops if op.entry_id],
        content_hashes=[op.content_hash for op in ops if op.content_hash],
        details={"policy_hash": verdict.policy_hash, "explicit": verdict.explicit,
                 "resources": resources, **details},
    )


def touched_types(tx: Tx, view: View, ops: list[Op]) -> dict[int, str]:
    """Per op position, the stored type of the entry the op changes where it
    is not the type the op's resource carries (an archive or remove carries
    none; a replace may write another): what ``gate.Gate.decide_write`` decides too."""
    out = {}
    for i, op in enumerate(ops):
        if op.entry_id is None:
            continue
        found = entries.stored_type(tx, view, op.entry_id, *op.namespace)
        if found is not None and found != (op.entry["type"] if op.entry else None):
            out[i] = found
    return out


# --- idempotency -------------------------------------------------------------


@dataclass
class Written:
    """A write's answer as the transaction leaves it: ids, rows and receipts,
    shaped into the wire answer after the commit (``shown``)."""

    outcome: Outcome
    decision: schema.DecisionOut
    operation_id: str | None = None
    action_id: str | None = None
    rows: list[dict[str, Any]] = field(default_factory=list)
    # A replay for a caller without ``read``: the first answer's ids and
    # revisions, never the current content.
    refs: list[tuple[str, int]] | None = None
    receipts: list[schema.ReceiptOut] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)

    def shown(self, reveals: Callable[[str, str], bool], now: str) -> schema.WriteResult:
        """The wire answer: full entries for a caller that may read every
        namespace they are in (``Caller.reveals``), else only ids and the
        revisions this write produced (no stored text)."""
        shown: list[schema.Entry] | list[schema.EntryRef]
        if self.refs is not None:
            shown = [schema.EntryRef(id=i, revision=r) for i, r in self.refs]
        elif all(reveals(r["target"], r["scope"]) for r in self.rows):
            shown = [entries.to_wire(r, now) for r in self.rows]
        else:
            shown = [schema.EntryRef(id=r["id"], revision=r["revision"]) for r in self.rows]
        return schema.WriteResult(
            outcome=self.outcome, operation_id=self.operation_id, action_id=self.action_id,
            decision=self.decision, entries=shown, warnings=self.warnings,
            receipt=self.receipts[0] if self.receipts else None,
            receipts=self.receipts if len(self.receipts) > 1 else None,
        )


def idempotent_replay(tx: Tx, owner: str, key: str, rhash: str, view: View,
                      *, read_allowed: bool = True,
                      reveals: Callable[[str, str], bool] = lambda _t, _s: True,
                      ) -> Written | None:
    row = tx.remembered(owner, key)
    if row is None:
        return None
    if row["request_hash"] != rhash:
        raise Conflict("idempotency_conflict")
    answer = loads(row["answer"])
    written = Written(outcome=answer["outcome"], operation_id=answer["operation_id"],
                      action_id=answer.get("action_id"),
                      decision=schema.DecisionOut(**answer["decision"]),
                      warnings=answer.get("warnings", []))
    if read_allowed:
        written.rows = [r for r in (entries.load(tx, view, i) for i in answer["entry_ids"])
                        if r is not None]
    if not read_allowed or not all(reveals(r["target"], r["scope"]) for r in written.rows):
        written.rows = []
        written.refs = list(zip(answer["entry_ids"], answer["revisions"], strict=True))
    if answer.get("receipt_id"):
        rrow = tx.receipt(answer["receipt_id"])
        if rrow is not None:
            written.receipts = [receipt_wire(rrow)]
    return written


def remember(tx: Tx, owner: str, key: str | None, rhash: str, written: Written,
             now: str) -> None:
    if key is None:
        return
    answer = {
        "outcome": written.outcome,
        "operation_id": written.operation_id,
        "action_id": written.action_id,
        "decision": msgspec.to_builtins(written.decision),
        "entry_ids": [r["id"] for r in written.rows],
        "revisions": [r["revision"] for r in written.rows],
        "receipt_id": written.receipts[0].receipt_id if written.receipts else None,
        "warnings": written.warnings,
    }
    tx.remember(owner, key, rhash, dumps(answer), now)


def new_receipt(tx: Tx, owner: str, entry_id: str, now: str) -> schema.ReceiptOut:
    """A pending receipt for a removal, settled after its commit."""
    receipt_id = random_id("rcp")
    tx.add_receipt(receipt_id, owner, entry_id, now)
    return schema.ReceiptOut(receipt_id=receipt_id, entry_id=entry_id, status="pending",
                             created_at=now, updated_at=now)


def receipt_wire(row: dict[str, Any]) -> schema.ReceiptOut:
    return schema.ReceiptOut(
        receipt_id=row["receipt_id"], entry_id=row["entry_id"], status=row["status"],
        created_at=row["created_at"], updated_at=row["updated_at"],
    )


# --- applying ----------------------------------------------------------------


@dataclass
class Limits:
    entry_max_bytes: int
    scope_budget_bytes: int


@dataclass
class Applied:
    operation_id: str | None
    rows: list[dict[str, Any]]
    warnings: list[str]
    removed: list[str]
    unchanged: bool


def _apply_ops(
    tx: Tx, caller: Caller, proposal: Proposal, limits: Limits, now_dt: datetime,
    *, conflict_code: str = "revision_conflict", allow_unchanged: bool = True,
) -> Applied:
    now = fmt(now_dt)
    owner = caller.subject.owner
    rows: list[dict[str, Any]] = []
    warnings: list[str] = []
    removed: list[str] = []
    items: list[dict[str, Any]] = []
    unchanged_count = 0
    # Every stored byte counts toward the scope budget (sqlite_schema.USAGE_TRIGGERS),
    # so it is checked on the totals the triggers leave, not on a guess.
    # A team scope's rows are held by the team (daemon/access/teams.py): titles,
    # budgets and new rows are the team's there, the caller's elsewhere.
    holder = caller.view.holder
    usage_before = {op.namespace: entries.active_bytes(tx, holder(*op.namespace), *op.namespace)
                    for op in proposal.ops}
    fresh = entries.new_ids(sum(op.action in ("add", "supersede") for op in proposal.ops), now_dt)
    for op in proposal.ops:
        if op.action == "add":
            assert op.entry is not None
            entries.check_title(tx, holder(*op.namespace), *op.namespace, op.entry["title"],
                                None, reveal=caller.reveals(*op.namespace))
            row = entries.insert(tx, holder(*op.namespace), *op.namespace, op.entry,
                                 op.content_hash, proposal.provenance, now_dt, next(fresh))
            rows.append(row)
            items.append(_item(op, None, row))
            continue
        assert op.entry_id is not None
        cur = entries.at_revision(tx, caller.view, op.entry_id, *op.namespace,
                                  op.expected_revision, conflict_code=conflict_code,
                                  removing=op.action == "remove",
                                  reveal=caller.reveals(*op.namespace))
        if op.action == "replace":
            assert op.entry is not None
            e = op.entry
            same_text = (e["type"], e["title"], e["body"], e["summary"]) == (
                cur["type"], cur["title"], cur["body"], cur["summary"])
            validity = loads(cur["validity"]) if e["validity"] is UNSET else e["validity"]
            # Left out, the entry keeps its own; null clears it.
            context = cur["context"] if e["context"] is UNSET else e["context"]
            observed_at = cur["observed_at"] if e["observed_at"] is UNSET else e["observed_at"]
            same_text = same_text and (context, observed_at) == (cur["context"],
                                                                  cur["observed_at"])
            if e["basis"] in (UNSET, None):
                basis = loads(cur["basis"])
                if not same_text:
                    basis = {"kind": "unknown", "note": ""}
                    if BASIS_WARNING not in warnings:
                        warnings.append(BASIS_WARNING)
            else:
                basis = e["basis"]
            ttl = e["ttl_days"] or cur["ttl_days"]
            if (allow_unchanged and caller.reveals(*op.namespace) and same_text
                    and basis == loads(cur["basis"]) and validity == loads(cur["validity"])
                    and float(ttl) == cur["ttl_days"] and int(e["pinned"]) == cur["pinned"]):
                unchanged_count += 1
                rows.append(cur)
                continue
            if e["title"] != cur["title"]:
                entries.check_title(tx, cur["owner"], *op.namespace, e["title"], cur["id"],
                                    reveal=caller.reveals(*op.namespace))
            row = entries.update(
                tx, cur["id"], type=e["type"], title=e["title"], body=e["body"],
                summary=e["summary"], basis=dumps(basis),
                validity=dumps(validity) if validity else None, pinned=int(e["pinned"]),
                context=context, observed_at=observed_at, revision=cur["revision"] + 1,
                updated_at=now, renewed_at=now,
                ttl_days=float(ttl), expires_at=entries.expiry(now_dt, float(ttl), e["pinned"]),
                content_hash=op.content_hash, source=proposal.provenance.source,
                eligible=int(proposal.provenance.eligible),
                evidence_hash=proposal.provenance.evidence_hash,
            )
            rows.append(row)
            items.append(_item(op, cur, row))
        elif op.action == "supersede":
            assert op.entry is not None
            old = entries.update(tx, cur["id"], status="superseded",
                                 revision=cur["revision"] + 1, updated_at=now, status_at=now)
            entries.check_title(tx, cur["owner"], *op.namespace, op.entry["title"], None,
                                reveal=caller.reveals(*op.namespace))
            new = entries.insert(tx, cur["owner"], *op.namespace, op.entry, op.content_hash,
                                 proposal.provenance, now_dt, next(fresh))
            old = entries.update(tx, cur["id"], superseded_by=new["id"])
            rows.extend([old, new])
            items.append(_item(op, cur, old))
            items.append({"action": "add", "entry_id": new["id"], "revision_before": None,
                          "revision_after": 1, "content_hash": new["content_hash"]})
        elif op.action == "archive":
            if op.covered_by is not None:
                cov = entries.load(tx, caller.view, op.covered_by["id"])
                # A covering entry the caller may not read is not looked at
                # for it: success or failure would tell its status and revision.
                if (cov is None or (caller.reads is not None
                                    and not caller.reveals(cov["target"], cov["scope"]))
                        or cov["status"] != "active"
                        or cov["revision"] != op.covered_by["expected_revision"]):
                    raise Conflict("covered_target_changed")
            row = entries.update(tx, cur["id"], status="archived",
                                 revision=cur["revision"] + 1, updated_at=now, status_at=now)
            rows.append(row)
            items.append(_item(op, cur, row))
        elif op.action == "remove":
            row = entries.destroy(tx, cur["id"], now)
            removed.append(cur["id"])
            rows.append(row)
            items.append(_item(op, cur, row))
    for (target, scope), used in usage_before.items():
        now_used = entries.active_bytes(tx, holder(target, scope), target, scope)
        if now_used > used and now_used > limits.scope_budget_bytes:
            # A pending proposal's caller (``reads`` None) is answered to the
            # operator, at approval: the figures are the operator's to see.
            raise entries.budget_exceeded(
                used, now_used - used, limits.scope_budget_bytes,
                reveal=caller.reads is None or caller.reveals(target, scope))
    if not items:
        return Applied(None, rows, warnings, removed, unchanged=unchanged_count > 0)
    operation_id = random_id("op")
    tx.record_operation(operation_id, owner, now,
                        proposal.ops[0].action if len(proposal.ops) == 1 else "batch",
                        caller.channel, pack_items(items))
    return Applied(operation_id, rows, warnings, removed, unchanged=False)


def _item(op: Op, before: dict[str, Any] | None, after: dict[str, Any]) -> dict[str, Any]:
    return {"action": op.action, "entry_id": after["id"],
            "revision_before": before["revision"] if before else None,
            "revision_after": after["revision"], "content_hash": after["content_hash"]}


# The keys of a journal item, in order, for each kind: a write's (``_item``)
# and an undo's (daemon/pipeline/undo.py). The operations row keeps an item of one of
# these shapes as the array of its values, not repeating the keys every row
# holds (~70 bytes an item); the two shapes differ in length.
_ITEM_SHAPES: dict[int, tuple[str, ...]] = {len(shape): shape for shape in (
    ("action", "entry_id", "revision_before", "revision_after", "content_hash"),
    ("action", "undoes", "entry_id", "revision_before", "revision_after", "content_hash"),
)}


def pack_items(items: list[dict[str, Any]]) -> str:
    """The ``operations.items`` text for a journal operation's items."""
    return dumps([list(item.values()) if _ITEM_SHAPES.get(len(item)) == tuple(item) else item
                  for item in items])


def unpack_items(text: str) -> list[dict[str, Any]]:
    """The items ``pack_items`` stored (an object, as rows before schema 6
    hold every item, is read as it is)."""
    return [dict(zip(_ITEM_SHAPES[len(item)], item, strict=True)) if isinstance(item, list)
            else item for item in loads(text)]


def audit_operation(tx: Tx, caller: Caller, verdict: Verdict, applied: Applied, now: str,
                    **details: Any) -> None:
    tx.audit(
        "operation", now,
        subject=audit_subject(caller.subject),
        capability=_MEMORY_WRITE,
        resource=verdict.resources[0],
        decision_id=verdict.decision_id,
        effect=_ALLOW,
        rule_ids=list(verdict.rule_ids),
        entry_ids=[r["id"] for r in applied.rows],
        revisions=[r["revision"] for r in applied.rows],
        content_hashes=[r["content_hash"] for r in applied.rows],
        details={"operation_id": applied.operation_id, **details},
    )




def audit_rejection(tx: Tx, caller: Caller, verdict: Verdict, ops: list[Op],
                    exc: MemorydError, now: str, *, withheld: frozenset[int],
                    rule_ids: tuple[str, ...]) -> None:
    """The event of a write the content checks refused. ``withheld``:
    positions of ops whose scope name the scan refuses, read from the scopes
    themselves (``content_scan.ScanVerdict.withheld``): the error's findings cannot
    tell, as they stop at ``MAX_DETAIL_FINDINGS`` and an empty or oversized
    entry is refused before any text is scanned. ``rule_ids``: every rule
    the scan's findings name (``ScanVerdict.refused_by``), for the same
    reason: the error's own list stops at fifty findings."""
    findings = (exc.details or {}).get("findings", [])
    # A refused scope name never reaches the permanent chain, not even inside
    # the resource string.
    scope_refused = bool(withheld) or any(isinstance(f, dict) and f.get("field") == "scope"
                                          for f in findings)
    tx.audit(
        "content_rejected", now,
        subject=audit_subject(caller.subject),
        capability=_MEMORY_WRITE,
        resource=WITHHELD_RESOURCE if scope_refused else verdict.resources[0],
        decision_id=verdict.decision_id,
        effect="deny",
        rule_ids=sorted({*rule_ids, *(f["rule_id"] for f in findings
                                      if isinstance(f, dict) and "rule_id" in f)}),
        entry_ids=[op.entry_id for op in ops if op.entry_id],
        content_hashes=[op.content_hash for op in ops if op.content_hash],
        details={"code": exc.code, "policy_hash": verdict.policy_hash},
    )


def apply(tx: Tx, caller: Caller, proposal: Proposal, verdict: Verdict, limits: Limits,
          now_dt: datetime, *, conflict_code: str = "revision_conflict",
          action_id: str | None = None) -> Written:
    """Apply an allowed proposal with its audit events (the decision's, unless
    an approval already recorded it, then the operation's) and receipts."""
    now = fmt(now_dt)
    applied = _apply_ops(tx, caller, proposal, limits, now_dt, conflict_code=conflict_code,
                         allow_unchanged=action_id is None)
    if action_id is None:
        audit_decision(tx, caller, verdict, proposal.ops, now)
    written = Written(outcome="unchanged", decision=verdict.wire(),
                             action_id=action_id, rows=applied.rows,
                             warnings=applied.warnings)
    if applied.operation_id is None:
        return written
    details = {"action_id": action_id} if action_id is not None else {}
    audit_operation(tx, caller, verdict, applied, now, **details)
    written.outcome = "applied"
    written.operation_id = applied.operation_id
    written.receipts = [new_receipt(tx, caller.subject.owner, entry_id, now)
                        for entry_id in applied.removed]
    return written
