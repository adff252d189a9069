"""An entry's ``applicability``: its ``validity.until`` lapses at the moment it
names, whatever offset or letter case it was written with."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone

import pytest
from hypothesis import given
from hypothesis import strategies as st

from memoryd.daemon.clock import fmt
from memoryd.daemon.pipeline.entries import applicability

NOW = fmt(datetime(2026, 1, 1, 12, tzinfo=UTC))


@pytest.mark.parametrize(
    ("validity", "expected"),
    [
        (None, "unrecorded"),
        ({}, "unrecorded"),
        ({"check": "ask"}, "recheck"),
        ({"check": "ask", "until": None}, "recheck"),
        # 12:00Z is the clock: the end itself has lapsed.
        ({"check": "ask", "until": "2026-01-01T12:00:00Z"}, "expired"),
        ({"check": "ask", "until": "2026-01-01T12:00:00.000001Z"}, "recheck"),
        ({"check": "ask", "until": "2026-01-01T11:59:59.999999z"}, "expired"),
        ({"check": "ask", "until": "2026-01-01t11:00:00Z"}, "expired"),
        ({"check": "ask", "until": "2026-01-01T17:00:00+05:00"}, "expired"),  # 12:00Z
        ({"check": "ask", "until": "2026-01-01T16:59:00+05:00"}, "expired"),  # 11:59Z
        ({"check": "ask", "until": "2026-01-01T07:01:00-05:00"}, "recheck"),  # 12:01Z
        ({"check": "ask", "until": "2025-12-31T23:00:00-23:00"}, "recheck"),  # 22:00Z
        ({"check": "ask", "until": "9999-12-31T23:59:59-23:59"}, "recheck"),  # past 9999 in UTC
        ({"check": "ask", "until": "0001-01-01T00:00:00+23:59"}, "expired"),  # before year 1
        # A value stored before the write path checked the form compares as it
        # always did, as text.
        ({"check": "ask", "until": "2001-01-01"}, "expired"),
        ({"check": "ask", "until": "2026-01-01T13:00:00"}, "recheck"),
        ({"check": "ask", "until": "tomorrow"}, "recheck"),
    ],
)
def test_applicability(validity: dict[str, object] | None, expected: str) -> None:
    assert applicability(validity, NOW) == expected


_OFFSETS = st.integers(min_value=-(23 * 60 + 59), max_value=23 * 60 + 59).map(
    lambda m: timezone(timedelta(minutes=m))
)
_MOMENTS = st.datetimes(
    min_value=datetime(1000, 1, 2), max_value=datetime(9998, 12, 30), timezones=st.just(UTC)
)


@given(_MOMENTS, _MOMENTS, _OFFSETS, st.booleans())
def test_an_end_lapses_when_the_clock_reaches_it(
    until: datetime, now: datetime, zone: timezone, lower: bool
) -> None:
    text = until.astimezone(zone).isoformat()
    text = text.replace("+00:00", "Z")
    if lower:
        text = text.lower()
    expected = "expired" if until <= now else "recheck"
    assert applicability({"check": "x", "until": text}, fmt(now)) == expected
