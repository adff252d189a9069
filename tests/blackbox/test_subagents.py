"""A subagent's view is bounded by its root task's live state.

A subagent (a task begun with ``parent_task``) never outlives the chain it
hangs from: it ends when any task above it ends or passes its lifetime, its
own lifetime never reaches past its parent's, and a change of team
membership or consent reaches every task descended from the affected root on
its next call. The root task itself keeps its frozen consent and membership
(docs/teams.md). Over the real sockets, on either backend; the lifetime
rules on the in-process seam with a fake clock (time is moved, not waited
for).
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import pytest

from memoryd.rpc.client import Client
from tests.harness import (
    Daemon,
    backend,
    enable_consent,
    entry,
    expect,
    fresh_identity,
    pg_store_section,
    running,
)
from tests.inproc import CallFailed, FakeClock, composed


@pytest.fixture(scope="module")
def d() -> Iterator[Daemon]:
    with running() as daemon:
        yield daemon


def _member_with_team_note(c: Client, team: str) -> tuple[dict[str, str], str, str]:
    """A fresh identity with consent and a token, the one member of ``team``,
    and the id of a note in the team's scope."""
    who = fresh_identity("sub-")
    enable_consent(c, identity=who)
    token: str = c.call("token.issue", {"identity": who})["token"]
    c.call("team.create", {"name": team})
    c.call("team.add", {"name": team, "identity": who})
    out = c.call(
        "memory.write",
        {
            "identity": who,
            "scope": f"team:{team}",
            "action": "add",
            "entry": entry("Deploy freeze", "No deploys on Fridays.", "fact"),
        },
    )
    return who, token, out["entries"][0]["id"]


def _listed(a: Client, task_id: str) -> set[str]:
    return {item["id"] for item in a.call("memory.list", {"task_id": task_id})["items"]}


def test_a_subagent_ends_with_its_root(c: Client, a: Client) -> None:
    who = fresh_identity("sub-")
    enable_consent(c, identity=who)
    token = c.call("token.issue", {"identity": who})["token"]
    root = a.call("task.begin", {"token": token})["task_id"]
    child = a.call("task.begin", {"token": token, "parent_task": root})["task_id"]
    grandchild = a.call("task.begin", {"token": token, "parent_task": child})["task_id"]
    assert a.call("memory.list", {"task_id": grandchild})["items"] == []
    a.call("task.end", {"task_id": root})
    for tid in (child, grandchild):
        expect(-32003, "task_not_found", a.call, "memory.list", {"task_id": tid})
        expect(
            -32003,
            "task_not_found",
            a.call,
            "memory.context",
            {"task_id": tid, "intent": "deploys"},
        )
    expect(
        -32003, "task_not_found", a.call, "task.begin", {"token": token, "parent_task": grandchild}
    )


def test_a_subagent_ends_when_its_middle_link_ends(c: Client, a: Client) -> None:
    who = fresh_identity("sub-")
    enable_consent(c, identity=who)
    token = c.call("token.issue", {"identity": who})["token"]
    root = a.call("task.begin", {"token": token})["task_id"]
    child = a.call("task.begin", {"token": token, "parent_task": root})["task_id"]
    grandchild = a.call("task.begin", {"token": token, "parent_task": child})["task_id"]
    a.call("task.end", {"task_id": child})
    expect(-32003, "task_not_found", a.call, "memory.list", {"task_id": grandchild})
    assert a.call("memory.list", {"task_id": root})["items"] == []


def test_a_team_removal_reaches_every_subagent_of_a_running_task(c: Client, a: Client) -> None:
    who, token, note = _member_with_team_note(c, "subops")
    root = a.call("task.begin", {"token": token, "scopes": ["team:subops"]})["task_id"]
    child = a.call("task.begin", {"token": token, "parent_task": root})["task_id"]
    grandchild = a.call("task.begin", {"token": token, "parent_task": child})["task_id"]
    for tid in (root, child, grandchild):
        assert note in _listed(a, tid)
    # The child's snapshot is frozen while the owner is a member.
    before = a.call("memory.context", {"task_id": child, "intent": "deploys Fridays"})
    assert note in {e["id"] for e in before["entries"]}
    c.call("team.remove", {"name": "subops", "identity": who})
    # The root keeps its frozen membership (docs/teams.md); what descends
    # from it sees the change on its next call, and so does a new link.
    assert note in _listed(a, root)
    later = a.call("task.begin", {"token": token, "parent_task": grandchild})
    assert "team:subops" not in later["scopes"]
    for tid in (child, grandchild, later["task_id"]):
        assert note not in _listed(a, tid)
        expect(-32003, "not_found", a.call, "memory.read", {"task_id": tid, "ids": [note]})
        cards = a.call("memory.context", {"task_id": tid, "intent": "deploys Fridays"})
        assert note not in {e["id"] for e in cards["entries"]}
        assert "No deploys" not in cards["rendered"]


def test_a_consent_withdrawal_reaches_every_subagent_of_a_running_task(
    c: Client, a: Client
) -> None:
    who = fresh_identity("sub-")
    enable_consent(c, identity=who)
    token = c.call("token.issue", {"identity": who})["token"]
    root = a.call("task.begin", {"token": token})["task_id"]
    child = a.call("task.begin", {"token": token, "parent_task": root})["task_id"]
    grandchild = a.call("task.begin", {"token": token, "parent_task": child})["task_id"]
    assert a.call("memory.list", {"task_id": grandchild})["items"] == []
    enable_consent(c, identity=who, read=False)
    # The root's consent is frozen with it (SPEC); its subagents borrow it
    # only while the owner still gives it.
    assert a.call("memory.list", {"task_id": root})["items"] == []
    for tid in (child, grandchild):
        expect(-32001, "consent_required", a.call, "memory.list", {"task_id": tid})
        expect(
            -32001,
            "consent_required",
            a.call,
            "memory.context",
            {"task_id": tid, "intent": "anything"},
        )
    later = a.call("task.begin", {"token": token, "parent_task": root})
    assert later["consent"]["read"] is False
    expect(-32001, "consent_required", a.call, "memory.list", {"task_id": later["task_id"]})
    # Given again, it reaches them again: never wider than the root's frozen one.
    enable_consent(c, identity=who)
    assert a.call("memory.list", {"task_id": grandchild})["items"] == []


# --- lifetimes, on a fake clock ----------------------------------------------------


def _config(ttl_hours: float) -> str:
    config = f"task_ttl_hours = {ttl_hours}\n"
    if backend() == "postgresql":
        config += pg_store_section()
    return config


async def _consented(daemon: Any) -> None:
    consent = await daemon.call("control", "consent.get", {})
    await daemon.call(
        "control", "consent.set", {"read": True, "contribute": True, "version": consent["version"]}
    )


async def _code(daemon: Any, method: str, params: dict[str, Any]) -> str | None:
    try:
        await daemon.call("agent", method, params)
    except CallFailed as exc:
        return exc.data_code  # type: ignore[no-any-return]
    return None


def test_a_subagent_never_outlives_its_roots_lifetime(tmp_path: Path) -> None:
    clock = FakeClock()

    async def go() -> list[str | None]:
        seen: list[str | None] = []
        with composed(tmp_path / "h", clock=clock, config=_config(1)) as daemon:
            await _consented(daemon)
            root = await daemon.call("agent", "task.begin", {})
            link = root
            # A chain begun link after link, each near its parent's end, as a
            # runner keeping a view alive would.
            for _ in range(3):
                clock.advance(seconds=15 * 60)
                link = await daemon.call("agent", "task.begin", {"parent_task": link["task_id"]})
                assert link["expires_at"] <= root["expires_at"]
            seen.append(await _code(daemon, "memory.list", {"task_id": link["task_id"]}))
            clock.advance(seconds=15 * 60)  # the root's hour is over
            seen.append(await _code(daemon, "memory.list", {"task_id": link["task_id"]}))
            seen.append(await _code(daemon, "task.begin", {"parent_task": link["task_id"]}))
        return seen

    assert anyio.run(go, backend="asyncio") == [None, "task_not_found", "task_not_found"]


def test_a_subagent_begun_late_gets_only_what_is_left_of_its_parents_lifetime(
    tmp_path: Path,
) -> None:
    clock = FakeClock()

    async def go() -> tuple[dict[str, Any], dict[str, Any]]:
        with composed(tmp_path / "h", clock=clock, config=_config(1)) as daemon:
            await _consented(daemon)
            root = await daemon.call("agent", "task.begin", {})
            clock.advance(seconds=59 * 60)
            child = await daemon.call("agent", "task.begin", {"parent_task": root["task_id"]})
            return root, child

    root, child = anyio.run(go, backend="asyncio")
    assert child["expires_at"] == root["expires_at"]
