"""Signed checkpoints, start-up verification, audit.verify and memory.verify.

Tampering is done the way an intruder with the home folder would: with the
daemon stopped, the SQLite file is edited directly, then the daemon starts
again. Every check goes through the real sockets or ``memctl``.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from memoryd.audit.chain import ChainHead
from memoryd.audit.checkpoint import (
    decode_checkpoint,
    generate_signing_key,
    public_key_of,
    sign_checkpoint,
    verify_checkpoint_signature,
)
from memoryd.audit.packing import pack_body, unpack_hash
from memoryd.rpc.client import Client, RpcError
from tests.harness import (
    AUDIT_ROWS,
    Daemon,
    audit_body,
    audit_span,
    entry,
    pg_connect,
    pg_store_of,
    running,
    store_file,
)


def _write(c: Client, title: str) -> Any:
    return c.call(
        "memory.write",
        {
            "target": "memory",
            "action": "add",
            "entry": entry(title, f"notes about {title.lower()}"),
        },
    )


def _edit_db(d: Daemon, sql: str, args: tuple[Any, ...] = ()) -> None:
    pg = pg_store_of(d.home)
    if pg is not None:  # the daemon's PostgreSQL schema: its triggers are its own
        with pg_connect(*pg) as pconn:
            pconn.execute(sql.replace("?", "%s"), args)
        return
    conn = store_file(d.home / "memory.db")
    try:
        # The search index follows entries through triggers that call a
        # function of the daemon's; an intruder's tool would need it too.
        try:
            from memoryd.daemon.retrieval import text_index
        except ImportError:  # the index is not there (yet): nothing to register
            pass
        else:
            text_index.register(conn)
        with conn:
            conn.execute(sql, args)
    finally:
        conn.close()


def _query_db(d: Daemon, sql: str, args: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    pg = pg_store_of(d.home)
    if pg is not None:
        with pg_connect(*pg) as pconn:
            return [tuple(r) for r in pconn.execute(sql.replace("?", "%s"), args).fetchall()]
    conn = store_file(d.home / "memory.db", readonly=True)
    try:
        return [tuple(r) for r in conn.execute(sql, args).fetchall()]
    finally:
        conn.close()


def _flip_byte(d: Daemon, seq: int) -> None:
    # The row keeps the event's bytes packed, read with the rows before it:
    # change one byte of the event.
    body = audit_body(_query_db(d, AUDIT_ROWS, audit_span(seq)), seq)
    changed = body.replace(b'"ts":"2', b'"ts":"1', 1)
    assert changed != body
    _edit_db(d, "UPDATE audit SET body = ? WHERE seq = ?", (pack_body(changed), seq))


@pytest.fixture(scope="module")
def shared() -> Iterator[Daemon]:
    with running() as d:
        with d.control() as c:
            for title in ("Editor", "Shell", "Pager"):
                _write(c, title)
        yield d


@pytest.fixture
def fresh() -> Iterator[Daemon]:
    with running() as d:
        with d.control() as c:
            for title in ("Editor", "Shell", "Pager", "Font"):
                _write(c, title)
        yield d


# --- taking checkpoints ----------------------------------------------------------


def test_audit_checkpoint_signs_the_current_head(shared: Daemon) -> None:
    with shared.control() as c:
        head = c.call("memory.status", {})["audit"]
        cp = c.call("audit.checkpoint", {})
    assert set(cp) == {"seq", "hash", "ts", "signature", "public_key"}
    assert (cp["seq"], cp["hash"]) == (head["seq"], head["hash"])
    key = shared.home / "keys" / "checkpoint.ed25519"
    assert key.stat().st_mode & 0o777 == 0o600
    verify_checkpoint_signature(decode_checkpoint(json.dumps(cp)), public_key_of(key.read_bytes()))


def test_a_checkpoint_is_recorded_as_an_audit_event_and_in_status(shared: Daemon) -> None:
    with shared.control() as c:
        cp = c.call("audit.checkpoint", {})
        events = c.call("audit.export", {"after_seq": cp["seq"]})["events"]
        status = c.call("memory.status", {})
    assert events[0]["kind"] == "checkpoint"
    assert events[0]["details"]["checkpoint_seq"] == cp["seq"]
    assert status["audit"]["last_checkpoint"]["seq"] == cp["seq"]
    assert status["audit"]["verified"] is True


def test_checkpoint_methods_do_not_exist_on_the_agent_socket(shared: Daemon) -> None:
    with shared.agent() as a:
        for method in ("audit.checkpoint", "audit.verify", "memory.verify"):
            with pytest.raises(RpcError) as err:
                a.call(method, {})
            assert err.value.code == -32601


def test_memctl_checkpoint_then_verify_against_it_succeeds(shared: Daemon, tmp_path: Path) -> None:
    out = shared.memctl("audit", "checkpoint")
    assert out.returncode == 0, out.stderr
    kept = tmp_path / "cp.json"
    kept.write_bytes(out.stdout)
    with shared.control() as c:
        _write(c, "After the checkpoint")
    verdict = shared.memctl("audit", "verify", "--checkpoint", str(kept), "--json")
    assert verdict.returncode == 0, verdict.stdout
    assert json.loads(verdict.stdout)["ok"] is True


def test_a_checkpoint_signed_by_another_key_is_refused(shared: Daemon, tmp_path: Path) -> None:
    with shared.control() as c:
        head = c.call("memory.status", {})["audit"]
    forged = sign_checkpoint(
        generate_signing_key(),
        ChainHead(seq=head["seq"], hash=head["hash"]),
        "2026-01-01T00:00:00.000000Z",
    )
    kept = tmp_path / "forged.json"
    kept.write_text(json.dumps({f: getattr(forged, f) for f in forged.__struct_fields__}))
    verdict = shared.memctl("audit", "verify", "--checkpoint", str(kept), "--json")
    assert verdict.returncode != 0
    assert json.loads(verdict.stdout)["reason"] == "untrusted_key"


def test_a_malformed_checkpoint_is_invalid_params(shared: Daemon) -> None:
    with shared.control() as c, pytest.raises(RpcError) as err:
        c.call("audit.verify", {"checkpoint": {"seq": "one"}})
    assert err.value.code == -32602


def test_periodic_checkpoints_follow_the_event_count() -> None:
    config = "checkpoint = { every_events = 3, every_seconds = 0.1 }\n"
    with running(config=config) as d, d.control() as c:
        for title in ("One", "Two", "Three"):
            _write(c, title)
        last = None
        for _ in range(200):  # a condition, not a timing: wait up to ~20 s
            last = c.call("memory.status", {})["audit"]["last_checkpoint"]
            if last is not None:
                break
            time.sleep(0.1)
        assert last is not None


def test_shutdown_writes_a_final_checkpoint_of_the_head(fresh: Daemon) -> None:
    with fresh.control() as c:
        head = c.call("memory.status", {})["audit"]
    assert fresh.stop() == 0
    last_cp = _query_db(fresh, "SELECT seq, hash FROM checkpoints ORDER BY seq DESC LIMIT 1")[0]
    top = int(_query_db(fresh, "SELECT max(seq) FROM audit")[0][0])
    last_kind = audit_body(_query_db(fresh, AUDIT_ROWS, audit_span(top)), top)
    assert tuple(last_cp) == (head["seq"], head["hash"])
    assert json.loads(last_kind)["kind"] == "checkpoint"
    kept = decode_checkpoint((fresh.home / "last_checkpoint.json").read_bytes())
    assert (kept.seq, kept.hash) == (head["seq"], head["hash"])


# --- tampering ---------------------------------------------------------------------


def _assert_refusing_writes(d: Daemon) -> None:
    with d.control() as c:
        status = c.call("memory.status", {})
        assert status["audit"]["verified"] is False
        assert status["backend"]["health"] == "degraded"
        with pytest.raises(RpcError) as err:
            _write(c, "Refused")
        assert err.value.data["code"] == "store_unavailable"
        assert len(c.call("memory.list", {})["items"]) == 4  # reads go on


def test_a_changed_event_byte_is_found_at_start_and_writes_are_refused(fresh: Daemon) -> None:
    fresh.stop()
    _flip_byte(fresh, 3)
    fresh.start()
    _assert_refusing_writes(fresh)
    assert "audit_chain_broken" in fresh.log()
    verdict = fresh.memctl("audit", "verify")
    assert verdict.returncode != 0
    assert b"seq 3" in verdict.stdout


def test_a_truncated_tail_behind_the_kept_checkpoint_is_found_at_start(fresh: Daemon) -> None:
    with fresh.control() as c:
        cp = c.call("audit.checkpoint", {})
    fresh.stop()
    _edit_db(fresh, "DELETE FROM audit WHERE seq >= ?", (cp["seq"] - 2,))
    fresh.start()
    _assert_refusing_writes(fresh)


def test_a_rollback_of_database_and_checkpoints_is_caught_by_a_kept_checkpoint(
    fresh: Daemon, tmp_path: Path
) -> None:
    out = fresh.memctl("audit", "checkpoint")
    kept = tmp_path / "cp.json"
    kept.write_bytes(out.stdout)
    seq = json.loads(out.stdout)["seq"]
    fresh.stop()
    # The intruder removes the tail and every local trace of later checkpoints.
    _edit_db(fresh, "DELETE FROM audit WHERE seq >= ?", (seq - 1,))
    _edit_db(fresh, "DELETE FROM checkpoints")
    if pg_store_of(fresh.home) is not None:
        # PostgreSQL keeps the chain's head in a row of its own: rolled back too.
        ((top, top_hash),) = _query_db(
            fresh, "SELECT seq, hash FROM audit ORDER BY seq DESC LIMIT 1"
        )
        _edit_db(fresh, "UPDATE audit_head SET seq = ?, hash = ?", (top, unpack_hash(top_hash)))
    (fresh.home / "last_checkpoint.json").unlink()
    fresh.start()
    verdict = fresh.memctl("audit", "verify", "--checkpoint", str(kept), "--json")
    assert verdict.returncode != 0
    result = json.loads(verdict.stdout)
    # The restart appended its own events after the cut, so the chain stops
    # being the kept one at or before the checkpoint's seq.
    assert result["ok"] is False
    assert result["reason"] in ("truncated", "checkpoint_mismatch")
    assert result["first_bad_seq"] <= seq
    assert (
        f"seq {result['first_bad_seq']}".encode()
        in fresh.memctl("audit", "verify", "--checkpoint", str(kept)).stdout
    )


def test_an_altered_kept_checkpoint_file_is_tampering(fresh: Daemon) -> None:
    with fresh.control() as c:
        c.call("audit.checkpoint", {})
    fresh.stop()
    path = fresh.home / "last_checkpoint.json"
    cp = json.loads(path.read_text())
    cp["ts"] = "2020-01-01T00:00:00.000000Z"
    path.write_text(json.dumps(cp))
    fresh.start()
    _assert_refusing_writes(fresh)


# --- memory.verify -------------------------------------------------------------------


def test_memory_verify_finds_nothing_wrong_in_an_untouched_store(shared: Daemon) -> None:
    with shared.control() as c:
        result = c.call("memory.verify", {})
        head = c.call("memory.status", {})["audit"]
    assert result["mismatches"] == []
    assert result["checked"] >= 3
    assert result["audit_head"] == {"seq": head["seq"], "hash": head["hash"]}


def test_memory_verify_names_an_entry_edited_behind_the_daemon(fresh: Daemon) -> None:
    with fresh.control() as c:
        target = _write(c, "Victim")["entries"][0]["id"]
    fresh.stop()
    _edit_db(fresh, "UPDATE entries SET body = ? WHERE id = ?", ("something else", target))
    fresh.start()
    with fresh.control() as c:
        result = c.call("memory.verify", {})
    assert result["mismatches"] == [target]
    assert result["checked"] == 5


def test_memory_verify_names_an_entry_with_no_audit_event(fresh: Daemon) -> None:
    fresh.stop()
    # SQLite's file keeps what a row can derive in columns of its own
    # (daemon/storage/sqlite_schema.py, ENTRIES_TABLE: the summary in summary_text, the
    # basis in basis_text, ...); PostgreSQL's table keeps every value as is.
    stored = (
        ("summary", "basis", "updated_at", "renewed_at", "content_hash", "status_at")
        if pg_store_of(fresh.home) is not None
        else (
            "summary_text",
            "basis_text",
            "updated_text",
            "renewed_text",
            "content_key",
            "status_text",
        )
    )
    columns = (
        "owner, target, scope, type, body, status, revision, source, eligible,"
        " validity, pinned, created_at, ttl_days, expires_at, use_count, last_used_at,"
        " superseded_by, evidence_hash, archive_reason, " + ", ".join(stored)
    )
    _edit_db(
        fresh,
        f"INSERT INTO entries(id, title, {columns})"  # noqa: S608 (our names)
        f" SELECT 'ent_planted', 'Planted', {columns} FROM entries LIMIT 1",
    )
    fresh.start()
    with fresh.control() as c:
        assert c.call("memory.verify", {})["mismatches"] == ["ent_planted"]


def test_memory_verify_accepts_a_removed_entry_whose_text_is_gone(fresh: Daemon) -> None:
    with fresh.control() as c:
        added = _write(c, "Short lived")["entries"][0]
        c.call(
            "memory.write",
            {
                "target": "memory",
                "action": "remove",
                "id": added["id"],
                "expected_revision": added["revision"],
            },
        )
        assert c.call("memory.verify", {})["mismatches"] == []
