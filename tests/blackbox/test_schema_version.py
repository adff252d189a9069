"""The store's schema version is read at every start.

A store of an older version is migrated in one transaction before anything
else runs; a store written by a newer memoryd is refused with one line, and
left exactly as it was.
"""

from __future__ import annotations

import hashlib
import os
import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import apsw

from memoryd.daemon.store import SCHEMA_VERSION
from memoryd.rpc.client import Client
from tests.harness import MEMORYD, Daemon, entry


def _set_version(db: Path, version: int) -> None:
    conn = apsw.Connection(str(db))
    try:
        conn.execute("UPDATE meta SET value = ? WHERE key = 'schema_version'", (str(version),))
    finally:
        conn.close()


def _version(db: Path) -> int:
    conn = apsw.Connection(str(db), flags=apsw.SQLITE_OPEN_READONLY)
    try:
        rows = conn.execute("SELECT value FROM meta WHERE key = 'schema_version'").fetchall()
    finally:
        conn.close()
    return int(rows[0][0])


def _serve(home: Path) -> subprocess.CompletedProcess[str]:
    """A ``memoryd serve`` expected to refuse the start and exit by itself."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("MEMORYD_")}
    return subprocess.run([*MEMORYD, "serve", "--home", str(home)], capture_output=True,
                          text=True, env=env, timeout=60, check=False)


def _first_start(home: Path) -> None:
    d = Daemon(home)
    d.start()
    try:
        with d.control() as c:
            c.call("memory.write", {"target": "memory", "action": "add",
                                    "entry": entry(title="kept across starts")})
    finally:
        d.stop()


def test_a_fresh_store_is_at_the_current_version(home: Path) -> None:
    _first_start(home)
    assert _version(home / "memory.db") == SCHEMA_VERSION


def test_a_store_of_a_newer_version_is_refused_in_one_line_and_left_alone(home: Path) -> None:
    _first_start(home)
    db = home / "memory.db"
    _set_version(db, SCHEMA_VERSION + 1)
    before = hashlib.sha256(db.read_bytes()).hexdigest()
    done = _serve(home)
    assert done.returncode != 0
    lines = [line for line in done.stderr.splitlines() if line.strip()]
    assert len(lines) == 1, done.stderr
    assert f"schema version {SCHEMA_VERSION + 1}" in lines[0]
    assert "Traceback" not in done.stderr
    assert hashlib.sha256(db.read_bytes()).hexdigest() == before
    assert _version(db) == SCHEMA_VERSION + 1


def test_a_store_without_a_version_is_refused(home: Path) -> None:
    _first_start(home)
    conn = apsw.Connection(str(home / "memory.db"))
    try:
        conn.execute("DELETE FROM meta WHERE key = 'schema_version'")
    finally:
        conn.close()
    done = _serve(home)
    assert done.returncode != 0
    assert "schema version" in done.stderr
    assert "Traceback" not in done.stderr


@contextmanager
def _reopened_as(home: Path, version: int, undo_sql: str) -> Iterator[Client]:
    """A store first written by this memoryd, taken back to ``version`` by
    ``undo_sql`` (what that version did not have), then served again."""
    _first_start(home)
    db = home / "memory.db"
    conn = apsw.Connection(str(db))
    try:
        conn.execute(undo_sql)
    finally:
        conn.close()
    _set_version(db, version)
    d = Daemon(home)
    d.start()
    try:
        with d.control() as c:
            assert [item["title"] for item in c.call("memory.list", {})["items"]] == [
                "kept across starts"]
            yield c
            assert c.call("audit.verify", {})["ok"] is True
    finally:
        d.stop()
    assert _version(db) == SCHEMA_VERSION


def test_a_store_of_an_older_version_is_migrated_and_keeps_its_memory(home: Path) -> None:
    # Version 1 had no per-scope running totals: a store of that version is
    # brought up to date (the totals counted once) when it is opened.
    with _reopened_as(home, 1, "DROP TABLE scope_usage") as c:
        assert c.call("memory.status", {})["counts"]["active"] == 1


def test_a_store_from_before_teams_is_migrated_to_hold_them(home: Path) -> None:
    with _reopened_as(home, 3, "DROP TABLE team_members; DROP TABLE teams") as c:
        c.call("team.create", {"name": "ops"})
        assert [t["scope"] for t in c.call("team.list", {})["teams"]] == ["team:ops"]
