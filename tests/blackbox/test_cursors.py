"""A cursor is always an argument memctl can take: none begins with a dash.

On a real daemon over its sockets.
"""

from __future__ import annotations

import os
from typing import Any

from memoryd.rpc.client import Client
from tests.harness import Daemon, entry, fresh_identity

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


def test_no_cursor_begins_with_a_dash_so_memctl_ls_can_take_it(d: Daemon, c: Client) -> None:
    ident = fresh_identity("cur-")
    for n in range(3):
        c.call("memory.write", {"identity": ident, "action": "add", "target": "memory",
                                "entry": entry(f"Cursor note {n}", "a note to page through")})
    # Each answer seals a fresh cursor (random nonce): 200 of them would hold
    # a leading "-" about 96 times in 100 if one in 64 began with one.
    cursors = [c.call("memory.list", {"identity": ident, "page_size": 1})["next_cursor"]
               for _ in range(200)]
    assert all(cur and not cur.startswith("-") for cur in cursors)
    done = d.memctl("ls", "--json", "--identity-kind", ident["kind"],
                    "--identity-subject", ident["subject"], "--cursor", cursors[0])
    assert done.returncode == 0, done.stderr.decode()
