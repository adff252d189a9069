"""Entry types, entry statuses and the retention (TTL) table.

Owns: the closed vocabularies of entry ``type`` and ``status`` (SPEC §6), the
default ``ttl_days`` of each type, and the one formula for ``expires_at``.

Invariants:
- ``DEFAULT_TTL_DAYS`` has exactly one row per ``EntryType``; adding a type is
  adding a row (a test checks the table is total);
- ``expires_at`` is pure: the caller passes ``renewed_at`` (no clock is read
  here) and it must be timezone-aware, so an expiry is never computed from a
  wall time of unknown zone;
- a TTL is a positive, finite number of days; anything else is refused, not
  clamped, so a bad config value cannot silently mean "never expires".
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from datetime import datetime, timedelta
from enum import StrEnum
from types import MappingProxyType

__all__ = [
    "DEFAULT_TTL_DAYS",
    "ENTRY_STATUSES",
    "ENTRY_TYPES",
    "NEVER_EXPIRES",
    "EntryStatus",
    "EntryType",
    "default_ttl_days",
    "expires_at",
    "is_expired",
]


class EntryType(StrEnum):
    PREFERENCE = "preference"
    PROCEDURE = "procedure"
    FACT = "fact"
    LESSON = "lesson"


class EntryStatus(StrEnum):
    ACTIVE = "active"
    SUPERSEDED = "superseded"
    ARCHIVED = "archived"
    EXPIRED = "expired"
    REMOVED = "removed"


# The same vocabularies as plain strings, in declaration order (the order
# tables, choices and error messages list them in).
ENTRY_TYPES: tuple[str, ...] = tuple(t.value for t in EntryType)
ENTRY_STATUSES: tuple[str, ...] = tuple(s.value for s in EntryStatus)


# Default ttl_days by type (SPEC §6). One row per EntryType.
DEFAULT_TTL_DAYS: Mapping[EntryType, int] = MappingProxyType({
    EntryType.PREFERENCE: 180,
    EntryType.PROCEDURE: 90,
    EntryType.FACT: 120,
    EntryType.LESSON: 120,
})


# The ``expires_at`` of a pinned entry: later than any time a clock reads,
# so every "past expires_at" comparison (recall, listings, the janitor) keeps
# it, and it sorts after every real expiry (docs/decisions/0341).
NEVER_EXPIRES = "9999-12-31T23:59:59.999999Z"


def default_ttl_days(entry_type: EntryType | str) -> int:
    """The default TTL of ``entry_type``; ``ValueError`` for an unknown type."""
    return DEFAULT_TTL_DAYS[EntryType(entry_type)]


def _check_aware(name: str, value: datetime) -> None:
    # A naive datetime is ambiguous (local time? UTC?); comparing or storing it
    # beside aware ones gives wrong expiries, so refuse it outright.
    if value.tzinfo is None or value.utcoffset() is None:
        raise ValueError(f"{name} must be timezone-aware")


def expires_at(renewed_at: datetime, ttl_days: float) -> datetime:
    """``renewed_at + ttl_days`` (SPEC §6: ``expires_at = renewed_at + ttl_days``).

    ``ttl_days`` may be fractional. Raises ``ValueError`` for a naive
    ``renewed_at``, a non-positive or non-finite TTL, or a result outside the
    range ``datetime`` can represent.
    """
    _check_aware("renewed_at", renewed_at)
    if isinstance(ttl_days, bool) or not isinstance(ttl_days, int | float):
        raise ValueError("ttl_days must be a number")
    if not math.isfinite(ttl_days) or ttl_days <= 0:
        raise ValueError("ttl_days must be positive and finite")
    try:
        return renewed_at + timedelta(days=ttl_days)
    except OverflowError:
        # Surface as the same error type as every other bad TTL, so callers
        # handle one exception.
        raise ValueError("ttl_days is too large") from None


def is_expired(expires: datetime, now: datetime) -> bool:
    """Whether an entry expiring at ``expires`` is past it at ``now``.

    The boundary instant counts as expired: at ``expires_at`` the entry has
    lived its full TTL.
    """
    _check_aware("expires", expires)
    _check_aware("now", now)
    return now >= expires
