"""Pending actions: proposals that wait for the operator's decision (SPEC §5 step 4).

Owns: storing a proposal with its exact operations, resource strings, keyed
content hashes and policy hash, refusing one whose new title is taken;
returning the same action for an identical proposal; loading one for approval
(re-deriving its resource strings, or as a supersede: ``as_supersede``); closing
it on approve, deny or expiry; listing and showing actions to the operator.

Invariants:
- an action is stored only after the kernel asked for approval and the
  content scan passed;
- a decided or expired action keeps no proposed text, only ids and hashes;
- the pending listing carries no memory text; ``get_action`` (control channel
  only) shows the proposal to the operator who must judge it.
"""

from __future__ import annotations

import dataclasses
from datetime import datetime
from typing import Any

import msgspec

from memoryd.audit.keyed import KeyedHasher
from memoryd.daemon.clock import fmt, plus
from memoryd.daemon.ids import random_id
from memoryd.daemon.pipeline import entries
from memoryd.daemon.pipeline.entries import View
from memoryd.daemon.pipeline.writes import (
    Caller,
    Op,
    Proposal,
    Provenance,
    Verdict,
    Written,
    audit_decision,
)
from memoryd.daemon.storage.store import Tx, dumps, loads
from memoryd.daemon.storage.txn import audit_subject
from memoryd.kernel.capability import Capability, Channel, Role, Subject
from memoryd.kernel.errors import Conflict, CursorError, LimitExceeded, NotFound
from memoryd.kernel.teams import is_team_scope
from memoryd.rpc import schema

_canonical = msgspec.json.Encoder(order="sorted")


# --- proposing ---------------------------------------------------------------


def proposal_key(hasher: KeyedHasher, owner: str, ops: list[Op], prov: Provenance) -> str:
    return hasher.content(_canonical.encode(
        {"owner": owner, "ops": [o.wire() for o in ops], "source": prov.source,
         "evidence": prov.evidence_hash}).decode())


def propose(
    tx: Tx, caller: Caller, proposal: Proposal, verdict: Verdict, hasher: KeyedHasher,
    now_dt: datetime, pending_ttl_days: float, max_pending: int,
) -> Written:
    _check_new_titles(tx, caller, proposal)
    now = fmt(now_dt)
    owner = caller.subject.owner
    key = proposal_key(hasher, owner, proposal.ops, proposal.provenance)
    existing = tx.one(
        "SELECT action_id FROM actions WHERE owner = ? AND proposal_key = ? AND status = 'pending'"
        " AND expires_at > ?", (owner, key, now))
    if existing is not None:
        return Written(outcome="pending", action_id=existing["action_id"],
                       decision=verdict.wire())
    count = tx.one("SELECT count(*) AS n FROM actions WHERE owner = ? AND status = 'pending'"
                   " AND expires_at > ?", (owner, now))
    if count is not None and count["n"] >= max_pending:
        raise LimitExceeded.cap("rate_limited", "max_pending_actions", max_pending,
                                pending_actions=count["n"])
    action_id = random_id("act")
    summary = [{"action": o.action, "target": o.target, "scope": o.scope,
                "entry_id": o.entry_id, "expected_revision": o.expected_revision,
                "content_hash": o.content_hash} for o in proposal.ops]
    stored = {
        **stored_ops(proposal.ops),
        "provenance": {"source": proposal.provenance.source,
                       "eligible": proposal.provenance.eligible,
                       "evidence_hash": proposal.provenance.evidence_hash,
                       "episode": proposal.provenance.episode},
        "subject": audit_subject(caller.subject),
        "default_scope": caller.default_scope,
        "read_allowed": caller.read_allowed,
    }
    tx.exec(
        "INSERT INTO actions(action_id, owner, status, created_at, expires_at, task_id, channel,"
        " proposal, proposal_key, resources, content_hashes, policy_hash, ops_summary, entry_ids)"
        " VALUES (?, ?, 'pending', ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        (action_id, owner, now, fmt(plus(now_dt, days=pending_ttl_days)), caller.task_id,
         caller.channel, dumps(stored), key, dumps(list(verdict.resources)),
         dumps([o.content_hash for o in proposal.ops if o.content_hash]),
         verdict.policy_hash, dumps(summary),
         dumps([o.entry_id for o in proposal.ops if o.entry_id])),
    )
    audit_decision(tx, caller, verdict, proposal.ops, now, action_id=action_id)
    tx.audit("action_proposed", now, subject=audit_subject(caller.subject),
             capability=Capability.MEMORY_WRITE.value, resource=verdict.resources[0],
             decision_id=verdict.decision_id, effect=verdict.effect.value,
             entry_ids=[o.entry_id for o in proposal.ops if o.entry_id],
             content_hashes=[o.content_hash for o in proposal.ops if o.content_hash],
             details={"action_id": action_id, "policy_hash": verdict.policy_hash})
    return Written(outcome="pending", action_id=action_id, decision=verdict.wire())


def _check_new_titles(tx: Tx, caller: Caller, proposal: Proposal) -> None:
    """Refuse, before it is queued, a proposal that can only fail at approval:
    an ``add`` whose title an active entry of its scope holds
    (``duplicate_title``, naming the holder). Only where the caller may read
    the scope: a task without read learns nothing of what is stored, and its
    proposal waits as any other (docs/decisions/0340)."""
    for op in proposal.ops:
        if op.action == "add" and op.entry is not None and caller.reveals(*op.namespace):
            entries.check_title(tx, caller.view.holder(*op.namespace), *op.namespace,
                                op.entry["title"], None)


def as_supersede(tx: Tx, caller: Caller, proposal: Proposal) -> Proposal:
    """``proposal`` with each ``add`` whose title an active entry of its scope
    now holds turned into a ``supersede`` of that entry at its current
    revision (the operator approving a stale proposal, docs/decisions/0340).
    The writer refuses any other revision, so the holder cannot change
    between this read and the write unnoticed."""
    ops = []
    for op in proposal.ops:
        if op.action == "add" and op.entry is not None:
            held = entries.titled(tx, caller.view.holder(*op.namespace), *op.namespace,
                                  op.entry["title"])
            if held is not None:
                op = dataclasses.replace(op, action="supersede", entry_id=held["id"],
                                         expected_revision=int(held["revision"]))
        ops.append(op)
    return Proposal(ops, proposal.provenance)


def stored_ops(ops: list[Op]) -> dict[str, Any]:
    """A proposal's ops as stored with its action: what approval scans and
    applies (``loaded_ops`` reads them back)."""
    # Whether each summary was derived is kept beside the ops, not in them:
    # the ops' wire form is also the proposal's dedup key.
    return {"ops": [o.wire() for o in ops],
            "summary_derived": [o.summary_derived for o in ops]}


def loaded_ops(stored: dict[str, Any]) -> list[Op]:
    """The ops ``stored_ops`` kept (an action stored before the summary flag
    was kept tells a derived summary by comparing it with the body)."""
    derived = stored.get("summary_derived") or [None] * len(stored["ops"])
    return [dataclasses.replace(Op.from_wire(o), summary_derived=d)
            for o, d in zip(stored["ops"], derived, strict=True)]


# --- pending actions -----------------------------------------------------------


def load_pending(tx: Tx, action_id: str, now: str) -> tuple[dict[str, Any], Caller, Proposal]:
    row = tx.one("SELECT * FROM actions WHERE action_id = ?", (action_id,))
    if row is None:
        raise NotFound("action_not_found")
    if row["status"] != "pending" or row["expires_at"] <= now:
        raise Conflict("already_decided", details={"status": row["status"]})
    stored = loads(row["proposal"])
    subj = stored["subject"]
    scopes = {(o["target"], o["scope"]) for o in stored["ops"]}
    caller = Caller(
        subject=Subject(channel=Channel(subj["channel"]), role=Role(subj["role"]),
                        owner=subj["owner"], task_id=subj["task_id"]),
        # The proposal was checked against the task's view, team scopes
        # included (frozen at task.begin): its ops name only scopes it held.
        view=View(subj["owner"], frozenset(scopes),
                  frozenset(s for t, s in scopes if is_team_scope(t, s))),
        default_scope=stored["default_scope"],
        user_scope=subj["owner"],
        channel=subj["channel"],
        read_allowed=stored["read_allowed"],
        task_id=subj["task_id"],
    )
    prov = stored["provenance"]
    proposal = Proposal(loaded_ops(stored),
                        Provenance(prov["source"], prov["eligible"], prov["evidence_hash"],
                                   prov.get("episode"), proposed_at=row["created_at"]))
    # The resource strings decided at proposal time must be re-derivable now.
    if tuple(op.resource().canonical() for op in proposal.ops) != tuple(loads(row["resources"])):
        raise Conflict("decision_stale")
    return row, caller, proposal


def close_action(tx: Tx, action_id: str, status: str, now: str,
                 result: Written | None, reason: str | None = None) -> None:
    # A decided action keeps no proposed text: only ids and hashes remain,
    # and the operator's own reason for a denial (docs/decisions/0240).
    summary = None
    if result is not None:
        summary = dumps({"operation_id": result.operation_id,
                         "entry_ids": [r["id"] for r in result.rows],
                         "revisions": [r["revision"] for r in result.rows]})
    elif reason is not None:
        summary = dumps({"reason": reason})
    tx.exec("UPDATE actions SET status = ?, decided_at = ?, proposal = NULL, result = ?"
            " WHERE action_id = ?", (status, now, summary, action_id))


def expire_actions(tx: Tx, now: str) -> int:
    rows = tx.all("SELECT action_id, owner FROM actions WHERE status = 'pending'"
                  " AND expires_at <= ?", (now,))
    for row in rows:
        tx.exec("UPDATE actions SET status = 'expired', decided_at = ?, proposal = NULL"
                " WHERE action_id = ?", (now, row["action_id"]))
        tx.audit("action_expired", now,
                 subject=audit_subject(row["owner"], channel="control", role="operator"),
                 details={"action_id": row["action_id"]})
    return len(rows)


def pending_by_owner(tx: Tx, now: str) -> dict[str, int]:
    """Every owner's count of actions that still wait (control channel only)."""
    return {r["owner"]: r["n"] for r in tx.all(
        "SELECT owner, count(*) AS n FROM actions WHERE status = 'pending' AND expires_at > ?"
        " GROUP BY owner ORDER BY owner", (now,))}


def _outcome(row: dict[str, Any]) -> tuple[dict[str, Any] | None, str | None]:
    """A decided action's result (an approval's operation and entries) and
    the operator's reason (a denial's), from its ``result`` column."""
    kept = loads(row["result"])
    if not isinstance(kept, dict):
        return None, None
    if row["status"] == "denied":
        reason = kept.get("reason")
        return None, reason if isinstance(reason, str) else None
    return kept, None


def _action_summary(tx: Tx, row: dict[str, Any]) -> schema.ActionSummary:
    return schema.ActionSummary(
        action_id=row["action_id"], status=row["status"], owner=row["owner"],
        created_at=row["created_at"], expires_at=row["expires_at"],
        decided_at=row["decided_at"], ops_summary=loads(row["ops_summary"]),
        proposed_by=_proposer(tx, row))


def _proposer(tx: Tx, row: dict[str, Any]) -> schema.Proposer:
    """Who proposed an action: its channel, its task and the token that task
    was begun with, by id (labels are text; memctl shows them from token.list)."""
    token = None
    if row["task_id"] is not None:
        found = tx.one("SELECT token_id FROM tasks WHERE task_id = ?", (row["task_id"],))
        token = found["token_id"] if found is not None else None
    return schema.Proposer(channel=row["channel"], task_id=row["task_id"], token=token)


def list_actions(tx: Tx, status: str | None, cursor: str | None, now: str) -> schema.ActionPage:
    status = status or "pending"
    after = cursor or ""
    rows = tx.all("SELECT * FROM actions WHERE status = ? AND action_id > ?"
                  " ORDER BY action_id LIMIT 51", (status, after))
    more = len(rows) > 50
    rows = rows[:50]
    return schema.ActionPage(items=[_action_summary(tx, r) for r in rows],
                             next_cursor=rows[-1]["action_id"] if more else None)


def get_action(tx: Tx, action_id: str) -> schema.ActionDetail:
    row = tx.one("SELECT * FROM actions WHERE action_id = ?", (action_id,))
    if row is None:
        raise NotFound("action_not_found")
    stored = loads(row["proposal"])
    return schema.ActionDetail(
        **msgspec.structs.asdict(_action_summary(tx, row)),
        resources=loads(row["resources"]),
        content_hashes=loads(row["content_hashes"]),
        policy_hash=row["policy_hash"],
        result=_outcome(row)[0],
        reason=_outcome(row)[1],
        # The operator (control channel) sees what they are asked to approve.
        ops=[
            {"action": o.action, "target": o.target, "scope": o.scope, "entry_id": o.entry_id,
             "expected_revision": o.expected_revision, "entry": _entry_out(o.entry)}
            for o in loaded_ops(stored)
        ] if stored else None,
    )


def agent_actions(tx: Tx, task_id: str, token_id: str | None, owner: str,
                  p: schema.MemoryActions) -> schema.AgentActionPage:
    """The actions ``task_id`` or any task begun with ``token_id`` proposed,
    newest first; one by id when asked. Any other action, another owner's or
    another token's, is ``action_not_found`` as an id that does not exist."""
    # A task begun without a token matches by its own id only ('' is no token id).
    args: list[Any] = [owner, task_id, token_id or ""]
    sql = ("SELECT a.action_id, a.status, a.created_at, a.expires_at, a.decided_at, a.result"
           " FROM actions a LEFT JOIN tasks t ON t.task_id = a.task_id"
           " WHERE a.owner = ? AND (a.task_id = ? OR t.token_id = ?)")
    if p.action_id is not None:
        row = tx.one(sql + " AND a.action_id = ?", (*args, p.action_id))
        if row is None:
            raise NotFound("action_not_found")
        return schema.AgentActionPage(items=[_agent_action(row)], next_cursor=None)
    if p.cursor is not None:
        created, sep, after = p.cursor.partition("|")
        if not sep or not after:
            raise CursorError("cursor_invalid")
        sql += " AND (a.created_at < ? OR (a.created_at = ? AND a.action_id < ?))"
        args += [created, created, after]
    rows = tx.all(sql + " ORDER BY a.created_at DESC, a.action_id DESC LIMIT ?",
                  (*args, p.page_size + 1))
    more = len(rows) > p.page_size
    rows = rows[:p.page_size]
    last = rows[-1] if more else None
    return schema.AgentActionPage(
        items=[_agent_action(r) for r in rows],
        next_cursor=f"{last['created_at']}|{last['action_id']}" if last else None)


def _agent_action(row: dict[str, Any]) -> schema.AgentAction:
    result, reason = _outcome(row)
    entry_ids = result.get("entry_ids") if result is not None else None
    return schema.AgentAction(
        action_id=row["action_id"], status=row["status"], created_at=row["created_at"],
        expires_at=row["expires_at"], decided_at=row["decided_at"], reason=reason,
        entry_ids=[str(e) for e in entry_ids] if isinstance(entry_ids, list) else [])


def _entry_out(entry: dict[str, Any] | None) -> dict[str, Any] | None:
    # The operator sees every field; one the caller left out is null.
    return None if entry is None else {
        k: (None if v is msgspec.UNSET else v) for k, v in entry.items()}
