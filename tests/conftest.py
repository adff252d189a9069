"""Shared fixtures: a real daemon per test on a short temporary home."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.harness import Daemon, running


@pytest.fixture
def daemon() -> Iterator[Daemon]:
    with running() as d:
        yield d
