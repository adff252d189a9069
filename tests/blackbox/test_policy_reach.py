"""A policy rule reaches everything it names.

The namespaces it hides stay hidden in every answer and figure, and a rule
on an entry type holds for every op that touches such an entry.

On a real daemon over its sockets. The canary strings of a test must never
reach the daemon's log, the audit chain, an error or a status answer.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest

from memoryd.rpc.client import Client
from tests.harness import (
    AGENT_WRITES,
    Daemon,
    enable_consent,
    entry,
    expect,
    fresh_identity,
    running,
)

# How this module's daemon starts (the ``d`` fixture, tests/blackbox/conftest.py).
DAEMON = {"policy": AGENT_WRITES}


@pytest.fixture(scope="module")
def held() -> Iterator[Daemon]:
    """A daemon on the default policy: an agent's write is held for approval."""
    with running() as daemon:
        yield daemon


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
    out = c.call(
        "memory.write",
        {
            "identity": ident,
            "action": "add",
            "scope": "scratch:t",
            "entry": entry(title, f"Noted about {title}.", type_),
        },
    )
    if out["outcome"] == "pending":
        out = c.call("governance.action.approve", {"action_id": out["action_id"]})
    assert out["outcome"] == "applied"
    return str(out["entries"][-1]["id"])


def test_a_rule_on_type_holds_for_the_entry_an_op_archives_removes_or_replaces(
    typed: Daemon,
) -> None:
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
            out = a.call("memory.write", {"task_id": tid, "id": fact, "expected_revision": 1, **op})
            assert (out["outcome"], out["decision"]["rule_ids"]) == (
                "pending",
                ["scratch-free", "facts-reviewed"],
            ), op
            approved = c.call("governance.action.approve", {"action_id": out["action_id"]})
            assert approved["outcome"] == "applied"
        pref = _stored(c, ident, "Editor", "preference")
        for op in (
            {"action": "archive", "reason": "old"},
            {"action": "remove"},
            {"action": "replace", "entry": entry("Editor", "Emacs now.", "lesson")},
        ):
            err = expect(
                -32001,
                "policy_denied",
                a.call,
                "memory.write",
                {"task_id": tid, "id": pref, "expected_revision": 1, **op},
            )
            assert "preferences-kept" in err.data["details"]["rule_ids"]
        # What an op writes still counts, and a lesson stays free.
        lesson = _stored(c, ident, "Lesson", "lesson")
        assert (
            a.call(
                "memory.write",
                {
                    "task_id": tid,
                    "action": "archive",
                    "id": lesson,
                    "expected_revision": 1,
                    "reason": "old",
                },
            )["outcome"]
            == "applied"
        )
        # A task that may not read is not decided on what is stored (its
        # answer may not depend on it): its archive of the preference waits,
        # and the operator's approval is refused by the rule on its type.
        enable_consent(c, ident, read=False)
        blind = a.call("task.begin", {"token": token, "scopes": ["scratch:t"]})["task_id"]
        out = a.call(
            "memory.write",
            {
                "task_id": blind,
                "action": "archive",
                "id": pref,
                "expected_revision": 1,
                "reason": "old",
            },
        )
        assert out["outcome"] == "pending"
        err = expect(
            -32001,
            "policy_denied",
            c.call,
            "governance.action.approve",
            {"action_id": out["action_id"]},
        )
        assert "preferences-kept" in err.data["details"]["rule_ids"]
        pending = c.call("governance.action.list", {})["items"]
        assert out["action_id"] in [i["action_id"] for i in pending]
        shown = {
            i["title"]: i["status"]
            for i in c.call(
                "memory.list", {"identity": ident, "statuses": ["active", "archived", "superseded"]}
            )["items"]
        }
    assert shown == {
        "Fact 1": "archived",
        "Fact 3": "active",
        "Fact 4": "superseded",
        "Fact 4b": "active",
        "Editor": "active",
        "Lesson": "archived",
    }


def test_a_pending_batch_shows_a_task_only_the_ops_in_its_own_namespaces(held: Daemon) -> None:
    # memory.read's include_pending names the proposals that would change
    # the entries read, with their ops summary: a batch proposed by a task
    # holding two scopes showed a task holding one of them the other scope's
    # name, entry id and content hash.
    with held.control() as c, held.agent() as a:
        ident = fresh_identity("pb-")
        enable_consent(c, ident)
        token = c.call("token.issue", {"identity": ident})["token"]
        shared = c.call(
            "memory.write",
            {"identity": ident, "action": "add", "scope": "proj:x", "entry": entry("X")},
        )["entries"][0]["id"]
        hidden = c.call(
            "memory.write",
            {"identity": ident, "action": "add", "scope": "proj:hidden", "entry": entry("Y")},
        )["entries"][0]["id"]
        both = a.call("task.begin", {"token": token, "scopes": ["proj:x", "proj:hidden"]})[
            "task_id"
        ]
        out = a.call(
            "memory.write",
            {
                "task_id": both,
                "action": "batch",
                "ops": [
                    {
                        "action": "replace",
                        "scope": scope,
                        "id": eid,
                        "expected_revision": 1,
                        "entry": entry(title),
                    }
                    for scope, eid, title in (
                        ("proj:x", shared, "X2"),
                        ("proj:hidden", hidden, "Y2"),
                    )
                ],
            },
        )
        assert out["outcome"] == "pending"
        one = a.call("task.begin", {"token": token, "scopes": ["proj:x"]})["task_id"]
        read = a.call("memory.read", {"task_id": one, "ids": [shared], "include_pending": True})
        (pending,) = read["pending"]
        assert pending["action_id"] == out["action_id"]
        assert [(o["scope"], o["entry_id"]) for o in pending["ops_summary"]] == [("proj:x", shared)]
        assert hidden not in json.dumps(read) and "proj:hidden" not in json.dumps(read)
        # The task holding both scopes, and the operator, see the whole batch.
        for answer in (
            a.call("memory.read", {"task_id": both, "ids": [shared], "include_pending": True}),
            c.call("memory.read", {"identity": ident, "ids": [shared], "include_pending": True}),
        ):
            assert len(answer["pending"][0]["ops_summary"]) == 2


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
        ids = {
            scope: c.call(
                "memory.write",
                {"identity": ident, "action": "add", "scope": scope, "entry": entry(scope)},
            )["entries"][0]["id"]
            for scope in ("project:web", "project:hr")
        }
        tid = a.call("task.begin", {"token": token, "scopes": ["project:web", "project:hr"]})[
            "task_id"
        ]
        out = a.call(
            "memory.write",
            {
                "task_id": tid,
                "action": "batch",
                "ops": [
                    {
                        "action": "archive",
                        "scope": scope,
                        "id": eid,
                        "expected_revision": 1,
                        "reason": "old",
                    }
                    for scope, eid in ids.items()
                ],
            },
        )
        assert out["outcome"] == "pending"
        expect(
            -32001,
            "policy_denied",
            a.call,
            "memory.read",
            {"task_id": tid, "ids": [ids["project:hr"]]},
        )
        read = a.call(
            "memory.read", {"task_id": tid, "ids": [ids["project:web"]], "include_pending": True}
        )
        (pending,) = read["pending"]
        assert [o["scope"] for o in pending["ops_summary"]] == ["project:web"]
        assert ids["project:hr"] not in json.dumps(read)
        # The operator sees the whole batch.
        shown = c.call(
            "memory.read", {"identity": ident, "ids": [ids["project:web"]], "include_pending": True}
        )
        assert len(shown["pending"][0]["ops_summary"]) == 2


def test_status_counts_nothing_in_a_namespace_the_policy_hides(hidden: Daemon) -> None:
    # memory.status tells a task how many entries and pending proposals it
    # has: a figure from project:hr, which the task holds but may not read,
    # would say how many HR entries there are and when one is written.
    with hidden.control() as c, hidden.agent() as a:
        ident = fresh_identity("hr-st-")
        enable_consent(c, ident)
        token = c.call("token.issue", {"identity": ident})["token"]
        for n in range(3):
            c.call(
                "memory.write",
                {
                    "identity": ident,
                    "action": "add",
                    "scope": "project:hr",
                    "entry": entry(f"HR {n}"),
                },
            )
        web = c.call(
            "memory.write",
            {"identity": ident, "action": "add", "scope": "project:web", "entry": entry("Web")},
        )["entries"][0]["id"]
        c.call(
            "memory.write",
            {
                "identity": ident,
                "action": "archive",
                "scope": "project:web",
                "id": web,
                "expected_revision": 1,
                "reason": "old",
            },
        )
        tid = a.call("task.begin", {"token": token, "scopes": ["project:web", "project:hr"]})[
            "task_id"
        ]
        # Pending proposals (agent writes wait for approval here): one in
        # each scope.
        for scope in ("project:hr", "project:web"):
            out = a.call(
                "memory.write",
                {
                    "task_id": tid,
                    "action": "add",
                    "scope": scope,
                    "entry": entry(f"Proposed {scope}"),
                },
            )
            assert out["outcome"] == "pending"
        operator = c.call("memory.status", {"identity": ident})
        assert (
            operator["counts"]["active"],
            operator["counts"]["archived"],
            operator["pending_actions"],
        ) == (3, 1, 2)
        seen = a.call("memory.status", {"task_id": tid})
        assert seen["counts"] == {**dict.fromkeys(seen["counts"], 0), "archived": 1}
        assert seen["pending_actions"] == 1
        # A task that may read nothing (read consent off) counts nothing.
        enable_consent(c, ident, read=False)
        blind = a.call("task.begin", {"token": token, "scopes": ["project:web", "project:hr"]})[
            "task_id"
        ]
        out = a.call("memory.status", {"task_id": blind})
        assert (set(out["counts"].values()), out["pending_actions"]) == ({0}, 0)


@pytest.fixture(scope="module")
def hidden_applied() -> Iterator[Daemon]:
    """``hr-hidden-from-agents`` with agent writes applied at once: a task
    holding project:hr writes there and may not read it (a small budget)."""
    with running(policy=AGENT_WRITES + _HR_HIDDEN, config="scope_budget_bytes = 3000\n") as daemon:
        yield daemon


def _hr_task(c: Client, a: Client, prefix: str) -> tuple[dict[str, str], str]:
    ident = fresh_identity(prefix)
    enable_consent(c, ident)
    token = c.call("token.issue", {"identity": ident})["token"]
    tid = a.call("task.begin", {"token": token, "scopes": ["project:web", "project:hr"]})["task_id"]
    return ident, tid


def test_a_full_budget_shows_no_figure_of_a_namespace_the_policy_hides(
    hidden_applied: Daemon,
) -> None:
    # The budget's used_bytes is the namespace's size: a task that may not
    # read project:hr learnt it, and each change to it, from a refused add.
    with hidden_applied.control() as c, hidden_applied.agent() as a:
        ident, tid = _hr_task(c, a, "hr-bud-")
        big = entry("Big", "b" * 2_500)
        for scope in ("project:hr", "project:web"):
            c.call(
                "memory.write",
                {
                    "identity": ident,
                    "action": "add",
                    "scope": scope,
                    "entry": entry("Old", "o" * 1_000),
                },
            )

        def refused(cl: Client, params: dict[str, Any]) -> dict[str, Any]:
            err = expect(
                -32005,
                "scope_budget_exceeded",
                cl.call,
                "memory.write",
                {"action": "add", "entry": big, **params},
            )
            data: dict[str, Any] = err.data
            return data

        hr = refused(a, {"task_id": tid, "scope": "project:hr"})
        assert hr["details"] == {"cap": "scope_budget_bytes", "limit": 3000, "budget_bytes": 3000}
        assert "raise scope_budget_bytes (now 3000)" in hr["recovery"]
        # Another HR entry changes nothing the task is told.
        c.call(
            "memory.write",
            {
                "identity": ident,
                "action": "add",
                "scope": "project:hr",
                "entry": entry("More", "m" * 300),
            },
        )
        assert refused(a, {"task_id": tid, "scope": "project:hr"}) == hr
        # The figures stay for a namespace the task reads, and for the operator.
        web = refused(a, {"task_id": tid, "scope": "project:web"})["details"]
        assert web["used_bytes"] > 1_000 and web["needed_bytes"] > 2_500
        operator = refused(c, {"identity": ident, "scope": "project:hr"})["details"]
        assert operator["used_bytes"] > web["used_bytes"] + 300
        assert operator["needed_bytes"] == web["needed_bytes"]


def test_a_write_into_a_namespace_the_policy_hides_shows_what_a_read_would(
    hidden_applied: Daemon,
) -> None:
    # The task has the read grant, so the write path showed it what a read
    # of project:hr refuses: a stale revision's current one, a taken title's
    # holder, whether its content equals a guess, the entry it archived.
    with hidden_applied.control() as c, hidden_applied.agent() as a:
        ident, tid = _hr_task(c, a, "hr-wr-")

        def add(scope: str, title: str, body: str) -> str:
            out = c.call(
                "memory.write",
                {"identity": ident, "action": "add", "scope": scope, "entry": entry(title, body)},
            )
            eid: str = out["entries"][0]["id"]
            return eid

        def write(params: dict[str, Any]) -> Any:
            return a.call("memory.write", {"task_id": tid, **params})

        salary = entry("Salary", "Bob earns ninety thousand")
        ids = {
            s: add(s, "Salary", "Bob earns eighty thousand") for s in ("project:hr", "project:web")
        }
        for s, eid in ids.items():
            c.call(
                "memory.write",
                {
                    "identity": ident,
                    "action": "replace",
                    "scope": s,
                    "id": eid,
                    "expected_revision": 1,
                    "entry": salary,
                },
            )
        expect(
            -32001,
            "policy_denied",
            a.call,
            "memory.read",
            {"task_id": tid, "ids": [ids["project:hr"]]},
        )
        for s, shown in (("project:hr", False), ("project:web", True)):
            stale = expect(
                -32002,
                "revision_conflict",
                write,
                {
                    "action": "replace",
                    "scope": s,
                    "id": ids[s],
                    "expected_revision": 1,
                    "entry": entry("Salary", "new"),
                },
            )
            assert ("current_revision" in json.dumps(stale.data)) is shown, s
            taken = expect(
                -32002,
                "duplicate_title",
                write,
                {"action": "add", "scope": s, "entry": entry("Salary", "another")},
            )
            assert (ids[s] in json.dumps(taken.data)) is shown, s
        # Content equal to a guess is a new revision, not ``unchanged``, and
        # the answer names ids and revisions only.
        same = write(
            {
                "action": "replace",
                "scope": "project:hr",
                "id": ids["project:hr"],
                "expected_revision": 2,
                "entry": salary,
            }
        )
        assert (same["outcome"], same["entries"]) == (
            "applied",
            [{"id": ids["project:hr"], "revision": 3}],
        )
        assert (
            write(
                {
                    "action": "replace",
                    "scope": "project:web",
                    "id": ids["project:web"],
                    "expected_revision": 2,
                    "entry": salary,
                }
            )["outcome"]
            == "unchanged"
        )
        # An archive answers no stored text, nor does a replay of an add
        # after the operator rewrote the entry.
        note = add("project:hr", "Review", "Alice is on a performance plan")
        archived = write(
            {
                "action": "archive",
                "scope": "project:hr",
                "id": note,
                "expected_revision": 1,
                "reason": "old",
            }
        )
        assert archived["entries"] == [{"id": note, "revision": 2}]
        added = {
            "action": "add",
            "scope": "project:hr",
            "entry": entry("Plan", "draft"),
            "idempotency_key": f"k-{tid}",
        }
        (ref,) = write(added)["entries"]
        assert set(ref) == {"id", "revision"}
        c.call(
            "memory.write",
            {
                "identity": ident,
                "action": "replace",
                "scope": "project:hr",
                "id": ref["id"],
                "expected_revision": 1,
                "entry": entry("Plan", "Carol leaves in May"),
            },
        )
        assert write(added)["entries"] == [ref]
        # A covering entry the task may not read is not checked for it: its
        # status and revision would be answered by success or failure.
        cover = add("project:hr", "Cover", "covers the web note")
        web = add("project:web", "Web note", "to be covered")
        expect(
            -32002,
            "covered_target_changed",
            write,
            {
                "action": "archive",
                "scope": "project:web",
                "id": web,
                "expected_revision": 1,
                "reason": "covered",
                "covered_by": {"id": cover, "expected_revision": 1},
            },
        )
        # The operator archives the same with the same cover.
        assert (
            c.call(
                "memory.write",
                {
                    "identity": ident,
                    "action": "archive",
                    "scope": "project:web",
                    "id": web,
                    "expected_revision": 1,
                    "reason": "covered",
                    "covered_by": {"id": cover, "expected_revision": 1},
                },
            )["outcome"]
            == "applied"
        )


def test_an_operator_write_a_read_rule_binds_shows_what_its_read_would() -> None:
    # docs/policy.md's rule without ``channel`` binds the operator's reads of
    # entries about the owner: its writes there answer ids and revisions.
    with (
        running(
            policy='[[rule]]\nid = "no-user-reads"\neffect = "deny"\n'
            'capability = "MemoryRead"\ntarget = "user"\n'
        ) as daemon,
        daemon.control() as c,
    ):
        ident = fresh_identity("nur-")

        def write(params: dict[str, Any]) -> Any:
            return c.call("memory.write", {"identity": ident, **params})

        (profile,) = write(
            {"action": "add", "target": "user", "entry": entry("Name", "the user is called Ada")}
        )["entries"]
        assert profile == {"id": profile["id"], "revision": 1}
        (note,) = write({"action": "add", "entry": entry("Note", "a plain note")})["entries"]
        assert note["body"] == "a plain note"
        for target, eid in (("user", profile["id"]), ("memory", note["id"])):
            write(
                {
                    "action": "replace",
                    "target": target,
                    "id": eid,
                    "expected_revision": 1,
                    "entry": entry("Name", "the user is called Bea"),
                }
            )
            stale = expect(
                -32002,
                "revision_conflict",
                write,
                {
                    "action": "replace",
                    "target": target,
                    "id": eid,
                    "expected_revision": 1,
                    "entry": entry("Name", "again"),
                },
            )
            assert ("current_revision" in json.dumps(stale.data)) is (target == "memory")
