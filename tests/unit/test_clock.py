"""The one timestamp format: ``fmt`` writes what strftime wrote, for any moment."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone

from hypothesis import given
from hypothesis import strategies as st

from memoryd.daemon.clock import fmt, parse

_ZONES = st.sampled_from(
    [UTC, timezone(timedelta(hours=5, minutes=30)), timezone(timedelta(hours=-8))]
)
_MOMENTS = st.datetimes(
    min_value=datetime(1000, 1, 2), max_value=datetime(9999, 12, 30), timezones=_ZONES
)


@given(_MOMENTS)
def test_fmt_is_the_strftime_form_in_utc(moment: datetime) -> None:
    assert fmt(moment) == moment.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")
    assert parse(fmt(moment)) == moment


@given(_MOMENTS, _MOMENTS)
def test_fmt_of_one_moment_never_answers_for_another(a: datetime, b: datetime) -> None:
    # fmt remembers the moment it formatted last: a different one, even an
    # equal one in another zone, still gets its own text.
    assert fmt(a) == fmt(a)
    assert fmt(b) == b.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")
    assert fmt(a) == a.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def test_a_year_before_1000_keeps_four_digits() -> None:
    assert fmt(datetime(999, 3, 4, 5, 6, 7, 8, tzinfo=UTC)) == "0999-03-04T05:06:07.000008Z"
