"""The audit log over the real sockets (SPEC §5 step 6, §8): every decision and
change is an event without raw text, failed calls change nothing, and a
tampered row is caught at start-up and by ``audit.verify``.
"""

from __future__ import annotations

import itertools
import json
import signal
import time
import uuid
from pathlib import Path
from typing import Any

import pytest

from memoryd.audit.packing import pack_body
from memoryd.rpc.client import Client, RpcError
from tests.harness import (
    AUDIT_ROWS,
    audit_body,
    audit_span,
    enable_consent,
    entry,
    fresh_identity,
    pg_connect,
    pg_store_of,
    running,
    store_file,
)


def new_identity() -> dict[str, str]:
    return fresh_identity("au-")


def export(c: Client, after_seq: int = 0) -> list[dict[str, Any]]:
    return c.call("audit.export", {"after_seq": after_seq})["events"]  # type: ignore[no-any-return]


def state(c: Client, ident: dict[str, str]) -> tuple[int, dict[str, int], int]:
    status = c.call("memory.status", {"identity": ident})
    return status["audit"]["seq"], status["counts"], status["pending_actions"]


def marker() -> str:
    # Twelve hex digits: random enough, and short of the high-entropy secret rule.
    return "Mark" + uuid.uuid4().hex[:12]


# --- what is audited ------------------------------------------------------------


def test_every_decision_change_approval_denial_and_consent_change_is_an_event(
    c: Client, a: Client
) -> None:
    ident = new_identity()
    start = state(c, ident)[0]
    enable_consent(c, ident)
    issued = c.call("token.issue", {"identity": ident})
    task = a.call("task.begin", {"token": issued["token"]})["task_id"]
    texts = [marker() for _ in range(6)]
    approve = a.call(
        "memory.write", {"task_id": task, "action": "add", "entry": entry(texts[0], texts[1])}
    )["action_id"]
    deny = a.call(
        "memory.write", {"task_id": task, "action": "add", "entry": entry(texts[2], texts[3])}
    )["action_id"]
    applied = c.call("governance.action.approve", {"action_id": approve})
    c.call("governance.action.deny", {"action_id": deny, "reason": texts[4]})
    direct = c.call(
        "memory.write",
        {
            "identity": ident,
            "action": "replace",
            "id": applied["entries"][0]["id"],
            "expected_revision": 1,
            "entry": entry(texts[0], texts[5]),
        },
    )
    c.call("token.revoke", {"token_id": issued["token_id"]})

    got = export(c, start)
    kinds = [e["kind"] for e in got]
    for kind in (
        "consent_changed",
        "token_issued",
        "decision",
        "action_proposed",
        "action_approved",
        "operation",
        "action_denied",
        "token_revoked",
    ):
        assert kind in kinds, kind
    assert kinds.count("action_proposed") == 2
    operations = [e for e in got if e["kind"] == "operation"]
    assert {op["details"]["operation_id"] for op in operations} == {
        applied["operation_id"],
        direct["operation_id"],
    }
    assert [e["content_hashes"] for e in operations][-1] == [direct["entries"][0]["content_hash"]]
    dump = json.dumps(got)
    for text in texts:
        assert text not in dump
    assert ident["subject"] not in dump and issued["token"] not in dump


def test_export_chain_links_every_event_to_the_previous_one(c: Client) -> None:
    c.call("memory.write", {"identity": new_identity(), "action": "add", "entry": entry()})
    got = export(c)
    assert [e["seq"] for e in got] == list(range(1, len(got) + 1))
    for before, after in itertools.pairwise(got):
        assert after["prev"] == before["hash"]
    assert c.call("audit.verify", {})["ok"] is True


# --- bad input changes nothing -------------------------------------------------------


def _fails(fn: Any, *args: Any) -> RpcError:
    with pytest.raises(RpcError) as info:
        fn(*args)
    return info.value


def test_failing_writes_change_nothing_and_add_no_events(c: Client) -> None:
    ident = new_identity()
    base = c.call("memory.write", {"identity": ident, "action": "add", "entry": entry()})[
        "entries"
    ][0]
    c.call(
        "memory.write",
        {
            "identity": ident,
            "action": "add",
            "entry": entry("K", "Keyed."),
            "idempotency_key": "once",
        },
    )
    before = state(c, ident)
    bad: list[dict[str, Any]] = [
        {"action": "replace", "id": base["id"], "entry": entry(body="x")},
        {"action": "replace", "id": base["id"], "expected_revision": 9, "entry": entry(body="x")},
        {"action": "add", "entry": entry()},  # duplicate_title
        {"action": "remove", "id": "ent_01NOSUCHENTRY", "expected_revision": 1},
        {"action": "add", "entry": entry("Other", "y"), "idempotency_key": "once"},
        {
            "action": "batch",
            "ops": [
                {"action": "add", "entry": entry("B1", "b")},
                {"action": "archive", "id": base["id"], "expected_revision": 3, "reason": "r"},
            ],
        },
        {"action": "add", "entry": {"type": "mood", "title": "t", "body": "b"}},
        {"action": "add", "entry": entry(), "surprise": True},
    ]
    codes = []
    for params in bad:
        codes.append(_fails(c.call, "memory.write", {"identity": ident, **params}).code)
    assert codes == [-32002, -32002, -32002, -32003, -32002, -32002, -32602, -32602]
    assert state(c, ident) == before


def test_rejected_content_is_audited_but_changes_no_entry(c: Client) -> None:
    ident = new_identity()
    seq, counts, pending = state(c, ident)
    err = _fails(
        c.call,
        "memory.write",
        {
            "identity": ident,
            "action": "add",
            "entry": entry(body="key AKIAIOSFODNN7EXAMPLF in the notes"),
        },
    )
    assert err.code == -32004
    _seq, counts2, pending2 = state(c, ident)
    assert (counts2, pending2) == (counts, pending)
    assert [e["kind"] for e in export(c, seq)] == ["content_rejected"]


def test_a_failed_call_leaves_the_connection_serving(c: Client) -> None:
    _fails(c.call, "memory.write", {"action": "replace", "id": "ent_01X", "entry": entry()})
    assert c.call("memory.status", {})["backend"]["health"] == "ok"


# --- tampering ------------------------------------------------------------------------


def _one_byte_off(raw: bytes) -> bytes:
    at = raw.index(b'"ts":"') + len(b'"ts":"')
    digit = raw[at : at + 1]
    changed = raw[:at] + (b"1" if digit != b"1" else b"2") + raw[at + 1 :]
    assert changed != raw and json.loads(changed)  # still valid JSON, one byte off
    return pack_body(changed)


def _tamper_one_byte(home: Path, seq: int) -> None:
    # The row keeps the event's bytes packed, read with the rows before it.
    pg = pg_store_of(home)
    if pg is not None:
        with pg_connect(*pg) as pconn:
            rows = pconn.execute(AUDIT_ROWS.replace("?", "%s"), audit_span(seq)).fetchall()
            pconn.execute(
                "UPDATE audit SET body = %s WHERE seq = %s",
                (_one_byte_off(audit_body(rows, seq)), seq),
            )
        return
    conn = store_file(home / "memory.db")
    try:
        rows = conn.execute(AUDIT_ROWS, audit_span(seq)).fetchall()
        with conn:
            conn.execute(
                "UPDATE audit SET body = ? WHERE seq = ?",
                (_one_byte_off(audit_body(rows, seq)), seq),
            )
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchall()
    finally:
        conn.close()


def test_a_tampered_row_is_named_by_verify_and_refuses_governed_writes() -> None:
    # Lexical recall: the snapshot below is asserted to hold exactly the
    # entry the word names (the hybrid ranker may add a neighbour in meaning).
    with running(config='[recall]\nranker = "lexical"\n') as dm:
        with dm.control() as c:
            enable_consent(c)
            kept = c.call("memory.write", {"action": "add", "entry": entry()})["entries"][0]
            c.call("memory.write", {"action": "add", "entry": entry("Second", "Another note.")})
            total = c.call("memory.status", {})["audit"]["seq"]
        target = total // 2 + 1
        dm.stop()
        _tamper_one_byte(dm.home, target)
        dm.start()
        with dm.control() as c:
            verified = c.call("audit.verify", {})
            assert verified["ok"] is False and verified["first_bad_seq"] == target
            status = c.call("memory.status", {})
            assert status["audit"]["verified"] is False
            assert status["backend"]["health"] == "degraded"
            err = _fails(c.call, "memory.write", {"action": "add", "entry": entry("New", "n")})
            assert (err.code, err.data_code) == (-32006, "store_unavailable")
            assert c.call("memory.read", {"ids": [kept["id"]]})["entries"][0]["id"] == kept["id"]
            assert len(c.call("memory.list", {})["items"]) == 2
            assert c.call("governance.action.list", {})["items"] == []
            # Reads go on for agents too: a task can begin and recall its memory.
            task = c.call("task.begin", {})
            snap = c.call("memory.context", {"task_id": task["task_id"], "intent": "editor"})
            assert [e["id"] for e in snap["entries"]] == [kept["id"]]


def test_sighup_while_degraded_keeps_the_daemon_serving_and_the_old_policy() -> None:
    with running() as dm:
        with dm.control() as c:
            c.call("memory.write", {"action": "add", "entry": entry()})
            old_hash = c.call("memory.status", {})["policy"]["hash"]
        dm.stop()
        _tamper_one_byte(dm.home, 1)
        dm.start()
        (dm.home / "policy.toml").write_text(
            '[[rule]]\nid = "r1"\neffect = "deny"\ncapability = "MemoryWrite"\n'
        )
        dm.signal(signal.SIGHUP)
        deadline = time.monotonic() + 20
        while (
            time.monotonic() < deadline
            and "policy_not_loaded" not in dm.log()
            and dm.proc is not None
            and dm.proc.poll() is None
        ):
            time.sleep(0.05)
        assert dm.proc is not None and dm.proc.poll() is None
        with dm.control() as c:
            status = c.call("memory.status", {})
            assert status["backend"]["health"] == "degraded"
            assert status["policy"]["hash"] == old_hash
            assert c.call("audit.verify", {})["first_bad_seq"] == 1
