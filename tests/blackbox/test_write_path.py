"""The governed write path over the real sockets (SPEC §5).

One daemon serves the module; every test acts for its own fresh identity (an
agent token for a new subject, or ``identity`` on control), so tests never see
each other's entries, actions or idempotency keys.
"""

from __future__ import annotations

import threading
from typing import Any

from memoryd.rpc.client import Client, RpcError
from tests.harness import Daemon, enable_consent, entry, expect, fresh_identity, running


def new_identity() -> dict[str, str]:
    return fresh_identity("wp-")


def agent_task(
    c: Client, a: Client, ident: dict[str, str] | None = None, **begin: Any
) -> tuple[dict[str, str], str]:
    """A main agent task for ``ident`` (fresh if None) with read and contribute on."""
    ident = ident or new_identity()
    enable_consent(c, ident)
    token = c.call("token.issue", {"identity": ident})["token"]
    task = a.call("task.begin", {"token": token, **begin})
    return ident, task["task_id"]


def control_add(
    c: Client,
    ident: dict[str, str],
    title: str = "Editor",
    body: str = "The user prefers vim keybindings.",
) -> dict[str, Any]:
    out = c.call("memory.write", {"identity": ident, "action": "add", "entry": entry(title, body)})
    assert out["outcome"] == "applied"
    return out["entries"][0]  # type: ignore[no-any-return]


def read_one(c: Client, ident: dict[str, str], entry_id: str) -> dict[str, Any]:
    return c.call("memory.read", {"identity": ident, "ids": [entry_id]})["entries"][0]  # type: ignore[no-any-return]


def titles(c: Client, ident: dict[str, str]) -> set[str]:
    items = c.call(
        "memory.list", {"identity": ident, "statuses": ["active", "superseded", "archived"]}
    )["items"]
    return {i["title"] for i in items}


# --- approvals ------------------------------------------------------------------


def test_agent_proposal_is_approved_then_readable_and_audited(c: Client, a: Client) -> None:
    _ident, task = agent_task(c, a)
    body = "Deploys go through the staging cluster first."
    proposed = a.call(
        "memory.write",
        {"task_id": task, "action": "add", "entry": entry("Deploy order", body, "procedure")},
    )
    assert proposed["outcome"] == "pending"
    assert proposed["action_id"].startswith("act_")
    assert proposed["operation_id"] is None and proposed["entries"] == []

    listed = c.call("governance.action.list", {})
    mine = [i for i in listed["items"] if i["action_id"] == proposed["action_id"]]
    assert len(mine) == 1 and mine[0]["status"] == "pending"
    assert "Deploy order" not in repr(listed) and body not in repr(listed)

    approved = c.call("governance.action.approve", {"action_id": proposed["action_id"]})
    assert approved["outcome"] == "applied" and approved["operation_id"]
    (new,) = approved["entries"]
    assert (new["title"], new["body"], new["revision"], new["source"]) == (
        "Deploy order",
        body,
        1,
        "agent",
    )

    read = a.call("memory.read", {"task_id": task, "ids": [new["id"]]})
    assert read["entries"][0]["body"] == body
    assert c.call("audit.verify", {})["ok"] is True


def test_denied_action_keeps_no_text_and_cannot_be_approved(c: Client, a: Client) -> None:
    ident, task = agent_task(c, a)
    proposed = a.call(
        "memory.write",
        {"task_id": task, "action": "add", "entry": entry("Shell", "Prefers fish over bash.")},
    )
    action_id = proposed["action_id"]
    assert c.call("governance.action.get", {"action_id": action_id})["ops"]  # text while pending

    denied = c.call("governance.action.deny", {"action_id": action_id, "reason": "not useful"})
    assert denied["status"] == "denied"
    expect(-32002, "already_decided", c.call, "governance.action.approve", {"action_id": action_id})
    after = c.call("governance.action.get", {"action_id": action_id})
    assert after["status"] == "denied" and after["ops"] is None
    assert "Prefers fish" not in repr(after) and "Shell" not in repr(after)
    assert titles(c, ident) == set()


def test_approval_after_the_entry_changed_is_decision_stale(c: Client, a: Client) -> None:
    ident, task = agent_task(c, a)
    base = control_add(c, ident)
    proposed = a.call(
        "memory.write",
        {
            "task_id": task,
            "action": "replace",
            "id": base["id"],
            "expected_revision": 1,
            "entry": entry(body="The user prefers emacs keybindings."),
        },
    )
    assert proposed["outcome"] == "pending"
    direct = c.call(
        "memory.write",
        {
            "identity": ident,
            "action": "replace",
            "id": base["id"],
            "expected_revision": 1,
            "entry": entry(body="The user prefers helix keybindings."),
        },
    )
    assert direct["entries"][0]["revision"] == 2

    expect(
        -32002,
        "decision_stale",
        c.call,
        "governance.action.approve",
        {"action_id": proposed["action_id"]},
    )
    now = read_one(c, ident, base["id"])
    assert (now["revision"], now["body"]) == (2, "The user prefers helix keybindings.")


def test_pending_action_survives_a_restart_and_is_approvable() -> None:
    with running() as d:
        with d.control() as c, d.agent() as a:
            ident, task = agent_task(c, a)
            action_id = a.call(
                "memory.write", {"task_id": task, "action": "add", "entry": entry()}
            )["action_id"]
        d.restart()
        with d.control() as c:
            got = c.call("governance.action.get", {"action_id": action_id})
            assert got["status"] == "pending"
            approved = c.call("governance.action.approve", {"action_id": action_id})
            assert approved["outcome"] == "applied"
            assert titles(c, ident) == {"Editor"}


def test_identical_proposal_returns_the_same_pending_action(c: Client, a: Client) -> None:
    _ident, task = agent_task(c, a)
    params = {"task_id": task, "action": "add", "entry": entry("Tabs", "Indent with 4 spaces.")}
    first = a.call("memory.write", params)
    second = a.call("memory.write", params)
    assert first["action_id"] == second["action_id"]
    pending = [
        i
        for i in c.call("governance.action.list", {})["items"]
        if i["action_id"] == first["action_id"]
    ]
    assert len(pending) == 1


# --- idempotency ------------------------------------------------------------------


def test_idempotent_replay_returns_the_same_operation(c: Client) -> None:
    ident = new_identity()
    params = {"identity": ident, "action": "add", "entry": entry(), "idempotency_key": "k-1"}
    first = c.call("memory.write", params)
    # A real second add would be duplicate_title: the replay answers before any check.
    again = c.call("memory.write", params)
    assert again["operation_id"] == first["operation_id"] is not None
    assert [e["id"] for e in again["entries"]] == [e["id"] for e in first["entries"]]
    assert titles(c, ident) == {"Editor"}


def test_idempotent_replay_of_a_proposal_returns_the_same_action(c: Client, a: Client) -> None:
    _ident, task = agent_task(c, a)
    params = {"task_id": task, "action": "add", "entry": entry(), "idempotency_key": "retry.1"}
    first = a.call("memory.write", params)
    assert a.call("memory.write", params)["action_id"] == first["action_id"]


def test_same_key_with_another_request_is_idempotency_conflict(c: Client) -> None:
    ident = new_identity()
    c.call(
        "memory.write",
        {"identity": ident, "action": "add", "entry": entry(), "idempotency_key": "k-2"},
    )
    expect(
        -32002,
        "idempotency_conflict",
        c.call,
        "memory.write",
        {
            "identity": ident,
            "action": "add",
            "entry": entry(title="Other"),
            "idempotency_key": "k-2",
        },
    )
    assert titles(c, ident) == {"Editor"}


def test_idempotency_key_is_checked_before_anything_else(c: Client) -> None:
    ident = new_identity()
    c.call(
        "memory.write",
        {"identity": ident, "action": "add", "entry": entry(), "idempotency_key": "k-3"},
    )
    # Without the key this is missing_revision; with a used key the key wins.
    expect(
        -32002,
        "idempotency_conflict",
        c.call,
        "memory.write",
        {"identity": ident, "action": "remove", "id": "ent_01ABC", "idempotency_key": "k-3"},
    )


# --- revisions ----------------------------------------------------------------------


def test_replace_without_expected_revision_is_missing_revision(c: Client) -> None:
    ident = new_identity()
    base = control_add(c, ident)
    expect(
        -32002,
        "missing_revision",
        c.call,
        "memory.write",
        {"identity": ident, "action": "replace", "id": base["id"], "entry": entry(body="x")},
    )
    assert read_one(c, ident, base["id"])["revision"] == 1


def test_replace_with_a_stale_revision_names_the_current_one(c: Client) -> None:
    ident = new_identity()
    base = control_add(c, ident)
    c.call(
        "memory.write",
        {
            "identity": ident,
            "action": "replace",
            "id": base["id"],
            "expected_revision": 1,
            "entry": entry(body="Second body."),
        },
    )
    err = expect(
        -32002,
        "revision_conflict",
        c.call,
        "memory.write",
        {
            "identity": ident,
            "action": "replace",
            "id": base["id"],
            "expected_revision": 1,
            "entry": entry(body="Third body."),
        },
    )
    assert err.details["current_revision"] == 2
    assert read_one(c, ident, base["id"])["body"] == "Second body."


def test_concurrent_writers_at_one_revision_never_both_succeed(d: Daemon, c: Client) -> None:
    ident = new_identity()
    base = control_add(c, ident)
    writers = 4
    barrier = threading.Barrier(writers)
    outcomes: list[str] = []
    lock = threading.Lock()

    def write(n: int) -> None:
        with d.control() as mine:
            mine.call("memory.status", {})  # connected before the race starts
            barrier.wait()
            try:
                mine.call(
                    "memory.write",
                    {
                        "identity": ident,
                        "action": "replace",
                        "id": base["id"],
                        "expected_revision": 1,
                        "entry": entry(body=f"Writer {n} was here."),
                    },
                )
                result = "ok"
            except RpcError as exc:
                result = exc.data_code or "?"
        with lock:
            outcomes.append(result)

    threads = [threading.Thread(target=write, args=(n,)) for n in range(writers)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(outcomes) == ["ok"] + ["revision_conflict"] * (writers - 1)
    assert read_one(c, ident, base["id"])["revision"] == 2


# --- batches --------------------------------------------------------------------------


def test_batch_failing_on_its_last_op_changes_nothing(c: Client) -> None:
    ident = new_identity()
    ops = [
        {"action": "add", "entry": entry("One", "First note.")},
        {"action": "add", "entry": entry("Two", "Second note.")},
        {"action": "add", "entry": entry("One", "A clash with the first title.")},
    ]
    expect(
        -32002,
        "duplicate_title",
        c.call,
        "memory.write",
        {"identity": ident, "action": "batch", "ops": ops},
    )
    assert titles(c, ident) == set()


def test_batch_with_a_stale_revision_changes_nothing(c: Client) -> None:
    ident = new_identity()
    base = control_add(c, ident)
    ops = [
        {"action": "add", "entry": entry("One", "First note.")},
        {"action": "add", "entry": entry("Two", "Second note.")},
        {
            "action": "replace",
            "id": base["id"],
            "expected_revision": 7,
            "entry": entry(body="Never stored."),
        },
    ]
    expect(
        -32002,
        "revision_conflict",
        c.call,
        "memory.write",
        {"identity": ident, "action": "batch", "ops": ops},
    )
    assert titles(c, ident) == {"Editor"}
    assert read_one(c, ident, base["id"])["revision"] == 1


def test_batch_of_more_than_fifty_ops_is_batch_too_large(c: Client) -> None:
    ident = new_identity()
    ops = [{"action": "add", "entry": entry(f"Note {i}", f"Body {i}.")} for i in range(51)]
    expect(
        -32005,
        "batch_too_large",
        c.call,
        "memory.write",
        {"identity": ident, "action": "batch", "ops": ops},
    )
    assert titles(c, ident) == set()


def test_successful_batch_has_one_operation_and_entries_in_order(c: Client) -> None:
    ident = new_identity()
    base = control_add(c, ident)
    out = c.call(
        "memory.write",
        {
            "identity": ident,
            "action": "batch",
            "ops": [
                {"action": "add", "entry": entry("One", "First note.")},
                {
                    "action": "replace",
                    "id": base["id"],
                    "expected_revision": 1,
                    "entry": entry(body="Replaced in a batch."),
                },
                {"action": "add", "entry": entry("Two", "Second note.")},
            ],
        },
    )
    assert out["outcome"] == "applied" and out["operation_id"].startswith("op_")
    assert [(e["title"], e["revision"]) for e in out["entries"]] == [
        ("One", 1),
        ("Editor", 2),
        ("Two", 1),
    ]


# --- outcomes ---------------------------------------------------------------------------


def test_identical_replace_is_unchanged_without_operation(c: Client) -> None:
    ident = new_identity()
    base = control_add(c, ident)
    out = c.call(
        "memory.write",
        {
            "identity": ident,
            "action": "replace",
            "id": base["id"],
            "expected_revision": 1,
            "entry": entry(),
        },
    )
    assert out["outcome"] == "unchanged" and out["operation_id"] is None
    assert out["entries"][0]["revision"] == 1


def test_supersede_returns_old_then_new(c: Client) -> None:
    ident = new_identity()
    base = control_add(c, ident)
    out = c.call(
        "memory.write",
        {
            "identity": ident,
            "action": "supersede",
            "id": base["id"],
            "expected_revision": 1,
            "entry": entry("Editor now", "The user moved to helix."),
        },
    )
    old, new = out["entries"]
    assert old["id"] == base["id"] and old["status"] == "superseded"
    assert old["superseded_by"] == new["id"] != base["id"]
    assert (new["status"], new["revision"]) == ("active", 1)


def test_archive_needs_a_reason(c: Client) -> None:
    ident = new_identity()
    base = control_add(c, ident)
    err = expect(
        -32602,
        "invalid_params",
        c.call,
        "memory.write",
        {"identity": ident, "action": "archive", "id": base["id"], "expected_revision": 1},
    )
    assert any(e.get("path", "").endswith("reason") for e in err.errors)
    out = c.call(
        "memory.write",
        {
            "identity": ident,
            "action": "archive",
            "id": base["id"],
            "expected_revision": 1,
            "reason": "outdated",
        },
    )
    assert out["entries"][0]["status"] == "archived"


def test_remove_returns_a_receipt_that_memory_receipt_reads(c: Client) -> None:
    ident = new_identity()
    base = control_add(c, ident)
    out = c.call(
        "memory.write",
        {"identity": ident, "action": "remove", "id": base["id"], "expected_revision": 1},
    )
    receipt = out["receipt"]
    assert receipt["entry_id"] == base["id"]
    got = c.call("memory.receipt", {"identity": ident, "receipt_id": receipt["receipt_id"]})
    assert got["entry_id"] == base["id"] and got["status"] == receipt["status"]
    removed = read_one(c, ident, base["id"])
    assert removed["status"] == "removed" and removed["body"] == ""
