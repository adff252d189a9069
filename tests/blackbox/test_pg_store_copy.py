"""``memctl store copy``: a SQLite home's memory moved into PostgreSQL, verified.

A real daemon writes, proposes and removes on SQLite; it stops; the copy moves
memory, the pending action and the audit chain into a new schema; the home's
``[store]`` then points at it and a daemon on PostgreSQL reads the memory
back, approves the pending action and verifies the one chain. The canary
text is never in the copy's output.
"""

from __future__ import annotations

import json
import sqlite3
import uuid
from pathlib import Path

import pytest

from memoryd.audit.packing import stored_of
from tests.harness import (
    PG_DSN,
    Daemon,
    enable_consent,
    entry,
    fresh_identity,
    pg_store_section,
)

pytest.importorskip("psycopg")

CANARY = "canarymarigold" + uuid.uuid4().hex[:6]


def _sqlite_home(home: Path) -> Daemon:
    # An explicit [store] keeps this home on SQLite whatever --backend the run has.
    return Daemon(home, config='[store]\nbackend = "sqlite"\n')


def test_a_stopped_sqlite_home_copies_into_postgresql_and_serves_from_it(home: Path) -> None:
    d = _sqlite_home(home).start()
    ident = fresh_identity("copy-")
    with d.control() as c:
        enable_consent(c)
        enable_consent(c, ident)
        kept = c.call(
            "memory.write",
            {
                "target": "memory",
                "action": "add",
                "entry": entry("Kept note", f"Keep {CANARY} here."),
            },
        )
        gone = c.call(
            "memory.write",
            {
                "target": "memory",
                "action": "add",
                "entry": entry("Gone note", "Removed before the copy."),
            },
        )
        c.call(
            "memory.write",
            {
                "target": "memory",
                "action": "remove",
                "id": gone["entries"][0]["id"],
                "expected_revision": gone["entries"][0]["revision"],
            },
        )
        token = c.call("token.issue", {"identity": ident})["token"]
    with d.agent() as a:
        task = a.call("task.begin", {"token": token})
        pending = a.call(
            "memory.write",
            {
                "task_id": task["task_id"],
                "action": "add",
                "entry": entry("Proposed", f"Wait {CANARY}."),
            },
        )
    assert pending["outcome"] == "pending"
    with d.control() as c:
        before = c.call("audit.verify", {})
    assert d.stop() == 0

    schema = "c_" + uuid.uuid4().hex[:16]
    section = pg_store_section(schema)  # registered: dropped when the run ends
    out = d.memctl("store", "copy", "--to", PG_DSN, "--schema", schema, "--json")
    assert out.returncode == 0, out.stderr
    summary = json.loads(out.stdout)
    assert summary["verified"] is True
    # The chain head the SQLite file holds (the daemon's stop event included).
    with sqlite3.connect(f"file:{d.home / 'memory.db'}?mode=ro", uri=True) as db:
        seq, body, hsh = db.execute(
            "SELECT seq, body, hash FROM audit ORDER BY seq DESC LIMIT 1"
        ).fetchone()
    assert seq >= before["head"]["seq"]
    assert summary["audit_head"] == {"seq": seq, "hash": stored_of(seq, body, hsh).hash}
    assert summary["rows"]["entries"] == 2 and summary["rows"]["actions"] == 1
    text = (out.stdout + out.stderr).decode()
    assert CANARY not in text and "Kept note" not in text and "dbname" not in text

    # The operator's form says the same in words, and no memory text either.
    other = "c_" + uuid.uuid4().hex[:16]
    pg_store_section(other)
    words = d.memctl("store", "copy", "--to", PG_DSN, "--schema", other)
    assert words.returncode == 0, words.stderr
    said = (words.stdout + words.stderr).decode()
    assert "verified" in said and f"head seq {seq}" in said
    assert CANARY not in said and "Kept note" not in said and "dbname" not in said

    # A second copy into the same (now filled) schema is refused, and changes nothing.
    again = d.memctl("store", "copy", "--to", PG_DSN, "--schema", schema)
    assert again.returncode == 1
    assert b"already holds tables" in again.stderr

    (d.home / "memoryd.toml").write_text(section)
    pg = Daemon(d.home, config=section).start()
    try:
        with pg.control() as c:
            status = c.call("memory.status", {})
            assert status["backend"]["kind"] == "postgresql"
            got = c.call("memory.read", {"ids": [kept["entries"][0]["id"]]})
            assert got["entries"][0]["body"] == f"Keep {CANARY} here."
            listed = c.call("memory.list", {"query": "Kept"})
            assert [i["title"] for i in listed["items"]] == ["Kept note"]
            approved = c.call("governance.action.approve", {"action_id": pending["action_id"]})
            assert approved["outcome"] == "applied"
            after = c.call("audit.verify", {})
        assert after["ok"] is True
        assert after["head"]["seq"] > seq
        verify = pg.memctl("audit", "verify")
        assert verify.returncode == 0, verify.stdout + verify.stderr
    finally:
        pg.stop()


def test_the_copy_refuses_a_served_home_and_a_password_in_the_dsn(home: Path) -> None:
    d = _sqlite_home(home).start()
    try:
        served = d.memctl("store", "copy", "--to", PG_DSN, "--schema", "c_" + uuid.uuid4().hex[:16])
        assert served.returncode == 1
        assert b"stop its memoryd first" in served.stderr
    finally:
        d.stop()
    secret = "pw" + uuid.uuid4().hex
    leaky = d.memctl("store", "copy", "--to", f"{PG_DSN} password={secret}")
    assert leaky.returncode == 1
    assert secret.encode() not in leaky.stdout + leaky.stderr
    assert b"must not hold a password" in leaky.stderr
    env_missing = d.memctl(
        "store",
        "copy",
        "--to",
        PG_DSN,
        "--password-env",
        "MEMORYD_NO_SUCH_" + uuid.uuid4().hex[:6].upper(),
    )
    assert env_missing.returncode == 1
    assert b"not set" in env_missing.stderr
