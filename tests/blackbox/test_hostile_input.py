"""Hostile input on both sockets: the JSONTestSuite corpus, generated frames and
params, stalled clients, the connection cap and oversized batches and frames.

The promise (SPEC §3): malformed JSON is -32700, a non-request -32600, bad
params -32602; nothing a client sends produces -32603 or a hang, and one
client's misbehaviour never delays another.

Corpus framing: a frame ends at ``\\n``, so a file holding a newline byte
would reach the daemon as two frames. Each ``\\n`` is sent as ``\\r`` instead:
outside strings both are JSON whitespace, inside strings both are forbidden
raw control characters, so every file keeps its verdict (``y_``, ``n_``,
``i_``) and arrives as exactly one frame. A file that is empty after that is
a blank line, which the protocol ignores (no reply), and is checked as such.
"""

from __future__ import annotations

import json
import socket
from collections.abc import Iterator
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.corpora import corpus_files
from tests.harness import Daemon, backend, running

AGENT_METHODS = [
    "task.begin",
    "task.end",
    "memory.context",
    "memory.list",
    "memory.read",
    "memory.write",
    "memory.status",
    "memory.receipt",
]
CONTROL_METHODS = [
    *AGENT_METHODS,
    "governance.action.list",
    "governance.action.get",
    "governance.action.approve",
    "governance.action.deny",
    "consent.get",
    "consent.set",
    "token.issue",
    "token.list",
    "token.revoke",
    "memory.journal",
    "memory.undo",
    "memory.verify",
    "audit.verify",
    "audit.export",
    "audit.checkpoint",
    "policy.reload",
]
FIELDS = [
    "task_id",
    "identity",
    "target",
    "scope",
    "action",
    "id",
    "expected_revision",
    "entry",
    "ops",
    "ids",
    "query",
    "intent",
    "token",
    "version",
    "checkpoint",
    "after_seq",
    "limit",
    "action_id",
    "cursor",
    "page_size",
    "read",
    "workspace",
    "scopes",
    "role",
]

CONFIG = "frame_timeout_s = 0.5\nidle_timeout_s = 5.0\nmax_connections = 64\n"


@pytest.fixture(scope="module")
def hostile() -> Iterator[Daemon]:
    with running(config=CONFIG) as d:
        yield d


def _errors(reply: Any) -> list[dict[str, Any]]:
    items = reply if isinstance(reply, list) else [reply]
    return [i["error"] for i in items if isinstance(i, dict) and "error" in i]


def _well_formed(line: bytes | None) -> Any:
    assert line is not None, "the daemon closed the connection instead of answering"
    reply = json.loads(line)
    items = reply if isinstance(reply, list) else [reply]
    for item in items:
        assert item["jsonrpc"] == "2.0" and "id" in item
        assert ("result" in item) != ("error" in item)
    assert all(e["code"] != -32603 for e in _errors(reply)), reply
    return reply


def _alive(d: Daemon) -> None:
    with d.control(timeout=10) as c:
        assert c.call("memory.status", {})["backend"]["kind"] == backend()


# --- the corpus -------------------------------------------------------------------------

CORPUS_FILES = corpus_files("")


def test_the_corpus_is_present() -> None:
    assert len([p for p in CORPUS_FILES if p.name.startswith("n_")]) > 100


@pytest.mark.parametrize("prefix", ["n_", "y_", "i_"])
def test_every_corpus_file_is_answered_without_internal_error(hostile: Daemon, prefix: str) -> None:
    files = [p for p in CORPUS_FILES if p.name.startswith(prefix)]
    assert files, f"no {prefix} files in the corpus"
    with hostile.control(timeout=10) as c:
        for path in files:
            frame = path.read_bytes().replace(b"\n", b"\r")
            if frame in (b"", b"\r"):
                assert c.send_raw(frame, expect_reply=False) is None
                continue
            reply = _well_formed(c.send_raw(frame))
            codes = {e["code"] for e in _errors(reply)}
            if prefix == "n_":
                assert isinstance(reply, dict) and codes <= {-32700, -32600} and codes, path.name
            if prefix == "y_" and isinstance(reply, dict):
                assert codes == {-32600}, path.name
    _alive(hostile)


# --- generated frames and params ------------------------------------------------------

json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**70), max_value=2**70)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=300),
    lambda inner: (
        st.lists(inner, max_size=5)
        | st.dictionaries(st.sampled_from(FIELDS) | st.text(max_size=10), inner, max_size=6)
    ),
    max_leaves=30,
)


def _deep(depth: int) -> str:
    return "[" * depth + "]" * depth


def _request(method: str, params: Any, id_: Any = 1) -> bytes:
    return json.dumps(
        {"jsonrpc": "2.0", "method": method, "params": params, "id": id_}, ensure_ascii=False
    ).encode("utf-8", "surrogatepass")


def _frames(methods: list[str]) -> st.SearchStrategy[bytes]:
    params = st.dictionaries(st.sampled_from(FIELDS) | st.text(max_size=8), json_values, max_size=6)
    return st.one_of(
        st.builds(_request, st.sampled_from(methods), params),
        st.builds(_request, st.sampled_from(methods), json_values),
        st.builds(lambda v: json.dumps(v).encode(), json_values),
        st.binary(min_size=1, max_size=300).map(lambda b: b.replace(b"\n", b" ")),
        st.builds(
            lambda m, d: _request(m, json.loads(_deep(d))),
            st.sampled_from(methods),
            st.integers(min_value=1, max_value=200),
        ),
        st.builds(
            lambda m, s: _request(m, {"task_id": s, "ids": [s]}),
            st.sampled_from(methods),
            st.text(min_size=1000, max_size=20_000),
        ),
        st.builds(
            lambda m, b: _request(m, {"scope": "x"}).replace(b'"x"', b'"' + b + b'"'),
            st.sampled_from(methods),
            st.sampled_from(
                [b"\xff", b"\xc3\x28", b"\xed\xa0\x80", b"\\ud800", b"\xf4\x90\x80\x80"]
            ),
        ),
    )


def _check_frame(d: Daemon, channel: str, frame: bytes) -> None:
    frame = frame.replace(b"\n", b" ")
    client = d.control(timeout=10) if channel == "control" else d.agent(timeout=10)
    with client as c:
        if frame.strip(b" \r") == b"":
            return
        _well_formed(c.send_raw(frame))


@settings(
    max_examples=150,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(frame=_frames(AGENT_METHODS))
def test_generated_frames_on_agent_sock_never_fail_internally(
    hostile: Daemon, frame: bytes
) -> None:
    _check_frame(hostile, "agent", frame)


@settings(
    max_examples=150,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(frame=_frames(CONTROL_METHODS))
def test_generated_frames_on_control_sock_never_fail_internally(
    hostile: Daemon, frame: bytes
) -> None:
    _check_frame(hostile, "control", frame)


def test_unknown_fields_are_invalid_params_without_echoing_the_key(hostile: Daemon) -> None:
    with hostile.control(timeout=10) as c:
        reply = _well_formed(c.send_raw(_request("memory.status", {"canary_field_x": 1})))
    assert reply["error"]["code"] == -32602
    assert b"canary_field_x" not in json.dumps(reply).encode()


# --- stalled clients, the cap, big batches and frames -----------------------------------


def _half_sent(d: Daemon) -> socket.socket:
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.connect(str(d.agent_path))
    s.sendall(b'{"jsonrpc": "2.0", "method": "memory.sta')
    return s


def test_half_sent_connections_do_not_block_a_normal_client(hostile: Daemon) -> None:
    stalled = [_half_sent(hostile) for _ in range(40)]
    try:
        _alive(hostile)
        with hostile.agent(timeout=10) as a:
            assert a.call("memory.status", {})["backend"]["kind"] == backend()
    finally:
        for s in stalled:
            s.close()


def test_a_stalled_frame_is_closed_after_frame_timeout(hostile: Daemon) -> None:
    s = _half_sent(hostile)
    try:
        s.settimeout(10)  # frame_timeout_s is 0.5: the close comes long before this
        assert s.recv(1024) == b""
    finally:
        s.close()


def test_a_batch_over_fifty_is_refused_as_a_whole(hostile: Daemon) -> None:
    batch = [
        {"jsonrpc": "2.0", "method": "memory.status", "params": {}, "id": i} for i in range(51)
    ]
    with hostile.control(timeout=10) as c:
        reply = _well_formed(c.send_raw(json.dumps(batch).encode()))
        assert isinstance(reply, dict)
        assert reply["error"]["data"]["code"] == "batch_too_large"
        assert c.call("memory.status", {})["backend"]["kind"] == backend()


def test_an_oversized_frame_is_refused_and_the_daemon_stays_healthy(hostile: Daemon) -> None:
    with hostile.agent(timeout=10) as a:
        reply = _well_formed(a.send_raw(b'"' + b"a" * (1024 * 1024 + 10) + b'"'))
        assert reply["error"]["code"] == -32600
        assert reply["error"]["data"]["code"] == "frame_too_large"
    _alive(hostile)


def test_over_the_connection_cap_a_clear_error_comes_before_the_close() -> None:
    with running(config="max_connections = 3\n") as d:
        held = [d.agent(timeout=10) for _ in range(3)]
        try:
            for c in held:
                c.call("memory.status", {})
            extra = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            extra.settimeout(10)
            extra.connect(str(d.agent_path))
            line = extra.makefile("rb").readline()
            extra.close()
            reply = json.loads(line)
            assert reply["error"]["data"]["code"] == "too_many_connections"
        finally:
            for c in held:
                c.close()
        _alive(d)
