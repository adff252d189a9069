"""The governed write path (SPEC §5): normalise, decide, scan, propose or apply.

Owns: turning a ``memory.write`` call into operations, their resource strings
and the kernel's decision; idempotency records; and applying operations
atomically with their audit events. Pending actions live in
``daemon/actions.py``.

Invariants:
- the idempotency key is checked before anything else;
- the kernel decides before any stored content is compared, so a task without
  ``read`` learns nothing about stored entries from a write's answer;
- content is scanned before anything is stored, pending actions included;
- all operations of one call commit together with their audit events, or
  nothing does; a revision mismatch changes nothing;
- an idempotency record keeps ids and revisions only and re-reads entries on
  replay;
- a caller without ``read`` gets ids, the revisions its own write made,
  outcomes and errors only: no stored text, no revision or id it did not hold
  (``EntryRef`` answers, conflict details withheld).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

import msgspec

from memoryd.audit.keyed import KeyedHasher
from memoryd.daemon.clock import fmt, plus
from memoryd.daemon.entries import View, content_hash, derive_summary, load, to_wire
from memoryd.daemon.ids import entry_id, random_id
from memoryd.daemon.store import Tx, dumps, loads
from memoryd.kernel.capability import (
    Capability,
    Effect,
    Resource,
    Subject,
    most_restrictive,
)
from memoryd.kernel.decide import decide
from memoryd.kernel.entry_text import entry_texts
from memoryd.kernel.errors import Conflict, Denied, LimitExceeded, MemorydError, NotFound
from memoryd.kernel.policy import Policy
from memoryd.kernel.retention import default_ttl_days
from memoryd.kernel.scan import check_fields
from memoryd.rpc import schema
from memoryd.rpc.errors import InvalidParams

MAX_OPS = 50
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


@dataclass
class Op:
    action: str
    target: str
    scope: str
    entry_id: str | None
    expected_revision: int | None
    entry: dict[str, Any] | None  # normalised new content (type, title, body, summary, ...)
    content_hash: str | None
    reason_given: bool = False
    covered_by: dict[str, Any] | None = None

    def resource(self) -> Resource:
        return Resource(
            target="user" if self.target == "user" else "memory",
            scope=self.scope,
            action=self.action,
            entry_id=self.entry_id,
            expected_revision=self.expected_revision,
            content_hash=self.content_hash,
            type=self.entry["type"] if self.entry else None,
        )

    def wire(self) -> dict[str, Any]:
        return {
            "action": self.action, "target": self.target, "scope": self.scope,
            "entry_id": self.entry_id, "expected_revision": self.expected_revision,
            "entry": self.entry, "content_hash": self.content_hash,
            "reason_given": self.reason_given, "covered_by": self.covered_by,
        }

    @classmethod
    def from_wire(cls, data: dict[str, Any]) -> Op:
        return cls(**data)


@dataclass
class Provenance:
    source: str
    eligible: bool
    evidence_hash: str | None = None


@dataclass
class Proposal:
    ops: list[Op]
    provenance: Provenance
    warnings: list[str] = field(default_factory=list)


# --- normalising -------------------------------------------------------------


def _bad(path: str, expected: str) -> InvalidParams:
    return InvalidParams([{"path": path, "expected": expected}])


def normalise_unscanned(p: schema.MemoryWrite, caller: Caller, hasher: KeyedHasher) -> Proposal:
    """Resolve targets, scopes and operands; content is scanned later by ``scan_ops``."""
    if p.action == "batch":
        if p.ops is None:
            raise _bad("$.ops", "array of operations (required for batch)")
        if len(p.ops) > MAX_OPS:
            raise LimitExceeded("batch_too_large", details={"max_ops": MAX_OPS})
        raw_ops = [
            (o, o.target or p.target, o.scope or p.scope, f"$.ops[{i}]")
            for i, o in enumerate(p.ops)
        ]
    else:
        if p.ops is not None:
            raise _bad("$.ops", "absent unless action is batch")
        single = schema.WriteOp(
            action=p.action, id=p.id, expected_revision=p.expected_revision, entry=p.entry,
            reason=p.reason, covered_by=p.covered_by,
        )
        raw_ops = [(single, p.target, p.scope, "$")]
    provenance = _provenance(p, caller, hasher)
    ops = [
        _op(o, target, scope, path, caller, hasher)
        for o, target, scope, path in raw_ops
    ]
    return Proposal(ops, provenance)


def _is_time(text: str) -> bool:
    try:
        datetime.fromisoformat(text.replace("z", "Z").replace("t", "T"))
    except ValueError:
        return False
    return True


def _provenance(p: schema.MemoryWrite, caller: Caller, hasher: KeyedHasher) -> Provenance:
    # Provenance is set by the daemon, never trusted from the caller (SPEC §7).
    if caller.channel == "control":
        if p.source == "import":
            return Provenance("import", eligible=False)
        return Provenance("user", eligible=True)
    if p.source == "extraction":
        if p.evidence is None:
            raise _bad("$.evidence", "object with user_message (required for extraction)")
        # Eligible for recall only if every new body is found verbatim in the
        # cited message; the verdict and a keyed hash are kept, never the message.
        bodies = [e.body for e in [p.entry, *(o.entry for o in p.ops or ())] if e is not None]
        verbatim = bool(bodies) and all(b.strip() in p.evidence.user_message for b in bodies)
        return Provenance("extraction", eligible=verbatim,
                          evidence_hash=hasher.message(p.evidence.user_message))
    return Provenance("agent", eligible=True)


def _op(
    o: schema.WriteOp,
    target: str | None,
    scope: str | None,
    path: str,
    caller: Caller,
    hasher: KeyedHasher,
) -> Op:
    target = target or "memory"
    if target == "user":
        if scope is not None and scope != caller.user_scope:
            raise Denied("scope_mismatch")
        scope = caller.user_scope
    else:
        scope = scope or caller.default_scope
    if not caller.view.allows(target, scope):
        raise Denied("scope_mismatch")
    needs_entry = o.action in ("add", "replace", "supersede")
    if o.action != "add":
        if o.id is None:
            raise _bad(f"{path}.id", "str (required for this action)")
        if o.expected_revision is None:
            raise Conflict("missing_revision")
    if needs_entry and o.entry is None:
        raise _bad(f"{path}.entry", "object (required for this action)")
    if o.action == "archive" and o.reason is None:
        raise _bad(f"{path}.reason", "str (required for archive)")
    entry = None
    chash = None
    if needs_entry:
        assert o.entry is not None
        e = o.entry
        if e.validity and e.validity.until is not None and not _is_time(e.validity.until):
            raise _bad(f"{path}.entry.validity.until", "RFC 3339 date-time")
        summary = e.summary if e.summary is not None else derive_summary(e.body)
        entry = {
            "type": e.type,
            "title": e.title,
            "body": e.body,
            "summary": summary,
            "basis": msgspec.to_builtins(e.basis) if e.basis is not msgspec.UNSET else "unset",
            "validity": (msgspec.to_builtins(e.validity)
                         if e.validity is not msgspec.UNSET else "unset"),
            "ttl_days": e.ttl_days,
            "pinned": e.pinned,
        }
        chash = content_hash(hasher, e.type, e.title, summary, e.body)
    return Op(
        action=o.action,
        target=target,
        scope=scope,
        entry_id=o.id,
        expected_revision=o.expected_revision,
        entry=entry,
        content_hash=chash,
        reason_given=o.reason is not None,
        covered_by=msgspec.to_builtins(o.covered_by) if o.covered_by else None,
    )


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
            decision_id=self.decision_id, effect=self.effect.value, rule_ids=list(self.rule_ids)
        )


def for_review(verdict: Verdict) -> Verdict:
    """``verdict`` tightened to ``requires_approval``: content a rule flagged for
    the operator's review is never applied without them."""
    return dataclasses.replace(verdict, effect=Effect.REQUIRES_APPROVAL,
                               rule_ids=(*verdict.rule_ids, "scan.review"))


def decide_ops(caller: Caller, ops: list[Op], policy: Policy) -> Verdict:
    decision_id = random_id("dec")
    decisions = [
        decide(caller.subject, Capability.MEMORY_WRITE, op.resource(), policy,
               decision_id=decision_id, grants=caller.grants,
               method="memory.write" if caller.grants is not None else None)
        for op in ops
    ]
    effect = most_restrictive(d.effect for d in decisions)
    rule_ids = tuple(dict.fromkeys(r for d in decisions for r in d.rule_ids))
    explicit = any(d.explicit for d in decisions if d.effect == effect)
    return Verdict(decision_id, effect, rule_ids, explicit, policy.hash,
                   tuple(op.resource().canonical() for op in ops))


def subject_wire(subject: Subject) -> dict[str, Any]:
    # Subject normalises channel and role to their enums on construction.
    return {"channel": subject.channel.value, "role": subject.role.value,
            "owner": subject.owner, "task_id": subject.task_id}


def audit_decision(tx: Tx, caller: Caller, verdict: Verdict, ops: list[Op], now: str,
                   **details: Any) -> None:
    tx.audit(
        "decision", now,
        subject=subject_wire(caller.subject),
        capability=Capability.MEMORY_WRITE.value,
        resource=verdict.resources[0],
        decision_id=verdict.decision_id,
        effect=verdict.effect.value,
        rule_ids=list(verdict.rule_ids),
        entry_ids=[op.entry_id for op in ops if op.entry_id],
        content_hashes=[op.content_hash for op in ops if op.content_hash],
        details={"policy_hash": verdict.policy_hash, "explicit": verdict.explicit,
                 "resources": list(verdict.resources), **details},
    )


# --- idempotency -------------------------------------------------------------


def request_hash(hasher: KeyedHasher, p: schema.MemoryWrite) -> str:
    body = msgspec.structs.replace(p, idempotency_key=None)
    return hasher.content(_canonical.encode(body).decode())


def idempotent_replay(tx: Tx, owner: str, key: str, rhash: str, view: View,
                      now: str, *, read_allowed: bool = True) -> schema.WriteResult | None:
    row = tx.one("SELECT request_hash, answer FROM idempotency WHERE owner = ? AND key = ?",
                 (owner, key))
    if row is None:
        return None
    if row["request_hash"] != rhash:
        raise Conflict("idempotency_conflict")
    answer = loads(row["answer"])
    entries: list[schema.Entry] | list[schema.EntryRef]
    if read_allowed:
        entries = [to_wire(r, now) for r in
                   (load(tx, view, i) for i in answer["entry_ids"]) if r is not None]
    else:
        # The first answer again, from the record: never the current content.
        entries = [schema.EntryRef(id=i, revision=r)
                   for i, r in zip(answer["entry_ids"], answer["revisions"], strict=True)]
    receipt = None
    if answer.get("receipt_id"):
        rrow = tx.one("SELECT * FROM receipts WHERE receipt_id = ?", (answer["receipt_id"],))
        if rrow is not None:
            receipt = receipt_wire(rrow)
    return schema.WriteResult(
        outcome=answer["outcome"],
        operation_id=answer["operation_id"],
        action_id=answer.get("action_id"),
        decision=schema.DecisionOut(**answer["decision"]),
        entries=entries,
        receipt=receipt,
        warnings=answer.get("warnings", []),
    )


def remember(tx: Tx, owner: str, key: str | None, rhash: str, result: schema.WriteResult,
             now: str) -> None:
    if key is None:
        return
    answer = {
        "outcome": result.outcome,
        "operation_id": result.operation_id,
        "action_id": result.action_id,
        "decision": msgspec.to_builtins(result.decision),
        "entry_ids": [e.id for e in result.entries],
        "revisions": [e.revision for e in result.entries],
        "receipt_id": result.receipt.receipt_id if result.receipt else None,
        "warnings": result.warnings,
    }
    tx.exec("INSERT INTO idempotency(owner, key, request_hash, answer, created_at)"
            " VALUES (?, ?, ?, ?, ?)", (owner, key, rhash, dumps(answer), now))


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


def _active_bytes(tx: Tx, owner: str, target: str, scope: str) -> int:
    # Kept by store triggers on every change to entries (store.scope_usage).
    row = tx.one("SELECT active_bytes AS n FROM scope_usage"
                 " WHERE owner = ? AND target = ? AND scope = ?", (owner, target, scope))
    return int(row["n"]) if row else 0


def _check_title(tx: Tx, owner: str, op: Op, title: str, except_id: str | None,
                 reveal: bool = True) -> None:
    row = tx.one("SELECT id FROM entries WHERE owner = ? AND target = ? AND scope = ?"
                 " AND title = ? AND status = 'active'", (owner, op.target, op.scope, title))
    if row is not None and row["id"] != except_id:
        # The holder's id is stored state: only a caller that may read gets it.
        raise Conflict("duplicate_title", details={"entry_id": row["id"]} if reveal else None)


def _current(tx: Tx, view: View, op: Op, conflict_code: str,
             reveal: bool = True) -> dict[str, Any]:
    """The entry ``op`` changes, at the revision it expects. ``reveal``: may
    the caller read (a task without ``read`` learns no revision or status)."""
    assert op.entry_id is not None
    row = load(tx, view, op.entry_id)
    if row is None or row["target"] != op.target or row["scope"] != op.scope:
        raise NotFound("not_found")
    if row["status"] == "removed":
        raise NotFound("not_found")
    if row["revision"] != op.expected_revision:
        raise Conflict.of(conflict_code, details={"current_revision": row["revision"]}
                          if reveal else None)
    if op.action != "remove" and row["status"] != "active":
        raise Conflict.of(conflict_code, details={"current_revision": row["revision"],
                                                  "status": row["status"]} if reveal else None)
    return row


def _save_revision(tx: Tx, row: dict[str, Any], now: str) -> None:
    tx.exec(
        "INSERT OR REPLACE INTO revisions(entry_id, revision, type, title, body, summary, basis,"
        " validity, content_hash, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        (row["id"], row["revision"], row["type"], row["title"], row["body"], row["summary"],
         row["basis"], row["validity"], row["content_hash"], now))


def _insert(tx: Tx, owner: str, op: Op, prov: Provenance, now_dt: datetime) -> dict[str, Any]:
    assert op.entry is not None
    e = op.entry
    now = fmt(now_dt)
    ttl = e["ttl_days"] or default_ttl_days(e["type"])
    basis = e["basis"] if e["basis"] not in ("unset", None) else {"kind": "unknown", "note": ""}
    validity = e["validity"] if e["validity"] != "unset" else None
    row = {
        "id": entry_id(now_dt), "owner": owner, "target": op.target, "scope": op.scope,
        "type": e["type"], "title": e["title"], "body": e["body"], "summary": e["summary"],
        "status": "active", "revision": 1, "source": prov.source, "eligible": int(prov.eligible),
        "basis": dumps(basis), "validity": dumps(validity) if validity else None,
        "pinned": int(e["pinned"]), "created_at": now, "updated_at": now, "renewed_at": now,
        "ttl_days": float(ttl), "expires_at": fmt(plus(now_dt, days=ttl)), "use_count": 0,
        "last_used_at": None, "superseded_by": None, "content_hash": op.content_hash,
        "evidence_hash": prov.evidence_hash, "archive_reason": None, "status_at": now,
    }
    cols = ", ".join(row)
    tx.exec(f"INSERT INTO entries({cols}) VALUES ({', '.join('?' * len(row))})",  # noqa: S608 (column names are ours)
            tuple(row.values()))
    _save_revision(tx, row, now)
    return row


def _update(tx: Tx, entry_id_: str, **changes: Any) -> dict[str, Any]:
    sets = ", ".join(f"{k} = ?" for k in changes)
    tx.exec(f"UPDATE entries SET {sets} WHERE id = ?",  # noqa: S608 (column names are ours)
            (*changes.values(), entry_id_))
    row = tx.one("SELECT * FROM entries WHERE id = ?", (entry_id_,))
    assert row is not None
    return row


def apply_ops(
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
    # Every stored byte counts toward the scope budget (store.USAGE_TRIGGERS),
    # so it is checked on the totals the triggers leave, not on a guess.
    # A team scope's rows are held by the team (daemon/teams.py): titles,
    # budgets and new rows are the team's there, the caller's elsewhere.
    holder = caller.view.holder
    usage_before = {(op.target, op.scope): _active_bytes(tx, holder(op.target, op.scope),
                                                         op.target, op.scope)
                    for op in proposal.ops}
    for op in proposal.ops:
        if op.action == "add":
            assert op.entry is not None
            _check_title(tx, holder(op.target, op.scope), op, op.entry["title"], None,
                         caller.read_allowed)
            row = _insert(tx, holder(op.target, op.scope), op, proposal.provenance, now_dt)
            rows.append(row)
            items.append(_item(op, None, row))
            continue
        cur = _current(tx, caller.view, op, conflict_code, caller.read_allowed)
        if op.action == "replace":
            assert op.entry is not None
            e = op.entry
            same_text = (e["type"], e["title"], e["body"], e["summary"]) == (
                cur["type"], cur["title"], cur["body"], cur["summary"])
            validity = loads(cur["validity"]) if e["validity"] == "unset" else e["validity"]
            if e["basis"] == "unset" or e["basis"] is None:
                basis = loads(cur["basis"])
                if not same_text:
                    basis = {"kind": "unknown", "note": ""}
                    if BASIS_WARNING not in warnings:
                        warnings.append(BASIS_WARNING)
            else:
                basis = e["basis"]
            ttl = e["ttl_days"] or cur["ttl_days"]
            if (allow_unchanged and caller.read_allowed and same_text
                    and basis == loads(cur["basis"]) and validity == loads(cur["validity"])
                    and float(ttl) == cur["ttl_days"] and int(e["pinned"]) == cur["pinned"]):
                unchanged_count += 1
                rows.append(cur)
                continue
            if e["title"] != cur["title"]:
                _check_title(tx, cur["owner"], op, e["title"], cur["id"], caller.read_allowed)
            row = _update(
                tx, cur["id"], type=e["type"], title=e["title"], body=e["body"],
                summary=e["summary"], basis=dumps(basis),
                validity=dumps(validity) if validity else None, pinned=int(e["pinned"]),
                revision=cur["revision"] + 1, updated_at=now, renewed_at=now,
                ttl_days=float(ttl), expires_at=fmt(plus(now_dt, days=float(ttl))),
                content_hash=op.content_hash, source=proposal.provenance.source,
                eligible=int(proposal.provenance.eligible),
                evidence_hash=proposal.provenance.evidence_hash,
            )
            _save_revision(tx, row, now)
            rows.append(row)
            items.append(_item(op, cur, row))
        elif op.action == "supersede":
            assert op.entry is not None
            old = _update(tx, cur["id"], status="superseded", revision=cur["revision"] + 1,
                          updated_at=now, status_at=now)
            _check_title(tx, cur["owner"], op, op.entry["title"], None, caller.read_allowed)
            new = _insert(tx, cur["owner"], op, proposal.provenance, now_dt)
            old = _update(tx, cur["id"], superseded_by=new["id"])
            rows.extend([old, new])
            items.append(_item(op, cur, old))
            items.append({"action": "add", "entry_id": new["id"], "revision_before": None,
                          "revision_after": 1, "content_hash": new["content_hash"]})
        elif op.action == "archive":
            if op.covered_by is not None:
                cov = load(tx, caller.view, op.covered_by["id"])
                if (cov is None or cov["status"] != "active"
                        or cov["revision"] != op.covered_by["expected_revision"]):
                    raise Conflict("covered_target_changed")
            row = _update(tx, cur["id"], status="archived", revision=cur["revision"] + 1,
                          updated_at=now, status_at=now)
            rows.append(row)
            items.append(_item(op, cur, row))
        elif op.action == "remove":
            row = destroy(tx, cur["id"], now)
            removed.append(cur["id"])
            rows.append(row)
            items.append(_item(op, cur, row))
    for (target, scope), used in usage_before.items():
        now_used = _active_bytes(tx, holder(target, scope), target, scope)
        if now_used > used and now_used > limits.scope_budget_bytes:
            raise LimitExceeded.cap("scope_budget_exceeded", "scope_budget_bytes",
                                    limits.scope_budget_bytes, used_bytes=used,
                                    budget_bytes=limits.scope_budget_bytes,
                                    needed_bytes=now_used - used)
    if not items:
        return Applied(None, rows, warnings, removed, unchanged=unchanged_count > 0)
    operation_id = random_id("op")
    tx.exec("INSERT INTO operations(operation_id, owner, ts, action, channel, items)"
            " VALUES (?, ?, ?, ?, ?, ?)",
            (operation_id, owner, now,
             proposal.ops[0].action if len(proposal.ops) == 1 else "batch",
             caller.channel, dumps(items)))
    return Applied(operation_id, rows, warnings, removed, unchanged=False)


def _item(op: Op, before: dict[str, Any] | None, after: dict[str, Any]) -> dict[str, Any]:
    return {"action": op.action, "entry_id": after["id"],
            "revision_before": before["revision"] if before else None,
            "revision_after": after["revision"], "content_hash": after["content_hash"]}


def _check_budget(tx: Tx, owner: str, op: Op, extra: int, limits: Limits) -> None:
    used = _active_bytes(tx, owner, op.target, op.scope)
    if used + extra > limits.scope_budget_bytes:
        raise LimitExceeded.cap("scope_budget_exceeded", "scope_budget_bytes",
                                limits.scope_budget_bytes, used_bytes=used,
                                budget_bytes=limits.scope_budget_bytes, needed_bytes=extra)


def destroy(tx: Tx, entry_id_: str, now: str) -> dict[str, Any]:
    """Destroy an entry's text everywhere the daemon keeps it; keep id, hashes, times."""
    row = tx.one("SELECT revision FROM entries WHERE id = ?", (entry_id_,))
    assert row is not None
    tx.exec("UPDATE revisions SET type = NULL, title = NULL, body = NULL, summary = NULL,"
            " basis = NULL, validity = NULL WHERE entry_id = ?", (entry_id_,))
    # Pending proposals that would change this entry carry text about it: they
    # can never apply now, so they fail and drop their proposals.
    for action in tx.all("SELECT action_id, entry_ids FROM actions WHERE status = 'pending'"):
        if entry_id_ in loads(action["entry_ids"]):
            tx.exec("UPDATE actions SET status = 'failed', proposal = NULL, decided_at = ?"
                    " WHERE action_id = ?", (now, action["action_id"]))
    return _update(tx, entry_id_, title="", body="", summary="", basis=dumps({"kind": "unknown"}),
                   validity=None, archive_reason=None, status="removed",
                   revision=row["revision"] + 1, updated_at=now, status_at=now,
                   evidence_hash=None)


def audit_operation(tx: Tx, caller: Caller, verdict: Verdict, applied: Applied, now: str,
                    **details: Any) -> None:
    tx.audit(
        "operation", now,
        subject=subject_wire(caller.subject),
        capability=Capability.MEMORY_WRITE.value,
        resource=verdict.resources[0],
        decision_id=verdict.decision_id,
        effect=Effect.ALLOW.value,
        rule_ids=list(verdict.rule_ids),
        entry_ids=[r["id"] for r in applied.rows],
        revisions=[r["revision"] for r in applied.rows],
        content_hashes=[r["content_hash"] for r in applied.rows],
        details={"operation_id": applied.operation_id, **details},
    )




# --- scanning ----------------------------------------------------------------


# Enumerations of an entry: walked like any field, never counted as text.
_NOT_COUNTED = ("type", "basis.kind")


def scan_entry(entry: dict[str, Any], max_bytes: int, *, summary_derived: bool,
               extra: list[tuple[str, str]] | None = None) -> list[str]:
    """Every text of ``entry`` (``kernel/entry_text``) scanned, every stored byte
    counted (a summary derived from the body excepted: the caller did not
    write it); raises the rejection, else returns the rule ids flagged for the
    operator's review. ``extra`` are texts beside the entry (reason, scope)."""
    # A summary derived from the body is a cut of it: the body's scan covers
    # its text (scanning the cut again only finds what the cut broke, such
    # as half a base64 run), and the caller did not write it, so it is
    # neither scanned nor counted here. The scope budget counts it as stored.
    texts = [(path, text) for path, text in entry_texts(entry)
             if not (summary_derived and path == "summary")] + (extra or [])
    counted = [(path, text) for path, text in texts if path not in _NOT_COUNTED]
    review = check_fields(texts, max_bytes=max_bytes, counted=counted)
    return sorted({f.rule_id for f in review})


def scan_ops(proposal: Proposal, max_body_bytes: int) -> list[str]:
    """Size, then content rules, for every new text; raises the first rejection.
    Returns the rule ids that flagged something for the operator's review."""
    review: set[str] = set()
    for op in proposal.ops:
        if op.entry is not None:
            e = {k: v for k, v in op.entry.items() if v != "unset"}
            review.update(scan_entry(
                e, max_body_bytes, summary_derived=e["summary"] == derive_summary(e["body"]),
                extra=scope_texts(op.scope)))
    return sorted(review)


def text_size(p: schema.MemoryWrite) -> int:
    """Characters of new text a write carries (what ``prescan`` would read)."""
    entries = [o.entry for o in p.ops] if p.ops is not None else [p.entry]
    return sum(len(text) for e in entries if e is not None
               for _path, text in entry_texts(msgspec.to_builtins(e)))


@dataclass(frozen=True, slots=True)
class Prescan:
    """The content verdict of a write: its rejection, or the rules that flag
    it for the operator's review (empty when clean)."""

    error: MemorydError | None
    review: tuple[str, ...] = ()


_SCOPE_SEPARATORS = str.maketrans("-_.:/+@", "       ")


def scope_texts(scope: str | None) -> list[tuple[str, str]]:
    """A scope name as scanned text: as written, and with its separators read
    as spaces (``project:ignore-all-previous-instructions`` is a sentence)."""
    if scope is None:
        return []
    return [("scope", scope), ("scope", scope.translate(_SCOPE_SEPARATORS))]


REVIEW_WARNING = "content flagged for the operator's review"


def prescan(p: schema.MemoryWrite, max_body_bytes: int) -> Prescan:
    """The content verdict of a write's new texts, computed before the store is
    touched. Same texts as ``scan_ops`` sees (a missing summary is derived from
    the body), plus the caller's scope names and reasons. A batch over the
    limit is left to ``normalise_unscanned``, which refuses it without
    scanning anything."""
    carrying = ("add", "replace", "supersede")
    if p.ops is not None:
        if len(p.ops) > MAX_OPS:
            return Prescan(None)
        items = [(o.entry if o.action in carrying else None, o.scope, o.reason) for o in p.ops]
    else:
        items = [(p.entry if p.action in carrying else None, None, p.reason)]
    review: set[str] = set()
    for e, scope, reason in items:
        extra = scope_texts(scope or p.scope) + ([("reason", reason)] if reason else [])
        try:
            if e is None:
                if extra:
                    check_fields(extra, max_bytes=max_body_bytes, counted=[])
                continue
            entry = msgspec.to_builtins(e)
            derived = e.summary is None
            if derived:
                entry["summary"] = derive_summary(e.body)
            review.update(scan_entry(entry, max_body_bytes, summary_derived=derived,
                                     extra=extra))
        except MemorydError as exc:
            return Prescan(exc)
    return Prescan(None, tuple(sorted(review)))


def audit_rejection(tx: Tx, caller: Caller, verdict: Verdict, ops: list[Op],
                    exc: MemorydError, now: str) -> None:
    findings = (exc.details or {}).get("findings", [])
    # A refused scope name never reaches the permanent chain, not even inside
    # the resource string.
    scope_refused = any(isinstance(f, dict) and f.get("field") == "scope" for f in findings)
    tx.audit(
        "content_rejected", now,
        subject=subject_wire(caller.subject),
        capability=Capability.MEMORY_WRITE.value,
        resource="memory/withheld:scope_refused" if scope_refused else verdict.resources[0],
        decision_id=verdict.decision_id,
        effect="deny",
        rule_ids=sorted({f["rule_id"] for f in findings if isinstance(f, dict) and "rule_id" in f}),
        entry_ids=[op.entry_id for op in ops if op.entry_id],
        content_hashes=[op.content_hash for op in ops if op.content_hash],
        details={"code": exc.code, "policy_hash": verdict.policy_hash},
    )
