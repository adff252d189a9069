"""The one place where exceptions become JSON-RPC error objects.

Owns the protocol error table (``-32700``, ``-32600``, ``-32601``,
``-32602``) and ``to_error_object``, the mapping from any exception to the
``error`` member of a reply. Domain errors come from ``kernel/errors.py``.

Invariants:
- every error object is ``{code, message, data}``; ``data`` is
  ``{code, message, recovery, details?}`` (plus ``errors`` for invalid
  params) for known errors and ``{incident}`` alone for anything else;
- messages and recoveries are fixed strings from a table; ``details`` and
  ``errors`` carry only what the raiser put there (field paths, type names,
  limits), never a value a client sent;
- an unexpected exception's text never leaves this module: not on the wire,
  not in the log (exception text can hold memory bodies, and SPEC §2 keeps
  those out of logs). The log gets its type, the types of its causes and the
  traceback's frames, under an opaque incident id the caller can quote.
"""

from __future__ import annotations

import contextlib
import secrets
import traceback
from dataclasses import dataclass
from typing import Any, ClassVar, Final, Protocol

import structlog

from memoryd.kernel.errors import MemorydError
from memoryd.rpc.framing import encode_frame

__all__ = [
    "INTERNAL_ERROR",
    "PROTOCOL_ERRORS",
    "ConnectionLimit",
    "InvalidParams",
    "InvalidRequest",
    "MethodNotFound",
    "ParseError",
    "ProtocolError",
    "ProtocolErrorRow",
    "connection_error_line",
    "new_incident_id",
    "to_error_object",
]

INTERNAL_ERROR: Final = -32603


@dataclass(frozen=True, slots=True)
class ProtocolErrorRow:
    rpc_code: int
    message: str
    recovery: str


# One row per protocol data.code. The top-level "message" of each family is
# the JSON-RPC 2.0 standard one (ProtocolError.rpc_message); these rows are
# the specific sentence and what to do about it.
PROTOCOL_ERRORS: Final[dict[str, ProtocolErrorRow]] = {
    "parse_error": ProtocolErrorRow(
        -32700, "the frame is not valid JSON",
        "send one strict RFC 8259 JSON value per line, UTF-8 encoded",
    ),
    "invalid_request": ProtocolErrorRow(
        -32600, "the message is not a valid JSON-RPC 2.0 request",
        'send {"jsonrpc": "2.0", "method": ..., "params": {...}, "id": ...}',
    ),
    "empty_batch": ProtocolErrorRow(
        -32600, "the batch is empty",
        "send at least one request in a batch, or send a single request",
    ),
    "frame_too_large": ProtocolErrorRow(
        -32600, "the frame is larger than the limit; the connection is closed",
        "send smaller requests (split batches), then reconnect",
    ),
    "too_many_connections": ProtocolErrorRow(
        -32005, "this socket has too many open connections; the connection is closed",
        "close idle connections or retry later",
    ),
    "method_not_found": ProtocolErrorRow(
        -32601, "no such method on this socket",
        "check the method name; operator methods exist only on control.sock",
    ),
    "invalid_params": ProtocolErrorRow(
        -32602, "the params do not match the method's schema",
        "fix the fields listed in data.errors and retry",
    ),
}


class ProtocolError(Exception):
    """A request the protocol layer refuses before (or instead of) a handler.

    ``code`` is the ``data.code``; ``details`` holds safe extra facts (limits,
    counts); the class fixes the JSON-RPC code and the standard message.
    """

    rpc_code: ClassVar[int]
    rpc_message: ClassVar[str]
    default_code: ClassVar[str]

    def __init__(self, code: str | None = None, *, details: dict[str, Any] | None = None,
                 message: str | None = None) -> None:
        code = code or self.default_code
        row = PROTOCOL_ERRORS.get(code)
        if row is None:
            raise ValueError(f"unknown protocol error code {code!r}")
        if row.rpc_code != self.rpc_code:
            raise ValueError(f"{code!r} is not a {type(self).__name__}")
        self.code = code
        # ``message`` lets framing pass its own fixed category sentence; it
        # must come from a table, never from input.
        self.message = message or row.message
        self.recovery = row.recovery
        self.details = details
        super().__init__(self.message)

    def data(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "code": self.code, "message": self.message, "recovery": self.recovery,
        }
        if self.details:
            data["details"] = self.details
        return data


class ParseError(ProtocolError):
    rpc_code = -32700
    rpc_message = "Parse error"
    default_code = "parse_error"


class InvalidRequest(ProtocolError):
    rpc_code = -32600
    rpc_message = "Invalid Request"
    default_code = "invalid_request"


class MethodNotFound(ProtocolError):
    rpc_code = -32601
    rpc_message = "Method not found"
    default_code = "method_not_found"


class InvalidParams(ProtocolError):
    """``errors`` lists each bad field as ``{"path", "expected"}`` or
    ``{"path", "problem"}`` (both when a required field is missing)."""

    rpc_code = -32602
    rpc_message = "Invalid params"
    default_code = "invalid_params"

    def __init__(self, errors: list[dict[str, str]], *,
                 details: dict[str, Any] | None = None) -> None:
        super().__init__(details=details)
        self.errors = errors

    def data(self) -> dict[str, Any]:
        data = super().data()
        data["errors"] = self.errors
        return data


class ConnectionLimit(ProtocolError):
    """Said once, just before the server closes a connection over its cap.

    -32005 is the limit family of SPEC §3; the code lives here rather than in
    the kernel's table because it is about sockets, not memory."""

    rpc_code = -32005
    rpc_message = "Too many connections"
    default_code = "too_many_connections"


# Errors that end a connection: the server writes the line, then closes.
_CONNECTION_ERRORS: Final[dict[str, type[ProtocolError]]] = {
    "frame_too_large": InvalidRequest,
    "too_many_connections": ConnectionLimit,
}


def connection_error_line(code: str, *, details: dict[str, Any] | None = None) -> bytes:
    """The whole reply line (with its newline) a server sends before closing a
    connection for ``frame_too_large`` or ``too_many_connections``; id null,
    since no request was read."""
    exc = _CONNECTION_ERRORS[code](code, details=details)
    return encode_frame(
        {"jsonrpc": "2.0", "error": to_error_object(exc), "id": None}
    )


class _Log(Protocol):
    def error(self, event: str, **kw: Any) -> Any: ...


def new_incident_id() -> str:
    """An opaque id that links a ``-32603`` reply to one daemon log line."""
    return "inc_" + secrets.token_hex(8)


def to_error_object(exc: BaseException, *, log: _Log | None = None) -> dict[str, Any]:
    """Map ``exc`` to the ``error`` member of a JSON-RPC reply.

    Domain and protocol errors map to their table rows; anything else is
    ``-32603`` with a fresh incident id, logged through ``log`` (default:
    ``structlog.get_logger()``).
    """
    if isinstance(exc, MemorydError):
        data: dict[str, Any] = {
            "code": exc.code, "message": exc.message, "recovery": exc.recovery,
        }
        if exc.details:
            data["details"] = exc.details
        return {"code": exc.rpc_code, "message": exc.message, "data": data}
    if isinstance(exc, ProtocolError):
        return {"code": exc.rpc_code, "message": exc.rpc_message, "data": exc.data()}
    incident = new_incident_id()
    _log_internal(exc, incident, log)
    return {"code": INTERNAL_ERROR, "message": "Internal error", "data": {"incident": incident}}


def _log_internal(exc: BaseException, incident: str, log: _Log | None) -> None:
    # Deliberately no exc_info: structlog would render str(exc). The frames
    # (file, line, function, source line) locate the bug without any data.
    causes: list[str] = []
    seen = {id(exc)}
    link = exc.__cause__ or exc.__context__
    while link is not None and id(link) not in seen:
        seen.add(id(link))
        causes.append(type(link).__name__)
        link = link.__cause__ or link.__context__
    # A broken log sink must not turn an error reply into a crash (or let a
    # caller fall back to str(exc)); the incident id still reaches the client.
    with contextlib.suppress(Exception):
        (log or structlog.get_logger()).error(
            "internal_error",
            incident=incident,
            exc_type=type(exc).__name__,
            exc_causes=causes,
            traceback="".join(traceback.format_tb(exc.__traceback__)),
        )
