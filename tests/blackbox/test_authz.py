"""Every access through the one authorization gate, over the real sockets.

One daemon serves the module; every test acts for its own fresh identity and
writes the policy it needs (``policy.reload``), restoring the empty policy
when it is done.
"""

from __future__ import annotations

import json
import os
import signal
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import pytest

from memoryd.rpc.client import Client, RpcError
from tests.harness import Daemon, enable_consent, entry, expect, fresh_identity
from tests.inproc import CallFailed, FakeClock, composed

# Hybrid where the semantic extra is installed: isolation must hold for
# vector ranking too.
# How this module's daemon starts (the ``d`` fixture, tests/blackbox/conftest.py).
DAEMON = {"ranker": "auto"}


def new_identity() -> dict[str, str]:
    return fresh_identity("az-")


def set_policy(d: Daemon, c: Client, text: str) -> None:
    (d.home / "policy.toml").write_text(text)
    assert c.call("policy.reload", {})["loaded"]


@pytest.fixture
def policy(d: Daemon, c: Client) -> Iterator[Any]:
    def load(text: str) -> None:
        set_policy(d, c, text)

    yield load
    (d.home / "policy.toml").write_text("")
    with d.control() as fresh:
        try:
            fresh.call("policy.reload", {})
        except RpcError:
            # A governance deny refuses policy.reload itself; SIGHUP still reloads.
            d.signal(signal.SIGHUP)
            wait_for_empty_policy(d)


def wait_for_empty_policy(d: Daemon) -> None:
    for _ in range(200):
        with d.control() as c:
            if c.call("memory.status", {})["policy"]["rules"] == 0:
                return
        time.sleep(0.05)
    raise AssertionError("policy was not reloaded")


def add(
    c: Client, ident: dict[str, str], scope: str, title: str, body: str, target: str = "memory"
) -> dict[str, Any]:
    params: dict[str, Any] = {
        "identity": ident,
        "action": "add",
        "target": target,
        "entry": entry(title, body),
    }
    if target == "memory":
        params["scope"] = scope
    out = c.call("memory.write", params)
    assert out["outcome"] == "applied"
    return out["entries"][0]  # type: ignore[no-any-return]


HR_DENY = """
[[rule]]
id = "hr-hidden-from-agents"
effect = "deny"
capability = "MemoryRead"
channel = "agent"
scope = "project:hr*"
"""


# --- 1. read rules decide every read method ------------------------------------------


def test_deny_read_by_scope_glob_holds_for_every_read_method(
    d: Daemon, c: Client, a: Client, policy: Any
) -> None:
    ident = new_identity()
    enable_consent(c, ident)
    hr = add(c, ident, "project:hr", "Salaries", "payroll bands for staff")
    web = add(c, ident, "project:web", "Frontend", "payroll page uses react")
    gone = add(c, ident, "project:hr", "Old", "payroll spreadsheet retired")
    removed = c.call(
        "memory.write",
        {
            "identity": ident,
            "action": "remove",
            "scope": "project:hr",
            "id": gone["id"],
            "expected_revision": 1,
        },
    )
    receipt_id = removed["receipt"]["receipt_id"]
    policy(HR_DENY)
    token = c.call("token.issue", {"identity": ident})["token"]
    task = a.call("task.begin", {"token": token, "scopes": ["project:hr", "project:web"]})
    tid = task["task_id"]

    err = expect(
        -32001, "policy_denied", a.call, "memory.read", {"task_id": tid, "ids": [hr["id"]]}
    )
    assert err.data["details"]["rule_ids"] == ["hr-hidden-from-agents"]
    assert err.data["details"]["decision_id"].startswith("dec_")
    assert err.data["details"]["policy_hash"].startswith("pol_")
    assert err.data["details"]["explicit"] is True
    assert (
        a.call("memory.read", {"task_id": tid, "ids": [web["id"]]})["entries"][0]["id"] == web["id"]
    )

    listed = a.call("memory.list", {"task_id": tid})
    assert [i["id"] for i in listed["items"]] == [web["id"]]
    found = a.call("memory.list", {"task_id": tid, "query": "payroll"})
    assert [i["id"] for i in found["items"]] == [web["id"]]
    expect(-32001, "policy_denied", a.call, "memory.list", {"task_id": tid, "scope": "project:hr"})

    snap = a.call("memory.context", {"task_id": tid, "intent": "payroll"})
    assert [e["id"] for e in snap["entries"]] == [web["id"]]
    assert snap["omitted"].get("policy_denied") == 1
    assert "Salaries" not in snap["rendered"]

    expect(
        -32001,
        "policy_denied",
        a.call,
        "memory.receipt",
        {"task_id": tid, "receipt_id": receipt_id},
    )
    # The operator's own reads are not touched by an agent-only rule.
    assert c.call("memory.read", {"identity": ident, "ids": [hr["id"]]})["entries"]


def test_deny_read_of_user_target_holds_on_both_channels_and_in_the_journal(
    d: Daemon, c: Client, a: Client, policy: Any
) -> None:
    ident = new_identity()
    enable_consent(c, ident)
    profile = add(c, ident, "", "Name", "the user is called Ada", target="user")
    note = add(c, ident, "default", "Note", "a plain note")
    policy(
        '[[rule]]\nid = "no-user-reads"\neffect = "deny"\ncapability = "MemoryRead"\n'
        'target = "user"\n'
    )
    err = expect(
        -32001, "policy_denied", c.call, "memory.read", {"identity": ident, "ids": [profile["id"]]}
    )
    assert err.data["details"]["rule_ids"] == ["no-user-reads"]
    listed = c.call("memory.list", {"identity": ident})
    assert [i["id"] for i in listed["items"]] == [note["id"]]
    journal = c.call("memory.journal", {"identity": ident})
    shown = json.dumps(journal)
    assert profile["id"] not in shown and note["id"] in shown
    assert journal["omitted"] == 1
    token = c.call("token.issue", {"identity": ident})["token"]
    tid = a.call("task.begin", {"token": token})["task_id"]
    snap = a.call("memory.context", {"task_id": tid, "intent": "Ada user called"})
    # The note may be recalled (semantic recall finds it once embedded); the
    # denied profile never is, nor any of its text.
    assert profile["id"] not in {e["id"] for e in snap["entries"]}
    assert "Ada" not in json.dumps(snap)
    assert {e["id"] for e in snap["entries"]} <= {note["id"]}
    expect(-32001, "policy_denied", a.call, "memory.read", {"task_id": tid, "ids": [profile["id"]]})


def test_governance_deny_on_control_is_policy_denied_not_channel_forbidden(
    d: Daemon, c: Client, policy: Any
) -> None:
    policy('[[rule]]\nid = "no-governance"\neffect = "deny"\ncapability = "GovernanceDecide"\n')
    for method in ("token.list", "audit.verify", "audit.checkpoint", "memory.verify"):
        err = expect(-32001, "policy_denied", c.call, method, {})
        assert err.data["details"]["rule_ids"] == ["no-governance"]


def test_consent_missing_is_consent_required_with_a_decision(c: Client, a: Client) -> None:
    ident = new_identity()
    token = c.call("token.issue", {"identity": ident})["token"]
    tid = a.call("task.begin", {"token": token})["task_id"]
    err = expect(-32001, "consent_required", a.call, "memory.list", {"task_id": tid})
    assert err.data["details"]["decision_id"].startswith("dec_")
    assert err.data["details"]["explicit"] is False


# --- 2. revocation and expiry stop a running task ------------------------------------


def test_revoking_a_token_stops_its_tasks_at_once(c: Client, a: Client) -> None:
    ident = new_identity()
    enable_consent(c, ident)
    issued = c.call("token.issue", {"identity": ident})
    task = a.call("task.begin", {"token": issued["token"]})
    child = a.call("task.begin", {"token": issued["token"], "parent_task": task["task_id"]})
    assert a.call("memory.list", {"task_id": task["task_id"]})["items"] == []
    c.call("token.revoke", {"token_id": issued["token_id"]})
    for tid in (task["task_id"], child["task_id"]):
        err = expect(-32001, "policy_denied", a.call, "memory.list", {"task_id": tid})
        assert "token" in err.data["recovery"]
    expect(
        -32001,
        "policy_denied",
        a.call,
        "memory.write",
        {"task_id": task["task_id"], "action": "add", "entry": entry()},
    )
    expect(
        -32001,
        "policy_denied",
        a.call,
        "memory.context",
        {"task_id": task["task_id"], "intent": "anything"},
    )


def test_an_expired_token_stops_its_tasks(tmp_path: Path) -> None:
    # On the in-process seam with a fake clock: expiry is reached by moving
    # time, not by waiting for it.
    clock = FakeClock()

    async def go() -> str | None:
        with composed(tmp_path / "h", clock=clock) as daemon:
            ident = new_identity()
            consent = await daemon.call("control", "consent.get", {"identity": ident})
            await daemon.call(
                "control",
                "consent.set",
                {
                    "identity": ident,
                    "read": True,
                    "contribute": True,
                    "version": consent["version"],
                },
            )
            issued = await daemon.call(
                "control", "token.issue", {"identity": ident, "expires_in": 60}
            )
            task = await daemon.call("agent", "task.begin", {"token": issued["token"]})
            listed = {"task_id": task["task_id"]}
            clock.advance(seconds=59)
            assert (await daemon.call("agent", "memory.list", listed))["items"] == []
            clock.advance(seconds=2)
            try:
                await daemon.call("agent", "memory.list", listed)
            except CallFailed as exc:
                assert exc.error["code"] == -32001
                assert "token" in exc.error["data"]["recovery"]
                return exc.data_code  # type: ignore[no-any-return]
            return None

    assert anyio.run(go, backend="asyncio") == "policy_denied"


# --- 3. a task id is not a bearer credential --------------------------------------------


def test_a_task_is_refused_to_connections_without_its_token(d: Daemon, c: Client) -> None:
    ident = new_identity()
    enable_consent(c, ident)
    token = c.call("token.issue", {"identity": ident})["token"]
    other = c.call("token.issue", {"identity": new_identity()})["token"]
    with d.agent() as mine:
        tid = mine.call("task.begin", {"token": token})["task_id"]
        assert mine.call("memory.list", {"task_id": tid})["items"] == []
        with d.agent() as bare:
            expect(-32003, "task_not_found", bare.call, "memory.list", {"task_id": tid})
            expect(
                -32003,
                "task_not_found",
                bare.call,
                "memory.write",
                {"task_id": tid, "action": "add", "entry": entry()},
            )
            expect(-32003, "task_not_found", bare.call, "task.end", {"task_id": tid})
        with d.agent() as foreign:
            foreign.call("task.begin", {"token": other})
            expect(-32003, "task_not_found", foreign.call, "memory.list", {"task_id": tid})
            expect(
                -32003,
                "task_not_found",
                foreign.call,
                "task.resume",
                {"task_id": tid, "token": other},
            )
    # A runner that reconnects presents the task's token again, then goes on.
    with d.agent() as again:
        expect(-32003, "task_not_found", again.call, "memory.list", {"task_id": tid})
        assert again.call("task.resume", {"task_id": tid, "token": token})["task_id"] == tid
        assert again.call("memory.list", {"task_id": tid})["items"] == []


# --- 4. a subagent never widens its parent's token -----------------------------------


def test_a_scoped_token_cannot_borrow_a_wider_parent(d: Daemon, c: Client, a: Client) -> None:
    me = {"kind": "local", "subject": f"uid:{os.geteuid()}"}
    scoped = c.call("token.issue", {"identity": me, "scopes": ["az:narrow"]})["token"]
    wide = a.call("task.begin", {"scopes": ["az:wide"]})
    expect(
        -32003,
        "task_not_found",
        a.call,
        "task.begin",
        {"token": scoped, "parent_task": wide["task_id"]},
    )


def test_status_of_a_scoped_task_counts_only_what_it_may_see(c: Client, a: Client) -> None:
    ident = new_identity()
    enable_consent(c, ident)
    add(c, ident, "az:seen", "Seen", "visible note")
    for n in range(3):
        add(c, ident, "az:unseen", f"Hidden {n}", "not for this task")
    token = c.call("token.issue", {"identity": ident, "scopes": ["az:seen"]})["token"]
    task = a.call("task.begin", {"token": token})
    child = a.call("task.begin", {"token": token, "parent_task": task["task_id"]})
    assert child["scopes"] == ["az:seen"]
    for tid in (task["task_id"], child["task_id"]):
        status = a.call("memory.status", {"task_id": tid})
        assert status["counts"]["active"] == 1


# --- 5 and 6. owners cannot see each other through ranking ----------------------------


def _shape(result: dict[str, Any]) -> str:
    drop = {"id", "snapshot_id", "task_id", "frozen_at", "rendered"}

    def clean(value: Any) -> Any:
        if isinstance(value, dict):
            return {k: clean(v) for k, v in value.items() if k not in drop}
        if isinstance(value, list):
            return [clean(v) for v in value]
        return value

    return json.dumps(clean(result), sort_keys=True)


def test_another_owners_volume_changes_nothing_an_owner_receives(
    d: Daemon, c: Client, a: Client
) -> None:
    mine = new_identity()
    enable_consent(c, mine)
    bodies = [
        "amber falcon over the ridge",
        "amber lantern in the falcon nest",
        "falcon feathers, amber light, amber sky",
        "a lantern only",
        "amber amber amber falcon falcon ridge lantern notes at length here",
    ]
    for n, body in enumerate(bodies):
        add(c, mine, "default", f"Mine {n}", body)
    token = c.call("token.issue", {"identity": mine})["token"]

    def observe() -> list[str]:
        out = []
        for query in ("amber falcon", "falcon", "lantern ridge"):
            out.append(_shape(c.call("memory.list", {"identity": mine, "query": query})))
            tid = a.call("task.begin", {"token": token})["task_id"]
            out.append(_shape(a.call("memory.context", {"task_id": tid, "intent": query})))
        return out

    # With the semantic extra, entries are embedded in the background: compare
    # settled answers (an entry not embedded yet is ranked lexically).
    _embedded(c, mine)
    before = observe()
    assert '"Mine 0"' in before[0]
    other = new_identity()
    for scope_n in range(10):
        for batch in range(5):
            ops = [
                {
                    "action": "add",
                    "scope": f"bulk:{scope_n}",
                    "entry": entry(
                        f"Theirs {scope_n}-{batch}-{k}", f"amber falcon lantern ridge {k % 7} amber"
                    ),
                }
                for k in range(50)
            ]
            c.call("memory.write", {"identity": other, "action": "batch", "ops": ops})
    _embedded(c, mine)
    after = observe()
    assert after == before


def _embedded(c: Client, who: dict[str, Any]) -> None:
    """Wait until the embedding worker holds none of ``who``'s entries queued."""
    deadline = time.monotonic() + 60
    while True:
        recall = c.call("memory.status", {"identity": who})["recall"]
        if recall["ranker"] != "hybrid" or (recall["queued"] == 0 and recall["index"] == "exact"):
            return
        assert time.monotonic() < deadline, "the embedding worker never caught up"
        time.sleep(0.1)


# --- 7. write answers to a task without read carry no stored text --------------------


SCRATCH_FREE = """
[[rule]]
id = "scratch-free"
effect = "allow"
capability = "MemoryWrite"
channel = "agent"
scope = "scratch:*"
"""


def test_write_answers_to_a_task_without_read_hold_no_stored_text(
    d: Daemon, c: Client, a: Client, policy: Any
) -> None:
    ident = new_identity()
    enable_consent(c, ident, read=False)
    policy(SCRATCH_FREE)
    token = c.call("token.issue", {"identity": ident})["token"]
    task = a.call("task.begin", {"token": token, "scopes": ["scratch:x"]})
    tid = task["task_id"]
    assert "memory.read" not in task["grants"]
    secret_a = "stored-canary-" + os.urandom(6).hex()
    secret_b = "stored-canary-" + os.urandom(6).hex()
    first = add(c, ident, "scratch:x", "First", f"the body {secret_a}")
    second = add(c, ident, "scratch:x", "Second", f"the body {secret_b}")

    # A task that may not read never applies at once, whatever the policy
    # allows (the kernel's write_only_task_waits): its answer cannot depend
    # on what is stored, and holds none of it.
    archived = a.call(
        "memory.write",
        {
            "task_id": tid,
            "action": "archive",
            "id": first["id"],
            "expected_revision": 1,
            "reason": "done",
        },
    )
    assert archived["outcome"] == "pending"
    assert "write_only_task_waits" not in json.dumps(archived["decision"].get("rule_ids", []))
    assert secret_a not in json.dumps(archived) and "First" not in json.dumps(archived)

    stale = a.call(
        "memory.write",
        {
            "task_id": tid,
            "action": "supersede",
            "id": second["id"],
            "expected_revision": 7,
            "entry": entry("New", "new text"),
        },
    )
    assert "current_revision" not in json.dumps(stale)
    superseded = a.call(
        "memory.write",
        {
            "task_id": tid,
            "action": "supersede",
            "id": second["id"],
            "expected_revision": 1,
            "entry": entry("Newer", "newer text"),
        },
    )
    assert secret_b not in json.dumps(superseded) and "Second" not in json.dumps(superseded)

    params = {
        "task_id": tid,
        "action": "add",
        "idempotency_key": "az-replay-1",
        "entry": entry("Mine", "agent text"),
    }
    made = a.call("memory.write", params)
    assert made["outcome"] == "pending"
    new_id = c.call("governance.action.approve", {"action_id": made["action_id"]})["entries"][0][
        "id"
    ]
    secret_c = "stored-canary-" + os.urandom(6).hex()
    c.call(
        "memory.write",
        {
            "identity": ident,
            "action": "replace",
            "scope": "scratch:x",
            "id": new_id,
            "expected_revision": 1,
            "entry": entry("Changed", f"operator text {secret_c}"),
        },
    )
    replay = a.call("memory.write", params)
    assert replay["action_id"] == made["action_id"]
    assert secret_c not in json.dumps(replay) and "Changed" not in json.dumps(replay)


# --- 8. approval re-decides under the policy in force -----------------------------------


def test_approval_is_refused_when_the_policy_now_denies(
    d: Daemon, c: Client, a: Client, policy: Any
) -> None:
    ident = new_identity()
    enable_consent(c, ident)
    token = c.call("token.issue", {"identity": ident})["token"]
    tid = a.call("task.begin", {"token": token, "scopes": ["vault:z"]})["task_id"]
    proposed = a.call("memory.write", {"task_id": tid, "action": "add", "entry": entry()})
    assert proposed["outcome"] == "pending"
    policy(
        '[[rule]]\nid = "vault-closed"\neffect = "deny"\ncapability = "MemoryWrite"\n'
        'scope = "vault:*"\n'
    )
    err = expect(
        -32001,
        "policy_denied",
        c.call,
        "governance.action.approve",
        {"action_id": proposed["action_id"]},
    )
    assert err.data["details"]["rule_ids"] == ["vault-closed"]
    assert (
        c.call("governance.action.get", {"action_id": proposed["action_id"]})["status"] == "pending"
    )
    assert c.call("memory.list", {"identity": ident})["items"] == []
