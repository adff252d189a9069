"""Finished tasks' transcripts: the one format, read and bounded.

Owns: the ``Turn`` record, reading a transcript from JSON Lines (``memctl
extract submit FILE``) or from ``task.end``'s list of turns, the size caps,
and the stored form a queued job keeps until it ends (daemon/extraction/extract_queue.py).

Format: one JSON object per line, ``{"role", "content", "ts"?}``, ``role`` one
of ``user``, ``assistant``, ``tool``; blank lines are skipped. A line ends at
``\n`` only (a ``\r`` before it is JSON whitespace): U+2028, U+2029 and
U+0085, which ``str.splitlines`` would also cut at, may stand unescaped in a
JSON string and so inside a turn.

Invariants:
- a transcript is refused whole: too large (``transcript_too_large``), or a
  malformed line, named by its line number and what was expected there, never
  by what it held; nothing is stored on refusal;
- an error never quotes a transcript's text.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import msgspec

from memoryd.kernel.errors import LimitExceeded
from memoryd.rpc.errors import InvalidParams
from memoryd.rpc.framing import FrameDecodeError, decode_frame

__all__ = ["ROLES", "Turn", "decode", "encode", "from_turns", "parse_jsonl"]

ROLES = ("user", "assistant", "tool")
_decoder = msgspec.json.Decoder()
_encoder = msgspec.json.Encoder()


@dataclass(frozen=True, slots=True)
class Turn:
    role: str
    content: str
    # The turn's position in the transcript as submitted (0-based): what a
    # candidate's refs name, even when tool turns were left out.
    index: int = 0


def _too_large(limit: int, cap: str, **usage: int) -> LimitExceeded:
    return LimitExceeded("transcript_too_large", details={"cap": cap, "limit": limit, **usage})


def _turn(obj: Any, line: int, path: str, index: int) -> Turn:
    if not isinstance(obj, dict):
        raise InvalidParams([{"path": path, "line": str(line),
                              "expected": "object {role, content, ts?}"}])
    role, content = obj.get("role"), obj.get("content")
    if role not in ROLES:
        raise InvalidParams([{"path": f"{path}.role", "line": str(line),
                              "expected": "user | assistant | tool"}])
    if not isinstance(content, str):
        raise InvalidParams([{"path": f"{path}.content", "line": str(line),
                              "expected": "str"}])
    ts = obj.get("ts")
    if ts is not None and not isinstance(ts, str):
        raise InvalidParams([{"path": f"{path}.ts", "line": str(line),
                              "expected": "str (RFC 3339) or absent"}])
    unknown = set(obj) - {"role", "content", "ts"}
    if unknown:
        raise InvalidParams([{"path": path, "line": str(line),
                              "expected": "only the keys role, content, ts"}])
    return Turn(role, content, index)


def _bounded(turns: list[Turn], max_bytes: int, max_turns: int) -> list[Turn]:
    if len(turns) > max_turns:
        raise _too_large(max_turns, "extract.max_turns", turns=len(turns))
    if not turns:
        raise InvalidParams([{"path": "$.transcript", "expected": "at least one turn"}])
    return turns


def parse_jsonl(text: str, *, max_bytes: int, max_turns: int) -> list[Turn]:
    """The turns of a JSON Lines transcript; refused whole on the first bad line."""
    size = len(text.encode("utf-8", "surrogatepass"))
    if size > max_bytes:
        raise _too_large(max_bytes, "extract.max_transcript_bytes", bytes=size)
    turns: list[Turn] = []
    for number, line in enumerate(text.split("\n"), start=1):
        if not line.strip():
            continue
        try:
            # As strictly as a frame is read (rpc/framing.py): a line nested
            # deeper than a frame may be is refused, where msgspec alone
            # would exhaust the stack (RecursionError, an internal error).
            obj = decode_frame(line.encode("utf-8", "surrogatepass"))
        except FrameDecodeError:
            raise InvalidParams([{"path": "$.transcript", "line": str(number),
                                  "expected": "one JSON object per line"}]) from None
        turns.append(_turn(obj, number, "$.transcript", len(turns)))
        if len(turns) > max_turns:
            break
    return _bounded(turns, max_bytes, max_turns)


def from_turns(items: Sequence[Any], *, max_bytes: int, max_turns: int) -> list[Turn]:
    """The turns ``task.end`` carries (already shaped by its schema)."""
    if len(items) > max_turns:
        raise _too_large(max_turns, "extract.max_turns", turns=len(items))
    turns = [Turn(t.role, t.content, i) for i, t in enumerate(items)]
    size = sum(len(t.content.encode("utf-8", "surrogatepass")) for t in turns)
    if size > max_bytes:
        raise _too_large(max_bytes, "extract.max_transcript_bytes", bytes=size)
    return _bounded(turns, max_bytes, max_turns)


def encode(turns: Sequence[Turn]) -> str:
    """The stored form: a JSON array of ``[index, role, content]``."""
    return _encoder.encode([[t.index, t.role, t.content] for t in turns]).decode()


def decode(text: str) -> list[Turn]:
    return [Turn(role, content, index) for index, role, content in _decoder.decode(text)]
