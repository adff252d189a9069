"""``memctl pending`` shows every action that waits, past the daemon's page of
50, or as many as ``--limit N`` says; ``--all`` follows every page of any
status. Real ``memctl`` processes on a real daemon."""

from __future__ import annotations

import json
from typing import Any

import pytest

from tests.harness import Daemon, enable_consent, entry, fresh_identity

WAITING = 55  # more than one page of governance.action.list (50)


@pytest.fixture(scope="module")
def waiting(d: Daemon) -> list[str]:
    """``WAITING`` proposals from one agent task, their action ids."""
    ident = fresh_identity("pl-")
    with d.control() as c, d.agent() as a:
        enable_consent(c, ident)
        token = c.call("token.issue", {"identity": ident})["token"]
        task = a.call("task.begin", {"token": token})
        ids = []
        for i in range(WAITING):
            out = a.call(
                "memory.write",
                {
                    "task_id": task["task_id"],
                    "action": "add",
                    "entry": entry(f"Waiting {i}", f"Proposal {i}."),
                },
            )
            assert out["outcome"] == "pending"
            ids.append(str(out["action_id"]))
    return ids


def _run(d: Daemon, *args: str) -> Any:
    done = d.memctl("pending", *args, process=True)
    return done


def test_pending_shows_every_waiting_action(d: Daemon, waiting: list[str]) -> None:
    done = _run(d)
    assert done.returncode == 0, done.stderr
    out = done.stdout.decode()
    assert all(action_id in out for action_id in waiting)
    assert "more:" not in out


def test_pending_limit_shows_that_many_and_says_more_wait(d: Daemon, waiting: list[str]) -> None:
    done = _run(d, "--limit", "10", "--json")
    assert done.returncode == 0, done.stderr
    shown = json.loads(done.stdout)
    assert len(shown["items"]) == 10
    assert {i["action_id"] for i in shown["items"]} <= set(waiting)
    human = _run(d, "--limit", "10").stdout.decode()
    assert sum(action_id in human for action_id in waiting) == 10
    assert "memctl pending --all" in human


def test_pending_all_follows_every_page(d: Daemon, waiting: list[str]) -> None:
    done = _run(d, "--all", "--json")
    assert done.returncode == 0, done.stderr
    shown = json.loads(done.stdout)
    assert [i["action_id"] for i in shown["items"]] == sorted(waiting)
    assert shown.get("next_cursor") is None


def test_pending_limit_must_be_positive(d: Daemon, waiting: list[str]) -> None:
    done = _run(d, "--limit", "0")
    assert done.returncode == 2
    assert b"--limit" in done.stderr
