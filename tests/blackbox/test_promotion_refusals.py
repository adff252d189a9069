"""A promotion the policy denies changes nothing and names its real reason.

On a real daemon over its sockets.
"""

from __future__ import annotations

from typing import Any

from memoryd.rpc.client import Client
from tests.blackbox import peer_daemon
from tests.blackbox.peer_daemon import add, refused
from tests.harness import entry

# Procedures may not be promoted either.
POLICY = (
    peer_daemon.POLICY
    + """
[[rule]]
id = "no-promotion-of-procedures"
capability = ["GovernanceDecide"]
type = "procedure"
effect = "deny"
"""
)
# How this module's daemon starts (the ``d`` fixture, tests/blackbox/conftest.py).
DAEMON = {"config": peer_daemon.CONFIG, "policy": POLICY}


def test_a_promotion_denied_by_policy_says_policy_denied(c: Client) -> None:
    e = add(c, "Imported secret note", "an imported note", scope="secret:x", source="import")
    err = refused(c.call, "memory.promote", {"ids": [e["id"]]})
    # On control.sock a policy rule decided: "use control.sock" would be wrong.
    assert (err.code, err.data_code) == (-32001, "policy_denied")
    assert err.details["rule_ids"] == ["no-promotion-of-secrets"]
    assert err.details["decision_id"].startswith("dec_")
    shown = c.call("memory.read", {"ids": [e["id"]]})["entries"][0]
    assert shown["source"] == "import"


def _imported(c: Client, title: str, body: str, type_: str) -> dict[str, Any]:
    out = c.call(
        "memory.write",
        {"action": "add", "scope": "ops", "source": "import", "entry": entry(title, body, type_)},
    )
    return out["entries"][0]  # type: ignore[no-any-return]


def test_a_promotion_is_decided_on_the_type_of_the_entry_it_vouches_for(c: Client) -> None:
    e = _imported(c, "Imported runbook", "restart the worker, then the queue", "procedure")
    err = refused(c.call, "memory.promote", {"ids": [e["id"]]})
    assert (err.code, err.data_code) == (-32001, "policy_denied")
    assert err.details["rule_ids"] == ["no-promotion-of-procedures"]
    assert c.call("memory.read", {"ids": [e["id"]]})["entries"][0]["source"] == "import"
    # Another type in the same scope is vouched for as before.
    other = _imported(c, "Imported fact", "the queue lives on host b", "fact")
    assert c.call("memory.promote", {"ids": [other["id"]]})["promoted"][0]["id"] == other["id"]
