"""An id or key names only what its owner made.

Another owner's entry, a made-up id or another owner's idempotency key is
refused as if it did not exist.

On a real daemon over its sockets. The canary strings of a test must never
reach the daemon's log, the audit chain, an error or a status answer.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest

from memoryd.rpc.client import Client, RpcError
from tests.harness import (
    AGENT_WRITES,
    Daemon,
    enable_consent,
    entry,
    expect,
    exported_audit,
    fresh_identity,
    pg_connect,
    pg_store_of,
    running,
)

# How this module's daemon starts (the ``d`` fixture, tests/blackbox/conftest.py).
DAEMON = {"policy": AGENT_WRITES}


@pytest.fixture(scope="module")
def held() -> Iterator[Daemon]:
    """A daemon on the default policy: an agent's write is held for approval."""
    with running() as daemon:
        yield daemon


def _stored_bytes(daemon: Daemon) -> bytes:
    """Every byte of the store: the SQLite database and its WAL, or on
    PostgreSQL every row of the daemon's schema as text."""
    pg = pg_store_of(daemon.home)
    if pg is None:
        files = sorted(daemon.home.glob("memory.db*"))
        assert files, "no store files to read"
        return b"".join(path.read_bytes() for path in files)
    import psycopg.sql

    out = []
    with pg_connect(*pg) as conn:
        tables = [
            r[0]
            for r in conn.execute("SELECT tablename FROM pg_tables WHERE schemaname = %s", (pg[1],))
        ]
        assert tables, "no store tables to read"
        for table in tables:
            query = psycopg.sql.SQL("SELECT t::text FROM {} AS t").format(
                psycopg.sql.Identifier(table)
            )
            out += [str(r[0]) for r in conn.execute(query)]
    return "\n".join(out).encode()


def test_a_covering_entry_id_the_daemon_never_made_is_refused_before_it_is_proposed(
    held: Daemon,
) -> None:
    # An archive's covered_by names an entry by id, and a proposal on
    # agent.sock is stored before any entry is looked up: an id the client
    # made up, which the Id pattern lets hold a key id, was kept with the
    # pending action. No entry has such an id, so the call is refused first.
    canary = "AKIAIOSFODNN7EXAMPLE"
    with held.control() as c, held.agent() as a:
        ident = fresh_identity("cv-")
        enable_consent(c, ident)
        stored = c.call("memory.write", {"identity": ident, "action": "add", "entry": entry()})[
            "entries"
        ][0]
        token = c.call("token.issue", {"identity": ident})["token"]
        tid = a.call("task.begin", {"token": token})["task_id"]
        archive = {
            "action": "archive",
            "id": stored["id"],
            "expected_revision": 1,
            "reason": "old",
            "covered_by": {"id": canary, "expected_revision": 1},
        }
        expect(
            -32002, "covered_target_changed", a.call, "memory.write", {"task_id": tid, **archive}
        )
        expect(
            -32002,
            "covered_target_changed",
            a.call,
            "memory.write",
            {
                "task_id": tid,
                "action": "batch",
                "ops": [{"action": "add", "entry": entry("B")}, archive],
            },
        )
        assert c.call("governance.action.list", {})["items"] == []
        # A covering entry of the daemon's own form is proposed as before.
        other = c.call(
            "memory.write", {"identity": ident, "action": "add", "entry": entry("Other")}
        )["entries"][0]
        out = a.call(
            "memory.write",
            {"task_id": tid, **archive, "covered_by": {"id": other["id"], "expected_revision": 1}},
        )
        assert out["outcome"] == "pending"
        assert canary not in exported_audit(c)
    assert canary.encode() not in _stored_bytes(held)
    assert canary not in held.log()


def test_another_owners_entry_id_is_refused_exactly_as_a_missing_one(d: Daemon) -> None:
    # Each method that takes an entry id answers another owner's entry with
    # the same error, code and details (the id itself aside) as an id no
    # entry has.
    with d.control() as c, d.agent() as a:
        owner, other = fresh_identity("eo-"), fresh_identity("eo-")
        for who in (owner, other):
            enable_consent(c, who)
        theirs = c.call(
            "memory.write", {"identity": other, "action": "add", "entry": entry("Theirs")}
        )["entries"][0]["id"]
        token = c.call("token.issue", {"identity": owner})["token"]
        tid = a.call("task.begin", {"token": token})["task_id"]
        mine = a.call("memory.write", {"task_id": tid, "action": "add", "entry": entry("Mine")})[
            "entries"
        ][0]["id"]
        missing = "ent_" + "0" * 26

        def answers(eid: str) -> list[Any]:
            calls: list[tuple[Client, str, dict[str, Any]]] = [
                (a, "memory.read", {"task_id": tid, "ids": [eid]}),
                (a, "memory.read", {"task_id": tid, "ids": [eid], "include_pending": True}),
                (
                    a,
                    "memory.write",
                    {
                        "task_id": tid,
                        "action": "replace",
                        "id": eid,
                        "expected_revision": 1,
                        "entry": entry("Z"),
                    },
                ),
                (
                    a,
                    "memory.write",
                    {"task_id": tid, "action": "remove", "id": eid, "expected_revision": 1},
                ),
                (
                    a,
                    "memory.write",
                    {
                        "task_id": tid,
                        "action": "archive",
                        "id": mine,
                        "expected_revision": 1,
                        "reason": "old",
                        "covered_by": {"id": eid, "expected_revision": 1},
                    },
                ),
                (c, "memory.read", {"identity": owner, "ids": [eid]}),
                (c, "memory.promote", {"identity": owner, "ids": [eid]}),
            ]
            out = []
            for client, method, params in calls:
                with pytest.raises(RpcError) as info:
                    client.call(method, params)
                data = json.loads(json.dumps(info.value.data).replace(eid, "ID"))
                out.append((info.value.code, data))
            return out

        assert answers(theirs) == answers(missing)
        # Nothing of theirs changed.
        shown = c.call("memory.read", {"identity": other, "ids": [theirs]})["entries"][0]
        assert (shown["status"], shown["revision"]) == ("active", 1)


def test_an_idempotency_key_is_one_owners_own(d: Daemon) -> None:
    # The same key with the same request for another owner is a new write,
    # never the first owner's answer; the first owner's replay is its own.
    with d.control() as c:
        first, second = fresh_identity("ik-"), fresh_identity("ik-")
        write = {"action": "add", "entry": entry("Keyed"), "idempotency_key": "shared-key-1"}
        one = c.call("memory.write", {"identity": first, **write})
        two = c.call("memory.write", {"identity": second, **write})
        assert one["operation_id"] != two["operation_id"]
        assert one["entries"][0]["id"] != two["entries"][0]["id"]
        again = c.call("memory.write", {"identity": first, **write})
        assert again["operation_id"] == one["operation_id"]
        for who in (first, second):
            assert len(c.call("memory.list", {"identity": who})["items"]) == 1
