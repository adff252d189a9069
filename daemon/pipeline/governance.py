"""The governed write path, top to bottom: ``memory.write``, approval and undo.

Owns: the order of the steps every governed change takes, and the steps that
need no store — normalising a call into a proposal (``draft``, ``resolve``),
the one content scan (daemon/pipeline/content_scan.py, at proposal and at
approval time), and the kernel's decision over a proposal (``gate.Gate.decide_write``)::

    before the writer:  draft (summaries, content hashes, provenance) → scan
    (control.sock, and agent.sock for a task verified at the store's
    authorization generation: resolve → decide here too)
    in one writer transaction:
        caller (the generation unchanged, or read here) → replay? →
        resolve → decide (unless decided before) →
            deny | reject  → audit the decision / rejection → Refusal
            propose        → pending action + audit          (daemon/pipeline/actions.py)
            apply          → rows + audit + receipts         (daemon/pipeline/writes.py)
        → remember (idempotency)
    after the commit:   raise the Refusal, or shape the answer; settle receipts

The steps that need the transaction live where their data does: the caller
in daemon/access/gate.py, idempotency, applying and the audit events in
daemon/pipeline/writes.py, pending actions in daemon/pipeline/actions.py, undo in
daemon/pipeline/undo.py, entry rows in daemon/pipeline/entries.py.

Invariants:
- work that needs no store happens before the writer's transaction or after
  it: the writer runs the SQL, the audit chain, and only the decisions that
  depend on what that transaction read (an agent's task and grants, when the
  authorization generation moved since a write verified them); a
  control-channel write, an approval and an agent write on a verified task
  are decided before it;
- the idempotency key is checked before anything else in the transaction; a
  malformed call is found while drafting but refused only after it, in the
  order of the call's fields;
- a denial or a content rejection is an outcome (``Refusal``), its audit
  event committed in the same transaction that decided it; the error is
  raised only after that commit;
- a call refused before its outcome (malformed, not found, conflict) changes
  nothing and appends nothing;
- nothing logged here carries text, titles, scopes or queries: ids, codes,
  rule ids only.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

import anyio
import msgspec
import structlog

from memoryd.audit.keyed import KeyedHasher
from memoryd.daemon.access import gate, tasks, teams
from memoryd.daemon.access.gate import Caller as Resolved
from memoryd.daemon.clock import Clock, fmt
from memoryd.daemon.config import Config
from memoryd.daemon.ids import is_entry_id, random_id
from memoryd.daemon.pipeline import actions, undo, writes
from memoryd.daemon.pipeline.content_scan import (
    ScanVerdict,
    check_reason,
    op_texts,
    scan,
    scan_size,
)
from memoryd.daemon.pipeline.entries import View, content_hash, derive_summary, is_observed_time
from memoryd.daemon.pipeline.writes import (
    MAX_OPS,
    Caller,
    Op,
    Problem,
    Proposal,
    Provenance,
    Verdict,
)
from memoryd.daemon.storage.store import Store, Tx
from memoryd.daemon.storage.txn import audit_subject
from memoryd.kernel.capability import (
    Capability,
    Channel,
    Decision,
    Effect,
    Resource,
    Role,
    Subject,
)
from memoryd.kernel.errors import (
    Conflict,
    Denied,
    LimitExceeded,
    MemorydError,
    NotFound,
)
from memoryd.kernel.policy import Policy
from memoryd.rpc import schema
from memoryd.rpc.errors import InvalidParams
from memoryd.rpc.protocol import CallContext

__all__ = [
    "INLINE_SCAN_CHARS", "REVIEW_WARNING", "Draft", "Governance", "Refusal",
    "control_caller", "draft", "for_review", "request_hash", "resolve",
]

log = structlog.get_logger()

# Proposals up to this many characters of text are scanned on the event
# loop: they scan in well under a thread hop's cost (~0.1 ms).
INLINE_SCAN_CHARS = 1_024
# Tasks whose early write caller is remembered (``Governance._early``).
_EARLY_TASKS = 1_024
REVIEW_WARNING = "content flagged for the operator's review"
_canonical = msgspec.json.Encoder(order="sorted")


@dataclass(frozen=True, slots=True)
class Refusal:
    """An expected refusal: its audit event is written in the transaction that
    decided it, and ``error`` is raised to the caller after that commit."""

    error: MemorydError
    event: str  # the log event (snake_case fact)
    fields: dict[str, Any] = field(default_factory=dict)  # ids and rule ids only


def _task_open(tx: Tx, task_id: str | None, now: str) -> bool:
    """Whether task ``task_id`` still runs (not ended, not expired, its
    token live): while it does, its frozen view still holds."""
    if task_id is None:
        return False
    row = tx.one("SELECT ended_at, expires_at, token_id FROM tasks WHERE task_id = ?",
                 (task_id,))
    if row is None or row["ended_at"] is not None or row["expires_at"] <= now:
        return False
    if row["token_id"] is not None:
        try:
            gate.check_token_live(tx, row["token_id"], now)
        except Denied:
            return False
    return True


def _denial(verdict: Verdict, event: str, **details: Any) -> Refusal:
    """A policy denial of ``verdict``: the error names its decision, rules and
    ``details``; the log line its action (if any), decision and rules."""
    ids = {"decision_id": verdict.decision_id, "rule_ids": list(verdict.rule_ids)}
    action = {"action_id": details["action_id"]} if "action_id" in details else {}
    return Refusal(Denied("policy_denied", details={**ids, **details}), event, {**action, **ids})


def _rejection(tx: Tx, caller: Caller, verdict: Verdict, ops: list[Op], scanned: ScanVerdict,
               now: str, event: str, **fields: Any) -> Refusal:
    """A content rejection: its audit event now, its error after the commit."""
    assert scanned.error is not None
    writes.audit_rejection(tx, caller, verdict, ops, scanned.error, now,
                           withheld=scanned.withheld, rule_ids=scanned.refused_by)
    return Refusal(scanned.error, event, {**fields, "code": scanned.error.code})


def control_caller(owner: str) -> Caller:
    """The operator writing for ``owner`` on control.sock (no task, sees all scopes)."""
    return Caller(
        subject=Subject(channel=Channel.CONTROL, role=Role.OPERATOR, owner=owner, task_id=None),
        view=View(owner, None), default_scope="default", user_scope=tasks.user_scope(owner),
        channel="control", read_allowed=True,
    )


# --- normalising (before the writer) ----------------------------------------


@dataclass(frozen=True, slots=True)
class Draft:
    """A write normalised without the store or the caller's task: its ops
    (scopes as the caller wrote them), provenance and content hashes, plus
    the first call-level problem, raised in pipeline order by ``resolve``."""

    proposal: Proposal
    error: Problem | None = None

    @property
    def malformed(self) -> bool:
        return self.error is not None or any(op.error is not None for op in self.proposal.ops)


def _bad(path: str, expected: str) -> InvalidParams:
    return InvalidParams([{"path": path, "expected": expected}])


def draft(p: schema.MemoryWrite, channel: str, hasher: KeyedHasher) -> Draft:
    """Normalise a write before any transaction: entries, summaries, content
    hashes, provenance. Nothing is raised here: a malformed call is kept in
    the draft and refused by ``resolve``, after the idempotency check."""
    if p.action == "batch":
        if p.ops is None:
            return Draft(Proposal([], Provenance("agent", eligible=False)),
                         _bad("$.ops", "array of operations (required for batch)"))
        if len(p.ops) > MAX_OPS:
            return Draft(Proposal([], Provenance("agent", eligible=False)),
                         LimitExceeded("batch_too_large", details={"max_ops": MAX_OPS}))
        raw_ops = [(o, o.target or p.target, o.scope or p.scope, f"$.ops[{i}]")
                   for i, o in enumerate(p.ops)]
    else:
        if p.ops is not None:
            return Draft(Proposal([], Provenance("agent", eligible=False)),
                         _bad("$.ops", "absent unless action is batch"))
        single = schema.WriteOp(
            action=p.action, id=p.id, expected_revision=p.expected_revision, entry=p.entry,
            reason=p.reason, covered_by=p.covered_by,
        )
        raw_ops = [(single, p.target, p.scope, "$")]
    try:
        provenance = _provenance(p, channel, hasher)
    except InvalidParams as exc:
        return Draft(Proposal([], Provenance("agent", eligible=False)), exc)
    ops = [_op(o, target, scope, path, hasher) for o, target, scope, path in raw_ops]
    return Draft(Proposal(ops, provenance))


def resolve(d: Draft, caller: Caller) -> Proposal:
    """The draft's ops in the caller's namespaces; raises what the draft kept,
    in the order the call's fields come (each op's scope before its fields)."""
    if d.error is not None:
        raise d.error
    ops = []
    for op in d.proposal.ops:
        if op.target == "user":
            if op.scope is not None and op.scope != caller.user_scope:
                raise Denied("scope_mismatch")
            scope = caller.user_scope
        else:
            scope = op.scope or caller.default_scope
        if not caller.view.allows(op.target, scope):
            raise Denied("scope_mismatch")
        if op.error is not None:
            raise op.error
        ops.append(op.in_scope(scope))
    return Proposal(ops, d.proposal.provenance)


def _is_time(text: str) -> bool:
    try:
        datetime.fromisoformat(text.replace("z", "Z").replace("t", "T"))
    except ValueError:
        return False
    return True


def _provenance(p: schema.MemoryWrite, channel: str, hasher: KeyedHasher) -> Provenance:
    # Provenance is set by the daemon, never trusted from the caller (SPEC §7).
    if channel == "control":
        if p.source == "import":
            return Provenance("import", eligible=False)
        return Provenance("user", eligible=True)
    # 128 bits of a keyed hash of the task id (task ids are capability-like
    # handles): unique per task, and a third of the whole hash's bytes in
    # the row and its index.
    episode = None if p.task_id is None else hasher.content_of("episode", p.task_id)[4:36]
    if p.source == "extraction":
        if p.evidence is None:
            raise _bad("$.evidence", "object with user_message (required for extraction)")
        # Eligible for recall only if every new body is found verbatim in the
        # cited message; the verdict and a keyed hash are kept, never the message.
        bodies = [e.body for e in [p.entry, *(o.entry for o in p.ops or ())] if e is not None]
        verbatim = bool(bodies) and all(b.strip() in p.evidence.user_message for b in bodies)
        return Provenance("extraction", eligible=verbatim,
                          evidence_hash=hasher.message(p.evidence.user_message),
                          episode=episode)
    return Provenance("agent", eligible=True, episode=episode)


def _op_error(o: schema.WriteOp, path: str) -> Problem | None:
    needs_entry = o.action in ("add", "replace", "supersede")
    if o.action != "add":
        if o.id is None:
            return _bad(f"{path}.id", "str (required for this action)")
        if o.expected_revision is None:
            return Conflict("missing_revision")
        if not is_entry_id(o.id):
            # No entry has an id the daemon did not make. Found before any
            # decision: a deny or a proposal is audited with the op's entry id
            # before the entry is looked up, and the Id pattern lets a
            # one-word secret through.
            return NotFound("not_found")
    if o.covered_by is not None and not is_entry_id(o.covered_by.id):
        # The covering entry is named by id and stored with a proposal before
        # it is looked up; an id the daemon never made covers nothing.
        return Conflict("covered_target_changed")
    if needs_entry and o.entry is None:
        return _bad(f"{path}.entry", "object (required for this action)")
    if o.action == "archive" and o.reason is None:
        return _bad(f"{path}.reason", "str (required for archive)")
    e = o.entry
    if (needs_entry and e is not None and e.validity and e.validity.until is not None
            and not _is_time(e.validity.until)):
        return _bad(f"{path}.entry.validity.until", "RFC 3339 date-time")
    if needs_entry and e is not None and isinstance(e.observed_at, str) and not is_observed_time(
            e.observed_at):
        return _bad(f"{path}.entry.observed_at", "ISO 8601 date or date-time")
    return None


def _op(o: schema.WriteOp, target: str | None, scope: str | None, path: str,
        hasher: KeyedHasher) -> Op:
    error = _op_error(o, path)
    entry = None
    chash = None
    derived = None
    if error is None and o.action in ("add", "replace", "supersede"):
        assert o.entry is not None
        e = o.entry
        derived = e.summary is None
        summary = derive_summary(e.body) if e.summary is None else e.summary
        entry = {
            "type": e.type,
            "title": e.title,
            "body": e.body,
            "summary": summary,
            # A field the caller left out stays UNSET (``Op.wire`` leaves it out).
            "basis": msgspec.to_builtins(e.basis) if e.basis is not msgspec.UNSET else e.basis,
            "validity": (msgspec.to_builtins(e.validity)
                         if e.validity is not msgspec.UNSET else e.validity),
            "context": e.context,
            "observed_at": e.observed_at,
            "ttl_days": e.ttl_days,
            "pinned": e.pinned,
        }
        chash = content_hash(hasher, e.type, e.title, summary, e.body)
    return Op(
        action=o.action,
        target=target or "memory",
        scope=scope,
        entry_id=o.id,
        expected_revision=o.expected_revision,
        entry=entry,
        content_hash=chash,
        reason_given=o.reason is not None,
        covered_by=msgspec.to_builtins(o.covered_by) if o.covered_by else None,
        reason=o.reason,
        summary_derived=derived,
        error=error,
    )


# --- deciding ----------------------------------------------------------------


def for_review(verdict: Verdict) -> Verdict:
    """``verdict`` tightened to ``requires_approval``: content a rule flagged for
    the operator's review is never applied without them."""
    return dataclasses.replace(verdict, effect=Effect.REQUIRES_APPROVAL,
                               rule_ids=(*verdict.rule_ids, "scan.review"))


def _pending(tx: Tx, p: schema.ActionApprove,
             now: str) -> tuple[dict[str, Any], Caller, Proposal, dict[int, str]]:
    """The pending action an approval decides, as it will be applied (with
    ``as_supersede``, as the supersede it becomes), and the stored types of
    the entries it changes."""
    row, caller, proposal = actions.load_pending(tx, p.action_id, now)
    if p.as_supersede:
        proposal = actions.as_supersede(tx, caller, proposal)
    return row, caller, proposal, writes.touched_types(tx, caller.view, proposal.ops)


def _audit_action(tx: Tx, event: str, owner: str, ops: list[Op], now: str,
                  **fields: Any) -> None:
    """The operator's decision on a pending action, on the audit chain: the
    ids and keyed content hashes of what it changes, never its text."""
    tx.audit(event, now, subject=audit_subject(owner, channel="control", role="operator"),
             capability=Capability.GOVERNANCE_DECIDE.value,
             entry_ids=[o.entry_id for o in ops if o.entry_id],
             content_hashes=[o.content_hash for o in ops if o.content_hash], **fields)


def request_hash(hasher: KeyedHasher, p: schema.MemoryWrite) -> str:
    body = msgspec.structs.replace(p, idempotency_key=None)
    return hasher.content(_canonical.encode(body).decode())


@dataclass(frozen=True, slots=True)
class _Early:
    """What a write settled before the writer: the operator's caller (on
    control.sock), a verified task's caller with the authorization
    generation it holds for, and the proposal resolved and decided for
    either (None where the transaction must do it)."""

    control: Caller | None
    verified: tuple[Caller, int] | None
    decided: tuple[Proposal, Verdict] | None


@dataclass
class Governance:
    """The governed write methods, over the collaborators they need."""

    store: Store
    config: Config
    hasher: KeyedHasher
    clock: Clock
    gate: gate.Gate
    policy: Callable[[], Policy]
    # The owner id a control call writes for (its ``identity``, else the default).
    owner_for_control: Callable[[schema.Identity | None], str]
    # Settles a removal's receipt after its commit (daemon/pipeline/lifecycle.py).
    settle: Callable[[str], Awaitable[schema.ReceiptOut]]
    # Per task, the write caller last made before the writer, with the gate's
    # answer and the policy it was decided under: the call-level decision
    # depends on nothing else, so while both are the same objects it stands.
    _early: dict[str, tuple[Resolved, Policy, Caller]] = field(
        default_factory=dict, init=False, repr=False)
    # A dropped proposal's text could not be made to leave the files (a
    # reader's snapshot held it): every expiry sweep tries again until done.
    _unscrubbed: bool = field(default=False, init=False, repr=False)

    def _limits(self) -> writes.Limits:
        return writes.Limits(self.config.entry_max_bytes, self.config.scope_budget_bytes)

    async def _scan(self, proposal: Proposal) -> ScanVerdict:
        """The one content scan, before the writer: on the loop when small."""
        limit = self.config.entry_max_bytes
        # The entries' texts are found once, for the size and the scan.
        texts = op_texts(proposal)
        if scan_size(proposal, texts) <= INLINE_SCAN_CHARS:
            return scan(proposal, limit, texts)
        return await anyio.to_thread.run_sync(scan, proposal, limit, texts)

    async def _commit(self, run: Callable[[Tx], writes.Written | Refusal]) -> writes.Written:
        """Run one pipeline transaction; a refusal is raised after it committed."""
        out = await self.store.run(run)
        if isinstance(out, Refusal):
            log.info(out.event, **out.fields)
            raise out.error
        return out

    async def _answer(self, written: writes.Written, reveals: Callable[[str, str], bool],
                      now: str) -> schema.WriteResult:
        """Shape the committed answer and settle its delete receipts."""
        result = written.shown(reveals, now)
        for receipt in result.receipts or ([result.receipt] if result.receipt else []):
            if receipt.status == "pending":
                updated = await self.settle(receipt.receipt_id)
                receipt.status = updated.status
                receipt.updated_at = updated.updated_at
        return result

    # -- the caller -------------------------------------------------------------

    def _agent_caller(self, tx: Tx, ctx: CallContext, p: schema.MemoryWrite,
                      now: str) -> Caller:
        """The task writing on agent.sock, read in the writer's transaction: a
        revoked token, ended task or withdrawn consent that committed before
        is seen here (the decision is made on what this transaction read).
        The task is remembered as verified at the store's authorization
        generation read here, on the writer (``gate.Gate.verified``)."""
        if p.task_id is None:
            raise InvalidParams([{"path": "$.task_id",
                                  "expected": "str (required on agent.sock)"}])
        task = self.gate.task(tx, ctx, p.task_id, now, stamp=self.gate.generation())
        caller, call = self._task_caller(self.gate.caller_of(task, "agent"))
        if call.always_on is not None and call.effect is Effect.DENY:
            raise gate.refusal(call)
        return caller

    def _verified_caller(self, ctx: CallContext, p: schema.MemoryWrite,
                         now: str) -> tuple[Caller, int] | None:
        """The agent's caller without the store (before the writer), and the
        authorization generation it holds for; None when the transaction must
        read it (first write on this connection, anything changed since, or
        a call-level refusal, which the transaction raises in its order)."""
        if p.task_id is None:
            return None
        found = self.gate.verified(ctx, p.task_id, now)
        if found is None:
            return None
        resolved, generation = found
        policy = self.gate.policy
        known = self._early.get(p.task_id)
        if known is not None and known[0] is resolved and known[1] is policy:
            return known[2], generation
        caller, call = self._task_caller(resolved)
        if call.always_on is not None and call.effect is Effect.DENY:
            return None
        if len(self._early) >= _EARLY_TASKS:
            self._early.clear()
        self._early[p.task_id] = (resolved, policy, caller)
        return caller, generation

    def _task_caller(self, resolved: Resolved) -> tuple[Caller, Decision]:
        """A task's write caller, and the call-level decision on it."""
        task = resolved.task
        assert task is not None
        # Grants are the kernel's input: a call-level MemoryWrite question
        # answers consent and role before any operation is looked at.
        call = self.gate.ask(resolved, Capability.MEMORY_WRITE,
                             Resource(target="memory", scope=task.scopes[0], action="add",
                                      entry_id=None, expected_revision=None, content_hash=None),
                             method="memory.write")
        return Caller(
            subject=resolved.subject, view=resolved.view, default_scope=task.scopes[0],
            user_scope=task.user_scope, channel="agent",
            read_allowed="memory.read" in task.grants, task_id=task.task_id,
            grants=frozenset(task.grants), reads=self.gate.reads_of(resolved),
        ), call

    # -- the shared tail: outcome, propose | apply --------------------------------

    def outcome(self, tx: Tx, caller: Caller, proposal: Proposal, verdict: Verdict,
                scanned: ScanVerdict, now_dt: datetime) -> writes.Written | Refusal:
        """The shared tail of a proposal drafted, scanned and decided: by
        ``write``, and for an extracted candidate (daemon/extraction/extract_worker.py)."""
        now = fmt(now_dt)
        if verdict.effect is Effect.DENY:
            writes.audit_decision(tx, caller, verdict, proposal.ops, now,
                                  withheld=scanned.withheld)
            return _denial(verdict, "write_denied", policy_hash=verdict.policy_hash,
                           explicit=verdict.explicit)
        if scanned.error is not None:
            return _rejection(tx, caller, verdict, proposal.ops, scanned, now, "write_rejected")
        if scanned.review and caller.channel == "agent" and verdict.effect is Effect.ALLOW:
            # A finding no rule can judge: the operator decides.
            verdict = for_review(verdict)
        if verdict.effect is Effect.REQUIRES_APPROVAL:
            written = actions.propose(tx, caller, proposal, verdict, self.hasher, now_dt,
                                      self.config.pending_ttl_days,
                                      self.config.max_pending_actions)
        else:
            written = writes.apply(tx, caller, proposal, verdict, self._limits(), now_dt)
        if scanned.review:
            written.warnings.append(REVIEW_WARNING)
        return written

    # -- memory.write -------------------------------------------------------------

    async def write(self, ctx: CallContext, p: schema.MemoryWrite) -> schema.WriteResult:
        """``memory.write``: draft → scan → authorize → transaction → answer.

        Drafting and scanning need neither the store nor the caller's task;
        problems found there are raised in pipeline order inside the
        transaction (after the idempotency check), so a replay still
        replays. The request's hash is compared only for an idempotency key."""
        now_dt = self.clock.now()
        now = fmt(now_dt)
        if ctx.channel == "agent" and p.identity is not None:
            raise Denied("channel_forbidden")
        rhash = request_hash(self.hasher, p) if p.idempotency_key is not None else ""
        drafted = draft(p, ctx.channel, self.hasher)
        scanned = (ScanVerdict(None) if drafted.malformed
                   else await self._scan(drafted.proposal))
        policy = self.policy()
        early = self._authorize_early(ctx, p, drafted, policy, now)
        answered: list[Caller] = []

        def run(tx: Tx) -> writes.Written | Refusal:
            caller, decided = self._authorize(tx, ctx, p, early, now)
            answered.append(caller)
            if p.idempotency_key is not None:
                replay = writes.idempotent_replay(
                    tx, caller.subject.owner, p.idempotency_key, rhash, caller.view,
                    read_allowed=caller.read_allowed, reveals=caller.reveals)
                if replay is not None:
                    return replay
            proposal, verdict = self._decide(tx, caller, drafted, decided, policy)
            out = self.outcome(tx, caller, proposal, verdict, scanned, now_dt)
            if isinstance(out, writes.Written):
                writes.remember(tx, caller.subject.owner, p.idempotency_key, rhash, out, now)
            return out

        written = await self._commit(run)
        return await self._answer(written, answered[-1].reveals, now)

    def _authorize_early(self, ctx: CallContext, p: schema.MemoryWrite, drafted: Draft,
                         policy: Policy, now: str) -> _Early:
        """The caller and decision settled before the writer, where nothing
        they read is in the store. On control.sock (no task, no grants), and
        on agent.sock for a task a write on this connection verified with
        nothing changed since (the transaction re-checks that: one number).
        A call that ``resolve`` refuses is left to the transaction, which
        refuses it after the idempotency check, as for any caller."""
        control = (control_caller(self.owner_for_control(p.identity))
                   if ctx.channel != "agent" else None)
        verified = self._verified_caller(ctx, p, now) if control is None else None
        caller = control if control is not None else verified[0] if verified else None
        if caller is None or drafted.malformed:
            return _Early(control, verified, None)
        try:
            resolved = resolve(drafted, caller)
        except MemorydError:
            return _Early(control, verified, None)
        return _Early(control, verified,
                      (resolved, self.gate.decide_write(caller, resolved.ops, policy)))

    def _authorize(self, tx: Tx, ctx: CallContext, p: schema.MemoryWrite, early: _Early,
                   now: str) -> tuple[Caller, tuple[Proposal, Verdict] | None]:
        """The write's caller in its transaction, and the early decision
        where it still holds (None: decide here)."""
        if early.control is not None:
            # On control the owner's team scopes are its memberships now (a
            # store read, so here): a team scope is refused to a non-member.
            # A read rule may bind the operator too: what it is answered
            # follows its reads as a task's does.
            control = early.control
            view = teams.control_view(tx, control.subject.owner)
            return dataclasses.replace(control, view=view, reads=self.gate.reads_of(
                Resolved(control.subject, view, None, None))), early.decided
        if early.verified is not None and self.gate.generation() == early.verified[1]:
            return early.verified[0], early.decided
        return self._agent_caller(tx, ctx, p, now), None

    def _decide(self, tx: Tx, caller: Caller, drafted: Draft,
                decided: tuple[Proposal, Verdict] | None,
                policy: Policy) -> tuple[Proposal, Verdict]:
        """The proposal in the caller's namespaces and the gate's verdict on it.
        The types of the entries the ops change are read here, where the
        entries are: an early decision could not see them. A task without
        read learns nothing from them (its writes all wait for the operator,
        whose approval decides on them)."""
        proposal = decided[0] if decided is not None else resolve(drafted, caller)
        touched = (writes.touched_types(tx, caller.view, proposal.ops)
                   if caller.read_allowed else {})
        if decided is not None and not touched:
            return decided
        return proposal, self.gate.decide_write(caller, proposal.ops, policy, touched)

    # -- governance.action.* --------------------------------------------------------

    async def scrub_wal(self) -> None:
        """Move the WAL into the database and truncate it, as removal does: a
        dropped proposal's old pages must not linger in ``memory.db-wal`` (on
        PostgreSQL, the ``actions`` table is rewritten)."""
        done = await anyio.to_thread.run_sync(self.store.checkpoint_wal, ("actions",))
        self._unscrubbed = not done

    async def expire_actions(self) -> int:
        now = fmt(self.clock.now())
        expired = await self.store.run(lambda tx: actions.expire_actions(tx, now))
        if expired or self._unscrubbed:
            await self.scrub_wal()
        return expired

    async def approve(self, ctx: CallContext, p: schema.ActionApprove) -> schema.WriteResult:
        await self.expire_actions()
        now_dt = self.clock.now()
        now = fmt(now_dt)
        # Content rules may have tightened since the proposal: it is scanned
        # again, before the writer, by the same scan that passed it.
        read, caller, proposal, touched = await self.store.run(
            lambda tx: _pending(tx, p, now), write=False)
        scanned = await self._scan(proposal)
        policy = self.policy()
        # Decided again under the policy in force: a rule added since it was
        # proposed must hold for its approval too. Only a deny refuses:
        # requires_approval is exactly what this call gives. The decision reads
        # the stored proposal, which the writer checks is still the one
        # decided here, and the types of the entries it changes, which its
        # expected revisions pin (the writer refuses any other revision).
        again = self.gate.decide_write(caller, proposal.ops, policy, touched)
        verdict = Verdict(
            decision_id=random_id("dec"), effect=Effect.ALLOW, rule_ids=(), explicit=True,
            policy_hash=policy.hash,
            resources=tuple(op.resource().canonical() for op in proposal.ops))

        def run(tx: Tx) -> writes.Written | Refusal:
            row, _caller, _proposal = actions.load_pending(tx, p.action_id, now)
            if row["proposal_key"] != read["proposal_key"]:
                # Not the proposal that was scanned and decided (it cannot
                # change while pending; fail closed if it somehow did).
                raise Conflict("decision_stale")
            if not _task_open(tx, caller.task_id, now):
                # The proposing task's frozen view ended with it: a team
                # scope is written for the proposal's owner only while it is
                # a member now, as a control write for it would be.
                teams.check_task_scopes(tx, caller.subject.owner, tuple(
                    o.scope for o in proposal.ops if o.target == "memory" and o.scope is not None))
            if again.effect is Effect.DENY:
                # Refused, and the action stays pending (docs/decisions/0025):
                # the operator may deny it, or change the policy and approve again.
                writes.audit_decision(tx, caller, again, proposal.ops, now,
                                      withheld=scanned.withheld,
                                      action_id=p.action_id)
                return _denial(again, "approval_refused", policy_hash=again.policy_hash,
                               explicit=again.explicit, action_id=p.action_id)
            if scanned.error is not None:
                # Stays pending, like a refused approval; the rejection is on record.
                return _rejection(tx, caller, verdict, proposal.ops, scanned, now,
                                  "approval_rejected", action_id=p.action_id)
            _audit_action(tx, "action_approved", row["owner"], proposal.ops, now,
                          resource=verdict.resources[0], decision_id=verdict.decision_id,
                          effect="allow", details={"action_id": p.action_id, **(
                              {"as_supersede": True} if p.as_supersede else {})})
            written = writes.apply(tx, caller, proposal, verdict, self._limits(), now_dt,
                                   conflict_code="decision_stale", action_id=p.action_id)
            actions.close_action(tx, p.action_id, "approved", now, written)
            return written

        written = await self._commit(run)
        log.info("action_approved", action_id=p.action_id, operation_id=written.operation_id)
        return await self._answer(written, caller.reveals, now)

    async def deny(self, ctx: CallContext, p: schema.ActionDeny) -> schema.ActionDenied:
        reason = p.reason if p.reason else None
        if reason is not None:
            check_reason(reason)
        await self.expire_actions()
        now = fmt(self.clock.now())
        # The audit event carries the reason's keyed hash, never its text.
        details = {"action_id": p.action_id}
        if reason is not None:
            details["reason_hash"] = self.hasher.content(reason)

        def run(tx: Tx) -> schema.ActionDenied:
            row, _caller, proposal = actions.load_pending(tx, p.action_id, now)
            _audit_action(tx, "action_denied", row["owner"], proposal.ops, now,
                          effect="deny", details=details)
            actions.close_action(tx, p.action_id, "denied", now, None, reason=reason)
            return schema.ActionDenied(action_id=p.action_id, status="denied", reason=reason)

        out = await self.store.run(run)
        log.info("action_denied", action_id=p.action_id)
        await self.scrub_wal()
        return out

    # -- memory.undo ---------------------------------------------------------------

    async def undo(self, ctx: CallContext, p: schema.MemoryUndo) -> schema.WriteResult:
        if ctx.channel != "control":
            raise Denied("channel_forbidden")
        owner = self.owner_for_control(p.identity)
        caller = control_caller(owner)
        policy = self.policy()
        now_dt = self.clock.now()
        now = fmt(now_dt)
        limits = self._limits()

        def run(tx: Tx) -> writes.Written | Refusal:
            steps = undo.plan(tx, owner, p.operation_id)
            ops = [s.op for s in steps]
            verdict = self.gate.decide_write(caller, ops, policy, undo.touched(steps))
            writes.audit_decision(tx, caller, verdict, ops, now)
            if verdict.effect is not Effect.ALLOW:
                # An undo applies now or not at all: there is no pending undo,
                # so anything short of allow refuses it (fail closed).
                return _denial(verdict, "undo_denied", effect=verdict.effect.value,
                               explicit=verdict.explicit)
            rows, items = undo.apply(tx, owner, steps, limits, now_dt)
            operation_id = undo.record(tx, owner, p.operation_id, items, now)
            applied = writes.Applied(operation_id, rows, [], [], unchanged=False)
            writes.audit_operation(tx, caller, verdict, applied, now, undo_of=p.operation_id)
            return writes.Written(outcome="applied", operation_id=operation_id,
                                  decision=verdict.wire(), rows=rows)

        written = await self._commit(run)
        log.info("operation_undone", undo_of=p.operation_id, operation_id=written.operation_id)
        return await self._answer(written, caller.reveals, now)
