"""A connection's tasks are remembered between its calls, and every change that stops one is
seen on the very next call.

The gate keeps, per connection, the tasks that connection has resolved (their
subject, scopes and frozen grants), so a write does not decode the task row
again. Each test below first uses a task on a connection (so it is
remembered), then changes what the task may do by another path, then calls on
the same connection: the change must be seen at once.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import pytest

from memoryd.rpc.client import Client, RpcError
from tests.harness import Daemon, enable_consent, entry, fresh_identity, running
from tests.inproc import CallFailed, FakeClock, composed


@pytest.fixture(scope="module")
def d() -> Iterator[Daemon]:
    with running() as daemon:
        yield daemon


def expect(code: int, data_code: str, fn: Any, *args: Any) -> None:
    with pytest.raises(RpcError) as info:
        fn(*args)
    assert (info.value.code, info.value.data_code) == (code, data_code), info.value.data


def write(task_id: str, title: str) -> dict[str, Any]:
    return {"task_id": task_id, "action": "add", "scope": "cache:t", "entry": entry(title)}


def test_a_revoked_token_is_seen_on_the_next_write(c: Client, a: Client) -> None:
    ident = fresh_identity("tc-")
    enable_consent(c, ident)
    issued = c.call("token.issue", {"identity": ident})
    tid = a.call("task.begin", {"token": issued["token"], "scopes": ["cache:t"]})["task_id"]
    assert a.call("memory.write", write(tid, "First"))["outcome"] in ("applied", "pending")
    c.call("token.revoke", {"token_id": issued["token_id"]})
    expect(-32001, "policy_denied", a.call, "memory.write", write(tid, "Second"))
    expect(-32001, "policy_denied", a.call, "memory.list", {"task_id": tid})


def test_a_task_ended_on_another_connection_is_gone_on_the_next_call(
        d: Daemon, c: Client, a: Client) -> None:
    enable_consent(c)
    tid = a.call("task.begin", {"scopes": ["cache:t"]})["task_id"]
    assert a.call("memory.write", write(tid, "First"))["outcome"] in ("applied", "pending")
    with d.agent() as other:
        assert other.call("task.end", {"task_id": tid})["ended"] is True
    expect(-32003, "task_not_found", a.call, "memory.write", write(tid, "Second"))
    expect(-32003, "task_not_found", a.call, "memory.list", {"task_id": tid})


def test_a_task_ended_on_its_own_connection_is_gone_on_the_next_call(c: Client, a: Client) -> None:
    enable_consent(c)
    tid = a.call("task.begin", {"scopes": ["cache:t"]})["task_id"]
    assert a.call("memory.list", {"task_id": tid})["items"] == []
    a.call("task.end", {"task_id": tid})
    expect(-32003, "task_not_found", a.call, "memory.list", {"task_id": tid})
    expect(-32003, "task_not_found", a.call, "task.end", {"task_id": tid})


def test_consent_withdrawn_keeps_the_running_tasks_frozen_grants_and_binds_new_tasks(
        c: Client, a: Client) -> None:
    # Consent is frozen per task (SPEC): a withdrawal changes new tasks, and a
    # remembered task must not lend its grants to one begun after it.
    ident = fresh_identity("tc-")
    enable_consent(c, ident)
    token = c.call("token.issue", {"identity": ident})["token"]
    running_task = a.call("task.begin", {"token": token, "scopes": ["cache:t"]})["task_id"]
    assert a.call("memory.list", {"task_id": running_task})["items"] == []
    enable_consent(c, ident, read=False, contribute=False)
    later = a.call("task.begin", {"token": token, "scopes": ["cache:t"]})
    assert later["consent"]["read"] is False
    expect(-32001, "consent_required", a.call, "memory.list", {"task_id": later["task_id"]})
    assert a.call("memory.list", {"task_id": running_task})["items"] == []


def test_a_task_past_its_lifetime_is_gone_on_the_next_call(tmp_path: Path) -> None:
    clock = FakeClock()

    async def go() -> str | None:
        with composed(tmp_path / "h", clock=clock, config="task_ttl_hours = 1\n") as daemon:
            consent = await daemon.call("control", "consent.get", {})
            await daemon.call("control", "consent.set", {
                "read": True, "contribute": True, "version": consent["version"]})
            task = await daemon.call("agent", "task.begin", {"scopes": ["cache:t"]})
            listed = {"task_id": task["task_id"]}
            assert (await daemon.call("agent", "memory.list", listed))["items"] == []
            clock.advance(hours=1)
            try:
                await daemon.call("agent", "memory.list", listed)
            except CallFailed as exc:
                return exc.data_code  # type: ignore[no-any-return]
            return None

    assert anyio.run(go, backend="asyncio") == "task_not_found"
