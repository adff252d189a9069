"""Entries as stored and as shown: row ↔ wire conversion, content hashing, reads.

Owns: the derived fields of an entry (summary from body, ``expires_at``,
``applicability``, ``expired``), the keyed content hash of an entry's text,
and loading entries for a caller's namespaces.

Invariants:
- an entry is visible to a caller only through its owner id and, on the agent
  channel, only inside the task's namespaces; anything else is ``not_found``;
- a removed entry has no title, summary or body anywhere in its row.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from memoryd.audit.keyed import KeyedHasher
from memoryd.daemon.store import Tx, loads
from memoryd.kernel.scan import RULES, redact
from memoryd.kernel.teams import is_team_scope
from memoryd.rpc import schema

SUMMARY_CHARS = 200
# Redaction replaces secret findings only, so only the secret rules need to
# run: the same output for about half the scanning.
_SECRET_RULES = tuple(r for r in RULES if r.category == "secret")


def redact_secrets(text: str) -> str:
    """``text`` with credentials redacted by the scanner's secret rules (shown text)."""
    return redact(text, _SECRET_RULES)


def derive_summary(body: str) -> str:
    first = body.strip().splitlines()[0] if body.strip() else ""
    return first if len(first) <= SUMMARY_CHARS else first[: SUMMARY_CHARS - 1] + "…"


def content_hash(hasher: KeyedHasher, type_: str, title: str, summary: str, body: str) -> str:
    return hasher.content_of(type_, title, summary, body)


def applicability(validity: dict[str, Any] | None, now: str) -> str:
    if not validity:
        return "unrecorded"
    until = validity.get("until")
    if isinstance(until, str) and until <= now:
        return "expired"
    return "recheck"


def to_wire(row: dict[str, Any], now: str) -> schema.Entry:
    validity = loads(row["validity"])
    return schema.Entry(
        id=row["id"],
        target=row["target"],
        scope=row["scope"],
        type=row["type"],
        title=row["title"],
        body=row["body"],
        summary=row["summary"],
        status=row["status"],
        revision=row["revision"],
        source=row["source"],
        basis=loads(row["basis"]),
        validity=validity,
        pinned=bool(row["pinned"]),
        created_at=row["created_at"],
        updated_at=row["updated_at"],
        renewed_at=row["renewed_at"],
        ttl_days=row["ttl_days"],
        expires_at=row["expires_at"],
        use_count=row["use_count"],
        last_used_at=row["last_used_at"],
        superseded_by=row["superseded_by"],
        content_hash=row["content_hash"],
        applicability=applicability(validity, now),
        expired=row["status"] == "expired"
        or (row["status"] == "active" and row["expires_at"] <= now),
    )


@dataclass(frozen=True, slots=True)
class View:
    """What a caller may see: one owner's rows, and the rows of the team
    scopes it may use (held by the team, daemon/teams.py); on the agent
    channel only the task's namespaces of either."""

    owner: str
    # None: every scope of the owner (control channel). Otherwise (target, scope) pairs.
    namespaces: frozenset[tuple[str, str]] | None
    # Team scopes this caller may use: a task's, frozen at task.begin; on the
    # control channel the owner's current memberships. No others, ever.
    teams: frozenset[str] = frozenset()

    def allows(self, target: str, scope: str) -> bool:
        if is_team_scope(target, scope) and scope not in self.teams:
            return False
        return self.namespaces is None or (target, scope) in self.namespaces

    def holder(self, target: str, scope: str) -> str:
        """The ``owner`` column of rows in a namespace: a team scope's rows
        are the team's (its scope string), every other one the owner's."""
        return scope if is_team_scope(target, scope) else self.owner

    def holds(self, row: dict[str, Any]) -> bool:
        """Whether the stored ``row`` is one this view sees."""
        target, scope = row["target"], row["scope"]
        if row["owner"] == self.owner:
            # Personal rows only (a scope named ``team:…`` before teams
            # existed stays its writer's, reachable on control alone).
            return self.namespaces is None or (
                (target, scope) in self.namespaces and not is_team_scope(target, scope))
        return (row["owner"] == scope and is_team_scope(target, scope)
                and scope in self.teams and self.allows(target, scope))

    def team_spaces(self) -> list[tuple[str, str]]:
        """The team namespaces this view reads, in a stable order."""
        return sorted(("memory", t) for t in self.teams if self.allows("memory", t))

    def rows(self, alias: str = "") -> tuple[str, list[Any]]:
        """An SQL condition (and its arguments) true exactly for the rows
        ``holds`` admits; ``alias`` prefixes the column names (``"e."``).
        Without teams it is the owner filter alone, as it always was."""
        a = alias
        if self.namespaces is None:
            personal, args = f"{a}owner = ?", [self.owner]
        else:
            mine = sorted(ns for ns in self.namespaces if not is_team_scope(*ns))
            personal = (f"({a}owner = ? AND ("
                        + " OR ".join(f"({a}target = ? AND {a}scope = ?)" for _ in mine) + "))"
                        if mine else "1 = 0")  # portable false (PostgreSQL has no 0)
            args = [self.owner, *(x for pair in mine for x in pair)] if mine else []
        shared = self.team_spaces()
        if not shared:
            return personal, args
        teams = " OR ".join(f"({a}owner = ? AND {a}target = 'memory' AND {a}scope = ?)"
                            for _ in shared)
        return f"({personal} OR {teams})", [*args, *(x for _, s in shared for x in (s, s))]


def load(tx: Tx, view: View, entry_id: str) -> dict[str, Any] | None:
    row = tx.one("SELECT * FROM entries WHERE id = ?", (entry_id,))
    if row is None or not view.holds(row):
        return None
    return row


