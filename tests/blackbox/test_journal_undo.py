"""Black-box: memory.journal, memory.undo and the memctl lifecycle subcommands (SPEC §6, §9)."""

from __future__ import annotations

import json
import secrets
from typing import Any

import pytest

from memoryd.rpc.client import Client, RpcError
from tests.harness import Daemon, entry


def who() -> dict[str, str]:
    """A fresh owner per test, so journals do not interleave."""
    return {"kind": "local", "subject": "u" + secrets.token_hex(6)}


def write(c: Client, ident: dict[str, str], **params: Any) -> dict[str, Any]:
    return c.call("memory.write", {"identity": ident, **params})  # type: ignore[no-any-return]


def add(c: Client, ident: dict[str, str], title: str = "T", **fields: Any) -> dict[str, Any]:
    return write(c, ident, action="add", entry=entry(title=title, **fields))


def read(c: Client, ident: dict[str, str], entry_id: str) -> dict[str, Any]:
    return c.call(
        "memory.read",
        {
            "identity": ident,  # type: ignore[no-any-return]
            "ids": [entry_id],
        },
    )["entries"][0]


def undo(c: Client, ident: dict[str, str], operation_id: str) -> dict[str, Any]:
    return c.call(
        "memory.undo",
        {
            "identity": ident,  # type: ignore[no-any-return]
            "operation_id": operation_id,
        },
    )


# --- journal -----------------------------------------------------------------------


def test_journal_lists_operations_newest_first_with_hashes_and_no_text(c: Client) -> None:
    me = who()
    canary = "zq" + secrets.token_hex(10)
    first = add(c, me, title=f"Title {canary}", body=f"Body {canary}")
    e = first["entries"][0]
    second = write(
        c,
        me,
        action="replace",
        id=e["id"],
        expected_revision=1,
        entry=entry(title="Plain", body=f"New {canary}"),
    )
    page = c.call("memory.journal", {"identity": me})
    assert [i["operation_id"] for i in page["items"]] == [
        second["operation_id"],
        first["operation_id"],
    ]
    newest = page["items"][0]
    assert newest["action"] == "replace"
    assert newest["items"] == [
        {
            "action": "replace",
            "entry_id": e["id"],
            "revision_before": 1,
            "revision_after": 2,
            "content_hash": second["entries"][0]["content_hash"],
        }
    ]
    assert canary not in json.dumps(page)


def test_journal_pages_twenty_at_a_time_with_a_cursor(c: Client) -> None:
    me = who()
    ops = [add(c, me, title=f"T{i}")["operation_id"] for i in range(23)]
    first = c.call("memory.journal", {"identity": me})
    assert len(first["items"]) == 20
    second = c.call("memory.journal", {"identity": me, "cursor": first["next_cursor"]})
    assert second["next_cursor"] is None
    seen = [i["operation_id"] for i in first["items"] + second["items"]]
    assert seen == list(reversed(ops))


def test_journal_cursor_of_another_owner_is_refused(c: Client) -> None:
    me, other = who(), who()
    for i in range(21):
        add(c, me, title=f"T{i}")
    cursor = c.call("memory.journal", {"identity": me})["next_cursor"]
    with pytest.raises(RpcError) as err:
        c.call("memory.journal", {"identity": other, "cursor": cursor})
    assert err.value.data_code == "cursor_invalid"


def test_forged_journal_cursor_is_refused(c: Client) -> None:
    with pytest.raises(RpcError) as err:
        c.call("memory.journal", {"identity": who(), "cursor": "AAAA" * 20})
    assert err.value.data_code == "cursor_invalid"


def test_journal_and_undo_do_not_exist_on_the_agent_socket(d: Daemon) -> None:
    with d.agent() as a:
        for method in ("memory.journal", "memory.undo", "memory.gc"):
            with pytest.raises(RpcError) as err:
                a.call(method, {"operation_id": "op_x"} if method == "memory.undo" else {})
            assert err.value.code == -32601


# --- undo --------------------------------------------------------------------------


def test_undo_of_add_archives_the_entry(c: Client) -> None:
    me = who()
    out = add(c, me)
    result = undo(c, me, out["operation_id"])
    assert result["outcome"] == "applied"
    assert result["decision"]["effect"] == "allow"
    assert read(c, me, out["entries"][0]["id"])["status"] == "archived"


def test_undo_of_replace_restores_the_previous_content_as_a_new_revision(c: Client) -> None:
    me = who()
    e = add(c, me, title="Old", body="old body", basis={"kind": "human", "note": "said so"})[
        "entries"
    ][0]
    out = write(
        c,
        me,
        action="replace",
        id=e["id"],
        expected_revision=1,
        entry=entry(title="New", body="new body"),
    )
    restored = undo(c, me, out["operation_id"])["entries"][0]
    assert (restored["title"], restored["body"], restored["revision"]) == ("Old", "old body", 3)
    assert restored["content_hash"] == e["content_hash"]
    assert restored["basis"]["kind"] == "human"


def test_undo_of_supersede_reactivates_the_old_and_archives_the_new(c: Client) -> None:
    me = who()
    e = add(c, me, title="Same")["entries"][0]
    out = write(
        c,
        me,
        action="supersede",
        id=e["id"],
        expected_revision=1,
        entry=entry(title="Same", body="successor"),
    )
    new_id = out["entries"][1]["id"]
    undo(c, me, out["operation_id"])
    old = read(c, me, e["id"])
    assert (old["status"], old["superseded_by"]) == ("active", None)
    assert read(c, me, new_id)["status"] == "archived"


def test_undo_of_archive_reactivates(c: Client) -> None:
    me = who()
    e = add(c, me)["entries"][0]
    out = write(c, me, action="archive", id=e["id"], expected_revision=1, reason="old")
    undo(c, me, out["operation_id"])
    assert read(c, me, e["id"])["status"] == "active"


def test_undo_of_a_batch_reverses_every_operation(c: Client) -> None:
    me = who()
    e = add(c, me, title="Kept")["entries"][0]
    out = write(
        c,
        me,
        action="batch",
        ops=[
            {"action": "add", "entry": entry(title="Added")},
            {"action": "archive", "id": e["id"], "expected_revision": 1, "reason": "batch"},
        ],
    )
    added = out["entries"][0]["id"]
    undo(c, me, out["operation_id"])
    assert read(c, me, added)["status"] == "archived"
    assert read(c, me, e["id"])["status"] == "active"


def test_undo_after_a_later_change_is_a_revision_conflict_and_changes_nothing(c: Client) -> None:
    me = who()
    out = add(c, me)
    e = out["entries"][0]
    write(
        c,
        me,
        action="replace",
        id=e["id"],
        expected_revision=1,
        entry=entry(title="T", body="moved on"),
    )
    with pytest.raises(RpcError) as err:
        undo(c, me, out["operation_id"])
    assert err.value.data_code == "revision_conflict"
    after = read(c, me, e["id"])
    assert (after["status"], after["revision"]) == ("active", 2)


def test_undo_of_a_batch_with_one_stale_entry_changes_nothing(c: Client) -> None:
    me = who()
    out = write(
        c,
        me,
        action="batch",
        ops=[
            {"action": "add", "entry": entry(title="A")},
            {"action": "add", "entry": entry(title="B")},
        ],
    )
    a, b = out["entries"]
    write(c, me, action="archive", id=b["id"], expected_revision=1, reason="moved")
    with pytest.raises(RpcError) as err:
        undo(c, me, out["operation_id"])
    assert err.value.data_code == "revision_conflict"
    assert read(c, me, a["id"])["status"] == "active"


def test_undo_of_an_unknown_operation_is_not_found(c: Client) -> None:
    with pytest.raises(RpcError) as err:
        undo(c, who(), "op_" + "0" * 32)
    assert err.value.data_code == "not_found"


def test_undo_of_another_owners_operation_is_not_found(c: Client) -> None:
    out = add(c, who())
    with pytest.raises(RpcError) as err:
        undo(c, who(), out["operation_id"])
    assert err.value.data_code == "not_found"


def test_undoing_twice_is_a_conflict(c: Client) -> None:
    me = who()
    out = add(c, me)
    undo(c, me, out["operation_id"])
    with pytest.raises(RpcError) as err:
        undo(c, me, out["operation_id"])
    assert err.value.code == -32002
    assert err.value.details["reason"] == "already_undone"


def test_remove_cannot_be_undone_and_says_why(c: Client) -> None:
    me = who()
    e = add(c, me)["entries"][0]
    out = write(c, me, action="remove", id=e["id"], expected_revision=1)
    with pytest.raises(RpcError) as err:
        undo(c, me, out["operation_id"])
    assert err.value.data_code == "undo_impossible"
    assert err.value.details["reason"] == "remove_is_final"
    assert "removal" in (err.value.recovery or "")


def test_undo_is_journaled_and_audited_like_a_write(c: Client) -> None:
    me = who()
    out = add(c, me)
    result = undo(c, me, out["operation_id"])
    journal = c.call("memory.journal", {"identity": me})["items"]
    assert journal[0]["operation_id"] == result["operation_id"]
    assert journal[0]["undo_of"] == out["operation_id"]
    assert journal[1]["undone_by"] == result["operation_id"]
    events = c.call("audit.export", {})["events"]
    kinds = [e["kind"] for e in events if e["decision_id"] == result["decision"]["decision_id"]]
    assert kinds == ["decision", "operation"]


def test_undo_denied_by_policy_changes_nothing(c: Client, d: Daemon) -> None:
    me = who()
    out = write(c, me, action="add", scope="locked", entry=entry())
    d.home.joinpath("policy.toml").write_text(
        '[[rule]]\nid = "lock"\neffect = "deny"\ncapability = "MemoryWrite"\nscope = "locked"\n'
    )
    try:
        c.call("policy.reload", {})
        with pytest.raises(RpcError) as err:
            undo(c, me, out["operation_id"])
        assert err.value.data_code == "policy_denied"
        assert err.value.details["rule_ids"] == ["lock"]
        assert read(c, me, out["entries"][0]["id"])["status"] == "active"
    finally:
        d.home.joinpath("policy.toml").write_text("")
        c.call("policy.reload", {})


def test_undo_of_a_replace_is_decided_on_the_type_it_restores(c: Client, d: Daemon) -> None:
    # The undo writes the old revision back, its type included: a rule on
    # that type holds for it as for any write that would make such an entry.
    me = who()
    e = add(c, me, title="Deploy", type="procedure", body="Run the deploy script.")["entries"][0]
    out = write(
        c,
        me,
        action="replace",
        id=e["id"],
        expected_revision=1,
        entry=entry(title="Deploy", body="Deploys are paused.", type="fact"),
    )
    d.home.joinpath("policy.toml").write_text(
        '[[rule]]\nid = "no-procedures"\neffect = "deny"\ncapability = "MemoryWrite"\n'
        'type = "procedure"\n'
    )
    try:
        c.call("policy.reload", {})
        with pytest.raises(RpcError) as err:
            undo(c, me, out["operation_id"])
        assert err.value.data_code == "policy_denied"
        assert err.value.details["rule_ids"] == ["no-procedures"]
        current = read(c, me, e["id"])
        assert (current["type"], current["revision"]) == ("fact", 2)
    finally:
        d.home.joinpath("policy.toml").write_text("")
        c.call("policy.reload", {})


# --- memctl ------------------------------------------------------------------------------


def memctl_json(d: Daemon, *args: str) -> Any:
    proc = d.memctl(*args, "--json")
    assert proc.returncode == 0, proc.stderr.decode(errors="replace")
    return json.loads(proc.stdout)


def test_memctl_journal_and_undo(d: Daemon, c: Client) -> None:
    e = c.call("memory.write", {"action": "add", "scope": "memctl-undo", "entry": entry()})
    journal = memctl_json(d, "journal")
    assert journal["items"][0]["operation_id"] == e["operation_id"]
    memctl_json(d, "undo", e["operation_id"])
    assert (
        c.call("memory.read", {"ids": [e["entries"][0]["id"]]})["entries"][0]["status"]
        == "archived"
    )


def test_memctl_rm_receipt_and_gc(d: Daemon, c: Client) -> None:
    e = c.call("memory.write", {"action": "add", "scope": "memctl-rm", "entry": entry()})[
        "entries"
    ][0]
    removed = memctl_json(d, "rm", e["id"], "--rev", "1", "--scope", "memctl-rm")
    receipt_id = removed["receipt"]["receipt_id"]
    assert memctl_json(d, "receipt", receipt_id)["status"] == "verified"
    assert set(memctl_json(d, "gc")) >= {"expired", "purged"}


def test_memctl_undo_of_a_removal_exits_non_zero(d: Daemon, c: Client) -> None:
    e = c.call("memory.write", {"action": "add", "scope": "memctl-final", "entry": entry()})
    out = c.call(
        "memory.write",
        {
            "action": "remove",
            "scope": "memctl-final",
            "id": e["entries"][0]["id"],
            "expected_revision": 1,
        },
    )
    proc = d.memctl("undo", out["operation_id"])
    assert proc.returncode != 0
    assert b"undo_impossible" in proc.stderr + proc.stdout
