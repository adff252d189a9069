"""One MCP session of ``memctl mcp`` served over a pair of message streams,
as ``Server.run`` serves it, minus a relay per message.

``Server.run`` decides a connection's protocol era by its first request
(the 2025 ``initialize`` handshake, or a 2026-07-28 per-request envelope)
and, to decide, puts a relay task between the transport and the server:
every message of the session, for its whole life, is read by that task and
handed over a memory stream, one more turn of the event loop and about a
tenth of the bridge's instructions per call. ``serve_session`` looks at the
first message itself: when it is ``initialize`` the session is in the
handshake era for good, and the SDK's handshake dispatcher reads the
transport directly; anything else goes to the SDK's era routing as before.

Owns: ``serve_session`` and ``Replay`` (a read stream that hands out one
held message before the rest).

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
  ``Server.run`` does (the session's memoryd task begins at once).
"""

from __future__ import annotations

from collections.abc import Mapping
from types import TracebackType
from typing import TYPE_CHECKING, Any, Final, Generic, TypeVar

import anyio
import mcp_types as types
from mcp.server.connection import Connection
from mcp.server.lowlevel import Server
from mcp.server.models import InitializationOptions
from mcp.server.runner import ServerRunner, aclose_shielded, serve_dual_era_loop
from mcp.shared.dispatcher import DispatchContext
from mcp.shared.exceptions import MCPError
from mcp.shared.jsonrpc_dispatcher import JSONRPCDispatcher
from mcp.shared.message import SessionMessage
from mcp.shared.transport_context import TransportContext

if TYPE_CHECKING:  # the stream protocols Server.run itself is typed with
    from mcp.shared._stream_protocols import ReadStream, WriteStream

__all__ = ["Replay", "serve_session"]

T = TypeVar("T")

# The 2026-07-28 envelope's reserved key in a request's params._meta.
ENVELOPE_KEY: Final = types.PROTOCOL_VERSION_META_KEY


class Replay(Generic[T]):
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

    async def __aenter__(self) -> Replay[T]:
        return self

    async def __aexit__(self, exc_type: type[BaseException] | None,
                        exc: BaseException | None, tb: TracebackType | None) -> None:
        await self.aclose()


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
