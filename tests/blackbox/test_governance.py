"""Policy, channel separation and per-owner caps over the real sockets (SPEC §4, §7).

One daemon serves the module, started with a policy that lets agents write
``project:*`` scopes directly and denies ``vault:*``, and with small caps on
open tasks and pending actions. Every test acts for its own fresh identity; the
reload tests put the original policy back before they finish.
"""

from __future__ import annotations

import signal
import time
from typing import Any

import pytest

from memoryd.rpc.client import Client, RpcError
from tests.harness import Daemon, enable_consent, entry, expect, fresh_identity

POLICY = """\
[[rule]]
id = "agent-projects-free"
effect = "allow"
capability = "MemoryWrite"
channel = "agent"
scope = "project:*"

[[rule]]
id = "no-vault"
effect = "deny"
capability = "MemoryWrite"
scope = "vault:*"
"""

# A rule with an unknown effect: the whole file must be refused.
BAD_POLICY = """\
[[rule]]
id = "broken"
effect = "maybe"
capability = "MemoryWrite"
"""

# Valid TOML nested deeper than the parser's stack allows.
DEEP_POLICY = "x = " + "[" * 3_000 + "]" * 3_000 + "\n"

CONFIG = "max_pending_actions = 3\nmax_open_tasks = 2\n"

CONTROL_ONLY = [
    "governance.action.list",
    "governance.action.get",
    "governance.action.approve",
    "governance.action.deny",
    "consent.get",
    "consent.set",
    "token.issue",
    "token.list",
    "token.revoke",
    "audit.verify",
    "audit.export",
    "policy.reload",
]


# How this module's daemon starts (the ``d`` fixture, tests/blackbox/conftest.py).
DAEMON = {"config": CONFIG, "policy": POLICY}


def new_identity() -> dict[str, str]:
    return fresh_identity("gv-")


def agent_token(c: Client) -> str:
    ident = new_identity()
    enable_consent(c, ident)
    return c.call("token.issue", {"identity": ident})["token"]  # type: ignore[no-any-return]


def events(c: Client, after_seq: int = 0) -> list[dict[str, Any]]:
    return c.call("audit.export", {"after_seq": after_seq})["events"]  # type: ignore[no-any-return]


def head_seq(c: Client) -> int:
    return c.call("memory.status", {})["audit"]["seq"]  # type: ignore[no-any-return]


# --- channels ----------------------------------------------------------------------


@pytest.mark.parametrize("method", CONTROL_ONLY)
def test_control_only_method_does_not_exist_on_agent_sock(a: Client, method: str) -> None:
    with pytest.raises(RpcError) as info:
        a.call(method, {})
    assert info.value.code == -32601


# --- policy ------------------------------------------------------------------------


def test_allow_rule_applies_agent_writes_directly(c: Client, a: Client) -> None:
    task = a.call("task.begin", {"token": agent_token(c), "scopes": ["project:acme"]})
    out = a.call("memory.write", {"task_id": task["task_id"], "action": "add", "entry": entry()})
    assert out["outcome"] == "applied"
    assert out["decision"]["rule_ids"] == ["agent-projects-free"]
    assert out["entries"][0]["scope"] == "project:acme"


def test_agent_write_outside_allowed_scopes_still_needs_approval(c: Client, a: Client) -> None:
    task = a.call("task.begin", {"token": agent_token(c)})
    out = a.call("memory.write", {"task_id": task["task_id"], "action": "add", "entry": entry()})
    assert out["outcome"] == "pending"


def test_deny_rule_is_policy_denied_naming_the_rule_and_audited(c: Client, a: Client) -> None:
    task = a.call("task.begin", {"token": agent_token(c), "scopes": ["vault:keys"]})
    before = head_seq(c)
    err = expect(
        -32001,
        "policy_denied",
        a.call,
        "memory.write",
        {"task_id": task["task_id"], "action": "add", "entry": entry()},
    )
    assert err.details["rule_ids"] == ["no-vault"]
    denied = [e for e in events(c, before) if e["kind"] == "decision"]
    assert [(e["effect"], e["rule_ids"]) for e in denied] == [("deny", ["no-vault"])]
    # The operator is denied too: the rule does not name a channel.
    expect(
        -32001,
        "policy_denied",
        c.call,
        "memory.write",
        {"action": "add", "scope": "vault:keys", "entry": entry()},
    )


def _wait_for_event(c: Client, kind: str, after_seq: int) -> dict[str, Any]:
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:
        found = [e for e in events(c, after_seq) if e["kind"] == kind]
        if found:
            return found[0]
        time.sleep(0.05)
    raise AssertionError(f"no {kind} event")


def test_invalid_policy_reload_is_refused_and_audited(d: Daemon, c: Client) -> None:
    old_hash = c.call("memory.status", {})["policy"]["hash"]
    before = head_seq(c)
    try:
        (d.home / "policy.toml").write_text(BAD_POLICY)
        out = c.call("policy.reload", {})
        assert out["loaded"] is False and "broken" in out["error"]
        assert c.call("memory.status", {})["policy"]["hash"] == old_hash
        assert _wait_for_event(c, "policy_rejected", before)
    finally:
        (d.home / "policy.toml").write_text(POLICY)
    again = c.call("policy.reload", {})
    assert again["loaded"] is True and again["hash"] == old_hash
    assert _wait_for_event(c, "policy_loaded", before)


def test_invalid_policy_on_sighup_is_refused_and_audited(d: Daemon, c: Client) -> None:
    old_hash = c.call("memory.status", {})["policy"]["hash"]
    before = head_seq(c)
    try:
        (d.home / "policy.toml").write_text(BAD_POLICY)
        d.signal(signal.SIGHUP)
        _wait_for_event(c, "policy_rejected", before)
        assert c.call("memory.status", {})["policy"]["hash"] == old_hash
    finally:
        (d.home / "policy.toml").write_text(POLICY)
    mid = head_seq(c)
    d.signal(signal.SIGHUP)
    loaded = _wait_for_event(c, "policy_loaded", mid)
    assert loaded["details"]["policy_hash"] == old_hash


def test_a_policy_nested_too_deep_is_refused_and_the_daemon_keeps_serving(
    d: Daemon, c: Client
) -> None:
    old_hash = c.call("memory.status", {})["policy"]["hash"]
    before = head_seq(c)
    try:
        (d.home / "policy.toml").write_text(DEEP_POLICY)
        out = c.call("policy.reload", {})
        assert out["loaded"] is False and "TOML" in out["error"]
        mid = head_seq(c)
        d.signal(signal.SIGHUP)
        _wait_for_event(c, "policy_rejected", mid)
        assert d.proc is not None and d.proc.poll() is None
        assert c.call("memory.status", {})["policy"]["hash"] == old_hash
        assert _wait_for_event(c, "policy_rejected", before)
    finally:
        (d.home / "policy.toml").write_text(POLICY)
        c.call("policy.reload", {})


def test_the_old_policy_still_decides_after_a_refused_reload(
    d: Daemon, c: Client, a: Client
) -> None:
    try:
        (d.home / "policy.toml").write_text(BAD_POLICY)
        assert c.call("policy.reload", {})["loaded"] is False
        task = a.call("task.begin", {"token": agent_token(c), "scopes": ["project:x"]})
        out = a.call(
            "memory.write", {"task_id": task["task_id"], "action": "add", "entry": entry()}
        )
        assert out["outcome"] == "applied"
    finally:
        (d.home / "policy.toml").write_text(POLICY)
        c.call("policy.reload", {})


# --- caps --------------------------------------------------------------------------


def test_pending_actions_over_the_cap_are_rate_limited(c: Client, a: Client) -> None:
    task = a.call("task.begin", {"token": agent_token(c)})["task_id"]
    for n in range(3):
        out = a.call(
            "memory.write",
            {"task_id": task, "action": "add", "entry": entry(f"Note {n}", f"Body {n}.")},
        )
        assert out["outcome"] == "pending"
    err = expect(
        -32005,
        "rate_limited",
        a.call,
        "memory.write",
        {"task_id": task, "action": "add", "entry": entry("Note 3", "Body 3.")},
    )
    assert err.details == {"cap": "max_pending_actions", "limit": 3, "pending_actions": 3}
    assert "raise max_pending_actions (now 3) in memoryd.toml" in (err.recovery or "")


def test_open_tasks_over_the_cap_are_rate_limited(c: Client, a: Client) -> None:
    token = agent_token(c)
    first = a.call("task.begin", {"token": token})
    a.call("task.begin", {"token": token})
    err = expect(-32005, "rate_limited", a.call, "task.begin", {"token": token})
    assert err.details == {"cap": "max_open_tasks", "limit": 2, "open_tasks": 2}
    assert "raise max_open_tasks (now 2) in memoryd.toml" in (err.recovery or "")
    a.call("task.end", {"task_id": first["task_id"]})
    assert a.call("task.begin", {"token": token})["task_id"]
