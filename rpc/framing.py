"""NDJSON framing: bounded line reads, strict JSON decoding, frame encoding.

Owns how bytes on a socket become one JSON value and back (SPEC §3). It knows
nothing of JSON-RPC; ``rpc/protocol.py`` decides what a value means.

Invariants:
- a frame is the bytes before a ``\\n``; nothing longer than the caller's
  ``max_bytes`` is ever buffered into a frame (``FrameTooLarge`` instead);
- ``decode_frame`` accepts strict RFC 8259 JSON in UTF-8 only: no NaN or
  Infinity, no byte-order mark, no invalid UTF-8 or lone surrogate escapes, no
  number outside what the daemon can store (integers in signed 64 bits, finite
  floats), and no nesting deeper than ``MAX_DEPTH``;
- every refusal is one ``FrameDecodeError`` whose message is a fixed category
  sentence: nothing from the input is ever quoted, so it is safe to put on the
  wire or in a log.

Decisions:
- Line endings: a ``\\r`` before the ``\\n`` is JSON whitespace, so ``\\r\\n``
  framing works without special handling; a bare ``\\r`` is never a delimiter.
- An empty line (or one holding only the ``\r`` of a CRLF ending) is not a
  frame: ``is_blank`` tells the dispatcher to ignore it, so a keep-alive
  newline or a stray Enter in an interactive ``nc -U`` session gets no
  error. Any other line is a request and is answered: whitespace alone is not
  a JSON text (RFC 8259), so it is a parse error like other garbage.
- EOF in the middle of a frame raises ``IncompleteFrame``: the peer went away
  without finishing its message, there is nobody to answer, and the server
  only needs to know that the connection is over (and may log it). A clean EOF
  between frames is ``None``.
"""

from __future__ import annotations

from typing import Any, Final

import anyio
import msgspec
from anyio.streams.buffered import BufferedByteReceiveStream

__all__ = [
    "DEFAULT_MAX_FRAME",
    "LONG_DIGITS",
    "MAX_DEPTH",
    "FrameDecodeError",
    "FrameTooLarge",
    "IncompleteFrame",
    "decode_frame",
    "encode_frame",
    "encode_value",
    "has_long_digit_run",
    "is_blank",
    "read_frame",
]

DEFAULT_MAX_FRAME: Final = 1024 * 1024
"""Largest accepted frame in bytes, excluding the ``\\n`` (config can change it)."""

MAX_DEPTH: Final = 64
"""Deepest accepted nesting of arrays and objects. No method needs more than a
handful of levels; the limit keeps recursive code downstream (and msgspec's own
decoder, which gives up near 1000 with a RecursionError) far from trouble."""

# SQLite stores signed 64-bit integers; anything wider would fail deep inside
# the store as an internal error, so it is refused at the door instead.
_INT_MIN: Final = -(2**63)
_INT_MAX: Final = 2**63 - 1

# Any integer outside 64 bits has at least 19 digits; a shorter run of digits
# anywhere in the frame proves there is nothing to check, which keeps the
# common case free of a Python-level walk. The run is looked for with every
# digit read as "0" and every other byte as a space: two passes in C, where a
# pattern search tried a repetition at every byte (~60 K instructions for a
# write's frame of 300 bytes).
LONG_DIGITS: Final = 19
_DIGITS_AS_ZERO: Final = bytes(0x30 if 0x30 <= b <= 0x39 else 0x20 for b in range(256))
_ZERO_RUN: Final = b"0" * LONG_DIGITS

_DECODER: Final = msgspec.json.Decoder()
_ENCODER: Final = msgspec.json.Encoder()


class FrameTooLarge(Exception):
    """No ``\\n`` within the frame limit. The connection cannot be resynchronised
    (the rest of the oversized line is still coming), so the caller answers
    ``frame_too_large`` and closes."""

    def __init__(self, max_bytes: int) -> None:
        super().__init__(f"frame larger than {max_bytes} bytes")
        self.max_bytes = max_bytes


class IncompleteFrame(Exception):
    """The peer closed the stream in the middle of a frame."""

    def __init__(self) -> None:
        super().__init__("stream ended in the middle of a frame")


class FrameDecodeError(ValueError):
    """A frame is not strict JSON. ``reason`` is a stable snake_case category;
    the message is a fixed sentence for it and never quotes the input."""

    MESSAGES: Final = {
        "malformed": "the frame is not valid JSON",
        "invalid_utf8": "the frame is not valid UTF-8",
        "number_out_of_range": "a number in the frame is out of range",
        "too_deep": f"the frame nests arrays and objects deeper than {MAX_DEPTH} levels",
    }

    def __init__(self, reason: str) -> None:
        if reason not in self.MESSAGES:
            raise ValueError(f"unknown frame decode reason {reason!r}")
        super().__init__(self.MESSAGES[reason])
        self.reason = reason
        self.message = self.MESSAGES[reason]


async def read_frame(stream: BufferedByteReceiveStream, max_bytes: int) -> bytes | None:
    """Read one frame (without its ``\\n``) from ``stream``.

    Returns ``None`` on a clean EOF between frames. Raises ``FrameTooLarge``
    when no delimiter is found within ``max_bytes`` and ``IncompleteFrame``
    when the stream ends mid-frame. Blank lines are returned as they are; see
    ``is_blank``.
    """
    try:
        frame = await stream.receive_until(b"\n", max_bytes)
    except anyio.DelimiterNotFound:
        raise FrameTooLarge(max_bytes) from None
    except anyio.IncompleteRead:
        # receive_until raises IncompleteRead for any EOF; only an empty
        # buffer means the peer stopped cleanly between frames.
        if stream.buffer:
            raise IncompleteFrame from None
        return None
    # receive_until checks the limit only before each read, so one read can
    # carry a frame past it; the limit is a promise, so check the result too.
    if len(frame) > max_bytes:
        raise FrameTooLarge(max_bytes)
    return frame


def is_blank(data: bytes) -> bool:
    """True for an empty line, CRLF's included: not a frame, not answered."""
    return data == b"" or data == b"\r"


def decode_frame(data: bytes) -> Any:
    """Decode one frame as strict JSON, or raise ``FrameDecodeError``."""
    try:
        value = _DECODER.decode(data)
    except msgspec.DecodeError as exc:
        # Only the category is taken from msgspec's text; the text itself may
        # quote the input and is dropped.
        text = str(exc)
        if "UTF-8" in text:
            raise FrameDecodeError("invalid_utf8") from None
        if "out of range" in text:
            raise FrameDecodeError("number_out_of_range") from None
        raise FrameDecodeError("malformed") from None
    except RecursionError:
        raise FrameDecodeError("too_deep") from None
    # Each nesting level needs an opening bracket, so fewer brackets than the
    # limit (counting those inside strings too) proves the depth is fine.
    check_depth = data.count(b"[") + data.count(b"{") > MAX_DEPTH
    check_ints = has_long_digit_run(data)
    if check_depth or check_ints:
        _check_value(value, check_depth=check_depth, check_ints=check_ints)
    return value


def has_long_digit_run(data: bytes) -> bool:
    """Whether ``data`` holds ``LONG_DIGITS`` ASCII digits in a row."""
    return _ZERO_RUN in data.translate(_DIGITS_AS_ZERO)


def _check_value(value: Any, *, check_depth: bool, check_ints: bool) -> None:
    # Iterative on purpose: a recursive walk would be the very stack risk the
    # depth limit exists to avoid.
    stack: list[tuple[Any, int]] = [(value, 0)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, dict):
            children: Any = item.values()
        elif isinstance(item, list):
            children = item
        else:
            # bool is an int subclass but always in range.
            if check_ints and type(item) is int and not _INT_MIN <= item <= _INT_MAX:
                raise FrameDecodeError("number_out_of_range")
            continue
        depth += 1
        if check_depth and depth > MAX_DEPTH:
            raise FrameDecodeError("too_deep")
        stack.extend((child, depth) for child in children)


def encode_value(obj: Any) -> bytes:
    """Encode one JSON value (Structs, dicts, lists, scalars) without a newline."""
    return _ENCODER.encode(obj)


def encode_frame(obj: Any) -> bytes:
    """Encode one JSON value as a frame: compact JSON followed by ``\\n``."""
    return _ENCODER.encode(obj) + b"\n"
