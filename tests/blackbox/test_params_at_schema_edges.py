"""Params at the edges of the schemas are answered, never an internal error.

The longest, the largest and the emptiest each get their answer.

On a real daemon over its sockets.
"""

from __future__ import annotations

from typing import Any

from memoryd.rpc.client import Client, RpcError
from tests.harness import (
    AGENT_WRITES,
    Daemon,
    enable_consent,
    entry,
)

# How this module's daemon starts (the ``d`` fixture, tests/blackbox/conftest.py).
DAEMON = {"policy": AGENT_WRITES}


# Params each method's schema admits, at its edges: none is an internal error,
# and the daemon serves the next call.
_EDGES: list[tuple[str, str, dict[str, Any]]] = [
    ("agent", "memory.write", {"action": "add", "entry": entry("Tiny ttl", ttl_days=5e-324)}),
    ("agent", "memory.write", {"action": "add", "entry": entry("Long ttl", ttl_days=36_500)}),
    (
        "agent",
        "memory.write",
        {
            "action": "add",
            "entry": entry("Far", validity={"check": "x", "until": "9999-12-31T23:59:59-23:59"}),
        },
    ),
    (
        "agent",
        "memory.write",
        {
            "action": "add",
            "entry": entry("Early", validity={"check": "x", "until": "0001-01-01T00:00:00+23:59"}),
        },
    ),
    (
        "agent",
        "memory.write",
        {
            "action": "replace",
            "id": "ent_" + "0" * 26,
            "expected_revision": 2**53,
            "entry": entry(),
        },
    ),
    ("agent", "memory.list", {"query": '"NEAR(a b)" OR col:x * ^a \\ \u0301'}),
    ("agent", "memory.list", {"query": "\U0001f600" * 1000}),
    ("agent", "memory.list", {"query": "\u0000"}),
    ("agent", "memory.context", {"intent": "\U0010ffff" * 5000}),
    ("agent", "task.begin", {"workspace": "/" * 4096}),
    ("agent", "task.begin", {"workspace": "a/" * 2000}),
    (
        "control",
        "audit.verify",
        {
            "checkpoint": {
                "seq": 2**63 - 1,
                "hash": "0" * 64,
                "ts": "x",
                "signature": "zz",
                "public_key": "zz",
            }
        },
    ),
    ("control", "audit.export", {"after_seq": 2**63 - 1, "limit": 100_000}),
    ("control", "memory.journal", {"cursor": "c" + "A" * 1000}),
    ("control", "memory.list", {"cursor": "c" + "A" * 2000}),
    ("control", "consent.set", {"version": 2**63 - 1, "read": True}),
    (
        "control",
        "token.issue",
        {
            "identity": {"kind": "a", "subject": "\u0000", "issuer": "\U0010ffff"},
            "expires_in": 10 * 365 * 86_400,
        },
    ),
    ("control", "admin.backup_verify", {"path": "/proc/self"}),
    ("control", "memory.undo", {"operation_id": "op_" + "0" * 32}),
]


def test_params_at_the_schemas_edges_are_never_an_internal_error(d: Daemon, c: Client) -> None:
    enable_consent(c)
    with d.agent() as a:
        for channel, method, params in _EDGES:
            client = a if channel == "agent" else c
            if channel == "agent" and method not in ("task.begin",):
                params = {
                    "task_id": a.call("task.begin", {"scopes": ["edge:t"]})["task_id"],
                    **params,
                }
            try:
                client.call(method, params)
            except RpcError as exc:
                assert exc.code != -32603, (method, exc.data)
    assert c.call("memory.status", {})["backend"]["health"] == "ok"
    assert "internal_error" not in d.log()
