"""memctl ui renders stored text safely: escaped, and invisible characters shown.

The template environment is pure (no daemon, no server), so these render the
real templates with crafted entries.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import pytest

pytest.importorskip("jinja2")

from memoryd.memctl import format as fmt
from memoryd.memctl.ui.present import make_environment, relative

NOW = datetime(2026, 1, 10, tzinfo=UTC)
HOSTILE = "Zero\u200bwidth \u202eevil\u202c <script>alert(1)</script> \x1b[31mred & more"


def _entry(**fields: Any) -> dict[str, Any]:
    base = {
        "id": "ent_1",
        "title": "t",
        "body": "b",
        "summary": "s",
        "type": "fact",
        "status": "active",
        "revision": 1,
        "source": "agent",
        "target": "memory",
        "scope": "default",
        "basis": {"kind": "human", "note": "n"},
        "validity": None,
        "created_at": "2026-01-07T00:00:00Z",
        "updated_at": "2026-01-07T00:00:00Z",
        "expires_at": "2026-05-07T00:00:00Z",
        "use_count": 3,
        "content_hash": "b3k:x",
        "applicability": "unrecorded",
        "ttl_days": 120.0,
    }
    return {**base, **fields}


def _render(template: str, **context: Any) -> str:
    env = make_environment(lambda: NOW)
    defaults = {
        "csrf": "tok",
        "csrf_field": "csrf",
        "identity": None,
        "notices": [],
        "now": NOW,
        "active": "/memories",
        "entry_types": ("fact",),
        "basis_kinds": ("human",),
        "statuses": ("active",),
        "sources": ("user",),
        "targets": ("memory",),
    }
    return env.get_template(template).render(**{**defaults, **context})


def test_entry_page_shows_invisible_characters_as_memctl_does() -> None:
    html = _render(
        "entry.html",
        e=_entry(title=HOSTILE, body=HOSTILE),
        pending=[],
        revisions=[],
        revisions_complete=True,
        conflict=None,
    )
    shown = fmt.clean(HOSTILE)
    assert "\\u200b" in shown and "\\u202e" in shown and "\\x1b" in shown
    # The visible escapes appear, HTML-escaped, wherever the text is shown.
    assert (
        "Zero\\u200bwidth \\u202eevil\\u202c &lt;script&gt;alert(1)&lt;/script&gt; "
        "\\x1b[31mred &amp; more" in html
    )
    assert "<script>" not in html
    assert "invisible or control characters" in html


def test_listing_escapes_titles_and_snippets() -> None:
    item = {
        "id": "ent_1",
        "title": HOSTILE,
        "snippet": "<img src=x onerror=y>",
        "type": "fact",
        "status": "active",
        "source": "agent",
        "scope": "default",
        "target": "memory",
        "created_at": "2026-01-09T00:00:00Z",
        "expires_at": "2026-02-09T00:00:00Z",
        "use_count": 0,
        "revision": 1,
    }
    html = _render(
        "memories.html",
        stale=False,
        key="k",
        page=0,
        items=[item],
        hidden_by_source=0,
        result={"mode": "search"},
        more=False,
        view={"params": {}, "sources": ()},
    )
    assert "<img" not in html and "&lt;img src=x onerror=y&gt;" in html
    assert "\u200b" not in html and "\u202e" not in html and "\x1b" not in html


def test_entry_page_says_a_pinned_entry_never_expires() -> None:
    html = _render(
        "entry.html",
        e=_entry(title="T", body="B", pinned=True, expires_at="9999-12-31T23:59:59.999999Z"),
        pending=[],
        revisions=[],
        revisions_complete=True,
        conflict=None,
    )
    assert "never (pinned)" in html and "9999" not in html


def test_an_expression_cannot_skip_the_cleaning() -> None:
    # finalize cleans every {{ }} output, even without a filter.
    env = make_environment(lambda: NOW)
    out = env.from_string("{{ x }}|{{ y }}|{{ z }}").render(x="a\u2066b", y=None, z=True)
    assert out == "a\\u2066b|-|yes"


@pytest.mark.parametrize(
    ("stamp", "expected"),
    [
        ("2026-01-07T00:00:00Z", "3 d ago"),
        ("2026-01-10T05:00:00Z", "in 5 h"),
        ("2027-01-10T00:00:00Z", "in 1 y"),
        (None, "-"),
        ("not a time", "-"),
        ("9999-12-31T23:59:59.999999Z", "never (pinned)"),  # a pinned entry's expiry
    ],
)
def test_relative_times(stamp: object, expected: str) -> None:
    assert relative(stamp, NOW) == expected


def test_the_current_page_is_marked_for_assistive_technology() -> None:
    html = _render("status.html", s={}, active="/status")
    assert '<a href="/status" aria-current="page">Status</a>' in html
    assert html.count('aria-current="page"') == 1
