"""A task that may not read learns nothing of what is stored through what its writes are answered.

On a real daemon over its sockets.
"""

from __future__ import annotations

import os
from typing import Any

from memoryd.rpc.client import Client, RpcError
from tests.harness import Daemon, enable_consent, entry

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


def add(c: Client, title: str, body: str, **extra: Any) -> dict[str, Any]:
    out = c.call("memory.write", {"action": "add", "target": "memory",
                                  "entry": entry(title, body), **extra})
    assert out["outcome"] == "applied"
    return out["entries"][0]  # type: ignore[no-any-return]


def test_a_task_without_read_cannot_probe_titles_through_duplicate_title(
        d: Daemon, c: Client, a: Client) -> None:
    enable_consent(c, PEER, read=False, contribute=True)
    c.call("memory.write", {"identity": PEER, "action": "add", "target": "memory",
                            "entry": entry("Salary review of Bob", "kept from agents")})
    task = a.call("task.begin", {})
    assert "memory.read" not in task["grants"]
    answers = []
    for title in ("Salary review of Bob", "Salary review of Carol"):
        try:
            out = a.call("memory.write", {"task_id": task["task_id"], "action": "add",
                                          "target": "memory", "entry": entry(title, "probe")})
            answers.append(out["outcome"])
        except RpcError as err:
            answers.append(err.data_code)
    assert answers[0] == answers[1]
