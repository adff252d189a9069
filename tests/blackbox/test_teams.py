"""Team scopes ``team:NAME`` over the real sockets, with several identities.

A team scope is shared by explicit membership the operator manages
(``team.create | add | remove | list``, each audited). A task may read or
propose into it only when its identity is a member when the task begins (the
membership is frozen with the task, like consent); nobody else is exempt, not
the daemon's default identity and not an agent on ``agent.sock``. Isolation
holds both ways: a non-member's answers never move with team writes, and a
member's team reads never show another member's personal memory.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest

from memoryd.rpc.client import Client, RpcError
from tests.harness import Daemon, enable_consent, entry, fresh_identity, running

TEAM = "team:ops"


class World:
    def __init__(self, daemon: Daemon) -> None:
        self.d = daemon
        self.who: dict[str, dict[str, str]] = {}
        self.tokens: dict[str, str] = {}
        self.personal: dict[str, str] = {}
        self.owner: dict[str, str] = {}


@pytest.fixture(scope="module")
def w() -> Iterator[World]:
    with running() as daemon:
        world = World(daemon)
        with daemon.control() as c:
            for name in ("alice", "bob", "carol"):
                who = fresh_identity(name + "-")
                world.who[name] = who
                enable_consent(c, identity=who)
                issued = c.call("token.issue", {"identity": who})
                world.tokens[name] = issued["token"]
                world.owner[name] = issued["owner"]
                out = c.call(
                    "memory.write",
                    {
                        "identity": who,
                        "action": "add",
                        "entry": entry(
                            f"Kestrel note of {name}",
                            f"kestrel personal detail belonging to {name}",
                            "fact",
                        ),
                    },
                )
                world.personal[name] = out["entries"][0]["id"]
            c.call("team.create", {"name": "ops"})
            for name in ("alice", "bob"):
                c.call("team.add", {"name": "ops", "identity": world.who[name]})
        yield world


def _begin(a: Client, w: World, name: str, scopes: list[str]) -> dict[str, Any]:
    return a.call("task.begin", {"token": w.tokens[name], "scopes": scopes})  # type: ignore[no-any-return]


def _team_write(c: Client, w: World, name: str, title: str, body: str) -> str:
    out = c.call(
        "memory.write",
        {
            "identity": w.who[name],
            "scope": TEAM,
            "action": "add",
            "entry": entry(title, body, "fact"),
        },
    )
    return out["entries"][0]["id"]  # type: ignore[no-any-return]


def _lone_member(c: Client, prefix: str, **consent: bool) -> tuple[dict[str, str], str]:
    """A fresh identity with consent and a token, the one member of ``team:ops``."""
    who = fresh_identity(prefix)
    enable_consent(c, identity=who, **consent)
    token: str = c.call("token.issue", {"identity": who})["token"]
    c.call("team.create", {"name": "ops"})
    c.call("team.add", {"name": "ops", "identity": who})
    return who, token


# --- administration ------------------------------------------------------------


def test_team_list_shows_members_by_owner_id(w: World) -> None:
    with w.d.control() as c:
        teams = c.call("team.list", {})["teams"]
    ops = next(t for t in teams if t["name"] == "ops")
    assert ops["scope"] == TEAM
    assert sorted(m["owner"] for m in ops["members"]) == sorted([w.owner["alice"], w.owner["bob"]])


def test_team_methods_do_not_exist_on_agent_sock(w: World) -> None:
    with w.d.agent() as a:
        for method, params in (
            ("team.create", {"name": "x"}),
            ("team.list", {}),
            ("team.add", {"name": "ops", "identity": w.who["carol"]}),
            ("team.remove", {"name": "ops", "identity": w.who["alice"]}),
        ):
            with pytest.raises(RpcError) as err:
                a.call(method, params)
            assert err.value.code == -32601


@pytest.mark.parametrize("name", ["", "Ops", "two words", "a" * 64, "ops/x", "ops:x"])
def test_bad_team_name_is_invalid_params(w: World, name: str) -> None:
    with w.d.control() as c, pytest.raises(RpcError) as err:
        c.call("team.create", {"name": name})
    assert err.value.code == -32602


def test_team_admin_errors_are_structured(w: World) -> None:
    with w.d.control() as c:
        with pytest.raises(RpcError) as err:
            c.call("team.create", {"name": "ops"})
        assert err.value.code == -32002 and err.value.data["code"] == "team_exists"
        with pytest.raises(RpcError) as err:
            c.call("team.add", {"name": "nosuch", "identity": w.who["carol"]})
        assert err.value.code == -32003 and err.value.data["code"] == "team_not_found"
        with pytest.raises(RpcError) as err:
            c.call("team.remove", {"name": "ops", "identity": w.who["carol"]})
        assert err.value.code == -32003 and err.value.data["code"] == "team_not_found"


def test_every_membership_change_is_audited_without_subjects() -> None:
    with running() as d, d.control() as c:
        who = fresh_identity("canary-subject-")
        c.call("team.create", {"name": "canaryteam"})
        c.call("team.add", {"name": "canaryteam", "identity": who})
        c.call("team.remove", {"name": "canaryteam", "identity": who})
        events = c.call("audit.export", {"after_seq": 0})["events"]
        log = d.log()
    changes = [e for e in events if e["kind"] == "team_changed"]
    assert [e["details"]["change"] for e in changes] == [
        "created",
        "member_added",
        "member_removed",
    ]
    assert all(e["details"]["team"] == "team:canaryteam" for e in changes)
    assert changes[1]["details"]["member"].startswith("own_")
    # The identity's subject is never audited or logged: only its owner id.
    assert who["subject"] not in json.dumps(events)
    assert who["subject"] not in log


# --- who may begin a task on a team scope ---------------------------------------------


def test_non_member_cannot_begin_a_team_task(w: World) -> None:
    with w.d.agent() as a, pytest.raises(RpcError) as err:
        _begin(a, w, "carol", [TEAM])
    assert err.value.data["code"] == "scope_mismatch"


def test_default_identity_is_not_exempt(w: World) -> None:
    with w.d.agent() as a, pytest.raises(RpcError) as err:
        a.call("task.begin", {"scopes": [TEAM]})
    assert err.value.data["code"] == "scope_mismatch"
    with w.d.control() as c, pytest.raises(RpcError) as err:
        c.call("task.begin", {"scopes": [TEAM]})
    assert err.value.data["code"] == "scope_mismatch"


def test_token_scoped_to_a_team_does_not_make_a_member(w: World) -> None:
    with w.d.control() as c:
        token = c.call("token.issue", {"identity": w.who["carol"], "scopes": [TEAM]})["token"]
    with w.d.agent() as a, pytest.raises(RpcError) as err:
        a.call("task.begin", {"token": token})
    assert err.value.data["code"] == "scope_mismatch"


def test_control_write_into_team_scope_needs_a_member(w: World) -> None:
    with w.d.control() as c:
        before = c.call("team.list", {})
        with pytest.raises(RpcError) as err:
            _team_write(c, w, "carol", "Carol's team try", "carol writes into ops")
        assert err.value.data["code"] == "scope_mismatch"
        with pytest.raises(RpcError) as err:
            c.call(
                "memory.write",
                {
                    "scope": TEAM,
                    "action": "add",
                    "entry": entry("Default try", "default writes into ops"),
                },
            )
        assert err.value.data["code"] == "scope_mismatch"
        assert c.call("team.list", {}) == before


# --- what members see --------------------------------------------------------------


def test_members_share_team_memory(w: World) -> None:
    with w.d.control() as c:
        eid = _team_write(c, w, "alice", "Osprey runbook", "osprey rollback uses blue green")
    with w.d.agent() as a:
        task = _begin(a, w, "bob", ["default", TEAM])["task_id"]
        got = a.call("memory.read", {"task_id": task, "ids": [eid]})["entries"][0]
        assert got["scope"] == TEAM and got["title"] == "Osprey runbook"
        found = a.call("memory.list", {"task_id": task, "query": "osprey"})["items"]
        assert [i["id"] for i in found] == [eid]
        snap = a.call("memory.context", {"task_id": task, "intent": "osprey rollback"})
        assert eid in {card["id"] for card in snap["entries"]}


def test_member_team_reads_never_show_other_members_personal_memory(w: World) -> None:
    with w.d.agent() as a:
        task = _begin(a, w, "bob", ["default", TEAM])["task_id"]
        listed = a.call(
            "memory.list",
            {
                "task_id": task,
                "statuses": ["active", "superseded", "archived", "expired", "removed"],
            },
        )["items"]
        ids = {i["id"] for i in listed}
        assert w.personal["bob"] in ids
        assert not ids & {w.personal["alice"], w.personal["carol"]}
        # Only the personal entries hold these words; each owner has one.
        found = a.call("memory.list", {"task_id": task, "query": "belonging"})["items"]
        assert {i["id"] for i in found} == {w.personal["bob"]}
        snap = a.call("memory.context", {"task_id": task, "intent": "personal belonging"})
        assert {card["id"] for card in snap["entries"]} <= {w.personal["bob"]} | {
            i["id"] for i in listed
        }
        assert w.personal["alice"] not in {card["id"] for card in snap["entries"]}
        with pytest.raises(RpcError) as err:
            a.call("memory.read", {"task_id": task, "ids": [w.personal["alice"]]})
        assert err.value.data["code"] == "not_found"


def test_team_entries_are_not_anyones_personal_memory(w: World) -> None:
    """A member's task without the team scope sees none of it."""
    with w.d.control() as c:
        eid = _team_write(c, w, "alice", "Plover checklist", "plover deploy freeze friday")
    with w.d.agent() as a:
        task = _begin(a, w, "alice", ["default"])["task_id"]
        assert a.call("memory.list", {"task_id": task, "query": "plover"})["items"] == []
        with pytest.raises(RpcError) as err:
            a.call("memory.read", {"task_id": task, "ids": [eid]})
        assert err.value.data["code"] == "not_found"


def test_agent_proposal_into_team_scope_lands_in_the_team(w: World) -> None:
    with w.d.agent() as a:
        task = _begin(a, w, "alice", [TEAM])["task_id"]
        out = a.call(
            "memory.write",
            {
                "task_id": task,
                "action": "add",
                "entry": entry("Avocet alert", "avocet pager goes to sre"),
            },
        )
        assert out["outcome"] == "pending"
    with w.d.control() as c:
        applied = c.call("governance.action.approve", {"action_id": out["action_id"]})
    eid = applied["entries"][0]["id"]
    assert applied["entries"][0]["scope"] == TEAM
    with w.d.agent() as a:
        task = _begin(a, w, "bob", [TEAM])["task_id"]
        assert a.call("memory.read", {"task_id": task, "ids": [eid]})["entries"][0]["id"] == eid


def test_member_edits_a_team_entry_another_member_wrote(w: World) -> None:
    with w.d.control() as c:
        eid = _team_write(c, w, "alice", "Grebe dashboard", "grebe board lives in grafana")
        out = c.call(
            "memory.write",
            {
                "identity": w.who["bob"],
                "scope": TEAM,
                "action": "replace",
                "id": eid,
                "expected_revision": 1,
                "entry": entry("Grebe dashboard", "grebe board moved to the new grafana", "fact"),
            },
        )
        assert out["entries"][0]["revision"] == 2
        with pytest.raises(RpcError) as err:
            c.call(
                "memory.write",
                {
                    "identity": w.who["carol"],
                    "scope": TEAM,
                    "action": "archive",
                    "id": eid,
                    "expected_revision": 2,
                    "reason": "stale",
                },
            )
        assert err.value.data["code"] == "scope_mismatch"


def test_policy_decides_team_scopes_like_any_other(w: World) -> None:
    policy = (
        '[[rule]]\nid = "no-team-writes"\ncapability = ["MemoryWrite"]\n'
        'scope = "team:*"\neffect = "deny"\n'
    )
    with running(policy=policy) as d, d.control() as c:
        who = fresh_identity("pol-")
        c.call("team.create", {"name": "ops"})
        c.call("team.add", {"name": "ops", "identity": who})
        with pytest.raises(RpcError) as err:
            c.call(
                "memory.write",
                {
                    "identity": who,
                    "scope": TEAM,
                    "action": "add",
                    "entry": entry("Denied", "never stored"),
                },
            )
        assert err.value.data["code"] == "policy_denied"
        assert err.value.data["details"]["rule_ids"] == ["no-team-writes"]


# --- membership is frozen per task ----------------------------------------------------


def test_removal_stops_new_tasks_and_not_running_ones() -> None:
    with running() as d, d.control() as c, d.agent() as a:
        who, token = _lone_member(c, "dana-")
        eid = c.call(
            "memory.write",
            {
                "identity": who,
                "scope": TEAM,
                "action": "add",
                "entry": entry("Tern", "tern cache warms at six"),
            },
        )["entries"][0]["id"]
        running_task = a.call("task.begin", {"token": token, "scopes": [TEAM]})["task_id"]
        c.call("team.remove", {"name": "ops", "identity": who})
        # Frozen at task start, like consent: the task begun as a member keeps it.
        assert a.call("memory.read", {"task_id": running_task, "ids": [eid]})["entries"]
        with pytest.raises(RpcError) as err:
            a.call("task.begin", {"token": token, "scopes": [TEAM]})
        assert err.value.data["code"] == "scope_mismatch"
        # Added again, new tasks see it again.
        c.call("team.add", {"name": "ops", "identity": who})
        again = a.call("task.begin", {"token": token, "scopes": [TEAM]})["task_id"]
        assert a.call("memory.read", {"task_id": again, "ids": [eid]})["entries"]


def test_subagent_inherits_its_parents_team_scope_only_while_the_owner_is_a_member() -> None:
    # A change of membership reaches every task descended from the root
    # (SPEC; tests/blackbox/test_subagents.py): the root keeps its frozen
    # scope, a subagent begun after the removal does not get it.
    with running() as d, d.control() as c, d.agent() as a:
        who, token = _lone_member(c, "erin-")
        parent = a.call("task.begin", {"token": token, "scopes": [TEAM]})["task_id"]
        child = a.call("task.begin", {"token": token, "parent_task": parent})
        assert child["scopes"] == [TEAM]
        c.call("team.remove", {"name": "ops", "identity": who})
        later = a.call("task.begin", {"token": token, "parent_task": parent})
        assert TEAM not in later["scopes"]


# --- isolation: a non-member's answers never move -------------------------------------


def _carol_view(a: Client, w: World) -> tuple[Any, ...]:
    task = _begin(a, w, "carol", ["default"])["task_id"]
    found = a.call("memory.list", {"task_id": task, "query": "kestrel heron"})
    snap = a.call("memory.context", {"task_id": task, "intent": "kestrel heron detail"})
    status = a.call("memory.status", {"task_id": task})
    return (
        [(i["id"], i["score"]) for i in found["items"]],
        [(card["id"]) for card in snap["entries"]],
        snap["rendered"].count("\n"),
        status["counts"],
        status["pending_actions"],
    )


def test_non_member_answers_do_not_move_with_team_writes(w: World) -> None:
    with w.d.agent() as a:
        before = _carol_view(a, w)
    with w.d.control() as c:
        for i in range(6):
            _team_write(
                c,
                w,
                "alice",
                f"Kestrel heron team {i}",
                f"kestrel heron detail kestrel heron shared {i}",
            )
    with w.d.agent() as a:
        task = _begin(a, w, "alice", [TEAM])["task_id"]
        a.call(
            "memory.write",
            {
                "task_id": task,
                "action": "add",
                "entry": entry("Kestrel heron pending", "kestrel heron pending"),
            },
        )
        after = _carol_view(a, w)
    assert after == before


def test_control_status_of_non_member_does_not_count_team_entries(w: World) -> None:
    with w.d.control() as c:
        before = c.call("memory.status", {"identity": w.who["carol"]})["counts"]
        _team_write(c, w, "bob", "Dunlin", "dunlin shard map")
        after = c.call("memory.status", {"identity": w.who["carol"]})["counts"]
        member = c.call("memory.status", {"identity": w.who["bob"]})["counts"]
    assert after == before
    assert member["active"] >= 2


# --- memctl --------------------------------------------------------------------------


def test_memctl_team_commands(w: World) -> None:
    who = fresh_identity("frank-")
    ident = ["--identity-kind", who["kind"], "--identity-subject", who["subject"]]
    assert w.d.memctl("team", "create", "infra").returncode == 0
    # A fresh identity memoryd has never seen: adding it takes --force.
    added = w.d.memctl("team", "add", "infra", *ident, "--force", "--json")
    assert added.returncode == 0, added.stderr
    owner = json.loads(added.stdout.decode())["member"]
    listed = w.d.memctl("team", "ls", "--json")
    infra = next(t for t in json.loads(listed.stdout.decode())["teams"] if t["name"] == "infra")
    assert [m["owner"] for m in infra["members"]] == [owner]
    human = w.d.memctl("team", "ls")
    shown = human.stdout.decode()
    assert human.returncode == 0 and "team:infra" in shown and owner in shown
    assert w.d.memctl("team", "remove", "infra", *ident).returncode == 0
    missing = w.d.memctl("team", "remove", "infra", *ident)
    assert missing.returncode == 1


# --- the same rules as personal memory -------------------------------------------------


def test_a_member_without_read_consent_reads_no_team_memory() -> None:
    with running() as d, d.control() as c, d.agent() as a:
        _who, token = _lone_member(c, "gil-", read=False)
        task = a.call("task.begin", {"token": token, "scopes": [TEAM]})["task_id"]
        with pytest.raises(RpcError) as err:
            a.call("memory.list", {"task_id": task})
        assert err.value.data["code"] == "consent_required"


def test_a_members_team_write_is_undone_on_the_team(w: World) -> None:
    with w.d.control() as c:
        out = c.call(
            "memory.write",
            {
                "identity": w.who["bob"],
                "scope": TEAM,
                "action": "add",
                "entry": entry("Shrike", "shrike queue drains at noon"),
            },
        )
        undone = c.call(
            "memory.undo", {"identity": w.who["bob"], "operation_id": out["operation_id"]}
        )
        assert [e["status"] for e in undone["entries"]] == ["archived"]
        # Another owner's journal holds no such operation.
        with pytest.raises(RpcError) as err:
            c.call("memory.undo", {"identity": w.who["carol"], "operation_id": out["operation_id"]})
        assert err.value.data["code"] == "not_found"


def test_imported_team_entries_are_vouched_for_by_a_member_only(w: World) -> None:
    """Provenance as for personal memory: an import is never injected until the
    operator promotes it, acting for a member of the team."""
    with w.d.control() as c:
        imported = c.call(
            "memory.write",
            {
                "identity": w.who["alice"],
                "scope": TEAM,
                "action": "add",
                "source": "import",
                "entry": entry("Ibis import", "ibis notes imported from the old wiki"),
            },
        )
        eid = imported["entries"][0]["id"]
        with pytest.raises(RpcError) as err:
            c.call("memory.promote", {"identity": w.who["carol"], "ids": [eid]})
        assert err.value.data["code"] == "not_found"
        with w.d.agent() as a:
            task = _begin(a, w, "bob", [TEAM])["task_id"]
            snap = a.call("memory.context", {"task_id": task, "intent": "ibis notes wiki"})
            assert eid not in {card["id"] for card in snap["entries"]}
        out = c.call("memory.promote", {"identity": w.who["bob"], "ids": [eid]})
        assert [p["id"] for p in out["promoted"]] == [eid]
    with w.d.agent() as a:
        task = _begin(a, w, "bob", [TEAM])["task_id"]
        snap = a.call("memory.context", {"task_id": task, "intent": "ibis notes wiki"})
        assert eid in {card["id"] for card in snap["entries"]}


def test_a_proposal_into_a_team_is_approved_only_while_its_author_is_a_member() -> None:
    # The approval writes into the team for the proposal's owner, as a
    # control write for that identity would: a member removed since it
    # proposed is no longer one, whatever the task that proposed it held.
    with running() as d, d.control() as c, d.agent() as a:
        who, token = _lone_member(c, "erin-")
        task = a.call("task.begin", {"token": token, "scopes": [TEAM]})["task_id"]
        out = a.call(
            "memory.write",
            {
                "task_id": task,
                "action": "add",
                "entry": entry("Plover", "plover rota starts monday"),
            },
        )
        assert out["outcome"] == "pending"
        a.call("task.end", {"task_id": task})
        c.call("team.remove", {"name": "ops", "identity": who})
        with pytest.raises(RpcError) as err:
            c.call("governance.action.approve", {"action_id": out["action_id"]})
        assert (err.value.code, err.value.data["code"]) == (-32001, "scope_mismatch")
        # Nothing landed in the team, and the action waits as it was.
        c.call("team.add", {"name": "ops", "identity": who})
        listed = c.call("memory.list", {"identity": who, "scope": TEAM})["items"]
        assert listed == []
        pending = c.call("governance.action.get", {"action_id": out["action_id"]})
        assert pending["status"] == "pending"
        # A member again: the same approval goes through.
        applied = c.call("governance.action.approve", {"action_id": out["action_id"]})
        assert applied["entries"][0]["scope"] == TEAM
