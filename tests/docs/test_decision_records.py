"""The decision records are short, numbered, and all listed in their index."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.harness import REPO

RECORDS = REPO / "docs" / "decisions"
NAME = re.compile(r"^(\d{4})-[a-z0-9]+(?:-[a-z0-9]+)*\.md$")
STATUS = re.compile(r"^Status: (accepted|superseded by (\d{4}))$")
MAX_LINES = 60


def _records() -> list[Path]:
    return sorted(p for p in RECORDS.glob("*.md") if p.name != "README.md")


def test_there_are_records() -> None:
    assert len(_records()) > 50


@pytest.mark.parametrize("record", _records(), ids=lambda p: p.name)
def test_a_record_is_short_and_says_its_number_and_status(record: Path) -> None:
    name = NAME.match(record.name)
    assert name, f"{record.name}: name it NNNN-short-title.md"
    lines = record.read_text().splitlines()
    assert len(lines) <= MAX_LINES, f"{record.name} has {len(lines)} lines"
    assert lines[0].startswith(f"# {name.group(1)}. "), lines[0]
    status = [STATUS.match(line) for line in lines if line.startswith("Status:")]
    assert len(status) == 1 and status[0], f"{record.name}: one 'Status:' line"
    superseded_by = status[0].group(2)
    if superseded_by:
        assert list(RECORDS.glob(f"{superseded_by}-*.md")), f"{record.name}: no {superseded_by}"


def test_numbers_are_unique() -> None:
    numbers = [p.name[:4] for p in _records()]
    assert len(numbers) == len(set(numbers))


def test_the_index_lists_every_record_and_nothing_else() -> None:
    index = (RECORDS / "README.md").read_text()
    listed = set(re.findall(r"\]\((\d{4}-[^)]+\.md)\)", index))
    assert listed == {p.name for p in _records()}
