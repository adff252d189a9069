"""Shared fixtures: a real daemon per test on a short temporary home."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.harness import Daemon, running


@pytest.fixture
def daemon() -> Iterator[Daemon]:
    with running() as d:
        yield d


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption("--slow", action="store_true", default=False,
                     help="run the long crash and fuzz loops with more iterations")


@pytest.fixture
def slow(request: pytest.FixtureRequest) -> bool:
    """True under --slow: loops bounded for CI run longer."""
    return bool(request.config.getoption("--slow"))
