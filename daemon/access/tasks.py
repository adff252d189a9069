"""Tasks: one agent run, its frozen consent, grants and namespaces.

Owns: ``task.begin`` / ``task.end`` and resolving a ``task_id`` back to its
task for a caller (``lookup`` from its row, ``refresh`` of one already
resolved: only its end, lifetime and snapshot are read again); and whether a
task, ended or not, was begun with ``tools_used`` (``used_tools``, which the
extraction worker asks when it runs a job the task submitted).

Invariants:
- consent is frozen at ``task.begin``; later consent changes affect new tasks
  and the running subagents (below), never a running root task;
- a task id is bound to the peer uid and channel that began it, and to the
  token it was begun with, if any (``daemon/access/gate.py`` checks the token): any
  other caller gets ``task_not_found`` (never a hint that the id exists);
- namespaces are fixed at begin: the owner's ``user`` scope plus the memory
  scopes named in ``scopes``, else the workspace scope, else ``default``;
  a subagent inherits its parent's;
- a team scope (``team:NAME``) is a namespace of a task only if its owner is
  a member of that team at begin (daemon/access/teams.py); it stays one for a root
  task's lifetime, like the frozen consent;
- a subagent is bounded by its chain's live state (``_bounded``): it is
  ``task_not_found`` as soon as any task above it has ended or passed its
  lifetime, its own lifetime ends no later than its parent's, and on every
  call its consent is the frozen one narrowed by the owner's consent now and
  its team scopes those the owner is still a member of;
- a scope name the content scanner refuses is never a task's namespace
  (``task.begin`` is refused as a write naming it would be);
- a token with scopes limits the task to those scopes; a subagent is bound to
  its parent's token (and so its scopes) and is begun only with that same
  credential, so it can never widen what its parent could see.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, replace
from datetime import datetime
from typing import Any

from memoryd.audit.keyed import KeyedHasher
from memoryd.daemon.access import teams
from memoryd.daemon.access.identity import read_consent
from memoryd.daemon.clock import fmt, plus
from memoryd.daemon.ids import random_id
from memoryd.daemon.storage.store import Tx, dumps, loads
from memoryd.kernel.errors import Denied, LimitExceeded, NotFound
from memoryd.kernel.grants import Consent, grants_for
from memoryd.kernel.teams import is_team_scope
from memoryd.rpc import schema


@dataclass(frozen=True, slots=True)
class Task:
    task_id: str
    owner: str
    peer_uid: int
    channel: str
    role: str
    parent_task: str | None
    scopes: tuple[str, ...]
    user_scope: str
    consent: Consent
    grants: frozenset[str]
    tools_used: bool
    expires_at: str
    snapshot: dict[str, Any] | None
    token_id: str | None = None

    def wire(self) -> schema.TaskOut:
        return schema.TaskOut(
            task_id=self.task_id,
            owner=self.owner,
            role=self.role,
            scopes=list(self.scopes),
            user_scope=self.user_scope,
            consent=schema.ConsentFlags(
                read=self.consent.read,
                contribute=self.consent.contribute,
                learn_from_tools=self.consent.learn_from_tools,
            ),
            grants=sorted(self.grants),
            expires_at=self.expires_at,
        )


def user_scope(owner: str) -> str:
    """The ``user`` target's scope is the owner's own, derived, never chosen."""
    return owner


def begin(
    tx: Tx,
    hasher: KeyedHasher,
    p: schema.TaskBegin,
    *,
    owner: str,
    token_scopes: tuple[str, ...] | None,
    token_id: str | None,
    channel: str,
    peer_uid: int,
    now_dt: datetime,
    ttl_hours: float,
    max_open: int,
    max_per_hour: int,
    parent: Task | None = None,
) -> Task:
    """Begin a task. ``parent`` is the resolved ``parent_task`` (the gate has
    checked this caller may use it), or None when none was named."""
    now = fmt(now_dt)
    open_count = tx.one(
        "SELECT count(*) AS n FROM tasks WHERE owner = ? AND ended_at IS NULL AND expires_at > ?",
        (owner, now),
    )
    if open_count is not None and open_count["n"] >= max_open:
        raise LimitExceeded.cap("rate_limited", "max_open_tasks", max_open,
                                open_tasks=open_count["n"])
    # Ended tasks count too: beginning and ending in a loop is the churn this
    # bounds (each task's snapshot is an audit event).
    begun = tx.one("SELECT count(*) AS n FROM tasks WHERE owner = ? AND created_at > ?",
                   (owner, fmt(plus(now_dt, hours=-1))))
    if begun is not None and begun["n"] >= max_per_hour:
        raise LimitExceeded.cap("rate_limited", "max_tasks_per_hour", max_per_hour,
                                tasks_this_hour=begun["n"])
    consent = read_consent(tx, owner).consent
    if parent is not None and (parent.owner != owner or parent.token_id != token_id):
        # A child is begun with its parent's own credential or not at all:
        # another token of the same owner may be narrower than the parent.
        raise NotFound("task_not_found")
    role = p.role
    if parent is not None and role != "subagent":
        # A child task is a subagent whatever it calls itself.
        role = "subagent"
    if role == "subagent" and parent is None:
        # A subagent without a parent has no owner's memory to inherit read-only.
        raise NotFound("task_not_found", details={"field": "parent_task"})
    if parent is not None:
        # A subagent sees its parent's consent, read-only, narrowed by the
        # owner's now; its parent's team scopes while the owner is a member.
        member = teams.current(tx, owner)
        scopes = tuple(s for s in parent.scopes if not is_team_scope("memory", s) or s in member)
        consent = Consent(parent.consent.read and consent.read,
                          parent.consent.contribute and consent.contribute,
                          parent.consent.learn_from_tools and consent.learn_from_tools)
        parent_has_read = "memory.read" in parent.grants
    else:
        parent_has_read = None
        if p.scopes:
            scopes = tuple(dict.fromkeys(p.scopes))
        elif p.workspace:
            scopes = (hasher.workspace(os.path.realpath(p.workspace)),)
        elif token_scopes:
            scopes = token_scopes
        else:
            scopes = ("default",)
        if token_scopes is not None and not set(scopes) <= set(token_scopes):
            raise Denied("scope_mismatch", details={"reason": "token_scopes"})
        # A write without a scope goes to the first: its own scan never reads
        # the name, which every audit event of the write names. A name the
        # scanner refuses is refused here, where it enters (a parent's passed).
        # Imported here: the scanner loads after the start (daemon/cli.py).
        from memoryd.kernel.scan import check_scopes

        check_scopes(*scopes)
        # Team scopes need membership now; the task keeps them (frozen) even
        # if the owner is removed later. A subagent inherits its parent's.
        teams.check_task_scopes(tx, owner, scopes)
    grants = grants_for(consent, role, parent_has_read=parent_has_read, tools_used=p.tools_used)
    task = Task(
        task_id=random_id("tsk"),
        owner=owner,
        peer_uid=peer_uid,
        channel=channel,
        role=role,
        parent_task=parent.task_id if parent else None,
        scopes=scopes,
        user_scope=user_scope(owner),
        consent=consent,
        grants=frozenset(grants),
        tools_used=p.tools_used,
        # Never past its parent's end: a chain of subagents cannot stretch
        # the root's lifetime.
        expires_at=min([fmt(plus(now_dt, hours=ttl_hours)),
                        *([parent.expires_at] if parent is not None else [])]),
        snapshot=None,
        token_id=token_id,
    )
    tx.exec(
        "INSERT INTO tasks(task_id, owner, peer_uid, channel, role, parent_task, scopes,"
        " user_scope, consent, grants, tools_used, token_id, created_at, expires_at)"
        " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        (
            task.task_id, owner, peer_uid, channel, role, task.parent_task, dumps(scopes),
            task.user_scope,
            dumps([consent.read, consent.contribute, consent.learn_from_tools]),
            dumps(sorted(grants)), int(p.tools_used), token_id, now, task.expires_at,
        ),
    )
    return task


def lookup(tx: Tx, task_id: str, *, channel: str, peer_uid: int, now: str) -> Task:
    row = tx.one("SELECT * FROM tasks WHERE task_id = ?", (task_id,))
    if (
        row is None
        or row["ended_at"] is not None
        or row["expires_at"] <= now
        or row["peer_uid"] != peer_uid
        or row["channel"] != channel
    ):
        raise NotFound("task_not_found")
    task = _from_row(row)
    return task if task.parent_task is None else _bounded(tx, task, now)


def _from_row(row: Any) -> Task:
    c = loads(row["consent"])
    return Task(
        task_id=row["task_id"],
        owner=row["owner"],
        peer_uid=row["peer_uid"],
        channel=row["channel"],
        role=row["role"],
        parent_task=row["parent_task"],
        scopes=tuple(loads(row["scopes"])),
        user_scope=row["user_scope"],
        consent=Consent(bool(c[0]), bool(c[1]), bool(c[2])),
        grants=frozenset(loads(row["grants"])),
        tools_used=bool(row["tools_used"]),
        expires_at=row["expires_at"],
        snapshot=loads(row["snapshot"]),
        token_id=row["token_id"],
    )


def refresh(tx: Tx, known: Task, now: str) -> Task:
    """``known``, a task this connection resolved before, as it stands ``now``.

    Only what can change after begin is read again: whether it has ended or
    passed its lifetime (``task_not_found`` as from ``lookup``) and its
    snapshot. Owner, role, scopes, frozen consent and grants never change, so
    they are not decoded again.

    A subagent is looked up again whole: what bounds it (its chain, the
    owner's consent and memberships) is read on every call.
    """
    if known.parent_task is not None:
        return lookup(tx, known.task_id, channel=known.channel, peer_uid=known.peer_uid,
                      now=now)
    row = tx.one("SELECT ended_at, snapshot FROM tasks WHERE task_id = ?", (known.task_id,))
    if row is None or row["ended_at"] is not None or known.expires_at <= now:
        raise NotFound("task_not_found")
    if row["snapshot"] is None and known.snapshot is None:
        return known
    return replace(known, snapshot=loads(row["snapshot"]))


def _bounded(tx: Tx, task: Task, now: str) -> Task:
    """Subagent ``task`` as its chain's live state allows ``now``.

    Every task above it must still be open and within its lifetime, else
    ``task_not_found``. Its consent is its frozen one narrowed by the owner's
    consent now (a withdrawal reaches it; a later grant never widens it past
    the root's), its grants follow, and a team scope stays one of its
    namespaces only while the owner is still a member of the team.
    """
    parent_id = task.parent_task
    while parent_id is not None:
        row = tx.one("SELECT parent_task, ended_at, expires_at FROM tasks WHERE task_id = ?",
                     (parent_id,))
        if row is None or row["ended_at"] is not None or row["expires_at"] <= now:
            raise NotFound("task_not_found")
        parent_id = row["parent_task"]
    given = read_consent(tx, task.owner).consent
    consent = Consent(task.consent.read and given.read,
                      task.consent.contribute and given.contribute,
                      task.consent.learn_from_tools and given.learn_from_tools)
    grants = task.grants & grants_for(consent, task.role, parent_has_read=True,
                                      tools_used=task.tools_used)
    scopes = task.scopes
    if any(is_team_scope("memory", s) for s in scopes):
        member = teams.current(tx, task.owner)
        scopes = tuple(s for s in scopes if not is_team_scope("memory", s) or s in member)
    if (consent, grants, scopes) == (task.consent, task.grants, task.scopes):
        return task
    return replace(task, consent=consent, grants=frozenset(grants), scopes=scopes)


def end(tx: Tx, task: Task, now: str) -> schema.TaskEnded:
    tx.exec("UPDATE tasks SET ended_at = ?, snapshot = NULL WHERE task_id = ?", (now, task.task_id))
    return schema.TaskEnded(task_id=task.task_id, ended=True)


def used_tools(tx: Tx, task_id: str) -> bool:
    """Whether task ``task_id`` was begun with ``tools_used`` (it used
    external tools), whether or not it has ended. A task whose row cannot be
    found counts as one that did: what it saw cannot be vouched for, so it
    is held to the stricter consent (fail closed)."""
    row = tx.one("SELECT tools_used FROM tasks WHERE task_id = ?", (task_id,))
    return row is None or bool(row["tools_used"])


def token_revoked(tx: Tx, task_id: str) -> bool:
    """Whether the token task ``task_id`` was begun with has been revoked
    since (a task begun without a token: no). An expired token is not
    revoked: it was good for what it handed in before it lapsed."""
    row = tx.one("SELECT k.revoked_at FROM tasks AS t JOIN tokens AS k"
                 " ON k.token_id = t.token_id WHERE t.task_id = ?", (task_id,))
    return row is not None and row["revoked_at"] is not None
