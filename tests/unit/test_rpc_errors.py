"""The one mapping from exceptions to wire errors (SPEC §3, design "Errors")."""

from __future__ import annotations

import re

import msgspec
import pytest
from structlog.testing import capture_logs

from memoryd.kernel.errors import ERRORS, FAMILY_CODES, Conflict, LimitExceeded, MemorydError
from memoryd.rpc.errors import (
    PROTOCOL_ERRORS,
    ConnectionLimit,
    InvalidParams,
    InvalidRequest,
    MethodNotFound,
    ParseError,
    connection_error_line,
    to_error_object,
)

CANARY = "CANARY-body-9c41"


@pytest.mark.parametrize("code", sorted(ERRORS))
def test_every_domain_code_maps_to_its_family_code_and_fixed_texts(code: str) -> None:
    row = ERRORS[code]
    obj = to_error_object(MemorydError.of(code))
    assert obj == {
        "code": FAMILY_CODES[row.family],
        "message": row.message,
        "data": {"code": code, "message": row.message, "recovery": row.recovery},
    }


def test_domain_details_are_passed_on() -> None:
    obj = to_error_object(Conflict("revision_conflict", details={"current_revision": 3}))
    assert obj["code"] == -32002
    assert obj["data"]["details"] == {"current_revision": 3}


def test_batch_too_large_is_the_domain_limit_error() -> None:
    obj = to_error_object(LimitExceeded("batch_too_large"))
    assert obj["code"] == -32005
    assert obj["data"]["code"] == "batch_too_large"


@pytest.mark.parametrize(
    ("exc", "rpc_code", "message", "data_code"),
    [
        (ParseError(), -32700, "Parse error", "parse_error"),
        (InvalidRequest(), -32600, "Invalid Request", "invalid_request"),
        (InvalidRequest("empty_batch"), -32600, "Invalid Request", "empty_batch"),
        (InvalidRequest("frame_too_large"), -32600, "Invalid Request", "frame_too_large"),
        (MethodNotFound(), -32601, "Method not found", "method_not_found"),
        (InvalidParams([]), -32602, "Invalid params", "invalid_params"),
        (ConnectionLimit(), -32005, "Too many connections", "too_many_connections"),
    ],
)
def test_protocol_errors(exc: Exception, rpc_code: int, message: str, data_code: str) -> None:
    obj = to_error_object(exc)
    assert obj["code"] == rpc_code
    assert obj["message"] == message
    assert obj["data"]["code"] == data_code
    assert obj["data"]["message"] == PROTOCOL_ERRORS[data_code].message
    assert obj["data"]["recovery"] == PROTOCOL_ERRORS[data_code].recovery


def test_invalid_params_carries_its_errors() -> None:
    errors = [
        {"path": "$.entry.title", "expected": "str"},
        {"path": "$.entry", "problem": "unknown_field"},
    ]
    assert to_error_object(InvalidParams(errors))["data"]["errors"] == errors


def test_protocol_error_refuses_a_code_of_another_family() -> None:
    with pytest.raises(ValueError, match="not a MethodNotFound"):
        MethodNotFound("parse_error")
    with pytest.raises(ValueError, match="unknown protocol error code"):
        InvalidRequest("no_such_code")


@pytest.mark.parametrize(
    "exc",
    [
        RuntimeError(CANARY),
        KeyError(CANARY),
        ValueError(CANARY),
        AssertionError(CANARY),
        msgspec.ValidationError(CANARY),
        Exception(),
    ],
)
def test_unexpected_errors_are_an_opaque_incident(exc: Exception) -> None:
    with capture_logs() as logs:
        obj = to_error_object(exc)
    assert obj["code"] == -32603
    assert obj["message"] == "Internal error"
    assert list(obj["data"]) == ["incident"]
    assert re.fullmatch(r"inc_[0-9a-f]{16}", obj["data"]["incident"])
    assert CANARY not in repr(obj)
    (entry,) = logs
    assert entry["event"] == "internal_error"
    assert entry["incident"] == obj["data"]["incident"]
    assert entry["exc_type"] == type(exc).__name__


def test_incident_log_has_frames_but_not_the_exception_text() -> None:
    # The body travels in a variable, as it would in real code: the traceback
    # shows source lines, never values.
    body = CANARY

    def fail() -> None:
        try:
            raise KeyError(body)
        except KeyError as inner:
            raise RuntimeError(f"while handling {body}") from inner

    try:
        fail()
    except RuntimeError as exc:
        with capture_logs() as logs:
            to_error_object(exc)
    (entry,) = logs
    assert "exc_info" not in entry
    assert "in fail" in entry["traceback"]
    assert entry["exc_causes"] == ["KeyError"]
    assert CANARY not in repr(entry)


def test_incident_ids_are_unique() -> None:
    with capture_logs():
        ids = {to_error_object(RuntimeError())["data"]["incident"] for _ in range(100)}
    assert len(ids) == 100


def test_a_broken_logger_still_yields_an_incident() -> None:
    class Broken:
        def error(self, event: str, **kw: object) -> None:
            raise OSError("log sink gone")

    obj = to_error_object(RuntimeError(CANARY), log=Broken())
    assert obj["code"] == -32603


@pytest.mark.parametrize(
    ("code", "rpc_code"), [("frame_too_large", -32600), ("too_many_connections", -32005)]
)
def test_connection_error_lines(code: str, rpc_code: int) -> None:
    line = connection_error_line(code)
    assert line.endswith(b"\n") and line.count(b"\n") == 1
    reply = msgspec.json.decode(line)
    assert reply["jsonrpc"] == "2.0"
    assert reply["id"] is None
    assert reply["error"]["code"] == rpc_code
    assert reply["error"]["data"]["code"] == code
