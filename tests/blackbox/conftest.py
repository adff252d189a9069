"""Fixtures shared by black-box modules: the module's daemon ``d`` and clients on it.

``d`` is one daemon per module, started as the module's ``DAEMON`` says (the
keywords of ``running``: config, policy, ranker, env; none: the defaults); a
module that needs more defines its own ``d``. ``c`` and ``a`` give a fresh
control and agent connection to that daemon for each test; ``home`` is a
fresh, not yet created home for tests that start and stop daemons themselves.
"""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from memoryd.rpc.client import Client
from tests.harness import Daemon, running, short_tempdir


@pytest.fixture(scope="module")
def d(request: pytest.FixtureRequest) -> Iterator[Daemon]:
    """The module's daemon, as its ``DAEMON`` keywords say; stopped after the module."""
    with running(**getattr(request.module, "DAEMON", {})) as daemon:
        yield daemon


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
