"""Entry rows: the one module that reads and writes ``entries`` and ``revisions``.

Owns: the derived fields of an entry (summary from body, ``expires_at``,
``applicability``, ``expired``), the keyed content hash of an entry's text,
loading entries for a caller's namespaces, and every change to an entry row:
``insert``, ``update``, ``destroy``, with the checks that
guard them (``at_revision``, ``check_title``, ``active_bytes``,
``check_budget``). The write path (daemon/pipeline/writes.py), undo and retention
(daemon/pipeline/lifecycle.py) change entries only through these functions.

Invariants:
- an entry is visible to a caller only through its owner id and, on the agent
  channel, only inside the task's namespaces; anything else is ``not_found``;
- a removed entry has no title, summary or body anywhere in its row, its
  revisions or a pending proposal about it;
- an entry's text is stored once, and a value the row can derive is not
  stored: on SQLite a summary equal to the body, the default basis and a time
  equal to the one it follows are kept as NULL, the content hash as its 32
  bytes (the store's ``Tx.stored_entry``), and every reader sees the
  generated columns (``summary``, ``basis``, ``updated_at``, ``renewed_at``,
  ``status_at``, ``content_hash``) with the values written;
- ``check_title`` and ``at_revision`` name a stored id, revision or status,
  and ``budget_exceeded`` a namespace's bytes, only to a caller that may read
  it (``reveal``).
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from msgspec import UNSET

from memoryd.audit.keyed import KeyedHasher
from memoryd.daemon.clock import fmt, plus
from memoryd.daemon.ids import entry_id as new_entry_id
from memoryd.daemon.retrieval.search import namespaces_in
from memoryd.daemon.storage.store import Tx, dumps, loads
from memoryd.kernel.errors import Conflict, LimitExceeded, NotFound
from memoryd.kernel.retention import NEVER_EXPIRES, default_ttl_days
from memoryd.kernel.teams import is_team_scope
from memoryd.rpc import schema

SUMMARY_CHARS = 200
def redact_secrets(text: str) -> str:
    """``text`` with credentials redacted by the scanner's secret rules (shown
    text): redaction replaces secret findings only, so only they need to run."""
    # Imported here: the scanner loads after the start (daemon/cli.py).
    from memoryd.kernel.scan import SECRET_RULES, redact

    return redact(text, SECRET_RULES)


def derive_summary(body: str) -> str:
    first = body.strip().splitlines()[0] if body.strip() else ""
    return first if len(first) <= SUMMARY_CHARS else first[: SUMMARY_CHARS - 1] + "…"


def content_hash(hasher: KeyedHasher, type_: str, title: str, summary: str, body: str) -> str:
    return hasher.content_of(type_, title, summary, body)


@functools.lru_cache(maxsize=1024)
def _moment(text: str) -> datetime | None:
    """The moment an RFC 3339 ``text`` names, its offset kept; None for text
    that names none (a value stored before the write path checked it)."""
    try:
        moment = datetime.fromisoformat(text.replace("z", "Z").replace("t", "T"))
    except ValueError:
        return None
    return moment if moment.tzinfo is not None else None


# An observed time as its writer gives it: an ISO 8601 calendar date, or a
# date-time with an optional offset.
_OBSERVED = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}"
                       r"(?:[Tt ][0-9]{2}:[0-9]{2}(?::[0-9]{2}(?:\.[0-9]{1,6})?)?"
                       r"(?:[Zz]|[+-][0-9]{2}:?[0-9]{2})?)?")


def is_observed_time(text: str) -> bool:
    """True for an ISO 8601 date (``2025-03-08``) or date-time
    (``2025-03-08T14:05:00Z``, an offset optional) naming a real day and time."""
    if _OBSERVED.fullmatch(text) is None:
        return False
    try:
        datetime.fromisoformat(text.replace("z", "Z").replace("t", "T"))
    except ValueError:
        return False
    return True


def applicability(validity: dict[str, Any] | None, now: str) -> str:
    if not validity:
        return "unrecorded"
    until = validity.get("until")
    if isinstance(until, str):
        # Compared as moments: as text, an offset other than ``Z`` (or a
        # lower-case ``t``/``z``, or no fraction) moved the end by up to a day.
        # Aware datetimes compare without converting, so an offset past year
        # 9999 or before year 1 in UTC compares too.
        end, at = _moment(until), _moment(now)
        lapsed = end <= at if end is not None and at is not None else until <= now
        if lapsed:
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
        context=row.get("context"),
        observed_at=row.get("observed_at"),
    )


@dataclass(frozen=True, slots=True)
class View:
    """What a caller may see: one owner's rows, and the rows of the team
    scopes it may use (held by the team, daemon/access/teams.py); on the agent
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
            within, spaces = namespaces_in([ns for ns in self.namespaces
                                            if not is_team_scope(*ns)], a)
            personal = (f"({a}owner = ? AND {within})"
                        if spaces else "1 = 0")  # portable false (PostgreSQL has no 0)
            args = [self.owner, *spaces] if spaces else []
        shared = self.team_spaces()
        if not shared:
            return personal, args
        teams = " OR ".join(f"({a}owner = ? AND {a}target = 'memory' AND {a}scope = ?)"
                            for _ in shared)
        return f"({personal} OR {teams})", [*args, *(x for _, s in shared for x in (s, s))]


def load(tx: Tx, view: View, entry_id: str) -> dict[str, Any] | None:
    """The row ``entry_id`` if ``view`` holds it, else None. The view is a
    filter of the query itself: a row another owner holds is never fetched,
    so it costs what an id that does not exist costs (nothing tells them
    apart, not even the time the answer takes)."""
    where, args = view.rows()
    row = tx.one("SELECT * FROM entries WHERE id = ? AND " + where,  # noqa: S608 (placeholders only)
                 (entry_id, *args))
    if row is None or not view.holds(row):
        return None
    return row


def load_many(tx: Tx, view: View, entry_ids: Sequence[str]) -> dict[str, dict[str, Any]]:
    """``load`` of each of ``entry_ids`` in one statement: the rows ``view``
    holds, by id (an id it does not hold is absent, as ``load`` gives None).
    The view filters the query itself, as ``load``'s does.

    The ids are looked up first, by their unique index, and the view's
    filter is applied to those rows: written as one WHERE, SQLite's planner
    prefers the owner's index and walks every entry of the owner. A
    subquery with a LIMIT is never flattened into a query with a WHERE,
    so it keeps the id look-ups (an id is unique: the limit cuts nothing)."""
    if not entry_ids:
        return {}
    where, args = view.rows()
    marks = ", ".join("?" * len(entry_ids))
    found = tx.all(f"SELECT * FROM (SELECT * FROM entries WHERE id IN ({marks})"  # noqa: S608 (placeholders only)
                   f" LIMIT {len(entry_ids)}) AS e WHERE " + where, (*entry_ids, *args))
    return {row["id"]: row for row in found if view.holds(row)}




def stored_type(tx: Tx, view: View, entry_id: str, target: str, scope: str) -> str | None:
    """The type of the entry ``entry_id`` as an op in ``(target, scope)``
    would find it (``at_revision``'s row), or None when it would find none.
    Read for the op's decision: a rule on ``type`` holds for the entry an
    op changes, not only for the content it writes."""
    row = tx.one("SELECT owner, target, scope, type, status FROM entries WHERE id = ?",
                 (entry_id,))
    if (row is None or not view.holds(row) or row["status"] == "removed"
            or (row["target"], row["scope"]) != (target, scope)):
        return None
    found: str = row["type"]
    return found


# --- changing rows -------------------------------------------------------------------


def at_revision(tx: Tx, view: View, entry_id: str, target: str, scope: str,
                expected_revision: int | None, *, conflict_code: str, removing: bool,
                reveal: bool = True) -> dict[str, Any]:
    """The entry a change names, at the revision it expects. ``reveal``: may
    the caller read (a task without ``read`` learns no revision or status)."""
    row = load(tx, view, entry_id)
    if row is None or row["target"] != target or row["scope"] != scope:
        raise NotFound("not_found")
    if row["status"] == "removed":
        raise NotFound("not_found")
    if row["revision"] != expected_revision:
        raise Conflict.of(conflict_code, details={"current_revision": row["revision"]}
                          if reveal else None)
    if not removing and row["status"] != "active":
        raise Conflict.of(conflict_code, details={"current_revision": row["revision"],
                                                  "status": row["status"]} if reveal else None)
    return row


def titled(tx: Tx, owner: str, target: str, scope: str, title: str) -> dict[str, Any] | None:
    """The id and revision of the active entry that holds ``title`` in one
    namespace, or None (titles are unique among a namespace's active entries)."""
    return tx.one("SELECT id, revision FROM entries WHERE owner = ? AND target = ?"
                  " AND scope = ? AND title = ? AND status = 'active'",
                  (owner, target, scope, title))


def check_title(tx: Tx, owner: str, target: str, scope: str, title: str,
                except_id: str | None, *, reveal: bool = True) -> None:
    """Refuse a second active entry with ``title`` in one namespace."""
    row = titled(tx, owner, target, scope, title)
    if row is not None and row["id"] != except_id:
        # The holder's id is stored state: only a caller that may read gets it.
        raise Conflict("duplicate_title", details={"entry_id": row["id"]} if reveal else None)


def active_bytes(tx: Tx, owner: str, target: str, scope: str) -> int:
    """Bytes the namespace's active entries hold (kept by store triggers, scope_usage)."""
    row = tx.one("SELECT active_bytes AS n FROM scope_usage"
                 " WHERE owner = ? AND target = ? AND scope = ?", (owner, target, scope))
    return int(row["n"]) if row else 0


def check_budget(tx: Tx, owner: str, target: str, scope: str, extra: int,
                 budget_bytes: int) -> None:
    """Refuse ``extra`` bytes more in a namespace that would then exceed its budget."""
    used = active_bytes(tx, owner, target, scope)
    if used + extra > budget_bytes:
        raise budget_exceeded(used, extra, budget_bytes)


def budget_exceeded(used: int, needed: int, budget_bytes: int, *,
                    reveal: bool = True) -> LimitExceeded:
    """``scope_budget_exceeded`` for a change needing ``needed`` bytes more in
    a namespace holding ``used``. ``reveal``: may the caller read it (else
    both figures are withheld: they are the namespace's size and, for a
    change to stored entries, theirs; the cap and its limit stay)."""
    usage = ({"used_bytes": used, "budget_bytes": budget_bytes, "needed_bytes": needed}
             if reveal else {"budget_bytes": budget_bytes})
    return LimitExceeded.cap("scope_budget_exceeded", "scope_budget_bytes", budget_bytes,
                             **usage)


@dataclass(frozen=True, slots=True)
class Provenance:
    """Where a new entry's content came from (set by the daemon, SPEC §7)."""

    source: str
    eligible: bool
    evidence_hash: str | None = None
    # The writing task's episode (daemon/retrieval/episodes.py): a keyed
    # hash of its id, for an agent's write in a task; None otherwise.
    episode: str | None = None
    # When the task proposed it, for an entry a later approval applies (its
    # place in the episode is where the task wrote it); None: as written.
    proposed_at: str | None = None


def expiry(now_dt: datetime, ttl_days: float, pinned: bool | int) -> str:
    """``expires_at`` for an entry renewed at ``now_dt``: ``ttl_days`` later,
    or never (``NEVER_EXPIRES``) for a pinned entry (docs/decisions/0341)."""
    return NEVER_EXPIRES if pinned else fmt(plus(now_dt, days=ttl_days))


def insert(tx: Tx, owner: str, target: str, scope: str, entry: dict[str, Any],
           content_hash_: str | None, provenance: Provenance, now_dt: datetime,
           entry_id: str | None = None) -> dict[str, Any]:
    """Store a new active entry (revision 1); returns the row.

    ``entry`` is the write path's normalised content (``msgspec.UNSET`` marks
    a field the caller left out); ``entry_id`` its id when the caller drew
    it (``new_ids``), else a new one."""
    now = fmt(now_dt)
    ttl = entry["ttl_days"] or default_ttl_days(entry["type"])
    basis = (entry["basis"] if entry["basis"] not in (UNSET, None)
             else {"kind": "unknown", "note": ""})
    validity = entry["validity"] if entry["validity"] is not UNSET else None
    row = {
        "id": entry_id or new_entry_id(now_dt), "owner": owner, "target": target, "scope": scope,
        "type": entry["type"], "title": entry["title"], "body": entry["body"],
        "summary": entry["summary"], "status": "active", "revision": 1,
        "source": provenance.source, "eligible": int(provenance.eligible),
        "basis": dumps(basis), "validity": dumps(validity) if validity else None,
        "pinned": int(entry["pinned"]), "created_at": now, "updated_at": now,
        "renewed_at": now, "ttl_days": float(ttl),
        "expires_at": expiry(now_dt, ttl, entry["pinned"]),
        "use_count": 0, "last_used_at": None, "superseded_by": None,
        "content_hash": content_hash_, "evidence_hash": provenance.evidence_hash,
        "archive_reason": None, "status_at": now,
        "context": _given(entry.get("context", UNSET)),
        "observed_at": _given(entry.get("observed_at", UNSET)),
        "episode": provenance.episode,
        "proposed_at": provenance.proposed_at if provenance.episode else None,
    }
    stored = tx.stored_entry(row)
    tx.exec(_insert_sql(tuple(stored)), tuple(stored.values()))
    return row


def new_ids(n: int, now_dt: datetime) -> Iterator[str]:
    """``n`` new entry ids for one write's new entries, in ascending order:
    entries written by one call at one moment list (and follow one another,
    daemon/retrieval/episodes.py) in the order of the call's ops."""
    return iter(sorted(new_entry_id(now_dt) for _ in range(n)))


def _given(value: Any) -> Any:
    """A field's value as stored: None for one left out (UNSET)."""
    return None if value is UNSET else value


@functools.cache
def _insert_sql(columns: tuple[str, ...]) -> str:
    """``insert``'s statement for these columns, made once per backend's set."""
    return (f"INSERT INTO entries({', '.join(columns)})"  # noqa: S608 (column names are ours)
            f" VALUES ({', '.join('?' * len(columns))})")


def update(tx: Tx, entry_id: str, **changes: Any) -> dict[str, Any]:
    """Set columns of one entry; returns the row after."""
    changes = tx.stored_entry(changes, entry_id)
    sets = ", ".join(f"{k} = ?" for k in changes)
    tx.exec(f"UPDATE entries SET {sets} WHERE id = ?",  # noqa: S608 (column names are ours)
            (*changes.values(), entry_id))
    row = tx.one("SELECT * FROM entries WHERE id = ?", (entry_id,))
    assert row is not None
    return row


def destroy(tx: Tx, entry_id: str, now: str) -> dict[str, Any]:
    """Destroy an entry's text everywhere the daemon keeps it; keep id, hashes, times."""
    row = tx.one("SELECT revision FROM entries WHERE id = ?", (entry_id,))
    assert row is not None
    tx.exec("UPDATE revisions SET type = NULL, title = NULL, body = NULL, summary = NULL,"
            " basis = NULL, validity = NULL, context = NULL, observed_at = NULL"
            " WHERE entry_id = ?", (entry_id,))
    # Pending proposals that would change this entry carry text about it: they
    # can never apply now, so they fail and drop their proposals.
    for action in tx.all("SELECT action_id, entry_ids FROM actions WHERE status = 'pending'"):
        if entry_id in loads(action["entry_ids"]):
            tx.exec("UPDATE actions SET status = 'failed', proposal = NULL, decided_at = ?"
                    " WHERE action_id = ?", (now, action["action_id"]))
    return update(tx, entry_id, title="", body="", summary="", basis=dumps({"kind": "unknown"}),
                  validity=None, context=None, observed_at=None, archive_reason=None,
                  status="removed",
                  revision=row["revision"] + 1, updated_at=now, status_at=now,
                  evidence_hash=None)


def promote(tx: Tx, entry_id: str) -> None:
    """The operator vouches for an entry: it becomes the user's, eligible for recall."""
    tx.exec("UPDATE entries SET source = 'user', eligible = 1, evidence_hash = NULL"
            " WHERE id = ?", (entry_id,))


def note_use(tx: Tx, entry_ids: list[str], now: str) -> None:
    """Count a recall of ``entry_ids``: use, not renewal (expiry and
    ``updated_at`` stay, and no new revision is made)."""
    if not entry_ids:
        return
    marks = ",".join("?" * len(entry_ids))
    tx.exec(f"UPDATE entries SET use_count = use_count + 1, last_used_at = ?"  # noqa: S608 (placeholders only)
            f" WHERE id IN ({marks})", (now, *entry_ids))
