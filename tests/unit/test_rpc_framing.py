"""Framing: bounded line reads and strict JSON decoding (SPEC §3)."""

from __future__ import annotations

import re

import msgspec
import pytest
from hypothesis import example, given
from hypothesis import strategies as st

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
    decode_frame,
    encode_frame,
    has_long_digit_run,
    is_blank,
)


def read_all(chunks: list[bytes], max_bytes: int = 100) -> list[bytes | None]:
    """Every frame of ``chunks`` as a reader hands them out, then None for
    the end of the stream."""
    reader = FrameReader(max_bytes)
    frames: list[bytes | None] = []
    for chunk in [*chunks, b""]:
        reader.receive_data(chunk)
        while (got := reader.next_frame()) is not NEED_DATA:
            if got is CLOSED:
                return [*frames, None]
            assert isinstance(got, bytes)
            frames.append(got)
    raise AssertionError("the end of the stream was not seen")


def test_default_limits() -> None:
    assert DEFAULT_MAX_FRAME == 1024 * 1024
    assert MAX_DEPTH == 64


def test_frames_split_on_newline_across_chunks() -> None:
    assert read_all([b'{"a":', b"1}\n[2", b"]\n", b"3\n"]) == [b'{"a":1}', b"[2]", b"3", None]


def test_clean_eof_between_frames_is_none() -> None:
    assert read_all([]) == [None]


def test_eof_mid_frame_is_incomplete() -> None:
    with pytest.raises(IncompleteFrame):
        read_all([b'{"a":1}\n{"b"'])


def test_frame_at_the_limit_is_accepted() -> None:
    assert read_all([b"x" * 100 + b"\n"]) == [b"x" * 100, None]


def test_frame_without_newline_within_limit_is_too_large() -> None:
    with pytest.raises(FrameTooLarge) as info:
        read_all([b"x" * 101])
    assert info.value.max_bytes == 100


def test_frame_over_limit_is_too_large_even_when_its_newline_came_in_the_same_read() -> None:
    with pytest.raises(FrameTooLarge):
        read_all([b"x" * 150 + b"\n"])


def test_a_reader_that_refused_a_frame_refuses_every_call_after() -> None:
    reader = FrameReader(10)
    reader.receive_data(b"x" * 11)
    for _ in range(2):
        with pytest.raises(FrameTooLarge):
            reader.next_frame()
    reader = FrameReader(10)
    reader.receive_data(b"ab")
    reader.receive_data(b"")
    for _ in range(2):
        with pytest.raises(IncompleteFrame):
            reader.next_frame()


def test_pipelined_frames_come_one_at_a_time_and_blank_lines_with_them() -> None:
    reader = FrameReader(10)
    reader.receive_data(b"1\n\n\r\n2\n3")
    assert [reader.next_frame() for _ in range(5)] == [b"1", b"", b"\r", b"2", NEED_DATA]
    assert reader.pending
    reader.receive_data(b"\n")
    assert reader.next_frame() == b"3" and not reader.pending


def test_data_after_the_end_of_the_stream_is_a_caller_bug() -> None:
    reader = FrameReader(10)
    reader.receive_data(b"")
    with pytest.raises(RuntimeError):
        reader.receive_data(b"1\n")


# (An empty read is the end of the stream, so every chunk holds a byte.)
@given(
    st.lists(st.binary(min_size=1, max_size=30), max_size=8), st.integers(min_value=1, max_value=40)
)
def test_frames_do_not_depend_on_how_the_bytes_were_cut(chunks: list[bytes], limit: int) -> None:
    data = b"".join(chunks)
    lines = data.split(b"\n")
    whole, rest = lines[:-1], lines[-1]
    try:
        got: object = read_all(chunks, limit)
    except (FrameTooLarge, IncompleteFrame) as exc:
        got = type(exc)
    # The reference: the lines before the first one too long, then the end.
    want: object = []
    for line in whole:
        if len(line) > limit:
            want = FrameTooLarge
            break
        assert isinstance(want, list)
        want.append(line)
    else:
        want = FrameTooLarge if len(rest) > limit else IncompleteFrame if rest else [*whole, None]
    assert got == want


@pytest.mark.parametrize("line", [b"", b"\r"])
def test_empty_lines_are_not_frames(line: bytes) -> None:
    assert is_blank(line)


@pytest.mark.parametrize("line", [b" ", b"\t\r", b"\x0b", b"1", b" {} "])
def test_lines_with_content_are_frames(line: bytes) -> None:
    # Whitespace alone is not a JSON text; it is answered with a parse error.
    assert not is_blank(line)


@pytest.mark.parametrize(
    ("data", "value"),
    [
        (b'{"a":[1,2.5,"x",true,null]}', {"a": [1, 2.5, "x", True, None]}),
        (b"1\r", 1),  # \r of a CRLF line ending is JSON whitespace
        (b'"\\ud83d\\ude00"', "\U0001f600"),
        (b"9223372036854775807", 2**63 - 1),
        (b"-9223372036854775808", -(2**63)),
        (b'"12345678901234567890123"', "12345678901234567890123"),
    ],
)
def test_accepts_strict_json(data: bytes, value: object) -> None:
    assert decode_frame(data) == value


def test_nesting_at_the_limit_is_accepted() -> None:
    value = decode_frame(b"[" * MAX_DEPTH + b"]" * MAX_DEPTH)
    depth = 0
    while isinstance(value, list):
        depth += 1
        value = value[0] if value else None
    assert depth == MAX_DEPTH


@pytest.mark.parametrize(
    ("data", "reason"),
    [
        (b"NaN", "malformed"),
        (b"[Infinity]", "malformed"),
        (b"[-Infinity]", "malformed"),
        (b"{'a': 1}", "malformed"),
        (b"[1,]", "malformed"),
        (b"", "malformed"),
        (b"\xef\xbb\xbf{}", "malformed"),  # byte-order mark
        (b'"\\ud800"', "malformed"),  # lone surrogate
        (b'"\xff"', "invalid_utf8"),
        (b'"\xed\xa0\x80"', "invalid_utf8"),  # surrogate encoded in UTF-8
        (b"1e400", "number_out_of_range"),
        (b"[-1e400]", "number_out_of_range"),
        (b"9223372036854775808", "number_out_of_range"),
        (b'{"a":[-9223372036854775809]}', "number_out_of_range"),
        (b"123456789012345678901234567890", "number_out_of_range"),
        (b"[" * (MAX_DEPTH + 1) + b"]" * (MAX_DEPTH + 1), "too_deep"),
        (b'{"a":' * (MAX_DEPTH + 1) + b"1" + b"}" * (MAX_DEPTH + 1), "too_deep"),
        (b"[" * 5000 + b"]" * 5000, "too_deep"),  # msgspec's own limit
    ],
)
def test_refuses(data: bytes, reason: str) -> None:
    with pytest.raises(FrameDecodeError) as info:
        decode_frame(data)
    assert info.value.reason == reason
    assert str(info.value) == FrameDecodeError.MESSAGES[reason]


def test_many_brackets_inside_strings_are_not_depth() -> None:
    data = msgspec.json.encode({"s": "[" * 1000})
    assert decode_frame(data) == {"s": "[" * 1000}


_DIGIT_RUN = re.compile(rb"[0-9]{%d}" % LONG_DIGITS)
# Digits, the bytes beside them in the table, other bytes that look like digits
# (fullwidth and Arabic-Indic digits in UTF-8) and plain separators.
_NEAR_DIGITS = st.sampled_from(
    [
        b"0",
        b"5",
        b"9",
        b"/",
        b":",
        b" ",
        b"-",
        b".",
        b"e",
        b"\xef\xbc\x91",
        b"\xd9\xa3",
        b"\xb9",
        b"\xb0",
    ]
)


@given(st.lists(_NEAR_DIGITS | st.binary(max_size=3), max_size=60).map(b"".join))
@example(b"9" * (LONG_DIGITS - 1))
@example(b"9" * LONG_DIGITS)
@example(b"x" + b"1" * LONG_DIGITS + b"x")
@example(b"1" * (LONG_DIGITS - 1) + b" " + b"1" * (LONG_DIGITS - 1))
def test_long_digit_run_is_the_pattern_it_replaces(data: bytes) -> None:
    # The cheap test of "is there anything to check for 64 bits" must say
    # exactly what the pattern search said, or a wide integer goes unchecked.
    assert has_long_digit_run(data) == (_DIGIT_RUN.search(data) is not None)


def test_decode_error_never_quotes_input() -> None:
    canary = b"CANARY-7f3a"
    for data in (b'{"' + canary + b'": nope}', b'["' + canary + b'\xff"]', b"[" + canary + b"]"):
        with pytest.raises(FrameDecodeError) as info:
            decode_frame(data)
        assert "CANARY" not in str(info.value)
        assert "CANARY" not in repr(info.value)
        assert info.value.__cause__ is None and info.value.__suppress_context__


def test_encode_frame_is_compact_json_with_newline() -> None:
    class S(msgspec.Struct):
        a: int

    assert encode_frame({"x": [1, S(a=2)]}) == b'{"x":[1,{"a":2}]}\n'
