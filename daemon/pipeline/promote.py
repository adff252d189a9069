"""``memory.promote {ids, identity?}``: the operator vouches for imported entries.

Owns: turning entries whose provenance is ``import`` (bulk-imported notes,
never injected into recall, SPEC §7) into ``user`` entries, which recall may
inject — the one way an imported entry becomes recallable.

Invariants:
- control channel only (absent from the agent table; the kernel's
  ``GovernanceDecide`` default refuses it anywhere else, whatever the policy):
  vouching is the operator's decision, never an agent's;
- all or nothing: an id that is not one of the owner's entries fails the
  whole call with ``not_found`` and changes nothing;
- only provenance changes: title, body, revision and timestamps stay as they
  are (the content the operator reviewed is the content that is promoted);
  entries that are not ``import`` are reported as ``unchanged``;
- the change and its audit event (entry ids, revisions, keyed content hashes,
  never text) commit in one transaction.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Annotated

import msgspec
import structlog
from msgspec import Meta

from memoryd.daemon.access import teams
from memoryd.daemon.access.gate import Gate, refusal
from memoryd.daemon.clock import Clock, fmt
from memoryd.daemon.ids import random_id
from memoryd.daemon.pipeline import entries
from memoryd.daemon.pipeline.entries import load
from memoryd.daemon.storage.store import Store, Tx
from memoryd.daemon.storage.txn import audit_subject
from memoryd.kernel.capability import Capability, Channel, Effect, Resource, Role, Subject
from memoryd.kernel.errors import Denied, NotFound
from memoryd.kernel.policy import Policy
from memoryd.rpc import schema
from memoryd.rpc.protocol import CallContext, MethodSpec

__all__ = ["MAX_IDS", "PromoteParams", "methods", "promote"]

log = structlog.get_logger()

# As many as one batch write holds, so one import batch is one promotion.
MAX_IDS = 50


class PromoteParams(msgspec.Struct, frozen=True, forbid_unknown_fields=True, kw_only=True):
    ids: Annotated[list[schema.Id], Meta(min_length=1, max_length=MAX_IDS)]
    identity: schema.Identity | None = None


def promote(tx: Tx, channel: str, owner: str, p: PromoteParams, gate: Gate, policy: Policy,
            now: str) -> schema.Promoted:
    ids = list(dict.fromkeys(p.ids))
    view = teams.control_view(tx, owner)
    rows = []
    for index, entry_id in enumerate(ids):
        # The owner's own entries and those of its teams (daemon/access/teams.py).
        row = load(tx, view, entry_id)
        if row is None:
            # Another owner's entry is as unknown as a missing one.
            raise NotFound("not_found", details={"index": index})
        rows.append(row)
    subject = Subject(channel=Channel(channel),
                      role=Role.OPERATOR if channel == "control" else Role.MAIN,
                      owner=owner, task_id=None)
    decision_id = random_id("dec")
    chosen = [r for r in rows if r["source"] == "import"]
    # The entry's type is part of what is vouched for: a rule on ``type`` holds.
    resources = [Resource(target=r["target"], scope=r["scope"], action="promote",
                          entry_id=r["id"], expected_revision=r["revision"],
                          content_hash=r["content_hash"], type=r["type"]) for r in chosen]
    for resource in resources:
        d = gate.decide(subject, Capability.GOVERNANCE_DECIDE, resource, policy=policy,
                        decision_id=decision_id)
        if d.effect != Effect.ALLOW:
            # Fail closed: a promotion the kernel does not allow changes nothing,
            # and the refusal names its real reason (a policy rule on control).
            raise refusal(d)
    for r in chosen:
        entries.promote(tx, r["id"])
    if chosen:
        tx.audit(
            "entries_promoted", now,
            subject=audit_subject(subject),
            capability=Capability.GOVERNANCE_DECIDE.value,
            resource=resources[0].canonical(),
            decision_id=decision_id,
            effect=Effect.ALLOW.value,
            entry_ids=[r["id"] for r in chosen],
            revisions=[r["revision"] for r in chosen],
            content_hashes=[r["content_hash"] for r in chosen],
            details={"from": "import", "to": "user"},
        )
    return schema.Promoted(
        promoted=[schema.EntryRef(id=r["id"], revision=r["revision"]) for r in chosen],
        unchanged=[{"id": r["id"], "source": r["source"]} for r in rows
                   if r["source"] != "import"],
        decision_id=decision_id if chosen else None,
    )


def methods(store: Store, clock: Clock, owner_for: Callable[[schema.Identity | None], str],
            gate: Gate) -> list[MethodSpec]:
    """The method this module serves (control.sock only); ``owner_for``
    resolves an identity (None: the daemon's default) and ``gate`` decides,
    under the policy in force at the time of the call."""

    async def memory_promote(ctx: CallContext, p: PromoteParams) -> schema.Promoted:
        if ctx.channel != "control":
            # Absent from the agent table; this is the second wall.
            raise Denied("channel_forbidden")
        now = fmt(clock.now())
        owner = owner_for(p.identity)
        in_force = gate.policy
        result = await store.run(
            lambda tx: promote(tx, ctx.channel, owner, p, gate, in_force, now))
        log.info("entries_promoted", count=len(result.promoted))
        return result

    return [MethodSpec("memory.promote", PromoteParams, memory_promote, schema.Promoted)]
