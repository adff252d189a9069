"""Fixtures shared by black-box modules: clients on the module's daemon ``d``.

Each module that uses them defines its own (usually module-scoped) ``d``
fixture, so it chooses its daemon's config and policy; ``c`` and ``a`` give a
fresh control and agent connection to that daemon for each test.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from memoryd.rpc.client import Client
from tests.harness import Daemon


@pytest.fixture
def c(d: Daemon) -> Iterator[Client]:
    with d.control() as client:
        yield client


@pytest.fixture
def a(d: Daemon) -> Iterator[Client]:
    with d.agent() as client:
        yield client
