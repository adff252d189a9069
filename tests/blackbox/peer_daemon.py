"""The daemon several black-box modules start: one peer identity, agent writes applied.

Every connection the tests make comes from the test's own uid, which this
configuration maps to one identity (``PEER``); agent writes apply at once,
without approval, and promotions in ``secret:*`` are denied. A module takes
it with ``DAEMON`` (the ``d`` fixture, tests/blackbox/conftest.py), or builds
its own policy on ``POLICY``.
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

DAEMON = {"config": CONFIG, "policy": POLICY}


def add(c: Client, title: str, body: str, **extra: Any) -> dict[str, Any]:
    """An entry written and applied at once; its stored form."""
    out = c.call(
        "memory.write", {"action": "add", "target": "memory", "entry": entry(title, body), **extra}
    )
    assert out["outcome"] == "applied"
    return out["entries"][0]  # type: ignore[no-any-return]


def refused(fn: Any, *args: Any) -> RpcError:
    """The structured error ``fn(*args)`` answers: never an internal one."""
    with pytest.raises(RpcError) as info:
        fn(*args)
    assert info.value.code != -32603, info.value.data
    return info.value
