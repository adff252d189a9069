"""memory.status on agent.sock speaks for the caller only.

Without a task it speaks for the peer's identity, and nothing another owner
does moves it.

On a real daemon over its sockets.
"""

from __future__ import annotations

from memoryd.rpc.client import Client
from tests.blackbox.peer_daemon import DAEMON, PEER, add  # noqa: F401 (DAEMON: the d fixture reads it)
from tests.harness import Daemon, entry, fresh_identity


def test_agent_status_without_a_task_speaks_for_the_peers_identity(
    d: Daemon, c: Client, a: Client
) -> None:
    # The daemon's default owner has memories; the peer uid maps to another.
    add(c, "Operator only", "a note of the default owner")
    default = c.call("memory.status", {})
    peer = c.call("memory.status", {"identity": PEER})
    assert default["identity"]["owner"] != peer["identity"]["owner"]
    assert default["counts"]["active"] >= 1
    out = a.call("memory.status", {})
    assert out["identity"]["owner"] == peer["identity"]["owner"]
    assert out["counts"] == peer["counts"]
    assert out["consent"] == peer["consent"]


def test_agent_status_does_not_move_when_another_owner_writes(
    d: Daemon, c: Client, a: Client
) -> None:
    task = a.call("task.begin", {})
    before = a.call("memory.status", {"task_id": task["task_id"]})
    other = fresh_identity("other-")
    c.call(
        "memory.write",
        {
            "identity": other,
            "action": "add",
            "target": "memory",
            "entry": entry("Other owner", "someone else's note"),
        },
    )
    after = a.call("memory.status", {"task_id": task["task_id"]})
    assert before == after
