"""Teams: who shares a ``team:NAME`` scope, as the operator decided.

Owns: the rows of the ``teams`` and ``team_members`` tables (their DDL is
``sqlite_schema.TEAM_SCHEMA``, beside every other table), the operator's membership
changes (``team.create | add | remove | list``, control channel only, each
one audit event in the same transaction), and the one membership question
the rest of the daemon asks: which team scopes an owner may use *now*.

Where team memory lives. An entry in a team scope is held by the team, not
by the member who wrote it: its ``owner`` column is the team's scope string
(``team:ops``), which no owner id (``own_…``) can equal. So a member's view
is its own rows plus the rows of the team scopes it may use
(``entries.View.teams``), and everything that is computed "per owner"
(search statistics, budgets, titles, counts) is computed per team for team
rows: a non-member's answers cannot move with them.

Invariants:
- membership is decided here only from the tables, by owner id; nothing a
  caller asserts (a token's scopes, a task's ``scopes``, the default
  identity, the control channel) makes an owner a member;
- a root task's team scopes are checked once, at ``task.begin``, and then
  frozen with the task like its consent (``check_task_scopes``); removing a
  member stops the tasks it begins afterwards, not the roots already
  running; a subagent's are checked on every call (daemon/access/tasks.py);
- on the control channel an owner reaches a team scope only while it is a
  member (``current``): the operator acting for an identity gets no
  exemption either;
- audit events and logs carry the team's scope and members' owner ids,
  never an identity's subject (the scope is the same string every write into
  it already puts in its resource string); a name the content scanner
  refuses is refused at ``team.create``, before either sees it.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

import structlog

from memoryd.daemon.clock import Clock, fmt
from memoryd.daemon.pipeline.entries import View
from memoryd.daemon.storage.store import Store, Tx
from memoryd.daemon.storage.txn import audit_subject
from memoryd.kernel.errors import Conflict, Denied, NotFound
from memoryd.kernel.teams import TEAM_PREFIX, is_team_scope, team_scope
from memoryd.rpc import schema
from memoryd.rpc.protocol import CallContext, MethodSpec

log = structlog.get_logger()

__all__ = ["add", "check_task_scopes", "control_view",
           "create", "current", "list_teams", "methods", "remove"]



def _audit(tx: Tx, now: str, scope: str, change: str, member: str | None = None) -> None:
    details: dict[str, Any] = {"team": scope, "change": change}
    if member is not None:
        details["member"] = member
    tx.audit("team_changed", now, subject=audit_subject(member, channel="control", role="operator"),
             capability="GovernanceDecide", details=details)


def _require_team(tx: Tx, scope: str) -> None:
    if tx.one("SELECT 1 AS x FROM teams WHERE scope = ?", (scope,)) is None:
        raise NotFound("team_not_found")


def create(tx: Tx, name: str, now: str) -> schema.TeamOut:
    # Imported here: the scanner loads after the start (daemon/cli.py).
    from memoryd.kernel.scan import check_scopes

    scope = team_scope(name)
    # The scope is audited and logged as it is: a name the content scanner
    # refuses (a token's form) is refused here, as a write naming it would be.
    check_scopes(scope)
    if tx.one("SELECT 1 AS x FROM teams WHERE scope = ?", (scope,)) is not None:
        raise Conflict("team_exists")
    tx.exec("INSERT INTO teams(scope, created_at) VALUES (?, ?)", (scope, now))
    _audit(tx, now, scope, "created")
    return schema.TeamOut(name=name, scope=scope, created_at=now, members=[])


def add(tx: Tx, name: str, member: str, now: str) -> schema.TeamChanged:
    scope = team_scope(name)
    _require_team(tx, scope)
    known = tx.one("SELECT 1 AS x FROM team_members WHERE scope = ? AND member = ?",
                   (scope, member))
    if known is None:
        tx.exec("INSERT INTO team_members(scope, member, added_at) VALUES (?, ?, ?)",
                (scope, member, now))
        _audit(tx, now, scope, "member_added", member)
    return schema.TeamChanged(name=name, scope=scope, member=member, changed=known is None)


def remove(tx: Tx, name: str, member: str, now: str) -> schema.TeamChanged:
    scope = team_scope(name)
    _require_team(tx, scope)
    if not tx.exec("DELETE FROM team_members WHERE scope = ? AND member = ?", (scope, member)):
        raise NotFound("team_not_found")
    _audit(tx, now, scope, "member_removed", member)
    return schema.TeamChanged(name=name, scope=scope, member=member, changed=True)


def list_teams(tx: Tx) -> schema.TeamPage:
    members: dict[str, list[schema.TeamMemberOut]] = {}
    for row in tx.all("SELECT scope, member, added_at FROM team_members ORDER BY scope, added_at,"
                      " member"):
        members.setdefault(row["scope"], []).append(
            schema.TeamMemberOut(owner=row["member"], added_at=row["added_at"]))
    return schema.TeamPage(teams=[
        schema.TeamOut(name=row["scope"][len(TEAM_PREFIX):], scope=row["scope"],
                       created_at=row["created_at"], members=members.get(row["scope"], []))
        for row in tx.all("SELECT scope, created_at FROM teams ORDER BY scope")])


def current(tx: Tx, owner: str) -> frozenset[str]:
    """The team scopes ``owner`` is a member of now."""
    return frozenset(r["scope"] for r in tx.all(
        "SELECT scope FROM team_members WHERE member = ?", (owner,)))


def control_view(tx: Tx, owner: str) -> View:
    """What the control channel sees acting for ``owner``: every scope of its
    own, and the team scopes it is a member of now."""
    return View(owner, None, current(tx, owner))


def check_task_scopes(tx: Tx, owner: str, scopes: tuple[str, ...]) -> None:
    """Refuse a task whose memory scopes name a team ``owner`` is not a member
    of now (a malformed team scope names no team, so it is refused too)."""
    wanted = {s for s in scopes if is_team_scope("memory", s)}
    if wanted and not wanted <= current(tx, owner):
        raise Denied("scope_mismatch", details={"reason": "not_a_team_member"})


# --- the operator's methods ------------------------------------------------------------


def methods(store: Store, clock: Clock, owner_of: Callable[[schema.Identity], str],
            govern: Callable[[CallContext], object]) -> list[MethodSpec]:
    """The methods this module serves (control.sock only). ``owner_of`` maps an
    identity to its owner id; ``govern`` asks the gate for ``GovernanceDecide``
    (and raises unless allowed)."""

    def guard(ctx: CallContext) -> None:
        if ctx.channel != "control":
            # Absent from the agent table; the kernel refuses it there too.
            raise Denied("channel_forbidden")
        govern(ctx)

    async def team_create(ctx: CallContext, p: schema.TeamCreate) -> schema.TeamOut:
        guard(ctx)
        now = fmt(clock.now())
        out = await store.run(lambda tx: create(tx, p.name, now))
        log.info("team_changed", team=out.scope, change="created")
        return out

    def membership(change: Callable[[Tx, str, str, str], schema.TeamChanged], event: str
                   ) -> Callable[[CallContext, schema.TeamMember],
                                 Awaitable[schema.TeamChanged]]:
        async def handler(ctx: CallContext, p: schema.TeamMember) -> schema.TeamChanged:
            guard(ctx)
            now = fmt(clock.now())
            member = owner_of(p.identity)
            out = await store.run(lambda tx: change(tx, p.name, member, now))
            log.info("team_changed", team=out.scope, change=event, member=member,
                     changed=out.changed)
            return out

        return handler

    async def team_list(ctx: CallContext, _p: schema.TeamList) -> schema.TeamPage:
        guard(ctx)
        return await store.run(list_teams, write=False)

    return [
        MethodSpec("team.create", schema.TeamCreate, team_create, schema.TeamOut),
        MethodSpec("team.add", schema.TeamMember, membership(add, "member_added"),
                   schema.TeamChanged),
        MethodSpec("team.remove", schema.TeamMember, membership(remove, "member_removed"),
                   schema.TeamChanged),
        MethodSpec("team.list", schema.TeamList, team_list, schema.TeamPage),
    ]
