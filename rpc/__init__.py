"""memoryd's wire layer: framing, dispatch, error mapping, paths and the client.

The public names of ``rpc.paths``, ``rpc.framing``, ``rpc.errors``,
``rpc.client`` and ``rpc.protocol`` are re-exported here; ``__all__`` is the
whole public face (a test keeps it equal to the submodules' ``__all__``).
``rpc.schema`` (per-method params and results) is used as a module.

Every name loads on first use: ``rpc.protocol`` pulls in jsonrpcserver and,
through it, jsonschema, and ``rpc.errors`` structlog and the kernel's error
table, which a client that only connects (``memctl``, the MCP bridge) never
needs and should not pay for at start.
"""

from __future__ import annotations

import importlib
from typing import Any, Final

_NAMES: Final = {
    "memoryd.rpc.client": ("DEFAULT_MAX_REPLY", "AsyncClient", "BadReply", "Client",
                           "ConnectError", "ConnectionLost", "RpcError"),
    "memoryd.rpc.errors": ("INTERNAL_ERROR", "PROTOCOL_ERRORS", "ConnectionLimit",
                           "InvalidParams", "InvalidRequest", "MethodNotFound", "ParseError",
                           "ProtocolError", "ProtocolErrorRow", "connection_error_line",
                           "new_incident_id", "to_error_object"),
    "memoryd.rpc.framing": ("CLOSED", "DEFAULT_MAX_FRAME", "LONG_DIGITS", "MAX_DEPTH",
                            "NEED_DATA", "FrameDecodeError", "FrameReader", "FrameTooLarge",
                            "IncompleteFrame", "Wait", "decode_frame", "encode_frame",
                            "encode_value", "has_long_digit_run", "is_blank"),
    "memoryd.rpc.paths": ("agent_socket", "control_socket", "is_loopback_host", "resolve_home",
                          "run_dir"),
    "memoryd.rpc.protocol": ("DEFAULT_MAX_BATCH", "CallContext", "Dispatcher", "Handler",
                             "MethodSpec", "describe", "param_errors", "tables"),
}
_MODULE_OF: Final = {name: module for module, names in _NAMES.items() for name in names}

__all__ = sorted(_MODULE_OF)


def __getattr__(name: str) -> Any:
    module = _MODULE_OF.get(name)
    if module is None:
        raise AttributeError(f"module 'rpc' has no attribute {name!r}")
    value = globals()[name] = getattr(importlib.import_module(module), name)
    return value
