"""Time: the clock seam and the one wire/storage format for timestamps.

Owns: ``Clock`` (a Protocol, so tests can move time without sleeping) and
RFC 3339 UTC formatting with microseconds (``2026-11-29T15:55:00.000000Z``).
Fixed width, so stored timestamps compare correctly as strings.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Protocol


class Clock(Protocol):
    def now(self) -> datetime: ...


class SystemClock:
    def now(self) -> datetime:
        return datetime.now(UTC)


# "00" … "99": two-digit fields by lookup (int formatting parses its spec on
# every call, and a write formats several timestamps).
_TWO = tuple(f"{i:02d}" for i in range(100))
# The moment formatted last and its text: one write formats the same ``now``
# in several places; a tuple, replaced whole, so threads never see half of one.
_last: tuple[datetime | None, str] = (None, "")


def fmt(moment: datetime) -> str:
    """``moment`` as ``YYYY-MM-DDTHH:MM:SS.ffffffZ`` in UTC (the text strftime
    ``%Y-%m-%dT%H:%M:%S.%fZ`` gives, with the year always four digits)."""
    global _last
    last, text = _last
    if last is moment:
        return text
    u = moment.astimezone(UTC)
    us = str(u.microsecond)
    text = (f"{u.year:04d}-{_TWO[u.month]}-{_TWO[u.day]}T{_TWO[u.hour]}:{_TWO[u.minute]}:"
            f"{_TWO[u.second]}.{'0' * (6 - len(us))}{us}Z")
    _last = (moment, text)
    return text


def parse(text: str) -> datetime:
    return datetime.fromisoformat(text.replace("Z", "+00:00")).astimezone(UTC)


def plus(moment: datetime, *, days: float = 0, hours: float = 0, seconds: float = 0) -> datetime:
    return moment + timedelta(days=days, hours=hours, seconds=seconds)
