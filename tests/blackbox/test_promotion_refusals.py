"""A promotion the policy denies changes nothing and names its real reason.

On a real daemon over its sockets.
"""

from __future__ import annotations

import os
from typing import Any

import pytest

from memoryd.rpc.client import Client, RpcError
from tests.harness import entry

# The peer uid of every connection the tests make maps to this identity.
PEER = {"kind": "local", "subject": "attack-peer"}
CONFIG = f'[identities."{os.getuid()}"]\nkind = "{PEER["kind"]}"\nsubject = "{PEER["subject"]}"\n'
# Agent writes apply at once (no approval), and promotions in secret:* are denied.
POLICY = """
[[rule]]
id = "agent-writes-apply"
capability = ["MemoryWrite"]
channel = ["agent"]
effect = "allow"

[[rule]]
id = "no-promotion-of-secrets"
capability = ["GovernanceDecide"]
scope = "secret:*"
effect = "deny"
"""
# How this module's daemon starts (the ``d`` fixture, tests/blackbox/conftest.py).
DAEMON = {"config": CONFIG, "policy": POLICY}


def refused(fn: Any, *args: Any) -> RpcError:
    with pytest.raises(RpcError) as info:
        fn(*args)
    assert info.value.code != -32603, info.value.data
    return info.value


def add(c: Client, title: str, body: str, **extra: Any) -> dict[str, Any]:
    out = c.call("memory.write", {"action": "add", "target": "memory",
                                  "entry": entry(title, body), **extra})
    assert out["outcome"] == "applied"
    return out["entries"][0]  # type: ignore[no-any-return]


def test_a_promotion_denied_by_policy_says_policy_denied(c: Client) -> None:
    e = add(c, "Imported secret note", "an imported note", scope="secret:x", source="import")
    err = refused(c.call, "memory.promote", {"ids": [e["id"]]})
    # On control.sock a policy rule decided: "use control.sock" would be wrong.
    assert (err.code, err.data_code) == (-32001, "policy_denied")
    assert err.details["rule_ids"] == ["no-promotion-of-secrets"]
    assert err.details["decision_id"].startswith("dec_")
    shown = c.call("memory.read", {"ids": [e["id"]]})["entries"][0]
    assert shown["source"] == "import"
