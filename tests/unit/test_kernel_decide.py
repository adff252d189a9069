"""decide(): defaults, always-on rules, policy combination and fail-closed paths."""

from __future__ import annotations

import ast
import dataclasses
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from memoryd.kernel.capability import (
    ACTIONS,
    Capability,
    Channel,
    Decision,
    Effect,
    Resource,
    Role,
    Subject,
    most_restrictive,
)
from memoryd.kernel.decide import DEFAULTS, decide
from memoryd.kernel.grants import GRANT_GATED_METHODS
from memoryd.kernel.policy import EMPTY_POLICY, Policy, Rule, load_policy
from memoryd.kernel.retention import EntryType

A, R, D = Effect.ALLOW, Effect.REQUIRES_APPROVAL, Effect.DENY
READ_GRANTS = frozenset({"memory.context", "memory.list", "memory.read", "memory.receipt"})
ALL_GRANTS = READ_GRANTS | {"memory.write"}
RES = Resource("memory", "project:acme", "add", None, None, "b3k:" + "ab" * 32, type="fact")


def subject(channel: str, role: str) -> Subject:
    return Subject(channel, role, "own_5c1e", "tsk_1")  # type: ignore[arg-type]


def run(
    channel: str,
    role: str,
    capability: str,
    policy: Policy = EMPTY_POLICY,
    *,
    grants: frozenset[str] | None = None,
    method: str | None = None,
    resource: Resource = RES,
) -> Decision:
    return decide(
        subject(channel, role),
        capability,
        resource,
        policy,
        decision_id="dec_1",
        grants=grants,
        method=method,
    )


ALLOW_ALL = load_policy('[[rule]]\nid = "allow-all"\neffect = "allow"\n')


# Built-in defaults with an empty policy.
@pytest.mark.parametrize(
    ("channel", "role", "capability", "grants", "method", "effect"),
    [
        ("agent", "main", "MemoryWrite", None, None, R),
        ("agent", "main", "MemoryWrite", ALL_GRANTS, "memory.write", R),
        ("control", "operator", "MemoryWrite", None, None, A),
        ("control", "main", "MemoryWrite", None, None, A),
        ("agent", "subagent", "MemoryWrite", ALL_GRANTS, "memory.write", D),
        ("control", "subagent", "MemoryWrite", None, None, D),
        ("agent", "main", "MemoryExternalize", None, None, D),
        ("control", "operator", "MemoryExternalize", None, None, D),
        ("agent", "main", "NetworkAccess", None, None, D),
        ("control", "operator", "NetworkAccess", None, None, D),
        ("control", "operator", "GovernanceDecide", None, None, A),
        ("agent", "main", "GovernanceDecide", ALL_GRANTS, None, D),
        ("agent", "subagent", "GovernanceDecide", None, None, D),
        ("control", "operator", "ConsentManage", None, None, A),
        ("agent", "main", "ConsentManage", ALL_GRANTS, None, D),
        ("control", "operator", "MemoryRead", None, None, A),
        ("control", "operator", "MemoryRead", None, "memory.read", A),
        ("agent", "main", "MemoryRead", READ_GRANTS, "memory.read", A),
        ("agent", "main", "MemoryRead", frozenset({"memory.list"}), "memory.list", A),
        ("agent", "subagent", "MemoryRead", READ_GRANTS, "memory.context", A),
        ("agent", "main", "MemoryRead", frozenset({"memory.list"}), "memory.read", D),
        ("agent", "main", "MemoryRead", READ_GRANTS, None, D),
        ("agent", "main", "MemoryRead", None, "memory.read", D),
        ("agent", "main", "MemoryRead", frozenset(), "memory.read", D),
        ("agent", "main", "MemoryRead", ALL_GRANTS, "memory.write", D),  # wrong capability
        ("agent", "main", "MemoryWrite", READ_GRANTS, "memory.write", D),  # no write grant
        ("agent", "main", "MemoryWrite", ALL_GRANTS, "memory.read", D),  # wrong capability
        ("agent", "main", "MemoryDelete", ALL_GRANTS, None, D),  # unknown capability
        ("control", "operator", "", None, None, D),
    ],
)
def test_builtin_default(
    channel: str,
    role: str,
    capability: str,
    grants: frozenset[str] | None,
    method: str | None,
    effect: Effect,
) -> None:
    decision = run(channel, role, capability, grants=grants, method=method)
    assert decision.effect is effect
    assert decision.explicit is False
    assert decision.rule_ids == ()
    assert decision.policy_hash == EMPTY_POLICY.hash
    assert decision.decision_id == "dec_1"


def test_defaults_table_is_total_over_capabilities_and_channels() -> None:
    assert set(DEFAULTS) == {(c, ch) for c in Capability for ch in Channel}


# Always-on rules: even a policy that allows everything cannot loosen them.
@pytest.mark.parametrize(
    ("channel", "role", "capability", "grants", "method", "reason"),
    [
        ("agent", "subagent", "MemoryWrite", ALL_GRANTS, "memory.write", "subagent_never_writes"),
        ("control", "subagent", "MemoryWrite", None, None, "subagent_never_writes"),
        ("agent", "main", "GovernanceDecide", ALL_GRANTS, None, "governance_control_only"),
        ("agent", "main", "ConsentManage", ALL_GRANTS, None, "governance_control_only"),
        ("agent", "main", "MemoryRead", None, "memory.read", "agent_read_needs_grant"),
        ("agent", "main", "MemoryRead", READ_GRANTS, None, "agent_read_needs_grant"),
        ("agent", "main", "MemoryWrite", READ_GRANTS, "memory.write", "agent_method_needs_grant"),
        ("agent", "main", "MemoryRead", ALL_GRANTS, "memory.write", "agent_method_needs_grant"),
        ("agent", "main", "NoSuchThing", ALL_GRANTS, None, "unknown_capability"),
    ],
)
def test_always_on_rule_survives_an_allow_everything_policy(
    channel: str,
    role: str,
    capability: str,
    grants: frozenset[str] | None,
    method: str | None,
    reason: str,
) -> None:
    decision = run(channel, role, capability, ALLOW_ALL, grants=grants, method=method)
    assert decision.effect is D
    assert decision.explicit is False
    assert decision.rule_ids == ()
    assert decision.always_on == reason
    assert reason in decision.reason
    assert decision.policy_hash == ALLOW_ALL.hash


def test_allow_all_policy_does_loosen_a_mere_default() -> None:
    # Contrast with the always-on rules: agent writes only default to approval.
    decision = run("agent", "main", "MemoryWrite", ALLOW_ALL)
    assert decision.effect is A
    assert decision.explicit is True
    assert decision.rule_ids == ("allow-all",)


def test_policy_may_tighten_governance_on_control() -> None:
    policy = load_policy(
        '[[rule]]\nid = "freeze"\neffect = "deny"\ncapability = "GovernanceDecide"\n'
    )
    decision = run("control", "operator", "GovernanceDecide", policy)
    assert decision.effect is D
    assert decision.explicit is True
    assert decision.rule_ids == ("freeze",)
    # ConsentManage is untouched by that rule.
    assert run("control", "operator", "ConsentManage", policy).effect is A


def test_policy_may_tighten_a_granted_agent_read() -> None:
    policy = load_policy(
        '[[rule]]\nid = "no-acme-reads"\neffect = "deny"\n'
        'capability = "MemoryRead"\nscope = "project:*"\n'
    )
    decision = run("agent", "main", "MemoryRead", policy, grants=READ_GRANTS, method="memory.read")
    assert (decision.effect, decision.explicit, decision.rule_ids) == (D, True, ("no-acme-reads",))


POLICY = load_policy("""
[[rule]]
id = "acme-writes-free"
effect = "allow"
capability = "MemoryWrite"
scope = "project:*"

[[rule]]
id = "facts-reviewed"
effect = "requires_approval"
type = "fact"

[[rule]]
id = "never-remove"
effect = "deny"
action = "remove"

[[rule]]
id = "externalize-acme"
effect = "allow"
capability = "MemoryExternalize"
channel = "control"
""")


@pytest.mark.parametrize(
    ("channel", "capability", "res", "effect", "rule_ids"),
    [
        ("agent", "MemoryWrite", RES, R, ("acme-writes-free", "facts-reviewed")),
        ("agent", "MemoryWrite", dataclasses.replace(RES, type="lesson"), A, ("acme-writes-free",)),
        (
            "control",
            "MemoryWrite",
            dataclasses.replace(RES, action="remove", type=None),
            D,
            ("acme-writes-free", "never-remove"),
        ),
        ("control", "MemoryWrite", dataclasses.replace(RES, scope="default", type=None), A, ()),
        ("agent", "MemoryWrite", dataclasses.replace(RES, scope="default", type=None), R, ()),
        ("control", "MemoryExternalize", RES, R, ("facts-reviewed", "externalize-acme")),
        (
            "control",
            "MemoryExternalize",
            dataclasses.replace(RES, type=None),
            A,
            ("externalize-acme",),
        ),
        ("agent", "MemoryExternalize", dataclasses.replace(RES, type=None), D, ()),
    ],
)
def test_most_restrictive_matching_rule_wins_and_all_matches_are_listed(
    channel: str, capability: str, res: Resource, effect: Effect, rule_ids: tuple[str, ...]
) -> None:
    role = "main" if channel == "agent" else "operator"
    decision = run(channel, role, capability, POLICY, resource=res)
    assert decision.effect is effect
    assert decision.rule_ids == rule_ids
    assert decision.explicit is bool(rule_ids)
    assert decision.policy_hash == POLICY.hash


def test_deny_first_then_allow_still_denies() -> None:
    deny, allow = Rule(id="d", effect=D), Rule(id="a", effect=A)
    for order in ([deny, allow], [allow, deny]):
        decision = run("control", "operator", "MemoryWrite", Policy.build(order))
        assert decision.effect is D
        assert set(decision.rule_ids) == {"a", "d"}
        assert decision.rule_ids == tuple(r.id for r in order)  # policy order


def test_a_rule_that_raises_counts_as_a_matching_deny() -> None:
    # A scope that is not a string makes fnmatch raise while matching.
    broken = Rule(id="broken", effect=A, scope=(3,))  # type: ignore[arg-type]
    fine = Rule(id="fine", effect=A)
    decision = run("control", "operator", "MemoryWrite", Policy.build([fine, broken]))
    assert decision.effect is D
    assert decision.explicit is True
    assert decision.rule_ids == ("fine", "broken")
    assert "broken" in decision.reason
    assert "fine" not in decision.reason


def test_a_rule_that_raises_is_never_skipped_even_when_others_deny_nothing() -> None:
    class Exploding(Rule):
        __slots__ = ()

        def matches(self, *args: object) -> bool:
            raise RuntimeError("boom")

    decision = run("agent", "main", "MemoryWrite", Policy.build([Exploding(id="x", effect=A)]))
    assert (decision.effect, decision.rule_ids, decision.explicit) == (D, ("x",), True)
    assert "boom" not in decision.reason  # exception text never leaks


def test_reason_never_carries_resource_contents() -> None:
    res = dataclasses.replace(RES, scope="secret-project-name", entry_id="ent_zzz")
    for channel, role in (("agent", "main"), ("control", "operator")):
        for cap in Capability:
            reason = run(channel, role, cap.value, POLICY, resource=res).reason
            assert "secret-project-name" not in reason
            assert "ent_zzz" not in reason
            assert "b3k:" not in reason


def test_decide_requires_a_decision_id() -> None:
    with pytest.raises(ValueError, match="decision_id"):
        decide(subject("control", "operator"), "MemoryWrite", RES, EMPTY_POLICY, decision_id="")


# Effect order


def test_effect_order_is_by_restrictiveness_not_alphabet() -> None:
    assert D > R > A
    assert A < R < D
    assert R <= R and R >= R
    assert sorted([D, A, R]) == [A, R, D]
    assert max([R, D, A]) is D


def test_effect_refuses_to_compare_with_plain_strings() -> None:
    with pytest.raises(TypeError):
        assert D > "allow"  # type: ignore[operator]


@pytest.mark.parametrize(
    ("effects", "expected"),
    [([A], A), ([A, R], R), ([R, A, D, A], D), ([A, A], A), ([], D), (["allow", "deny"], D)],
)
def test_most_restrictive(effects: list[Effect], expected: Effect) -> None:
    assert most_restrictive(effects) is expected


# Properties


def values_of(items: list[str]) -> st.SearchStrategy[tuple[str, ...] | None]:
    return st.none() | st.lists(st.sampled_from(items), min_size=1, max_size=3, unique=True).map(
        lambda v: tuple(sorted(v))
    )


SCOPES = ["default", "project:acme", "project:beta", "scratch:1", "own_5c1e"]
rules = st.builds(
    Rule,
    id=st.just("placeholder"),
    effect=st.sampled_from(list(Effect)),
    capability=values_of([c.value for c in Capability]),
    channel=values_of([c.value for c in Channel]),
    role=values_of([r.value for r in Role]),
    target=values_of(["memory", "user"]),
    scope=values_of(["*", "project:*", "scratch:?", "[dp]*", "default", "own_*"]),
    action=values_of(sorted(ACTIONS)),
    type=values_of([t.value for t in EntryType]),
)
rule_lists = st.lists(rules, max_size=6)
asks = st.fixed_dictionaries(
    {
        "subject": st.builds(
            Subject,
            channel=st.sampled_from(list(Channel)),
            role=st.sampled_from(list(Role)),
            owner=st.just("own_5c1e"),
            task_id=st.none() | st.just("tsk_1"),
        ),
        "capability": st.sampled_from([c.value for c in Capability] + ["Bogus"]),
        "resource": st.builds(
            Resource,
            target=st.sampled_from(["memory", "user"]),
            scope=st.sampled_from(SCOPES),
            action=st.sampled_from(sorted(ACTIONS)),
            entry_id=st.none() | st.just("ent_1"),
            expected_revision=st.none() | st.integers(1, 5),
            content_hash=st.none(),
            type=st.none() | st.sampled_from([t.value for t in EntryType]),
        ),
        "grants": st.none() | st.frozensets(st.sampled_from(sorted(GRANT_GATED_METHODS))),
        "method": st.none() | st.sampled_from(sorted(GRANT_GATED_METHODS)),
    }
)


def build(rule_list: list[Rule]) -> Policy:
    return Policy.build(dataclasses.replace(r, id=f"r{i}") for i, r in enumerate(rule_list))


def ask(policy: Policy, a: dict[str, object]) -> Decision:
    return decide(
        a["subject"],
        a["capability"],
        a["resource"],
        policy,  # type: ignore[arg-type]
        decision_id="dec_p",
        grants=a["grants"],
        method=a["method"],
    )  # type: ignore[arg-type]


@given(rule_lists, rules, asks)
def test_adding_a_rule_never_loosens_a_decision_rules_made(
    base: list[Rule], extra: Rule, a: dict[str, object]
) -> None:
    before = ask(build(base), a)
    after = ask(build([*base, extra]), a)
    if before.explicit or before.always_on is not None:
        assert after.effect >= before.effect


@given(rule_lists, rules, asks)
def test_a_matching_rule_is_a_lower_bound(
    base: list[Rule], extra: Rule, a: dict[str, object]
) -> None:
    after = ask(build([*base, extra]), a)
    capability = a["capability"]
    if capability in {c.value for c in Capability} and extra.matches(
        a["subject"],
        Capability(capability),
        a["resource"],  # type: ignore[arg-type]
    ):
        assert after.effect >= extra.effect


@given(rule_lists, rules, asks)
def test_a_rule_that_does_not_match_changes_nothing(
    base: list[Rule], extra: Rule, a: dict[str, object]
) -> None:
    capability = a["capability"]
    if capability in {c.value for c in Capability} and extra.matches(
        a["subject"],
        Capability(capability),
        a["resource"],  # type: ignore[arg-type]
    ):
        return
    before = ask(build(base), a)
    after = ask(build([*base, extra]), a)
    assert (after.effect, after.explicit, after.rule_ids) == (
        before.effect,
        before.explicit,
        before.rule_ids,
    )


@given(
    st.lists(rules, max_size=6).flatmap(
        lambda rs: st.tuples(st.just(rs), st.permutations(list(range(len(rs)))))
    ),
    asks,
)
def test_rule_order_never_changes_a_decision(
    rules_and_order: tuple[list[Rule], list[int]], a: dict[str, object]
) -> None:
    rule_list, order = rules_and_order
    named = [dataclasses.replace(r, id=f"r{i}") for i, r in enumerate(rule_list)]
    original = ask(Policy.build(named), a)
    shuffled = ask(Policy.build(named[i] for i in order), a)
    assert shuffled.effect is original.effect
    assert shuffled.explicit is original.explicit
    assert sorted(shuffled.rule_ids) == sorted(original.rule_ids)


@given(rule_lists, asks)
def test_always_on_floors_hold_under_any_policy(
    rule_list: list[Rule], a: dict[str, object]
) -> None:
    decision = ask(build(rule_list), a)
    subj = a["subject"]
    assert isinstance(subj, Subject)
    cap = a["capability"]
    if cap == "MemoryWrite" and subj.role is Role.SUBAGENT:
        assert decision.effect is D
    if cap in ("GovernanceDecide", "ConsentManage") and subj.channel is Channel.AGENT:
        assert decision.effect is D
    if (
        cap == "MemoryRead"
        and subj.channel is Channel.AGENT
        and (a["method"] is None or a["method"] not in (a["grants"] or frozenset()))
    ):
        assert decision.effect is D
    if cap == "Bogus":
        assert decision.effect is D
    if not decision.explicit:
        assert decision.rule_ids == ()
    if decision.always_on is not None:
        assert decision.effect is D
        assert not decision.explicit


# The kernel is pure: none of these modules may import I/O or other layers.
KERNEL_MODULES = ["capability", "decide", "grants", "policy", "retention"]
FORBIDDEN = {
    "os",
    "io",
    "sys",
    "socket",
    "time",
    "random",
    "secrets",
    "pathlib",
    "subprocess",
    "shutil",
    "tempfile",
    "logging",
    "structlog",
    "asyncio",
    "anyio",
    "threading",
    "daemon",
    "rpc",
    "audit",
    "urllib",
    "http",
    "select",
    "signal",
    "uuid",
}


@pytest.mark.parametrize("module", KERNEL_MODULES)
def test_kernel_module_imports_no_io_and_no_outer_layer(module: str) -> None:
    path = Path(__file__).resolve().parents[2] / "kernel" / f"{module}.py"
    tree = ast.parse(path.read_text(encoding="utf-8"))
    imported: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            imported |= {alias.name.split(".")[0] for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module:
            imported.add(node.module.split(".")[0])
    assert imported, "parsed no imports; the test is not looking at the module"
    assert not imported & FORBIDDEN


# A write-only task waits: an allowed agent write from a task without any read
# grant is raised to requires_approval, so its answer never depends on stored
# state it may not see (a taken title would otherwise be duplicate_title).
@pytest.mark.parametrize(
    ("grants", "policy", "effect", "always_on"),
    [
        (frozenset({"memory.write"}), ALLOW_ALL, R, "write_only_task_waits"),
        (frozenset({"memory.write"}), EMPTY_POLICY, R, None),
        (frozenset({"memory.write", "memory.list"}), ALLOW_ALL, A, None),
        (ALL_GRANTS, ALLOW_ALL, A, None),
    ],
)
def test_a_write_only_task_is_never_allowed_to_apply_at_once(
    grants: frozenset[str], policy: Policy, effect: Effect, always_on: str | None
) -> None:
    d = run("agent", "main", "MemoryWrite", policy, grants=grants, method="memory.write")
    assert (d.effect, d.always_on) == (effect, always_on)


def test_the_operator_is_never_held_by_the_write_only_floor() -> None:
    d = run("control", "operator", "MemoryWrite", ALLOW_ALL)
    assert d.effect is A
