"""The second round of attacks on the performance shortcuts and the fields
around them, on a real daemon over its sockets.

Each hole this round found has a test here that failed before its fix; each
attack that held and was not covered elsewhere has one too, so it stays held.
The canary strings of a test must never reach the daemon's log, the audit
chain, an error or a status answer.
"""

from __future__ import annotations

import json
import socket
import uuid
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import anyio
import pytest

from memoryd.rpc.client import Client, RpcError
from tests.harness import (
    AGENT_WRITES,
    GITHUB_TOKEN,
    Daemon,
    backend,
    enable_consent,
    entry,
    expect,
    exported_audit,
    fresh_identity,
    pg_connect,
    pg_store_of,
    pg_store_section,
    running,
)
from tests.inproc import FakeClock, composed

# A scope name that one of the scanner's review-only rules flags (a
# PowerShell download-and-run, ``iex iwr``, once the separators read as
# spaces): a write naming it is held for the operator's review.
REVIEW_SCOPE = "tools:iex-iwr"


@pytest.fixture(scope="module")
def d() -> Iterator[Daemon]:
    with running(policy=AGENT_WRITES) as daemon:
        yield daemon


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


def test_a_token_label_scope_or_kind_the_scan_refuses_is_refused_and_never_stored(
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
    # So is the kind of its identity (token.list shows it), whose pattern
    # admits a GitLab token's form; any other identity field is only hashed.
    gitlab = "glpat-" + uuid.uuid4().hex[:20]
    expect(-32004, "secret_detected", c.call, "token.issue",
           {"identity": {"kind": gitlab, "subject": "someone"}})
    issued = c.call("token.issue", {"identity": ident, "label": "alice-laptop",
                                    "scopes": ["plain"]})
    assert issued["label"] == "alice-laptop"
    listed = json.dumps(c.call("token.list", {}))
    assert GITHUB_TOKEN not in listed and "AKIAIOSFODNN7EXAMPL" not in listed
    assert gitlab not in listed
    assert GITHUB_TOKEN not in d.log()
    assert GITHUB_TOKEN not in exported_audit(c)


@pytest.fixture(scope="module")
def held() -> Iterator[Daemon]:
    """A daemon on the default policy: an agent's write is held for approval."""
    with running() as daemon:
        yield daemon


def _stored_bytes(daemon: Daemon) -> bytes:
    """Every byte of the store: the SQLite database and its WAL, or on
    PostgreSQL every row of the daemon's schema as text."""
    pg = pg_store_of(daemon.home)
    if pg is None:
        files = sorted(daemon.home.glob("memory.db*"))
        assert files, "no store files to read"
        return b"".join(path.read_bytes() for path in files)
    import psycopg.sql

    out = []
    with pg_connect(*pg) as conn:
        tables = [r[0] for r in conn.execute(
            "SELECT tablename FROM pg_tables WHERE schemaname = %s", (pg[1],))]
        assert tables, "no store tables to read"
        for table in tables:
            query = psycopg.sql.SQL("SELECT t::text FROM {} AS t").format(
                psycopg.sql.Identifier(table))
            out += [str(r[0]) for r in conn.execute(query)]
    return "\n".join(out).encode()


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
        assert canary not in exported_audit(c)
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
        # A task that may not read is not decided on what is stored (its
        # answer may not depend on it): its archive of the preference waits,
        # and the operator's approval is refused by the rule on its type.
        enable_consent(c, ident, read=False)
        blind = a.call("task.begin", {"token": token, "scopes": ["scratch:t"]})["task_id"]
        out = a.call("memory.write", {"task_id": blind, "action": "archive", "id": pref,
                                      "expected_revision": 1, "reason": "old"})
        assert out["outcome"] == "pending"
        err = expect(-32001, "policy_denied", c.call, "governance.action.approve",
                     {"action_id": out["action_id"]})
        assert "preferences-kept" in err.data["details"]["rule_ids"]
        pending = c.call("governance.action.list", {})["items"]
        assert out["action_id"] in [i["action_id"] for i in pending]
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


# --- attacks that held ------------------------------------------------------------------


def _rpc(request_id: int, method: str, params: dict[str, Any]) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": request_id, "method": method, "params": params}


def _outcomes(replies: list[dict[str, Any]]) -> list[str | None]:
    return [r["result"].get("outcome") if "result" in r else r["error"]["data"]["code"]
            for r in sorted(replies, key=lambda r: r["id"])]


def test_a_task_ended_between_pipelined_writes_stops_the_one_behind_it(d: Daemon,
                                                                       c: Client) -> None:
    # The first write verifies the task on the connection (the next one is
    # decided before the writer); the end is read from the same bytes, the
    # write behind it must see it, whether the three came as lines of one
    # send or as one batch.
    enable_consent(c)
    for framing in ("lines", "batch"):
        with d.agent() as a:
            tid = a.call("task.begin", {"scopes": [f"pipe:{framing}"]})["task_id"]
            calls = [_rpc(1, "memory.write", {"task_id": tid, "action": "add",
                                              "entry": entry("Before")}),
                     _rpc(2, "task.end", {"task_id": tid}),
                     _rpc(3, "memory.write", {"task_id": tid, "action": "add",
                                              "entry": entry("Behind")})]
            if framing == "batch":
                replies = json.loads(a.send_raw(json.dumps(calls).encode()))
            else:
                with socket.socket(socket.AF_UNIX) as raw:
                    raw.settimeout(30)
                    raw.connect(str(d.agent_path))
                    raw.sendall(b"".join(json.dumps(x).encode() + b"\n" for x in calls))
                    got = b""
                    while got.count(b"\n") < 3:
                        chunk = raw.recv(65536)
                        assert chunk, "the daemon closed the connection"
                        got += chunk
                replies = [json.loads(line) for line in got.splitlines()]
        assert _outcomes(replies) == ["applied", None, "task_not_found"], framing
        titles = [i["title"] for i in c.call("memory.list", {"scope": f"pipe:{framing}"})["items"]]
        assert titles == ["Before"], framing


def test_another_owners_entry_id_is_refused_exactly_as_a_missing_one(d: Daemon) -> None:
    # Each method that takes an entry id answers another owner's entry with
    # the same error, code and details (the id itself aside) as an id no
    # entry has.
    with d.control() as c, d.agent() as a:
        owner, other = fresh_identity("eo-"), fresh_identity("eo-")
        for who in (owner, other):
            enable_consent(c, who)
        theirs = c.call("memory.write", {"identity": other, "action": "add",
                                         "entry": entry("Theirs")})["entries"][0]["id"]
        token = c.call("token.issue", {"identity": owner})["token"]
        tid = a.call("task.begin", {"token": token})["task_id"]
        mine = a.call("memory.write", {"task_id": tid, "action": "add",
                                       "entry": entry("Mine")})["entries"][0]["id"]
        missing = "ent_" + "0" * 26

        def answers(eid: str) -> list[Any]:
            calls: list[tuple[Client, str, dict[str, Any]]] = [
                (a, "memory.read", {"task_id": tid, "ids": [eid]}),
                (a, "memory.read", {"task_id": tid, "ids": [eid], "include_pending": True}),
                (a, "memory.write", {"task_id": tid, "action": "replace", "id": eid,
                                     "expected_revision": 1, "entry": entry("Z")}),
                (a, "memory.write", {"task_id": tid, "action": "remove", "id": eid,
                                     "expected_revision": 1}),
                (a, "memory.write", {"task_id": tid, "action": "archive", "id": mine,
                                     "expected_revision": 1, "reason": "old",
                                     "covered_by": {"id": eid, "expected_revision": 1}}),
                (c, "memory.read", {"identity": owner, "ids": [eid]}),
                (c, "memory.promote", {"identity": owner, "ids": [eid]}),
            ]
            out = []
            for client, method, params in calls:
                with pytest.raises(RpcError) as info:
                    client.call(method, params)
                data = json.loads(json.dumps(info.value.data).replace(eid, "ID"))
                out.append((info.value.code, data))
            return out

        assert answers(theirs) == answers(missing)
        # Nothing of theirs changed.
        shown = c.call("memory.read", {"identity": other, "ids": [theirs]})["entries"][0]
        assert (shown["status"], shown["revision"]) == ("active", 1)


def test_an_idempotency_key_is_one_owners_own(d: Daemon) -> None:
    # The same key with the same request for another owner is a new write,
    # never the first owner's answer; the first owner's replay is its own.
    with d.control() as c:
        first, second = fresh_identity("ik-"), fresh_identity("ik-")
        write = {"action": "add", "entry": entry("Keyed"), "idempotency_key": "shared-key-1"}
        one = c.call("memory.write", {"identity": first, **write})
        two = c.call("memory.write", {"identity": second, **write})
        assert one["operation_id"] != two["operation_id"]
        assert one["entries"][0]["id"] != two["entries"][0]["id"]
        again = c.call("memory.write", {"identity": first, **write})
        assert again["operation_id"] == one["operation_id"]
        for who in (first, second):
            assert len(c.call("memory.list", {"identity": who})["items"]) == 1


# Params each method's schema admits, at its edges: none is an internal error,
# and the daemon serves the next call.
_EDGES: list[tuple[str, str, dict[str, Any]]] = [
    ("agent", "memory.write", {"action": "add", "entry": entry("Tiny ttl", ttl_days=5e-324)}),
    ("agent", "memory.write", {"action": "add", "entry": entry("Long ttl", ttl_days=36_500)}),
    ("agent", "memory.write", {"action": "add", "entry": entry(
        "Far", validity={"check": "x", "until": "9999-12-31T23:59:59-23:59"})}),
    ("agent", "memory.write", {"action": "add", "entry": entry(
        "Early", validity={"check": "x", "until": "0001-01-01T00:00:00+23:59"})}),
    ("agent", "memory.write", {"action": "replace", "id": "ent_" + "0" * 26,
                               "expected_revision": 2**53, "entry": entry()}),
    ("agent", "memory.list", {"query": '"NEAR(a b)" OR col:x * ^a \\ \u0301'}),
    ("agent", "memory.list", {"query": "\U0001f600" * 1000}),
    ("agent", "memory.list", {"query": "\u0000"}),
    ("agent", "memory.context", {"intent": "\U0010ffff" * 5000}),
    ("agent", "task.begin", {"workspace": "/" * 4096}),
    ("agent", "task.begin", {"workspace": "a/" * 2000}),
    ("control", "audit.verify", {"checkpoint": {"seq": 2**63 - 1, "hash": "0" * 64, "ts": "x",
                                                "signature": "zz", "public_key": "zz"}}),
    ("control", "audit.export", {"after_seq": 2**63 - 1, "limit": 100_000}),
    ("control", "memory.journal", {"cursor": "c" + "A" * 1000}),
    ("control", "memory.list", {"cursor": "c" + "A" * 2000}),
    ("control", "consent.set", {"version": 2**63 - 1, "read": True}),
    ("control", "token.issue", {"identity": {"kind": "a", "subject": "\u0000",
                                             "issuer": "\U0010ffff"},
                                "expires_in": 10 * 365 * 86_400}),
    ("control", "admin.backup_verify", {"path": "/proc/self"}),
    ("control", "memory.undo", {"operation_id": "op_" + "0" * 32}),
]


def test_params_at_the_schemas_edges_are_never_an_internal_error(d: Daemon, c: Client) -> None:
    enable_consent(c)
    with d.agent() as a:
        for channel, method, params in _EDGES:
            client = a if channel == "agent" else c
            if channel == "agent" and method not in ("task.begin",):
                params = {"task_id": a.call("task.begin", {"scopes": ["edge:t"]})["task_id"],
                          **params}
            try:
                client.call(method, params)
            except RpcError as exc:
                assert exc.code != -32603, (method, exc.data)
    assert c.call("memory.status", {})["backend"]["health"] == "ok"
    assert "internal_error" not in d.log()


def test_hashed_and_unkept_texts_never_reach_the_store_files(held: Daemon) -> None:
    # Only keyed hashes of an identity, a cited user message and an intent
    # are kept, and a query not at all: none of them may reach a page of the
    # database or its WAL (nor the log or the chain). A deny reason is kept
    # with its decision, and is never in the log or the chain.
    canary = {k: f"Cnry{k}{uuid.uuid4().hex[:8]}" for k in (
        "subject", "issuer", "message", "intent", "query", "deny")}
    with held.control() as c, held.agent() as a:
        ident = {"kind": "local", "subject": canary["subject"], "issuer": canary["issuer"]}
        enable_consent(c, ident)
        token = c.call("token.issue", {"identity": ident})["token"]
        tid = a.call("task.begin", {"token": token})["task_id"]
        out = a.call("memory.write", {
            "task_id": tid, "action": "add", "source": "extraction",
            "entry": entry("Tea", "likes green tea"),
            "evidence": {"user_message": f"{canary['message']}: she likes green tea"}})
        a.call("memory.context", {"task_id": tid, "intent": f"about {canary['intent']}"})
        a.call("memory.list", {"task_id": tid, "query": f"{canary['query']} tea"})
        c.call("governance.action.deny", {"action_id": out["action_id"],
                                          "reason": canary["deny"]})
        exported = exported_audit(c)
        status = json.dumps(c.call("memory.status", {"identity": ident}))
    stored, log = _stored_bytes(held), held.log()
    for name, text in canary.items():
        if name != "deny":
            assert text.encode() not in stored, name
        assert text not in log and text not in exported and text not in status, name
    # A deny reason is kept with the decision, for the operator and the
    # proposing agent (docs/decisions/0240-deny-reason-and-agent-outcome.md):
    # stored, and still never in the log, the chain or status.
    with held.control() as c:
        assert c.call("governance.action.get",
                      {"action_id": out["action_id"]})["reason"] == canary["deny"]
    assert token.encode() not in stored and token not in log


_HR_HIDDEN = """
[[rule]]
id = "hr-hidden-from-agents"
effect = "deny"
capability = "MemoryRead"
channel = "agent"
scope = "project:hr*"
"""


@pytest.fixture(scope="module")
def hidden() -> Iterator[Daemon]:
    """docs/policy.md's read rule: agents never read the HR project."""
    with running(policy=_HR_HIDDEN) as daemon:
        yield daemon


def test_a_pending_batch_shows_no_op_in_a_namespace_the_policy_hides(hidden: Daemon) -> None:
    # The task holds project:hr, but may not read it: a pending batch over
    # both scopes, listed by a read of its project:web entry, must not show
    # the HR op's entry id, revision or content hash.
    with hidden.control() as c, hidden.agent() as a:
        ident = fresh_identity("hr-")
        enable_consent(c, ident)
        token = c.call("token.issue", {"identity": ident})["token"]
        ids = {scope: c.call("memory.write", {"identity": ident, "action": "add", "scope": scope,
                                              "entry": entry(scope)})["entries"][0]["id"]
               for scope in ("project:web", "project:hr")}
        tid = a.call("task.begin", {"token": token,
                                    "scopes": ["project:web", "project:hr"]})["task_id"]
        out = a.call("memory.write", {"task_id": tid, "action": "batch", "ops": [
            {"action": "archive", "scope": scope, "id": eid, "expected_revision": 1,
             "reason": "old"} for scope, eid in ids.items()]})
        assert out["outcome"] == "pending"
        expect(-32001, "policy_denied", a.call, "memory.read",
               {"task_id": tid, "ids": [ids["project:hr"]]})
        read = a.call("memory.read", {"task_id": tid, "ids": [ids["project:web"]],
                                      "include_pending": True})
        (pending,) = read["pending"]
        assert [o["scope"] for o in pending["ops_summary"]] == ["project:web"]
        assert ids["project:hr"] not in json.dumps(read)
        # The operator sees the whole batch.
        shown = c.call("memory.read", {"identity": ident, "ids": [ids["project:web"]],
                                       "include_pending": True})
        assert len(shown["pending"][0]["ops_summary"]) == 2


# --- found and closed after the round's first eight holes -----------------------------


def test_status_counts_nothing_in_a_namespace_the_policy_hides(hidden: Daemon) -> None:
    # memory.status tells a task how many entries and pending proposals it
    # has: a figure from project:hr, which the task holds but may not read,
    # would say how many HR entries there are and when one is written.
    with hidden.control() as c, hidden.agent() as a:
        ident = fresh_identity("hr-st-")
        enable_consent(c, ident)
        token = c.call("token.issue", {"identity": ident})["token"]
        for n in range(3):
            c.call("memory.write", {"identity": ident, "action": "add", "scope": "project:hr",
                                    "entry": entry(f"HR {n}")})
        web = c.call("memory.write", {"identity": ident, "action": "add", "scope": "project:web",
                                      "entry": entry("Web")})["entries"][0]["id"]
        c.call("memory.write", {"identity": ident, "action": "archive", "scope": "project:web",
                                "id": web, "expected_revision": 1, "reason": "old"})
        tid = a.call("task.begin", {"token": token,
                                    "scopes": ["project:web", "project:hr"]})["task_id"]
        # Pending proposals (agent writes wait for approval here): one in
        # each scope.
        for scope in ("project:hr", "project:web"):
            out = a.call("memory.write", {"task_id": tid, "action": "add", "scope": scope,
                                          "entry": entry(f"Proposed {scope}")})
            assert out["outcome"] == "pending"
        operator = c.call("memory.status", {"identity": ident})
        assert (operator["counts"]["active"], operator["counts"]["archived"],
                operator["pending_actions"]) == (3, 1, 2)
        seen = a.call("memory.status", {"task_id": tid})
        assert seen["counts"] == {**dict.fromkeys(seen["counts"], 0), "archived": 1}
        assert seen["pending_actions"] == 1
        # A task that may read nothing (read consent off) counts nothing.
        enable_consent(c, ident, read=False)
        blind = a.call("task.begin", {"token": token,
                                      "scopes": ["project:web", "project:hr"]})["task_id"]
        out = a.call("memory.status", {"task_id": blind})
        assert (set(out["counts"].values()), out["pending_actions"]) == ({0}, 0)


# (until as written, applicability at 00:00Z, at 00:45Z, at 02:00:00.5Z): the
# moment each names, not its text, decides. Compared as text, an offset other
# than Z moved the end by up to a day either way, and a lower-case t or z, or
# an end without a fraction, kept an entry valid past it.
_UNTILS = [
    ("2026-01-01T03:00:00+05:00", "expired", "expired", "expired"),  # 2025-12-31 22:00Z
    ("2025-12-31T20:00:00-05:00", "recheck", "recheck", "expired"),  # 01:00Z
    ("2026-01-01T00:30:00.5+00:00", "recheck", "expired", "expired"),
    ("2026-01-01T02:00:00Z", "recheck", "recheck", "expired"),
    ("2026-01-01t01:30:00z", "recheck", "recheck", "expired"),
    ("2026-01-02T00:00:00+23:59", "recheck", "expired", "expired"),  # 00:01Z
    ("2026-01-01T20:00:00+20:00", "expired", "expired", "expired"),  # 00:00Z exactly
]


def test_a_validity_end_lapses_at_the_moment_it_names_whatever_its_offset(
        tmp_path: Path) -> None:
    clock = FakeClock(datetime(2026, 1, 1, tzinfo=UTC))
    # In-process for the fake clock, on the backend the suite runs on.
    config = pg_store_section() if backend() == "postgresql" else None

    async def go() -> list[tuple[str, ...]]:
        with composed(tmp_path / "h", clock=clock, config=config) as daemon:
            ids = [(await daemon.call("control", "memory.write", {
                "action": "add", "scope": "valid:until", "entry": entry(
                    f"Until {n}", validity={"check": "ask", "until": until})}))["entries"][0]["id"]
                for n, (until, *_) in enumerate(_UNTILS)]

            async def seen() -> tuple[str, ...]:
                read = await daemon.call("control", "memory.read", {"ids": ids})
                listed = {i["id"]: i["applicability"] for i in (await daemon.call(
                    "control", "memory.list", {"scope": "valid:until", "page_size": 20}))["items"]}
                got = tuple(e["applicability"] for e in read["entries"])
                assert got == tuple(listed[i] for i in ids)
                # The value is kept as it was written.
                assert [e["validity"]["until"] for e in read["entries"]] == [
                    u for u, *_ in _UNTILS]
                return got

            assert (pg_store_of(tmp_path / "h") is None) == (backend() != "postgresql")
            out = [await seen()]
            clock.advance(seconds=45 * 60)
            out.append(await seen())
            clock.advance(seconds=75 * 60 + 0.5)
            out.append(await seen())
            return out

    assert anyio.run(go, backend="asyncio") == [tuple(row[k] for row in _UNTILS)
                                                 for k in (1, 2, 3)]


# --- found and closed after the first ten ---------------------------------------------


@pytest.fixture(scope="module")
def hidden_applied() -> Iterator[Daemon]:
    """``hr-hidden-from-agents`` with agent writes applied at once: a task
    holding project:hr writes there and may not read it (a small budget)."""
    with running(policy=AGENT_WRITES + _HR_HIDDEN,
                 config="scope_budget_bytes = 3000\n") as daemon:
        yield daemon


def _hr_task(c: Client, a: Client, prefix: str) -> tuple[dict[str, str], str]:
    ident = fresh_identity(prefix)
    enable_consent(c, ident)
    token = c.call("token.issue", {"identity": ident})["token"]
    tid = a.call("task.begin", {"token": token,
                                "scopes": ["project:web", "project:hr"]})["task_id"]
    return ident, tid


def test_a_full_budget_shows_no_figure_of_a_namespace_the_policy_hides(
        hidden_applied: Daemon) -> None:
    # The budget's used_bytes is the namespace's size: a task that may not
    # read project:hr learnt it, and each change to it, from a refused add.
    with hidden_applied.control() as c, hidden_applied.agent() as a:
        ident, tid = _hr_task(c, a, "hr-bud-")
        big = entry("Big", "b" * 2_500)
        for scope in ("project:hr", "project:web"):
            c.call("memory.write", {"identity": ident, "action": "add", "scope": scope,
                                    "entry": entry("Old", "o" * 1_000)})

        def refused(cl: Client, params: dict[str, Any]) -> dict[str, Any]:
            err = expect(-32005, "scope_budget_exceeded", cl.call, "memory.write",
                         {"action": "add", "entry": big, **params})
            data: dict[str, Any] = err.data
            return data

        hr = refused(a, {"task_id": tid, "scope": "project:hr"})
        assert hr["details"] == {"cap": "scope_budget_bytes", "limit": 3000,
                                 "budget_bytes": 3000}
        assert "raise scope_budget_bytes (now 3000)" in hr["recovery"]
        # Another HR entry changes nothing the task is told.
        c.call("memory.write", {"identity": ident, "action": "add", "scope": "project:hr",
                                "entry": entry("More", "m" * 300)})
        assert refused(a, {"task_id": tid, "scope": "project:hr"}) == hr
        # The figures stay for a namespace the task reads, and for the operator.
        web = refused(a, {"task_id": tid, "scope": "project:web"})["details"]
        assert web["used_bytes"] > 1_000 and web["needed_bytes"] > 2_500
        operator = refused(c, {"identity": ident, "scope": "project:hr"})["details"]
        assert operator["used_bytes"] > web["used_bytes"] + 300
        assert operator["needed_bytes"] == web["needed_bytes"]


def test_a_write_into_a_namespace_the_policy_hides_shows_what_a_read_would(
        hidden_applied: Daemon) -> None:
    # The task has the read grant, so the write path showed it what a read
    # of project:hr refuses: a stale revision's current one, a taken title's
    # holder, whether its content equals a guess, the entry it archived.
    with hidden_applied.control() as c, hidden_applied.agent() as a:
        ident, tid = _hr_task(c, a, "hr-wr-")

        def add(scope: str, title: str, body: str) -> str:
            out = c.call("memory.write", {"identity": ident, "action": "add", "scope": scope,
                                          "entry": entry(title, body)})
            eid: str = out["entries"][0]["id"]
            return eid

        def write(params: dict[str, Any]) -> Any:
            return a.call("memory.write", {"task_id": tid, **params})

        salary = entry("Salary", "Bob earns ninety thousand")
        ids = {s: add(s, "Salary", "Bob earns eighty thousand") for s in
               ("project:hr", "project:web")}
        for s, eid in ids.items():
            c.call("memory.write", {"identity": ident, "action": "replace", "scope": s,
                                    "id": eid, "expected_revision": 1, "entry": salary})
        expect(-32001, "policy_denied", a.call, "memory.read", {"task_id": tid,
                                                                "ids": [ids["project:hr"]]})
        for s, shown in (("project:hr", False), ("project:web", True)):
            stale = expect(-32002, "revision_conflict", write, {
                "action": "replace", "scope": s, "id": ids[s], "expected_revision": 1,
                "entry": entry("Salary", "new")})
            assert ("current_revision" in json.dumps(stale.data)) is shown, s
            taken = expect(-32002, "duplicate_title", write, {
                "action": "add", "scope": s, "entry": entry("Salary", "another")})
            assert (ids[s] in json.dumps(taken.data)) is shown, s
        # Content equal to a guess is a new revision, not ``unchanged``, and
        # the answer names ids and revisions only.
        same = write({"action": "replace", "scope": "project:hr", "id": ids["project:hr"],
                      "expected_revision": 2, "entry": salary})
        assert (same["outcome"], same["entries"]) == (
            "applied", [{"id": ids["project:hr"], "revision": 3}])
        assert write({"action": "replace", "scope": "project:web", "id": ids["project:web"],
                      "expected_revision": 2, "entry": salary})["outcome"] == "unchanged"
        # An archive answers no stored text, nor does a replay of an add
        # after the operator rewrote the entry.
        note = add("project:hr", "Review", "Alice is on a performance plan")
        archived = write({"action": "archive", "scope": "project:hr", "id": note,
                          "expected_revision": 1, "reason": "old"})
        assert archived["entries"] == [{"id": note, "revision": 2}]
        added = {"action": "add", "scope": "project:hr", "entry": entry("Plan", "draft"),
                 "idempotency_key": f"k-{tid}"}
        (ref,) = write(added)["entries"]
        assert set(ref) == {"id", "revision"}
        c.call("memory.write", {"identity": ident, "action": "replace", "scope": "project:hr",
                                "id": ref["id"], "expected_revision": 1,
                                "entry": entry("Plan", "Carol leaves in May")})
        assert write(added)["entries"] == [ref]
        # A covering entry the task may not read is not checked for it: its
        # status and revision would be answered by success or failure.
        cover = add("project:hr", "Cover", "covers the web note")
        web = add("project:web", "Web note", "to be covered")
        expect(-32002, "covered_target_changed", write, {
            "action": "archive", "scope": "project:web", "id": web, "expected_revision": 1,
            "reason": "covered", "covered_by": {"id": cover, "expected_revision": 1}})
        # The operator archives the same with the same cover.
        assert c.call("memory.write", {
            "identity": ident, "action": "archive", "scope": "project:web", "id": web,
            "expected_revision": 1, "reason": "covered",
            "covered_by": {"id": cover, "expected_revision": 1}})["outcome"] == "applied"


def test_an_operator_write_a_read_rule_binds_shows_what_its_read_would() -> None:
    # docs/policy.md's rule without ``channel`` binds the operator's reads of
    # entries about the owner: its writes there answer ids and revisions.
    with running(policy='[[rule]]\nid = "no-user-reads"\neffect = "deny"\n'
                        'capability = "MemoryRead"\ntarget = "user"\n') as daemon, \
            daemon.control() as c:
        ident = fresh_identity("nur-")

        def write(params: dict[str, Any]) -> Any:
            return c.call("memory.write", {"identity": ident, **params})

        (profile,) = write({"action": "add", "target": "user",
                            "entry": entry("Name", "the user is called Ada")})["entries"]
        assert profile == {"id": profile["id"], "revision": 1}
        (note,) = write({"action": "add", "entry": entry("Note", "a plain note")})["entries"]
        assert note["body"] == "a plain note"
        for target, eid in (("user", profile["id"]), ("memory", note["id"])):
            write({"action": "replace", "target": target, "id": eid, "expected_revision": 1,
                   "entry": entry("Name", "the user is called Bea")})
            stale = expect(-32002, "revision_conflict", write, {
                "action": "replace", "target": target, "id": eid, "expected_revision": 1,
                "entry": entry("Name", "again")})
            assert ("current_revision" in json.dumps(stale.data)) is (target == "memory")
