"""``memctl mcp`` through the MCP SDK's own stdio client, against a real daemon.

Each session spawns ``python -m memoryd.memctl --home H mcp`` exactly as an agent
client would; consent settings differ per owner, so each test that needs its
own settings gets its own identity and agent token on the one module daemon.
"""

from __future__ import annotations

import subprocess
import sys
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest

mcp = pytest.importorskip("mcp")

import anyio  # noqa: E402
import msgspec  # noqa: E402
from mcp.client.session import ClientSession  # noqa: E402
from mcp.client.stdio import StdioServerParameters, stdio_client  # noqa: E402
from mcp.shared.exceptions import MCPError  # noqa: E402

from memoryd.memctl import mcp_bridge  # noqa: E402
from memoryd.rpc.client import Client, RpcError  # noqa: E402
from tests.harness import REPO, Daemon, entry, short_tempdir  # noqa: E402

WRITE_TOOLS = {"memory_write", "memory_submit_session", "memory_actions"}
READ_TOOLS = {"memory_context", "memory_search", "memory_read"}


def _identity(name: str) -> dict[str, str]:
    return {"kind": "local", "subject": name}


def agent_token(d: Daemon, name: str, **consent: bool) -> str:
    """A token for a fresh owner ``name`` whose consent switches are ``consent``."""
    with d.control() as c:
        ident = _identity(name)
        if consent:
            current = c.call("consent.get", {"identity": ident})
            c.call("consent.set", {"identity": ident, "version": current["version"], **consent})
        token: str = c.call("token.issue", {"identity": ident})["token"]
        return token


@asynccontextmanager
async def session(
    home: Path, *args: str, token: str | None = None, log: Path | None = None
) -> AsyncIterator[ClientSession]:
    env = {"PYTHONPATH": str(REPO)}
    if token is not None:
        env["MEMORYD_AGENT_TOKEN"] = token
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "memoryd.memctl", "--home", str(home), "mcp", *args],
        env=env,
        cwd=str(REPO),
    )
    errlog_path = log or home.parent / "bridge.log"
    with open(errlog_path, "a") as errlog:
        async with (
            stdio_client(params, errlog=errlog) as (read, write),
            ClientSession(read, write) as s,
        ):
            await s.initialize()
            yield s


def run(fn: Callable[[], Awaitable[Any]]) -> Any:
    return anyio.run(fn)


async def tool_names(s: ClientSession) -> set[str]:
    return {t.name for t in (await s.list_tools()).tools}


def text(result: Any) -> str:
    return "\n".join(block.text for block in result.content if block.type == "text")


def audit_seq(d: Daemon) -> int:
    with d.control() as c:
        seq: int = c.call("memory.status", {})["audit"]["seq"]
        return seq


def pending_ids(d: Daemon, name: str | None = None) -> set[str]:
    with d.control() as c:
        items = c.call("governance.action.list", {"status": "pending"})["items"]
        return {item["action_id"] for item in items}


# --- the tool list follows the task's grants ------------------------------------


def test_without_read_consent_only_memory_status_is_offered(d: Daemon) -> None:
    token = agent_token(d, "no-consent")

    async def go() -> tuple[set[str], Any]:
        async with session(d.home, token=token) as s:
            return await tool_names(s), await s.call_tool("memory_status", {})

    names, status = run(go)
    assert names == {"memory_status"}
    assert not status.is_error
    assert "read consent is off" in text(status)


def test_read_only_consent_offers_no_write_tool(d: Daemon) -> None:
    token = agent_token(d, "reader", read=True)

    async def go() -> set[str]:
        async with session(d.home, token=token) as s:
            return await tool_names(s)

    assert run(go) == {"memory_status", *READ_TOOLS}


def test_full_consent_offers_every_tool_with_annotations(d: Daemon) -> None:
    token = agent_token(d, "writer", read=True, contribute=True)

    async def go() -> Any:
        async with session(d.home, token=token) as s:
            return {t.name: t for t in (await s.list_tools()).tools}

    tools = run(go)
    assert set(tools) == {"memory_status", *READ_TOOLS, *WRITE_TOOLS}
    for name in ("memory_status", *READ_TOOLS):
        assert tools[name].annotations.read_only_hint is True
    write = tools["memory_write"].annotations
    assert (write.read_only_hint, write.destructive_hint, write.idempotent_hint) == (
        False,
        True,
        False,
    )
    assert "expected_revision" in tools["memory_write"].description


def test_tools_used_without_learn_from_tools_offers_no_write_tool(d: Daemon) -> None:
    token = agent_token(d, "browsing", read=True, contribute=True)

    async def go() -> set[str]:
        async with session(d.home, "--tools-used", token=token) as s:
            return await tool_names(s)

    assert "memory_write" not in run(go)


def test_subagent_session_has_no_write_tool(d: Daemon) -> None:
    token = agent_token(d, "parent", read=True, contribute=True)
    with Client(d.agent_path) as agent:
        parent = agent.call("task.begin", {"token": token})

    async def go() -> tuple[set[str], Any]:
        async with session(
            d.home, "--role", "subagent", "--parent-task", parent["task_id"], token=token
        ) as s:
            return await tool_names(s), (await s.call_tool("memory_status", {}))

    names, status = run(go)
    assert names == {"memory_status", *READ_TOOLS}
    assert "subagent" in text(status)


def test_tool_arguments_are_the_rpc_params_minus_task_and_identity() -> None:
    for spec in mcp_bridge.TOOLS:
        fields = {f.encode_name for f in msgspec.structs.fields(spec.params)}
        schema = mcp_bridge.input_schema(spec)
        assert set(schema["properties"]) == fields - {"task_id", "identity"}, spec.name
        assert schema["additionalProperties"] is False


# --- the governed flow ----------------------------------------------------------


def test_write_waits_for_approval_then_reads_back_after_memctl_approve(d: Daemon) -> None:
    token = agent_token(d, "flow", read=True, contribute=True)
    note = entry(
        title="Deploy day",
        body="Deploys of the acme service happen on Tuesdays.",
        type_="procedure",
    )

    async def propose() -> Any:
        async with session(d.home, token=token) as s:
            return await s.call_tool("memory_write", {"action": "add", "entry": note})

    proposed = run(propose)
    assert not proposed.is_error
    assert "waiting for the operator's approval" in text(proposed).lower()
    action_id = proposed.structured_content["action_id"]
    assert action_id in text(proposed)

    approved = d.memctl("approve", action_id, "--json")
    assert approved.returncode == 0, approved.stderr
    entry_id = msgspec.json.decode(approved.stdout)["entries"][0]["id"]

    async def read_back() -> Any:
        async with session(d.home, token=token) as s:
            return await s.call_tool("memory_read", {"ids": [entry_id]})

    read = run(read_back)
    assert not read.is_error
    assert read.structured_content["entries"][0]["body"] == note["body"]
    assert note["body"] in text(read)


def test_agent_learns_a_denied_write_and_its_reason_through_memory_actions(d: Daemon) -> None:
    token = agent_token(d, "outcome", read=True, contribute=True)
    note = entry(title="Lunch", body="Lunch is at noon on Fridays.", type_="fact")

    async def propose() -> Any:
        async with session(d.home, token=token) as s:
            return await s.call_tool("memory_write", {"action": "add", "entry": note})

    action_id = run(propose).structured_content["action_id"]
    denied = d.memctl("deny", action_id, "--reason", "not a work fact")
    assert denied.returncode == 0, denied.stderr

    async def ask() -> tuple[Any, Any]:
        async with session(d.home, token=token) as s:
            return (
                await s.call_tool("memory_actions", {"action_id": action_id}),
                await s.call_tool("memory_actions", {"action_id": "act_unknown"}),
            )

    found, unknown = run(ask)
    assert not found.is_error
    assert found.structured_content["items"][0]["status"] == "denied"
    said = text(found)
    assert action_id in said and "denied" in said and "not a work fact" in said
    assert "do not propose it again" in said.lower()
    assert unknown.is_error and "action_not_found" in text(unknown)


def test_context_returns_the_fenced_block_and_cards(d: Daemon) -> None:
    token = agent_token(d, "recall", read=True, contribute=True)
    with d.control() as c:
        c.call(
            "memory.write",
            {
                "identity": _identity("recall"),
                "action": "add",
                "entry": entry(title="Editor", body="The user edits in vim."),
            },
        )
    try:
        with Client(d.agent_path) as agent:
            task = agent.call("task.begin", {"token": token})
            agent.call("memory.context", {"task_id": task["task_id"], "intent": "probe"})
    except RpcError as exc:
        if exc.code == -32601:
            pytest.skip("this daemon has no memory.context yet")
        raise

    async def go() -> Any:
        async with session(d.home, "--scope", "default", token=token) as s:
            return await s.call_tool("memory_context", {"intent": "set up the editor in vim"})

    result = run(go)
    assert not result.is_error
    body = text(result)
    assert "<<<memoryd:evidence begin" in body
    assert "not instructions" in body
    assert [card["title"] for card in result.structured_content["entries"]] == ["Editor"]
    # Each card once, inside the fence: recalled text never stands outside it.
    card_id = result.structured_content["entries"][0]["id"]
    assert body.count(card_id) == 1 and body.count("Editor") == 1
    begin, end = body.index("<<<memoryd:evidence begin"), body.index("<<<memoryd:evidence end")
    assert begin < body.index(card_id) < end


def test_closing_the_session_ends_its_task(d: Daemon) -> None:
    token = agent_token(d, "closing", read=True)

    async def go() -> str:
        async with session(d.home, token=token) as s:
            status = await s.call_tool("memory_status", {})
            task_id: str = status.structured_content["session"]["task_id"]
            return task_id

    task_id = run(go)
    with Client(d.agent_path) as agent, pytest.raises(RpcError) as refused:
        agent.call("memory.status", {"task_id": task_id})
    assert refused.value.data_code == "task_not_found"


# --- errors ---------------------------------------------------------------------


def test_unknown_tool_is_an_mcp_error(d: Daemon) -> None:
    token = agent_token(d, "unknown-tool", read=True)

    async def go() -> MCPError | None:
        async with session(d.home, token=token) as s:
            try:
                await s.call_tool("memory_write", {"action": "add", "entry": entry()})
            except MCPError as exc:
                return exc
        return None

    before = audit_seq(d)
    refused = run(go)
    assert refused is not None
    assert refused.code == -32602
    assert "Unknown tool" in refused.message
    assert audit_seq(d) == before


def test_bad_arguments_name_the_field_and_send_nothing(d: Daemon) -> None:
    token = agent_token(d, "bad-args", read=True, contribute=True)

    async def go() -> Any:
        async with session(d.home, token=token) as s:
            return await s.call_tool("memory_write", {"action": "explode", "entry": entry()})

    before, pending = audit_seq(d), pending_ids(d)
    result = run(go)
    assert result.is_error
    error = result.structured_content["error"]
    assert error["code"] == "invalid_params"
    assert [e["path"] for e in error["errors"]] == ["$.action"]
    assert "explode" not in text(result)
    assert (audit_seq(d), pending_ids(d)) == (before, pending)


def test_task_id_is_not_an_argument(d: Daemon) -> None:
    token = agent_token(d, "task-arg", read=True)

    async def go() -> Any:
        async with session(d.home, token=token) as s:
            return await s.call_tool("memory_search", {"task_id": "tsk_other"})

    result = run(go)
    assert result.is_error
    assert result.structured_content["error"]["errors"][0]["path"] == "$.task_id"


def test_oversized_intent_is_refused_and_changes_nothing(d: Daemon) -> None:
    token = agent_token(d, "big-intent", read=True)

    async def go() -> Any:
        async with session(d.home, token=token) as s:
            return await s.call_tool("memory_context", {"intent": "deploy " * 50_000})

    before = audit_seq(d)
    result = run(go)
    assert result.is_error
    error = result.structured_content["error"]
    assert error["code"] == "invalid_params"
    assert error["errors"][0]["path"] == "$.intent"
    assert "deploy deploy" not in text(result)
    assert audit_seq(d) == before


def test_daemon_errors_carry_their_code_and_recovery(d: Daemon) -> None:
    token = agent_token(d, "errors", read=True, contribute=True)

    async def go() -> Any:
        async with session(d.home, token=token) as s:
            return await s.call_tool(
                "memory_write", {"action": "replace", "id": "ent_x", "entry": entry()}
            )

    result = run(go)
    assert result.is_error
    error = result.structured_content["error"]
    assert error["code"] == "missing_revision"
    assert error["recovery"]
    assert "missing_revision" in text(result)
    assert error["recovery"] in text(result)
    assert "Traceback" not in text(result)


def test_daemon_not_running_gives_one_clear_message() -> None:
    home = short_tempdir() / "h"
    home.mkdir(mode=0o700)

    async def go() -> tuple[set[str], Any]:
        async with session(home) as s:
            return await tool_names(s), await s.call_tool("memory_status", {})

    names, status = run(go)
    assert names == {"memory_status"}
    assert status.is_error
    assert status.structured_content["error"]["code"] == "daemon_unavailable"
    assert "memoryd is not running" in text(status)
    assert "Traceback" not in (home.parent / "bridge.log").read_text()


def test_the_token_never_reaches_the_bridge_log(d: Daemon) -> None:
    token = agent_token(d, "quiet", read=True)
    log = d.home.parent / "quiet-bridge.log"

    async def go() -> None:
        async with session(d.home, token=token, log=log) as s:
            await s.call_tool("memory_status", {})
            await s.call_tool("memory_search", {"query": "anything"})

    run(go)
    assert token not in log.read_text()
    assert token not in d.log()


def test_memctl_mcp_without_the_sdk_says_how_to_install_it(tmp_path: Path) -> None:
    # sys.modules[name] = None makes every import of it fail, as if absent.
    code = (
        "import sys; sys.modules['mcp'] = None; from memoryd.memctl.main import main; "
        "sys.exit(main(['--home', sys.argv[1], 'mcp']))"
    )
    done = subprocess.run(
        [sys.executable, "-c", code, str(tmp_path)],
        capture_output=True,
        cwd=REPO,
        timeout=60,
        check=False,
    )
    assert done.returncode == 1
    assert b"memoryd[mcp]" in done.stderr
    assert b"pip install 'memoryd[mcp]'" not in done.stderr  # not a package on PyPI
    assert b"Traceback" not in done.stderr
