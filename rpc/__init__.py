"""memoryd's wire layer: framing, dispatch, error mapping, paths and the client.

The public names of ``rpc.paths``, ``rpc.framing``, ``rpc.errors``,
``rpc.client`` and ``rpc.protocol`` are re-exported here; ``__all__`` is the
whole public face (a test keeps it equal to the submodules' ``__all__``).
``rpc.schema`` (per-method params and results) and ``memoryd.memctl.main`` are used as
modules.

The ``rpc.protocol`` and ``rpc.errors`` names load on first use: they pull in jsonrpcserver and,
through it, jsonschema, which cost ``memctl`` (a client, which never
dispatches) a noticeable share of its start-up time.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from memoryd.rpc.client import (
    DEFAULT_MAX_REPLY,
    AsyncClient,
    BadReply,
    Client,
    ConnectError,
    ConnectionLost,
    RpcError,
)
from memoryd.rpc.framing import (
    CLOSED,
    DEFAULT_MAX_FRAME,
    LONG_DIGITS,
    MAX_DEPTH,
    NEED_DATA,
    FrameDecodeError,
    FrameReader,
    FrameTooLarge,
    IncompleteFrame,
    Wait,
    decode_frame,
    encode_frame,
    encode_value,
    has_long_digit_run,
    is_blank,
)
from memoryd.rpc.paths import agent_socket, control_socket, is_loopback_host, resolve_home, run_dir

if TYPE_CHECKING:
    from memoryd.rpc.errors import (
        INTERNAL_ERROR,
        PROTOCOL_ERRORS,
        ConnectionLimit,
        InvalidParams,
        InvalidRequest,
        MethodNotFound,
        ParseError,
        ProtocolError,
        ProtocolErrorRow,
        connection_error_line,
        new_incident_id,
        to_error_object,
    )
    from memoryd.rpc.protocol import (
        DEFAULT_MAX_BATCH,
        CallContext,
        Dispatcher,
        Handler,
        MethodSpec,
        describe,
        param_errors,
        tables,
    )

_LAZY = frozenset(
    {"DEFAULT_MAX_BATCH", "CallContext", "Dispatcher", "Handler", "MethodSpec",
     "describe", "param_errors", "tables"}
)
# rpc.errors loads structlog and the kernel's error table: a client that only
# connects (memctl, the MCP bridge) should not pay for them at start.
_LAZY_ERRORS = frozenset(
    {"ConnectionLimit", "INTERNAL_ERROR", "InvalidParams", "InvalidRequest", "MethodNotFound",
     "PROTOCOL_ERRORS", "ParseError", "ProtocolError", "ProtocolErrorRow",
     "connection_error_line", "new_incident_id", "to_error_object"}
)

__all__ = [
    "CLOSED",
    "DEFAULT_MAX_BATCH",
    "DEFAULT_MAX_FRAME",
    "DEFAULT_MAX_REPLY",
    "INTERNAL_ERROR",
    "LONG_DIGITS",
    "MAX_DEPTH",
    "NEED_DATA",
    "PROTOCOL_ERRORS",
    "AsyncClient",
    "BadReply",
    "CallContext",
    "Client",
    "ConnectError",
    "ConnectionLimit",
    "ConnectionLost",
    "Dispatcher",
    "FrameDecodeError",
    "FrameReader",
    "FrameTooLarge",
    "Handler",
    "IncompleteFrame",
    "InvalidParams",
    "InvalidRequest",
    "MethodNotFound",
    "MethodSpec",
    "ParseError",
    "ProtocolError",
    "ProtocolErrorRow",
    "RpcError",
    "Wait",
    "agent_socket",
    "connection_error_line",
    "control_socket",
    "decode_frame",
    "describe",
    "encode_frame",
    "encode_value",
    "has_long_digit_run",
    "is_blank",
    "is_loopback_host",
    "new_incident_id",
    "param_errors",
    "resolve_home",
    "run_dir",
    "tables",
    "to_error_object",
]


def __getattr__(name: str) -> Any:
    if name in _LAZY_ERRORS:
        value = getattr(importlib.import_module("memoryd.rpc.errors"), name)
        globals()[name] = value
        return value
    if name in _LAZY:
        value = getattr(importlib.import_module("memoryd.rpc.protocol"), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'rpc' has no attribute {name!r}")
