"""``policy.explain`` / ``memctl policy explain``: what the kernel would decide.

An operator checks a rule before relying on it: for a subject (channel, role,
the grants of a task) and a resource (target, scope, action, type), the daemon
asks the same ``decide()`` with the policy in force and answers the decision —
effect, whether a rule decided it, which rules, why, the policy hash — without
deciding anything for real: no audit event, no memory read.
"""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest

from memoryd.rpc.client import Client, RpcError
from tests.harness import Daemon

POLICY = """
[[rule]]
id = "hr-hidden-from-agents"
effect = "deny"
capability = "MemoryRead"
channel = "agent"
scope = "project:hr*"

[[rule]]
id = "facts-reviewed"
effect = "requires_approval"
capability = "MemoryWrite"
type = "fact"

[[rule]]
id = "scratch-free"
effect = "allow"
capability = "MemoryWrite"
channel = "agent"
scope = "scratch:*"
"""


# How this module's daemon starts (the ``d`` fixture, tests/blackbox/conftest.py).
DAEMON = {"policy": POLICY}


@pytest.fixture
def c(d: Daemon) -> Iterator[Client]:
    with d.control() as client:
        yield client


def _explain(c: Client, **params: object) -> dict[str, object]:
    return c.call("policy.explain", params)  # type: ignore[no-any-return]


def test_a_read_rule_is_named_for_the_scope_it_covers(c: Client) -> None:
    out = _explain(
        c, capability="MemoryRead", channel="agent", scope="project:hr-payroll", action="read"
    )
    assert out["effect"] == "deny"
    assert out["explicit"] is True
    assert out["rule_ids"] == ["hr-hidden-from-agents"]
    assert out["policy_hash"] == c.call("memory.status", {})["policy"]["hash"]
    assert out["resource"].startswith("memory/project%3Ahr-payroll:read:")


def test_the_same_read_elsewhere_falls_to_the_default(c: Client) -> None:
    out = _explain(c, capability="MemoryRead", channel="agent", scope="project:web", action="list")
    assert (out["effect"], out["explicit"], out["rule_ids"]) == ("allow", False, [])


def test_a_task_without_the_grant_is_refused_whatever_the_rules(c: Client) -> None:
    out = _explain(
        c,
        capability="MemoryRead",
        channel="agent",
        scope="project:web",
        action="read",
        grants=["memory.write"],
    )
    assert out["effect"] == "deny"
    assert out["always_on"] == "agent_read_needs_grant"


def test_the_most_restrictive_of_two_matching_write_rules_wins(c: Client) -> None:
    out = _explain(
        c,
        capability="MemoryWrite",
        channel="agent",
        scope="scratch:today",
        action="add",
        type="fact",
    )
    assert out["effect"] == "requires_approval"
    assert sorted(out["rule_ids"]) == ["facts-reviewed", "scratch-free"]
    lesson = _explain(
        c,
        capability="MemoryWrite",
        channel="agent",
        scope="scratch:today",
        action="add",
        type="lesson",
    )
    assert (lesson["effect"], lesson["rule_ids"]) == ("allow", ["scratch-free"])


def test_a_subagent_never_writes(c: Client) -> None:
    out = _explain(
        c,
        capability="MemoryWrite",
        channel="agent",
        role="subagent",
        scope="scratch:today",
        action="add",
        type="lesson",
    )
    assert (out["effect"], out["always_on"]) == ("deny", "subagent_never_writes")


def test_explaining_decides_nothing_for_real(c: Client) -> None:
    before = c.call("memory.status", {})["audit"]["seq"]
    for _ in range(3):
        _explain(c, capability="MemoryRead", channel="agent", scope="project:hr", action="read")
    assert c.call("memory.status", {})["audit"]["seq"] == before


def test_it_exists_only_for_the_operator(d: Daemon) -> None:
    with d.agent() as a, pytest.raises(RpcError) as err:
        a.call("policy.explain", {"capability": "MemoryRead"})
    assert err.value.code == -32601


@pytest.mark.parametrize(
    "params",
    [
        {"capability": "MemoryDelete"},
        {"capability": "MemoryRead", "action": "approve"},
        {"capability": "MemoryRead", "scope": "has space"},
        {"capability": "MemoryRead", "grants": ["memory.sing"]},
        {"capability": "MemoryWrite", "type": "opinion"},
    ],
)
def test_bad_params_are_named_not_echoed(c: Client, params: dict[str, object]) -> None:
    with pytest.raises(RpcError) as err:
        c.call("policy.explain", params)
    assert err.value.code == -32602
    text = json.dumps(err.value.data)
    for value in ("MemoryDelete", "approve", "has space", "memory.sing", "opinion"):
        assert value not in text


def test_memctl_policy_explain_names_the_rule(d: Daemon) -> None:
    done = d.memctl(
        "policy",
        "explain",
        "MemoryRead",
        "--channel",
        "agent",
        "--scope",
        "project:hr",
        "--action",
        "read",
    )
    assert done.returncode == 0, done.stderr
    out = done.stdout.decode()
    assert "deny" in out
    assert "hr-hidden-from-agents" in out
    as_json = json.loads(
        d.memctl(
            "policy",
            "explain",
            "MemoryRead",
            "--channel",
            "agent",
            "--scope",
            "project:hr",
            "--action",
            "read",
            "--json",
        ).stdout
    )
    assert as_json["rule_ids"] == ["hr-hidden-from-agents"]
