"""The second round of attacks on the performance shortcuts and the fields
around them, on a real daemon over its sockets.

Each hole this round found has a test here that failed before its fix; each
attack that held and was not covered elsewhere has one too, so it stays held.
The canary strings of a test must never reach the daemon's log, the audit
chain, an error or a status answer.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest

from memoryd.rpc.client import Client, RpcError
from tests.harness import Daemon, enable_consent, entry, fresh_identity, running

# Agent writes apply at once, so nothing but the content scan (and its review
# flag) stands between a write and its scope.
_AGENT_WRITES = """
[[rule]]
id = "agent-writes"
effect = "allow"
capability = "MemoryWrite"
channel = "agent"
"""

# A scope name that one of the scanner's review-only rules flags (a
# PowerShell download-and-run, ``iex iwr``, once the separators read as
# spaces): a write naming it is held for the operator's review.
REVIEW_SCOPE = "tools:iex-iwr"
# A GitHub personal access token's form (the scanner's secret rules).
GITHUB_TOKEN = "ghp_a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8"


@pytest.fixture(scope="module")
def d() -> Iterator[Daemon]:
    with running(policy=_AGENT_WRITES) as daemon:
        yield daemon


def expect(code: int, data_code: str, fn: Any, *args: Any) -> RpcError:
    with pytest.raises(RpcError) as info:
        fn(*args)
    assert (info.value.code, info.value.data_code) == (code, data_code), info.value.data
    return info.value


def _exported(c: Client) -> str:
    events = c.call("audit.export", {"after_seq": 0, "limit": 100_000})["events"]
    return "\n".join(json.dumps(event) for event in events)


# --- holes: names the scanner reads, where they enter ---------------------------------


def test_a_scope_flagged_for_review_is_no_namespace_a_write_lands_in_unreviewed(
        d: Daemon, c: Client, a: Client) -> None:
    # A write naming the scope is held for review (scan.review); a write
    # without a scope goes to its task's first scope, which its own scan
    # never reads. So the name must not become a task's namespace (or a
    # team's scope) with its review finding dropped, or the same content in
    # the same scope is applied unreviewed.
    ident = fresh_identity("rv-")
    enable_consent(c, ident)
    token = c.call("token.issue", {"identity": ident})["token"]
    err = expect(-32004, "injection_detected", a.call, "task.begin",
                 {"token": token, "scopes": [REVIEW_SCOPE]})
    assert {f["field"] for f in err.data["details"]["findings"]} == {"scope"}
    expect(-32004, "injection_detected", c.call, "team.create", {"name": "iex-iwr"})
    assert "team:iex-iwr" not in json.dumps(c.call("team.list", {}))
    # A clean task of the same owner still writes as before.
    tid = a.call("task.begin", {"token": token, "scopes": ["tools:fine"]})["task_id"]
    assert a.call("memory.write", {"task_id": tid, "action": "add",
                                   "entry": entry()})["outcome"] == "applied"
    listed = c.call("memory.list", {"identity": ident})["items"]
    assert [item["scope"] for item in listed] == ["tools:fine"]


def test_a_token_label_or_scope_the_scan_refuses_is_refused_and_never_stored(
        d: Daemon, c: Client) -> None:
    # A label is text the operator chose, kept beside the token and shown by
    # token.list (and memctl): a credential pasted into it would sit there.
    ident = fresh_identity("lb-")
    expect(-32004, "secret_detected", c.call, "token.issue",
           {"identity": ident, "label": GITHUB_TOKEN})
    assert c.call("token.list", {"identity": ident})["items"] == []
    # A token's scopes are kept and shown the same way (and a task begun
    # with the token would be refused): the scan refuses them at issue too.
    err = expect(-32004, "secret_detected", c.call, "token.issue",
                 {"identity": ident, "scopes": ["plain", "AKIAIOSFODNN7EXAMPLE"]})
    assert {f["field"] for f in err.data["details"]["findings"]} == {"scope"}
    assert c.call("token.list", {"identity": ident})["items"] == []
    issued = c.call("token.issue", {"identity": ident, "label": "alice-laptop",
                                    "scopes": ["plain"]})
    assert issued["label"] == "alice-laptop"
    listed = json.dumps(c.call("token.list", {}))
    assert GITHUB_TOKEN not in listed and "AKIAIOSFODNN7EXAMPL" not in listed
    assert GITHUB_TOKEN not in d.log()
    assert GITHUB_TOKEN not in _exported(c)


@pytest.fixture(scope="module")
def held() -> Iterator[Daemon]:
    """A daemon on the default policy: an agent's write is held for approval."""
    with running() as daemon:
        yield daemon


def _stored_bytes(daemon: Daemon) -> bytes:
    """Every byte of the store's files (the database and its WAL)."""
    return b"".join(path.read_bytes() for path in sorted(daemon.home.glob("memory.db*")))


def test_a_covering_entry_id_the_daemon_never_made_is_refused_before_it_is_proposed(
        held: Daemon) -> None:
    # An archive's covered_by names an entry by id, and a proposal on
    # agent.sock is stored before any entry is looked up: an id the client
    # made up, which the Id pattern lets hold a key id, was kept with the
    # pending action. No entry has such an id, so the call is refused first.
    canary = "AKIAIOSFODNN7EXAMPLE"
    with held.control() as c, held.agent() as a:
        ident = fresh_identity("cv-")
        enable_consent(c, ident)
        stored = c.call("memory.write", {"identity": ident, "action": "add",
                                         "entry": entry()})["entries"][0]
        token = c.call("token.issue", {"identity": ident})["token"]
        tid = a.call("task.begin", {"token": token})["task_id"]
        archive = {"action": "archive", "id": stored["id"], "expected_revision": 1,
                   "reason": "old", "covered_by": {"id": canary, "expected_revision": 1}}
        expect(-32002, "covered_target_changed", a.call, "memory.write",
               {"task_id": tid, **archive})
        expect(-32002, "covered_target_changed", a.call, "memory.write",
               {"task_id": tid, "action": "batch", "ops": [{"action": "add", "entry": entry("B")},
                                                            archive]})
        assert c.call("governance.action.list", {})["items"] == []
        # A covering entry of the daemon's own form is proposed as before.
        other = c.call("memory.write", {"identity": ident, "action": "add",
                                        "entry": entry("Other")})["entries"][0]
        out = a.call("memory.write", {"task_id": tid, **archive,
                                      "covered_by": {"id": other["id"], "expected_revision": 1}})
        assert out["outcome"] == "pending"
        assert canary not in _exported(c)
    assert canary.encode() not in _stored_bytes(held)
    assert canary not in held.log()


# --- holes: a rule on an entry's type holds for the entry an op changes -------------

# docs/policy.md's own example: agents write freely in scratch scopes, and
# every fact waits for a second look.
_FACTS_REVIEWED = """
[[rule]]
id = "scratch-free"
effect = "allow"
capability = "MemoryWrite"
channel = "agent"
scope = "scratch:*"

[[rule]]
id = "facts-reviewed"
effect = "requires_approval"
capability = "MemoryWrite"
type = "fact"

[[rule]]
id = "preferences-kept"
effect = "deny"
capability = "MemoryWrite"
channel = "agent"
type = "preference"
"""


@pytest.fixture(scope="module")
def typed() -> Iterator[Daemon]:
    with running(policy=_FACTS_REVIEWED) as daemon:
        yield daemon


def _stored(c: Client, ident: dict[str, str], title: str, type_: str) -> str:
    out = c.call("memory.write", {"identity": ident, "action": "add", "scope": "scratch:t",
                                  "entry": entry(title, f"Noted about {title}.", type_)})
    if out["outcome"] == "pending":
        out = c.call("governance.action.approve", {"action_id": out["action_id"]})
    assert out["outcome"] == "applied"
    return str(out["entries"][-1]["id"])


def test_a_rule_on_type_holds_for_the_entry_an_op_archives_removes_or_replaces(
        typed: Daemon) -> None:
    # An archive or remove writes no entry, and a replace or supersede may
    # write another type: a rule on type was matched against what the op
    # writes only, so an agent archived, destroyed or overwrote a fact with
    # a lesson at once, and changed a preference its policy denies.
    with typed.control() as c, typed.agent() as a:
        ident = fresh_identity("ty-")
        enable_consent(c, ident)
        token = c.call("token.issue", {"identity": ident})["token"]
        tid = a.call("task.begin", {"token": token, "scopes": ["scratch:t"]})["task_id"]
        ops: list[dict[str, Any]] = [
            {"action": "archive", "reason": "old"},
            {"action": "remove"},
            {"action": "replace", "entry": entry("Fact 3", "Now a lesson.", "lesson")},
            {"action": "supersede", "entry": entry("Fact 4b", "Now a lesson.", "lesson")},
        ]
        for n, op in enumerate(ops, 1):
            fact = _stored(c, ident, f"Fact {n}", "fact")
            out = a.call("memory.write", {"task_id": tid, "id": fact, "expected_revision": 1,
                                          **op})
            assert (out["outcome"], out["decision"]["rule_ids"]) == (
                "pending", ["scratch-free", "facts-reviewed"]), op
            approved = c.call("governance.action.approve", {"action_id": out["action_id"]})
            assert approved["outcome"] == "applied"
        pref = _stored(c, ident, "Editor", "preference")
        for op in ({"action": "archive", "reason": "old"}, {"action": "remove"},
                   {"action": "replace", "entry": entry("Editor", "Emacs now.", "lesson")}):
            err = expect(-32001, "policy_denied", a.call, "memory.write",
                         {"task_id": tid, "id": pref, "expected_revision": 1, **op})
            assert "preferences-kept" in err.data["details"]["rule_ids"]
        # What an op writes still counts, and a lesson stays free.
        lesson = _stored(c, ident, "Lesson", "lesson")
        assert a.call("memory.write", {"task_id": tid, "action": "archive", "id": lesson,
                                       "expected_revision": 1, "reason": "old"})["outcome"] \
            == "applied"
        shown = {i["title"]: i["status"] for i in c.call("memory.list", {
            "identity": ident, "statuses": ["active", "archived", "superseded"]})["items"]}
    assert shown == {"Fact 1": "archived", "Fact 3": "active", "Fact 4": "superseded",
                     "Fact 4b": "active", "Editor": "active", "Lesson": "archived"}


# --- holes: what one task's answers tell of another task's namespaces ---------------


def test_a_pending_batch_shows_a_task_only_the_ops_in_its_own_namespaces(
        held: Daemon) -> None:
    # memory.read's include_pending names the proposals that would change
    # the entries read, with their ops summary: a batch proposed by a task
    # holding two scopes showed a task holding one of them the other scope's
    # name, entry id and content hash.
    with held.control() as c, held.agent() as a:
        ident = fresh_identity("pb-")
        enable_consent(c, ident)
        token = c.call("token.issue", {"identity": ident})["token"]
        shared = c.call("memory.write", {"identity": ident, "action": "add", "scope": "proj:x",
                                         "entry": entry("X")})["entries"][0]["id"]
        hidden = c.call("memory.write", {"identity": ident, "action": "add",
                                         "scope": "proj:hidden",
                                         "entry": entry("Y")})["entries"][0]["id"]
        both = a.call("task.begin", {"token": token,
                                     "scopes": ["proj:x", "proj:hidden"]})["task_id"]
        out = a.call("memory.write", {"task_id": both, "action": "batch", "ops": [
            {"action": "replace", "scope": scope, "id": eid, "expected_revision": 1,
             "entry": entry(title)}
            for scope, eid, title in (("proj:x", shared, "X2"), ("proj:hidden", hidden, "Y2"))]})
        assert out["outcome"] == "pending"
        one = a.call("task.begin", {"token": token, "scopes": ["proj:x"]})["task_id"]
        read = a.call("memory.read", {"task_id": one, "ids": [shared], "include_pending": True})
        (pending,) = read["pending"]
        assert pending["action_id"] == out["action_id"]
        assert [(o["scope"], o["entry_id"]) for o in pending["ops_summary"]] == [
            ("proj:x", shared)]
        assert hidden not in json.dumps(read) and "proj:hidden" not in json.dumps(read)
        # The task holding both scopes, and the operator, see the whole batch.
        for answer in (a.call("memory.read", {"task_id": both, "ids": [shared],
                                              "include_pending": True}),
                       c.call("memory.read", {"identity": ident, "ids": [shared],
                                              "include_pending": True})):
            assert len(answer["pending"][0]["ops_summary"]) == 2
