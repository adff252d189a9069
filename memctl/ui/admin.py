"""The Consent and tokens, Audit and Status pages, and who the page acts for.

Owns: the consent switches (sent with the version the page was rendered
from), token issue / list / revoke, the audit overview (chain head,
verification on demand as a background job, newest checkpoint, events by
kind and day, the journal with undo), the status page, and the "acting
for" identity of the session.

Invariants:
- ``consent.set`` always carries the version the operator saw; a newer
  choice made meanwhile is reported (``revision_conflict``), never
  overwritten;
- an issued token is shown once, in the answer to the POST that issued it
  (never cached, never in a URL, never logged); listings never show one;
- a verification runs as one background job per request; its page shows
  progress (events to check, time so far) and refreshes itself without
  script until the result is in.
"""

from __future__ import annotations

import asyncio
import secrets
from collections import Counter
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Final

from starlette.requests import Request
from starlette.responses import Response

from memoryd.memctl.ui.context import Ui, form_text, see_other
from memoryd.memctl.ui.present import parse_time
from memoryd.rpc.client import AsyncClient, RpcError

__all__ = [
    "audit",
    "checkpoint",
    "consent",
    "consent_set",
    "identity_set",
    "projection",
    "projection_approve",
    "status",
    "token_issue",
    "token_revoke",
    "undo",
    "verify_job",
    "verify_start",
]

EVENT_WINDOW: Final = 5_000
MAX_JOBS: Final = 16


async def consent(ui: Ui, request: Request, *, conflict: bool = False) -> Response:
    """The Consent and tokens page; with ``conflict``, after a refused change (409)."""
    current = await ui.call("consent.get", ui.params(request))
    tokens = await ui.call("token.list", ui.params(request))
    return ui.render(request, "consent.html", 409 if conflict else 200, consent=current,
                     conflict=conflict,
                     tokens=[t for t in tokens.get("items") or [] if isinstance(t, dict)])


def _identity(form: Any) -> dict[str, str] | None:
    """The identity a form names (kind, subject and an optional issuer)."""
    kind, subject = form_text(form, "kind", limit=64), form_text(form, "subject", limit=256)
    if not kind or not subject:
        return None
    issuer = form_text(form, "issuer", limit=256)
    return {"kind": kind, "subject": subject, **({"issuer": issuer} if issuer else {})}


async def consent_set(ui: Ui, request: Request) -> Response:
    form = await request.form()
    raw = form_text(form, "version") or ""
    if not raw.isdigit() or len(raw) > 9:
        ui.notice(request, "The form had no consent version; nothing was changed.")
        return see_other("/consent")
    switches = {name: form.get(name) == "on" for name in ("read", "contribute",
                                                          "learn_from_tools")}
    try:
        await ui.call("consent.set", ui.params(request, version=int(raw), **switches))
    except RpcError as exc:
        if exc.data_code != "revision_conflict":
            raise
        return await consent(ui, request, conflict=True)
    ui.notice(request, "Consent saved; it applies to tasks begun from now on.")
    return see_other("/consent")


async def token_issue(ui: Ui, request: Request) -> Response:
    form = await request.form()
    identity = _identity(form)
    if identity is None:
        ui.notice(request, "A token needs an identity kind and subject.")
        return see_other("/consent")
    params: dict[str, Any] = {"identity": identity}
    scopes = [s.strip() for s in (form_text(form, "scopes", limit=2_048) or "").split(",")
              if s.strip()]
    if scopes:
        params["scopes"] = scopes
    expires = form_text(form, "expires_in")
    if expires and expires.isdigit() and len(expires) < 10:
        params["expires_in"] = int(expires)
    issued = await ui.call("token.issue", params)
    return ui.render(request, "token_issued.html", issued=issued)


async def token_revoke(ui: Ui, request: Request) -> Response:
    token_id = request.path_params["token_id"]
    await ui.call("token.revoke", {"token_id": token_id})
    ui.notice(request, f"Revoked {token_id}.")
    return see_other("/consent")


async def identity_set(ui: Ui, request: Request) -> Response:
    form = await request.form()
    session = ui.session(request)
    named = _identity(form)
    owner = form_text(form, "owner", limit=64) if form.get("pick") == "yes" else None
    if owner:
        # Subjects are kept only as keyed hashes: a known owner is named by
        # its id (the daemon refuses one that is not an owner id).
        session.identity = {"kind": "owner", "subject": owner}
        ui.notice(request, "Acting for the owner you picked.")
    elif form.get("default") == "yes" or named is None:
        session.identity = None
        ui.notice(request, "Acting for the daemon's default identity.")
    else:
        session.identity = named
        ui.notice(request, "Acting for the identity you named.")
    back = form_text(form, "back") or "/memories"
    return see_other(back if back.startswith("/") and not back.startswith("//") else "/")


# --- projection ------------------------------------------------------------------


async def projection(ui: Ui, request: Request) -> Response:
    # Without ``approve`` the daemon only decides blocked items again and
    # lists what they would send (control.sock only).
    review = await ui.call("memory.projection.authorize", {})
    items = [i for i in review.get("items") or [] if isinstance(i, dict)]
    return ui.render(request, "projection.html", review=review, items=items)


async def projection_approve(ui: Ui, request: Request) -> Response:
    form = await request.form()
    # Approve the entries the operator saw listed, not whatever waits by now.
    ids = [v for v in form.getlist("entry_id") if isinstance(v, str) and v][:100]
    if not ids:
        ui.notice(request, "Nothing was listed; nothing was approved.")
        return see_other("/projection")
    done = await ui.call("memory.projection.authorize", {"approve": True, "entry_ids": ids})
    approved = done.get("approved")
    ui.notice(request, f"Approved {approved} item{'' if approved == 1 else 's'} "
                       "to leave this host.")
    return see_other("/projection")


# --- audit -----------------------------------------------------------------------


@dataclass
class VerifyJob:
    started: datetime
    total: int | None
    finished: datetime | None = None
    result: dict[str, Any] | None = None
    error: dict[str, Any] | None = None
    task: asyncio.Task[None] | None = field(default=None, repr=False)


def _by_kind_and_day(events: list[dict[str, Any]]) -> tuple[list[str], list[dict[str, Any]]]:
    days: dict[str, Counter[str]] = {}
    for e in events:
        when = parse_time(e.get("ts"))
        day = when.date().isoformat() if when else "-"
        days.setdefault(day, Counter())[str(e.get("kind"))] += 1
    kinds = sorted({k for c in days.values() for k in c})
    rows = [{"day": day, "counts": [days[day].get(k, 0) for k in kinds],
             "total": sum(days[day].values())} for day in sorted(days, reverse=True)]
    return kinds, rows


async def audit(ui: Ui, request: Request) -> Response:
    state = await ui.call("memory.status", {})
    head = state.get("audit") if isinstance(state, dict) else {}
    seq = head.get("seq") if isinstance(head, dict) else None
    after = max(0, seq - EVENT_WINDOW) if isinstance(seq, int) else 0
    page = await ui.call("audit.export", {"after_seq": after, "limit": EVENT_WINDOW})
    events = [e for e in page.get("events") or [] if isinstance(e, dict)]
    kinds, rows = _by_kind_and_day(events)
    session = ui.session(request)
    key = request.query_params.get("j")
    cursor = session.view(key)
    journal = await ui.call("memory.journal", ui.params(
        request, cursor=cursor if isinstance(cursor, str) else None))
    following = journal.get("next_cursor")
    older = session.keep(following) if isinstance(following, str) else None
    return ui.render(request, "audit.html", head=head, kinds=kinds, rows=rows,
                     window=len(events), after=after, journal=journal, older=older)


async def verify_start(ui: Ui, request: Request) -> Response:
    state = await ui.call("memory.status", {})
    seq = state.get("audit", {}).get("seq") if isinstance(state, dict) else None
    job_id = "vfy_" + secrets.token_hex(6)
    job = VerifyJob(started=ui.now(), total=seq if isinstance(seq, int) else None)
    while len(ui.jobs) >= MAX_JOBS:
        ui.jobs.pop(next(iter(ui.jobs)))
    ui.jobs[job_id] = job

    async def run() -> None:
        # Its own connection: a long walk must not hold up the other pages.
        try:
            async with AsyncClient(ui.socket_path, timeout=ui.verify_timeout) as rpc:
                job.result = await rpc.call("audit.verify", {})
        except RpcError as exc:
            job.error = {"code": exc.data_code, "message": exc.detail_message or exc.message}
        except Exception as exc:  # noqa: BLE001 - the job page reports it; nothing to raise to
            job.error = {"code": type(exc).__name__, "message": "the daemon did not answer"}
        job.finished = ui.now()

    job.task = asyncio.get_running_loop().create_task(run())  # kept: the job holds it
    return see_other(f"/audit/verify/{job_id}")


async def verify_job(ui: Ui, request: Request) -> Response:
    job = ui.jobs.get(request.path_params["job_id"])
    if not isinstance(job, VerifyJob):
        ui.notice(request, "That verification is no longer known here; start a new one.")
        return see_other("/audit")
    elapsed = ((job.finished or ui.now()) - job.started).total_seconds()
    return ui.render(request, "verify.html", job=job, elapsed=f"{elapsed:.1f}")


async def checkpoint(ui: Ui, request: Request) -> Response:
    taken = await ui.call("audit.checkpoint", {})
    ui.notice(request, f"Checkpoint signed at seq {taken.get('seq')}.")
    return see_other("/audit")


async def undo(ui: Ui, request: Request) -> Response:
    op = request.path_params["operation_id"]
    result = await ui.call("memory.undo", ui.params(request, operation_id=op))
    ui.notice(request, f"Undid {op}: {result.get('outcome')} as {result.get('operation_id')}.")
    return see_other("/audit")


async def status(ui: Ui, request: Request) -> Response:
    state = await ui.call("memory.status", ui.params(request))
    return ui.render(request, "status.html", s=state)
