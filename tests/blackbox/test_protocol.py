"""SPEC §3 over the real sockets, with raw bytes: every protocol error path.

One daemon serves the whole module (a small ``max_frame_bytes`` keeps the
oversized-frame cases cheap). Every error case ends by showing that the same
connection still answers, except ``frame_too_large``, which closes it.
"""

from __future__ import annotations

import json
import secrets
import socket
from collections.abc import Iterator
from typing import Any

import pytest

from memoryd.rpc.client import Client
from tests.harness import Daemon, running

MAX_FRAME = 4096
STATUS = b'{"jsonrpc":"2.0","method":"memory.status","params":{},"id":"after"}'


@pytest.fixture(scope="module")
def daemon() -> Iterator[Daemon]:
    with running(config=f"max_frame_bytes = {MAX_FRAME}\n") as d:
        yield d


@pytest.fixture
def control(daemon: Daemon) -> Iterator[Client]:
    with daemon.control(timeout=10) as c:
        yield c


@pytest.fixture
def agent(daemon: Daemon) -> Iterator[Client]:
    with daemon.agent(timeout=10) as c:
        yield c


def _reply(client: Client, line: bytes) -> Any:
    raw = client.send_raw(line)
    assert raw is not None, "the daemon closed the connection instead of answering"
    return json.loads(raw)


def _still_serves(client: Client) -> None:
    reply = _reply(client, STATUS)
    assert reply["id"] == "after"
    assert "result" in reply


def _closed_by_peer(sock: socket.socket) -> bool:
    """True once the daemon has closed ``sock``. Linux reports a close with
    unread bytes still queued (the rest of an oversized frame) as a reset."""
    sock.settimeout(10)
    try:
        return sock.recv(1) == b""
    except ConnectionResetError:
        return True


def _error(reply: Any, code: int, data_code: str | None = None) -> dict[str, Any]:
    assert reply["jsonrpc"] == "2.0"
    assert "result" not in reply
    error = reply["error"]
    assert error["code"] == code
    if data_code is not None:
        assert error["data"]["code"] == data_code
        assert error["data"]["recovery"]
    return dict(error)


def _request(method: str, params: Any = None, id_: Any = 1) -> dict[str, Any]:
    req: dict[str, Any] = {"jsonrpc": "2.0", "method": method, "id": id_}
    if params is not None:
        req["params"] = params
    return req


def _line(value: Any) -> bytes:
    return json.dumps(value, separators=(",", ":")).encode()


# --- parse errors ------------------------------------------------------------


@pytest.mark.parametrize(
    "line",
    [
        b'{"jsonrpc": "2.0", "method": ',
        b"not json at all",
        b"{'single': 'quotes'}",
        b'{"jsonrpc":"2.0","method":"memory.status","id":1} trailing',
        b"   ",
    ],
)
def test_malformed_json_is_a_parse_error_and_the_connection_stays(
    control: Client, line: bytes
) -> None:
    reply = _reply(control, line)
    _error(reply, -32700, "parse_error")
    assert reply["id"] is None
    _still_serves(control)


@pytest.mark.parametrize("literal", [b"NaN", b"Infinity", b"-Infinity", b"nan", b"1e999"])
def test_non_finite_numbers_are_refused_as_parse_errors(control: Client, literal: bytes) -> None:
    line = b'{"jsonrpc":"2.0","method":"memory.status","params":{"x":' + literal + b'},"id":1}'
    _error(_reply(control, line), -32700, "parse_error")
    _still_serves(control)


def test_nesting_deeper_than_the_limit_is_refused(control: Client) -> None:
    deep = b"[" * 200 + b"]" * 200
    line = b'{"jsonrpc":"2.0","method":"memory.status","params":{"x":' + deep + b'},"id":1}'
    error = _error(_reply(control, line), -32700, "parse_error")
    assert error["data"]["details"]["reason"] == "too_deep"
    _still_serves(control)


def test_nesting_within_the_limit_reaches_params_checking(control: Client) -> None:
    nested = b"[" * 10 + b"]" * 10
    line = b'{"jsonrpc":"2.0","method":"memory.status","params":{"x":' + nested + b'},"id":1}'
    _error(_reply(control, line), -32602)


@pytest.mark.parametrize(
    "line",
    [
        b'{"jsonrpc":"2.0","method":"memory.status","params":{},"id":"\xff\xfe"}',
        b'{"jsonrpc":"2.0","method":"memory.status\xc3","id":1}',
        b'{"jsonrpc":"2.0","method":"memory.status","params":{"x":"\\ud800"},"id":1}',
    ],
)
def test_invalid_utf8_is_a_parse_error(control: Client, line: bytes) -> None:
    _error(_reply(control, line), -32700, "parse_error")
    _still_serves(control)


# --- invalid requests ------------------------------------------------------------


@pytest.mark.parametrize(
    "value",
    [
        {"method": "memory.status", "id": 1},
        {"jsonrpc": "1.0", "method": "memory.status", "id": 1},
        {"jsonrpc": "2.0", "id": 1},
        {"jsonrpc": "2.0", "method": 5, "id": 1},
        {"jsonrpc": "2.0", "method": "memory.status", "params": "x", "id": 1},
        {"jsonrpc": "2.0", "method": "memory.status", "id": {"nested": 1}},
        {"jsonrpc": "2.0", "method": "memory.status", "id": 1, "extra": True},
        42,
        "a string",
        None,
    ],
)
def test_a_non_request_is_invalid_request_with_id_null(control: Client, value: Any) -> None:
    reply = _reply(control, _line(value))
    _error(reply, -32600, "invalid_request")
    assert reply["id"] is None
    _still_serves(control)


def test_an_unknown_method_is_method_not_found(control: Client) -> None:
    reply = _reply(control, _line(_request("memory.nope", {}, id_=7)))
    _error(reply, -32601)
    assert reply["id"] == 7
    _still_serves(control)


@pytest.mark.parametrize(
    "method",
    [
        "consent.get",
        "consent.set",
        "token.issue",
        "token.list",
        "token.revoke",
        "audit.verify",
        "audit.export",
        "policy.reload",
    ],
)
def test_a_control_only_method_does_not_exist_on_agent_sock(agent: Client, method: str) -> None:
    _error(_reply(agent, _line(_request(method, {}))), -32601)
    _still_serves(agent)


def test_control_only_methods_exist_on_control_sock(control: Client) -> None:
    assert "result" in _reply(control, _line(_request("consent.get", {})))


def test_invalid_params_name_every_bad_field_with_its_expected_type_never_the_value(
    agent: Client,
) -> None:
    canary = "cnry" + secrets.token_hex(8)
    params = {
        "action": canary,
        "target": 17,
        "scope": ["x"],
        "entry": {"type": canary, "title": 5, "body": False},
        "idempotency_key": {"k": canary},
    }
    reply = _reply(agent, _line(_request("memory.write", params, id_="w")))
    error = _error(reply, -32602)
    assert reply["id"] == "w"
    by_path = {e["path"]: e for e in error["data"]["errors"]}
    for path in (
        "$.action",
        "$.target",
        "$.scope",
        "$.entry.type",
        "$.entry.title",
        "$.entry.body",
        "$.idempotency_key",
    ):
        assert path in by_path, path
        assert by_path[path]["expected"]
    assert '"add"' in by_path["$.action"]["expected"]
    assert by_path["$.entry.title"]["expected"].startswith("str")
    assert by_path["$.entry.body"]["expected"].startswith("str")
    assert canary not in json.dumps(reply)
    _still_serves(agent)


def test_unknown_and_missing_params_are_invalid_params_without_echoing_the_key(
    agent: Client,
) -> None:
    canary = "cnry" + secrets.token_hex(8)
    reply = _reply(agent, _line(_request("memory.read", {canary: 1})))
    error = _error(reply, -32602)
    problems = {(e["path"], e.get("problem")) for e in error["data"]["errors"]}
    assert ("$", "unknown_field") in problems
    assert ("$.ids", "missing_field") in problems
    assert canary not in json.dumps(reply)
    _still_serves(agent)


def test_positional_params_are_invalid_params(control: Client) -> None:
    _error(_reply(control, _line(_request("memory.status", [1, 2]))), -32602)
    _still_serves(control)


# --- batches and notifications ---------------------------------------------------


def test_a_batch_is_answered_as_a_batch_in_order(control: Client) -> None:
    batch = [
        _request("memory.status", {}, id_=1),
        _request("memory.nope", {}, id_=2),
        {"jsonrpc": "2.0", "method": "memory.status", "params": {}},  # notification
        _request("memory.status", {"bogus": 1}, id_=3),
        7,
    ]
    reply = _reply(control, _line(batch))
    assert isinstance(reply, list)
    assert [r["id"] for r in reply] == [1, 2, 3, None]
    assert "result" in reply[0]
    assert [r["error"]["code"] for r in reply[1:]] == [-32601, -32602, -32600]
    _still_serves(control)


def test_a_notification_gets_no_answer_and_the_next_request_is_answered(control: Client) -> None:
    for notification in (
        {"jsonrpc": "2.0", "method": "memory.status", "params": {}},
        {"jsonrpc": "2.0", "method": "memory.nope"},
        {"jsonrpc": "2.0", "method": "memory.status", "params": {"bad": 1}},
    ):
        assert control.send_raw(_line(notification), expect_reply=False) is None
    # Were any notification answered, that answer would come back here first.
    _still_serves(control)


def test_a_batch_of_notifications_gets_nothing(control: Client) -> None:
    batch = [{"jsonrpc": "2.0", "method": "memory.status", "params": {}} for _ in range(3)]
    assert control.send_raw(_line(batch), expect_reply=False) is None
    _still_serves(control)


def test_an_empty_batch_is_one_invalid_request(control: Client) -> None:
    reply = _reply(control, b"[]")
    assert isinstance(reply, dict)
    _error(reply, -32600, "empty_batch")
    assert reply["id"] is None
    _still_serves(control)


def test_a_batch_over_50_is_batch_too_large_and_nothing_runs(control: Client) -> None:
    batch = [_request("memory.status", {}, id_=i) for i in range(51)]
    reply = _reply(control, _line(batch))
    assert isinstance(reply, dict)
    error = _error(reply, -32005, "batch_too_large")
    assert error["data"]["details"]["max_batch"] == 50
    _still_serves(control)


def test_a_batch_of_exactly_50_is_answered(control: Client) -> None:
    batch = [_request("memory.status", {}, id_=i) for i in range(50)]
    reply = _reply(control, _line(batch))
    assert [r["id"] for r in reply] == list(range(50))


# --- frame size ------------------------------------------------------------------


def _oversized(size: int, canary: str = "x") -> bytes:
    pad = (canary * (size // len(canary) + 1))[:size]
    return _line(_request("memory.status", {"pad": pad}))


@pytest.mark.parametrize("size", [MAX_FRAME + 1, 3 * MAX_FRAME, 40 * MAX_FRAME])
def test_a_frame_over_the_limit_is_frame_too_large_then_closed(daemon: Daemon, size: int) -> None:
    with daemon.control(timeout=10) as c:
        line = _oversized(size)
        assert len(line) > MAX_FRAME
        reply = _reply(c, line)
        _error(reply, -32600, "frame_too_large")
        assert reply["id"] is None
        # The daemon closed this connection: nothing more comes.
        sock = c._sock
        assert sock is not None
        assert _closed_by_peer(sock)
    # ... and keeps serving everyone else.
    with daemon.control(timeout=10) as other:
        _still_serves(other)


def test_a_frame_at_the_limit_is_accepted(control: Client) -> None:
    base = len(_oversized(0))
    line = _oversized(MAX_FRAME - base)
    assert len(line) == MAX_FRAME
    _error(_reply(control, line), -32602)


def test_a_blank_line_is_not_answered(control: Client) -> None:
    assert control.send_raw(b"\n", expect_reply=False) is None
    _still_serves(control)


def test_pipelined_requests_are_answered_in_order(daemon: Daemon) -> None:
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
        sock.settimeout(10)
        sock.connect(str(daemon.control_path))
        sock.sendall(
            b"".join(_line(_request("memory.status", {}, id_=i)) + b"\n" for i in range(5))
        )
        data = b""
        while data.count(b"\n") < 5:
            chunk = sock.recv(65536)
            assert chunk
            data += chunk
        assert [json.loads(x)["id"] for x in data.splitlines()] == list(range(5))


# --- nothing a client sends comes back or reaches the log -------------------------


def test_canaries_never_appear_in_replies_or_log_lines(daemon: Daemon) -> None:
    canary = "cnry" + secrets.token_hex(10)
    lines = [
        _line(_request(f"memory.{canary}", {})),
        _line(_request(canary, {})),
        _line(_request("memory.status", {canary: canary})),
        _line(_request("memory.status", {"task_id": canary + "!" * 100})),
        _line(_request("memory.write", {"action": canary, "entry": {"body": canary}})),
        _line(_request("memory.read", {"ids": [canary], canary: 1})),
        _line(_request("memory.list", {"query": 5, "scope": canary})),
        _line(_request("consent.get", {"identity": {"kind": canary}})),
        _line({"jsonrpc": canary, "method": canary, "id": 1}),
        _line({"jsonrpc": "2.0", "method": "memory.status", "id": 1, canary: 1}),
        _line([_request(canary, {}, id_=i) for i in range(51)]),
        f'{{"jsonrpc":"2.0","method":"{canary}"'.encode(),
        f'{{"{canary}": NaN}}'.encode(),
        f'["{canary}"'.encode() + b"[" * 100 + b"]" * 100 + b"]",
        f'{{"x":"{canary}\xff"}}'.encode("latin-1"),
    ]
    seen: list[bytes] = []
    for client_of in (daemon.control, daemon.agent):
        with client_of(10) as c:
            for line in lines:
                raw = c.send_raw(line)
                assert raw is not None
                seen.append(raw)
            # A notification with the canary runs and is not answered.
            c.send_raw(_line({"jsonrpc": "2.0", "method": canary}), expect_reply=False)
            _still_serves(c)
        with client_of(10) as c:
            raw = c.send_raw(_oversized(2 * MAX_FRAME, canary))
            assert raw is not None
            seen.append(raw)
    assert all(canary.encode() not in raw for raw in seen)
    assert canary not in daemon.log()
