"""The kernel's kept decisions, attacked: a write shaped as one already decided
is never answered from a decision that a change since has made stale.

Every test makes a write the kernel decides and keeps (same task, scope,
action and type as the next one), changes one thing the answer depends on,
and writes the same shape again on a real daemon over its sockets: a policy
reloaded, a token revoked, consent withdrawn (a new task's grants), the task
ended, and a type rule that tells apart two writes alike in all else.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from memoryd.rpc.client import Client
from tests.harness import Daemon, enable_consent, entry, expect, fresh_identity, running

_ALLOW = """
[[rule]]
id = "kept-writes"
effect = "allow"
capability = "MemoryWrite"
channel = "agent"
scope = "kept:*"

[[rule]]
id = "no-lessons"
effect = "deny"
capability = "MemoryWrite"
type = "lesson"
"""


@pytest.fixture
def d() -> Iterator[Daemon]:
    with running(policy=_ALLOW) as daemon:
        yield daemon


def _write(tid: str, title: str, type_: str = "preference") -> dict[str, Any]:
    return {
        "task_id": tid,
        "action": "add",
        "scope": "kept:t",
        "entry": entry(title, f"Body of {title}.", type_=type_),
    }


def _task(c: Client, a: Client, **consent: bool) -> tuple[dict[str, str], dict[str, Any], str]:
    ident = fresh_identity("kept-")
    enable_consent(c, ident, **consent)
    issued = c.call("token.issue", {"identity": ident})
    tid = a.call("task.begin", {"token": issued["token"], "scopes": ["kept:t"]})["task_id"]
    return ident, issued, tid


def _titles(c: Client, ident: dict[str, str]) -> set[str]:
    items = c.call("memory.list", {"identity": ident, "scope": "kept:t"})["items"]
    return {item["title"] for item in items}


def test_a_reloaded_policy_is_decided_on_not_the_kept_allow(d: Daemon) -> None:
    with d.control() as c, d.agent() as a:
        ident, _issued, tid = _task(c, a)
        for title in ("First", "Second"):
            assert a.call("memory.write", _write(tid, title))["outcome"] == "applied"
        (d.home / "policy.toml").write_text(_ALLOW.replace('effect = "allow"', 'effect = "deny"'))
        assert c.call("policy.reload", {})["loaded"]
        expect(-32001, "policy_denied", a.call, "memory.write", _write(tid, "Third"))
        assert _titles(c, ident) == {"First", "Second"}


def test_a_revoked_token_stops_a_write_its_task_had_decided(d: Daemon) -> None:
    with d.control() as c, d.agent() as a:
        ident, issued, tid = _task(c, a)
        for title in ("First", "Second"):
            assert a.call("memory.write", _write(tid, title))["outcome"] == "applied"
        c.call("token.revoke", {"token_id": issued["token_id"]})
        expect(-32001, "policy_denied", a.call, "memory.write", _write(tid, "Third"))
        assert _titles(c, ident) == {"First", "Second"}


def test_consent_withdrawn_binds_a_new_task_whose_write_is_shaped_as_a_kept_one(d: Daemon) -> None:
    with d.control() as c, d.agent() as a:
        ident, issued, tid = _task(c, a)
        assert a.call("memory.write", _write(tid, "First"))["outcome"] == "applied"
        enable_consent(c, ident, read=False, contribute=False)
        later = a.call("task.begin", {"token": issued["token"], "scopes": ["kept:t"]})
        expect(
            -32001, "consent_required", a.call, "memory.write", _write(later["task_id"], "Second")
        )
        assert _titles(c, ident) == {"First"}


def test_a_task_ended_is_gone_for_a_write_it_had_decided(d: Daemon) -> None:
    with d.control() as c, d.agent() as a:
        ident, _issued, tid = _task(c, a)
        for title in ("First", "Second"):
            assert a.call("memory.write", _write(tid, title))["outcome"] == "applied"
        assert a.call("task.end", {"task_id": tid})["ended"] is True
        expect(-32003, "task_not_found", a.call, "memory.write", _write(tid, "Third"))
        assert _titles(c, ident) == {"First", "Second"}


def test_a_type_rule_tells_apart_writes_alike_in_all_else(d: Daemon) -> None:
    with d.control() as c, d.agent() as a:
        ident, _issued, tid = _task(c, a)
        assert a.call("memory.write", _write(tid, "Liked"))["outcome"] == "applied"
        assert a.call("memory.write", _write(tid, "Liked too"))["outcome"] == "applied"
        expect(
            -32001, "policy_denied", a.call, "memory.write", _write(tid, "Learnt", type_="lesson")
        )
        assert a.call("memory.write", _write(tid, "Liked again"))["outcome"] == "applied"
        expect(
            -32001,
            "policy_denied",
            a.call,
            "memory.write",
            _write(tid, "Learnt again", type_="lesson"),
        )
        assert _titles(c, ident) == {"Liked", "Liked too", "Liked again"}
