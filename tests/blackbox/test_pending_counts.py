"""The operator's count of pending actions adds up: on control.sock
``memory.status`` counts every owner's pending actions beside the acting
identity's, per owner when asked; an agent never sees other owners' counts."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from tests.harness import Daemon, enable_consent, entry, fresh_identity, running


@pytest.fixture(scope="module")
def d() -> Iterator[Daemon]:
    with running() as daemon:
        yield daemon


def _propose_as(d: Daemon, identity: dict[str, str], n: int) -> str:
    with d.control() as c:
        enable_consent(c, identity=identity)
        token = c.call("token.issue", {"identity": identity})["token"]
    with d.agent() as a:
        task = a.call("task.begin", {"token": token})["task_id"]
        for i in range(n):
            out = a.call(
                "memory.write",
                {
                    "task_id": task,
                    "action": "add",
                    "entry": entry(title=f"Note {i}", body=f"Body number {i}."),
                },
            )
            assert out["outcome"] == "pending"
    return str(task)


@pytest.fixture(scope="module")
def waiting(d: Daemon) -> dict[str, Any]:
    bob, carol = fresh_identity("bob-"), fresh_identity("carol-")
    _propose_as(d, bob, 3)
    task = _propose_as(d, carol, 2)
    with d.control() as c:
        owners = {
            who["subject"]: c.call("consent.get", {"identity": who})["owner"]
            for who in (bob, carol)
        }
    return {"bob": bob, "carol": carol, "owners": owners, "carol_task": task}


def test_control_status_counts_every_owners_pending_actions(
    d: Daemon, waiting: dict[str, Any]
) -> None:
    with d.control() as c:
        status = c.call("memory.status", {})
    assert status["pending_actions"] == 0  # the default identity proposed nothing
    assert status["pending_all_owners"] == 5


def test_per_owner_counts_on_request(d: Daemon, waiting: dict[str, Any]) -> None:
    with d.control() as c:
        plain = c.call("memory.status", {})
        status = c.call("memory.status", {"pending_by_owner": True})
    assert "pending_by_owner" not in plain
    owners = waiting["owners"]
    assert status["pending_by_owner"] == {
        owners[waiting["bob"]["subject"]]: 3,
        owners[waiting["carol"]["subject"]]: 2,
    }


def test_an_agent_never_sees_other_owners_counts(d: Daemon, waiting: dict[str, Any]) -> None:
    with d.agent() as a:
        status = a.call("memory.status", {})
        assert "pending_all_owners" not in status
        with pytest.raises(Exception) as info:
            a.call("memory.status", {"pending_by_owner": True})
    assert getattr(info.value, "data_code", None) == "channel_forbidden"


def test_memctl_status_says_how_many_wait_in_all(d: Daemon, waiting: dict[str, Any]) -> None:
    done = d.memctl("status", process=True)
    assert done.returncode == 0, done.stderr
    assert b"pending actions:   0 for this identity, 5 in all (memctl pending)" in done.stdout
    by_owner = d.memctl("status", "--by-owner", process=True)
    assert by_owner.returncode == 0, by_owner.stderr
    assert by_owner.stdout.count(b"  own_") >= 2
