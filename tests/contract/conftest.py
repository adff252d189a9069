"""The store contract: one suite, run against every backend.

``store_config`` yields the ``memoryd.toml`` text selecting a backend: the
home's SQLite file, or a fresh PostgreSQL schema dropped after the test. The
PostgreSQL leg needs the server (``.ci/run`` starts it); when it cannot be
reached the leg fails, it is never skipped.
"""

from __future__ import annotations

import os
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import psycopg
import pytest

from memoryd.daemon import home as home_mod
from memoryd.daemon.config import load_config
from memoryd.daemon.storage.backends import open_store
from memoryd.daemon.storage.store import Store
from tests.harness import PG_DSN

BACKENDS = ("sqlite", "postgresql")


def drop_schema(schema: str) -> None:
    with psycopg.connect(PG_DSN, autocommit=True) as conn:
        conn.execute(f'DROP SCHEMA IF EXISTS "{schema}" CASCADE')


@pytest.fixture
def pg_schema() -> Iterator[str]:
    """A schema name no other test uses; dropped after the test."""
    schema = "c_" + uuid.uuid4().hex[:16]
    try:
        yield schema
    finally:
        drop_schema(schema)


@contextmanager
def opened(tmp: Path, config: str) -> Iterator[Store]:
    """A store as a daemon on home ``tmp/h`` with ``config`` opens it."""
    home_path = tmp / "h"
    home_path.mkdir(mode=0o700, parents=True)
    (home_path / "memoryd.toml").write_text(config)
    home = home_mod.prepare(home_path)
    store = open_store(load_config(home.path), home.db, home.path, os.environ)
    try:
        yield store
    finally:
        store.close()


def pg_section(schema: str) -> str:
    return f'[store]\nbackend = "postgresql"\ndsn = "{PG_DSN}"\nschema = "{schema}"\n'


@pytest.fixture(params=BACKENDS)
def store_config(request: pytest.FixtureRequest) -> Iterator[str]:
    if request.param == "sqlite":
        yield ""
        return
    schema = "c_" + uuid.uuid4().hex[:16]
    try:
        yield pg_section(schema)
    finally:
        drop_schema(schema)
