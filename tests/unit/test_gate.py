"""The authorization gate's laws, for random subjects, policies and methods."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from memoryd.daemon.access.gate import READ_ACTIONS, Caller, Gate, ReadCheck, refusal
from memoryd.daemon.pipeline.entries import View
from memoryd.kernel.capability import Capability, Channel, Decision, Effect, Role, Subject
from memoryd.kernel.errors import Denied
from memoryd.kernel.grants import READ_METHODS
from memoryd.kernel.policy import Policy, Rule

SCOPES = ["default", "project:hr", "project:web", "scratch:a"]
spaces = st.tuples(st.sampled_from(["memory", "user"]), st.sampled_from(SCOPES))


def maybe(values: list[str]) -> st.SearchStrategy[tuple[str, ...] | None]:
    """No condition, or one or two of ``values`` (sorted, as Policy keeps them)."""
    picked = st.lists(st.sampled_from(values), min_size=1, max_size=2, unique=True)
    return st.none() | picked.map(lambda xs: tuple(sorted(xs)))


def rules(prefix: str) -> st.SearchStrategy[Rule]:
    # Strategies built once, not inside a draw: building one per example
    # was most of this module's time.
    return st.builds(
        Rule,
        id=st.integers(0, 10_000).map(lambda n: f"{prefix}{n}"),
        effect=st.sampled_from(list(Effect)),
        capability=maybe(["MemoryRead", "MemoryWrite", "GovernanceDecide"]),
        channel=maybe(["agent", "control"]),
        role=maybe(["main", "subagent", "operator"]),
        target=maybe(["memory", "user"]),
        scope=maybe(["project:*", "default", "*", "scratch:?"]),
        action=maybe(sorted(READ_ACTIONS.values())),
    )


policies = st.lists(rules("r"), max_size=6, unique_by=lambda r: r.id).map(Policy.build)


_CHANNELS = st.sampled_from(list(Channel))
_AGENT_ROLES = st.sampled_from([Role.MAIN, Role.SUBAGENT])
_GRANTS = st.lists(st.sampled_from(sorted(READ_METHODS)), unique=True).map(frozenset)
_VIEWS = st.sets(spaces, min_size=1).map(frozenset)


@st.composite
def callers(draw: st.DrawFn) -> Caller:
    channel = draw(_CHANNELS)
    role = Role.OPERATOR if channel is Channel.CONTROL else draw(_AGENT_ROLES)
    owner = "own_x"
    grants = draw(_GRANTS) if channel is Channel.AGENT else None
    subject = Subject(
        channel=channel,
        role=role,
        owner=owner,
        task_id="tsk_1" if channel is Channel.AGENT else None,
    )
    return Caller(subject, View(owner, draw(_VIEWS)), None, grants)


def reach(
    gate: Gate, caller: Caller, method: str, asked: list[tuple[str, str]]
) -> tuple[ReadCheck, list[tuple[str, str]] | None]:
    """A read handler's walk through the gate: what it was shown, or None if refused."""
    check = ReadCheck(method)
    try:
        gate.read_call(check, caller)
    except Denied:
        return check, None
    shown = [s for s in asked if gate.namespace(check, *s).effect is Effect.ALLOW]
    return check, shown


@settings(max_examples=300, deadline=None)
@given(policies, callers(), st.sampled_from(sorted(READ_ACTIONS)), st.lists(spaces, max_size=4))
def test_nothing_is_shown_without_an_allowing_decision(
    policy: Policy, caller: Caller, method: str, asked: list[tuple[str, str]]
) -> None:
    gate = Gate(lambda: policy)
    check, shown = reach(gate, caller, method, asked)
    if shown is None:
        assert check.refused is not None and check.refused.effect is not Effect.ALLOW
        return
    assert check.refused is None
    for space in shown:
        decision = check.decisions[space]
        assert decision.effect is Effect.ALLOW
        assert decision.decision_id == check.decision_id
        assert decision.policy_hash == policy.hash


@settings(max_examples=300, deadline=None)
@given(
    policies, callers(), st.sampled_from(sorted(READ_ACTIONS)), st.lists(spaces, max_size=4), spaces
)
def test_adding_a_matching_deny_rule_never_lets_more_through(
    policy: Policy,
    caller: Caller,
    method: str,
    asked: list[tuple[str, str]],
    denied: tuple[str, str],
) -> None:
    deny = Rule(
        id="added-deny",
        effect=Effect.DENY,
        capability=("MemoryRead",),
        target=(denied[0],),
        scope=(denied[1],),
    )
    tighter = Policy.build([*policy.rules, deny])
    _, before = reach(Gate(lambda: policy), caller, method, [*asked, denied])
    _, after = reach(Gate(lambda: tighter), caller, method, [*asked, denied])
    if after is None:
        return
    assert before is not None
    assert set(after) <= set(before)
    assert denied not in after


@settings(max_examples=200, deadline=None)
@given(
    policies,
    st.sampled_from(list(Channel)),
    st.sampled_from([Capability.GOVERNANCE_DECIDE, Capability.CONSENT_MANAGE]),
)
def test_governance_refusals_name_the_channel_only_for_the_channel_rule(
    policy: Policy, channel: Channel, capability: Capability
) -> None:
    from memoryd.rpc.protocol import CallContext

    gate = Gate(lambda: policy)
    ctx = CallContext(channel=channel.value, peer_uid=0, peer_pid=None, conn_id="conn_1")
    try:
        decision = gate.governance(ctx, capability, "own_x")
    except Denied as exc:
        expected = "channel_forbidden" if channel is Channel.AGENT else "policy_denied"
        assert exc.code == expected
        assert exc.details is not None and exc.details["policy_hash"] == policy.hash
    else:
        assert channel is Channel.CONTROL and decision.effect is Effect.ALLOW


def test_refusal_codes_follow_the_rule_that_decided() -> None:
    def deny(always_on: str | None) -> Decision:
        return Decision(
            "dec_1",
            Effect.DENY,
            (),
            "pol_x",
            explicit=always_on is None,
            reason="r",
            always_on=always_on,
        )

    table = {
        None: "policy_denied",
        "governance_control_only": "channel_forbidden",
        "agent_read_needs_grant": "consent_required",
        "agent_method_needs_grant": "consent_required",
        "subagent_never_writes": "read_only_task",
        "unknown_capability": "policy_denied",
    }
    for always_on, code in table.items():
        err = refusal(deny(always_on))
        assert err.code == code
        assert err.details is not None
        assert err.details["decision_id"] == "dec_1" and err.details["policy_hash"] == "pol_x"
