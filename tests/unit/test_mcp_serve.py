"""The bridge's session serving against the SDK's own ``Server.run``.

``memctl mcp`` serves a session that opens with the ``initialize`` handshake
on the SDK's handshake dispatcher directly, without the relay task
``Server.run`` puts in front of every session to choose its protocol era, and
answers ``tools/call`` with a dict already in the result's wire form, a
well-formed one without the SDK's per-call checks (``DirectToolCalls``).
These tests play the same scripted sessions (handshake at every version,
2026-07-28 envelopes, notifications first, hostile lines and params, the end
of the stream) through ``Server.run`` on the SDK alone and through
``serve_session`` with the middleware, and require the same answers,
message for message; they hold the wire-form result to what the SDK's model
dumps to, and the middleware's shaping to the SDK's for any content.
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
from hypothesis import given, settings
from hypothesis import strategies as st
from mcp.server.lowlevel import NotificationOptions, Server
from mcp.shared.exceptions import MCPError
from mcp.shared.message import SessionMessage
from mcp_types import methods
from mcp_types.version import HANDSHAKE_PROTOCOL_VERSIONS

from memoryd.memctl.mcp_bridge import TOOLS, Bridge, build_server, parse_args, tool_result
from memoryd.memctl.mcp_serve import DirectToolCalls, serve_session

HANDSHAKE = "2025-11-25"
MODERN = "2026-07-28"
ENVELOPE = {
    "_meta": {
        types.PROTOCOL_VERSION_META_KEY: MODERN,
        types.CLIENT_INFO_META_KEY: {"name": "t", "version": "1"},
        types.CLIENT_CAPABILITIES_META_KEY: {},
    }
}


def make_server(
    log: list[str], *, direct: bool = False, paths: list[str] | None = None
) -> Server[Any]:
    """The scripted sessions' server; with ``direct``, tools/call also goes
    through ``DirectToolCalls``, and ``paths`` records which way each call
    reached the handler."""

    @asynccontextmanager
    async def lifespan(_server: Server[Any]) -> AsyncIterator[str]:
        log.append("enter")
        try:
            yield "state"
        finally:
            log.append("exit")

    async def list_tools(_ctx: Any, _params: Any) -> types.ListToolsResult:
        return types.ListToolsResult(
            tools=[
                types.Tool(
                    name="echo", input_schema={"type": "object"}, output_schema={"type": "object"}
                )
            ]
        )

    async def answer(ctx: Any, name: str, arguments: dict[str, Any] | None) -> Any:
        if name == "model":  # a result in another form than tool_result's
            return types.CallToolResult(content=[types.TextContent(type="text", text="m")])
        if name == "malformed":  # a result no schema accepts
            return {"content": "not a list"}
        if name != "echo":
            raise MCPError(types.INVALID_PARAMS, "Unknown tool")
        arguments = arguments or {}
        return tool_result(
            f"echo {ctx.lifespan_context}", {"got": arguments}, is_error=bool(arguments.get("fail"))
        )

    async def call_tool(ctx: Any, params: types.CallToolRequestParams) -> Any:
        if paths is not None:
            paths.append("sdk")
        return await answer(ctx, params.name, params.arguments)

    async def direct_call(ctx: Any, name: str, arguments: dict[str, Any] | None) -> Any:
        if paths is not None:
            paths.append("direct")
        return await answer(ctx, name, arguments)

    server: Server[Any] = Server("t", version="1", lifespan=lifespan, on_list_tools=list_tools)
    server.add_request_handler("tools/call", types.CallToolRequestParams, call_tool)
    if direct:
        server.middleware.append(DirectToolCalls(server, direct_call))
    return server


def request(rid: int, method: str, params: dict[str, Any] | None = None) -> SessionMessage:
    return SessionMessage(types.JSONRPCRequest(jsonrpc="2.0", id=rid, method=method, params=params))


def notification(method: str, params: dict[str, Any] | None = None) -> SessionMessage:
    return SessionMessage(types.JSONRPCNotification(jsonrpc="2.0", method=method, params=params))


def init(version: str = HANDSHAKE) -> dict[str, Any]:
    return {
        "protocolVersion": version,
        "capabilities": {},
        "clientInfo": {"name": "t", "version": "1"},
    }


INIT = init()

# tools/call params the middleware must pass on to the SDK (and the SDK
# answers as it always has), then ones it serves itself.
ODD_CALLS: list[dict[str, Any]] = [
    {"name": 5},
    {"name": None},
    {"arguments": {}},
    {},
    {"name": "echo", "arguments": [1]},
    {"name": "echo", "arguments": "x"},
    {"name": "echo", "task": {"ttl": 1000}},
    {"name": "echo", "_meta": {"progressToken": 7}},
    {"name": "echo", "arguments": {}, "extra": True},
    {"name": "model"},
    {"name": "malformed"},
    {"name": "nope", "arguments": {}},
]
PLAIN_CALLS: list[dict[str, Any]] = [
    {"name": "echo"},
    {"name": "echo", "arguments": None},
    {"name": "echo", "arguments": {"a": [1, "x", {"é": None}], "n": 2.5}},
    {"name": "echo", "arguments": {"fail": True}},
]


def calls_at(version: str) -> list[SessionMessage | Exception]:
    return [
        request(1, "initialize", init(version)),
        notification("notifications/initialized"),
        *(request(10 + i, "tools/call", p) for i, p in enumerate(ODD_CALLS + PLAIN_CALLS)),
    ]


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
    "calls before the handshake's end": [
        request(1, "tools/call", {"name": "echo"}),
        request(2, "initialize", INIT),
        request(3, "tools/call", {"name": "echo"}),
        notification("notifications/initialized"),
        request(4, "tools/call", {"name": "echo"}),
    ],
    # (A version the SDK does not know is negotiated to its latest.)
    **{f"tools/call at {v}": calls_at(v) for v in (*HANDSHAKE_PROTOCOL_VERSIONS, "1999-01-01")},
}


async def play(
    script: list[SessionMessage | Exception], *, ours: bool, paths: list[str] | None = None
) -> tuple[list[Any], list[str]]:
    log: list[str] = []
    server = make_server(log, direct=ours, paths=paths)
    options = server.create_initialization_options(NotificationOptions(tools_changed=True))
    to_server, server_reads = anyio.create_memory_object_stream[SessionMessage | Exception](100)
    server_writes, from_server = anyio.create_memory_object_stream[SessionMessage](100)
    answers: list[Any] = []
    async with to_server, server_reads, server_writes, from_server, anyio.create_task_group() as tg:
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
    requests = [
        m
        for m in SCRIPTS[name]
        if isinstance(m, SessionMessage) and isinstance(m.message, types.JSONRPCRequest)
    ]
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


@pytest.mark.parametrize(
    "structured",
    [
        {},
        {"a": 1},
        {"error": {"code": "x", "message": "m", "recovery": None}},
        {"nested": {"list": [1, 2.5, None, True, "é"], "empty": []}},
    ],
)
@pytest.mark.parametrize("is_error", [False, True])
@pytest.mark.parametrize("text", ["", "one line", "two\nlines ✓"])
def test_the_wire_form_result_is_what_the_model_dumps_to(
    text: str, structured: dict[str, Any], is_error: bool
) -> None:
    model = types.CallToolResult(
        content=[types.TextContent(type="text", text=text)],
        structured_content=structured,
        is_error=is_error,
    )
    wire = tool_result(text, structured, is_error=is_error)
    assert wire == model.model_dump(by_alias=True, mode="json", exclude_none=True)
    for version in (HANDSHAKE, "2025-06-18", MODERN):
        assert methods.serialize_server_result(
            "tools/call", version, wire
        ) == methods.serialize_server_result(
            "tools/call", version, model.model_dump(by_alias=True, mode="json", exclude_none=True)
        )


def test_well_formed_calls_skip_the_sdks_checks_and_the_others_do_not() -> None:
    # Without the middleware every call would reach the SDK's handler: this
    # holds the scripted comparisons above to the path they are meant to test.
    for version in HANDSHAKE_PROTOCOL_VERSIONS:
        paths: list[str] = []
        anyio.run(lambda v=version, p=paths: play(calls_at(v), ours=True, paths=p))
        # The odd params that reach a handler at all (a task, a _meta, an
        # extra field; the rest fail validation) go the SDK's way; the odd
        # results (a model, a malformed dict, an unknown tool's error) come
        # from well-formed calls, served directly and shaped as the SDK does.
        assert paths == ["sdk"] * 3 + ["direct"] * (3 + len(PLAIN_CALLS))


def test_every_handshake_version_has_a_row_in_the_start_up_table() -> None:
    assert set(DirectToolCalls(Server("t"), make_direct_stub()).shapes) == set(
        HANDSHAKE_PROTOCOL_VERSIONS
    )


def make_direct_stub() -> Any:
    async def handler(_ctx: Any, _name: str, _arguments: Any) -> dict[str, Any]:
        raise AssertionError("not called")

    return handler


JSON = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**70), max_value=2**70)
    | st.floats()
    | st.text(max_size=8),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner, max_size=3)
    ),
    max_leaves=12,
)


@settings(max_examples=150, deadline=None)
@given(
    text=st.text(max_size=40),
    structured=st.dictionaries(st.text(max_size=5), JSON, max_size=4),
    is_error=st.booleans(),
)
def test_the_tables_shape_any_result_as_the_sdk_does_on_the_wire(
    text: str, structured: dict[str, Any], is_error: bool
) -> None:
    shapes = DirectToolCalls(Server("t"), make_direct_stub()).shapes
    for version, shape in shapes.items():
        ours = shape.apply(tool_result(text, structured, is_error=is_error))
        sdks = methods.serialize_server_result(
            "tools/call", version, tool_result(text, structured, is_error=is_error)
        )

        def line(result: dict[str, Any]) -> str:
            return types.JSONRPCResponse(jsonrpc="2.0", id=1, result=result).model_dump_json(
                by_alias=True, exclude_unset=True
            )

        assert line(ours) == line(sdks)


def test_the_bridge_opens_no_opentelemetry_span_per_message(tmp_path: Path) -> None:
    def traced(server: Server[Any]) -> bool:
        return any(type(m).__name__ == "OpenTelemetryMiddleware" for m in server.middleware)

    assert traced(Server("sdk default"))
    bridge = Bridge(parse_args(["--scope", "s:x"], home=str(tmp_path)))
    server = build_server(bridge)
    assert not traced(server)
    assert any(isinstance(m, DirectToolCalls) for m in server.middleware)
    assert server.get_request_handler("tools/call") is not None
    assert server.get_capabilities().tools is not None


def test_the_tools_granted_follow_the_task_whenever_it_is_replaced(tmp_path: Path) -> None:
    # granted() is worked out once per task: a new task (another begin, a
    # refresh after consent changed) must be read afresh, never the last one's.
    bridge = Bridge(parse_args(["--scope", "s:x"], home=str(tmp_path)))

    def names() -> list[str]:
        return [spec.name for spec in bridge.granted()]

    assert names() == ["memory_status"]
    for grants in (
        ["memory.context", "memory.read"],
        ["memory.write"],
        [],
        ["memory.context", "memory.read", "memory.write"],
    ):
        bridge.task = {"task_id": "tsk_1", "grants": list(grants)}
        expected = ["memory_status"] + [s.name for s in TOOLS if s.grant in grants]
        assert names() == expected
        assert names() == expected  # the same from the cache
        names().clear()  # a caller's list is its own
        assert names() == expected
    bridge.task = None
    assert names() == ["memory_status"]
