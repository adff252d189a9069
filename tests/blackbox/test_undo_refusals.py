"""An undo that cannot be done is refused without echoing what the caller sent.

On a real daemon over its sockets.
"""

from __future__ import annotations

import json
import os
from typing import Any

import pytest

from memoryd.rpc.client import Client, RpcError

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


def test_undo_of_an_unknown_operation_does_not_echo_the_id(c: Client) -> None:
    # An id of the right shape that names nothing is not_found; one of the
    # wrong shape (a space) is refused as invalid params. Neither echoes it.
    err = refused(c.call, "memory.undo", {"operation_id": "op_canaryhunter2"})
    assert (err.code, err.data_code) == (-32003, "not_found")
    assert "canary" not in json.dumps(err.data)
    err = refused(c.call, "memory.undo", {"operation_id": "op_canary hunter2"})
    assert err.code == -32602
    assert "canary" not in json.dumps(err.data)
