"""Start a real ``memoryd`` on a temporary home and talk to it over its sockets.

Black-box tests use this and ``rpc.client`` only: the daemon runs as a child
process exactly as an operator would run it, and its stderr (the log) is kept
so tests can search it for canaries. Starting it is bench/daemon.py's (the
benchmarks share it); the flows only tests need are here.
"""

from __future__ import annotations

import json
import shutil
import uuid
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

import apsw
import pytest

# Shared with the benchmarks; the tests import them from here.
from bench.daemon import (  # noqa: F401
    MEMCTL,
    MEMORYD,
    PG_DSN,
    PG_SCHEMAS,
    REPO,
    Daemon,
    backend,
    drop_pg_schemas,
    enable_consent,
    entry,
    memctl_in_process,
    pg_connect,
    pg_store_of,
    pg_store_section,
    running,
    shared_pair,
    short_tempdir,
)
from memoryd.audit.packing import first_needed, unpack_rows
from memoryd.rpc.client import Client, RpcError


def store_file(db: Path, *, readonly: bool = False) -> apsw.Connection:
    """A connection of the test's own to a SQLite store a daemon may be
    writing: it waits for the daemon's lock as the daemon waits for others'
    (a connection without a busy timeout fails at once with ``BusyError``)."""
    flags = apsw.SQLITE_OPEN_READONLY if readonly else apsw.SQLITE_OPEN_READWRITE
    conn = apsw.Connection(str(db), flags=flags)
    conn.set_busy_timeout(10_000)
    return conn


def shared_pair_on_fresh_schema(
    policy: str | None = None, ranker: str = "lexical", config: str = ""
) -> Iterator[tuple[Daemon, Daemon]]:
    """``shared_pair`` on a new schema under a short temporary root, for a
    fixture to ``yield from``: both daemons stopped and the root removed
    after."""
    root = short_tempdir()
    first, second = shared_pair(
        root, "s_" + uuid.uuid4().hex[:16], config=config, policy=policy, ranker=ranker
    )
    try:
        yield first, second
    finally:
        try:
            first.stop()
            second.stop()
        finally:
            shutil.rmtree(root, ignore_errors=True)


# --- flows the tests share ------------------------------------------------------


def fresh_identity(prefix: str = "id-") -> dict[str, str]:
    """A new local identity, so a test's owner shares nothing with another test's."""
    return {"kind": "local", "subject": prefix + uuid.uuid4().hex}


def team_member_and_outsider(
    c: Client, team: str, prefix: str
) -> tuple[dict[str, str], dict[str, str], dict[str, str]]:
    """A new team ``team`` with one fresh member, and a fresh identity outside
    it; both with consent and a token (keyed by the identity's subject)."""
    member, outsider = fresh_identity(prefix + "m-"), fresh_identity(prefix + "o-")
    tokens = {}
    for who in (member, outsider):
        enable_consent(c, identity=who)
        tokens[who["subject"]] = c.call("token.issue", {"identity": who})["token"]
    c.call("team.create", {"name": team})
    c.call("team.add", {"name": team, "identity": member})
    return member, outsider, tokens


# What an audit row is read with (audit/packing.py): a packed row needs the
# rows before it in its block. Select ``AUDIT_ROWS`` with (first, seq) =
# ``audit_span(seq)`` and hand the rows to ``audit_body``.
AUDIT_ROWS = "SELECT seq, body, hash FROM audit WHERE seq BETWEEN ? AND ? ORDER BY seq"


def audit_span(seq: int) -> tuple[int, int]:
    return first_needed(seq), seq


def audit_body(rows: Iterable[tuple[int, bytes, Any]], seq: int) -> bytes:
    """The canonical bytes audit row ``seq`` holds, read from ``rows``
    (``AUDIT_ROWS`` over ``audit_span(seq)``)."""
    for event in unpack_rows(rows):
        if event.seq == seq:
            return event.body
    raise LookupError(f"no audit row {seq}")


# A policy under which agent writes apply at once: nothing but the content
# scan (and its review flag) stands between a write and its scope.
AGENT_WRITES = """
[[rule]]
id = "agent-writes"
effect = "allow"
capability = "MemoryWrite"
channel = "agent"
"""

# A GitHub personal access token's form (the scanner's secret rules).
GITHUB_TOKEN = "ghp_a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8"


def exported_audit(c: Client) -> str:
    """Every audit event ``c`` may export, one JSON line each, characters
    outside ASCII as they are (a canary searched for is found as written)."""
    events = c.call("audit.export", {"after_seq": 0, "limit": 100_000})["events"]
    return "\n".join(json.dumps(event, ensure_ascii=False) for event in events)


def expect(code: int, data_code: str, fn: Any, *args: Any) -> RpcError:
    """The error ``fn(*args)`` raises, after checking its code and data code."""
    with pytest.raises(RpcError) as info:
        fn(*args)
    assert (info.value.code, info.value.data_code) == (code, data_code), info.value.data
    return info.value
