"""Dispatch from frame to reply with a fake method table (SPEC §3)."""

from __future__ import annotations

import enum
import inspect
from pathlib import Path
from typing import Annotated, Any, Literal

import anyio
import msgspec
import msgspec.inspect as mi
import pytest
from hypothesis import given
from hypothesis import strategies as st
from structlog.testing import capture_logs

from memoryd.kernel.errors import Conflict
from memoryd.rpc.framing import MAX_DEPTH
from memoryd.rpc.protocol import (
    CallContext,
    Dispatcher,
    MethodSpec,
    _wrap,
    describe,
    param_errors,
    tables,
)
from tests.corpora import corpus_files

CTX = CallContext(channel="agent", peer_uid=1000, peer_pid=42, conn_id="conn_test")
CANARY = "CANARY-d41d8c"


class Basis(msgspec.Struct, forbid_unknown_fields=True, kw_only=True, frozen=True):
    kind: Literal["human", "observed", "derived", "unknown"]
    note: str = ""


class Entry(msgspec.Struct, forbid_unknown_fields=True, kw_only=True, frozen=True):
    type: Literal["fact", "lesson"]
    title: Annotated[str, msgspec.Meta(min_length=1, max_length=200)]
    body: str
    basis: Basis | None = None


class Archive(
    msgspec.Struct,
    tag="archive",
    tag_field="action",
    forbid_unknown_fields=True,
    kw_only=True,
    frozen=True,
):
    id: str


class Add(
    msgspec.Struct,
    tag="add",
    tag_field="action",
    forbid_unknown_fields=True,
    kw_only=True,
    frozen=True,
):
    entry: Entry


class WriteParams(msgspec.Struct, forbid_unknown_fields=True, kw_only=True, frozen=True):
    target: Literal["memory", "user"]
    entry: Entry | None = None
    ops: Annotated[list[Add | Archive], msgspec.Meta(max_length=3)] = []
    revision: Annotated[int, msgspec.Meta(ge=1)] | None = None


class EchoParams(msgspec.Struct, forbid_unknown_fields=True, kw_only=True, frozen=True):
    value: Any = None


class Empty(msgspec.Struct, forbid_unknown_fields=True, frozen=True):
    pass


class Range(msgspec.Struct, forbid_unknown_fields=True, kw_only=True, frozen=True):
    low: int
    high: int

    def __post_init__(self) -> None:
        if self.low > self.high:
            raise ValueError(f"low {self.low} above high {CANARY}")


class Result(msgspec.Struct, frozen=True):
    ok: bool
    target: str


calls: list[tuple[str, Any]] = []


async def write(ctx: CallContext, params: WriteParams) -> Result:
    calls.append(("write", params))
    return Result(ok=True, target=params.target)


async def echo(ctx: CallContext, params: EchoParams) -> Any:
    calls.append(("echo", params))
    return params.value


async def whoami(ctx: CallContext, params: Empty) -> dict[str, Any]:
    return {"channel": ctx.channel, "uid": ctx.peer_uid, "conn": ctx.conn_id}


async def crash(ctx: CallContext, params: Empty) -> None:
    raise RuntimeError(f"store failed on body {CANARY}")


async def conflict(ctx: CallContext, params: Empty) -> None:
    raise Conflict("revision_conflict", details={"current_revision": 4})


async def unencodable(ctx: CallContext, params: Empty) -> object:
    return object()


async def span(ctx: CallContext, params: Range) -> int:
    return params.high - params.low


METHODS = {
    spec.name: spec
    for spec in (
        MethodSpec("memory.write", WriteParams, write),
        MethodSpec("echo", EchoParams, echo),
        MethodSpec("whoami", Empty, whoami),
        MethodSpec("crash", Empty, crash),
        MethodSpec("conflict", Empty, conflict),
        MethodSpec("unencodable", Empty, unencodable),
        MethodSpec("span", Range, span),
    )
}
DISPATCHER = Dispatcher(METHODS, max_batch=5)


@pytest.fixture(autouse=True)
def _reset_calls() -> None:
    calls.clear()


def raw(frame: bytes, dispatcher: Dispatcher = DISPATCHER) -> bytes | None:
    with capture_logs():
        return anyio.run(dispatcher.handle_frame, frame, CTX)


def send(frame: Any) -> Any:
    """Send ``frame`` (bytes as they are, anything else JSON-encoded)."""
    if not isinstance(frame, bytes):
        frame = msgspec.json.encode(frame)
    reply = raw(frame)
    if reply is None:
        return None
    assert not reply.endswith(b"\n")
    return msgspec.json.decode(reply)


def req(method: str, params: Any = None, id_: Any = 1) -> dict[str, Any]:
    frame: dict[str, Any] = {"jsonrpc": "2.0", "method": method}
    if params is not None:
        frame["params"] = params
    if id_ is not ...:
        frame["id"] = id_
    return frame


def error_of(reply: Any) -> tuple[int, str | None]:
    error = reply["error"]
    return error["code"], (error.get("data") or {}).get("code")


# --- success and context ---------------------------------------------------


def test_a_call_returns_the_encoded_struct_result() -> None:
    reply = send(req("memory.write", {"target": "memory"}, 7))
    assert reply == {"jsonrpc": "2.0", "result": {"ok": True, "target": "memory"}, "id": 7}
    assert calls == [("write", WriteParams(target="memory"))]


@pytest.mark.parametrize("id_", [0, -3, 2**63 - 1, "abc", "", None])
def test_ids_are_echoed_as_sent(id_: Any) -> None:
    assert send(req("echo", {"value": 1}, id_))["id"] == id_


def test_absent_params_are_an_empty_object() -> None:
    assert send(req("whoami")) == {
        "jsonrpc": "2.0",
        "result": {"channel": "agent", "uid": 1000, "conn": "conn_test"},
        "id": 1,
    }


def test_null_result_is_a_result() -> None:
    assert send(req("echo", {}))["result"] is None


# --- parse errors ------------------------------------------------------------


@pytest.mark.parametrize(
    ("frame", "reason"),
    [
        (b'{"jsonrpc":"2.0","method":"echo","params":{"value":NaN},"id":1}', "malformed"),
        (b'{"jsonrpc":"2.0","method":"echo","params":{"value":Infinity},"id":1}', "malformed"),
        (b'{"jsonrpc":"2.0","method":"echo","id":1', "malformed"),
        (b" ", "malformed"),
        (b'{"jsonrpc":"2.0","method":"echo","params":{"value":"\xc3\x28"},"id":1}', "invalid_utf8"),
        (
            b'{"jsonrpc":"2.0","method":"echo","params":{"value":1e999},"id":1}',
            "number_out_of_range",
        ),
        (
            b'{"jsonrpc":"2.0","method":"echo","params":{"value":99999999999999999999},"id":1}',
            "number_out_of_range",
        ),
        (
            b'{"jsonrpc":"2.0","method":"echo","params":{"value":'
            + b"[" * MAX_DEPTH
            + b"]" * MAX_DEPTH
            + b'},"id":1}',
            "too_deep",
        ),
    ],
)
def test_parse_errors_answer_with_id_null(frame: bytes, reason: str) -> None:
    reply = send(frame)
    assert reply["id"] is None
    assert reply["error"]["code"] == -32700
    assert reply["error"]["message"] == "Parse error"
    assert reply["error"]["data"]["code"] == "parse_error"
    assert reply["error"]["data"]["details"] == {"reason": reason}
    assert calls == []


def test_empty_lines_are_ignored() -> None:
    assert raw(b"") is None
    assert raw(b"\r") is None


# --- invalid requests --------------------------------------------------------


@pytest.mark.parametrize(
    "frame",
    [
        1,
        "echo",
        None,
        True,
        {},
        {"method": "echo", "id": 1},
        {"jsonrpc": "1.0", "method": "echo", "id": 1},
        {"jsonrpc": 2.0, "method": "echo", "id": 1},
        {"jsonrpc": "2.0", "id": 1},
        {"jsonrpc": "2.0", "method": 5, "id": 1},
        {"jsonrpc": "2.0", "method": "echo", "params": None, "id": 1},
        {"jsonrpc": "2.0", "method": "echo", "params": "x", "id": 1},
        {"jsonrpc": "2.0", "method": "echo", "params": 3, "id": 1},
        {"jsonrpc": "2.0", "method": "echo", "id": 1.5},
        {"jsonrpc": "2.0", "method": "echo", "id": True},
        {"jsonrpc": "2.0", "method": "echo", "id": [1]},
        {"jsonrpc": "2.0", "method": "echo", "id": {"a": 1}},
        {"jsonrpc": "2.0", "method": "echo", "id": 1, "extra": 1},
    ],
)
def test_non_requests_are_invalid_request_with_id_null(frame: Any) -> None:
    reply = send(frame)
    assert error_of(reply) == (-32600, "invalid_request")
    assert reply["error"]["message"] == "Invalid Request"
    assert reply["id"] is None
    assert calls == []


# --- methods and params ------------------------------------------------------


def test_unknown_method_is_32601_without_echoing_the_name() -> None:
    reply = send(req(CANARY, {}, 3))
    assert error_of(reply) == (-32601, "method_not_found")
    assert reply["id"] == 3
    assert CANARY not in msgspec.json.encode(reply).decode()


def test_method_names_are_exact() -> None:
    assert error_of(send(req("Echo", {})))[0] == -32601
    assert error_of(send(req("echo ", {})))[0] == -32601


def test_positional_params_are_invalid_params() -> None:
    reply = send(req("echo", [1, 2], 4))
    assert error_of(reply) == (-32602, "invalid_params")
    assert reply["error"]["data"]["errors"] == [{"path": "$", "expected": "object"}]
    assert reply["id"] == 4
    assert calls == []


def test_invalid_params_lists_every_bad_field() -> None:
    params = {
        "target": "elsewhere",
        "entry": {"type": "fact", "title": "", "basis": {"kind": 3}, "extra": 1},
        "ops": [
            {"action": "add", "entry": {"type": "tip", "title": "t", "body": "b"}},
            {"action": "archive"},
            {"action": "explode"},
        ],
        "revision": 0,
        "surprise": True,
    }
    reply = send(req("memory.write", params, 9))
    assert error_of(reply) == (-32602, "invalid_params")
    assert reply["id"] == 9
    assert reply["error"]["data"]["errors"] == [
        {"path": "$", "problem": "unknown_field"},
        {"path": "$.target", "expected": '"memory" | "user"'},
        {"path": "$.entry", "problem": "unknown_field"},
        {"path": "$.entry.title", "expected": "str, length 1..200"},
        {"path": "$.entry.body", "problem": "missing_field", "expected": "str"},
        {"path": "$.entry.basis.kind", "expected": '"derived" | "human" | "observed" | "unknown"'},
        {"path": "$.ops[0].entry.type", "expected": '"fact" | "lesson"'},
        {"path": "$.ops[1].id", "problem": "missing_field", "expected": "str"},
        {"path": "$.ops[2]", "expected": 'object with action "add" | object with action "archive"'},
        {"path": "$.revision", "expected": "int, >= 1 | null"},
    ]
    assert calls == []


def test_too_many_items_names_the_array_limit() -> None:
    ops = [{"action": "archive", "id": "x"}] * 4
    reply = send(req("memory.write", {"target": "user", "ops": ops}))
    assert reply["error"]["data"]["errors"] == [
        {
            "path": "$.ops",
            "expected": 'array of (object with action "add" | object with action "archive"),'
            " <= 3 items",
        },
    ]


def test_wrong_type_for_a_whole_nested_object() -> None:
    reply = send(req("memory.write", {"target": "user", "entry": "text"}))
    assert reply["error"]["data"]["errors"] == [{"path": "$.entry", "expected": "object | null"}]


def test_missing_required_top_level_field() -> None:
    reply = send(req("memory.write", {}))
    assert reply["error"]["data"]["errors"] == [
        {"path": "$.target", "problem": "missing_field", "expected": '"memory" | "user"'},
    ]


def test_cross_field_rule_is_reported_without_its_message() -> None:
    reply = send(req("span", {"low": 5, "high": 1}))
    assert reply["error"]["data"]["errors"] == [{"path": "$", "problem": "invalid"}]
    assert CANARY not in msgspec.json.encode(reply).decode()
    assert send(req("span", {"low": 1, "high": 5}))["result"] == 4


def test_param_errors_never_contain_values() -> None:
    errors = param_errors({"target": CANARY, CANARY: CANARY, "entry": {CANARY: 1}}, WriteParams)
    assert CANARY not in repr(errors)


# --- handler failures --------------------------------------------------------


def test_domain_errors_keep_their_code_and_details() -> None:
    reply = send(req("conflict", {}, 5))
    assert reply["id"] == 5
    assert reply["error"]["code"] == -32002
    assert reply["error"]["data"]["code"] == "revision_conflict"
    assert reply["error"]["data"]["details"] == {"current_revision": 4}


def test_unexpected_failure_is_an_opaque_incident_and_logged() -> None:
    frame = msgspec.json.encode(req("crash", {}, 6))
    with capture_logs() as logs:
        reply_bytes = anyio.run(DISPATCHER.handle_frame, frame, CTX)
    assert reply_bytes is not None
    reply = msgspec.json.decode(reply_bytes)
    assert reply["id"] == 6
    assert reply["error"]["code"] == -32603
    assert reply["error"]["message"] == "Internal error"
    assert list(reply["error"]["data"]) == ["incident"]
    assert CANARY not in reply_bytes.decode()
    (entry,) = logs
    assert entry["incident"] == reply["error"]["data"]["incident"]
    assert entry["exc_type"] == "RuntimeError"
    assert CANARY not in repr(entry)


def test_unencodable_result_is_an_incident() -> None:
    reply = send(req("unencodable", {}, 8))
    assert reply["error"]["code"] == -32603
    assert reply["id"] == 8


# --- notifications -----------------------------------------------------------


def test_notifications_run_but_get_no_answer() -> None:
    assert send(req("echo", {"value": 1}, ...)) is None
    assert calls == [("echo", EchoParams(value=1))]


@pytest.mark.parametrize(
    "frame",
    [
        req("crash", {}, ...),
        req("nope", {}, ...),
        req("echo", [1], ...),
        req("echo", {"bad": 1}, ...),
    ],
)
def test_failing_notifications_get_no_answer(frame: Any) -> None:
    assert send(frame) is None


# --- batches -----------------------------------------------------------------


def test_batch_answers_in_request_order_without_notifications() -> None:
    reply = send(
        [
            req("echo", {"value": "a"}, 1),
            req("echo", {"value": "n"}, ...),
            5,
            req("nope", {}, "x"),
            req("echo", {"value": "b"}, 2),
        ]
    )
    assert reply == [
        {"jsonrpc": "2.0", "result": "a", "id": 1},
        {"jsonrpc": "2.0", "error": reply[1]["error"], "id": None},
        {"jsonrpc": "2.0", "error": reply[2]["error"], "id": "x"},
        {"jsonrpc": "2.0", "result": "b", "id": 2},
    ]
    assert error_of(reply[1]) == (-32600, "invalid_request")
    assert error_of(reply[2]) == (-32601, "method_not_found")
    assert [c[1].value for c in calls] == ["a", "n", "b"]


def test_each_invalid_batch_element_gets_its_own_error() -> None:
    reply = send([1, 2, 3])
    assert [error_of(r) for r in reply] == [(-32600, "invalid_request")] * 3


def test_batch_of_notifications_gets_no_answer() -> None:
    assert send([req("echo", {"value": 1}, ...), req("echo", {"value": 2}, ...)]) is None
    assert len(calls) == 2


def test_empty_batch_is_one_invalid_request() -> None:
    reply = send([])
    assert isinstance(reply, dict)
    assert error_of(reply) == (-32600, "empty_batch")
    assert reply["id"] is None


def test_batch_at_the_limit_is_served() -> None:
    reply = send([req("echo", {"value": i}, i) for i in range(5)])
    assert [r["result"] for r in reply] == list(range(5))


def test_batch_over_the_limit_is_one_error_and_runs_nothing() -> None:
    reply = send([req("echo", {"value": i}, i) for i in range(6)])
    assert isinstance(reply, dict)
    assert error_of(reply) == (-32005, "batch_too_large")
    assert reply["error"]["data"]["details"] == {"max_batch": 5}
    assert reply["id"] is None
    assert calls == []


def test_default_batch_limit_is_50() -> None:
    dispatcher = Dispatcher(METHODS)
    many = msgspec.json.encode([req("whoami", {}, i) for i in range(51)])
    assert error_of(msgspec.json.decode(raw(many, dispatcher) or b""))[1] == "batch_too_large"
    fifty = msgspec.json.encode([req("whoami", {}, i) for i in range(50)])
    assert len(msgspec.json.decode(raw(fifty, dispatcher) or b"")) == 50


def test_nested_batch_is_an_invalid_element() -> None:
    reply = send([[req("echo", {}, 1)]])
    assert [error_of(r) for r in reply] == [(-32600, "invalid_request")]


# --- table construction --------------------------------------------------------


def test_table_key_must_match_the_spec_name() -> None:
    with pytest.raises(ValueError, match="spec name"):
        Dispatcher({"a": MethodSpec("b", Empty, whoami)})


def test_params_must_be_a_struct() -> None:
    with pytest.raises(TypeError, match="msgspec Struct"):
        Dispatcher({"a": MethodSpec("a", dict, whoami)})  # type: ignore[arg-type]


def test_a_handler_answering_another_shape_than_declared_is_an_incident() -> None:
    # A result Struct is a promise about the wire: a dict (or another Struct)
    # in its place must not reach the client as an undeclared shape.
    dispatcher = Dispatcher(
        {
            "declared": MethodSpec("declared", WriteParams, write, Result),
            "drifted": MethodSpec("drifted", Empty, whoami, Result),
        }
    )
    good = raw(msgspec.json.encode(req("declared", {"target": "memory"})), dispatcher)
    assert good is not None and "result" in msgspec.json.decode(good)
    with capture_logs():
        bad = msgspec.json.decode(raw(msgspec.json.encode(req("drifted", {})), dispatcher) or b"")
    assert bad["error"]["code"] == -32603
    assert list(bad["error"]["data"]) == ["incident"]


def test_an_enum_is_described_like_the_literal_of_its_values() -> None:
    class Colour(enum.StrEnum):
        RED = "red"
        BLUE = "blue"

    assert describe(mi.type_info(Colour)) == describe(mi.type_info(Literal["red", "blue"]))
    assert describe(mi.type_info(Colour)) == '"blue" | "red"'


def test_tables_serve_agent_methods_on_both_sockets_and_the_rest_on_control_only() -> None:
    agent, control = tables(
        [MethodSpec("whoami", Empty, whoami, on_agent=True), MethodSpec("crash", Empty, crash)]
    )
    assert agent.methods == frozenset({"whoami"})
    assert control.methods == frozenset({"whoami", "crash"})


def test_a_method_declared_twice_is_refused() -> None:
    with pytest.raises(ValueError, match="declared twice"):
        tables([MethodSpec("whoami", Empty, whoami), MethodSpec("whoami", Empty, crash)])


def test_empty_table_answers_method_not_found() -> None:
    reply = raw(b'{"jsonrpc":"2.0","method":"echo","id":1}', Dispatcher({}))
    assert reply is not None
    assert error_of(msgspec.json.decode(reply))[0] == -32601


# --- nothing a client sends comes back, except where a method echoes it ------


CANARY_FRAMES: list[bytes] = [
    msgspec.json.encode(frame)
    for frame in (
        req(CANARY, {}),
        req(f"memory.write{CANARY}", {"target": "user"}),
        req("memory.write", {"target": CANARY}),
        req("memory.write", {CANARY: 1, "target": "user"}),
        req("memory.write", {"target": "user", "entry": {CANARY: CANARY}}),
        req("memory.write", {"target": "user", "entry": {"type": CANARY, "title": CANARY}}),
        req("memory.write", {"target": "user", "ops": [{"action": CANARY}]}),
        req("memory.write", {"target": "user", "revision": CANARY}),
        req("span", {"low": 9, "high": 1}),
        req("crash", {}),
        {"jsonrpc": CANARY, "method": "echo", "id": 1},
        {"jsonrpc": "2.0", "method": "echo", "id": 1, CANARY: 1},
        {"jsonrpc": "2.0", "method": "echo", "params": CANARY, "id": 1},
        {"jsonrpc": "2.0", "method": "echo", "id": [CANARY]},
        [req(CANARY, {}), CANARY, {CANARY: CANARY}],
    )
] + [
    b'{"jsonrpc":"2.0","method":"' + CANARY.encode() + b'","id":1,',
    b'["' + CANARY.encode() + b'", NaN]',
    b'{"' + CANARY.encode() + b'": "\xff"}',
    b'{"jsonrpc":"2.0","method":"echo","params":{"value":"' + CANARY.encode() + b'"},"id":1e999}',
    b'["' + CANARY.encode() + b'",' + b"[" * 100 + b"]" * 100 + b"]",
    b'"' + CANARY.encode() + b'"',
]


@pytest.mark.parametrize("frame", CANARY_FRAMES)
def test_no_reply_echoes_client_data(frame: bytes) -> None:
    with capture_logs() as logs:
        reply = anyio.run(DISPATCHER.handle_frame, frame, CTX)
    assert reply is not None
    assert CANARY.encode() not in reply
    assert CANARY not in repr(logs)


def test_a_success_result_may_echo_legitimately() -> None:
    assert send(req("echo", {"value": CANARY}))["result"] == CANARY


# --- the JSONTestSuite corpus --------------------------------------------------


def _codes(reply: bytes | None) -> set[int]:
    if reply is None:
        return set()
    value = msgspec.json.decode(reply)
    items = value if isinstance(value, list) else [value]
    return {item["error"]["code"] for item in items}


def test_corpus_is_present_and_complete() -> None:
    assert len(corpus_files("n_")) > 150 and len(corpus_files("y_")) > 90


@pytest.mark.parametrize("path", corpus_files("n_"), ids=lambda p: p.name)
def test_corpus_rejects(path: Path) -> None:
    data = path.read_bytes()
    reply = raw(data)
    if data == b"":
        # An empty line is not a frame (rpc/framing.py); it is ignored, not
        # answered, which is neither success nor an internal error.
        assert reply is None
        return
    assert _codes(reply) in ({-32700}, {-32600})


@pytest.mark.parametrize("path", corpus_files("y_"), ids=lambda p: p.name)
def test_corpus_accepts_valid_json_as_a_non_request(path: Path) -> None:
    assert _codes(raw(path.read_bytes())) == {-32600}


@pytest.mark.parametrize("path", corpus_files("i_"), ids=lambda p: p.name)
def test_corpus_implementation_defined_never_fails_internally(path: Path) -> None:
    codes = _codes(raw(path.read_bytes()))
    assert codes and codes <= {-32700, -32600}


# --- the methods' signature --------------------------------------------------

_ARG = st.one_of(
    st.none(),
    st.integers(),
    st.text(max_size=3),
    st.dictionaries(st.text(max_size=3), st.integers(), max_size=2),
)


@given(
    args=st.lists(_ARG, max_size=4),
    kwargs=st.dictionaries(st.sampled_from(["ctx", "raw", "other"]), _ARG, max_size=2),
)
def test_a_methods_stated_signature_binds_as_its_code_does(
    args: list[Any], kwargs: dict[str, Any]
) -> None:
    # jsonrpcserver checks every call with inspect.signature(method).bind;
    # the signature a method states must bind, or refuse, exactly as the one
    # derived from its code.
    method = _wrap(MethodSpec("echo", Range, span))
    fast = inspect.signature(method)
    del method.__signature__  # type: ignore[attr-defined]
    slow = inspect.signature(method)
    assert type(fast) is inspect.Signature
    try:
        expected = slow.bind(*args, **kwargs)
    except TypeError:
        with pytest.raises(TypeError):
            fast.bind(*args, **kwargs)
        return
    got = fast.bind(*args, **kwargs)
    assert got.arguments == expected.arguments
    assert list(got.arguments) == list(expected.arguments)
    assert (got.args, got.kwargs) == (expected.args, expected.kwargs)
    assert got.signature is fast
    assert got.signature == expected.signature
