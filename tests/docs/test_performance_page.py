"""docs/performance.md says what memoryd costs and how to measure it, in at
most 400 lines: what changed and when belongs in git, not on the page."""

from __future__ import annotations

from tests.harness import REPO

MAX_LINES = 400


def test_the_performance_page_stays_short() -> None:
    lines = (REPO / "docs" / "performance.md").read_text().splitlines()
    assert len(lines) <= MAX_LINES, f"docs/performance.md has {len(lines)} lines"


def test_the_page_shows_how_to_measure() -> None:
    page = (REPO / "docs" / "performance.md").read_text()
    assert "bench/run.py" in page
    assert "bench/instructions.py" in page
