"""The Memories and Entry pages: list, search, read, add, edit, archive,
supersede, remove, and the delete receipt.

Owns: the listing view kept in the session (filters, query and the sealed
cursors of the pages seen so far), and the write forms of one entry.

Invariants:
- a query, a filter or a cursor never appears in a URL: the search form is
  a POST whose state is kept server-side under a random key, and "older"
  pages are addressed by that key and a page number;
- a cursor the daemon refuses (``cursor_invalid``, e.g. after a restart)
  is reported with an offer to reload from the first page, never answered
  silently with page one;
- every write names the revision the operator saw (``expected_revision``);
  a conflict shows the operator's version beside the stored one and
  changes nothing.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Final

from starlette.datastructures import FormData
from starlette.requests import Request
from starlette.responses import Response

# The choices the command line offers, which a unit test holds to rpc/schema.py.
from memoryd.memctl.cli import BASIS_KINDS, ENTRY_TYPES, STATUSES, TARGETS
from memoryd.memctl.ui.context import Ui, form_text, see_other
from memoryd.rpc.client import RpcError

__all__ = [
    "add_entry",
    "archive",
    "edit",
    "entry",
    "listing",
    "receipt",
    "remove",
    "search",
    "supersede",
]

SOURCES: Final = ("user", "agent", "extraction", "import", "unknown")
PAGE_SIZE: Final = 20
# How many journal operations the Entry page reads to list an entry's revisions.
REVISION_SCAN: Final = 500


@dataclass
class Listing:
    """One listing's filters and the cursor of each page reached so far."""

    params: dict[str, Any]
    sources: tuple[str, ...] = ()
    cursors: list[str] = field(default_factory=list)  # cursors[n] opens page n + 1


def _choices(form: FormData, name: str, allowed: tuple[str, ...]) -> list[str]:
    return [v for v in form.getlist(name) if isinstance(v, str) and v in allowed]


def _page_number(request: Request) -> int:
    raw = request.query_params.get("p", "0")
    return int(raw) if raw.isdigit() and len(raw) < 6 else 0


async def search(ui: Ui, request: Request) -> Response:
    """POST /memories: keep the filters server-side, then show page one."""
    form = await request.form()
    target = form_text(form, "target")
    params = {"page_size": PAGE_SIZE, "target": target if target in TARGETS else None,
              "scope": form_text(form, "scope", limit=128),
              "query": form_text(form, "query", limit=4_096),
              "statuses": _choices(form, "status", STATUSES),
              "types": _choices(form, "type", ENTRY_TYPES)}
    view = Listing({k: v for k, v in params.items() if v},
                   tuple(_choices(form, "source", SOURCES)))
    key = ui.session(request).keep(view)
    return see_other(f"/memories?v={key}")


async def listing(ui: Ui, request: Request) -> Response:
    session = ui.session(request)
    key = request.query_params.get("v")
    view = session.view(key)
    if not isinstance(view, Listing):
        view = Listing({"page_size": PAGE_SIZE})
        key = session.keep(view)
    number = min(_page_number(request), len(view.cursors))
    if number == 0:
        params = ui.params(request, **view.params)
    else:
        params = ui.params(request, cursor=view.cursors[number - 1])
    try:
        result = await ui.call("memory.list", params)
    except RpcError as exc:
        if exc.code != -32007:
            raise
        return ui.render(request, "memories.html", 409, stale=True, key=key, view=view,
                         page=number, items=[], result={}, **_form_choices())
    items = [i for i in result.get("items") or [] if isinstance(i, dict)]
    details = await _details(ui, request, [str(i.get("id")) for i in items])
    rows = [{**i, **{k: details.get(str(i.get("id")), {}).get(k)
                     for k in ("created_at", "updated_at", "expires_at", "use_count",
                               "last_used_at", "expired")}}
            for i in items if not view.sources or i.get("source") in view.sources]
    following = result.get("next_cursor")
    del view.cursors[number:]
    if isinstance(following, str):
        view.cursors.append(following)
    return ui.render(request, "memories.html", stale=False, key=key, view=view, page=number,
                     items=rows, hidden_by_source=len(items) - len(rows), result=result,
                     more=isinstance(following, str), **_form_choices())


def _form_choices() -> dict[str, Any]:
    return {"entry_types": ENTRY_TYPES, "statuses": STATUSES, "sources": SOURCES,
            "targets": TARGETS, "basis_kinds": BASIS_KINDS}


async def _details(ui: Ui, request: Request, ids: list[str]) -> dict[str, dict[str, Any]]:
    """Full entries for ``ids`` (age, expiry and use count are not in a listing row)."""
    out: dict[str, dict[str, Any]] = {}
    for start in range(0, len(ids), 10):
        got = await ui.call("memory.read", ui.params(request, ids=ids[start:start + 10]))
        for e in got.get("entries") or []:
            if isinstance(e, dict):
                out[str(e.get("id"))] = e
    return out


def _entry_fields(form: FormData) -> dict[str, Any]:
    entry: dict[str, Any] = {
        "type": form_text(form, "type") or "",
        "title": form_text(form, "title", limit=1_024) or "",
        "body": (form_text(form, "body") or "").replace("\r\n", "\n"),
    }
    summary = form_text(form, "summary", limit=1_024)
    if summary:
        entry["summary"] = summary
    kind = form_text(form, "basis_kind")
    if kind in BASIS_KINDS:
        entry["basis"] = {"kind": kind, "note": form_text(form, "basis_note", limit=512) or ""}
    return entry


async def add_entry(ui: Ui, request: Request) -> Response:
    form = await request.form()
    params = ui.params(request, action="add", entry=_entry_fields(form),
                       target=form_text(form, "target") or "memory",
                       scope=form_text(form, "scope", limit=128))
    result = await ui.call("memory.write", params)
    return _after_write(ui, request, result, "added")


def _after_write(ui: Ui, request: Request, result: Any, verb: str) -> Response:
    entries = [e for e in result.get("entries") or [] if isinstance(e, dict)]
    for warning in result.get("warnings") or []:
        ui.notice(request, f"warning: {warning}")
    if result.get("outcome") == "pending":
        ui.notice(request, f"The change waits for a decision as {result.get('action_id')}.")
        return see_other("/pending")
    ui.notice(request, f"{verb}: {result.get('outcome')}")
    target = entries[-1]["id"] if entries else None
    return see_other(f"/entry/{target}" if target else "/memories")


async def _read_one(ui: Ui, request: Request, entry_id: str) -> tuple[dict[str, Any], list[Any]]:
    got = await ui.call("memory.read", ui.params(request, ids=[entry_id],
                                                 include_pending=True))
    entries = [e for e in got.get("entries") or [] if isinstance(e, dict)]
    if not entries:
        raise RpcError(-32003, "not found", {"code": "not_found", "message": "no such entry",
                                             "recovery": "check the id on the Memories page"})
    return entries[0], [p for p in got.get("pending") or [] if isinstance(p, dict)]


async def _revisions(ui: Ui, request: Request, entry_id: str) -> tuple[list[dict[str, Any]],
                                                                       bool]:
    """This entry's operations from the newest ``REVISION_SCAN`` of the journal."""
    found: list[dict[str, Any]] = []
    cursor: str | None = None
    seen = 0
    while seen < REVISION_SCAN:
        params = ui.params(request, page_size=100, cursor=cursor)
        page = await ui.call("memory.journal", params)
        items = [i for i in page.get("items") or [] if isinstance(i, dict)]
        seen += len(items)
        for op in items:
            for item in op.get("items") or []:
                if isinstance(item, dict) and item.get("entry_id") == entry_id:
                    found.append({**item, "operation_id": op.get("operation_id"),
                                  "ts": op.get("ts"), "channel": op.get("channel"),
                                  "undone_by": op.get("undone_by")})
        cursor = page.get("next_cursor")
        if not isinstance(cursor, str):
            return found, True
    return found, False


async def entry(ui: Ui, request: Request) -> Response:
    entry_id = request.path_params["entry_id"]
    current, pending = await _read_one(ui, request, entry_id)
    revisions, complete = await _revisions(ui, request, entry_id)
    return ui.render(request, "entry.html", e=current, pending=pending, revisions=revisions,
                     revisions_complete=complete, conflict=None, **_form_choices())


def _revision(form: FormData) -> int | None:
    raw = form_text(form, "expected_revision")
    return int(raw) if raw is not None and raw.isdigit() and len(raw) < 10 else None


async def edit(ui: Ui, request: Request) -> Response:
    entry_id = request.path_params["entry_id"]
    form = await request.form()
    proposed = _entry_fields(form)
    expected = _revision(form)
    try:
        result = await ui.call("memory.write", ui.params(
            request, action="replace", id=entry_id, expected_revision=expected,
            entry=proposed))
    except RpcError as exc:
        if exc.data_code != "revision_conflict":
            raise
        current, pending = await _read_one(ui, request, entry_id)
        return ui.render(request, "entry.html", 409, e=current, pending=pending, revisions=[],
                         revisions_complete=False,
                         conflict={"mine": proposed, "expected": expected},
                         **_form_choices())
    return _after_write(ui, request, result, "saved")


async def archive(ui: Ui, request: Request) -> Response:
    entry_id = request.path_params["entry_id"]
    form = await request.form()
    result = await ui.call("memory.write", ui.params(
        request, action="archive", id=entry_id, expected_revision=_revision(form),
        reason=form_text(form, "reason", limit=1_000) or "archived by the operator"))
    return _after_write(ui, request, result, "archived")


async def supersede(ui: Ui, request: Request) -> Response:
    entry_id = request.path_params["entry_id"]
    form = await request.form()
    result = await ui.call("memory.write", ui.params(
        request, action="supersede", id=entry_id, expected_revision=_revision(form),
        entry=_entry_fields(form)))
    return _after_write(ui, request, result, "superseded")


async def remove(ui: Ui, request: Request) -> Response:
    entry_id = request.path_params["entry_id"]
    form = await request.form()
    if form.get("confirm") != "yes":
        ui.notice(request, "Nothing was removed: tick the box that confirms the removal.")
        return see_other(f"/entry/{entry_id}")
    result = await ui.call("memory.write", ui.params(
        request, action="remove", id=entry_id, expected_revision=_revision(form)))
    got = result.get("receipt")
    if isinstance(got, dict) and got.get("receipt_id"):
        ui.notice(request, f"Removed {entry_id}: its body is destroyed; the receipt below "
                           "says how far that is proven.")
        return see_other(f"/receipt/{got['receipt_id']}")
    return _after_write(ui, request, result, "removed")


async def receipt(ui: Ui, request: Request) -> Response:
    got = await ui.call("memory.receipt", ui.params(
        request, receipt_id=request.path_params["receipt_id"]))
    final = got.get("status") in ("verified", "incomplete")
    return ui.render(request, "receipt.html", r=got, final=final)
