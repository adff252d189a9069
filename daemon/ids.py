"""Identifiers: one prefix per kind, random enough to be unguessable.

Entry ids are sortable (48-bit millisecond time, then 80 random bits, in
Crockford base32, like a ULID) so listings by id follow creation order. Every
other id is 128 random bits: a task id is a capability-like handle and must not
be guessable from another. Those bits come from the operating system's random
source (``os.urandom``, what ``secrets`` reads) a block of ids at a time: one
read serves ``_BLOCK`` ids, each still 128 bits of its own that no other id
tells anything about (docs/decisions.md, "Random ids a block at a time").
"""

from __future__ import annotations

import os
import re
import secrets
from datetime import datetime

_CROCKFORD = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"


# Every pair of digits, by the 10 bits they write: a value's digits two at a
# time by lookup (base64's base32 encoder loops in Python over 5-byte groups).
_PAIRS = tuple(a + b for a in _CROCKFORD for b in _CROCKFORD)


def _b32(value: int, length: int) -> str:
    """The last ``length`` base32 digits of ``value``, most significant first
    (Crockford's alphabet)."""
    even = length + (length & 1)  # whole pairs; the extra leading digit is cut
    value &= (1 << (length * 5)) - 1
    digits = "".join([_PAIRS[(value >> shift) & 1023] for shift in range(even * 5 - 10, -1, -10)])
    return digits[even - length:]


def entry_id(now: datetime) -> str:
    ms = int(now.timestamp() * 1000) & ((1 << 48) - 1)
    return "ent_" + _b32((ms << 80) | secrets.randbits(80), 26)


# Every entry id this daemon makes (``entry_id``): Crockford base32 has no I,
# L, O or U.
_ENTRY_ID = re.compile("ent_[0-9A-HJKMNP-TV-Z]{26}")


def is_entry_id(text: str) -> bool:
    """Whether ``text`` has the form of an id ``entry_id`` makes (no entry has another)."""
    return _ENTRY_ID.fullmatch(text) is not None


# Ids drawn from one ``os.urandom`` read: 128 bits each, 32 hex digits.
_BLOCK = 64
# The hex digits of ids drawn and not yet given, each given once: ``list.pop``
# is atomic, so the loop and the writer thread never share one.
_drawn: list[str] = []
# A forked child must not give the ids its parent gives.
os.register_at_fork(after_in_child=_drawn.clear)


def _draw() -> None:
    digits = os.urandom(16 * _BLOCK).hex()
    _drawn.extend([digits[i:i + 32] for i in range(0, 32 * _BLOCK, 32)])


def random_id(prefix: str) -> str:
    """``prefix``, ``_`` and 128 random bits in lowercase hex (the text
    ``secrets.token_hex(16)`` gives)."""
    while True:
        try:
            return prefix + "_" + _drawn.pop()
        except IndexError:
            _draw()
