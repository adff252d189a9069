"""Fixtures the unit tests of the store share."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from memoryd.daemon.storage.store import SqliteStore


@pytest.fixture
def store(tmp_path: Path) -> Iterator[SqliteStore]:
    """A fresh SQLite store in the test's folder, closed after it."""
    s = SqliteStore(tmp_path / "memory.db")
    try:
        yield s
    finally:
        s.close()
