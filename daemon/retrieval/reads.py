"""Read methods: ``memory.read``, ``memory.list`` (list and search modes),
``memory.receipt``, ``memory.status``, receipts after removal, and audit export.

Owns: what a caller may see and in what shape. Listing cursors are opaque,
sealed under a key derived from the per-home secret (daemon/retrieval/cursors.py), and
bound to the owner, the exact filters and this daemon run; anything else is
``cursor_invalid``, never page one.

Invariants:
- every read goes through a ``View``: one owner, and on the agent channel only
  the task's namespaces;
- ``memory.status`` holds no path, credential or memory text.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import msgspec

from memoryd.audit.chain import from_stored
from memoryd.audit.keyed import KeyedHasher
from memoryd.audit.packing import first_needed, unpack_rows
from memoryd.daemon.pipeline.entries import (
    View,
    is_observed_time,
    load_many,
    redact_secrets,
    to_wire,
)
from memoryd.daemon.pipeline.writes import receipt_wire
from memoryd.daemon.retrieval import postings, search
from memoryd.daemon.retrieval.cursors import Cursor, seal, unseal
from memoryd.daemon.storage.store import Tx, loads
from memoryd.kernel.errors import CursorError, NotFound
from memoryd.kernel.retention import ENTRY_STATUSES, EntryStatus
from memoryd.kernel.teams import is_team_scope
from memoryd.rpc import schema
from memoryd.rpc.errors import InvalidParams

if TYPE_CHECKING:
    from memoryd.daemon.access.identity import Who
    from memoryd.daemon.access.tasks import Task
    from memoryd.daemon.external.projection import Projection
    from memoryd.daemon.semantic.hybrid import Ranker
    from memoryd.daemon.storage.store import Store
    from memoryd.kernel.policy import Policy

_canonical = msgspec.json.Encoder(order="sorted")
_decode = msgspec.json.Decoder()
_ENTRY_ID = re.compile(r"ent_[0-9A-HJKMNP-TV-Z]{26}")
STATUSES = ENTRY_STATUSES


def wire(row: dict[str, Any], now: str) -> schema.Entry:
    return to_wire(row, now)


def read(tx: Tx, view: View, ids: list[str], include_pending: bool, now: str,
         allow: Callable[[str, str, int], None],
         readable: Callable[[str, str], bool] = lambda _t, _s: True) -> schema.ReadResult:
    """The entries ``ids``; ``allow(target, scope, index)`` raises unless the
    gate lets this caller read that namespace, and ``readable(target,
    scope)`` says whether it may (a pending proposal's ops elsewhere)."""
    entries = []
    # One statement for every id; each is then answered in the order asked.
    asked = list(dict.fromkeys(ids))
    rows = load_many(tx, view, asked)
    for entry_id in asked:
        row = rows.get(entry_id)
        if row is None:
            # Name the missing id only when it has the shape of an id we issue:
            # anything else is client text, and errors never echo client text.
            details: dict[str, Any] = {"index": ids.index(entry_id)}
            if _ENTRY_ID.fullmatch(entry_id):
                details["entry_id"] = entry_id
            raise NotFound("not_found", details=details)
        allow(row["target"], row["scope"], ids.index(entry_id))
        entries.append(to_wire(row, now))
    out = schema.ReadResult(entries=entries)
    if include_pending:
        pending = []
        wanted = {e.id for e in entries}
        for row in tx.all("SELECT action_id, entry_ids, ops_summary, created_at, expires_at"
                          " FROM actions WHERE owner = ? AND status = 'pending'"
                          " AND expires_at > ?", (view.owner, now)):
            touched = set(loads(row["entry_ids"])) & wanted
            if touched:
                # A batch may hold ops in namespaces this caller does not
                # see (another task's scopes) or may not read (a policy
                # rule): those are left out.
                pending.append(schema.PendingOut(
                    action_id=row["action_id"], entry_ids=sorted(touched),
                    created_at=row["created_at"], expires_at=row["expires_at"],
                    ops_summary=[o for o in loads(row["ops_summary"])
                                 if view.allows(o["target"], o["scope"])
                                 and readable(o["target"], o["scope"])]))
        out.pending = pending
    return out


# --- listing -------------------------------------------------------------------


def list_entries(tx: Tx, hasher: KeyedHasher, boot_id: str, view: View, p: schema.MemoryList,
                 now: str, ranker: Ranker | None = None) -> schema.ListPage:
    filters_given = any(v is not None for v in (p.target, p.scope, p.query, p.mode, p.statuses,
                                                 p.types, p.page_size, p.observed_after,
                                                 p.observed_before))
    if p.cursor is not None:
        if filters_given:
            raise CursorError("cursor_mixed_with_filters")
        cur = unseal(hasher, p.cursor)
        if cur.owner != view.owner or cur.boot != boot_id:
            raise CursorError("cursor_invalid")
        try:
            sealed = msgspec.json.decode(cur.filters, type=schema.MemoryList)
        except msgspec.DecodeError:
            raise CursorError("cursor_invalid") from None
        # The task id and identity in the filters must match the caller's view.
        if sealed.task_id != p.task_id or sealed.identity != p.identity:
            raise CursorError("cursor_invalid")
        p = sealed
        after = (cur.after_title, cur.after_id)
        after_score = cur.after_score
    else:
        after = None
        after_score = None
    filters = msgspec.structs.replace(p, cursor=None)
    filters_text = _canonical.encode(filters).decode()
    statuses: list[str] = list(p.statuses or [EntryStatus.ACTIVE])
    mode = p.mode or ("search" if p.query is not None else "list")
    if mode == "search" and not (p.query or "").strip():
        raise InvalidParams([{"path": "$.query", "expected": "non-empty str (search mode)"}])
    if mode == "list" and p.query is not None:
        raise InvalidParams([{"path": "$.query", "expected": "absent in list mode"}])
    page_size = p.page_size or (SEARCH_PAGE if mode == "search" else 20)
    seen, seen_args = view.rows()
    clauses = [seen]
    args: list[Any] = seen_args
    if p.target is not None:
        clauses.append("target = ?")
        args.append(p.target)
    if p.scope is not None:
        clauses.append("scope = ?")
        args.append(p.scope)
    status_sql = []
    for status in statuses:
        if status == "active":
            # An entry past expires_at leaves the default view at once. The
            # unary plus keeps the planner off entries_expiry (it would fetch
            # every active entry and sort them all) and on entries_listing,
            # which yields rows in page order and holds every filter column.
            status_sql.append("(+status = 'active' AND expires_at > ?)")
            args.append(now)
        elif status == "expired":
            status_sql.append("(status = 'expired' OR (status = 'active' AND expires_at <= ?))")
            args.append(now)
        else:
            status_sql.append("status = ?")
            args.append(status)
    clauses.append("(" + " OR ".join(status_sql) + ")")
    if p.types:
        clauses.append("type IN (" + ",".join("?" * len(p.types)) + ")")
        args.extend(p.types)
    for name, bound, op in (("observed_after", p.observed_after, ">="),
                            ("observed_before", p.observed_before, "<")):
        if bound is None:
            continue
        if not is_observed_time(bound):
            raise InvalidParams([{"path": f"$.{name}", "expected": "ISO 8601 date or date-time"}])
        clauses.append(f"observed_at {op} ?")
        args.append(bound)
    scopes = (sorted({f"{t}/{s}" for t, s in view.namespaces}) if view.namespaces
              else ["*", *(f"{t}/{s}" for t, s in view.team_spaces())])
    if mode == "search":
        assert p.query is not None
        return _search_page(tx, hasher, boot_id, view, p.query, " AND ".join(clauses),
                            tuple(args), page_size, filters_text, statuses, scopes,
                            None if after is None or after_score is None
                            else (after_score, after[1]), now, ranker,
                            _totalled_spaces(tx, view, p, statuses))
    if after is not None:
        # A row value: the next page starts with an index seek, not a walk.
        clauses.append("(title, id) > (?, ?)")
        args.extend([after[0], after[1]])
    sql = ("SELECT * FROM entries WHERE " + " AND ".join(clauses)  # noqa: S608 (no client text in SQL)
           + " ORDER BY title, id LIMIT ?")
    rows = tx.all(sql, (*args, page_size + 1))
    more = len(rows) > page_size
    rows = rows[:page_size]
    items = [_item(r, now) for r in rows]
    next_cursor = None
    if more:
        last = rows[-1]
        next_cursor = seal(hasher, Cursor(view.owner, filters_text, boot_id,
                                            last["title"], last["id"]))
    return schema.ListPage(
        items=items, mode="list", next_cursor=next_cursor,
        coverage=schema.ListCoverage(scopes=scopes, statuses=statuses, exhausted=not more,
                                     complete=True, warnings=[]))


def _totalled_spaces(tx: Tx, view: View, p: schema.MemoryList,
                     statuses: list[str]) -> list[tuple[str, str]] | None:
    """The namespaces whose running totals (``search.view_stats``) are BM25's
    statistics of this search's filter, or None when they are not and the
    filter's rows are scanned.

    They are when the filter admits exactly the owner's active, unexpired
    entries of whole namespaces: the default statuses, no type filter, and
    no team scope (a team's rows have another holder). ``target`` and
    ``scope`` only narrow the namespaces. On the control channel the owner's
    namespaces are the ones its totals name (a row per namespace that ever
    held an active entry); their ``owner`` column is the view's alone.
    """
    if (set(statuses) != {EntryStatus.ACTIVE} or p.types or view.team_spaces()
            or p.observed_after is not None or p.observed_before is not None):
        return None
    if view.namespaces is not None:
        # As ``View.rows``: a personal row in a team-named scope is not seen.
        spaces = [ns for ns in view.namespaces if not is_team_scope(*ns)]
    else:
        spaces = [(r["target"], r["scope"]) for r in tx.all(
            "SELECT target, scope FROM scope_usage WHERE owner = ?", (view.owner,))]
    return sorted(ns for ns in spaces if (p.target is None or ns[0] == p.target)
                  and (p.scope is None or ns[1] == p.scope))


SEARCH_PAGE = 8
# Candidates each ranker contributes before fusion in search mode: pages
# beyond them end the listing (``exhausted``).
HYBRID_CANDIDATES = 200


def _search_page(tx: Tx, hasher: KeyedHasher, boot_id: str, view: View, query: str,
                 where: str, args: tuple[Any, ...], page_size: int, filters_text: str,
                 statuses: list[str], scopes: list[str], after: tuple[float, str] | None,
                 now: str, ranker: Ranker | None = None,
                 totalled: list[tuple[str, str]] | None = None) -> schema.ListPage:
    """One page of search mode: BM25 order (score, then id), snippets redacted.

    With the hybrid ranker the order is the fused one (daemon/semantic/hybrid.py):
    the fused candidate list is rebuilt for every page and cut below the
    cursor's (score, id), so pages follow one another as in BM25 order.
    ``totalled``: the namespaces whose running totals are the filter's BM25
    statistics (``_totalled_spaces``), sparing a scan of the view.
    """
    # A filter of whole namespaces is planned and ranked from their postings.
    own = None if totalled is None else postings.OwnView(view.owner, tuple(totalled), now)
    plan = postings.plan(tx, query, where, args, own)
    stats = (search.view_stats(tx, view.owner, totalled, now)
             if totalled is not None and plan.match is not None else None)
    ranking: dict[str, Any] = {"ranker": "lexical"}
    if ranker is None:
        rows = postings.ranked(tx, plan, where, args, page_size + 1, after, stats=stats,
                               view=own)
    else:
        qvec = ranker.embed_query_now(query)
        fused, ranking = ranker.ranked(tx, plan, where, args, HYBRID_CANDIDATES, qvec,
                                       view.rows("p."), stats=stats, view=own)
        if after is not None:
            fused = [r for r in fused
                     if r["score"] < after[0] or (r["score"] == after[0] and r["id"] > after[1])]
        rows = fused[:page_size + 1]
    more = len(rows) > page_size
    rows = rows[:page_size]
    items = []
    for r in rows:
        item = _item(r, now)
        # Redact the whole field first, so a secret cut by the window never
        # shows a fragment.
        item.snippet = search.snippet(
            (redact_secrets(r["body"]), redact_secrets(r["summary"]),
             redact_secrets(r["title"])), plan.terms)
        item.score = r["score"]
        items.append(item)
    next_cursor = None
    if more:
        last = rows[-1]
        next_cursor = seal(hasher, Cursor(view.owner, filters_text, boot_id, "", last["id"],
                                            after_score=last["score"]))
    return schema.ListPage(
        items=items, mode="search", next_cursor=next_cursor,
        coverage=schema.ListCoverage(scopes=scopes, statuses=statuses, exhausted=not more,
                                     complete=True, warnings=[], search=plan.stats(),
                                     ranking=ranking))


def _item(row: dict[str, Any], now: str) -> schema.ListItem:
    entry = to_wire(row, now)
    return schema.ListItem(
        id=entry.id, title=entry.title, type=entry.type,
        status="expired" if entry.expired else entry.status,
        revision=entry.revision, scope=entry.scope, target=entry.target,
        source=entry.source, basis_kind=entry.basis.get("kind", "unknown"),
        applicability=entry.applicability, expires_at=entry.expires_at)


# --- receipts ----------------------------------------------------------------------


def receipt(tx: Tx, view: View, receipt_id: str,
            allow: Callable[[str, str, int], None]) -> schema.ReceiptOut:
    row = tx.one("SELECT * FROM receipts WHERE receipt_id = ? AND owner = ?",
                 (receipt_id, view.owner))
    if row is None:
        raise NotFound("not_found")
    entry = tx.one("SELECT target, scope FROM entries WHERE id = ?", (row["entry_id"],))
    if entry is None or not view.allows(entry["target"], entry["scope"]):
        raise NotFound("not_found")
    allow(entry["target"], entry["scope"], 0)
    return receipt_wire(row)


# --- status and audit ---------------------------------------------------------------


@dataclass(frozen=True)
class Facts:
    """What ``memory.status`` reports about the daemon itself, as of one call."""

    store: Store
    default: Who
    policy: Policy
    projection: Projection | None
    ranker: Ranker | None
    ranker_reason: str


def _backend(facts: Facts, degraded: str | None) -> schema.StatusBackend:
    """The store's part of ``memory.status``; ``degraded``: why it is, or None."""
    store = facts.store
    return schema.StatusBackend(
        kind=store.kind, durability=store.durability,
        sharing=store.sharing, health="ok" if degraded is None else "degraded",
        degraded_reason=degraded)


def status(tx: Tx, facts: Facts, owner: str, task: Task | None, now: str,
           view: View, *, agent: bool = False) -> schema.StatusOut:
    """``view`` bounds the counts: a task counts only its own namespaces.

    On agent.sock (``agent``) the answer holds nothing that moves with another
    owner's activity: the audit head (seq, hash, checkpoint) advances with
    every owner's writes, and the outbox and embedding queues count every
    owner's items, so an agent could watch them to learn when others write.
    It keeps whether the chain verifies and which features are on."""
    counts = dict.fromkeys(STATUSES, 0)
    where, args = view.rows()
    for row in tx.all("SELECT status, count(*) AS n FROM entries WHERE " + where  # noqa: S608 (placeholders only)
                      + " GROUP BY status", tuple(args)):
        counts[row["status"]] = row["n"]
    expired_now = tx.one("SELECT count(*) AS n FROM entries WHERE " + where  # noqa: S608 (placeholders only)
                         + " AND status = 'active' AND expires_at <= ?", (*args, now))
    if expired_now is not None and expired_now["n"]:
        counts["active"] -= expired_now["n"]
        counts["expired"] += expired_now["n"]
    pending_rows = tx.all("SELECT ops_summary FROM actions WHERE owner = ? AND status = 'pending'"
                          " AND expires_at > ?", (owner, now))
    pending = {"n": sum(1 for r in pending_rows if all(
        view.allows(o["target"], o["scope"]) for o in loads(r["ops_summary"])))}
    consent = tx.one("SELECT read, contribute, learn_from_tools, version FROM consent"
                     " WHERE owner = ?", (owner,))
    store = facts.store
    head = store.head
    verified = store.degraded != "audit_chain_broken"
    projection = {"enabled": False} if facts.projection is None else facts.projection.status(tx)
    if agent:
        projection = {k: projection[k] for k in ("enabled", "mode", "health") if k in projection}
        audit = schema.StatusAudit(verified=verified)
    else:
        cp = tx.one("SELECT seq, hash, ts FROM checkpoints ORDER BY seq DESC LIMIT 1")
        audit = schema.StatusAudit(
            seq=head.seq, hash=head.hash, verified=verified,
            last_checkpoint=None if cp is None else schema.Checkpointed(
                seq=cp["seq"], hash=cp["hash"], ts=cp["ts"]))
    is_default = owner == facts.default.owner
    return schema.StatusOut(
        backend=_backend(facts, store.degraded),
        counts=counts,
        pending_actions=pending["n"] if pending else 0,
        audit=audit,
        identity=schema.StatusIdentity(
            owner=owner,
            source=facts.default.source if is_default else ("task" if task else "identity"),
            identity_verified=facts.default.verified if is_default else False,
        ),
        consent=schema.ConsentFlagsVersioned(
            read=bool(consent["read"]) if consent else False,
            contribute=bool(consent["contribute"]) if consent else False,
            learn_from_tools=bool(consent["learn_from_tools"]) if consent else False,
            version=consent["version"] if consent else 0,
        ),
        task=None if task is None else schema.StatusTask(
            task_id=task.task_id, role=task.role, grants=sorted(task.grants)),
        policy=schema.StatusPolicy(hash=facts.policy.hash, rules=len(facts.policy.rules)),
        projection=projection,
        recall=(
            {"ranker": "lexical", "reason": facts.ranker_reason, "model": None, "dim": None}
            if facts.ranker is None else
            facts.ranker.identity() if agent else facts.ranker.status(tx, owner)),
    )



def outage_status(facts: Facts, owner: str, reason: str, *, agent: bool) -> schema.StatusOut:
    """``memory.status`` while the store cannot be read (its database is
    unreachable): what the daemon knows without it. The backend section
    says why; counts and pending actions are empty and consent is shown
    off, because nothing is granted while the authority cannot answer;
    no task is resolved; the audit section says only whether the chain
    verified."""
    store = facts.store
    projection: dict[str, Any] = {"enabled": facts.projection is not None}
    # The chain's head is in the store too: only whether it verified.
    audit = schema.StatusAudit(verified=store.degraded != "audit_chain_broken")
    is_default = owner == facts.default.owner
    return schema.StatusOut(
        backend=_backend(facts, reason),
        counts={}, pending_actions=0, audit=audit,
        identity=schema.StatusIdentity(
            owner=owner, source=facts.default.source if is_default else "identity",
            identity_verified=facts.default.verified if is_default else False),
        consent=schema.ConsentFlagsVersioned(read=False, contribute=False,
                                             learn_from_tools=False, version=0),
        task=None,
        policy=schema.StatusPolicy(hash=facts.policy.hash, rules=len(facts.policy.rules)),
        projection=projection,
        recall=({"ranker": "lexical", "reason": facts.ranker_reason, "model": None, "dim": None}
                if facts.ranker is None else facts.ranker.identity()),
    )


def export(tx: Tx, after_seq: int, limit: int) -> schema.AuditPage:
    # A packed row is read with the rows before it in its block
    # (audit/packing.py): the page starts that far back and skips them.
    start = first_needed(after_seq + 1)
    rows = tx.all("SELECT seq, body, hash FROM audit WHERE seq >= ? ORDER BY seq LIMIT ?",
                  (start, after_seq + 1 - start + limit + 1))
    stored = list(unpack_rows(((r["seq"], r["body"], r["hash"]) for r in rows), after_seq))
    more = len(stored) > limit
    stored = stored[:limit]
    events = [msgspec.to_builtins(from_stored(event)) for event in stored]
    return schema.AuditPage(events=events, next_after_seq=stored[-1].seq if more else None)
