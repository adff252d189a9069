"""Black-box: verified deletion and every delete receipt status (SPEC §6).

A removed entry's text must be gone from every file under the home (memory.db,
its -wal and -shm, keys) and from the log; receipts say how far that is
proven. Failures are injected with the testing aid MEMORYD_TEST_RECEIPT_FAULTS
(daemon/lifecycle.py FAULTS).
"""

from __future__ import annotations

import secrets
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from memoryd.rpc.client import Client, RpcError
from tests.harness import Daemon, enable_consent, entry, running


def faults(names: str) -> dict[str, str]:
    return {"MEMORYD_TEST_RECEIPT_FAULTS": names}


@pytest.fixture(scope="module")
def d() -> Iterator[Daemon]:
    with running() as daemon:
        yield daemon


def add(c: Client, **fields: Any) -> dict[str, Any]:
    result = c.call("memory.write", {"action": "add", "entry": entry(**fields)})
    return result["entries"][0]  # type: ignore[no-any-return]


def remove(c: Client, e: dict[str, Any]) -> dict[str, Any]:
    return c.call("memory.write", {"action": "remove", "id": e["id"],  # type: ignore[no-any-return]
                                   "expected_revision": e["revision"]})


def hits(d: Daemon, needles: list[bytes]) -> list[str]:
    """Files under the home (and the log) holding any needle."""
    found = []
    for path in [*sorted(p for p in d.home.rglob("*") if p.is_file()), d.log_path]:
        try:
            data = Path(path).read_bytes()
        except OSError:
            continue  # a socket or a file gone meanwhile
        if any(n in data for n in needles):
            found.append(path.name)
    return found


# --- the canary --------------------------------------------------------------------


def test_removed_text_is_gone_from_every_file_under_the_home(d: Daemon) -> None:
    canary = "zq" + secrets.token_hex(12)
    # FTS5 stores terms prefix-compressed, so look for a long tail too.
    needles = [canary.encode(), canary.upper().encode(), canary[6:].encode()]
    with d.control() as c:
        enable_consent(c)
        e = add(c, title=f"Canary {canary}", body=f"The body carries {canary} twice: {canary}.",
                summary=f"card {canary}", basis={"kind": "human", "note": f"from {canary}"},
                validity={"check": f"ask about {canary}"})
        e = c.call("memory.write", {
            "action": "replace", "id": e["id"], "expected_revision": 1,
            "entry": entry(title=f"Canary {canary}", body=f"Second revision {canary}."),
        })["entries"][0]
        task = c.call("task.begin", {})["task_id"]
        with d.agent() as a:
            agent_task = a.call("task.begin", {})["task_id"]
            pending = a.call("memory.write", {
                "task_id": agent_task, "action": "replace", "id": e["id"], "expected_revision": 2,
                "entry": entry(title=f"Canary {canary}", body=f"Proposed {canary} change.")})
            assert pending["outcome"] == "pending"
        try:
            c.call("memory.context", {"task_id": task, "intent": f"canary {canary}"})
        except RpcError as err:
            assert err.code == -32601  # recall not built yet: nothing to snapshot
        c.call("memory.list", {"query": canary})
        assert hits(d, needles)  # the scan does find the canary while it is stored
        out = remove(c, e)
        assert out["receipt"]["status"] == "verified"
        assert c.call("memory.receipt", {"receipt_id": out["receipt"]["receipt_id"]})[
            "status"] == "verified"
        action = c.call("governance.action.get", {"action_id": pending["action_id"]})
        assert action["status"] == "failed"
    assert hits(d, needles) == []


@pytest.mark.parametrize("how", ["deny", "expire"])
def test_a_denied_or_expired_proposal_leaves_no_text_in_any_file(how: str) -> None:
    """As removal does: deny and expiry drop the proposal and truncate the WAL."""
    canary = "zq" + secrets.token_hex(12)
    needles = [canary.encode(), canary.upper().encode(), canary[6:].encode()]
    with running(config="pending_ttl_days = 0.00002\n" if how == "expire" else None) as d:
        with d.control() as c, d.agent() as a:
            enable_consent(c)
            task = a.call("task.begin", {})["task_id"]
            pending = a.call("memory.write", {"task_id": task, "action": "add", "entry": entry(
                title=f"Canary {canary}", body=f"Proposed {canary} text.",
                summary=f"card {canary}", basis={"kind": "human", "note": f"from {canary}"},
                validity={"check": f"ask about {canary}"})})
            assert pending["outcome"] == "pending"
            assert hits(d, needles)  # the proposal is stored until decided
            if how == "deny":
                c.call("governance.action.deny", {"action_id": pending["action_id"]})
            else:
                deadline = time.monotonic() + 20
                while c.call("governance.action.get", {"action_id": pending["action_id"]})[
                        "status"] == "pending" and time.monotonic() < deadline:
                    time.sleep(0.2)
            status = c.call("governance.action.get", {"action_id": pending["action_id"]})
            assert status["status"] == ("denied" if how == "deny" else "expired")
            assert hits(d, needles) == []


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
            c.call("memory.write", {"action": "replace", "id": e["id"],
                                    "expected_revision": out["entries"][0]["revision"],
                                    "entry": entry(title="Final", body="again")})
    assert err.value.data_code == "not_found"


def test_receipt_of_another_owner_is_not_found(d: Daemon) -> None:
    with d.control() as c:
        out = remove(c, add(c, title="Mine", body="owned"))
        with pytest.raises(RpcError) as err:
            c.call("memory.receipt", {"receipt_id": out["receipt"]["receipt_id"],
                                      "identity": {"kind": "local", "subject": "someone-else"}})
    assert err.value.data_code == "not_found"


def test_receipt_event_is_audited_without_text(d: Daemon) -> None:
    with d.control() as c:
        out = remove(c, add(c, title="Audited", body="audited removal"))
        events = c.call("audit.export", {})["events"]
    rid = out["receipt"]["receipt_id"]
    statuses = [e["details"]["status"] for e in events
                if e["kind"] == "receipt" and e["details"].get("receipt_id") == rid]
    assert statuses == ["verified"]


# --- receipt statuses under injected failures ----------------------------------------------


def test_receipt_stays_pending_until_settled() -> None:
    with running(env=faults("defer_receipts")) as daemon, daemon.control() as c:
        out = remove(c, add(c, title="Later", body="settled later"))
        assert out["receipt"]["status"] == "pending"
        rid = out["receipt"]["receipt_id"]
        assert c.call("memory.receipt", {"receipt_id": rid})["status"] == "pending"
        assert c.call("memory.gc", {})["receipts_rechecked"] == 1
        assert c.call("memory.receipt", {"receipt_id": rid})["status"] == "verified"


def test_receipt_cut_off_by_a_crash_is_interrupted_then_reverified() -> None:
    with running(env=faults("defer_receipts")) as daemon:
        with daemon.control() as c:
            out = remove(c, add(c, title="Crash", body="cut off"))
        rid = out["receipt"]["receipt_id"]
        daemon.kill()
        daemon.start()
        with daemon.control() as c:
            assert c.call("memory.receipt", {"receipt_id": rid})["status"] == "interrupted"
            c.call("memory.gc", {})
            assert c.call("memory.receipt", {"receipt_id": rid})["status"] == "verified"


def test_receipt_is_incomplete_when_the_wal_checkpoint_fails() -> None:
    with running(env=faults("checkpoint_busy")) as daemon, daemon.control() as c:
        out = remove(c, add(c, title="Busy", body="wal stays"))
        rid = out["receipt"]["receipt_id"]
        assert out["receipt"]["status"] == "incomplete"
        assert c.call("memory.receipt", {"receipt_id": rid})["status"] == "incomplete"
        events = c.call("audit.export", {})["events"]
    traces = [e["details"]["traces"] for e in events
              if e["kind"] == "receipt" and e["details"].get("receipt_id") == rid]
    assert traces == [["wal"]]


def test_receipt_is_external_unverified_while_a_projection_has_not_confirmed() -> None:
    with running(env=faults("projection_unconfirmed")) as daemon, daemon.control() as c:
        out = remove(c, add(c, title="Projected", body="copied out"))
    assert out["receipt"]["status"] == "external_unverified"


def test_unknown_receipt_fault_stops_the_daemon_at_start() -> None:
    with pytest.raises(RuntimeError):
        with running(env=faults("no_such_fault")):
            pass
