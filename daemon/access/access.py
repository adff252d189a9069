"""Who may act, and for how long: tasks, tokens and consent (SPEC §6).

Owns: ``task.begin`` / ``task.resume`` / ``task.end`` (both sockets) and, on
the control channel only, ``consent.get`` / ``consent.set`` and
``token.issue`` / ``token.list`` / ``token.revoke``. The rows themselves
belong to daemon/access/tasks.py and daemon/access/identity.py; this module resolves who a
call is for and runs each in one transaction.

Invariants:
- on agent.sock a task's owner comes from its token, its parent task, or the
  peer's uid mapping (else the default identity); the client never names an
  identity there;
- consent and token methods pass the gate's governance check before anything
  is read or written;
- beginning and ending tasks is bookkeeping for reads: it goes on while the
  store refuses governed writes;
- logs carry owner and token ids only, never a token, subject or secret.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

import structlog

from memoryd.audit.keyed import KeyedHasher
from memoryd.daemon.access import gate as gate_mod
from memoryd.daemon.access import identity as ident
from memoryd.daemon.access import tasks
from memoryd.daemon.access.gate import ControlCall, Gate
from memoryd.daemon.clock import Clock, fmt
from memoryd.daemon.config import Config
from memoryd.daemon.storage.store import Store, Tx
from memoryd.kernel.capability import Capability
from memoryd.kernel.errors import Denied, NotFound, Unavailable
from memoryd.rpc import schema
from memoryd.rpc.protocol import CallContext, MethodSpec

if TYPE_CHECKING:
    from memoryd.daemon.extraction.extract_worker import Extraction

log = structlog.get_logger()


@dataclass
class Access:
    """The task, consent and token methods, over their collaborators."""

    store: Store
    clock: Clock
    hasher: KeyedHasher
    gate: Gate
    config: Config
    control: ControlCall
    # The owner of an agent.sock call without a token: the peer uid's
    # configured identity, else the default one.
    peer_owner: Callable[[CallContext], str]
    # Extraction (daemon/extraction/extract_worker.py): task.end's transcript goes to it.
    extraction: Extraction | None = None

    def methods(self) -> list[MethodSpec]:
        """The methods this module serves: (name, params, handler, result, sockets)."""
        return [
            MethodSpec("task.begin", schema.TaskBegin, self.task_begin, schema.TaskOut,
                       on_agent=True),
            MethodSpec("task.end", schema.TaskEnd, self.task_end, schema.TaskEnded, on_agent=True),
            MethodSpec("task.resume", schema.TaskResume, self.task_resume, schema.TaskOut,
                       on_agent=True),
            MethodSpec("consent.get", schema.IdentityOnly, self.consent_get, schema.ConsentOut),
            MethodSpec("consent.set", schema.ConsentSet, self.consent_set, schema.ConsentOut),
            MethodSpec("token.issue", schema.TokenIssue, self.token_issue, schema.TokenIssued),
            MethodSpec("token.list", schema.IdentityOnly, self.token_list, schema.TokenPage),
            MethodSpec("token.revoke", schema.TokenRevoke, self.token_revoke,
                       schema.TokenRevoked),
        ]

    # -- task.* -----------------------------------------------------------------

    async def task_begin(self, ctx: CallContext, p: schema.TaskBegin) -> schema.TaskOut:
        now_dt = self.clock.now()
        now = fmt(now_dt)

        def run(tx: Tx) -> tuple[schema.TaskOut, str | None]:
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
                owner = self.peer_owner(ctx)
            elif p.token is None:
                owner = self.control.owner_for(p.identity)
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

    async def task_resume(self, ctx: CallContext, p: schema.TaskResume) -> schema.TaskOut:
        """A new connection presents the credential its task was begun with."""
        now = fmt(self.clock.now())

        def run(tx: Tx) -> tuple[schema.TaskOut, str | None]:
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

    async def task_end(self, ctx: CallContext, p: schema.TaskEnd) -> schema.TaskEnded:
        now_dt = self.clock.now()
        now = fmt(now_dt)
        if p.transcript is None:
            return await self.store.run(
                lambda tx: tasks.end(tx, self.gate.task(tx, ctx, p.task_id, now), now),
                governed=False)
        # A transcript submits the finished task for extraction (docs/extraction.md):
        # bounded before any transaction, so a refusal stores nothing and the
        # task stays open; decided and queued in the transaction that ends it.
        extraction = self.extraction
        if extraction is None:
            raise Unavailable("store_unavailable")
        turns = extraction.check_turns(p.transcript)

        def run(tx: Tx) -> schema.TaskEnded:
            task = self.gate.task(tx, ctx, p.task_id, now)
            submitted = extraction.submit_task(tx, task, turns, now_dt)
            ended = tasks.end(tx, task, now)
            return schema.TaskEnded(task_id=ended.task_id, ended=ended.ended,
                                    extraction=submitted)

        out = await self.store.run(run)
        extraction.notify()
        return out

    # -- consent / tokens -------------------------------------------------------

    async def consent_get(self, ctx: CallContext, p: schema.IdentityOnly) -> schema.ConsentOut:
        self.control.require(ctx, Capability.CONSENT_MANAGE)
        owner = self.control.owner_for(p.identity)
        rec = await self.store.run(lambda tx: ident.read_consent(tx, owner), write=False)
        return rec.wire()

    async def consent_set(self, ctx: CallContext, p: schema.ConsentSet) -> schema.ConsentOut:
        self.control.require(ctx, Capability.CONSENT_MANAGE)
        owner = self.control.owner_for(p.identity)
        now = fmt(self.clock.now())
        rec = await self.store.run(lambda tx: ident.set_consent(tx, owner, p, now))
        log.info("consent_changed", owner=owner, version=rec.version)
        return rec.wire()

    async def token_issue(self, ctx: CallContext, p: schema.TokenIssue) -> schema.TokenIssued:
        # Imported here: the scanner loads after the start (daemon/cli.py).
        from memoryd.kernel.scan import check_fields, check_scopes

        self.control.require(ctx, Capability.GOVERNANCE_DECIDE)
        # Text kept beside the token and shown by token.list (and memctl): a
        # credential pasted into its label, its identity's kind or its scopes
        # is refused as in any stored text (the scopes as a task taking them
        # reads them). The identity's subject and issuer are only hashed.
        shown = [("kind", p.identity.kind)] + ([("label", p.label)] if p.label else [])
        check_fields(shown, max_bytes=sum(len(t) for _, t in shown), counted=[])
        if p.scopes is not None:
            check_scopes(*p.scopes)
        now_dt = self.clock.now()
        out = await self.store.run(lambda tx: ident.issue_token(tx, self.hasher, p, now_dt))
        log.info("token_issued", token_id=out.token_id, owner=out.owner)
        return out

    async def token_list(self, ctx: CallContext, p: schema.IdentityOnly) -> schema.TokenPage:
        self.control.require(ctx, Capability.GOVERNANCE_DECIDE)
        owner = None if p.identity is None else self.control.owner_for(p.identity)
        now = fmt(self.clock.now())
        items = await self.store.run(lambda tx: ident.list_tokens(tx, owner, now), write=False)
        return schema.TokenPage(items=items)

    async def token_revoke(self, ctx: CallContext, p: schema.TokenRevoke) -> schema.TokenRevoked:
        self.control.require(ctx, Capability.GOVERNANCE_DECIDE)
        now = fmt(self.clock.now())
        return await self.store.run(lambda tx: ident.revoke_token(tx, p.token_id, now))
