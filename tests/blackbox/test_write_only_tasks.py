"""A task that may not read learns nothing of what is stored through what its writes are answered.

On a real daemon over its sockets.
"""

from __future__ import annotations

from memoryd.rpc.client import Client, RpcError
from tests.blackbox.peer_daemon import DAEMON, PEER, add  # noqa: F401 (DAEMON: the d fixture reads it)
from tests.harness import Daemon, enable_consent, entry


def test_a_task_without_read_cannot_probe_titles_through_duplicate_title(
    d: Daemon, c: Client, a: Client
) -> None:
    enable_consent(c, PEER, read=False, contribute=True)
    c.call(
        "memory.write",
        {
            "identity": PEER,
            "action": "add",
            "target": "memory",
            "entry": entry("Salary review of Bob", "kept from agents"),
        },
    )
    task = a.call("task.begin", {})
    assert "memory.read" not in task["grants"]
    answers = []
    for title in ("Salary review of Bob", "Salary review of Carol"):
        try:
            out = a.call(
                "memory.write",
                {
                    "task_id": task["task_id"],
                    "action": "add",
                    "target": "memory",
                    "entry": entry(title, "probe"),
                },
            )
            answers.append(out["outcome"])
        except RpcError as err:
            answers.append(err.data_code)
    assert answers[0] == answers[1]
