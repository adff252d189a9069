"""Deletion on PostgreSQL: after a ``verified`` receipt no byte of the text is in ``base/``.

The server's table and index files are read directly, so the test needs to
run as a user that may read PostgreSQL's data directory (root, as CI runs);
it runs in the PostgreSQL leg only.
"""

from __future__ import annotations

import json
import os
import secrets
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import psycopg
import pytest

from memoryd.rpc.client import Client
from tests.harness import PG_DSN, Daemon, backend, enable_consent, entry, running

pytestmark = pytest.mark.skipif(
    backend() != "postgresql" or os.geteuid() != 0,
    reason="reads PostgreSQL's data directory: the PostgreSQL leg, as root",
)


@pytest.fixture
def d() -> Iterator[Daemon]:
    with running() as daemon:
        yield daemon


def _base_dir() -> Path:
    with psycopg.connect(PG_DSN) as conn:
        row = conn.execute(
            "SELECT current_setting('data_directory'),"
            " (SELECT oid FROM pg_database WHERE datname = current_database())"
        ).fetchone()
    assert row is not None
    return Path(row[0]) / "base" / str(row[1])


def _files_holding(folder: Path, needle: bytes) -> list[str]:
    found = []
    for path in folder.iterdir():
        try:
            if needle in path.read_bytes():
                found.append(path.name)
        except (FileNotFoundError, IsADirectoryError):
            continue  # a file unlinked while we walked
    return found


def _add(c: Client, canary: str) -> dict[str, Any]:
    made: dict[str, Any] = c.call(
        "memory.write",
        {
            "target": "memory",
            "action": "add",
            "entry": entry(f"Title {canary}", f"Body {canary} " + uuid.uuid4().hex),
        },
    )["entries"][0]
    return made


def _assert_on_disk(base: Path, canary: str) -> None:
    """The canary reaches the database's files before it is removed."""
    with psycopg.connect(PG_DSN, autocommit=True) as conn:
        conn.execute("CHECKPOINT")
    assert _files_holding(base, canary.encode())


def test_removed_text_is_gone_from_the_database_files(d: Daemon) -> None:
    canary = "pgcanary" + secrets.token_hex(12)
    base = _base_dir()
    with d.control() as c:
        enable_consent(c)
        made = _add(c, canary)
        c.call(
            "memory.write",
            {
                "target": "memory",
                "action": "replace",
                "id": made["id"],
                "expected_revision": 1,
                "entry": entry(f"Title {canary}", f"Second {canary}."),
            },
        )
        _assert_on_disk(base, canary)
        out = c.call(
            "memory.write",
            {"target": "memory", "action": "remove", "id": made["id"], "expected_revision": 2},
        )
    assert out["receipt"]["status"] == "verified"
    assert _files_holding(base, canary.encode()) == []


def test_a_snapshot_older_than_the_removal_keeps_the_receipt_from_saying_verified(
    d: Daemon,
) -> None:
    """A transaction that began before the removal can still see the row, so
    ``VACUUM FULL`` keeps its bytes: while one is open no receipt may say
    ``verified``. Once it ends, ``memory.gc`` settles the receipt and the
    bytes are gone."""
    canary = "pgsnapshot" + secrets.token_hex(12)
    base = _base_dir()
    with d.control() as c:
        enable_consent(c)
        made = _add(c, canary)
        _assert_on_disk(base, canary)
        with psycopg.connect(PG_DSN) as reader:
            reader.execute("BEGIN ISOLATION LEVEL REPEATABLE READ")
            reader.execute("SELECT 1").fetchone()  # the snapshot is taken here
            out = c.call(
                "memory.write",
                {"target": "memory", "action": "remove", "id": made["id"], "expected_revision": 1},
            )
            assert out["receipt"]["status"] == "incomplete"
            assert c.call("memory.gc", {})["receipts_rechecked"] >= 1
            receipt = c.call("memory.receipt", {"receipt_id": out["receipt"]["receipt_id"]})
            assert receipt["status"] == "incomplete"
            reader.rollback()
        c.call("memory.gc", {})
        receipt = c.call("memory.receipt", {"receipt_id": out["receipt"]["receipt_id"]})
    assert receipt["status"] == "verified"
    assert _files_holding(base, canary.encode()) == []


def test_an_ended_jobs_transcript_is_gone_from_the_database_files() -> None:
    """A transcript is destroyed when its job ends (docs/extraction.md): on
    PostgreSQL its row's bytes must leave the table's pages too, not wait in
    a dead tuple for some later rewrite."""
    canary = "pgtranscript" + secrets.token_hex(12)
    base = _base_dir()
    turn = {"role": "user", "content": f"Could you check why the {canary} build failed?"}
    with running(config="[extract]\npoll_interval_s = 0.05\n") as d, d.control() as c:
        enable_consent(c)
        job_id = c.call("extract.submit", {"jsonl": json.dumps(turn) + "\n"})["job_id"]
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            job = next(j for j in c.call("extract.status", {})["jobs"] if j["job_id"] == job_id)
            if job["state"] not in ("queued", "running"):
                break
            time.sleep(0.05)
        assert job["state"] == "done"
    with psycopg.connect(PG_DSN, autocommit=True) as conn:
        conn.execute("CHECKPOINT")
    assert _files_holding(base, canary.encode()) == []


def test_a_denied_proposal_held_by_a_snapshot_leaves_the_files_once_it_ends(d: Daemon) -> None:
    """A denial rewrites the table its proposal was in; a snapshot older
    than the denial keeps that from completing. The next expiry sweep of
    proposals (the janitor's, or any listing's) tries again, so the text
    leaves with the snapshot rather than at some later removal."""
    canary = "pgdenied" + secrets.token_hex(12)
    base = _base_dir()
    with d.control() as c, d.agent() as a:
        enable_consent(c)
        task = a.call("task.begin", {})["task_id"]
        pending = a.call(
            "memory.write",
            {
                "task_id": task,
                "action": "add",
                "entry": entry(f"Title {canary}", f"Body {canary} " + uuid.uuid4().hex),
            },
        )
        assert pending["outcome"] == "pending"
        _assert_on_disk(base, canary)
        with psycopg.connect(PG_DSN) as reader:
            reader.execute("BEGIN ISOLATION LEVEL REPEATABLE READ")
            reader.execute("SELECT 1").fetchone()  # the snapshot is taken here
            c.call("governance.action.deny", {"action_id": pending["action_id"]})
            with psycopg.connect(PG_DSN, autocommit=True) as conn:
                conn.execute("CHECKPOINT")
            assert _files_holding(base, canary.encode())
            reader.rollback()
        c.call("governance.action.list", {})
    with psycopg.connect(PG_DSN, autocommit=True) as conn:
        conn.execute("CHECKPOINT")
    assert _files_holding(base, canary.encode()) == []
