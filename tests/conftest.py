"""Shared fixtures: a real daemon per test on a short temporary home."""

from __future__ import annotations

import os
from collections.abc import Iterator

import pytest
from hypothesis import HealthCheck, settings

from tests.harness import Daemon, backend, drop_pg_schemas, running

# No test asserts on time (speed is measured under bench/), and hypothesis's
# per-example deadline and its too-slow health check are timings: on a busy
# two-core machine running workers side by side they fail tests whose
# properties hold. Every property keeps its example counts and shrinking.
settings.register_profile("memoryd", deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.load_profile("memoryd")


@pytest.fixture
def daemon() -> Iterator[Daemon]:
    with running() as d:
        yield d


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--slow",
        action="store_true",
        default=False,
        help="run the long crash and fuzz loops with more iterations",
    )
    parser.addoption(
        "--backend",
        choices=("sqlite", "postgresql"),
        default=None,
        help="the primary store the black-box daemons use"
        " (default: $MEMORYD_TEST_BACKEND, else sqlite)",
    )


def pytest_configure(config: pytest.Config) -> None:
    chosen = config.getoption("--backend")
    if chosen is not None:
        os.environ["MEMORYD_TEST_BACKEND"] = chosen


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Skip tests marked ``sqlite_only(reason)`` when the daemons run on PostgreSQL."""
    if backend() != "postgresql":
        return
    for item in items:
        mark = item.get_closest_marker("sqlite_only")
        if mark is not None:
            reason = mark.args[0] if mark.args else mark.kwargs["reason"]
            item.add_marker(pytest.mark.skip(reason=f"SQLite only: {reason}"))


def pytest_unconfigure(config: pytest.Config) -> None:
    drop_pg_schemas()


@pytest.fixture
def slow(request: pytest.FixtureRequest) -> bool:
    """True under --slow: loops bounded for CI run longer."""
    return bool(request.config.getoption("--slow"))
