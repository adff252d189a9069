"""Identifiers: one prefix per kind, random enough to be unguessable.

Entry ids are sortable (48-bit millisecond time, then 80 random bits, in
Crockford base32, like a ULID) so listings by id follow creation order. Every
other id is 128 random bits: a task id is a capability-like handle and must not
be guessable from another.
"""

from __future__ import annotations

import secrets
from datetime import datetime

_CROCKFORD = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"


def _b32(value: int, length: int) -> str:
    out = []
    for _ in range(length):
        out.append(_CROCKFORD[value & 31])
        value >>= 5
    return "".join(reversed(out))


def entry_id(now: datetime) -> str:
    ms = int(now.timestamp() * 1000) & ((1 << 48) - 1)
    return "ent_" + _b32((ms << 80) | secrets.randbits(80), 26)


def random_id(prefix: str) -> str:
    return f"{prefix}_{secrets.token_hex(16)}"
