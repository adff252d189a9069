"""Identifiers: one prefix per kind, random enough to be unguessable.

Entry ids are sortable (48-bit millisecond time, then 80 random bits, in
Crockford base32, like a ULID) so listings by id follow creation order. Every
other id is 128 random bits: a task id is a capability-like handle and must not
be guessable from another.
"""

from __future__ import annotations

import os
import re
from datetime import datetime

_CROCKFORD = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"
# Every pair of digits, by the 10 bits they write (first digit high).
_PAIRS = tuple(high + low for high in _CROCKFORD for low in _CROCKFORD)


def _entry_digits(ms: int, rand: int) -> str:
    """The 26 base32 digits of ``ms << 80 | rand`` (``ms`` < 2**48, ``rand``
    < 2**80), most significant first, in Crockford's alphabet: ten for the
    time (two leading zero bits), sixteen for the random bits, two a step by
    table from pieces of at most 30 bits, joined once (the standard base32
    encoder is Python in this interpreter: ~27 K instructions for the 20
    bytes of an id, this ~9 K)."""
    p = _PAIRS
    t1, t2 = ms >> 20, ms & 0xFFFFF
    r1, r2, r3, r4 = rand >> 60, rand >> 40 & 0xFFFFF, rand >> 20 & 0xFFFFF, rand & 0xFFFFF
    return "".join((p[t1 >> 20], p[t1 >> 10 & 1023], p[t1 & 1023], p[t2 >> 10], p[t2 & 1023],
                    p[r1 >> 10], p[r1 & 1023], p[r2 >> 10], p[r2 & 1023],
                    p[r3 >> 10], p[r3 & 1023], p[r4 >> 10], p[r4 & 1023]))


def entry_id(now: datetime) -> str:
    ms = int(now.timestamp() * 1000) & ((1 << 48) - 1)
    # The operating system's random bytes, as the secrets module reads them
    # (``secrets.randbits(80)``, ``secrets.token_hex(16)``) without the
    # Python layers between.
    return "ent_" + _entry_digits(ms, int.from_bytes(os.urandom(10)))


# Every entry id this daemon makes (``entry_id``): Crockford base32 has no I,
# L, O or U.
_ENTRY_ID = re.compile("ent_[0-9A-HJKMNP-TV-Z]{26}")


def is_entry_id(text: str) -> bool:
    """Whether ``text`` has the form of an id ``entry_id`` makes (no entry has another)."""
    return _ENTRY_ID.fullmatch(text) is not None


def random_id(prefix: str) -> str:
    return f"{prefix}_{os.urandom(16).hex()}"
