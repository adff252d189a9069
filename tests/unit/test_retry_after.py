"""How the language-model extractor reads an endpoint's ``Retry-After``
(daemon/extraction/extract_model.py ``retry_after``): delay-seconds or an HTTP
date, and nothing from a value it cannot read."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from memoryd.daemon.extraction.extract_model import retry_after

NOW = datetime(2026, 12, 6, 4, 0, 0, tzinfo=UTC)


@pytest.mark.parametrize(
    ("value", "seconds"),
    [
        ("30", 30.0),
        (" 120 ", 120.0),
        ("0", 0.0),
        ("Sun, 06 Dec 2026 04:01:30 GMT", 90.0),
        # A date already past asks for no wait at all.
        ("Sun, 06 Dec 2026 03:00:00 GMT", 0.0),
        (None, None),
        ("", None),
        ("-5", None),
        ("1.5", None),
        ("soon", None),
        ("Sun, 06 Dec 2026 04:01:30", None),  # no zone: not an HTTP date
    ],
)
def test_retry_after_is_seconds_or_an_http_date(value: str | None, seconds: float | None) -> None:
    assert retry_after(value, NOW) == seconds
