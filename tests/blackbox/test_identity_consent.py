"""Identity, agent tokens, consent and subagents over the real sockets (SPEC §7).

One daemon serves the module; every test acts for its own fresh identity.
"""

from __future__ import annotations

from typing import Any

from memoryd.rpc.client import Client
from tests.harness import enable_consent, entry, expect, fresh_identity


def new_identity() -> dict[str, str]:
    return fresh_identity("ic-")


def token_for(c: Client, ident: dict[str, str], **issue: Any) -> str:
    return c.call("token.issue", {"identity": ident, **issue})["token"]  # type: ignore[no-any-return]


def add(a: Client, task_id: str, **extra: Any) -> Any:
    return a.call("memory.write", {"task_id": task_id, "action": "add", "entry": entry(), **extra})


# --- subagents --------------------------------------------------------------------


def test_subagent_task_has_no_write_grant_and_writes_are_read_only_task(
    c: Client, a: Client
) -> None:
    ident = new_identity()
    enable_consent(c, ident)
    token = token_for(c, ident)
    parent = a.call("task.begin", {"token": token})
    assert "memory.write" in parent["grants"]
    child = a.call(
        "task.begin", {"token": token, "role": "subagent", "parent_task": parent["task_id"]}
    )
    assert child["role"] == "subagent"
    assert "memory.write" not in child["grants"] and "memory.read" in child["grants"]
    expect(-32001, "read_only_task", add, a, child["task_id"])


def test_subagent_of_a_parent_without_read_gets_no_memory_methods(c: Client, a: Client) -> None:
    ident = new_identity()
    enable_consent(c, ident, read=False, contribute=True)
    token = token_for(c, ident)
    parent = a.call("task.begin", {"token": token})
    child = a.call("task.begin", {"token": token, "parent_task": parent["task_id"]})
    assert child["grants"] == []
    expect(-32001, "consent_required", a.call, "memory.list", {"task_id": child["task_id"]})


# --- consent ----------------------------------------------------------------------


def test_a_new_identity_starts_with_all_consent_off(c: Client, a: Client) -> None:
    ident = new_identity()
    got = c.call("consent.get", {"identity": ident})
    assert (got["read"], got["contribute"], got["learn_from_tools"], got["version"]) == (
        False,
        False,
        False,
        0,
    )
    task = a.call("task.begin", {"token": token_for(c, ident)})
    assert task["grants"] == []


def test_agent_write_without_contribute_is_consent_required(c: Client, a: Client) -> None:
    ident = new_identity()
    enable_consent(c, ident, contribute=False)
    task = a.call("task.begin", {"token": token_for(c, ident)})
    assert "memory.read" in task["grants"] and "memory.write" not in task["grants"]
    expect(-32001, "consent_required", add, a, task["task_id"])
    pending = c.call("governance.action.list", {})["items"]
    assert [i for i in pending if i["owner"] == task["owner"]] == []


def test_consent_set_with_a_stale_version_is_revision_conflict(c: Client) -> None:
    ident = new_identity()
    enable_consent(c, ident)
    err = expect(
        -32002,
        "revision_conflict",
        c.call,
        "consent.set",
        {"identity": ident, "read": False, "version": 0},
    )
    assert err.details["current_version"] == 1
    assert c.call("consent.get", {"identity": ident})["read"] is True


def test_a_consent_change_affects_only_new_tasks(c: Client, a: Client) -> None:
    ident = new_identity()
    enable_consent(c, ident)
    token = token_for(c, ident)
    old_task = a.call("task.begin", {"token": token})["task_id"]
    version = c.call("consent.get", {"identity": ident})["version"]
    c.call("consent.set", {"identity": ident, "contribute": False, "version": version})
    assert add(a, old_task)["outcome"] == "pending"  # frozen at begin
    new_task = a.call("task.begin", {"token": token})
    assert new_task["consent"]["contribute"] is False
    expect(-32001, "consent_required", add, a, new_task["task_id"])


def test_a_task_that_used_tools_needs_learn_from_tools_to_write(c: Client, a: Client) -> None:
    ident = new_identity()
    enable_consent(c, ident, learn_from_tools=False)
    token = token_for(c, ident)
    tooled = a.call("task.begin", {"token": token, "tools_used": True})
    assert "memory.write" not in tooled["grants"]
    expect(-32001, "consent_required", add, a, tooled["task_id"])
    version = c.call("consent.get", {"identity": ident})["version"]
    c.call("consent.set", {"identity": ident, "learn_from_tools": True, "version": version})
    allowed = a.call("task.begin", {"token": token, "tools_used": True})
    assert "memory.write" in allowed["grants"]
    assert add(a, allowed["task_id"])["outcome"] == "pending"


# --- identity on agent.sock and tokens --------------------------------------------


def test_agent_cannot_name_an_identity_in_task_begin(c: Client, a: Client) -> None:
    ident = new_identity()
    enable_consent(c, ident)
    err = expect(-32001, "channel_forbidden", a.call, "task.begin", {"identity": ident})
    assert ident["subject"] not in repr(err.data)


def test_unknown_token_is_policy_denied(a: Client) -> None:
    expect(-32001, "policy_denied", a.call, "task.begin", {"token": "mdt_" + "x" * 43})


def test_revoked_token_is_policy_denied(c: Client, a: Client) -> None:
    ident = new_identity()
    issued = c.call("token.issue", {"identity": ident})
    assert a.call("task.begin", {"token": issued["token"]})["owner"] == issued["owner"]
    c.call("token.revoke", {"token_id": issued["token_id"]})
    expect(-32001, "policy_denied", a.call, "task.begin", {"token": issued["token"]})


def test_token_scopes_limit_the_task(c: Client, a: Client) -> None:
    ident = new_identity()
    enable_consent(c, ident)
    token = token_for(c, ident, scopes=["project:alpha"])
    task = a.call("task.begin", {"token": token})
    assert task["scopes"] == ["project:alpha"]
    expect(-32001, "scope_mismatch", lambda: add(a, task["task_id"], scope="project:beta"))
    expect(
        -32001, "scope_mismatch", a.call, "task.begin", {"token": token, "scopes": ["project:beta"]}
    )
    assert add(a, task["task_id"], scope="project:alpha")["outcome"] == "pending"


def test_token_list_never_shows_the_token(c: Client) -> None:
    ident = new_identity()
    issued = c.call("token.issue", {"identity": ident})
    listed = c.call("token.list", {"identity": ident})
    assert [i["token_id"] for i in listed["items"]] == [issued["token_id"]]
    assert issued["token"] not in repr(listed)
    assert issued["token"] not in repr(c.call("token.list", {}))


def test_tokens_of_two_identities_act_for_two_owners(c: Client, a: Client) -> None:
    one, two = new_identity(), new_identity()
    t1 = a.call("task.begin", {"token": token_for(c, one)})
    t2 = a.call("task.begin", {"token": token_for(c, two)})
    assert t1["owner"] != t2["owner"]
    assert one["subject"] not in repr(t1)
