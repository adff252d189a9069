"""policy.toml parsing, validation errors, rule matching and the policy hash."""

from __future__ import annotations

import re

import pytest

from memoryd.kernel.capability import Capability, Effect, Resource, Subject
from memoryd.kernel.policy import EMPTY_POLICY, MAX_RULES, Policy, PolicyError, Rule, load_policy

GOOD = """
# agents may jot into scratch scopes without approval
[[rule]]
id = "scratch-free"
effect = "allow"
description = "scratch is cheap"
capability = "MemoryWrite"
channel = "agent"
scope = "scratch:*"

[[rule]]
id = "no-removals"
effect = "deny"
action = ["remove", "archive"]
target = ["memory", "user"]
role = "main"
type = ["fact", "lesson"]
"""


def test_good_policy_parses_every_field() -> None:
    policy = load_policy(GOOD)
    first, second = policy.rules
    assert first == Rule(
        id="scratch-free",
        effect=Effect.ALLOW,
        description="scratch is cheap",
        capability=("MemoryWrite",),
        channel=("agent",),
        scope=("scratch:*",),
    )
    assert second.id == "no-removals"
    assert second.effect is Effect.DENY
    assert second.action == ("archive", "remove")  # stored sorted
    assert second.target == ("memory", "user")
    assert second.role == ("main",)
    assert second.type == ("fact", "lesson")
    assert second.capability is None and second.scope is None


def test_hash_has_the_documented_shape() -> None:
    assert re.fullmatch(r"pol_[0-9a-f]{64}", load_policy(GOOD).hash)


def test_hash_ignores_comments_whitespace_key_order_and_string_vs_list() -> None:
    reworded = """
    [[rule]]
    scope = ["scratch:*"]          # a list of one is the same as the string
    channel = ["agent"]
    capability = "MemoryWrite"
    description = "scratch is cheap"
    effect = "allow"
    id = "scratch-free"
    [[rule]]
    type = ["lesson", "fact", "fact"]
    role = ["main"]
    target = ["user", "memory"]
    action = ["archive", "remove"]
    effect = "deny"
    id = "no-removals"
    """
    assert load_policy(reworded).hash == load_policy(GOOD).hash
    assert load_policy(reworded) == load_policy(GOOD)


@pytest.mark.parametrize(
    ("old", "new"),
    [
        ('effect = "allow"', 'effect = "requires_approval"'),
        ('scope = "scratch:*"', 'scope = "scratch:?"'),
        ('id = "scratch-free"', 'id = "scratch-open"'),
        ('description = "scratch is cheap"', 'description = "scratch is free"'),
        ('channel = "agent"', 'channel = ["agent", "control"]'),
    ],
)
def test_hash_changes_with_meaning(old: str, new: str) -> None:
    assert old in GOOD
    assert load_policy(GOOD.replace(old, new)).hash != load_policy(GOOD).hash


def test_hash_changes_with_rule_order() -> None:
    policy = load_policy(GOOD)
    assert Policy.build(reversed(policy.rules)).hash != policy.hash


def test_empty_policy_is_no_rules_and_stable() -> None:
    assert EMPTY_POLICY.rules == ()
    assert re.fullmatch(r"pol_[0-9a-f]{64}", EMPTY_POLICY.hash)
    assert load_policy("") == EMPTY_POLICY
    assert load_policy("# nothing here\n\n") == EMPTY_POLICY
    assert EMPTY_POLICY.hash != load_policy(GOOD).hash


def test_loaded_policy_is_immutable() -> None:
    policy = load_policy(GOOD)
    with pytest.raises(AttributeError):
        policy.rules = ()  # type: ignore[misc]
    assert isinstance(policy.rules, tuple)


# Validation: every error names the rule and the field.

R = '[[rule]]\nid = "r1"\neffect = "deny"\n'


@pytest.mark.parametrize(
    ("text", "rule", "field"),
    [
        ('[[rule]]\neffect = "deny"\n', "#1", "id"),
        (R + '[[rule]]\neffect = "deny"\n', "#2", "id"),
        ('[[rule]]\nid = 7\neffect = "deny"\n', "#1", "id"),
        ('[[rule]]\nid = ""\neffect = "deny"\n', "#1", "id"),
        ('[[rule]]\nid = "has space"\neffect = "deny"\n', "#1", "id"),
        ('[[rule]]\nid = "r1"\n', "'r1'", "effect"),
        ('[[rule]]\nid = "r1"\neffect = "block"\n', "'r1'", "effect"),
        ('[[rule]]\nid = "r1"\neffect = 1\n', "'r1'", "effect"),
        ('[[rule]]\nid = "r1"\neffect = "Deny"\n', "'r1'", "effect"),
        (R + 'scopes = "x"\n', "'r1'", "scopes"),
        (R + 'capability = "MemoryDelete"\n', "'r1'", "capability"),
        (R + 'capability = "memorywrite"\n', "'r1'", "capability"),
        (R + 'channel = "socket"\n', "'r1'", "channel"),
        (R + 'role = "admin"\n', "'r1'", "role"),
        (R + 'target = "users"\n', "'r1'", "target"),
        (R + 'action = "delete"\n', "'r1'", "action"),
        (R + 'action = "batch"\n', "'r1'", "action"),
        (R + 'type = "note"\n', "'r1'", "type"),
        (R + "scope = []\n", "'r1'", "scope"),
        (R + 'scope = ""\n', "'r1'", "scope"),
        (R + 'scope = "project:[acme"\n', "'r1'", "scope"),
        (R + 'scope = "[!"\n', "'r1'", "scope"),
        (R + 'scope = "a\\u0001b"\n', "'r1'", "scope"),
        (R + 'scope = ["ok", 3]\n', "'r1'", "scope"),
        (R + "scope = 3\n", "'r1'", "scope"),
        (R + "scope = { glob = 'x' }\n", "'r1'", "scope"),
        (R + 'role = ["main", ["subagent"]]\n', "'r1'", "role"),
        (R + "description = 5\n", "'r1'", "description"),
        (R + R, "'r1'", "id"),
        ("rule = [1]\n", "#1", None),
    ],
)
def test_invalid_rule_is_refused_naming_rule_and_field(
    text: str, rule: str, field: str | None
) -> None:
    with pytest.raises(PolicyError) as caught:
        load_policy(text)
    assert caught.value.rule == rule
    assert caught.value.field == field
    assert f"rule {rule}" in str(caught.value)
    if field is not None:
        assert repr(field) in str(caught.value)


@pytest.mark.parametrize(
    ("text", "field"),
    [
        ("[rule]\nid = 'r1'\neffect = 'deny'\n", "rule"),
        ("rule = 'x'\n", "rule"),
        ("version = 1\n" + R, "version"),
        ("[defaults]\nx = 1\n", "defaults"),
    ],
)
def test_invalid_document_shape_is_refused_naming_the_key(text: str, field: str) -> None:
    with pytest.raises(PolicyError) as caught:
        load_policy(text)
    assert caught.value.rule is None
    assert caught.value.field == field
    assert repr(field) in str(caught.value)


@pytest.mark.parametrize(
    "text",
    [
        "[[rule]\n",
        "id = = 1\n",
        'x = "unterminated\n',
        # Well-formed, but deeper than tomllib's recursion can follow.
        "x = " + "[" * 3_000 + "]" * 3_000 + "\n",
        "x = " + "{y = " * 2_000 + "1" + "}" * 2_000 + "\n",
    ],
)
def test_invalid_toml_is_refused(text: str) -> None:
    with pytest.raises(PolicyError, match="not valid TOML"):
        load_policy(text)


def test_too_many_rules_is_refused() -> None:
    text = "".join(f'[[rule]]\nid = "r{i}"\neffect = "deny"\n' for i in range(MAX_RULES + 1))
    with pytest.raises(PolicyError, match=f"more than {MAX_RULES}"):
        load_policy(text)


def test_max_rules_is_accepted() -> None:
    text = "".join(f'[[rule]]\nid = "r{i}"\neffect = "deny"\n' for i in range(MAX_RULES))
    assert len(load_policy(text).rules) == MAX_RULES


def test_build_refuses_duplicate_ids() -> None:
    rule = Rule(id="same", effect=Effect.DENY)
    with pytest.raises(PolicyError, match="duplicate") as caught:
        Policy.build([rule, Rule(id="same", effect=Effect.ALLOW)])
    assert caught.value.field == "id"
    assert caught.value.rule == "'same'"


def test_load_policy_refuses_bytes() -> None:
    with pytest.raises(PolicyError, match="must be a str"):
        load_policy(b"")  # type: ignore[arg-type]


# Matching

AGENT = Subject("agent", "main", "own_1", "tsk_1")  # type: ignore[arg-type]
CONTROL = Subject("control", "operator", "own_1", None)  # type: ignore[arg-type]


def resource(scope: str = "default", action: str = "add", **kw: object) -> Resource:
    return Resource("memory", scope, action, None, None, None, **kw)  # type: ignore[arg-type]


def only_rule(extra: str) -> Rule:
    return load_policy(f'[[rule]]\nid = "r"\neffect = "deny"\n{extra}').rules[0]


@pytest.mark.parametrize(
    ("extra", "subject", "res", "expected"),
    [
        ("", AGENT, resource(), True),
        ('scope = "project:*"', AGENT, resource("project:acme"), True),
        ('scope = "project:*"', AGENT, resource("Project:acme"), False),  # case-sensitive
        ('scope = "project:*"', AGENT, resource("project"), False),
        ('scope = "p?"', AGENT, resource("p1"), True),
        ('scope = "[ab]*"', AGENT, resource("b-side"), True),
        ('scope = "[!ab]*"', AGENT, resource("b-side"), False),
        ('scope = ["x", "default"]', AGENT, resource(), True),
        ('channel = "control"', AGENT, resource(), False),
        ('channel = ["agent", "control"]', CONTROL, resource(), True),
        ('role = "operator"', CONTROL, resource(), True),
        ('role = "subagent"', AGENT, resource(), False),
        ('target = "user"', AGENT, resource(), False),
        ('action = ["replace", "add"]', AGENT, resource(), True),
        ('action = "remove"', AGENT, resource(), False),
        ('type = "fact"', AGENT, resource(type="fact"), True),
        ('type = "fact"', AGENT, resource(type="lesson"), False),
        ('type = "fact"', AGENT, resource(), False),  # no type on the resource
        ('capability = "MemoryRead"', AGENT, resource(), False),
        ('scope = "default"\nchannel = "agent"\naction = "add"', AGENT, resource(), True),
        ('scope = "default"\nchannel = "agent"\naction = "remove"', AGENT, resource(), False),
    ],
)
def test_rule_matches_when_every_set_field_matches(
    extra: str, subject: Subject, res: Resource, expected: bool
) -> None:
    assert only_rule(extra).matches(subject, Capability.MEMORY_WRITE, res) is expected
