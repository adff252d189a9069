"""A connection's tasks are remembered between its calls, and every change that stops one is
seen on the very next call.

The gate keeps, per connection, the tasks that connection has resolved (their
subject, scopes and frozen grants), so a write does not decode the task row
again. Each test below first uses a task on a connection (so it is
remembered), then changes what the task may do by another path, then calls on
the same connection: the change must be seen at once.
"""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import anyio

from memoryd.daemon.access.identity import revoke_token
from memoryd.daemon.clock import fmt
from memoryd.rpc.client import Client
from tests.harness import Daemon, enable_consent, entry, expect, fresh_identity
from tests.inproc import CallFailed, FakeClock, InProcess, composed


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
    d: Daemon, c: Client, a: Client
) -> None:
    enable_consent(c)
    tid = a.call("task.begin", {"scopes": ["cache:t"]})["task_id"]
    assert a.call("memory.write", write(tid, "First"))["outcome"] in ("applied", "pending")
    with d.agent() as other:
        assert other.call("task.end", {"task_id": tid})["ended"] is True
    expect(-32003, "task_not_found", a.call, "memory.write", write(tid, "Second"))
    expect(-32003, "task_not_found", a.call, "memory.list", {"task_id": tid})


def test_a_task_read_through_is_stopped_by_revocation_and_end_on_the_next_read(
    d: Daemon, c: Client, a: Client
) -> None:
    # Reads keep the task's caller with the task the connection resolved:
    # a second read takes it from there, and the task's checks still run.
    ident = fresh_identity("tr-")
    enable_consent(c, ident)
    issued = c.call("token.issue", {"identity": ident})
    tid = a.call("task.begin", {"token": issued["token"], "scopes": ["cache:t"]})["task_id"]
    for _ in range(2):
        assert a.call("memory.list", {"task_id": tid})["items"] == []
        assert a.call("memory.status", {"task_id": tid})["task"]["task_id"] == tid
    c.call("token.revoke", {"token_id": issued["token_id"]})
    expect(-32001, "policy_denied", a.call, "memory.list", {"task_id": tid})
    enable_consent(c)
    ended = a.call("task.begin", {"scopes": ["cache:t"]})["task_id"]
    for _ in range(2):
        assert a.call("memory.list", {"task_id": ended})["items"] == []
    with d.agent() as other:
        assert other.call("task.end", {"task_id": ended})["ended"] is True
    expect(-32003, "task_not_found", a.call, "memory.list", {"task_id": ended})


def test_a_task_ended_on_its_own_connection_is_gone_on_the_next_call(c: Client, a: Client) -> None:
    enable_consent(c)
    tid = a.call("task.begin", {"scopes": ["cache:t"]})["task_id"]
    assert a.call("memory.list", {"task_id": tid})["items"] == []
    a.call("task.end", {"task_id": tid})
    expect(-32003, "task_not_found", a.call, "memory.list", {"task_id": tid})
    expect(-32003, "task_not_found", a.call, "task.end", {"task_id": tid})


def test_consent_withdrawn_keeps_the_running_tasks_frozen_grants_and_binds_new_tasks(
    c: Client, a: Client
) -> None:
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
            await daemon.call(
                "control",
                "consent.set",
                {"read": True, "contribute": True, "version": consent["version"]},
            )
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


# --- writes: a task verified by one write is trusted by the next only while
# nothing it depends on has changed --------------------------------------------

_ALLOW = """
[[rule]]
id = "cache-writes"
effect = "allow"
capability = "MemoryWrite"
channel = "agent"
scope = "cache:t"
"""


_WHO = {"identity": {"kind": "local", "subject": "cache-writer"}}


async def _consented(daemon: InProcess, who: dict[str, Any] | None = None) -> None:
    who = who or {}
    consent = await daemon.call("control", "consent.get", who)
    await daemon.call(
        "control",
        "consent.set",
        {**who, "read": True, "contribute": True, "version": consent["version"]},
    )


def _statements(store: Any) -> list[str]:
    """Every statement the store's writing connection runs from now on."""
    seen: list[str] = []

    def trace(_cursor: Any, sql: str, _bindings: Any) -> bool:
        seen.append(sql)
        return True

    store.conn.exec_trace = trace
    return seen


def test_a_second_write_on_a_connection_reads_no_task_or_token_row(tmp_path: Path) -> None:
    async def go() -> list[str]:
        with composed(tmp_path / "h", policy=_ALLOW) as daemon:
            await _consented(daemon, _WHO)
            issued = await daemon.call("control", "token.issue", _WHO)
            tid = (
                await daemon.call(
                    "agent", "task.begin", {"token": issued["token"], "scopes": ["cache:t"]}
                )
            )["task_id"]
            await daemon.call("agent", "memory.write", write(tid, "First"))
            seen = _statements(daemon.store)
            out = await daemon.call("agent", "memory.write", write(tid, "Second"))
            assert out["outcome"] == "applied"
            return seen

    seen = anyio.run(go, backend="asyncio")
    assert any("INSERT INTO entries" in sql for sql in seen)
    assert not [sql for sql in seen if "FROM tasks" in sql or "FROM tokens" in sql]


def test_the_authorization_generation_moves_on_revocation_task_end_and_consent_only(
    tmp_path: Path,
) -> None:
    async def go() -> list[tuple[str, bool]]:
        with composed(tmp_path / "h", policy=_ALLOW) as daemon:
            store = daemon.store
            moved: list[tuple[str, bool]] = []

            async def step(name: str, channel: str, method: str, params: dict[str, Any]) -> Any:
                before = store.authz_generation
                out = await daemon.call(channel, method, params)
                moved.append((name, store.authz_generation != before))
                return out

            await step(
                "consent",
                "control",
                "consent.set",
                {
                    **_WHO,
                    "read": True,
                    "contribute": True,
                    "version": (await daemon.call("control", "consent.get", _WHO))["version"],
                },
            )
            issued = await step("issue", "control", "token.issue", _WHO)
            tid = (
                await step(
                    "begin",
                    "agent",
                    "task.begin",
                    {"token": issued["token"], "scopes": ["cache:t"]},
                )
            )["task_id"]
            await step("write", "agent", "memory.write", write(tid, "First"))
            await step("end", "agent", "task.end", {"task_id": tid})
            await step("revoke", "control", "token.revoke", {"token_id": issued["token_id"]})
            return moved

    assert anyio.run(go, backend="asyncio") == [
        ("consent", True),
        ("issue", False),
        ("begin", False),
        ("write", False),
        ("end", True),
        ("revoke", True),
    ]


def _change_before_the_transaction(daemon: InProcess, change: Any) -> None:
    """Make ``change`` (a store function) commit right after the gate has
    answered a write from what it remembers, before that write's transaction
    runs: the race a remembered verification must not lose."""
    gate = daemon.app.gate
    real = gate.verified

    def verified_then_changed(ctx: Any, task_id: str, now: str) -> Any:
        answer = real(ctx, task_id, now)
        assert answer is not None, "the write was not answered from memory"
        daemon.store.run_sync(change)
        return answer

    gate.verified = verified_then_changed  # type: ignore[method-assign]


def test_a_token_revoked_after_the_early_decision_stops_the_write(tmp_path: Path) -> None:
    async def go() -> tuple[str | None, int]:
        with composed(tmp_path / "h", policy=_ALLOW) as daemon:
            await _consented(daemon, _WHO)
            issued = await daemon.call("control", "token.issue", _WHO)
            tid = (
                await daemon.call(
                    "agent", "task.begin", {"token": issued["token"], "scopes": ["cache:t"]}
                )
            )["task_id"]
            await daemon.call("agent", "memory.write", write(tid, "First"))
            now = fmt(datetime.now(UTC))
            _change_before_the_transaction(
                daemon, lambda tx: revoke_token(tx, issued["token_id"], now)
            )
            try:
                await daemon.call("agent", "memory.write", write(tid, "Second"))
            except CallFailed as exc:
                code = exc.data_code
            else:
                code = None
            listed = await daemon.call("control", "memory.list", {**_WHO, "scope": "cache:t"})
            return code, len(listed["items"])

    assert anyio.run(go, backend="asyncio") == ("policy_denied", 1)


def test_a_task_ended_after_the_early_decision_stops_the_write(tmp_path: Path) -> None:
    async def go() -> tuple[str | None, int]:
        with composed(tmp_path / "h", policy=_ALLOW) as daemon:
            await _consented(daemon)
            tid = (await daemon.call("agent", "task.begin", {"scopes": ["cache:t"]}))["task_id"]
            await daemon.call("agent", "memory.write", write(tid, "First"))
            now = fmt(datetime.now(UTC))
            _change_before_the_transaction(
                daemon,
                lambda tx: tx.exec("UPDATE tasks SET ended_at = ? WHERE task_id = ?", (now, tid)),
            )
            try:
                await daemon.call("agent", "memory.write", write(tid, "Second"))
            except CallFailed as exc:
                code = exc.data_code
            else:
                code = None
            listed = await daemon.call("control", "memory.list", {"scope": "cache:t"})
            return code, len(listed["items"])

    assert anyio.run(go, backend="asyncio") == ("task_not_found", 1)
