"""The decision function: ``decide(subject, capability, resource, policy)``.

Owns: the built-in defaults table, the always-on rules, and how they combine
with policy rules (SPEC §4). Everything that affects a decision lives here or
in the tables this module reads; nothing here does I/O.

How a decision is made:

1. **Always-on rules** (``ALWAYS_ON``) are checked first. Each is a floor that
   policy can never loosen; all of them deny, so when one applies the answer
   is ``deny`` (``explicit=False``) and policy is not consulted:
   an unknown capability; ``MemoryWrite`` from a ``subagent``;
   ``GovernanceDecide`` / ``ConsentManage`` off the ``control`` channel;
   ``MemoryRead`` on ``agent`` unless ``method`` is in the task's ``grants``;
   ``MemoryExtract`` unless ``grants`` hold ``EXTRACT_GRANT`` (a main task,
   or the operator, for an owner whose ``contribute`` switch is on);
   any grant-gated ``method`` on ``agent`` that is not in ``grants`` or does not
   serve the capability asked for.
2. **Policy rules**: every rule is evaluated; among the matching ones the most
   restrictive effect wins (``deny > requires_approval > allow``), so rule
   order never matters and adding a rule never loosens a decision that rules
   already made. A rule that raises while being evaluated counts as a
   matching ``deny`` naming that rule (fail closed, never skipped).
3. **Defaults** (``DEFAULTS``) apply only when no rule matched.
4. **A write-only task waits**: an agent ``MemoryWrite`` from a task whose
   grants hold no read method is at least ``requires_approval``, whatever
   rule or default allowed it (``always_on = "write_only_task_waits"``).
   Applying it at once would answer from stored state the task may not see
   (a title already taken is ``duplicate_title``); waiting for the operator
   answers the same ``pending`` whatever is stored.

Where the always-on rules leave room, policy may tighten or loosen a default:
an ``allow`` rule can let agent writes to some scope skip approval, a ``deny``
rule can forbid the operator's own writes there. ``GovernanceDecide`` and
``ConsentManage`` on ``control`` default to ``allow`` and policy may only
tighten them (any rule matching them is at least ``allow``); on any other
channel they are always ``deny``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from types import MappingProxyType

from memoryd.kernel.capability import (
    Capability,
    Channel,
    Decision,
    Effect,
    Resource,
    Role,
    Subject,
    most_restrictive,
)
from memoryd.kernel.grants import EXTRACT_GRANT, GRANT_GATED_METHODS, READ_METHODS
from memoryd.kernel.policy import Policy

__all__ = ["ALWAYS_ON", "DEFAULTS", "AlwaysOn", "decide"]

# The capability's effect when no policy rule matches, per channel.
DEFAULTS: Mapping[tuple[Capability, Channel], Effect] = MappingProxyType({
    (Capability.MEMORY_READ, Channel.CONTROL): Effect.ALLOW,
    # On agent, reads are further gated by grants (always-on rule below).
    (Capability.MEMORY_READ, Channel.AGENT): Effect.ALLOW,
    (Capability.MEMORY_WRITE, Channel.CONTROL): Effect.ALLOW,
    (Capability.MEMORY_WRITE, Channel.AGENT): Effect.REQUIRES_APPROVAL,
    # Nothing leaves the host until the operator authorises projection.
    (Capability.MEMORY_EXTERNALIZE, Channel.CONTROL): Effect.DENY,
    (Capability.MEMORY_EXTERNALIZE, Channel.AGENT): Effect.DENY,
    (Capability.NETWORK_ACCESS, Channel.CONTROL): Effect.DENY,
    (Capability.NETWORK_ACCESS, Channel.AGENT): Effect.DENY,
    (Capability.GOVERNANCE_DECIDE, Channel.CONTROL): Effect.ALLOW,
    (Capability.GOVERNANCE_DECIDE, Channel.AGENT): Effect.DENY,
    (Capability.CONSENT_MANAGE, Channel.CONTROL): Effect.ALLOW,
    (Capability.CONSENT_MANAGE, Channel.AGENT): Effect.DENY,
    # A submission only queues a transcript: every candidate drawn from it is
    # a governed write of its own. Consent is the always-on floor below.
    (Capability.MEMORY_EXTRACT, Channel.CONTROL): Effect.ALLOW,
    (Capability.MEMORY_EXTRACT, Channel.AGENT): Effect.ALLOW,
})


# The reason a default decision gives, per (capability, channel): a start-up
# table, not a sentence formatted on every decision.
_DEFAULT_REASONS: Mapping[tuple[Capability, Channel], str] = MappingProxyType({
    (cap, channel): f"no rule matched: default for {cap.value} on {channel.value}"
    for cap, channel in DEFAULTS
})
_MATCHED_REASONS: Mapping[Effect, str] = MappingProxyType({
    effect: f"most restrictive of matching rule(s): {effect.value}" for effect in Effect
})


@dataclass(frozen=True, slots=True)
class _Ask:
    subject: Subject
    capability: Capability
    grants: frozenset[str]
    method: str | None


@dataclass(frozen=True, slots=True)
class AlwaysOn:
    """A built-in rule policy cannot loosen: when ``applies``, the answer is deny."""

    id: str
    reason: str
    applies: Callable[[_Ask], bool]


_UNKNOWN_CAPABILITY = AlwaysOn(
    "unknown_capability", "the kernel does not know this capability", lambda _: True,
)


def _gated_method_refused(ask: _Ask) -> bool:
    if ask.subject.channel is not Channel.AGENT or ask.method not in GRANT_GATED_METHODS:
        return False
    # A method serving another capability is a caller bug; it must not be
    # able to borrow that method's grant.
    return (ask.method not in ask.grants
            or GRANT_GATED_METHODS[ask.method] is not ask.capability)


ALWAYS_ON: tuple[AlwaysOn, ...] = (
    AlwaysOn(
        "subagent_never_writes",
        "a subagent task may never write memory",
        lambda a: a.capability is Capability.MEMORY_WRITE and a.subject.role is Role.SUBAGENT,
    ),
    AlwaysOn(
        "governance_control_only",
        "governance and consent are decided on the control channel only",
        lambda a: a.capability in (Capability.GOVERNANCE_DECIDE, Capability.CONSENT_MANAGE)
        and a.subject.channel is not Channel.CONTROL,
    ),
    AlwaysOn(
        "agent_read_needs_grant",
        "an agent read needs the method in the task's grants",
        # No method named means nothing can be proven granted.
        lambda a: a.capability is Capability.MEMORY_READ
        and a.subject.channel is Channel.AGENT
        and (a.method is None or a.method not in a.grants),
    ),
    AlwaysOn(
        "extraction_needs_contribute",
        "a transcript is submitted only for a main task of an owner who contributes "
        "(and learns from tools, for a task that used them)",
        # The grant comes from the owner's consent (``grants.extract_grants``):
        # none for a subagent, none without ``contribute``, none for a task
        # that used external tools without ``learn_from_tools``.
        lambda a: a.capability is Capability.MEMORY_EXTRACT and EXTRACT_GRANT not in a.grants,
    ),
    AlwaysOn(
        "agent_method_needs_grant",
        "this method is not in the task's grants for this capability",
        _gated_method_refused,
    ),
)


def _deny(decision_id: str, policy: Policy, always_on: AlwaysOn) -> Decision:
    return Decision(
        decision_id, Effect.DENY, (), policy.hash, explicit=False,
        reason=f"always-on rule {always_on.id}: {always_on.reason}", always_on=always_on.id,
    )


def decide(
    subject: Subject,
    capability: Capability | str,
    resource: Resource,
    policy: Policy,
    *,
    decision_id: str,
    grants: frozenset[str] | None = None,
    method: str | None = None,
) -> Decision:
    """Decide whether ``subject`` may use ``capability`` on ``resource``.

    ``grants`` are the task's grants (agent channel; ``None`` means none) and
    ``method`` the RPC method being served. Never raises for a well-formed
    ``decision_id``: every failure inside becomes a deny.
    """
    if not isinstance(decision_id, str) or not decision_id:
        raise ValueError("decision_id must be a non-empty string")
    try:
        cap = capability if type(capability) is Capability else Capability(capability)
    except ValueError:
        # Fail closed: a capability the kernel does not know has no default
        # and no always-on rule, so nothing could justify allowing it.
        return _deny(decision_id, policy, _UNKNOWN_CAPABILITY)

    granted = grants if grants is not None else frozenset()
    return _decide(subject, cap, resource, policy, decision_id, granted, method)


def _decide(subject: Subject, cap: Capability, resource: Resource, policy: Policy,
            decision_id: str, grants: frozenset[str],
            method: str | None) -> Decision:
    ask = _Ask(subject, cap, grants, method)
    for always in ALWAYS_ON:
        if always.applies(ask):
            return _deny(decision_id, policy, always)

    matched: list[str] = []
    effects: list[Effect] = []
    failed: list[str] = []
    for rule in policy.rules:
        try:
            hit = rule.matches(subject, cap, resource)
        except Exception:  # noqa: BLE001 - any failure of a rule must become a deny, not a crash
            # Fail closed: a rule that cannot be evaluated might have been a
            # deny; treating it as "no match" would let a broken rule loosen.
            matched.append(rule.id)
            effects.append(Effect.DENY)
            failed.append(rule.id)
            continue
        if hit:
            matched.append(rule.id)
            effects.append(rule.effect)

    if not effects:
        default = DEFAULTS[(cap, subject.channel)]
        decision = Decision(
            decision_id, default, (), policy.hash, explicit=False,
            reason=_DEFAULT_REASONS[(cap, subject.channel)],
        )
    else:
        effect = most_restrictive(effects)
        if failed:
            reason = ("rule(s) failed while being evaluated, counted as deny: "
                      + ", ".join(failed))
        else:
            reason = _MATCHED_REASONS[effect]
        decision = Decision(decision_id, effect, tuple(matched), policy.hash, explicit=True,
                            reason=reason)
    if decision.effect is Effect.ALLOW and _write_only(ask):
        return Decision(decision_id, Effect.REQUIRES_APPROVAL, decision.rule_ids, policy.hash,
                        explicit=False, always_on=WRITE_ONLY_WAITS,
                        reason=f"always-on rule {WRITE_ONLY_WAITS}: a task that may not read "
                               "waits for the operator, so no answer depends on stored state")
    return decision


WRITE_ONLY_WAITS = "write_only_task_waits"


def _write_only(ask: _Ask) -> bool:
    """An agent write from a task whose grants hold no read method."""
    return (ask.capability is Capability.MEMORY_WRITE and ask.subject.channel is Channel.AGENT
            and ask.method is not None and not (ask.grants & READ_METHODS))
