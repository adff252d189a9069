"""The daemon's method handlers, composed over the store, kernel and audit.

Owns: resolving each call's caller (channel, identity, task, view), the
handlers of every method, and the two method tables (``agent.sock`` gets only
the agent-channel methods of SPEC §9; ``control.sock`` gets all).

Invariants:
- every handler takes a typed params Struct and returns a Struct or JSON-able
  value; nothing here formats client or stored text into an error;
- on the agent channel the owner comes from the task (itself from a token, the
  uid map or the default identity); the client never names an identity there;
- governance, consent, token and audit methods are absent from the agent
  table, and the kernel also refuses them off the control channel.
"""

from __future__ import annotations

import os
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from datetime import datetime
from typing import TYPE_CHECKING, Any

import anyio
import structlog

from memoryd.audit.keyed import KeyedHasher
from memoryd.daemon import actions, reads, tasks, writes
from memoryd.daemon import gate as gate_mod
from memoryd.daemon import home as home_mod
from memoryd.daemon import identity as ident
from memoryd.daemon.clock import Clock, fmt
from memoryd.daemon.config import Config
from memoryd.daemon.entries import View
from memoryd.daemon.gate import Caller, Gate, ReadCheck, refusal, task_view
from memoryd.daemon.home import Home
from memoryd.daemon.ids import random_id
from memoryd.daemon.store import Store, Tx
from memoryd.kernel.capability import Capability, Channel, Effect, Resource, Role, Subject
from memoryd.kernel.errors import Denied, MemorydError, NotFound, Unavailable
from memoryd.kernel.policy import EMPTY_POLICY, Policy, PolicyError, load_policy
from memoryd.rpc import schema
from memoryd.rpc.errors import InvalidParams
from memoryd.rpc.protocol import CallContext, Dispatcher, MethodSpec

if TYPE_CHECKING:
    from memoryd.daemon.hybrid import Ranker
    from memoryd.daemon.projection import Projection

log = structlog.get_logger()

Handler = Callable[[CallContext, Any], Awaitable[Any]]


@dataclass
class App:
    config: Config
    home: Home
    hasher: KeyedHasher
    store: Store
    clock: Clock
    default: ident.Who
    policy: Policy = EMPTY_POLICY
    boot_id: str = field(default_factory=lambda: os.urandom(8).hex())
    gate: Gate = field(init=False)

    def __post_init__(self) -> None:
        self.gate = Gate(lambda: self.policy)

    # -- policy ---------------------------------------------------------------

    def load_policy_file(self, *, starting: bool = False) -> dict[str, Any]:
        """(Re)load policy.toml; an invalid file is refused and the old one stays.

        At start with a degraded store the valid policy is applied without its
        event (it decides only governed writes, which are refused until the
        chain verifies); on reload, a change that cannot be audited is refused.
        """
        now = fmt(self.clock.now())
        try:
            text = home_mod.read_private(self.home.policy).decode("utf-8")
        except FileNotFoundError:
            text = ""
        except (OSError, UnicodeDecodeError, home_mod.HomeError):
            # A link is never followed (O_NOFOLLOW): the policy is refused.
            text = None
        try:
            if text is None:
                raise PolicyError("policy.toml cannot be read")
            policy = load_policy(text)
        except PolicyError as exc:
            message = str(exc)
            try:
                self.store.run_sync(lambda tx: tx.audit(
                    "policy_rejected", now, details={"policy_hash": self.policy.hash}))
            except Unavailable:
                # A degraded store cannot take the event; the refusal stands
                # anyway (and must not take the daemon down on SIGHUP).
                log.warning("policy_event_not_audited", reason="store_unavailable")
            log.warning("policy_rejected", problem=message, policy_hash=self.policy.hash)
            return {"loaded": False, "error": message, "hash": self.policy.hash}
        try:
            self.store.run_sync(lambda tx: tx.audit(
                "policy_loaded", now, details={"policy_hash": policy.hash,
                                               "rules": len(policy.rules)}))
        except Unavailable:
            if starting:
                self.policy = policy
                log.warning("policy_event_not_audited", reason="store_unavailable",
                            policy_hash=policy.hash)
                return {"loaded": True, "hash": policy.hash, "rules": len(policy.rules)}
            # Fail closed: a policy change that cannot be audited does not take
            # effect; the old policy stays until the chain verifies again.
            log.warning("policy_not_loaded", reason="store_unavailable",
                        policy_hash=self.policy.hash)
            return {"loaded": False, "error": "the audit log is unavailable; policy unchanged",
                    "hash": self.policy.hash}
        self.policy = policy
        log.info("policy_loaded", policy_hash=policy.hash, rules=len(policy.rules))
        return {"loaded": True, "hash": policy.hash, "rules": len(policy.rules)}

    # -- callers --------------------------------------------------------------

    def _owner_for_control(self, identity: schema.Identity | None) -> str:
        return self.default.owner if identity is None else ident.owner_of(self.hasher, identity)

    def _peer_owner(self, ctx: CallContext) -> str:
        """On agent.sock without a token: the peer uid's configured identity,
        else the daemon's default one."""
        mapped = self.config.identities.get(str(ctx.peer_uid))
        if mapped is None:
            return self.default.owner
        return ident.owner_of(self.hasher, schema.Identity(
            kind=mapped.kind, subject=mapped.subject, issuer=mapped.issuer))

    def _now(self) -> datetime:
        return self.clock.now()

    def _task(self, tx: Tx, ctx: CallContext, task_id: str) -> tasks.Task:
        return self.gate.task(tx, ctx, task_id, fmt(self._now()))

    def _caller(self, tx: Tx, ctx: CallContext, task_id: str | None,
                identity: schema.Identity | None) -> Caller:
        if ctx.channel == "agent" and identity is not None:
            # The agent table takes the same params Structs, so an agent can
            # send ``identity``; on agent.sock the identity is the task's only.
            raise Denied("channel_forbidden")
        owner = None if task_id is not None else self._owner_for_control(identity)
        return self.gate.caller(tx, ctx, task_id=task_id, owner=owner, now=fmt(self._now()))

    async def _read(self, ctx: CallContext, method: str, task_id: str | None,
                    identity: schema.Identity | None,
                    body: Callable[[Tx, ReadCheck, View], Any]) -> Any:
        """Run a read method through the gate: caller, call-level decision,
        the readable view, then ``body``; one audit event per call."""
        check = ReadCheck(method)

        def run(tx: Tx) -> Any:
            caller = self._caller(tx, ctx, task_id, identity)
            self.gate.read_call(check, caller)
            return body(tx, check, self.gate.readable_view(tx, check))

        try:
            return await self.store.run(run, write=False)
        finally:
            await self.audit_read(check)

    async def audit_read(self, check: ReadCheck) -> None:
        """Append the read call's one decision event, when it is worth one."""
        if check.caller is None or not check.worth_auditing():
            return
        now = fmt(self._now())
        subject = writes.subject_wire(check.caller.subject)
        refused = check.refused
        effect = "deny" if refused is not None or (
            check.counts["denied"] and not check.counts["allowed"]) else "allow"
        try:
            await self.store.run(lambda tx: tx.audit(
                "decision", now, subject=subject, capability=Capability.MEMORY_READ.value,
                decision_id=check.decision_id, effect=effect, rule_ids=check.rule_ids(),
                details=self.gate.audit_details(check)), governed=False)
        except Unavailable:
            # Reads go on while the store refuses appends (SPEC §5.9).
            log.warning("read_decision_not_audited", decision_id=check.decision_id)

    def _write_caller(self, tx: Tx, ctx: CallContext, p: schema.MemoryWrite) -> writes.Caller:
        if ctx.channel == "agent":
            if p.task_id is None:
                raise InvalidParams([{"path": "$.task_id",
                                      "expected": "str (required on agent.sock)"}])
            task = self._task(tx, ctx, p.task_id)
            who = Caller(Subject(channel=Channel.AGENT, role=Role(task.role), owner=task.owner,
                                 task_id=task.task_id), task_view(task), task, task.grants)
            # Grants are the kernel's input: a call-level MemoryWrite question
            # answers consent and role before any operation is looked at.
            call = self.gate.ask(who, Capability.MEMORY_WRITE, Resource(
                target="memory", scope=task.scopes[0], action="add", entry_id=None,
                expected_revision=None, content_hash=None), method="memory.write")
            if call.always_on is not None and call.effect is Effect.DENY:
                raise refusal(call)
            return writes.Caller(
                subject=Subject(channel=Channel.AGENT, role=Role(task.role), owner=task.owner,
                                task_id=task.task_id),
                view=task_view(task),
                default_scope=task.scopes[0],
                user_scope=task.user_scope,
                channel="agent",
                read_allowed="memory.read" in task.grants,
                task_id=task.task_id,
                grants=frozenset(task.grants),
            )
        owner = self._owner_for_control(p.identity)
        return writes.Caller(
            subject=Subject(channel=Channel.CONTROL, role=Role.OPERATOR, owner=owner, task_id=None),
            view=View(owner, None),
            default_scope="default",
            user_scope=tasks.user_scope(owner),
            channel="control",
            read_allowed=True,
        )

    # -- task.* -----------------------------------------------------------------

    async def task_begin(self, ctx: CallContext, p: schema.TaskBegin) -> Any:
        now_dt = self._now()
        now = fmt(now_dt)

        def run(tx: Tx) -> tuple[dict[str, Any], str | None]:
            token_scopes = None
            token_id = None
            parent = None
            if ctx.channel == "agent" and p.identity is not None:
                raise Denied("channel_forbidden")
            if p.token is not None:
                grant = ident.token_grant(tx, self.hasher, p.token, now)
                owner, token_scopes, token_id = grant.owner, grant.scopes, grant.token_id
            if p.parent_task is not None:
                parent = self.gate.task(tx, ctx, p.parent_task, now, presenting=token_id)
            if p.token is None and parent is not None:
                # This connection holds the parent's credential (the gate
                # checked): the child acts for the same owner under it.
                owner, token_id = parent.owner, parent.token_id
            elif p.token is None and ctx.channel == "agent":
                owner = self._peer_owner(ctx)
            elif p.token is None:
                owner = self._owner_for_control(p.identity)
            task = tasks.begin(
                tx, self.hasher, p, owner=owner, token_scopes=token_scopes, token_id=token_id,
                channel=ctx.channel, peer_uid=ctx.peer_uid, now_dt=now_dt,
                ttl_hours=self.config.task_ttl_hours, max_open=self.config.max_open_tasks,
                max_per_hour=self.config.max_tasks_per_hour, parent=parent,
            )
            return task.wire(), task.token_id

        # Beginning a task is bookkeeping for reads: it goes on while the store
        # refuses governed writes.
        out, token_id = await self.store.run(run, write=True, governed=False)
        if token_id is not None:
            # This connection showed the token: its tasks are usable here.
            self.gate.present(ctx.conn_id, token_id)
        return out

    async def task_resume(self, ctx: CallContext, p: schema.TaskResume) -> Any:
        """A new connection presents the credential its task was begun with."""
        now = fmt(self._now())

        def run(tx: Tx) -> tuple[dict[str, Any], str | None]:
            token_id = None
            if p.token is not None:
                try:
                    token_id = ident.token_grant(tx, self.hasher, p.token, now).token_id
                except Denied:
                    token_id = None
            task = tasks.lookup(tx, p.task_id, channel=ctx.channel, peer_uid=ctx.peer_uid,
                                now=now)
            if task.token_id != token_id:
                raise NotFound("task_not_found")
            if token_id is not None:
                gate_mod.check_token_live(tx, token_id, now)
            return task.wire(), token_id

        out, token_id = await self.store.run(run, write=False)
        if token_id is not None:
            self.gate.present(ctx.conn_id, token_id)
        return out

    async def task_end(self, ctx: CallContext, p: schema.TaskRef) -> Any:
        now = fmt(self._now())
        return await self.store.run(
            lambda tx: tasks.end(tx, self._task(tx, ctx, p.task_id), now), governed=False)

    # -- consent / tokens -------------------------------------------------------

    def _governance(self, ctx: CallContext, capability: Capability) -> None:
        self.gate.governance(ctx, capability, self.default.owner)

    async def consent_get(self, ctx: CallContext, p: schema.IdentityOnly) -> Any:
        self._governance(ctx, Capability.CONSENT_MANAGE)
        owner = self._owner_for_control(p.identity)
        rec = await self.store.run(lambda tx: ident.read_consent(tx, owner), write=False)
        return rec.wire()

    async def consent_set(self, ctx: CallContext, p: schema.ConsentSet) -> Any:
        self._governance(ctx, Capability.CONSENT_MANAGE)
        owner = self._owner_for_control(p.identity)
        now = fmt(self._now())
        rec = await self.store.run(lambda tx: ident.set_consent(tx, owner, p, now))
        log.info("consent_changed", owner=owner, version=rec.version)
        return rec.wire()

    async def token_issue(self, ctx: CallContext, p: schema.TokenIssue) -> Any:
        self._governance(ctx, Capability.GOVERNANCE_DECIDE)
        now_dt = self._now()
        out = await self.store.run(lambda tx: ident.issue_token(tx, self.hasher, p, now_dt))
        log.info("token_issued", token_id=out["token_id"], owner=out["owner"])
        return out

    async def token_list(self, ctx: CallContext, p: schema.IdentityOnly) -> Any:
        self._governance(ctx, Capability.GOVERNANCE_DECIDE)
        owner = None if p.identity is None else self._owner_for_control(p.identity)
        now = fmt(self._now())
        items = await self.store.run(lambda tx: ident.list_tokens(tx, owner, now), write=False)
        return {"items": items}

    async def token_revoke(self, ctx: CallContext, p: schema.TokenRevoke) -> Any:
        self._governance(ctx, Capability.GOVERNANCE_DECIDE)
        now = fmt(self._now())
        return await self.store.run(lambda tx: ident.revoke_token(tx, p.token_id, now))

    # -- memory.write and governance ------------------------------------------

    def _limits(self) -> writes.Limits:
        return writes.Limits(self.config.entry_max_bytes, self.config.scope_budget_bytes)

    async def memory_write(self, ctx: CallContext, p: schema.MemoryWrite) -> Any:
        now_dt = self._now()
        now = fmt(now_dt)
        if ctx.channel == "agent" and p.identity is not None:
            raise Denied("channel_forbidden")
        rhash = writes.request_hash(self.hasher, p)
        policy = self.policy
        # Scanning needs no store: do it before the writer thread, so the
        # serial section of group commit holds only database work. Its verdict
        # is raised in order below (after the idempotency check and the kernel).
        # Small texts scan in well under a thread hop's cost (~0.1 ms), so
        # only larger ones move to a worker thread.
        if writes.text_size(p) <= INLINE_SCAN_CHARS:
            scanned = writes.prescan(p, self.config.entry_max_bytes)
        else:
            scanned = await anyio.to_thread.run_sync(
                writes.prescan, p, self.config.entry_max_bytes)

        def run(tx: Tx) -> schema.WriteResult:
            caller = self._write_caller(tx, ctx, p)
            owner = caller.subject.owner
            if p.idempotency_key is not None:
                replay = writes.idempotent_replay(tx, owner, p.idempotency_key, rhash,
                                                  caller.view, now,
                                                  read_allowed=caller.read_allowed)
                if replay is not None:
                    return replay
            proposal = writes.normalise_unscanned(p, caller, self.hasher)
            verdict = writes.decide_ops(caller, proposal.ops, policy)
            if verdict.effect.value == "deny":
                raise _Deny(verdict, caller, proposal)
            if scanned.error is not None:
                raise _Rejected(scanned.error, verdict, caller, proposal)
            if scanned.review and caller.channel == "agent" and verdict.effect.value == "allow":
                # A finding no rule can judge: the operator decides.
                verdict = writes.for_review(verdict)
            if verdict.effect.value == "requires_approval":
                result = actions.propose(tx, caller, proposal, verdict, self.hasher, now_dt,
                                        self.config.pending_ttl_days,
                                        self.config.max_pending_actions)
            else:
                result = self._apply(tx, caller, proposal, verdict, now_dt)
            if scanned.review:
                result.warnings.append(writes.REVIEW_WARNING)
            writes.remember(tx, owner, p.idempotency_key, rhash, result, now)
            return result

        try:
            result = await self.store.run(run)
        except _Deny as deny:
            await self.store.run(lambda tx, d=deny: writes.audit_decision(  # type: ignore[misc]
                tx, d.caller, d.verdict, d.proposal.ops, now))
            log.info("write_denied", decision_id=deny.verdict.decision_id,
                     rule_ids=list(deny.verdict.rule_ids))
            raise Denied("policy_denied", details={
                "decision_id": deny.verdict.decision_id, "rule_ids": list(deny.verdict.rule_ids),
                "policy_hash": deny.verdict.policy_hash,
                "explicit": deny.verdict.explicit}) from None
        except _Rejected as rej:
            await self.store.run(lambda tx, r=rej: writes.audit_rejection(  # type: ignore[misc]
                tx, r.caller, r.verdict, r.proposal.ops, r.exc, now))
            log.info("write_rejected", code=rej.exc.code)
            raise rej.exc from None
        await self._finish_receipts(result)
        return result

    def _apply(self, tx: Tx, caller: writes.Caller, proposal: writes.Proposal,
               verdict: writes.Verdict, now_dt: datetime, *,
               conflict_code: str = "revision_conflict",
               action_id: str | None = None) -> schema.WriteResult:
        now = fmt(now_dt)
        applied = writes.apply_ops(tx, caller, proposal, self._limits(), now_dt,
                                   conflict_code=conflict_code,
                                   allow_unchanged=action_id is None)
        if action_id is None:
            writes.audit_decision(tx, caller, verdict, proposal.ops, now)
        if applied.operation_id is None:
            return schema.WriteResult(outcome="unchanged", operation_id=None,
                                      decision=verdict.wire(),
                                      entries=_shown(caller, applied.rows, now),
                                      warnings=applied.warnings, action_id=action_id)
        details: dict[str, Any] = {}
        if action_id is not None:
            details["action_id"] = action_id
        writes.audit_operation(tx, caller, verdict, applied, now, **details)
        receipts = []
        for entry_id in applied.removed:
            receipts.append(reads.new_receipt(tx, caller.subject.owner, entry_id, now))
        return schema.WriteResult(
            outcome="applied", operation_id=applied.operation_id, decision=verdict.wire(),
            entries=_shown(caller, applied.rows, now), warnings=applied.warnings,
            action_id=action_id, receipt=receipts[0] if receipts else None,
            receipts=receipts if len(receipts) > 1 else None,
        )

    async def _finish_receipts(self, result: schema.WriteResult) -> None:
        receipts = result.receipts or ([result.receipt] if result.receipt else [])
        for receipt in receipts:
            if receipt.status == "pending":
                def verify(tx: Tx, rid: str = receipt.receipt_id) -> schema.ReceiptOut:
                    return reads.verify_removal(tx, rid, fmt(self._now()))

                updated = await (self.finish_receipt(receipt.receipt_id)
                                 if self.finish_receipt is not None else self.store.run(verify))
                receipt.status = updated.status
                receipt.updated_at = updated.updated_at

    async def action_list(self, ctx: CallContext, p: schema.ActionList) -> Any:
        self._governance(ctx, Capability.GOVERNANCE_DECIDE)
        now = fmt(self._now())
        await self._expire_before_read()
        return await self.store.run(
            lambda tx: actions.list_actions(tx, p.status, p.cursor, now), write=False)

    async def action_get(self, ctx: CallContext, p: schema.ActionRef) -> Any:
        self._governance(ctx, Capability.GOVERNANCE_DECIDE)
        await self._expire_before_read()
        return await self.store.run(lambda tx: actions.get_action(tx, p.action_id), write=False)

    async def action_approve(self, ctx: CallContext, p: schema.ActionRef) -> Any:
        self._governance(ctx, Capability.GOVERNANCE_DECIDE)
        await self.expire_actions()
        now_dt = self._now()
        now = fmt(now_dt)

        def run(tx: Tx) -> schema.WriteResult:
            row, caller, proposal = actions.load_pending(tx, p.action_id, now)
            # The proposal is decided again under the policy in force: a rule
            # added since it was proposed must hold for its approval too. Only
            # a deny refuses: requires_approval is exactly what this call gives.
            again = writes.decide_ops(caller, proposal.ops, self.policy)
            if again.effect is Effect.DENY:
                raise _Deny(again, caller, proposal)
            verdict = writes.Verdict(
                decision_id=random_id("dec"),
                effect=Effect.ALLOW,
                rule_ids=(),
                explicit=True,
                policy_hash=self.policy.hash,
                resources=tuple(op.resource().canonical() for op in proposal.ops),
            )
            # Content rules may have tightened since the proposal: scan again.
            writes.scan_ops(proposal, self.config.entry_max_bytes)
            tx.audit("action_approved", now, subject={"channel": "control", "role": "operator",
                                                      "owner": row["owner"]},
                     capability=Capability.GOVERNANCE_DECIDE.value,
                     resource=verdict.resources[0], decision_id=verdict.decision_id,
                     effect="allow", entry_ids=[o.entry_id for o in proposal.ops if o.entry_id],
                     content_hashes=[o.content_hash for o in proposal.ops if o.content_hash],
                     details={"action_id": p.action_id})
            result = self._apply(tx, caller, proposal, verdict, now_dt,
                                 conflict_code="decision_stale", action_id=p.action_id)
            actions.close_action(tx, p.action_id, "approved", now, result)
            return result

        try:
            result = await self.store.run(run)
        except _Deny as deny:
            # Refused, and the action stays pending (docs/decisions.md): the
            # operator may deny it, or change the policy and approve again.
            await self.store.run(lambda tx, d=deny: writes.audit_decision(  # type: ignore[misc]
                tx, d.caller, d.verdict, d.proposal.ops, now, action_id=p.action_id))
            log.info("approval_refused", action_id=p.action_id,
                     decision_id=deny.verdict.decision_id, rule_ids=list(deny.verdict.rule_ids))
            raise Denied("policy_denied", details={
                "decision_id": deny.verdict.decision_id, "rule_ids": list(deny.verdict.rule_ids),
                "policy_hash": deny.verdict.policy_hash, "explicit": deny.verdict.explicit,
                "action_id": p.action_id}) from None
        log.info("action_approved", action_id=p.action_id, operation_id=result.operation_id)
        await self._finish_receipts(result)
        return result

    async def action_deny(self, ctx: CallContext, p: schema.ActionDeny) -> Any:
        self._governance(ctx, Capability.GOVERNANCE_DECIDE)
        await self.expire_actions()
        now = fmt(self._now())

        def run(tx: Tx) -> dict[str, Any]:
            row, _caller, proposal = actions.load_pending(tx, p.action_id, now)
            tx.audit("action_denied", now, subject={"channel": "control", "role": "operator",
                                                    "owner": row["owner"]},
                     capability=Capability.GOVERNANCE_DECIDE.value, effect="deny",
                     entry_ids=[o.entry_id for o in proposal.ops if o.entry_id],
                     content_hashes=[o.content_hash for o in proposal.ops if o.content_hash],
                     details={"action_id": p.action_id})
            actions.close_action(tx, p.action_id, "denied", now, None)
            return {"action_id": p.action_id, "status": "denied"}

        out = await self.store.run(run)
        log.info("action_denied", action_id=p.action_id)
        await self._scrub_wal()
        return out

    async def _scrub_wal(self) -> None:
        """Move the WAL into the database and truncate it, as removal does: the
        dropped proposal's old pages must not linger in ``memory.db-wal``."""
        await anyio.to_thread.run_sync(self.store.checkpoint_wal)

    async def _expire_before_read(self) -> None:
        try:
            await self.expire_actions()
        except Unavailable:
            # Reads go on while the store is degraded (SPEC §5.9): the listing
            # is still served, only the expiry sweep waits for recovery.
            pass

    async def expire_actions(self) -> int:
        now = fmt(self._now())
        expired = await self.store.run(lambda tx: actions.expire_actions(tx, now))
        if expired:
            await self._scrub_wal()
        return expired

    # -- reads ------------------------------------------------------------------

    async def memory_read(self, ctx: CallContext, p: schema.MemoryRead) -> Any:
        now = fmt(self._now())

        def body(tx: Tx, check: ReadCheck, _view: View) -> Any:
            assert check.caller is not None

            def allow(target: str, scope: str, index: int) -> None:
                self.gate.require_namespace(check, target, scope, index=index)

            return reads.read(tx, check.caller.view, p.ids, p.include_pending, now, allow)

        return await self._read(ctx, "memory.read", p.task_id, p.identity, body)

    async def memory_list(self, ctx: CallContext, p: schema.MemoryList) -> Any:
        now = fmt(self._now())

        def body(tx: Tx, check: ReadCheck, view: View) -> Any:
            if p.scope is not None:
                # A listing that names its scope asks about that namespace.
                self.gate.require_namespace(check, p.target or "memory", p.scope)
            return reads.list_entries(tx, self.hasher, self.boot_id, view, p, now,
                                      ranker=self.ranker)

        return await self._read(ctx, "memory.list", p.task_id, p.identity, body)

    async def memory_receipt(self, ctx: CallContext, p: schema.MemoryReceipt) -> Any:
        def body(tx: Tx, check: ReadCheck, _view: View) -> Any:
            assert check.caller is not None

            def allow(target: str, scope: str, index: int) -> None:
                self.gate.require_namespace(check, target, scope)

            return reads.receipt(tx, check.caller.view, p.receipt_id, allow)

        return await self._read(ctx, "memory.receipt", p.task_id, p.identity, body)

    async def memory_status(self, ctx: CallContext, p: schema.MemoryStatus) -> Any:
        now = fmt(self._now())

        def run(tx: Tx) -> Any:
            if ctx.channel == "agent" or p.task_id is not None:
                if p.task_id is None:
                    # The same owner a task begun here without a token gets:
                    # never the daemon's default one for a peer mapped elsewhere.
                    owner = self._peer_owner(ctx)
                    task = None
                else:
                    task = self._task(tx, ctx, p.task_id)
                    owner = task.owner
            else:
                owner = self._owner_for_control(p.identity)
                task = None
            # A task counts only its own namespaces (SPEC §7: what it may see).
            view = task_view(task) if task is not None else View(owner, None)
            return reads.status(tx, self, owner, task, now, view, agent=ctx.channel == "agent")

        return await self.store.run(run, write=False)

    # -- audit / policy ---------------------------------------------------------

    async def audit_export(self, ctx: CallContext, p: schema.AuditExport) -> Any:
        self._governance(ctx, Capability.GOVERNANCE_DECIDE)
        return await self.store.run(lambda tx: reads.export(tx, p.after_seq, p.limit), write=False)

    async def policy_reload(self, ctx: CallContext, p: schema.NoParams) -> Any:
        self._governance(ctx, Capability.GOVERNANCE_DECIDE)
        import anyio

        return await anyio.to_thread.run_sync(self.load_policy_file)

    async def policy_explain(self, ctx: CallContext, p: schema.PolicyExplain) -> Any:
        self._governance(ctx, Capability.GOVERNANCE_DECIDE)
        decision, resource = self.gate.explain(p, self.default.owner)
        # Not audited: nothing is decided for real, and the answer holds only
        # what the operator sent and the policy's own rule ids.
        return {"effect": decision.effect.value, "explicit": decision.explicit,
                "rule_ids": list(decision.rule_ids), "always_on": decision.always_on,
                "reason": decision.reason, "policy_hash": decision.policy_hash,
                "resource": resource.canonical()}

    # -- tables -----------------------------------------------------------------

    def method_tables(self) -> tuple[Dispatcher, Dispatcher]:
        agent: dict[str, MethodSpec] = {}
        control: dict[str, MethodSpec] = {}

        def add(name: str, params: type, handler: Handler, *, on_agent: bool) -> None:
            spec = MethodSpec(name=name, params=params, handler=handler)
            control[name] = spec
            if on_agent:
                agent[name] = spec

        add("task.begin", schema.TaskBegin, self.task_begin, on_agent=True)
        add("task.end", schema.TaskRef, self.task_end, on_agent=True)
        add("task.resume", schema.TaskResume, self.task_resume, on_agent=True)
        add("memory.write", schema.MemoryWrite, self.memory_write, on_agent=True)
        add("memory.read", schema.MemoryRead, self.memory_read, on_agent=True)
        add("memory.list", schema.MemoryList, self.memory_list, on_agent=True)
        add("memory.receipt", schema.MemoryReceipt, self.memory_receipt, on_agent=True)
        add("memory.status", schema.MemoryStatus, self.memory_status, on_agent=True)
        add("governance.action.list", schema.ActionList, self.action_list, on_agent=False)
        add("governance.action.get", schema.ActionRef, self.action_get, on_agent=False)
        add("governance.action.approve", schema.ActionRef, self.action_approve, on_agent=False)
        add("governance.action.deny", schema.ActionDeny, self.action_deny, on_agent=False)
        add("consent.get", schema.IdentityOnly, self.consent_get, on_agent=False)
        add("consent.set", schema.ConsentSet, self.consent_set, on_agent=False)
        add("token.issue", schema.TokenIssue, self.token_issue, on_agent=False)
        add("token.list", schema.IdentityOnly, self.token_list, on_agent=False)
        add("token.revoke", schema.TokenRevoke, self.token_revoke, on_agent=False)
        add("audit.export", schema.AuditExport, self.audit_export, on_agent=False)
        add("policy.reload", schema.NoParams, self.policy_reload, on_agent=False)
        add("policy.explain", schema.PolicyExplain, self.policy_explain, on_agent=False)
        for name, params, handler in self.extra_methods:
            add(name, params, handler, on_agent=name in AGENT_EXTRA)
        return Dispatcher(agent), Dispatcher(control)

    extra_methods: list[tuple[str, type, Handler]] = field(default_factory=list)
    # The hybrid ranker (daemon/hybrid.py) when the semantic extra is loaded;
    # None ranks lexically, and ``ranker_reason`` says why.
    ranker: Ranker | None = None
    ranker_reason: str = "extra_not_installed"
    # Settles a delete receipt after its removal committed (daemon/lifecycle.py
    # installs it); without one, the store is only re-read.
    finish_receipt: Callable[[str], Awaitable[schema.ReceiptOut]] | None = None
    # External memory (daemon/projection.py, installed by daemon/cli.py): the
    # status section and external recall ask it; None means off.
    projection: Projection | None = None


# Entries up to this many characters in all are scanned on the event loop.
INLINE_SCAN_CHARS = 1_024

# Agent-channel methods that other modules register (SPEC §9).
AGENT_EXTRA = frozenset({"memory.context"})


def _shown(caller: writes.Caller, rows: list[dict[str, Any]],
           now: str) -> list[schema.Entry] | list[schema.EntryRef]:
    """A write answer's entries: full for a caller that may read, else only
    ids and the revisions this write produced (no stored text)."""
    if caller.read_allowed:
        return [reads.wire(r, now) for r in rows]
    return [schema.EntryRef(id=r["id"], revision=r["revision"]) for r in rows]


class _Deny(Exception):
    def __init__(self, verdict: writes.Verdict, caller: writes.Caller,
                 proposal: writes.Proposal) -> None:
        self.verdict, self.caller, self.proposal = verdict, caller, proposal


class _Rejected(Exception):
    def __init__(self, exc: MemorydError, verdict: writes.Verdict, caller: writes.Caller,
                 proposal: writes.Proposal) -> None:
        self.exc, self.verdict, self.caller, self.proposal = exc, verdict, caller, proposal
