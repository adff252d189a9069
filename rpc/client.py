"""The Python client for memoryd's sockets, sync (``Client``) and async
(``AsyncClient``); what ``memctl`` and the tests use.

Owns the client side of SPEC §3: request ids, NDJSON framing of requests and
replies, turning error replies into ``RpcError``, and connection handling.

Invariants:
- one request is in flight per connection, and each reply is matched to its
  request by id; a reply that does not fit is ``BadReply``, never guessed at;
- a request is acted on at most once because of this client. Before
  sending, a connection the peer has closed (idle timeout, daemon restart)
  is replaced by a fresh one. A send that fails before the whole frame has
  left is retried once on a fresh connection: the daemon acts only on a
  complete line and the newline is the frame's last byte. Once the whole
  frame has been sent, a failure is reported (``ConnectionLost``,
  ``TimeoutError``) and never retried here, because the request may have
  been applied; retrying safely is what ``idempotency_key`` is for;
- a call holds the event loop only while it waits in place (``AsyncClient``'s
  ``wait_in_place``, off by default), never longer than that window;
- after a timeout or a reply that cannot be read, the connection is dropped,
  so a late reply can never be taken for the answer to the next request;
- replies up to ``DEFAULT_MAX_REPLY`` (64 MiB) are accepted: the daemon's
  frame limit binds requests, and results (a listing, an audit export page)
  can be larger.

Neither client is safe to share between threads; ``AsyncClient`` may be
shared between tasks (requests take turns on the connection).
"""

from __future__ import annotations

import itertools
import os
import select
import socket
import time
from collections.abc import Iterator, Mapping
from pathlib import Path
from types import TracebackType
from typing import Any, Final

import anyio
import anyio.lowlevel
import msgspec
from anyio.abc import AsyncResource, SocketAttribute, SocketStream

from memoryd.rpc.framing import CLOSED, NEED_DATA, FrameReader, FrameTooLarge, IncompleteFrame

__all__ = [
    "DEFAULT_MAX_REPLY",
    "AsyncClient",
    "BadReply",
    "Client",
    "ConnectError",
    "ConnectionLost",
    "RpcError",
]

DEFAULT_MAX_REPLY: Final = 64 * 1024 * 1024
_READ_CHUNK: Final = 64 * 1024

# sockaddr_un.sun_path is 108 bytes on Linux, one of them the terminating NUL.
_MAX_SOCKET_PATH: Final = 107
_RECV_CHUNK: Final = 65536
# One int, so a check does not combine the two flags (an enum operation) each time.
_PEEK: Final = int(socket.MSG_PEEK | socket.MSG_DONTWAIT)
_LOST_AFTER_SEND: Final = (
    "the connection to memoryd broke after the request was sent; it may or may not have "
    "been applied, and it was not retried"
)


class RpcError(Exception):
    """An error reply from memoryd.

    ``code`` is the JSON-RPC code, ``message`` its message and ``data`` the
    error's data member as sent; ``data_code`` (the stable snake_case name,
    e.g. ``revision_conflict``) and ``recovery`` are lifted out of ``data``
    when present, else ``None``.
    """

    def __init__(self, code: int, message: str, data: Any = None) -> None:
        super().__init__(code, message, data)
        self.code = code
        self.message = message
        self.data = data
        fields = data if isinstance(data, dict) else {}
        self.data_code: str | None = _str_or_none(fields.get("code"))
        self.recovery: str | None = _str_or_none(fields.get("recovery"))
        self.detail_message: str | None = _str_or_none(fields.get("message"))
        self.details: Any = fields.get("details")
        self.errors: Any = fields.get("errors")
        self.incident: str | None = _str_or_none(fields.get("incident"))

    def __str__(self) -> str:
        text = self.detail_message or self.message
        if self.data_code:
            text = f"{text} ({self.data_code})"
        if self.incident:
            text = f"{text} (incident {self.incident})"
        return text

    def __repr__(self) -> str:
        return f"RpcError(code={self.code}, data_code={self.data_code!r})"


class ConnectError(ConnectionError):
    """The daemon's socket cannot be reached (missing, refused, no permission)."""

    def __init__(self, message: str, path: Path) -> None:
        super().__init__(message)
        self.path = path


class ConnectionLost(ConnectionError):
    """The connection ended after a request may have been sent; not retried."""


class BadReply(Exception):
    """A reply that is not a JSON-RPC answer to what was asked."""


def _str_or_none(value: Any) -> str | None:
    return value if isinstance(value, str) else None


# --- the protocol part, shared by both clients --------------------------


class _ErrorObject(msgspec.Struct):
    code: int
    message: str
    data: Any = None


class _Reply(msgspec.Struct):
    id: int | str | None = None
    # UNSET tells "no result member" from a result that is null.
    result: Any = msgspec.UNSET
    error: _ErrorObject | msgspec.UnsetType = msgspec.UNSET
    jsonrpc: str = "2.0"


_ENCODER: Final = msgspec.json.Encoder()
_DECODER: Final = msgspec.json.Decoder(_Reply | list[_Reply])


def _params(params: Mapping[str, Any] | None, kw: Mapping[str, Any]) -> dict[str, Any]:
    merged = dict(params or {})
    merged.update(kw)
    return merged


class _Codec:
    """Request ids and the encoding and reading of frames; no I/O."""

    def __init__(self) -> None:
        self._ids: Iterator[int] = itertools.count(1)

    def call(self, method: str, params: dict[str, Any]) -> tuple[int, bytes]:
        id_ = next(self._ids)
        frame = {"jsonrpc": "2.0", "method": method, "params": params, "id": id_}
        return id_, _ENCODER.encode(frame) + b"\n"

    def notification(self, method: str, params: dict[str, Any]) -> bytes:
        frame = {"jsonrpc": "2.0", "method": method, "params": params}
        return _ENCODER.encode(frame) + b"\n"

    def batch(self, calls: list[tuple[str, Mapping[str, Any] | None]]) -> tuple[list[int], bytes]:
        ids = [next(self._ids) for _ in calls]
        frames = [
            {"jsonrpc": "2.0", "method": method, "params": dict(params or {}), "id": id_}
            for id_, (method, params) in zip(ids, calls, strict=True)
        ]
        return ids, _ENCODER.encode(frames) + b"\n"

    @staticmethod
    def _decode(line: bytes) -> _Reply | list[_Reply]:
        try:
            return _DECODER.decode(line)
        except msgspec.DecodeError:
            raise BadReply("memoryd sent a reply that is not a JSON-RPC response") from None

    @staticmethod
    def _outcome(reply: _Reply) -> Any:
        if isinstance(reply.error, _ErrorObject):
            return RpcError(reply.error.code, reply.error.message, reply.error.data)
        if reply.result is msgspec.UNSET:
            raise BadReply("memoryd sent a response with neither result nor error")
        return reply.result

    def read_call(self, line: bytes, id_: int) -> Any:
        reply = self._decode(line)
        if isinstance(reply, list):
            raise BadReply("memoryd answered a single request with a batch")
        # An error with id null is the daemon refusing the frame as a whole
        # (parse error, frame too large, connection limit): it is our answer.
        if reply.id != id_ and not (reply.id is None and isinstance(reply.error, _ErrorObject)):
            raise BadReply("memoryd answered a different request id")
        outcome = self._outcome(reply)
        if isinstance(outcome, RpcError):
            raise outcome
        return outcome

    def read_batch(self, line: bytes, ids: list[int]) -> list[Any]:
        reply = self._decode(line)
        if not isinstance(reply, list):
            # A batch refused whole (batch_too_large, parse error) is one error.
            if reply.id is None and isinstance(reply.error, _ErrorObject):
                raise RpcError(reply.error.code, reply.error.message, reply.error.data)
            raise BadReply("memoryd answered a batch with a single response")
        by_id: dict[Any, Any] = {}
        for item in reply:
            if item.id in by_id or item.id not in ids:
                raise BadReply("memoryd's batch response does not match the request ids")
            by_id[item.id] = self._outcome(item)
        if len(by_id) != len(ids):
            raise BadReply("memoryd's batch response is missing answers")
        return [by_id[id_] for id_ in ids]


def _check_path(path: Path) -> None:
    if len(os.fsencode(path)) > _MAX_SOCKET_PATH:
        raise ConnectError(
            f"the socket path is too long for a Unix socket (over {_MAX_SOCKET_PATH} bytes): "
            f"{path}; use a shorter --home", path,
        )


def _connect_error(exc: OSError, path: Path) -> ConnectError:
    if isinstance(exc, PermissionError):
        return ConnectError(f"no permission to connect to memoryd at {path}", path)
    return ConnectError(f"memoryd is not running at {path}", path)


def _peer_gone(sock: socket.socket) -> bool:
    """True when a connection cannot carry a new request: closed or reset by
    the peer, or holding bytes nobody asked for (a parting error line)."""
    # A socket with a timeout polls before every recv, MSG_DONTWAIT or not;
    # timeout 0 makes the peek return at once. A socket already at 0 (the
    # async client's) is left alone: each settimeout is an ioctl.
    timeout = sock.gettimeout()
    if timeout != 0:
        sock.settimeout(0)
    try:
        data = sock.recv(1, _PEEK)
    except (BlockingIOError, InterruptedError):
        return False
    except OSError:
        return True
    finally:
        if timeout != 0:
            sock.settimeout(timeout)
    # Either b"" (EOF) or bytes nobody asked for: both mean start afresh.
    del data
    return True


# --- sync ---------------------------------------------------------------


class Client:
    """Blocking client over one Unix socket connection (made on first use).

    ``timeout`` bounds each request from send to reply, in seconds.
    """

    def __init__(self, path: str | Path, *, timeout: float = 30.0,
                 max_reply: int = DEFAULT_MAX_REPLY) -> None:
        self.path = Path(path)
        self.timeout = timeout
        self._max_reply = max_reply
        self._codec = _Codec()
        self._sock: socket.socket | None = None
        self._reader = FrameReader(max_reply)

    # lifecycle

    def connect(self) -> None:
        """Connect now (otherwise the first request does). Idempotent."""
        if self._sock is not None and not self._reader.pending and not _peer_gone(self._sock):
            return
        self.close()
        _check_path(self.path)
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        sock.settimeout(self.timeout)
        try:
            sock.connect(os.fspath(self.path))
        except OSError as exc:
            sock.close()
            raise _connect_error(exc, self.path) from None
        self._sock = sock

    def close(self) -> None:
        if self._sock is not None:
            self._sock.close()
            self._sock = None
        self._reader = FrameReader(self._max_reply)

    def __enter__(self) -> Client:
        return self

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        self.close()

    # requests

    def call(self, method: str, params: Mapping[str, Any] | None = None, /,
             **kw: Any) -> Any:
        """Call ``method`` and return its result; an error reply raises
        ``RpcError``. Params come from ``params`` and/or keywords."""
        id_, frame = self._codec.call(method, _params(params, kw))
        return self._read(self._codec.read_call, self._exchange(frame, self.timeout), id_)

    def notify(self, method: str, params: Mapping[str, Any] | None = None, /,
               **kw: Any) -> None:
        """Send a notification: it runs, and no answer (not even an error) comes."""
        self._exchange(self._codec.notification(method, _params(params, kw)), None)

    def batch(self, calls: list[tuple[str, Mapping[str, Any] | None]]) -> list[Any]:
        """Send ``calls`` as one batch; each item of the answer (in request
        order) is a result or an ``RpcError``. A batch refused as a whole
        raises ``RpcError``."""
        if not calls:
            return []
        ids, frame = self._codec.batch(calls)
        results: list[Any] = self._read(self._codec.read_batch,
                                        self._exchange(frame, self.timeout), ids)
        return results

    def send_raw(self, line: bytes, *, expect_reply: bool = True,
                 timeout: float | None = None) -> bytes | None:
        """Send ``line`` as it is (a ``\\n`` is added if missing) and return the
        next reply line without its newline, or ``None`` if the daemon closed
        the connection first. With ``expect_reply=False`` (a notification,
        say) nothing is read and ``None`` is returned."""
        if not line.endswith(b"\n"):
            line += b"\n"
        return self._exchange(line, (timeout or self.timeout) if expect_reply else None)

    # transport

    def _read(self, reader: Any, line: bytes | None, ids: Any) -> Any:
        if line is None:
            raise ConnectionLost("memoryd closed the connection before answering")
        try:
            return reader(line, ids)
        except BadReply:
            self.close()
            raise

    def _exchange(self, frame: bytes, timeout: float | None) -> bytes | None:
        """Send one frame; if ``timeout`` is not None, read one reply line."""
        limit = self.timeout if timeout is None else timeout
        deadline = time.monotonic() + limit
        sock = self._send(frame, limit)
        if timeout is None:
            return None
        try:
            return self._read_line(sock, deadline)
        except TimeoutError:
            self.close()
            raise TimeoutError(f"memoryd did not answer within {limit} s") from None
        except OSError:
            self.close()
            raise ConnectionLost(_LOST_AFTER_SEND) from None

    def _send(self, frame: bytes, limit: float) -> socket.socket:
        # A send that fails is retried once on a fresh connection: the daemon
        # acts only on a complete line and the newline is the frame's last
        # byte, so a frame that did not leave whole cannot have been acted on.
        for attempt in (1, 2):
            self.connect()
            sock = self._sock
            assert sock is not None
            try:
                sock.settimeout(limit)
                sock.sendall(frame)
                return sock
            except TimeoutError:
                self.close()
                raise TimeoutError(f"memoryd did not take the request within {limit} s") \
                    from None
            except OSError:
                self.close()
                if attempt == 2:
                    raise ConnectionLost(
                        "the connection to memoryd broke while sending; nothing was sent"
                    ) from None
        raise AssertionError("unreachable")

    def _read_line(self, sock: socket.socket, deadline: float) -> bytes | None:
        reader = self._reader
        while True:
            try:
                line = reader.next_frame()
            except FrameTooLarge:
                self.close()
                raise BadReply(f"memoryd's reply is larger than {self._max_reply} bytes") \
                    from None
            except IncompleteFrame:
                self.close()
                raise ConnectionLost(
                    "memoryd closed the connection in the middle of a reply") from None
            if line is CLOSED:
                self.close()
                return None
            if line is not NEED_DATA:
                assert isinstance(line, bytes)
                return line
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise TimeoutError
            sock.settimeout(remaining)
            reader.receive_data(sock.recv(_RECV_CHUNK))


# --- async --------------------------------------------------------------


class AsyncClient(AsyncResource):
    """The same API as ``Client`` with ``async`` methods, on anyio.

    ``wait_in_place`` (seconds, default 0: never) lets a call whose answer
    is not there yet wait for it on the socket itself, holding the event
    loop, for at most that long, before it waits on the loop: for a caller
    with nothing else to do meanwhile (one call at a time, as ``memctl mcp``
    makes them), an answer that comes within that time costs no turns of the
    loop and no timer. Whatever the wait, the call is still a checkpoint and
    ``timeout`` still bounds it. A peer served on the same loop cannot answer
    meanwhile: the call then waits out the window and goes on on the loop.
    """

    def __init__(self, path: str | Path, *, timeout: float = 30.0,
                 max_reply: int = DEFAULT_MAX_REPLY, wait_in_place: float = 0.0) -> None:
        self.path = Path(path)
        self.timeout = timeout
        self._max_reply = max_reply
        self._codec = _Codec()
        self._in_place_ms = max(0, round(wait_in_place * 1000))
        # The connection's socket registered for reading, when waiting in
        # place is on (a poll object costs nothing while not polled).
        self._poll: select.poll | None = None
        # The stream owns the connection; calls read and write its socket
        # directly (non-blocking, waiting on the loop only when it must),
        # which saves the stream's turns of the loop on every call.
        self._stream: SocketStream | None = None
        self._sock: socket.socket | None = None
        self._reader = FrameReader(max_reply)
        # Calls take turns; uncontended (the usual case) taking the lock costs
        # no turn of the event loop (every call still yields once, waiting
        # for its answer).
        self._lock = anyio.Lock(fast_acquire=True)

    async def connect(self) -> None:
        """Connect now (otherwise the first request does). Idempotent."""
        if not self._usable():
            await self._reconnect()

    def _usable(self) -> bool:
        """Whether the connection can carry a new request (see ``_peer_gone``)."""
        return self._sock is not None and not self._reader.pending and not _peer_gone(self._sock)

    async def _reconnect(self) -> None:
        await self.aclose()
        _check_path(self.path)
        try:
            stream = await anyio.connect_unix(self.path)
        except OSError as exc:
            raise _connect_error(exc, self.path) from None
        self._stream = stream
        self._sock = stream.extra(SocketAttribute.raw_socket)  # noqa: S610 - anyio, not Django
        self._reader = FrameReader(self._max_reply)
        if self._in_place_ms:
            self._poll = select.poll()
            self._poll.register(self._sock, select.POLLIN)

    async def aclose(self) -> None:
        stream, self._stream, sock, self._sock = self._stream, None, self._sock, None
        self._reader = FrameReader(self._max_reply)
        self._poll = None
        if sock is not None:
            # Wakes a call waiting on the socket (it fails as closed).
            anyio.notify_closing(sock)
        if stream is not None:
            await stream.aclose()

    async def call(self, method: str, params: Mapping[str, Any] | None = None, /,
                   **kw: Any) -> Any:
        id_, frame = self._codec.call(method, _params(params, kw))
        return await self._read(self._codec.read_call, await self._exchange(frame, self.timeout),
                                id_)

    async def notify(self, method: str, params: Mapping[str, Any] | None = None, /,
                     **kw: Any) -> None:
        await self._exchange(self._codec.notification(method, _params(params, kw)), None)

    async def batch(self, calls: list[tuple[str, Mapping[str, Any] | None]]) -> list[Any]:
        if not calls:
            return []
        ids, frame = self._codec.batch(calls)
        results: list[Any] = await self._read(
            self._codec.read_batch, await self._exchange(frame, self.timeout), ids)
        return results

    async def send_raw(self, line: bytes, *, expect_reply: bool = True,
                       timeout: float | None = None) -> bytes | None:
        if not line.endswith(b"\n"):
            line += b"\n"
        return await self._exchange(line, (timeout or self.timeout) if expect_reply else None)

    async def _read(self, reader: Any, line: bytes | None, ids: Any) -> Any:
        if line is None:
            raise ConnectionLost("memoryd closed the connection before answering")
        try:
            return reader(line, ids)
        except BadReply:
            await self.aclose()
            raise

    async def _exchange(self, frame: bytes, timeout: float | None) -> bytes | None:
        limit = self.timeout if timeout is None else timeout
        async with self._lock:
            # The deadline binds every wait on the loop (connecting, sending,
            # reading); a call that never waits on the loop needs no timer.
            deadline = anyio.current_time() + limit
            try:
                await self._send(frame, deadline)
                if timeout is None:
                    await anyio.lowlevel.checkpoint()
                    return None
                line = await self._read_frame(deadline)
            except TimeoutError:
                await self.aclose()
                raise TimeoutError(f"memoryd did not answer within {limit} s") from None
            except FrameTooLarge:
                await self.aclose()
                raise BadReply(f"memoryd's reply is larger than {self._max_reply} bytes") \
                    from None
            except IncompleteFrame:
                await self.aclose()
                raise ConnectionLost(
                    "memoryd closed the connection in the middle of a reply") from None
            except (ConnectError, ConnectionLost):
                raise
            except (anyio.BrokenResourceError, anyio.ClosedResourceError, OSError):
                await self.aclose()
                raise ConnectionLost(_LOST_AFTER_SEND) from None
            if line is None:
                await self.aclose()
            return line

    async def _read_frame(self, deadline: float) -> bytes | None:
        """One frame (without its ``\\n``): None on a clean EOF between
        frames, ``FrameTooLarge`` past ``max_reply``, ``IncompleteFrame`` on
        an EOF mid-frame (``rpc.framing.FrameReader``); TimeoutError if it
        has not come by ``deadline`` (the loop's clock)."""
        sock, reader = self._sock, self._reader
        assert sock is not None
        waited = False
        in_place = self._poll
        while (frame := reader.next_frame()) is NEED_DATA:
            try:
                reader.receive_data(sock.recv(_READ_CHUNK))
            except BlockingIOError:
                if in_place is not None:
                    # Once per call: the answer's first bytes, or on to the loop.
                    ready = self._wait_in_place(in_place, deadline)
                    in_place = None
                    if ready:
                        continue
                with anyio.fail_at(deadline):
                    await anyio.wait_readable(sock)
                waited = True
        if frame is CLOSED:
            return None
        assert isinstance(frame, bytes)
        if not waited:
            # An answer already there: still a checkpoint, so a loop of
            # calls lets other tasks run and can be cancelled.
            await anyio.lowlevel.checkpoint()
        return frame

    def _wait_in_place(self, poll: select.poll, deadline: float) -> bool:
        """Whether the socket became readable within ``wait_in_place`` (and
        before ``deadline``), waited for without the loop."""
        ms = min(self._in_place_ms, int((deadline - anyio.current_time()) * 1000))
        return ms > 0 and bool(poll.poll(ms))

    async def _send(self, frame: bytes, deadline: float) -> None:
        # Retried once on a fresh connection, for the reason given in
        # Client._send: an incompletely sent frame was not acted on.
        for attempt in (1, 2):
            if not self._usable():
                with anyio.fail_at(deadline):
                    await self._reconnect()
            sock = self._sock
            assert sock is not None
            try:
                view = memoryview(frame)
                while view:
                    try:
                        view = view[sock.send(view):]
                    except BlockingIOError:
                        with anyio.fail_at(deadline):
                            await anyio.wait_writable(sock)
                return
            except TimeoutError:
                # The deadline, not a broken connection (TimeoutError is an
                # OSError): the caller drops the connection and reports it.
                raise
            except (anyio.BrokenResourceError, anyio.ClosedResourceError, OSError):
                await self.aclose()
                if attempt == 2:
                    raise ConnectionLost(
                        "the connection to memoryd broke while sending; nothing was sent"
                    ) from None
