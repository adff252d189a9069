"""Read methods: ``memory.read``, ``memory.list`` (list and search modes),
``memory.receipt``, ``memory.status``, receipts after removal, and audit export.

Owns: what a caller may see and in what shape. Listing cursors are opaque,
signed with the per-home MAC key, and bound to the owner, the exact filters
and this daemon run; anything else is ``cursor_invalid``, never page one.

Invariants:
- every read goes through a ``View``: one owner, and on the agent channel only
  the task's namespaces;
- ``memory.status`` holds no path, credential or memory text.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import msgspec

from memoryd.audit.chain import StoredEvent, from_stored
from memoryd.audit.keyed import KeyedHasher
from memoryd.daemon import search
from memoryd.daemon.cursors import Cursor, seal, unseal
from memoryd.daemon.entries import View, load, redact_secrets, to_wire
from memoryd.daemon.ids import random_id
from memoryd.daemon.store import Tx, loads
from memoryd.kernel.errors import CursorError, NotFound
from memoryd.rpc import schema
from memoryd.rpc.errors import InvalidParams

if TYPE_CHECKING:
    from memoryd.daemon.app import App
    from memoryd.daemon.hybrid import Ranker
    from memoryd.daemon.tasks import Task

_canonical = msgspec.json.Encoder(order="sorted")
_decode = msgspec.json.Decoder()
_ENTRY_ID = re.compile(r"ent_[0-9A-HJKMNP-TV-Z]{26}")
STATUSES = ("active", "superseded", "archived", "expired", "removed")


def wire(row: dict[str, Any], now: str) -> schema.Entry:
    return to_wire(row, now)


def read(tx: Tx, view: View, ids: list[str], include_pending: bool, now: str,
         allow: Callable[[str, str, int], None]) -> dict[str, Any]:
    """The entries ``ids``; ``allow(target, scope, index)`` raises unless the
    gate lets this caller read that namespace."""
    entries = []
    for entry_id in dict.fromkeys(ids):
        row = load(tx, view, entry_id)
        if row is None:
            # Name the missing id only when it has the shape of an id we issue:
            # anything else is client text, and errors never echo client text.
            details: dict[str, Any] = {"index": ids.index(entry_id)}
            if _ENTRY_ID.fullmatch(entry_id):
                details["entry_id"] = entry_id
            raise NotFound("not_found", details=details)
        allow(row["target"], row["scope"], ids.index(entry_id))
        entries.append(to_wire(row, now))
    out: dict[str, Any] = {"entries": entries}
    if include_pending:
        pending = []
        wanted = {e.id for e in entries}
        for row in tx.all("SELECT action_id, entry_ids, ops_summary, created_at, expires_at"
                          " FROM actions WHERE owner = ? AND status = 'pending'"
                          " AND expires_at > ?", (view.owner, now)):
            touched = set(loads(row["entry_ids"])) & wanted
            if touched:
                pending.append({"action_id": row["action_id"], "entry_ids": sorted(touched),
                                "created_at": row["created_at"],
                                "expires_at": row["expires_at"],
                                "ops_summary": loads(row["ops_summary"])})
        out["pending"] = pending
    return out


# --- listing -------------------------------------------------------------------


def list_entries(tx: Tx, hasher: KeyedHasher, boot_id: str, view: View, p: schema.MemoryList,
                 now: str, ranker: Ranker | None = None) -> dict[str, Any]:
    filters_given = any(v is not None for v in (p.target, p.scope, p.query, p.mode, p.statuses,
                                                 p.types, p.page_size))
    if p.cursor is not None:
        if filters_given:
            raise CursorError("cursor_mixed_with_filters")
        cur = unseal(hasher, p.cursor)
        if cur.owner != view.owner or cur.boot != boot_id:
            raise CursorError("cursor_invalid")
        try:
            signed = msgspec.json.decode(cur.filters, type=schema.MemoryList)
        except msgspec.DecodeError:
            raise CursorError("cursor_invalid") from None
        # The task id and identity in the filters must match the caller's view.
        if signed.task_id != p.task_id or signed.identity != p.identity:
            raise CursorError("cursor_invalid")
        p = signed
        after = (cur.after_title, cur.after_id)
        after_score = cur.after_score
    else:
        after = None
        after_score = None
    filters = msgspec.structs.replace(p, cursor=None)
    filters_text = _canonical.encode(filters).decode()
    statuses = list(p.statuses or ["active"])
    mode = p.mode or ("search" if p.query is not None else "list")
    if mode == "search" and not (p.query or "").strip():
        raise InvalidParams([{"path": "$.query", "expected": "non-empty str (search mode)"}])
    if mode == "list" and p.query is not None:
        raise InvalidParams([{"path": "$.query", "expected": "absent in list mode"}])
    page_size = p.page_size or (SEARCH_PAGE if mode == "search" else 20)
    clauses = ["owner = ?"]
    args: list[Any] = [view.owner]
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
    if view.namespaces is not None:
        ns = sorted(view.namespaces)
        clauses.append("(" + " OR ".join("(target = ? AND scope = ?)" for _ in ns) + ")")
        for target, scope in ns:
            args.extend([target, scope])
    scopes = sorted({f"{t}/{s}" for t, s in view.namespaces}) if view.namespaces else ["*"]
    if mode == "search":
        assert p.query is not None
        return _search_page(tx, hasher, boot_id, view, p.query, " AND ".join(clauses),
                            tuple(args), page_size, filters_text, statuses, scopes,
                            None if after is None or after_score is None
                            else (after_score, after[1]), now, ranker)
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
    return {
        "items": items,
        "mode": "list",
        "next_cursor": next_cursor,
        "coverage": {"scopes": scopes, "statuses": statuses, "exhausted": not more,
                     "complete": True, "warnings": []},
    }


SEARCH_PAGE = 8
# Candidates each ranker contributes before fusion in search mode: pages
# beyond them end the listing (``exhausted``).
HYBRID_CANDIDATES = 200


def _search_page(tx: Tx, hasher: KeyedHasher, boot_id: str, view: View, query: str,
                 where: str, args: tuple[Any, ...], page_size: int, filters_text: str,
                 statuses: list[str], scopes: list[str], after: tuple[float, str] | None,
                 now: str, ranker: Ranker | None = None) -> dict[str, Any]:
    """One page of search mode: BM25 order (score, then id), snippets redacted.

    With the hybrid ranker the order is the fused one (daemon/hybrid.py):
    the fused candidate list is rebuilt for every page and cut below the
    cursor's (score, id), so pages follow one another as in BM25 order.
    """
    plan = search.plan(tx, query, where, args)
    ranking: dict[str, Any] = {"ranker": "lexical"}
    if ranker is None:
        rows = search.ranked(tx, plan, where, args, page_size + 1, after)
    else:
        spaces = None if view.namespaces is None else sorted(view.namespaces)
        qvec = ranker.embed_query_now(query)
        fused, ranking = ranker.ranked(tx, plan, where, args, HYBRID_CANDIDATES, view.owner,
                                       spaces, qvec)
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
        item["snippet"] = search.snippet(
            (redact_secrets(r["body"]), redact_secrets(r["summary"]),
             redact_secrets(r["title"])), plan.terms)
        item["score"] = r["score"]
        items.append(item)
    next_cursor = None
    if more:
        last = rows[-1]
        next_cursor = seal(hasher, Cursor(view.owner, filters_text, boot_id, "", last["id"],
                                            after_score=last["score"]))
    return {
        "items": items,
        "mode": "search",
        "next_cursor": next_cursor,
        "coverage": {"scopes": scopes, "statuses": statuses, "exhausted": not more,
                     "complete": True, "warnings": [], "search": plan.stats(),
                     "ranking": ranking},
    }


def _item(row: dict[str, Any], now: str) -> dict[str, Any]:
    entry = to_wire(row, now)
    return {"id": entry.id, "title": entry.title, "type": entry.type,
            "status": "expired" if entry.expired else entry.status,
            "revision": entry.revision, "scope": entry.scope, "target": entry.target,
            "source": entry.source, "basis_kind": entry.basis.get("kind", "unknown"),
            "applicability": entry.applicability}


# --- receipts ----------------------------------------------------------------------


def new_receipt(tx: Tx, owner: str, entry_id: str, now: str) -> schema.ReceiptOut:
    receipt_id = random_id("rcp")
    tx.exec("INSERT INTO receipts(receipt_id, owner, entry_id, status, created_at, updated_at)"
            " VALUES (?, ?, ?, 'pending', ?, ?)", (receipt_id, owner, entry_id, now, now))
    return schema.ReceiptOut(receipt_id=receipt_id, entry_id=entry_id, status="pending",
                             created_at=now, updated_at=now)


def verify_removal(tx: Tx, receipt_id: str, now: str) -> schema.ReceiptOut:
    """Re-read the primary store after the removal committed; verified only if no trace."""
    row = tx.one("SELECT * FROM receipts WHERE receipt_id = ?", (receipt_id,))
    assert row is not None
    entry = tx.one("SELECT title, body, summary, status FROM entries WHERE id = ?",
                   (row["entry_id"],))
    leftovers = tx.one("SELECT count(*) AS n FROM revisions WHERE entry_id = ? AND"
                       " (body IS NOT NULL OR title IS NOT NULL OR summary IS NOT NULL)",
                       (row["entry_id"],))
    clean = (entry is not None and entry["status"] == "removed" and not entry["title"]
             and not entry["body"] and not entry["summary"]
             and leftovers is not None and leftovers["n"] == 0)
    status = "verified" if clean else "incomplete"
    tx.exec("UPDATE receipts SET status = ?, updated_at = ? WHERE receipt_id = ?",
            (status, now, receipt_id))
    tx.audit("receipt", now, subject={"owner": row["owner"]}, entry_ids=[row["entry_id"]],
             details={"receipt_id": receipt_id, "status": status})
    out = tx.one("SELECT * FROM receipts WHERE receipt_id = ?", (receipt_id,))
    assert out is not None
    return schema.ReceiptOut(receipt_id=out["receipt_id"], entry_id=out["entry_id"],
                             status=out["status"], created_at=out["created_at"],
                             updated_at=out["updated_at"])


def receipt(tx: Tx, view: View, receipt_id: str,
            allow: Callable[[str, str, int], None]) -> dict[str, Any]:
    row = tx.one("SELECT * FROM receipts WHERE receipt_id = ? AND owner = ?",
                 (receipt_id, view.owner))
    if row is None:
        raise NotFound("not_found")
    entry = tx.one("SELECT target, scope FROM entries WHERE id = ?", (row["entry_id"],))
    if entry is None or not view.allows(entry["target"], entry["scope"]):
        raise NotFound("not_found")
    allow(entry["target"], entry["scope"], 0)
    return {"receipt_id": row["receipt_id"], "entry_id": row["entry_id"],
            "status": row["status"], "created_at": row["created_at"],
            "updated_at": row["updated_at"]}


# --- status and audit ---------------------------------------------------------------


def status(tx: Tx, app: App, owner: str, task: Task | None, now: str,
           view: View, *, agent: bool = False) -> dict[str, Any]:
    """``view`` bounds the counts: a task counts only its own namespaces.

    On agent.sock (``agent``) the answer holds nothing that moves with another
    owner's activity: the audit head (seq, hash, checkpoint) advances with
    every owner's writes, and the outbox and embedding queues count every
    owner's items, so an agent could watch them to learn when others write.
    It keeps whether the chain verifies and which features are on."""
    counts = dict.fromkeys(STATUSES, 0)
    where, args = "owner = ?", [owner]
    if view.namespaces is not None:
        ns = sorted(view.namespaces)
        where += " AND (" + " OR ".join("(target = ? AND scope = ?)" for _ in ns) + ")"
        args += [x for pair in ns for x in pair]
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
    store = app.store
    head = store.head
    verified = store.degraded != "audit_chain_broken"
    projection = {"enabled": False} if app.projection is None else app.projection.status(tx)
    if agent:
        projection = {k: projection[k] for k in ("enabled", "mode", "health") if k in projection}
    is_default = owner == app.default.owner
    return {
        "backend": {
            "kind": store.kind,
            "durability": (f"wal+synchronous={app.config.synchronous.lower()}"
                           if store.kind == "sqlite" else "postgresql-commit"),
            "sharing": store.sharing,
            "health": "ok" if store.degraded is None else "degraded",
            "degraded_reason": store.degraded,
        },
        "counts": counts,
        "pending_actions": pending["n"] if pending else 0,
        "audit": ({"verified": verified} if agent else
                  {"seq": head.seq, "hash": head.hash, "last_checkpoint": tx.one(
                      "SELECT seq, hash, ts FROM checkpoints ORDER BY seq DESC LIMIT 1"),
                   "verified": verified}),
        "identity": {
            "owner": owner,
            "source": app.default.source if is_default else ("task" if task else "identity"),
            "identity_verified": app.default.verified if is_default else False,
        },
        "consent": {
            "read": bool(consent["read"]) if consent else False,
            "contribute": bool(consent["contribute"]) if consent else False,
            "learn_from_tools": bool(consent["learn_from_tools"]) if consent else False,
            "version": consent["version"] if consent else 0,
        },
        "task": None if task is None else {"task_id": task.task_id, "role": task.role,
                                           "grants": sorted(task.grants)},
        "policy": {"hash": app.policy.hash, "rules": len(app.policy.rules)},
        "projection": projection,
        "recall": (
            {"ranker": "lexical", "reason": app.ranker_reason, "model": None, "dim": None}
            if app.ranker is None else
            app.ranker.identity() if agent else app.ranker.status(tx, owner)),
    }



def export(tx: Tx, after_seq: int, limit: int) -> dict[str, Any]:
    rows = tx.all("SELECT seq, body, hash FROM audit WHERE seq > ? ORDER BY seq LIMIT ?",
                  (after_seq, limit + 1))
    more = len(rows) > limit
    rows = rows[:limit]
    events = [msgspec.to_builtins(from_stored(StoredEvent(r["seq"], bytes(r["body"]), r["hash"])))
              for r in rows]
    return {"events": events, "next_after_seq": rows[-1]["seq"] if more else None}
