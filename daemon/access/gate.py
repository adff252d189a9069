"""The authorization gate: who is calling, and what the kernel says about it.

Owns: resolving a call's caller (channel, role, owner, task, the credential
the connection presented) into a kernel ``Subject``, asking ``decide()`` for
every method — reads as well as writes, governance as well as memory — and
turning a deny into the error that names its real reason. It also keeps, per
connection, the agent tokens that connection presented (a task begun with a
token is usable only by a connection that holds it) and the tasks it has
resolved (their immutable part: subject, scopes, frozen consent and grants)
and, for those a write verified, the store's authorization generation then.

How a deny is named (one table, ``_REFUSAL``): the always-on rule that
decided picks the code (``channel_forbidden`` only for the channel rule,
``consent_required`` for a missing grant, ``read_only_task`` for a subagent
write); anything a policy rule or a default decided is ``policy_denied``.
Every refusal carries ``decision_id``, ``rule_ids``, ``policy_hash`` and
``explicit``.

Invariants:
- a handler gets a ``Caller`` only from here, and every store access for a
  governed method follows a decision made here; task grants (the owner's
  consent) are inputs to the kernel (``decide(grants=…)``), never a second
  decision-maker;
- a task begun with a token stops at once when that token is revoked or
  expires (``policy_denied``, recovery: a new token), and it is
  ``task_not_found`` on any connection that did not present that token;
  a task begun without one is bound to the peer uid that began it;
- a read decision never depends on an entry's text: read resources carry
  target, scope and action only, so a decision per namespace is exact;
- a task is taken as verified without reading the store (``verified``) only
  while the store's authorization generation is the one a write transaction
  read when it verified the task, on the writer: any change to a task,
  token or consent row since moves the generation and sends the next write
  back to reading them.
"""

from __future__ import annotations

import dataclasses
from collections import Counter
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from typing import Any, Protocol

from memoryd.daemon.access import tasks, teams
from memoryd.daemon.clock import parse
from memoryd.daemon.ids import random_id
from memoryd.daemon.pipeline.entries import View
from memoryd.daemon.pipeline.writes import Op, Verdict
from memoryd.daemon.storage.store import Tx
from memoryd.kernel.capability import (
    EXTRACT_ACTION,
    Capability,
    Channel,
    Decision,
    Effect,
    Resource,
    Role,
    Subject,
    most_restrictive,
)
from memoryd.kernel.decide import decide as kernel_decide
from memoryd.kernel.errors import Denied, NotFound
from memoryd.kernel.grants import GRANT_GATED_METHODS, Consent, extract_grants
from memoryd.kernel.policy import Policy
from memoryd.kernel.teams import is_team_scope
from memoryd.rpc import schema
from memoryd.rpc.errors import InvalidParams
from memoryd.rpc.protocol import CallContext

__all__ = ["READ_ACTIONS", "Caller", "Gate", "ReadCheck", "Writer", "refusal"]

# The read methods and the action their resources carry (policy ``action``).
READ_ACTIONS: dict[str, str] = {
    "memory.read": "read",
    "memory.list": "list",
    "memory.context": "context",
    "memory.receipt": "receipt",
    "memory.journal": "journal",
}
# The action ``policy.explain`` assumes when it is not named.
_EXPLAIN_ACTION: dict[Capability, str] = {
    Capability.MEMORY_READ: "read", Capability.MEMORY_WRITE: "add",
    Capability.MEMORY_EXTRACT: "extract"}
# Scope of a call-level resource: a placeholder no real scope can equal.
CALL_SCOPE = "-"
# Tasks remembered per connection; an agent that begins more drops the oldest
# (a later call on it only costs a lookup).
_TASKS_PER_CONNECTION = 64

# always-on rule id -> the error code a refusal by it gets. Anything else
# (a policy rule, a default, an unknown capability) is policy_denied.
_REFUSAL: dict[str, str] = {
    "governance_control_only": "channel_forbidden",
    "agent_read_needs_grant": "consent_required",
    "agent_method_needs_grant": "consent_required",
    "subagent_never_writes": "read_only_task",
}


def refusal(decision: Decision, **details: Any) -> Denied:
    """The error for a decision that is not ``allow``; names the real reason."""
    code = _REFUSAL.get(decision.always_on or "", "policy_denied")
    return Denied(code, details={
        "decision_id": decision.decision_id, "rule_ids": list(decision.rule_ids),
        "policy_hash": decision.policy_hash, "explicit": decision.explicit,
        "effect": decision.effect.value, **details})


class Writer(Protocol):
    """What a write's decision reads of its caller."""

    @property
    def subject(self) -> Subject: ...

    @property
    def grants(self) -> frozenset[str] | None: ...


@dataclass(frozen=True, slots=True)
class Caller:
    """A resolved caller: the kernel's subject, what it may see, its task."""

    subject: Subject
    view: View
    task: tasks.Task | None
    # The task's grants on the agent channel; None where grants do not gate.
    grants: frozenset[str] | None


@dataclass
class ReadCheck:
    """The decisions one read call made, kept for its one audit event.

    Decisions are cached per (target, scope): a read resource holds nothing
    else a rule can match, so one decision per namespace is exact.
    """

    method: str
    caller: Caller | None = None
    decision_id: str = field(default_factory=lambda: random_id("dec"))
    decisions: dict[tuple[str, str], Decision] = field(default_factory=dict)
    counts: Counter[str] = field(default_factory=Counter)
    refused: Decision | None = None

    def note(self, decision: Decision, n: int = 1) -> None:
        self.counts["allowed" if decision.effect is Effect.ALLOW else "denied"] += n

    def rule_ids(self) -> list[str]:
        out: dict[str, None] = {}
        for d in [*self.decisions.values(), *([self.refused] if self.refused else [])]:
            out.update(dict.fromkeys(d.rule_ids))
        return list(out)

    def worth_auditing(self) -> bool:
        """Implicit allows are not audited one by one (docs/decisions/0009)."""
        every = [*self.decisions.values(), *([self.refused] if self.refused else [])]
        return bool(self.counts["denied"] or self.refused
                    or any(d.explicit for d in every))


@dataclass(frozen=True, slots=True)
class _Known:
    """A task a connection resolved, and when a write last verified it.

    ``generation`` is the store's authorization generation read inside the
    write transaction that verified the task (its row and its token): while
    the store's generation is still that number, no row an authorization
    reads has changed since, so the verification still holds. None: not
    verified by a write (a read's verification is not enough: a read's
    snapshot may predate a change whose generation it has already seen).
    """

    task: tasks.Task
    generation: int | None = None
    token_expires_at: str | None = None
    caller: Caller | None = None


class Gate:
    """Resolves callers and asks the kernel; the only place a call is authorised."""

    def __init__(self, policy_of: Callable[[], Policy],
                 generation: Callable[[], int | None] = lambda: None) -> None:
        # The policy in force is read at each decision, so a reload applies
        # to the next call.
        self._policy_of = policy_of
        # The store's authorization generation (``Store.authz_generation``):
        # None where the store cannot vouch for every change (other daemons).
        self._generation = generation
        self._held: dict[str, set[str]] = {}
        # Per connection, the tasks it has resolved (see ``task``).
        self._tasks: dict[str, dict[str, _Known]] = {}

    @property
    def policy(self) -> Policy:
        return self._policy_of()

    # -- credentials a connection holds ----------------------------------------

    def present(self, conn_id: str, token_id: str) -> None:
        """The connection ``conn_id`` has shown the token ``token_id``."""
        self._held.setdefault(conn_id, set()).add(token_id)

    def forget(self, conn_id: str) -> None:
        """The connection closed: what it presented and resolved goes with it."""
        self._held.pop(conn_id, None)
        self._tasks.pop(conn_id, None)

    def holds(self, ctx: CallContext, token_id: str | None) -> bool:
        return token_id is None or token_id in self._held.get(ctx.conn_id, ())

    # -- tasks -----------------------------------------------------------------

    def task(self, tx: Tx, ctx: CallContext, task_id: str, now: str, *,
             presenting: str | None = None, stamp: int | None = None) -> tasks.Task:
        """The open task ``task_id`` if this connection may use it.
        ``presenting`` is a token id this very call has shown (and verified).

        A task this connection resolved before is taken from its cache and
        only refreshed (``tasks.refresh``); every check below runs on every
        call either way, so an ended or expired task and a revoked or expired
        token are seen on the very next call, whichever connection (or
        daemon sharing the store) made the change.

        ``stamp``: the store's authorization generation, read in this same
        write transaction on the store's writer; a task that passes is
        remembered as verified at it (``verified``)."""
        known = self._tasks.get(ctx.conn_id, {}).get(task_id)
        try:
            if known is not None and (known.task.channel, known.task.peer_uid) == (
                    ctx.channel, ctx.peer_uid):
                task = tasks.refresh(tx, known.task, now)
            else:
                task = tasks.lookup(tx, task_id, channel=ctx.channel, peer_uid=ctx.peer_uid,
                                    now=now)
        except NotFound:
            self._drop(ctx.conn_id, task_id)
            raise
        if not (self.holds(ctx, task.token_id) or task.token_id == presenting):
            # Same answer as for an id that does not exist: a task id is not
            # a bearer credential, and a refusal must not confirm it exists.
            raise NotFound("task_not_found")
        token_expires_at = None
        if task.token_id is not None:
            token_expires_at = check_token_live(tx, task.token_id, now)
        if stamp is not None:
            self._remember(ctx.conn_id, _Known(task, stamp, token_expires_at,
                                               self.caller_of(task, ctx.channel)))
        elif known is not None and known.task.task_id == task.task_id:
            # A read's check keeps what a write verified (it proves nothing
            # newer, and takes nothing away).
            self._remember(ctx.conn_id, _Known(task, known.generation, known.token_expires_at,
                                               known.caller))
        else:
            self._remember(ctx.conn_id, _Known(task))
        return task

    def verified(self, ctx: CallContext, task_id: str, now: str) -> tuple[Caller, int] | None:
        """The caller of ``task_id`` on this connection without reading the
        store, if a write verified it at the store's current authorization
        generation and nothing that needs no store has stopped it since (its
        lifetime, its token's lifetime, the token held by this connection).
        None otherwise: the write verifies it in its transaction.

        The generation it holds for comes with it: the write's transaction
        compares it with the store's again before relying on this answer, so
        a change made in between is seen there."""
        generation = self._generation()
        known = self._tasks.get(ctx.conn_id, {}).get(task_id)
        if generation is None or known is None or known.generation != generation:
            return None
        task = known.task
        if ((task.channel, task.peer_uid) != (ctx.channel, ctx.peer_uid)
                or task.expires_at <= now or not self.holds(ctx, task.token_id)
                or (known.token_expires_at is not None
                    and parse(known.token_expires_at) <= parse(now))
                or known.caller is None):
            return None
        return known.caller, generation

    def generation(self) -> int | None:
        """The store's authorization generation now (None: not kept)."""
        return self._generation()

    def _remember(self, conn_id: str, known: _Known) -> None:
        # Called from the writer and reader threads: each step is one dict
        # operation, atomic under the GIL; a lost race only costs a lookup.
        held = self._tasks.setdefault(conn_id, {})
        if known.task.task_id not in held and len(held) >= _TASKS_PER_CONNECTION:
            held.pop(next(iter(held), ""), None)
        held[known.task.task_id] = known

    def _drop(self, conn_id: str, task_id: str) -> None:
        self._tasks.get(conn_id, {}).pop(task_id, None)

    # -- callers ---------------------------------------------------------------

    def caller(self, tx: Tx, ctx: CallContext, *, task_id: str | None, owner: str | None,
               now: str) -> Caller:
        """The caller of a memory method. ``owner`` is the control channel's
        owner (identity or default) and is ignored when a task is named."""
        if ctx.channel == "agent" and task_id is None:
            raise InvalidParams([{"path": "$.task_id", "expected": "str (required on agent.sock)"}])
        if task_id is not None:
            return self._task_caller(ctx, self.task(tx, ctx, task_id, now))
        assert owner is not None
        return Caller(Subject(channel=Channel.CONTROL, role=Role.OPERATOR, owner=owner),
                      teams.control_view(tx, owner), None, None)

    def _task_caller(self, ctx: CallContext, task: tasks.Task) -> Caller:
        """``caller_of(task, ctx.channel)``, made once per task a connection
        resolved: subject, view and grants follow from what a task can never
        change (owner, role, scopes, grants), so only a refreshed task (a new
        snapshot) is put in a new ``Caller``. ``task`` has just passed
        ``task``'s checks on this connection."""
        known = self._tasks.get(ctx.conn_id, {}).get(task.task_id)
        made = None if known is None else known.caller
        if made is None or made.subject.channel != ctx.channel or (
                made.task is not None and made.task is not task
                and (made.task.scopes, made.task.grants) != (task.scopes, task.grants)):
            # (A subagent's scopes and grants follow its chain's live state.)
            made = self.caller_of(task, ctx.channel)
            if known is not None and known.task is task:
                self._remember(ctx.conn_id, replace(known, caller=made))
            return made
        return made if made.task is task else Caller(made.subject, made.view, task, made.grants)

    @staticmethod
    def caller_of(task: tasks.Task, channel: str) -> Caller:
        """The caller a resolved task makes on ``channel``."""
        subject = Subject(channel=Channel(channel), role=Role(task.role), owner=task.owner,
                          task_id=task.task_id)
        return Caller(subject, task_view(task), task, task.grants if channel == "agent" else None)

    # -- deciding --------------------------------------------------------------

    def decide(self, subject: Subject, capability: Capability, resource: Resource, *,
               policy: Policy | None = None, grants: frozenset[str] | None = None,
               method: str | None = None, decision_id: str | None = None) -> Decision:
        """The kernel's answer: the daemon's one call of ``decide()`` (the
        layering test holds every other module to asking here). ``policy``:
        the policy a call read at its start, so every decision of one call is
        made under one policy; the one in force now when not given."""
        return kernel_decide(subject, capability, resource,
                             self.policy if policy is None else policy,
                             decision_id=decision_id or random_id("dec"), grants=grants,
                             method=method)

    def decide_write(self, caller: Writer, ops: list[Op], policy: Policy,
                     touched: Mapping[int, str] | None = None) -> Verdict:
        """The decision over a write's ``ops``: the most restrictive of each
        op's. ``touched`` (``writes.touched_types``): an op whose stored
        entry has another type is decided on that type as well, so a rule on
        ``type`` holds for the entry an op archives, removes or overwrites.
        The resource strings stay the ops' own (what approval re-derives
        from the stored proposal)."""
        decision_id = random_id("dec")
        if len(ops) == 1 and not touched:
            # One op, one decision (most writes): the most restrictive of one
            # effect is that effect, and the rest of the fold is the
            # decision's own fields (tests/unit/test_decide_ops.py).
            resource = ops[0].resource()
            d = self._decide_op(caller, resource, policy, decision_id)
            return Verdict(decision_id, d.effect, tuple(dict.fromkeys(d.rule_ids)),
                           bool(d.explicit), policy.hash, (resource.canonical(),))
        return self.fold_write(caller, ops, policy, touched, decision_id)

    def fold_write(self, caller: Writer, ops: list[Op], policy: Policy,
                   touched: Mapping[int, str] | None, decision_id: str) -> Verdict:
        """``decide_write``'s verdict as the fold over every op's decision (and
        each touched type's), under ``decision_id``: the most restrictive
        effect, the rule ids in order, explicit when a decision of that
        effect was."""
        resources = [op.resource() for op in ops]
        asked = resources + [dataclasses.replace(resources[i], type=t)
                             for i, t in (touched or {}).items()]
        decisions = [self._decide_op(caller, resource, policy, decision_id)
                     for resource in asked]
        effect = most_restrictive(d.effect for d in decisions)
        rule_ids = tuple(dict.fromkeys(r for d in decisions for r in d.rule_ids))
        explicit = any(d.explicit for d in decisions if d.effect == effect)
        return Verdict(decision_id, effect, rule_ids, explicit, policy.hash,
                       tuple(resource.canonical() for resource in resources))

    def _decide_op(self, caller: Writer, resource: Resource, policy: Policy,
                   decision_id: str) -> Decision:
        # A caller with grants (an agent's task) is asked about as a
        # ``memory.write`` call.
        return self.decide(caller.subject, Capability.MEMORY_WRITE, resource, policy=policy,
                           decision_id=decision_id, grants=caller.grants,
                           method="memory.write" if caller.grants is not None else None)

    def ask(self, caller: Caller, capability: Capability, resource: Resource, *,
            method: str | None, decision_id: str | None = None) -> Decision:
        """The kernel's decision, with the caller's grants as its input."""
        gated = method if method in GRANT_GATED_METHODS else None
        return self.decide(caller.subject, capability, resource, decision_id=decision_id,
                           grants=caller.grants,
                           method=gated if caller.grants is not None else None)

    def governance(self, ctx: CallContext, capability: Capability, owner: str) -> Decision:
        """Decide a governance or consent method; raise unless allowed."""
        subject = Subject(channel=Channel(ctx.channel),
                          role=Role.OPERATOR if ctx.channel == "control" else Role.MAIN,
                          owner=owner)
        resource = Resource(target="memory", scope=CALL_SCOPE, action="govern", entry_id=None,
                            expected_revision=None, content_hash=None)
        d = self.decide(subject, capability, resource)
        if d.effect is not Effect.ALLOW:
            raise refusal(d)
        return d

    def submission(self, subject: Subject, consent: Consent, scope: str,
                   tools_used: bool = False) -> tuple[Decision, Resource]:
        """The kernel's decision on submitting a finished task's transcript
        for extraction (``MemoryExtract``, docs/extraction.md). The owner's
        consent (a task's frozen one, or the operator's owner's now) is the
        kernel's input, as grants; the caller audits the decision."""
        resource = Resource(target="memory", scope=scope, action=EXTRACT_ACTION, entry_id=None,
                            expected_revision=None, content_hash=None)
        return self.decide(subject, Capability.MEMORY_EXTRACT, resource,
                           grants=extract_grants(consent, subject.role, tools_used)), resource

    def egress(self, owner: str, capability: Capability, resource: Resource) -> Decision:
        """The kernel's decision on sending something off the host for
        ``owner`` (``NetworkAccess`` for a host, ``MemoryExternalize`` for
        what is sent), asked as the operator's daemon, as projection asks it;
        the caller audits it."""
        subject = Subject(channel=Channel.CONTROL, role=Role.OPERATOR, owner=owner)
        return self.decide(subject, capability, resource)

    def explain(self, p: schema.PolicyExplain, owner: str) -> tuple[Decision, Resource]:
        """What ``decide()`` would answer for the subject and resource ``p``
        describes, under the policy in force. Decides nothing for real: the
        caller neither audits it nor acts on it."""
        capability = Capability(p.capability)
        role = p.role or ("operator" if p.channel == "control" else "main")
        action = p.action or _EXPLAIN_ACTION.get(capability, "govern")
        resource = Resource(target=p.target, scope=p.scope, action=action, entry_id=None,
                            expected_revision=None, content_hash=None, type=p.type)
        subject = Subject(channel=Channel(p.channel), role=Role(role), owner=owner)
        grants = None
        method = None
        if capability is Capability.MEMORY_EXTRACT:
            # Explained for an owner who contributes (the consent it needs).
            grants = extract_grants(Consent(contribute=True), role)
        elif p.channel == "agent":
            grants = frozenset(GRANT_GATED_METHODS if p.grants is None else p.grants)
            method = ("memory.write" if capability is Capability.MEMORY_WRITE
                      else f"memory.{action}" if f"memory.{action}" in GRANT_GATED_METHODS
                      else None)
        d = self.decide(subject, capability, resource, grants=grants, method=method)
        return d, resource

    # -- reads -----------------------------------------------------------------

    def read_call(self, check: ReadCheck, caller: Caller) -> Decision:
        """The call-level read decision (grants, rules without a namespace)."""
        check.caller = caller
        resource = Resource(target="memory", scope=CALL_SCOPE, action=READ_ACTIONS[check.method],
                            entry_id=None, expected_revision=None, content_hash=None)
        d = self.ask(caller, Capability.MEMORY_READ, resource, method=check.method,
                     decision_id=check.decision_id)
        if d.effect is not Effect.ALLOW:
            check.refused = d
            raise refusal(d)
        return d

    def read_rules_apply(self) -> bool:
        """Whether any rule could match a read (else every namespace gets the
        call-level answer and nothing needs deciding per namespace)."""
        return any(r.capability is None or Capability.MEMORY_READ.value in r.capability
                   for r in self.policy.rules)

    def namespace(self, check: ReadCheck, target: str, scope: str) -> Decision:
        """The read decision for one namespace (cached for the call)."""
        key = (target, scope)
        found = check.decisions.get(key)
        if found is None:
            assert check.caller is not None
            resource = Resource(target="user" if target == "user" else "memory", scope=scope,
                                action=READ_ACTIONS[check.method], entry_id=None,
                                expected_revision=None, content_hash=None)
            found = self.ask(check.caller, Capability.MEMORY_READ, resource,
                             method=check.method, decision_id=check.decision_id)
            check.decisions[key] = found
        return found

    def require_namespace(self, check: ReadCheck, target: str, scope: str, **details: Any
                          ) -> None:
        d = self.namespace(check, target, scope)
        check.note(d)
        if d.effect is not Effect.ALLOW:
            raise refusal(d, **details)

    def readable_view(self, tx: Tx, check: ReadCheck) -> View:
        """The caller's view narrowed to the namespaces policy lets it read."""
        assert check.caller is not None
        view = check.caller.view
        if not self.read_rules_apply():
            return view
        if view.namespaces is not None:
            spaces = set(view.namespaces)
        else:
            spaces = tx.namespaces(view.owner)
            spaces.update(view.team_spaces())
        allowed = set()
        for target, scope in spaces:
            d = self.namespace(check, target, scope)
            check.note(d)
            if d.effect is Effect.ALLOW:
                allowed.add((target, scope))
        if view.namespaces is None and allowed == spaces:
            return view
        return View(view.owner, frozenset(allowed), view.teams)

    def counted_view(self, tx: Tx, caller: Caller) -> View:
        """The namespaces whose figures ``memory.status`` shows a task: those
        ``memory.list`` would read for it (the call-level decision, then the
        one per namespace), none when it may read nothing. Decided and not
        audited, like the call: nothing is read or refused, only counted."""
        check = ReadCheck("memory.list")
        try:
            self.read_call(check, caller)
        except Denied:
            return View(caller.view.owner, frozenset())
        return self.readable_view(tx, check)

    def reads_of(self, caller: Caller) -> Callable[[str, str], bool]:
        """Whether a ``memory.read`` by ``caller`` would show a namespace: the
        call-level decision, then the one per namespace, as the read makes
        them. What a write answers its caller follows it (daemon/pipeline/writes.py).
        Each is decided on first asking and kept as long as the function is:
        a control write's caller lives for one write, a task's for as long
        as its task and the policy it is cached under (``Governance._early``).
        Decided and not audited: nothing is read or refused by it."""
        check = ReadCheck("memory.read")
        call: list[bool] = []

        def reads(target: str, scope: str) -> bool:
            if not call:
                try:
                    self.read_call(check, caller)
                except Denied:
                    call.append(False)
                else:
                    call.append(True)
                # Nothing could match a namespace: each gets the call's answer.
                call.append(not self.read_rules_apply())
            if not call[0]:
                return False
            return call[1] or self.namespace(check, target, scope).effect is Effect.ALLOW

        return reads

    def audit_details(self, check: ReadCheck) -> dict[str, Any]:
        """The one audit event of a read call: ids, rule ids and counts only."""
        return {"method": check.method, "policy_hash": self.policy.hash,
                "allowed": check.counts["allowed"], "denied": check.counts["denied"],
                "explicit": any(d.explicit for d in check.decisions.values())
                or bool(check.refused and check.refused.explicit)}


def check_token_live(tx: Tx, token_id: str, now: str) -> str | None:
    """Refuse a task whose token has been revoked or has expired; else the
    token's expiry (None: it does not expire)."""
    row = tx.token_state(token_id)
    if row is None or row["revoked_at"] is not None or (
            row["expires_at"] is not None and parse(row["expires_at"]) <= parse(now)):
        raise Denied("policy_denied", details={"reason": "token_not_accepted"},
                     recovery="ask the operator for a new token and begin a new task with it")
    expires_at: str | None = row["expires_at"]
    return expires_at


def task_view(task: tasks.Task) -> View:
    spaces = {("memory", s) for s in task.scopes}
    spaces.add(("user", task.user_scope))
    # The team scopes were checked against membership at task.begin and are
    # frozen with a root task (daemon/access/teams.py); a subagent's are those its
    # owner is still a member of (daemon/access/tasks.py).
    return View(task.owner, frozenset(spaces),
                frozenset(s for s in task.scopes if is_team_scope("memory", s)))


@dataclass(frozen=True, slots=True)
class ControlCall:
    """What a control-channel method settles before anything else: whether the
    call may govern (``require`` raises unless the gate allows it) and the
    owner it acts for (``owner_for``: its ``identity``, else the default)."""

    require: Callable[[CallContext, Capability], None]
    owner_for: Callable[[schema.Identity | None], str]
