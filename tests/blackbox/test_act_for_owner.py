"""On control.sock the operator may act for an owner by its ``own_…`` id
(identity kind ``owner``), since identity subjects are kept only as keyed
hashes and cannot be shown back; an id that is not an owner id is refused
(-32602) and the agent channel takes no identity at all."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.harness import Daemon, enable_consent, expect, running

LEE = {"kind": "local", "subject": "lee"}


@pytest.fixture(scope="module")
def d() -> Iterator[Daemon]:
    with running() as daemon:
        with daemon.control() as c:
            enable_consent(c, identity=LEE)
            c.call(
                "memory.write",
                {
                    "identity": LEE,
                    "action": "add",
                    "entry": {
                        "type": "fact",
                        "title": "Lee's standup",
                        "body": "Standup is at nine.",
                    },
                },
            )
        yield daemon


def _owner(d: Daemon) -> str:
    with d.control() as c:
        owner: str = c.call("token.issue", {"identity": LEE, "label": "lee-desk"})["owner"]
    return owner


def test_acting_for_an_owner_id_sees_that_owners_memory(d: Daemon) -> None:
    owner = _owner(d)
    with d.control() as c:
        titles = [
            i["title"]
            for i in c.call("memory.list", {"identity": {"kind": "owner", "subject": owner}})[
                "items"
            ]
        ]
        assert titles == ["Lee's standup"]
        assert c.call("memory.list", {})["items"] == []


@pytest.mark.parametrize("subject", ["lee", "own_XYZ", "own_" + "0" * 31])
def test_a_subject_that_is_not_an_owner_id_is_refused(d: Daemon, subject: str) -> None:
    with d.control() as c:
        err = expect(
            -32602,
            "invalid_params",
            c.call,
            "memory.list",
            {"identity": {"kind": "owner", "subject": subject}},
        )
        assert err.errors == [{"path": "$.identity.subject", "problem": "not_an_owner_id"}]


def test_the_agent_channel_cannot_act_for_an_owner_id(d: Daemon) -> None:
    owner = _owner(d)
    with d.agent() as a:
        task = a.call("task.begin", {})["task_id"]
        expect(
            -32001,
            "channel_forbidden",
            a.call,
            "memory.list",
            {"task_id": task, "identity": {"kind": "owner", "subject": owner}},
        )


def test_memctl_acts_for_an_owner_id(d: Daemon) -> None:
    owner = _owner(d)
    done = d.memctl("ls", "--identity-kind", "owner", "--identity-subject", owner, process=True)
    assert done.returncode == 0, done.stderr
    assert b"Lee's standup" in done.stdout


def test_status_names_every_owner_that_holds_entries_on_control_only(d: Daemon) -> None:
    owner = _owner(d)
    with d.control() as c:
        by_owner = c.call("memory.status", {"pending_by_owner": True})["entries_by_owner"]
        assert by_owner[owner] == 1
        assert "entries_by_owner" not in c.call("memory.status", {})


def test_memctl_status_by_owner_lists_owners_with_entries_by_label(d: Daemon) -> None:
    owner = _owner(d)
    done = d.memctl("status", "--by-owner", process=True)
    assert done.returncode == 0, done.stderr
    holding = done.stdout.decode().split("entries by owner:")[1]
    assert f"{owner[:12]}… (tokens: lee-desk" in holding
