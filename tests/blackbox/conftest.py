"""Fixtures shared by black-box modules: clients on the module's daemon ``d``.

Each module that uses them defines its own (usually module-scoped) ``d``
fixture, so it chooses its daemon's config and policy; ``c`` and ``a`` give a
fresh control and agent connection to that daemon for each test; ``home`` is a
fresh, not yet created home for tests that start and stop daemons themselves.
"""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from memoryd.rpc.client import Client
from tests.harness import Daemon, short_tempdir


@pytest.fixture
def home() -> Iterator[Path]:
    """A home folder that does not exist yet, for tests that start daemons themselves."""
    root = short_tempdir()
    try:
        yield root / "h"
    finally:
        shutil.rmtree(root, ignore_errors=True)


@pytest.fixture
def c(d: Daemon) -> Iterator[Client]:
    with d.control() as client:
        yield client


@pytest.fixture
def a(d: Daemon) -> Iterator[Client]:
    with d.agent() as client:
        yield client
