"""The Pending page: the approval queue, one decision at a time or in bulk.

Owns: reading the whole queue (every page of ``governance.action.list``,
bounded), ordering it oldest first, each proposal in full
(``governance.action.get``), the decision that made it wait (from the audit
chain's ``action_proposed`` and ``decision`` events), and the approve /
deny forms, single and bulk.

Invariants:
- a bulk decision is two steps: the first only renders a confirmation that
  lists each action and what will happen to it; only the second, whose form
  carries exactly the listed action ids, decides anything;
- each action is decided by its own call, so one stale or failed action
  never hides the others' results; every result is shown.
"""

from __future__ import annotations

from typing import Any, Final

from starlette.requests import Request
from starlette.responses import Response

from memoryd.memctl.format import proposer
from memoryd.memctl.owners import Labels, labelled, labels_from
from memoryd.memctl.ui.context import Ui, form_text, see_other
from memoryd.rpc.client import RpcError

__all__ = ["approve", "bulk_confirm", "bulk_decide", "deny", "queue"]

QUEUE_PAGES: Final = 20  # x 50 actions a page: more than the daemon lets wait per owner
PAGE: Final = 10
AUDIT_WINDOW: Final = 5_000
MAX_BULK: Final = 100


async def _all_pending(ui: Ui) -> tuple[list[dict[str, Any]], bool]:
    items: list[dict[str, Any]] = []
    cursor: str | None = None
    for _ in range(QUEUE_PAGES):
        page = await ui.call("governance.action.list",
                             {"status": "pending", **({"cursor": cursor} if cursor else {})})
        items.extend(i for i in page.get("items") or [] if isinstance(i, dict))
        cursor = page.get("next_cursor")
        if not isinstance(cursor, str):
            break
    else:
        return _oldest_first(items), False
    return _oldest_first(items), True


def _oldest_first(items: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return sorted(items, key=lambda i: (str(i.get("created_at")), str(i.get("action_id"))))


async def _decisions(ui: Ui) -> dict[str, dict[str, Any]]:
    """action id → {decision_id, effect, rule_ids}, from the newest audit events."""
    status = await ui.call("memory.status", {})
    head = status.get("audit", {}).get("seq") if isinstance(status, dict) else None
    after = max(0, head - AUDIT_WINDOW) if isinstance(head, int) else 0
    page = await ui.call("audit.export", {"after_seq": after, "limit": AUDIT_WINDOW})
    events = [e for e in page.get("events") or [] if isinstance(e, dict)]
    rules = {e.get("decision_id"): e.get("rule_ids") or [] for e in events
             if e.get("kind") == "decision"}
    out: dict[str, dict[str, Any]] = {}
    for e in events:
        found = e.get("details")
        details: dict[str, Any] = found if isinstance(found, dict) else {}
        if e.get("kind") == "action_proposed" and details.get("action_id"):
            out[str(details["action_id"])] = {
                "decision_id": e.get("decision_id"), "effect": e.get("effect"),
                "rule_ids": rules.get(e.get("decision_id"), []), "seq": e.get("seq"),
                "resource": e.get("resource")}
    return out


async def queue(ui: Ui, request: Request) -> Response:
    items, complete = await _all_pending(ui)
    raw = request.query_params.get("p", "0")
    number = int(raw) if raw.isdigit() and len(raw) < 6 else 0
    shown = items[number * PAGE:(number + 1) * PAGE]
    full = [await ui.call("governance.action.get", {"action_id": i["action_id"]})
            for i in shown]
    decisions = await _decisions(ui) if full else {}
    labels = await _labels(ui) if full else Labels()
    return ui.render(request, "pending.html", actions=full, decisions=decisions,
                     total=len(items), page=number, pages=-(-len(items) // PAGE),
                     complete=complete, owner_of=labels.owner,
                     proposer_of=lambda a: proposer(labelled(a.get("proposed_by"), labels),
                                                    a.get("owner")))


async def _labels(ui: Ui) -> Labels:
    """The operator's token labels (none when token.list cannot be read)."""
    try:
        return labels_from(await ui.call("token.list", {}))
    except RpcError:
        return Labels()


async def _decide(ui: Ui, action_id: str, approve: bool, reason: str | None) -> dict[str, Any]:
    try:
        if approve:
            result = await ui.call("governance.action.approve", {"action_id": action_id})
        else:
            result = await ui.call("governance.action.deny", {
                "action_id": action_id, **({"reason": reason} if reason else {})})
    except RpcError as exc:
        return {"action_id": action_id, "ok": False, "code": exc.data_code,
                "message": exc.detail_message or exc.message, "recovery": exc.recovery}
    answer = result if isinstance(result, dict) else {}
    kept = answer.get("reason")
    return {"action_id": action_id, "ok": True, "outcome": answer.get("outcome"),
            "entries": [e for e in answer.get("entries") or [] if isinstance(e, dict)],
            "reason": kept if isinstance(kept, str) else None}


async def approve(ui: Ui, request: Request) -> Response:
    done = await _decide(ui, request.path_params["action_id"], True, None)
    return _report(ui, request, [done], "approve")


async def deny(ui: Ui, request: Request) -> Response:
    form = await request.form()
    done = await _decide(ui, request.path_params["action_id"], False,
                         form_text(form, "reason", limit=1_000))
    return _report(ui, request, [done], "deny")


def _report(ui: Ui, request: Request, results: list[dict[str, Any]], verb: str) -> Response:
    return ui.render(request, "decided.html", 200 if all(r["ok"] for r in results) else 409,
                     results=results, verb=verb)


def _bulk_choice(form: Any) -> tuple[list[str], str | None, str | None]:
    ids = [v for v in form.getlist("action_id") if isinstance(v, str) and v][:MAX_BULK]
    decision = form_text(form, "decision")
    return list(dict.fromkeys(ids)), decision if decision in ("approve", "deny") else None, \
        form_text(form, "reason", limit=1_000)


async def bulk_confirm(ui: Ui, request: Request) -> Response:
    """Step one: show what will happen, decide nothing."""
    ids, decision, reason = _bulk_choice(await request.form())
    if not ids or decision is None:
        ui.notice(request, "Choose at least one proposal and approve or deny.")
        return see_other("/pending")
    full = [await ui.call("governance.action.get", {"action_id": i}) for i in ids]
    return ui.render(request, "bulk_confirm.html", actions=full, decision=decision,
                     reason=reason)


async def bulk_decide(ui: Ui, request: Request) -> Response:
    """Step two: decide each listed action, and show every result."""
    ids, decision, reason = _bulk_choice(await request.form())
    if not ids or decision is None:
        return see_other("/pending")
    results = [await _decide(ui, i, decision == "approve", reason) for i in ids]
    return _report(ui, request, results, decision)
