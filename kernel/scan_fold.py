"""The scanner's folded copy of a text, and its map back to the original.

Part of the content scanner (``kernel/scan.py``): secret and injection rules
run on a folded copy — NFKC, format characters (category Cf) dropped,
whitespace runs collapsed to one space — whose offsets ``_Folded`` maps back
onto the original text, covering every original character that produced a
match. Pure: no I/O, no clock, no state.
"""

from __future__ import annotations

import bisect
import re
import unicodedata
from collections.abc import Callable
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class _Folded:
    """The folded copy and a piecewise map back to the original offsets.

    Segment ``i`` covers folded ``[f_start[i], f_start[i+1])`` and came from
    original ``[o_start[i], o_start[i] + o_len[i])``; ``copied[i]`` says the
    two are the same characters (offsets shift), otherwise the segment is a
    replacement and any offset inside it maps to the whole original piece.
    """

    text: str
    f_start: list[int]
    o_start: list[int]
    o_len: list[int]
    copied: list[bool]

    def to_original(self, start: int, end: int) -> tuple[int, int]:
        i = bisect.bisect_right(self.f_start, start) - 1
        o_start = self.o_start[i] + (start - self.f_start[i]) if self.copied[i] else self.o_start[i]
        j = bisect.bisect_right(self.f_start, end - 1) - 1
        if self.copied[j]:
            o_end = self.o_start[j] + (end - self.f_start[j])
        else:
            o_end = self.o_start[j] + self.o_len[j]
        return o_start, o_end


# Pieces of text that folding may change: whitespace other than one plain
# space (a run of two or more, or a single other whitespace character), and
# runs of non-ASCII characters. Everything else is copied as is. Each pattern
# starts with one character class so the regex engine can skip ahead to
# candidates instead of trying every position.
_FOLDABLE = re.compile(
    r"[\s\x80-\U0010ffff](?:(?<=\s)(?:(?<! )|(?=\s))\s{0,4095}"
    r"|(?<=[^\x00-\x7f\s])[^\x00-\x7f\s]{0,255})"
)
_FOLDABLE_ASCII = re.compile(r"\s(?:(?<! )|(?=\s))\s{0,4095}")
_ASCII_SPACE_OTHER = "\t\n\r\x0b\x0c\x1c\x1d\x1e\x1f"


def _fold_char(ch: str) -> str:
    if unicodedata.category(ch) == "Cf":
        return ""
    folded = unicodedata.normalize("NFKC", ch)
    return " " if folded.isspace() else folded


def _unchanged(run: str) -> bool:
    """Whether folding leaves every character of ``run`` as it is.

    A string in NFKC holds only characters that are each their own NFKC, and
    printable text holds no format character (category Cf).
    """
    return unicodedata.is_normalized("NFKC", run) and (
        run.isprintable() or not any(unicodedata.category(ch) == "Cf" for ch in run)
    )


# Halfwidth and fullwidth forms: the characters CJK prose most often holds
# that NFKC changes (fullwidth punctuation, letters and digits).
_WIDE_FORMS = re.compile("[\uff00-\uffef]{1,256}")


def _fold_run(run: str, at: int, emit: Callable[[str, int, int, bool], None]) -> None:
    """Fold a run of non-ASCII characters, one character at a time.

    Stretches that fold to themselves are copied whole (their offsets shift,
    nothing else); fullwidth forms, and whatever else NFKC changes, are
    folded character by character. Halving a stretch that changes finds the
    characters that do in a few checks instead of one per character.
    """
    pieces: list[tuple[int, int]] = []
    last = 0
    for m in _WIDE_FORMS.finditer(run):
        if m.start() > last:
            pieces.append((last, m.start()))
        pieces.extend((k, k + 1) for k in range(m.start(), m.end()))
        last = m.end()
    if last < len(run):
        pieces.append((last, len(run)))
    stack = pieces[::-1]
    while stack:
        lo, hi = stack.pop()
        piece = run[lo:hi]
        if hi - lo == 1:
            folded = _fold_char(piece)
            emit(folded, at + lo, 1, folded == piece)
        elif _unchanged(piece):
            emit(piece, at + lo, hi - lo, True)
        else:
            mid = (lo + hi) // 2
            # Right half pushed first: pieces come out left to right.
            stack.append((mid, hi))
            stack.append((lo, mid))


def _fold(text: str, plain: bool | None = None) -> _Folded:
    """The folded copy of ``text``; ``plain`` is ``text.isascii() and
    text.isprintable()`` when the caller knows it already."""
    parts: list[str] = []
    f_start: list[int] = []
    o_start: list[int] = []
    o_len: list[int] = []
    copied: list[bool] = []
    f_pos = 0

    def emit(piece: str, orig: int, orig_len: int, same: bool) -> None:
        nonlocal f_pos
        parts.append(piece)
        f_start.append(f_pos)
        o_start.append(orig)
        o_len.append(orig_len)
        copied.append(same)
        f_pos += len(piece)

    last = 0
    if text.isascii():
        # Every character of _ASCII_SPACE_OTHER is a control character: a
        # printable text holds none of them.
        printable = text.isprintable() if plain is None else plain
        if "  " not in text and (printable
                                 or not any(ch in text for ch in _ASCII_SPACE_OTHER)):
            # Nothing to fold: the common case of one line of ASCII prose.
            return _Folded(text, [0], [0], [len(text)], [True])
        pieces = _FOLDABLE_ASCII.finditer(text)
    else:
        pieces = _FOLDABLE.finditer(text)
    for m in pieces:
        if m.start() > last:
            emit(text[last : m.start()], last, m.start() - last, True)
        run = m.group(0)
        if run[0].isspace():
            emit(" ", m.start(), len(run), False)
        else:
            _fold_run(run, m.start(), emit)
        last = m.end()
    if last < len(text) or not parts:
        emit(text[last:], last, len(text) - last, True)
    return _Folded("".join(parts), f_start, o_start, o_len, copied)
