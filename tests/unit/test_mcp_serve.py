"""The bridge's session serving against the SDK's own ``Server.run``.

``memctl mcp`` serves a session that opens with the ``initialize`` handshake
on the SDK's handshake dispatcher directly, without the relay task
``Server.run`` puts in front of every session to choose its protocol era, and
answers ``tools/call`` with a dict already in the result's wire form. These
tests play the same scripted sessions (handshake, 2026-07-28 envelopes,
notifications first, hostile lines, the end of the stream) through
``Server.run`` and through ``serve_session`` and require the same answers,
message for message, and hold the wire-form result to what the SDK's model
dumps to.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import anyio
import mcp_types as types
import pytest
from anyio import wait_all_tasks_blocked
from mcp.server.lowlevel import NotificationOptions, Server
from mcp.shared.exceptions import MCPError
from mcp.shared.message import SessionMessage
from mcp_types import methods

from memoryd.memctl.mcp_bridge import Bridge, build_server, parse_args, tool_result
from memoryd.memctl.mcp_serve import serve_session

HANDSHAKE = "2025-11-25"
MODERN = "2026-07-28"
ENVELOPE = {"_meta": {types.PROTOCOL_VERSION_META_KEY: MODERN,
                      types.CLIENT_INFO_META_KEY: {"name": "t", "version": "1"},
                      types.CLIENT_CAPABILITIES_META_KEY: {}}}


def make_server(log: list[str]) -> Server[Any]:
    @asynccontextmanager
    async def lifespan(_server: Server[Any]) -> AsyncIterator[str]:
        log.append("enter")
        try:
            yield "state"
        finally:
            log.append("exit")

    async def list_tools(_ctx: Any, _params: Any) -> types.ListToolsResult:
        return types.ListToolsResult(tools=[types.Tool(
            name="echo", input_schema={"type": "object"},
            output_schema={"type": "object"})])

    async def call_tool(ctx: Any, params: types.CallToolRequestParams) -> dict[str, Any]:
        if params.name != "echo":
            raise MCPError(types.INVALID_PARAMS, "Unknown tool")
        arguments = params.arguments or {}
        return tool_result(f"echo {ctx.lifespan_context}", {"got": arguments},
                           is_error=bool(arguments.get("fail")))

    server: Server[Any] = Server("t", version="1", lifespan=lifespan, on_list_tools=list_tools)
    server.add_request_handler("tools/call", types.CallToolRequestParams, call_tool)
    return server


def request(rid: int, method: str, params: dict[str, Any] | None = None) -> SessionMessage:
    return SessionMessage(types.JSONRPCRequest(jsonrpc="2.0", id=rid, method=method,
                                               params=params))


def notification(method: str, params: dict[str, Any] | None = None) -> SessionMessage:
    return SessionMessage(types.JSONRPCNotification(jsonrpc="2.0", method=method, params=params))


INIT = {"protocolVersion": HANDSHAKE, "capabilities": {},
        "clientInfo": {"name": "t", "version": "1"}}

SCRIPTS: dict[str, list[SessionMessage | Exception]] = {
    "handshake": [
        request(1, "initialize", INIT),
        notification("notifications/initialized"),
        request(2, "tools/list"),
        request(3, "tools/call", {"name": "echo", "arguments": {"a": [1, "x"]}}),
        request(4, "tools/call", {"name": "echo", "arguments": {"fail": True}}),
        request(5, "tools/call", {"arguments": {}}),  # no name: invalid params
        request(6, "tools/call", {"name": "echo", "arguments": "not an object"}),
        request(7, "tools/call", {"name": "echo", **ENVELOPE}),  # the other era's envelope
        request(8, "no/such/method"),
        request(11, "tools/call", {"name": "nope"}),
        ValueError("a line that is not JSON-RPC"),
        request(9, "ping"),
        request(10, "initialize", INIT),  # a second handshake
    ],
    "calls before the handshake": [
        request(1, "tools/list"),
        request(2, "ping"),
        request(3, "initialize", INIT),
        notification("notifications/initialized"),
        request(4, "tools/list"),
    ],
    "a notification first": [
        notification("notifications/initialized"),
        request(1, "initialize", INIT),
        notification("notifications/initialized"),
        request(2, "tools/call", {"name": "echo"}),
    ],
    "a bad line first": [
        ValueError("not JSON"),
        request(1, "initialize", INIT),
        notification("notifications/initialized"),
        request(2, "tools/call", {"name": "echo"}),
    ],
    "the 2026 envelope": [
        request(1, "server/discover", ENVELOPE),
        request(2, "tools/list", ENVELOPE),
        request(3, "tools/call", {"name": "echo", "arguments": {"b": 2}, **ENVELOPE}),
        request(4, "initialize", INIT),
        request(5, "tools/list"),  # no envelope on a modern connection
    ],
    "nothing at all": [],
}


async def play(script: list[SessionMessage | Exception], *,
               ours: bool) -> tuple[list[Any], list[str]]:
    log: list[str] = []
    server = make_server(log)
    options = server.create_initialization_options(NotificationOptions(tools_changed=True))
    to_server, server_reads = anyio.create_memory_object_stream[SessionMessage | Exception](100)
    server_writes, from_server = anyio.create_memory_object_stream[SessionMessage](100)
    answers: list[Any] = []
    async with to_server, server_reads, server_writes, from_server, \
            anyio.create_task_group() as tg:
        if ours:
            tg.start_soon(serve_session, server, server_reads, server_writes, options)
        else:
            tg.start_soon(server.run, server_reads, server_writes, options)
        for item in script:
            await to_server.send(item)
            await wait_all_tasks_blocked()
        await to_server.aclose()
        with anyio.fail_after(10):
            async for answer in from_server:
                answers.append(answer.message.model_dump(by_alias=True, exclude_unset=True))
    return answers, log


@pytest.mark.parametrize("name", sorted(SCRIPTS))
def test_a_session_is_answered_as_server_run_answers_it(name: str) -> None:
    reference = anyio.run(lambda: play(SCRIPTS[name], ours=False))
    served = anyio.run(lambda: play(SCRIPTS[name], ours=True))
    assert served == reference
    answers, log = served
    assert log == ["enter", "exit"]
    requests = [m for m in SCRIPTS[name] if isinstance(m, SessionMessage)
                and isinstance(m.message, types.JSONRPCRequest)]
    assert len(answers) == len(requests)


def test_the_handshake_session_refuses_the_other_eras_envelope_and_serves_the_rest() -> None:
    answers, _ = anyio.run(lambda: play(SCRIPTS["handshake"], ours=True))
    by_id = {a["id"]: a for a in answers}
    assert by_id[1]["result"]["protocolVersion"] == HANDSHAKE
    assert by_id[3]["result"]["structuredContent"] == {"got": {"a": [1, "x"]}}
    assert by_id[4]["result"]["isError"] is True
    assert by_id[5]["error"]["code"] == types.INVALID_PARAMS
    assert by_id[7]["error"]["code"] == types.INVALID_REQUEST
    assert by_id[8]["error"]["code"] == types.METHOD_NOT_FOUND


@pytest.mark.parametrize("structured", [
    {}, {"a": 1}, {"error": {"code": "x", "message": "m", "recovery": None}},
    {"nested": {"list": [1, 2.5, None, True, "é"], "empty": []}},
])
@pytest.mark.parametrize("is_error", [False, True])
@pytest.mark.parametrize("text", ["", "one line", "two\nlines ✓"])
def test_the_wire_form_result_is_what_the_model_dumps_to(text: str, structured: dict[str, Any],
                                                         is_error: bool) -> None:
    model = types.CallToolResult(content=[types.TextContent(type="text", text=text)],
                                 structured_content=structured, is_error=is_error)
    wire = tool_result(text, structured, is_error=is_error)
    assert wire == model.model_dump(by_alias=True, mode="json", exclude_none=True)
    for version in (HANDSHAKE, "2025-06-18", MODERN):
        assert (methods.serialize_server_result("tools/call", version, wire)
                == methods.serialize_server_result(
                    "tools/call", version,
                    model.model_dump(by_alias=True, mode="json", exclude_none=True)))


def test_the_bridge_opens_no_opentelemetry_span_per_message(tmp_path: Path) -> None:
    def traced(server: Server[Any]) -> bool:
        return any(type(m).__name__ == "OpenTelemetryMiddleware" for m in server.middleware)

    assert traced(Server("sdk default"))
    bridge = Bridge(parse_args(["--scope", "s:x"], home=str(tmp_path)))
    server = build_server(bridge)
    assert not traced(server)
    assert server.get_request_handler("tools/call") is not None
    assert server.get_capabilities().tools is not None
