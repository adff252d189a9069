"""Entry rows have one owner: only daemon/pipeline/entries.py changes them.

Retention, undo, recall's use counts, promotion and the write path all go
through its public functions. Read from the source: an SQL string anywhere
else in ``daemon/`` that inserts into, updates or deletes from ``entries`` or
``revisions`` fails this test. ``store.py`` and ``store_pg.py`` are left out:
they hold each backend's schema, the triggers that keep the full-text index,
usage totals and revisions, and migrations.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

DAEMON = Path(__file__).resolve().parents[2] / "daemon"
OWNER = "pipeline/entries.py"
SCHEMAS = (
    "storage/store.py",
    "storage/sqlite_schema.py",
    "storage/store_pg.py",
    "storage/pg_schema.py",
)
CHANGE = re.compile(
    r"\b(?:INSERT\s+(?:OR\s+\w+\s+)?INTO|UPDATE|DELETE\s+FROM|REPLACE\s+INTO)\s+"
    r"(?:entries|revisions)\b",
    re.IGNORECASE,
)


def row_changes(source: str) -> list[int]:
    """Lines of the string literals in ``source`` that change entry rows."""
    return [
        node.lineno
        for node in ast.walk(ast.parse(source))
        if isinstance(node, ast.Constant)
        and isinstance(node.value, str)
        and CHANGE.search(node.value)
    ]


@pytest.mark.parametrize(
    ("sql", "found"),
    [
        ("UPDATE entries SET use_count = 1", True),
        ("INSERT OR REPLACE INTO revisions(entry_id) VALUES (?)", True),
        ("delete from entries where id = ?", True),
        ("INSERT INTO entries_fts(rowid) VALUES (?)", False),
        ("SELECT * FROM entries WHERE id = ?", False),
        ("UPDATE entry_vectors SET v = ?", False),
    ],
)
def test_the_checker_tells_changes_from_reads(sql: str, found: bool) -> None:
    assert bool(row_changes(f"x = {sql!r}\n")) is found


def _name(path: Path) -> str:
    return path.relative_to(DAEMON).as_posix()


@pytest.mark.parametrize(
    "path",
    sorted(p for p in DAEMON.rglob("*.py") if _name(p) != OWNER and _name(p) not in SCHEMAS),
    ids=_name,
)
def test_only_entries_py_changes_entry_rows(path: Path) -> None:
    assert row_changes(path.read_text(encoding="utf-8")) == [], (
        f"{_name(path)} changes entry rows itself; use daemon/pipeline/entries.py"
    )
