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


def fmt(moment: datetime) -> str:
    return moment.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def parse(text: str) -> datetime:
    return datetime.fromisoformat(text.replace("Z", "+00:00")).astimezone(UTC)


def plus(moment: datetime, *, days: float = 0, hours: float = 0, seconds: float = 0) -> datetime:
    return moment + timedelta(days=days, hours=hours, seconds=seconds)
