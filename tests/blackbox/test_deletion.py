"""Black-box: verified deletion and every delete receipt status (SPEC §6).

A removed entry's text must be gone from every file under the home (memory.db,
its -wal and -shm, keys) and from the log; receipts say how far that is
proven. Failures are injected on the in-process seam (tests/inproc.py,
daemon/pipeline/lifecycle.py FAULTS).
"""

from __future__ import annotations

import os
import secrets
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any, TypeVar

import anyio
import pytest
import structlog

from memoryd.rpc.client import Client, RpcError
from tests.harness import (
    Daemon,
    enable_consent,
    entry,
    pg_connect,
    pg_store_of,
    running,
    store_file,
)
from tests.inproc import FakeClock, InProcess, composed

T = TypeVar("T")


def add(c: Client, **fields: Any) -> dict[str, Any]:
    result = c.call("memory.write", {"action": "add", "entry": entry(**fields)})
    return result["entries"][0]  # type: ignore[no-any-return]


def remove(c: Client, e: dict[str, Any]) -> dict[str, Any]:
    return c.call(
        "memory.write",
        {
            "action": "remove",
            "id": e["id"],  # type: ignore[no-any-return]
            "expected_revision": e["revision"],
        },
    )


def hits(d: Daemon | Path, needles: list[bytes]) -> list[str]:
    """Files under the home (and the daemon's log) holding any needle; ``d`` is
    a daemon or the home of one composed in-process."""
    home, log = (d, []) if isinstance(d, Path) else (d.home, [d.log_path])
    found = []
    for path in [*sorted(p for p in home.rglob("*") if p.is_file()), *log, *_pg_files(home)]:
        try:
            data = Path(path).read_bytes()
        except OSError:
            continue  # a socket or a file gone meanwhile
        if any(n in data for n in needles):
            found.append(path.name)
    return found


def _pg_files(home: Path) -> list[Path]:
    """On PostgreSQL, the table and index files of the daemon's database
    (``base/``), flushed first: there the text lives outside the home."""
    pg = pg_store_of(home)
    if pg is None:
        return []
    if os.geteuid() != 0:
        pytest.skip("reads PostgreSQL's data directory: needs root, as CI runs")
    with pg_connect(*pg) as conn:
        conn.commit()
        conn.autocommit = True
        conn.execute("CHECKPOINT")
        row = conn.execute(
            "SELECT current_setting('data_directory'),"
            " (SELECT oid FROM pg_database WHERE datname = current_database())"
        ).fetchone()
    assert row is not None
    return sorted(p for p in (Path(row[0]) / "base" / str(row[1])).iterdir() if p.is_file())


# --- the canary --------------------------------------------------------------------


def test_removed_text_is_gone_from_every_file_under_the_home(d: Daemon) -> None:
    canary = "zq" + secrets.token_hex(12)
    # FTS5 stores terms prefix-compressed, so look for a long tail too.
    needles = [canary.encode(), canary.upper().encode(), canary[6:].encode()]
    with d.control() as c:
        enable_consent(c)
        e = add(
            c,
            title=f"Canary {canary}",
            body=f"The body carries {canary} twice: {canary}.",
            summary=f"card {canary}",
            basis={"kind": "human", "note": f"from {canary}"},
            validity={"check": f"ask about {canary}"},
        )
        e = c.call(
            "memory.write",
            {
                "action": "replace",
                "id": e["id"],
                "expected_revision": 1,
                "entry": entry(title=f"Canary {canary}", body=f"Second revision {canary}."),
            },
        )["entries"][0]
        task = c.call("task.begin", {})["task_id"]
        with d.agent() as a:
            agent_task = a.call("task.begin", {})["task_id"]
            pending = a.call(
                "memory.write",
                {
                    "task_id": agent_task,
                    "action": "replace",
                    "id": e["id"],
                    "expected_revision": 2,
                    "entry": entry(title=f"Canary {canary}", body=f"Proposed {canary} change."),
                },
            )
            assert pending["outcome"] == "pending"
        try:
            c.call("memory.context", {"task_id": task, "intent": f"canary {canary}"})
        except RpcError as err:
            assert err.code == -32601  # recall not built yet: nothing to snapshot
        c.call("memory.list", {"query": canary})
        assert hits(d, needles)  # the scan does find the canary while it is stored
        out = remove(c, e)
        assert out["receipt"]["status"] == "verified"
        assert (
            c.call("memory.receipt", {"receipt_id": out["receipt"]["receipt_id"]})["status"]
            == "verified"
        )
        action = c.call("governance.action.get", {"action_id": pending["action_id"]})
        assert action["status"] == "failed"
    assert hits(d, needles) == []


def test_a_denied_proposal_leaves_no_text_in_any_file() -> None:
    """As removal does: a denial drops the proposal and truncates the WAL."""
    canary = "zq" + secrets.token_hex(12)
    needles = [canary.encode(), canary.upper().encode(), canary[6:].encode()]
    with running() as d:
        with d.control() as c, d.agent() as a:
            enable_consent(c)
            task = a.call("task.begin", {})["task_id"]
            pending = a.call(
                "memory.write", {"task_id": task, "action": "add", "entry": canary_entry(canary)}
            )
            assert pending["outcome"] == "pending"
            assert hits(d, needles)  # the proposal is stored until decided
            c.call("governance.action.deny", {"action_id": pending["action_id"]})
            status = c.call("governance.action.get", {"action_id": pending["action_id"]})
            assert status["status"] == "denied"
            assert hits(d, needles) == []


def test_an_expired_proposal_leaves_no_text_in_any_file(tmp_path: Path) -> None:
    """Expiry drops the proposal as a denial does; on the in-process seam, the
    fake clock moves past ``pending_ttl_days`` instead of waiting for it."""
    canary = "zq" + secrets.token_hex(12)
    needles = [canary.encode(), canary.upper().encode(), canary[6:].encode()]
    home, clock = tmp_path / "h", FakeClock()

    async def go() -> None:
        with composed(home, clock=clock, config="pending_ttl_days = 1\n") as daemon:
            consent = await daemon.call("control", "consent.get", {})
            await daemon.call(
                "control",
                "consent.set",
                {"read": True, "contribute": True, "version": consent["version"]},
            )
            task = (await daemon.call("agent", "task.begin", {}))["task_id"]
            pending = await daemon.call(
                "agent",
                "memory.write",
                {"task_id": task, "action": "add", "entry": canary_entry(canary)},
            )
            assert pending["outcome"] == "pending"
            assert hits(home, needles)
            clock.advance(days=1, seconds=1)
            status = await daemon.call(
                "control", "governance.action.get", {"action_id": pending["action_id"]}
            )
            assert status["status"] == "expired"
            assert hits(home, needles) == []

    with structlog.testing.capture_logs() as logs:
        anyio.run(go, backend="asyncio")
    assert logs, "nothing was logged: the check below would hold vacuously"
    assert canary[6:] not in repr(logs)


def test_purged_text_is_gone_from_every_file_under_the_home(tmp_path: Path) -> None:
    """Retention's purge destroys an expired entry's text as a removal does:
    its row, revisions, the search index and the per-namespace postings, with
    the WAL truncated after; its searchable context too."""
    canary = "zq" + secrets.token_hex(12)
    needles = [canary.encode(), canary.upper().encode(), canary[6:].encode()]
    home, clock = tmp_path / "h", FakeClock()

    async def go() -> None:
        with composed(home, clock=clock, config="[retention]\npurge_grace_days = 1\n") as p:
            first = (
                await p.call(
                    "control",
                    "memory.write",
                    {
                        "action": "add",
                        "scope": "purge",
                        "entry": entry(
                            title=f"Canary {canary}",
                            body=f"Body {canary}.",
                            ttl_days=1,
                            context=f"said beside {canary}",
                        ),
                    },
                )
            )["entries"][0]
            await p.call(
                "control",
                "memory.write",
                {
                    "action": "replace",
                    "scope": "purge",
                    "id": first["id"],
                    "expected_revision": 1,
                    "entry": entry(title=f"Canary {canary}", body=f"Again {canary}.", ttl_days=1),
                },
            )
            await p.call(
                "control",
                "memory.write",
                {"action": "add", "scope": "purge", "entry": entry(title="Stays", body="Kept.")},
            )
            assert (await p.call("control", "memory.list", {"query": canary}))["items"]
            assert hits(home, needles)
            clock.advance(days=1, seconds=1)
            assert (await p.sweep())["expired"] == 1
            clock.advance(days=1, seconds=1)
            assert (await p.sweep())["purged"] == 1
            assert hits(home, needles) == []

    anyio.run(go, backend="asyncio")


@pytest.mark.sqlite_only("a reader's snapshot holding SQLite's WAL")
def test_text_a_reader_held_in_the_wal_leaves_it_by_the_next_janitor_pass(tmp_path: Path) -> None:
    """A denial (or a purge) truncates the WAL once; a reader's open snapshot
    makes that give up, and the frames with the dropped text stay in
    ``memory.db-wal``. The janitor's next pass truncates it then, whatever
    else it finds to do."""
    canary = "zq" + secrets.token_hex(12)
    needles = [canary.encode(), canary.upper().encode(), canary[6:].encode()]
    home = tmp_path / "h"

    async def go() -> None:
        with composed(home, clock=FakeClock()) as daemon:
            await daemon.call(
                "control", "consent.set", {"read": True, "contribute": True, "version": 0}
            )
            task = (await daemon.call("agent", "task.begin", {}))["task_id"]
            pending = await daemon.call(
                "agent",
                "memory.write",
                {"task_id": task, "action": "add", "entry": canary_entry(canary)},
            )
            reader = store_file(home / "memory.db", readonly=True)
            try:
                reader.execute("BEGIN")
                reader.execute("SELECT count(*) FROM entries").fetchall()
                await daemon.call(
                    "control", "governance.action.deny", {"action_id": pending["action_id"]}
                )
                assert hits(home, needles) == ["memory.db-wal"]  # held back by the reader
            finally:
                reader.execute("COMMIT")
                reader.close()
            assert await daemon.sweep() == {"expired": 0, "purged": 0, "receipts_rechecked": 0}
            assert hits(home, needles) == []

    anyio.run(go, backend="asyncio")


def canary_entry(canary: str) -> dict[str, Any]:
    return entry(
        title=f"Canary {canary}",
        body=f"Proposed {canary} text.",
        summary=f"card {canary}",
        basis={"kind": "human", "note": f"from {canary}"},
        validity={"check": f"ask about {canary}"},
    )


def test_removed_entry_keeps_a_tombstone_without_text(d: Daemon) -> None:
    with d.control() as c:
        e = add(c, title="Tombstone", body="to be removed")
        remove(c, e)
        tomb = c.call("memory.read", {"ids": [e["id"]]})["entries"][0]
    assert tomb["status"] == "removed"
    assert (tomb["title"], tomb["summary"], tomb["body"]) == ("", "", "")
    assert tomb["content_hash"] == e["content_hash"]


def test_removed_entry_cannot_be_written_again(d: Daemon) -> None:
    with d.control() as c:
        e = add(c, title="Final", body="once")
        out = remove(c, e)
        with pytest.raises(RpcError) as err:
            c.call(
                "memory.write",
                {
                    "action": "replace",
                    "id": e["id"],
                    "expected_revision": out["entries"][0]["revision"],
                    "entry": entry(title="Final", body="again"),
                },
            )
    assert err.value.data_code == "not_found"


def test_receipt_of_another_owner_is_not_found(d: Daemon) -> None:
    with d.control() as c:
        out = remove(c, add(c, title="Mine", body="owned"))
        with pytest.raises(RpcError) as err:
            c.call(
                "memory.receipt",
                {
                    "receipt_id": out["receipt"]["receipt_id"],
                    "identity": {"kind": "local", "subject": "someone-else"},
                },
            )
    assert err.value.data_code == "not_found"


def test_receipt_event_is_audited_without_text(d: Daemon) -> None:
    with d.control() as c:
        out = remove(c, add(c, title="Audited", body="audited removal"))
        events = c.call("audit.export", {})["events"]
    rid = out["receipt"]["receipt_id"]
    statuses = [
        e["details"]["status"]
        for e in events
        if e["kind"] == "receipt" and e["details"].get("receipt_id") == rid
    ]
    assert statuses == ["verified"]


# --- receipt statuses under injected failures ----------------------------------------------
#
# On the in-process seam (tests/inproc.py), which alone can inject these
# failures (daemon/pipeline/lifecycle.py FAULTS); composing again on the same home is
# the restart after a crash.


def with_faults(home: Path, faults: str, body: Callable[[InProcess], Awaitable[T]]) -> T:
    async def go() -> T:
        with composed(home, faults=frozenset(n for n in faults.split(",") if n)) as daemon:
            return await body(daemon)

    return anyio.run(go, backend="asyncio")


async def add_in(daemon: InProcess, **fields: Any) -> dict[str, Any]:
    out = await daemon.call("control", "memory.write", {"action": "add", "entry": entry(**fields)})
    return out["entries"][0]  # type: ignore[no-any-return]


async def remove_in(daemon: InProcess, e: dict[str, Any]) -> dict[str, Any]:
    return await daemon.call(
        "control",
        "memory.write",
        {  # type: ignore[no-any-return]
            "action": "remove",
            "id": e["id"],
            "expected_revision": e["revision"],
        },
    )


async def receipt_status(daemon: InProcess, receipt_id: str) -> str:
    out = await daemon.call("control", "memory.receipt", {"receipt_id": receipt_id})
    return out["status"]  # type: ignore[no-any-return]


def test_receipt_stays_pending_until_settled(tmp_path: Path) -> None:
    async def body(daemon: InProcess) -> None:
        out = await remove_in(daemon, await add_in(daemon, title="Later", body="settled later"))
        assert out["receipt"]["status"] == "pending"
        rid = out["receipt"]["receipt_id"]
        assert await receipt_status(daemon, rid) == "pending"
        assert (await daemon.call("control", "memory.gc", {}))["receipts_rechecked"] == 1
        assert await receipt_status(daemon, rid) == "verified"

    with_faults(tmp_path / "h", "defer_receipts", body)


def test_receipt_cut_off_by_a_crash_is_interrupted_then_reverified(tmp_path: Path) -> None:
    async def cut_off(daemon: InProcess) -> str:
        out = await remove_in(daemon, await add_in(daemon, title="Crash", body="cut off"))
        return out["receipt"]["receipt_id"]  # type: ignore[no-any-return]

    rid = with_faults(tmp_path / "h", "defer_receipts", cut_off)

    async def restarted(daemon: InProcess) -> None:
        assert await receipt_status(daemon, rid) == "interrupted"
        await daemon.call("control", "memory.gc", {})
        assert await receipt_status(daemon, rid) == "verified"

    with_faults(tmp_path / "h", "", restarted)


def test_receipt_is_incomplete_when_the_wal_checkpoint_fails(tmp_path: Path) -> None:
    async def body(daemon: InProcess) -> None:
        out = await remove_in(daemon, await add_in(daemon, title="Busy", body="wal stays"))
        rid = out["receipt"]["receipt_id"]
        assert out["receipt"]["status"] == "incomplete"
        assert await receipt_status(daemon, rid) == "incomplete"
        events = (await daemon.call("control", "audit.export", {}))["events"]
        traces = [
            e["details"]["traces"]
            for e in events
            if e["kind"] == "receipt" and e["details"].get("receipt_id") == rid
        ]
        assert traces == [["wal"]]

    with_faults(tmp_path / "h", "checkpoint_busy", body)


def test_receipt_is_external_unverified_while_a_projection_has_not_confirmed(
    tmp_path: Path,
) -> None:
    async def body(daemon: InProcess) -> None:
        out = await remove_in(daemon, await add_in(daemon, title="Projected", body="copied out"))
        assert out["receipt"]["status"] == "external_unverified"

    with_faults(tmp_path / "h", "projection_unconfirmed", body)


def test_an_unknown_receipt_fault_is_refused(tmp_path: Path) -> None:
    async def body(daemon: InProcess) -> None:
        raise AssertionError("composed with an unknown fault")

    with pytest.raises(ValueError, match="unknown lifecycle faults"):
        with_faults(tmp_path / "h", "no_such_fault", body)
