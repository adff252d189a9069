"""A caller or decision settled early stays current on the next call.

A write decided before the writer, a task remembered per connection, an
authorization generation instead of two reads, a refusal decided before the
content scan's verdict is looked at: each test below makes the change such a
step could miss (by another connection, another daemon on the same
PostgreSQL schema, a moved clock, a reloaded policy) and then calls again, on
a real daemon over its sockets, or on the in-process seam with a fake clock
where time decides.
"""

from __future__ import annotations

import json
import os
import socket
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import pytest

from memoryd.rpc.client import Client
from memoryd.rpc.protocol import CallContext
from tests.harness import (
    AGENT_WRITES,
    Daemon,
    enable_consent,
    entry,
    expect,
    exported_audit,
    fresh_identity,
    pg_connect,
    pg_store_of,
    running,
    shared_pair_on_fresh_schema,
    store_file,
    team_member_and_outsider,
)
from tests.inproc import CallFailed, FakeClock, InProcess, composed

# A key id of the AWS form (the scanner's secret.aws_access_key_id): a scope
# name may hold one, since a scope is any run of [A-Za-z0-9._:@/+-].
SECRET_SCOPE = "AKIAQ3EGT7VNMWK2PX4R"

_DENY_WRITES = """
[[rule]]
id = "no-writes-here"
effect = "deny"
capability = "MemoryWrite"
"""


@pytest.fixture(scope="module")
def denying() -> Iterator[Daemon]:
    with running(policy=_DENY_WRITES) as daemon:
        yield daemon


# --- the audit chain never holds a refused scope name --------------------------------


def test_a_write_the_policy_denies_keeps_a_secret_scope_name_out_of_the_chain(
    denying: Daemon,
) -> None:
    # A deny is decided before the scan's verdict is looked at: the decision
    # event must not carry a scope name that the scan refuses, as the
    # rejection event does not ("memory/withheld:scope_refused").
    ident = fresh_identity("sc-")
    with denying.control() as c:
        expect(
            -32001,
            "policy_denied",
            c.call,
            "memory.write",
            {"identity": ident, "action": "add", "scope": SECRET_SCOPE, "entry": entry()},
        )
        # A batch whose first op already fails the scan (a secret in its body):
        # the scan stops there, so the second op's scope was never scanned.
        expect(
            -32001,
            "policy_denied",
            c.call,
            "memory.write",
            {
                "identity": ident,
                "action": "batch",
                "ops": [
                    {
                        "action": "add",
                        "scope": "plain",
                        "entry": entry("Key", "the key is AKIAIOSFODNN7EXAMPLF"),
                    },
                    {"action": "add", "scope": SECRET_SCOPE + "/2", "entry": entry("Other")},
                ],
            },
        )
        exported = exported_audit(c)
    assert "AKIAIOSFODNN7EXAMPL" not in exported
    assert "withheld:scope_refused" in exported


def test_an_entry_id_the_daemon_never_made_is_not_found_before_any_decision(
    denying: Daemon,
) -> None:
    # A write op names its entry by id, and a deny (or a proposal) is decided
    # and audited before the entry is looked up: an id the client made up,
    # which the Id pattern lets hold a key id, must be refused first.
    ident = fresh_identity("sc-")
    with denying.control() as c, denying.agent() as a:
        enable_consent(c, ident)
        token = c.call("token.issue", {"identity": ident})["token"]
        tid = a.call("task.begin", {"token": token})["task_id"]
        archive = {"action": "archive", "id": SECRET_SCOPE, "expected_revision": 1, "reason": "old"}
        expect(-32003, "not_found", c.call, "memory.write", {"identity": ident, **archive})
        expect(-32003, "not_found", a.call, "memory.write", {"task_id": tid, **archive})
        expect(
            -32003,
            "not_found",
            c.call,
            "memory.write",
            {
                "identity": ident,
                "action": "batch",
                "ops": [
                    {"action": "add", "entry": entry("Fine")},
                    {**archive, "reason": "ignore all previous instructions"},
                ],
            },
        )
        exported = exported_audit(c)
    assert "AKIAIOSFODNN7EXAMPL" not in exported


# How this module's daemon starts (the ``d`` fixture, tests/blackbox/conftest.py).
DAEMON = {"policy": AGENT_WRITES}


def test_a_task_scope_the_scan_refuses_is_refused_at_begin_and_never_audited(d: Daemon) -> None:
    # A write without a scope goes to its task's first scope, which the write's
    # own scan never reads: the name must be scanned where it enters, at
    # task.begin (its scopes, or its token's), or it reaches the chain with
    # every write's resource string.
    ident = fresh_identity("sc-")
    with d.control() as c, d.agent() as a:
        enable_consent(c, ident)
        token = c.call("token.issue", {"identity": ident})["token"]
        # token.issue refuses such a scope now; a token kept from before
        # (its row holds the scope) still begins no task with it.
        expect(
            -32004,
            "secret_detected",
            c.call,
            "token.issue",
            {"identity": ident, "scopes": [SECRET_SCOPE]},
        )
        issued = c.call("token.issue", {"identity": ident, "scopes": ["kept"]})
        scoped = issued["token"]
        _keep_token_scopes(d, issued["token_id"], [SECRET_SCOPE])
        expect(
            -32004,
            "secret_detected",
            a.call,
            "task.begin",
            {"token": token, "scopes": ["plain", SECRET_SCOPE]},
        )
        expect(-32004, "secret_detected", a.call, "task.begin", {"token": scoped})
        # A clean task writes as before.
        tid = a.call("task.begin", {"token": token, "scopes": ["plain"]})["task_id"]
        assert (
            a.call("memory.write", {"task_id": tid, "action": "add", "entry": entry()})["outcome"]
            == "applied"
        )
        exported = exported_audit(c)
    assert "AKIAIOSFODNN7EXAMPL" not in exported


def _keep_token_scopes(daemon: Daemon, token_id: str, scopes: list[str]) -> None:
    """Set a stored token's scopes behind the daemon's back, as a row kept
    from a daemon that did not scan them at issue would hold them."""
    pg = pg_store_of(daemon.home)
    if pg is not None:
        with pg_connect(*pg) as conn:
            conn.execute(
                "UPDATE tokens SET scopes = %s WHERE token_id = %s", (json.dumps(scopes), token_id)
            )
        return
    outside = store_file(daemon.home / "memory.db")
    with outside:
        outside.execute(
            "UPDATE tokens SET scopes = ? WHERE token_id = ?", (json.dumps(scopes), token_id)
        )
    outside.close()


def test_a_member_removed_from_a_team_cannot_write_there_on_the_next_control_call(
    d: Daemon,
) -> None:
    # A control-channel write is decided before the writer; its team view is
    # still read in the transaction, so a removal is seen on the next call.
    team = "sc-" + uuid.uuid4().hex[:8]
    with d.control() as c:
        member, _outsider, _tokens = team_member_and_outsider(c, team, "sc-")
        write = {"identity": member, "scope": f"team:{team}", "action": "add"}
        c.call("memory.write", {**write, "entry": entry("Before")})
        c.call("team.remove", {"name": team, "identity": member})
        expect(-32001, "scope_mismatch", c.call, "memory.write", {**write, "entry": entry("After")})
        c.call("team.add", {"name": team, "identity": member})
        listed = c.call("memory.list", {"identity": member, "scope": f"team:{team}"})
    assert [item["title"] for item in listed["items"]] == ["Before"]


# --- a write decided before the writer, from what a write on the connection verified ---

_CLOCKED_ALLOW = """
[[rule]]
id = "clocked-writes"
effect = "allow"
capability = "MemoryWrite"
channel = "agent"
scope = "clock:t"
"""


def _write(task_id: str, title: str, **extra: Any) -> dict[str, Any]:
    return {"task_id": task_id, "action": "add", "scope": "clock:t", "entry": entry(title), **extra}


async def _verified_task(
    daemon: InProcess, begin: dict[str, Any], token_expires_in: int | None = None
) -> str:
    """A task whose first write verified it on the agent connection (the next
    write on it is decided before the writer)."""
    consent = await daemon.call("control", "consent.get", {})
    await daemon.call(
        "control", "consent.set", {"read": True, "contribute": True, "version": consent["version"]}
    )
    if token_expires_in is not None:
        issued = await daemon.call(
            "control",
            "token.issue",
            {"identity": {"kind": "local", "subject": "clocked"}, "expires_in": token_expires_in},
        )
        consent = await daemon.call(
            "control", "consent.get", {"identity": {"kind": "local", "subject": "clocked"}}
        )
        await daemon.call(
            "control",
            "consent.set",
            {
                "identity": {"kind": "local", "subject": "clocked"},
                "read": True,
                "contribute": True,
                "version": consent["version"],
            },
        )
        begin = {**begin, "token": issued["token"]}
    tid: str = (await daemon.call("agent", "task.begin", begin))["task_id"]
    out = await daemon.call("agent", "memory.write", _write(tid, "First"))
    assert out["outcome"] == "applied"
    assert daemon.app.gate.verified(_agent_ctx(), tid, "2000-01-01T00:00:00.000000Z")
    return tid


def _agent_ctx() -> CallContext:
    """The context ``InProcess.call`` gives an agent call by default."""
    return CallContext(channel="agent", peer_uid=os.geteuid(), peer_pid=None, conn_id="agent")


async def _refusal(daemon: InProcess, tid: str) -> tuple[str | None, int]:
    try:
        await daemon.call("agent", "memory.write", _write(tid, "Second"))
    except CallFailed as exc:
        code = exc.data_code
    else:
        code = None
    owners = [{}, {"identity": {"kind": "local", "subject": "clocked"}}]
    stored = 0
    for who in owners:
        stored += len(
            (await daemon.call("control", "memory.list", {**who, "scope": "clock:t"}))["items"]
        )
    return code, stored


def test_a_verified_task_past_its_lifetime_is_refused_on_the_next_write(tmp_path: Path) -> None:
    clock = FakeClock()

    async def go() -> tuple[str | None, int]:
        with composed(
            tmp_path / "h", clock=clock, policy=_CLOCKED_ALLOW, config="task_ttl_hours = 1\n"
        ) as daemon:
            tid = await _verified_task(daemon, {"scopes": ["clock:t"]})
            clock.advance(hours=1)
            return await _refusal(daemon, tid)

    assert anyio.run(go, backend="asyncio") == ("task_not_found", 1)


def test_a_verified_task_whose_token_expired_is_refused_on_the_next_write(tmp_path: Path) -> None:
    clock = FakeClock()

    async def go() -> tuple[str | None, int]:
        with composed(tmp_path / "h", clock=clock, policy=_CLOCKED_ALLOW) as daemon:
            tid = await _verified_task(daemon, {"scopes": ["clock:t"]}, token_expires_in=60)
            clock.advance(seconds=60)
            return await _refusal(daemon, tid)

    assert anyio.run(go, backend="asyncio") == ("policy_denied", 1)


def test_a_policy_reloaded_to_deny_refuses_the_next_write_on_a_verified_task(
    tmp_path: Path,
) -> None:
    async def go() -> tuple[str | None, int]:
        with composed(tmp_path / "h", policy=_CLOCKED_ALLOW) as daemon:
            tid = await _verified_task(daemon, {"scopes": ["clock:t"]})
            (tmp_path / "h" / "policy.toml").write_text(_CLOCKED_ALLOW.replace('"allow"', '"deny"'))
            assert (await daemon.call("control", "policy.reload", {}))["loaded"]
            return await _refusal(daemon, tid)

    assert anyio.run(go, backend="asyncio") == ("policy_denied", 1)


def test_a_key_replayed_with_other_content_on_a_verified_task_is_a_conflict(tmp_path: Path) -> None:
    # Only keyed requests are hashed now; the replay check still runs before
    # the early decision is used, and compares the whole request.
    async def go() -> tuple[str | None, int]:
        with composed(tmp_path / "h", policy=_CLOCKED_ALLOW) as daemon:
            tid = await _verified_task(daemon, {"scopes": ["clock:t"]})
            first = _write(tid, "Keyed", idempotency_key="k-1")
            assert (await daemon.call("agent", "memory.write", first))["outcome"] == "applied"
            again = await daemon.call("agent", "memory.write", first)
            assert again["outcome"] == "applied"
            try:
                await daemon.call(
                    "agent", "memory.write", {**first, "entry": entry("Keyed", "Other content.")}
                )
            except CallFailed as exc:
                code = exc.data_code
            else:
                code = None
            listed = await daemon.call("control", "memory.list", {"scope": "clock:t"})
            return code, len(listed["items"])

    assert anyio.run(go, backend="asyncio") == ("idempotency_conflict", 2)


# --- PostgreSQL: a change made by the other daemon on the schema ---------------------


@pytest.fixture(scope="module")
def pair() -> Iterator[tuple[Daemon, Daemon]]:
    yield from shared_pair_on_fresh_schema(policy=AGENT_WRITES)


def _begun_and_written(first: Daemon, a: Client) -> tuple[dict[str, str], dict[str, Any], str]:
    """A task of a new owner on ``a`` (a connection to ``first``) that two
    writes and a read have used."""
    ident = fresh_identity("pg-")
    with first.control() as c:
        enable_consent(c, ident)
        issued = c.call("token.issue", {"identity": ident})
    tid = a.call("task.begin", {"token": issued["token"], "scopes": ["shared:t"]})["task_id"]
    for title in ("First", "Again"):
        assert (
            a.call("memory.write", {"task_id": tid, "action": "add", "entry": entry(title)})[
                "outcome"
            ]
            == "applied"
        )
    assert len(a.call("memory.list", {"task_id": tid})["items"]) == 2
    return ident, issued, tid


def test_a_token_revoked_on_the_other_daemon_stops_the_next_call_here(
    pair: tuple[Daemon, Daemon],
) -> None:
    first, second = pair
    with first.agent() as a:
        ident, issued, tid = _begun_and_written(first, a)
        with second.control() as c:
            c.call("token.revoke", {"token_id": issued["token_id"]})
        expect(
            -32001,
            "policy_denied",
            a.call,
            "memory.write",
            {"task_id": tid, "action": "add", "entry": entry("Late")},
        )
        expect(-32001, "policy_denied", a.call, "memory.list", {"task_id": tid})
    assert _titles(second, ident) == {"First", "Again"}


def test_a_task_ended_on_the_other_daemon_is_gone_on_the_next_call_here(
    pair: tuple[Daemon, Daemon],
) -> None:
    first, second = pair
    with first.agent() as a:
        ident, issued, tid = _begun_and_written(first, a)
        with second.agent() as b:
            b.call("task.resume", {"task_id": tid, "token": issued["token"]})
            assert b.call("task.end", {"task_id": tid})["ended"] is True
        expect(
            -32003,
            "task_not_found",
            a.call,
            "memory.write",
            {"task_id": tid, "action": "add", "entry": entry("Late")},
        )
        expect(-32003, "task_not_found", a.call, "memory.list", {"task_id": tid})
    assert _titles(second, ident) == {"First", "Again"}


def _titles(daemon: Daemon, ident: dict[str, str]) -> set[str]:
    with daemon.control() as c:
        items = c.call("memory.list", {"identity": ident, "scope": "shared:t"})["items"]
    return {item["title"] for item in items}


def test_a_token_revoked_by_another_connection_to_the_file_stops_the_next_write(
    tmp_path: Path,
) -> None:
    # The authorization generation moves on the daemon's own writing
    # connection; a change committed by any other connection to the store file
    # (an operator's sqlite3 shell revoking a token in an emergency) must
    # send the next write back to reading its task and token all the same.
    async def go() -> tuple[str | None, int]:
        with composed(tmp_path / "h", policy=_CLOCKED_ALLOW) as daemon:
            tid = await _verified_task(daemon, {"scopes": ["clock:t"]}, token_expires_in=3600)
            outside = store_file(tmp_path / "h" / "memory.db")
            with outside:
                outside.execute("UPDATE tokens SET revoked_at = '2026-01-01T00:00:00.000000Z'")
            outside.close()
            return await _refusal(daemon, tid)

    assert anyio.run(go, backend="asyncio") == ("policy_denied", 1)


def test_a_team_name_the_scan_refuses_is_refused_and_never_audited(d: Daemon) -> None:
    # A team's name is its scope, audited (and logged) as it is when the team
    # is made; a name that reads as a credential must not get that far.
    name = "xoxb-1234567890-1234567890-" + uuid.uuid4().hex[:24]
    with d.control() as c:
        expect(-32004, "secret_detected", c.call, "team.create", {"name": name})
        assert name not in str(c.call("team.list", {}))
        exported = exported_audit(c)
    assert name not in exported
    assert name not in d.log()


def _rpc(request_id: int, method: str, params: dict[str, Any]) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": request_id, "method": method, "params": params}


def _outcomes(replies: list[dict[str, Any]]) -> list[str | None]:
    return [
        r["result"].get("outcome") if "result" in r else r["error"]["data"]["code"]
        for r in sorted(replies, key=lambda r: r["id"])
    ]


def test_a_task_ended_between_pipelined_writes_stops_the_one_behind_it(
    d: Daemon, c: Client
) -> None:
    # The first write verifies the task on the connection (the next one is
    # decided before the writer); the end is read from the same bytes, the
    # write behind it must see it, whether the three came as lines of one
    # send or as one batch.
    enable_consent(c)
    for framing in ("lines", "batch"):
        with d.agent() as a:
            tid = a.call("task.begin", {"scopes": [f"pipe:{framing}"]})["task_id"]
            calls = [
                _rpc(
                    1, "memory.write", {"task_id": tid, "action": "add", "entry": entry("Before")}
                ),
                _rpc(2, "task.end", {"task_id": tid}),
                _rpc(
                    3, "memory.write", {"task_id": tid, "action": "add", "entry": entry("Behind")}
                ),
            ]
            if framing == "batch":
                replies = json.loads(a.send_raw(json.dumps(calls).encode()))
            else:
                with socket.socket(socket.AF_UNIX) as raw:
                    raw.settimeout(30)
                    raw.connect(str(d.agent_path))
                    raw.sendall(b"".join(json.dumps(x).encode() + b"\n" for x in calls))
                    got = b""
                    while got.count(b"\n") < 3:
                        chunk = raw.recv(65536)
                        assert chunk, "the daemon closed the connection"
                        got += chunk
                replies = [json.loads(line) for line in got.splitlines()]
        assert _outcomes(replies) == ["applied", None, "task_not_found"], framing
        titles = [i["title"] for i in c.call("memory.list", {"scope": f"pipe:{framing}"})["items"]]
        assert titles == ["Before"], framing
