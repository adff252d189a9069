"""``memctl mcp`` as an agent client meets it: tools that follow the session's
grants as they change, declared output schemas, errors in the agent's terms.

Each session spawns the real bridge with the MCP SDK's stdio client against a
real daemon, like ``test_mcp.py``.
"""

from __future__ import annotations

import json
import select
import subprocess
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest

mcp = pytest.importorskip("mcp")

import anyio  # noqa: E402
import mcp_types as types  # noqa: E402
from mcp.client.session import ClientSession  # noqa: E402
from mcp.client.stdio import StdioServerParameters, stdio_client  # noqa: E402

from memoryd.memctl.mcp_tools import TOOLS  # noqa: E402
from tests.harness import REPO, Daemon, running  # noqa: E402

FULL = {"read": True, "contribute": True}


def _token(d: Daemon, name: str, **consent: bool) -> str:
    with d.control() as c:
        ident = {"kind": "local", "subject": name}
        if consent:
            current = c.call("consent.get", {"identity": ident})
            c.call("consent.set", {"identity": ident, "version": current["version"], **consent})
        token: str = c.call("token.issue", {"identity": ident})["token"]
        return token


def _set_consent(d: Daemon, name: str, **consent: bool) -> None:
    with d.control() as c:
        ident = {"kind": "local", "subject": name}
        current = c.call("consent.get", {"identity": ident})
        c.call("consent.set", {"identity": ident, "version": current["version"], **consent})


@asynccontextmanager
async def session(
    home: Path, *args: str, token: str | None = None, seen: list[str] | None = None
) -> AsyncIterator[ClientSession]:
    env = {"PYTHONPATH": str(REPO)}
    if token is not None:
        env["MEMORYD_AGENT_TOKEN"] = token
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "memoryd.memctl", "--home", str(home), "mcp", "--scope", "project:mcp", *args],
        env=env,
        cwd=str(REPO),
    )

    async def on_message(message: Any) -> None:
        inner = getattr(message, "root", message)
        if seen is not None and isinstance(inner, types.ToolListChangedNotification):
            seen.append(inner.method)

    with open(home.parent / "bridge-session.log", "a") as errlog:
        async with (
            stdio_client(params, errlog=errlog) as (read, write),
            ClientSession(read, write, message_handler=on_message) as s,
        ):
            await s.initialize()
            yield s


async def _names(s: ClientSession) -> set[str]:
    return {t.name for t in (await s.list_tools()).tools}


def _text(result: Any) -> str:
    return "\n".join(block.text for block in result.content if block.type == "text")


def test_every_tool_declares_an_output_schema(d: Daemon) -> None:
    token = _token(d, "schemas", **FULL)

    async def go() -> list[types.Tool]:
        async with session(d.home, token=token) as s:
            return (await s.list_tools()).tools

    tools = anyio.run(go)
    assert {t.name for t in tools} == {spec.name for spec in TOOLS}
    for tool in tools:
        assert tool.output_schema is not None, tool.name
        assert tool.output_schema["type"] == "object"
        assert tool.output_schema["required"], tool.name


def test_structured_results_fit_the_declared_schemas(d: Daemon) -> None:
    # The SDK's client validates a structured result against the tool's
    # outputSchema and raises when it does not fit.
    token = _token(d, "fits", **FULL)

    async def go() -> list[Any]:
        async with session(d.home, token=token) as s:
            await s.list_tools()
            wrote = await s.call_tool(
                "memory_write",
                {
                    "target": "memory",
                    "action": "add",
                    "entry": {"type": "fact", "title": "Build", "body": "make all builds it"},
                },
            )
            return [
                await s.call_tool("memory_status", {}),
                await s.call_tool("memory_context", {"intent": "build the project"}),
                await s.call_tool("memory_search", {"query": "build"}),
                wrote,
            ]

    results = anyio.run(go)
    for result in results:
        assert not result.is_error, _text(result)
        assert isinstance(result.structured_content, dict)
    assert results[-1].structured_content["outcome"] == "pending"


def test_an_unknown_argument_is_named_with_the_arguments_the_tool_takes(d: Daemon) -> None:
    token = _token(d, "unknown-arg", **FULL)

    async def go() -> Any:
        async with session(d.home, token=token) as s:
            await s.list_tools()
            return await s.call_tool("memory_search", {"query": "x", "limit_to": 3})

    result = anyio.run(go)
    assert result.is_error
    error = result.structured_content["error"]
    assert error["code"] == "unknown_argument"
    assert error["errors"] == [{"path": "$.limit_to", "problem": "unknown argument"}]
    text = _text(result)
    assert "limit_to" in text and "query" in text and "what to do" in text


def test_an_invalid_token_is_reported_as_such_with_what_to_do(d: Daemon) -> None:
    async def go() -> Any:
        async with session(d.home, token="mdt_not-a-token-memoryd-issued") as s:
            assert await _names(s) == {"memory_status"}
            return await s.call_tool("memory_status", {})

    result = anyio.run(go)
    assert result.is_error
    error = result.structured_content["error"]
    assert error["code"] == "invalid_token"
    text = _text(result)
    assert "token" in text and "memctl token issue" in text
    assert "policy.toml" not in text
    assert "mdt_not-a-token" not in text


def test_missing_consent_says_how_the_operator_turns_it_on(d: Daemon) -> None:
    token = _token(d, "consent-words", read=True)

    async def go() -> Any:
        async with session(d.home, token=token) as s:
            return await s.call_tool("memory_status", {})

    result = anyio.run(go)
    assert not result.is_error
    notes = result.structured_content["session"]["notes"]
    assert any("contribute" in n for n in notes)


def test_switching_consent_on_sends_tools_list_changed_and_offers_the_tools(d: Daemon) -> None:
    token = _token(d, "switch-on")
    seen: list[str] = []

    async def go() -> tuple[set[str], set[str]]:
        async with session(d.home, "--watch", "0.1", token=token, seen=seen) as s:
            before = await _names(s)
            _set_consent(d, "switch-on", read=True, contribute=True)
            with anyio.fail_after(20):
                while not seen:
                    await anyio.sleep(0.05)
            return before, await _names(s)

    before, after = anyio.run(go)
    assert before == {"memory_status"}
    assert seen == ["notifications/tools/list_changed"]
    assert after == {spec.name for spec in TOOLS}


def test_switching_consent_off_takes_the_tools_away(d: Daemon) -> None:
    token = _token(d, "switch-off", **FULL)
    seen: list[str] = []

    async def go() -> tuple[set[str], set[str]]:
        async with session(d.home, "--watch", "0.1", token=token, seen=seen) as s:
            before = await _names(s)
            _set_consent(d, "switch-off", read=False, contribute=False)
            with anyio.fail_after(20):
                while not seen:
                    await anyio.sleep(0.05)
            return before, await _names(s)

    before, after = anyio.run(go)
    assert "memory_write" in before
    assert after == {"memory_status"}


def test_a_session_survives_a_daemon_restart_on_the_same_task() -> None:
    # The bridge's connection is new after the restart and has shown no token:
    # it presents the session's token again (task.resume) and goes on with the
    # same task and the same frozen snapshot, instead of failing or starting over.
    with running() as daemon:
        token = _token(daemon, "restart", **FULL)

        async def go() -> tuple[Any, Any, Any, Any]:
            async with session(daemon.home, token=token) as s:
                first = await s.call_tool("memory_context", {"intent": "build the project"})
                before = await s.call_tool("memory_status", {})
                await anyio.to_thread.run_sync(daemon.restart)
                after = await s.call_tool("memory_status", {})
                again = await s.call_tool("memory_context", {"intent": "build the project"})
                return first, before, after, again

        first, before, after, again = anyio.run(go)
    for result in (first, before, after, again):
        assert not result.is_error, _text(result)
    assert (
        after.structured_content["session"]["task_id"]
        == before.structured_content["session"]["task_id"]
    )
    assert again.structured_content["snapshot_id"] == first.structured_content["snapshot_id"]


def test_revoking_the_token_takes_the_tools_away(d: Daemon) -> None:
    token = _token(d, "revoked", **FULL)
    seen: list[str] = []

    async def go() -> tuple[set[str], set[str], Any]:
        async with session(d.home, "--watch", "0.1", token=token, seen=seen) as s:
            before = await _names(s)
            with d.control() as c:
                for item in c.call("token.list", {})["items"]:
                    if item.get("revoked_at") is None:
                        c.call("token.revoke", {"token_id": item["token_id"]})
            with anyio.fail_after(20):
                while not seen:
                    await anyio.sleep(0.05)
            return before, await _names(s), await s.call_tool("memory_status", {})

    before, after, status = anyio.run(go)
    assert before == {spec.name for spec in TOOLS}
    assert seen[0] == "notifications/tools/list_changed"
    assert after == {"memory_status"}
    assert status.is_error
    assert status.structured_content["error"]["code"] == "invalid_token"


# What a raw client sends before anything else.
_HANDSHAKE = (
    json.dumps(
        {
            "jsonrpc": "2.0",
            "id": 0,
            "method": "initialize",
            "params": {
                "protocolVersion": "2025-06-18",
                "capabilities": {},
                "clientInfo": {"name": "raw", "version": "1"},
            },
        }
    ),
    json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"}),
)


def _unreadable_call(canary: str) -> str:
    """A tools/call line (id 7) Python's JSON reads and no message type does:
    its query ends in a lone surrogate escape."""
    return (
        '{"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": {"name":'
        ' "memory_search", "arguments": {"query": "' + canary + '\\ud800"}}}'
    )


def _lines(d: Daemon, token: str, *lines: str) -> list[dict[str, Any] | None]:
    """Each line written raw to a bridge on pipes (as MCP clients start it), after
    the initialize handshake; the reply read for each, or None after 10 s."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "memoryd.memctl", "--home", str(d.home), "mcp"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        env={"PYTHONPATH": str(REPO), "MEMORYD_AGENT_TOKEN": token},
        cwd=str(REPO),
    )
    assert proc.stdin is not None and proc.stdout is not None

    def send(line: str) -> None:
        assert proc.stdin is not None
        proc.stdin.write(line.encode("utf-8") + b"\n")
        proc.stdin.flush()

    def reply() -> dict[str, Any] | None:
        assert proc.stdout is not None
        ready, _, _ = select.select([proc.stdout], [], [], 10)
        return json.loads(proc.stdout.readline()) if ready else None

    try:
        send(_HANDSHAKE[0])
        assert reply() is not None
        send(_HANDSHAKE[1])
        out = []
        for line in lines:
            send(line)
            out.append(reply())
        return out
    finally:
        proc.kill()
        proc.communicate()


def test_a_request_no_message_type_reads_is_answered_by_its_id_and_the_session_goes_on(
    d: Daemon,
) -> None:
    # A lone surrogate escape is JSON to Python's reader but no text: the
    # SDK's message types refuse the line, and the client must not wait on
    # its request for ever. The error names no argument value.
    token = _token(d, "surrogate", **FULL)
    canary = "cnry" + "7f3a9c"
    answered, after = _lines(
        d,
        token,
        _unreadable_call(canary),
        json.dumps({"jsonrpc": "2.0", "id": 8, "method": "tools/list"}),
    )
    assert answered is not None, "no reply to the request"
    assert answered["id"] == 7
    assert answered["error"]["code"] == -32600
    assert canary not in json.dumps(answered)
    assert after is not None and after["id"] == 8 and after["result"]["tools"]


def test_a_session_read_from_a_file_answers_the_same(d: Daemon, tmp_path: Path) -> None:
    # `memctl mcp < requests.jsonl > answers.jsonl`: a script's session reads
    # and writes files, not pipes, and is answered as a client's is; the
    # request no message type reads too, by its id.
    token = _token(d, "from-a-file", **FULL)
    canary = "cnry" + "5e1b7d"
    lines = [
        *_HANDSHAKE,
        _unreadable_call(canary),
        json.dumps({"jsonrpc": "2.0", "id": 8, "method": "tools/list"}),
    ]
    src, dst = tmp_path / "requests.jsonl", tmp_path / "answers.jsonl"
    src.write_text("\n".join(lines) + "\n")
    with src.open("rb") as stdin, dst.open("wb") as stdout:
        done = subprocess.run(
            [
                sys.executable,
                "-m",
                "memoryd.memctl",
                "--home",
                str(d.home),
                "mcp",
                "--scope",
                "project:mcp",
            ],
            stdin=stdin,
            stdout=stdout,
            stderr=subprocess.PIPE,
            env={"PYTHONPATH": str(REPO), "MEMORYD_AGENT_TOKEN": token},
            cwd=str(REPO),
            timeout=60,
        )
    assert done.returncode == 0, done.stderr.decode()[-400:]
    answers = {a["id"]: a for a in map(json.loads, dst.read_text().splitlines())}
    assert answers[7]["error"]["code"] == -32600
    assert canary not in dst.read_text() + done.stderr.decode()
    assert answers[8]["result"]["tools"]
