"""Isolation between owners, over the real sockets, with three identities.

Two of them share the subject ``bob`` under different credential kinds
(``token`` and ``device``): they are two owners and must never see each
other's data, nor ``alice``'s.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from typing import Any

import pytest

from memoryd.rpc.client import Client, RpcError
from tests.harness import Daemon, enable_consent, entry, running

ALICE = {"kind": "local", "subject": "alice"}
BOB_TOKEN = {"kind": "token", "subject": "bob"}
BOB_DEVICE = {"kind": "device", "subject": "bob"}
IDENTITIES = {"alice": ALICE, "bob_token": BOB_TOKEN, "bob_device": BOB_DEVICE}


class World:
    def __init__(self, daemon: Daemon) -> None:
        self.d = daemon
        self.tokens: dict[str, str] = {}
        self.entries: dict[str, dict[str, str]] = {}
        self.receipts: dict[str, str] = {}


@pytest.fixture(scope="module")
def w() -> Iterator[World]:
    with running() as daemon:
        yield populate(daemon)


def populate(daemon: Daemon) -> World:
    """Three owners' notes (and a removed one each) on ``daemon``; tests/blackbox/
    test_hybrid.py runs this module's tests again over a hybrid daemon."""
    world = World(daemon)
    with daemon.control() as c:
        for name, who in IDENTITIES.items():
            enable_consent(c, identity=who)
            world.tokens[name] = c.call("token.issue", {"identity": who})["token"]
            ids = {}
            for target in ("memory", "user"):
                out = c.call(
                    "memory.write",
                    {
                        "identity": who,
                        "target": target,
                        "action": "add",
                        "entry": entry(
                            f"Heron {name} {target}", f"heron secret of {name} in {target}", "fact"
                        ),
                    },
                )
                ids[target] = out["entries"][0]["id"]
            gone = c.call(
                "memory.write",
                {
                    "identity": who,
                    "action": "add",
                    "entry": entry(f"Heron {name} gone", "to be removed", "fact"),
                },
            )
            rem = c.call(
                "memory.write",
                {
                    "identity": who,
                    "action": "remove",
                    "id": gone["entries"][0]["id"],
                    "expected_revision": 1,
                },
            )
            world.receipts[name] = rem["receipt"]["receipt_id"]
            world.entries[name] = ids
    return world


def _task(a: Client, w: World, name: str, **extra: Any) -> str:
    return a.call("task.begin", {"token": w.tokens[name], **extra})["task_id"]  # type: ignore[no-any-return]


def _others(name: str) -> list[str]:
    return [n for n in IDENTITIES if n != name]


@pytest.mark.parametrize("name", list(IDENTITIES))
def test_context_sees_only_its_owner(w: World, name: str) -> None:
    with w.d.agent() as a:
        snap = a.call("memory.context", {"task_id": _task(a, w, name), "intent": "heron secret"})
        ids = {card["id"] for card in snap["entries"]}
        assert ids == set(w.entries[name].values())


@pytest.mark.parametrize("name", list(IDENTITIES))
def test_search_and_list_see_only_their_owner(w: World, name: str) -> None:
    with w.d.agent() as a:
        task = _task(a, w, name)
        found = a.call("memory.list", {"task_id": task, "query": "heron"})["items"]
        listed = a.call(
            "memory.list",
            {
                "task_id": task,
                "statuses": ["active", "archived", "superseded", "expired", "removed"],
            },
        )["items"]
        for items in (found, listed):
            assert {i["id"] for i in items} <= set(w.entries[name].values()) | {
                i["id"] for i in listed if i["status"] == "removed"
            }
            assert all(name in i["title"] for i in items if i["title"])


@pytest.mark.parametrize("name", list(IDENTITIES))
def test_read_by_id_of_another_owner_is_not_found(w: World, name: str) -> None:
    with w.d.agent() as a:
        task = _task(a, w, name)
        for other in _others(name):
            for entry_id in w.entries[other].values():
                with pytest.raises(RpcError) as err:
                    a.call("memory.read", {"task_id": task, "ids": [entry_id]})
                assert err.value.data_code == "not_found"


@pytest.mark.parametrize("name", list(IDENTITIES))
def test_receipt_of_another_owner_is_not_found(w: World, name: str) -> None:
    with w.d.agent() as a:
        task = _task(a, w, name)
        assert a.call("memory.receipt", {"task_id": task, "receipt_id": w.receipts[name]})["status"]
        for other in _others(name):
            with pytest.raises(RpcError) as err:
                a.call("memory.receipt", {"task_id": task, "receipt_id": w.receipts[other]})
            assert err.value.data_code == "not_found"


def test_another_owners_task_id_is_task_not_found(w: World) -> None:
    with w.d.agent() as a:
        bob_task = _task(a, w, "bob_token")
        # Same uid, same socket: the task id alone must not lend bob's memory
        # to a call that began as another owner's; a parent_task is refused.
        with pytest.raises(RpcError) as err:
            a.call("task.begin", {"token": w.tokens["alice"], "parent_task": bob_task})
        assert err.value.data_code == "task_not_found"


def test_same_subject_under_two_kinds_is_two_owners(w: World) -> None:
    with w.d.agent() as a:
        t1 = a.call("task.begin", {"token": w.tokens["bob_token"]})
        t2 = a.call("task.begin", {"token": w.tokens["bob_device"]})
        assert t1["owner"] != t2["owner"]


def test_new_identity_starts_with_consent_off(w: World) -> None:
    with w.d.control() as c:
        fresh = c.call("consent.get", {"identity": {"kind": "token", "subject": "carol"}})
        assert (fresh["read"], fresh["contribute"], fresh["learn_from_tools"]) == (
            False,
            False,
            False,
        )
        token = c.call("token.issue", {"identity": {"kind": "token", "subject": "carol"}})
    with w.d.agent() as a:
        task = a.call("task.begin", {"token": token["token"]})
        assert task["grants"] == []


def test_subagent_reads_parent_owner_memory_and_cannot_write(w: World) -> None:
    with w.d.agent() as a:
        parent = _task(a, w, "alice")
        child = a.call(
            "task.begin", {"token": w.tokens["alice"], "parent_task": parent, "role": "subagent"}
        )
        assert "memory.write" not in child["grants"]
        got = a.call(
            "memory.read", {"task_id": child["task_id"], "ids": [w.entries["alice"]["memory"]]}
        )
        assert got["entries"][0]["id"] == w.entries["alice"]["memory"]
        with pytest.raises(RpcError) as err:
            a.call(
                "memory.write",
                {
                    "task_id": child["task_id"],
                    "action": "add",
                    "entry": entry("Sub", "subagent write", "fact"),
                },
            )
        assert err.value.data_code == "read_only_task"


def test_subagent_of_parent_without_read_gets_no_memory_methods(w: World) -> None:
    dave = {"kind": "token", "subject": "dave"}
    with w.d.control() as c:
        token = c.call("token.issue", {"identity": dave})["token"]
    with w.d.agent() as a:
        parent = a.call("task.begin", {"token": token})["task_id"]
        child = a.call("task.begin", {"token": token, "parent_task": parent, "role": "subagent"})
        assert child["grants"] == []
        with pytest.raises(RpcError) as err:
            a.call("memory.context", {"task_id": child["task_id"], "intent": "heron"})
        assert err.value.data_code == "consent_required"


def test_workspace_maps_to_a_keyed_scope_and_no_path_is_stored(w: World) -> None:
    workspace = os.path.realpath(str(w.d.home.parent))
    marker = workspace + "/project-canary-77"
    os.makedirs(marker, exist_ok=True)
    with w.d.agent() as a, w.d.control() as c:
        task = a.call("task.begin", {"token": w.tokens["alice"], "workspace": marker})
        assert task["scopes"][0].startswith("ws_")
        assert len(task["scopes"][0]) == 3 + 32
        c.call(
            "memory.write",
            {
                "identity": ALICE,
                "scope": task["scopes"][0],
                "action": "add",
                "entry": entry("Workspace note", "in the workspace", "fact"),
            },
        )
        a.call("memory.context", {"task_id": task["task_id"], "intent": "workspace note"})
    blob = b""
    for path in w.d.home.glob("memory.db*"):
        blob += path.read_bytes()
    assert b"project-canary-77" not in blob
