"""One MCP session of ``memctl mcp`` served over a pair of message streams,
as ``Server.run`` serves it, minus a relay per message and the SDK's
per-call checks of what the bridge's own tool calls already guarantee.

``Server.run`` decides a connection's protocol era by its first request
(the 2025 ``initialize`` handshake, or a 2026-07-28 per-request envelope)
and, to decide, puts a relay task between the transport and the server:
every message of the session, for its whole life, is read by that task and
handed over a memory stream, one more turn of the event loop and about a
tenth of the bridge's instructions per call. ``serve_session`` looks at the
first message itself: when it is ``initialize`` the session is in the
handshake era for good, and the SDK's handshake dispatcher reads the
transport directly; anything else goes to the SDK's era routing as before.

``DirectToolCalls`` is a server middleware (the SDK's public seam in
front of its own dispatch) for ``tools/call``: the SDK checks a call's
params twice (against the version's request schema, then into the handler's
params model) and checks and re-dumps the handler's result against the
version's result schema, about a tenth of the bridge's instructions per
call. For a call whose params are exactly a string ``name`` and an object
(or absent) ``arguments``, on a connection past its handshake, at a
version whose shaping was worked out at start-up, the middleware calls the
handler itself and puts the bridge's result (``tool_result``'s fixed form)
in the version's wire form by a table; every other call goes through the
SDK unchanged.

Owns: ``serve_session``, ``Replay`` (a read stream that hands out one
held message before the rest) and ``DirectToolCalls``.

Invariants:
- a session that opens with ``initialize`` is served exactly as
  ``Server.run`` serves it in the handshake era: the same dispatcher
  (``initialize`` handled inline), the same kernel, a request carrying the
  2026-07-28 envelope refused with INVALID_REQUEST, the connection's
  cleanup run and the write stream closed at the end;
- any other opening (a request with or without an envelope, a notification,
  a line that did not parse, the end of the stream) reaches the SDK's own
  era routing with nothing lost: the message looked at comes first;
- the server's lifespan is entered before the first message is awaited, as
  ``Server.run`` does (the session's memoryd task begins at once);
- ``DirectToolCalls`` answers exactly what the SDK answers: it takes only
  calls every version's request schema accepts and the SDK would hand to the
  handler (a string name, object or absent arguments, nothing else, the
  connection initialized, no cache hint for ``tools/call``), and shapes a
  result by a version's table only when the result has the bridge's form
  and the table reproduced the SDK's own shaping on probes at start-up;
  anything else is shaped (or refused) as the SDK does.
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Final, Generic, TypeVar

import anyio
import mcp_types as types
from anyio.abc import AsyncResource
from mcp.server.connection import Connection
from mcp.server.context import CallNext, HandlerResult, ServerRequestContext
from mcp.server.lowlevel import Server
from mcp.server.models import InitializationOptions
from mcp.server.runner import ServerRunner, aclose_shielded, serve_dual_era_loop
from mcp.shared.dispatcher import DispatchContext
from mcp.shared.exceptions import MCPError
from mcp.shared.jsonrpc_dispatcher import JSONRPCDispatcher
from mcp.shared.message import SessionMessage
from mcp.shared.transport_context import TransportContext
from mcp_types import methods
from mcp_types.version import HANDSHAKE_PROTOCOL_VERSIONS
from pydantic import BaseModel, ValidationError

from memoryd.memctl.mcp_tools import tool_result

if TYPE_CHECKING:  # the stream protocols Server.run itself is typed with
    from mcp.shared._stream_protocols import ReadStream, WriteStream

__all__ = ["DirectToolCalls", "Replay", "ToolCallHandler", "serve_session"]

T = TypeVar("T")

# The 2026-07-28 envelope's reserved key in a request's params._meta.
ENVELOPE_KEY: Final = types.PROTOCOL_VERSION_META_KEY


class Replay(AsyncResource, Generic[T]):
    """A read stream that hands out ``held`` (if any) before what ``rest``
    has, and closes ``rest`` when closed."""

    def __init__(self, held: list[T], rest: ReadStream[T]) -> None:
        self._held = held
        self._rest = rest

    async def receive(self) -> T:
        if self._held:
            return self._held.pop(0)
        return await self._rest.receive()

    def __aiter__(self) -> Replay[T]:
        return self

    async def __anext__(self) -> T:
        try:
            return await self.receive()
        except (anyio.EndOfStream, anyio.ClosedResourceError):
            raise StopAsyncIteration from None

    async def aclose(self) -> None:
        self._held.clear()
        await self._rest.aclose()


def _enveloped(params: Mapping[str, Any] | None) -> bool:
    meta = params.get("_meta") if params else None
    return isinstance(meta, Mapping) and ENVELOPE_KEY in meta


def _opens_handshake(item: SessionMessage | Exception | None) -> bool:
    return (isinstance(item, SessionMessage) and isinstance(item.message, types.JSONRPCRequest)
            and item.message.method == "initialize")


async def _first(read: ReadStream[SessionMessage | Exception]) -> SessionMessage | Exception | None:
    try:
        return await read.receive()
    except (anyio.EndOfStream, anyio.ClosedResourceError):
        return None


async def _serve_handshake(server: Server[Any], read: ReadStream[SessionMessage | Exception],
                           write: WriteStream[SessionMessage], *, lifespan_state: Any,
                           init_options: InitializationOptions) -> None:
    # The SDK's handshake-era recipe (Server.run's legacy branch), on the
    # transport's own stream.
    dispatcher: JSONRPCDispatcher[TransportContext] = JSONRPCDispatcher(
        read, write, inline_methods=frozenset({"initialize"}))
    connection = Connection.for_loop(dispatcher)
    runner = ServerRunner(server, connection, lifespan_state, init_options=init_options)

    async def on_request(dctx: DispatchContext[TransportContext], method: str,
                         params: Mapping[str, Any] | None) -> dict[str, Any]:
        if method != "initialize" and _enveloped(params):
            raise MCPError(
                code=types.INVALID_REQUEST,
                message="this connection serves the handshake protocol era; "
                "requests carrying the 2026-07-28 envelope are not accepted on it",
            )
        return await runner.on_request(dctx, method, params)

    try:
        await dispatcher.run(on_request, runner.on_notify)
    finally:
        await aclose_shielded(connection)


async def serve_session(server: Server[Any], read: ReadStream[SessionMessage | Exception],
                        write: WriteStream[SessionMessage],
                        init_options: InitializationOptions) -> None:
    """Serve one session over ``read`` and ``write`` until the client leaves,
    as ``server.run(read, write, init_options)`` does."""
    async with server.lifespan(server) as lifespan_state:
        try:
            first = await _first(read)
            replay: Replay[SessionMessage | Exception] = Replay(
                [] if first is None else [first], read)
            if _opens_handshake(first):
                await _serve_handshake(server, replay, write, lifespan_state=lifespan_state,
                                       init_options=init_options)
            else:
                await serve_dual_era_loop(server, replay, write, lifespan_state=lifespan_state,
                                          init_options=init_options)
        finally:
            await write.aclose()


# --- tools/call without the SDK's per-call checks ---------------------------------

# A tools/call handler as DirectToolCalls calls it: the request's context,
# the tool's name and its arguments (None when absent), as the SDK's handler
# gets them from CallToolRequestParams; it answers a result dict.
ToolCallHandler = Callable[[ServerRequestContext[Any, Any], str, "dict[str, Any] | None"],
                           Awaitable[HandlerResult]]

TOOLS_CALL: Final = "tools/call"
# The params a call may carry to be served directly: anything else (a _meta,
# a task, a field of a later schema) goes through the SDK's checks.
_CALL_KEYS: Final = frozenset({"name", "arguments"})
# The bridge's result form (memctl.mcp_tools.tool_result) and its one item.
_RESULT_KEYS: Final = frozenset({"content", "structuredContent", "isError", "resultType"})
_ITEM_KEYS: Final = frozenset({"type", "text"})


def _bridge_form(result: Any) -> bool:
    """Whether ``result`` is exactly ``tool_result``'s form: one text item,
    an object of structured content, a boolean ``isError``, complete."""
    if type(result) is not dict or result.keys() != _RESULT_KEYS:
        return False
    content = result["content"]
    if type(content) is not list or len(content) != 1:
        return False
    item = content[0]
    return (type(item) is dict and item.keys() == _ITEM_KEYS and item["type"] == "text"
            and type(item["text"]) is str and type(result["structuredContent"]) is dict
            and type(result["isError"]) is bool and result["resultType"] == "complete")


@dataclass(frozen=True)
class _Shape:
    """A version's wire form of the bridge's result: the result's keys it
    keeps, in its order, and the text item's, in its order."""

    keys: tuple[str, ...]
    item_keys: tuple[str, ...]

    def apply(self, result: dict[str, Any]) -> dict[str, Any]:
        item = result["content"][0]
        shaped = {key: result[key] for key in self.keys}
        shaped["content"] = [{key: item[key] for key in self.item_keys}]
        return shaped


def _probes() -> list[dict[str, Any]]:
    return [tool_result("probe", {"a": [1, 2.5, None, True, "x"], "b": {"c": {}}}),
            tool_result("", {}, is_error=True),
            tool_result("two\nlines é", {"error": {"code": "c"}})]


def _wire(value: Any) -> str:
    # Key order included: the wire form is compared as it would be written.
    return json.dumps(value, ensure_ascii=False)


def _shape_for(version: str) -> _Shape | None:
    """The table for ``version``, when the SDK's own shaping of the probes
    is reproduced by one; None (every call through the SDK) otherwise."""
    try:
        for params in ({"name": "probe", "arguments": {"a": 1}}, {"name": "probe"},
                       {"name": "probe", "arguments": None}):
            methods.validate_client_request(TOOLS_CALL, version, params)
        probes = _probes()
        expected = [methods.serialize_server_result(TOOLS_CALL, version, dict(p)) for p in probes]
    except (KeyError, ValueError, ValidationError):
        return None
    first = expected[0]
    content = first.get("content")
    if not (isinstance(content, list) and len(content) == 1 and isinstance(content[0], dict)):
        return None
    shape = _Shape(tuple(first), tuple(content[0]))
    if not (set(shape.keys) <= _RESULT_KEYS and "content" in shape.keys
            and set(shape.item_keys) <= _ITEM_KEYS):
        return None
    if any(_wire(shape.apply(p)) != _wire(e) for p, e in zip(probes, expected, strict=True)):
        return None
    return shape


class DirectToolCalls:
    """A ``Server.middleware`` entry that serves a well-formed ``tools/call``
    straight from ``handler`` (see the module's docstring); register the
    same handler with the SDK for the calls it passes on."""

    def __init__(self, server: Any, handler: ToolCallHandler) -> None:
        self._server = server
        self._handler = handler
        # The start-up table: one row per handshake-era version it holds for.
        self.shapes: dict[str, _Shape] = {}
        for version in HANDSHAKE_PROTOCOL_VERSIONS:
            shape = _shape_for(version)
            if shape is not None:
                self.shapes[version] = shape

    async def __call__(self, ctx: ServerRequestContext[Any, Any],
                       call_next: CallNext) -> HandlerResult:
        params = ctx.params
        if ctx.method != TOOLS_CALL or type(params) is not dict or not params.keys() <= _CALL_KEYS:
            return await call_next(ctx)
        name = params.get("name")
        arguments = params.get("arguments")
        shape = self.shapes.get(ctx.protocol_version)
        if (shape is None or type(name) is not str
                or (arguments is not None and type(arguments) is not dict)
                # The SDK's gate: calls wait for the handshake.
                or ctx.session.client_params is None
                or self._server.cache_hints.get(TOOLS_CALL) is not None):
            return await call_next(ctx)
        result = await self._handler(ctx, name, arguments)
        if _bridge_form(result):
            assert isinstance(result, dict)
            return shape.apply(result)
        return _sdk_shaped(ctx.protocol_version, result)


def _sdk_shaped(version: str, result: HandlerResult) -> dict[str, Any]:
    """Any other result, checked and shaped as the SDK's runner shapes a
    spec method's result (and refused as it refuses one that does not fit,
    without the result's text in any log)."""
    if isinstance(result, types.ErrorData):
        raise MCPError.from_error_data(result)
    if result is None:
        dumped: dict[str, Any] = {}
    elif isinstance(result, BaseModel):
        dumped = result.model_dump(by_alias=True, mode="json", exclude_none=True)
    else:
        dumped = dict(result)
    try:
        return methods.serialize_server_result(TOOLS_CALL, version, dumped)
    except ValidationError:
        raise MCPError(code=types.INTERNAL_ERROR,
                       message="Handler returned an invalid result") from None
