"""NDJSON framing: bounded line reads, strict JSON decoding, frame encoding.

Owns how bytes on a socket become one JSON value and back (SPEC §3). It knows
nothing of JSON-RPC; ``rpc/protocol.py`` decides what a value means. It does
no I/O either: ``FrameReader`` is fed the bytes a caller read
(``receive_data``) and hands out whole frames (``next_frame``), so the
daemon's server and both clients cut lines with the same code, each reading
its socket its own way (h11's ``receive_data`` / ``next_event``).

Invariants:
- a frame is the bytes before a ``\\n``; nothing longer than the reader's
  ``max_bytes`` is ever buffered into a frame (``FrameTooLarge`` instead),
  and a reader that refused a frame refuses every call after it (the rest of
  the line is still coming, so the stream cannot be resynchronised);
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

from enum import Enum
from typing import Any, Final, NoReturn

import msgspec

__all__ = [
    "CLOSED",
    "DEFAULT_MAX_FRAME",
    "LONG_DIGITS",
    "MAX_DEPTH",
    "NEED_DATA",
    "FrameDecodeError",
    "FrameReader",
    "FrameTooLarge",
    "IncompleteFrame",
    "Wait",
    "decode_frame",
    "encode_frame",
    "encode_value",
    "has_long_digit_run",
    "is_blank",
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


class Wait(Enum):
    """What ``FrameReader.next_frame`` gives when it has no frame."""

    NEED_DATA = "need_data"  # no whole frame buffered: read more and feed it
    CLOSED = "closed"  # the peer ended the stream between frames


NEED_DATA: Final = Wait.NEED_DATA
CLOSED: Final = Wait.CLOSED


class FrameReader:
    """Bytes in, frames out, bounded; no I/O.

    Feed it what was read (``receive_data``; ``b""`` is the end of the
    stream) and take frames (``next_frame``) until it answers ``NEED_DATA``.
    """

    def __init__(self, max_bytes: int) -> None:
        self.max_bytes = max_bytes
        self._buffer = bytearray()
        self._searched = 0  # bytes of the buffer known to hold no ``\n``
        self._ended = False
        self._failed: FrameTooLarge | IncompleteFrame | None = None

    @property
    def pending(self) -> bool:
        """Whether bytes of a frame not yet taken are buffered."""
        return bool(self._buffer)

    def receive_data(self, data: bytes) -> None:
        """What the peer sent next; ``b""`` when it closed the stream."""
        if not data:
            self._ended = True
        elif self._ended:
            raise RuntimeError("data after the end of the stream")
        else:
            self._buffer += data

    def next_frame(self) -> bytes | Wait:
        """The next frame (without its ``\\n``; blank lines included, see
        ``is_blank``), ``NEED_DATA``, or ``CLOSED`` on an end of stream
        between frames. Raises ``FrameTooLarge`` past ``max_bytes`` and
        ``IncompleteFrame`` on an end of stream inside a frame; after either,
        it raises the same on every call."""
        if self._failed is not None:
            raise self._failed
        buffer = self._buffer
        end = buffer.find(b"\n", self._searched)
        if end < 0:
            if len(buffer) > self.max_bytes:
                return self._fail(FrameTooLarge(self.max_bytes))
            if self._ended:
                return self._fail(IncompleteFrame()) if buffer else CLOSED
            self._searched = len(buffer)
            return NEED_DATA
        if end > self.max_bytes:
            return self._fail(FrameTooLarge(self.max_bytes))
        frame = bytes(buffer[:end])
        del buffer[:end + 1]
        self._searched = 0
        return frame

    def _fail(self, error: FrameTooLarge | IncompleteFrame) -> NoReturn:
        self._failed = error
        self._buffer.clear()
        raise error


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
