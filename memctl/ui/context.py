"""What every page handler of ``memctl ui`` works with.

Owns: ``Ui`` (the daemon client, the templates, the sessions, the logger,
the clock), the ``page`` decorator that turns each handler's failures into
an error page and logs one line per request, and the small form readers
the handlers share.

Invariants:
- the daemon is reached only through ``control.sock`` with
  ``memoryd.rpc.client.AsyncClient`` (one connection, calls take turns);
- an error page shows the daemon's error code, message and recovery —
  which never hold memory text (SPEC §3) — and never an exception's text;
  an unexpected failure gets an opaque incident id, logged by type only;
- the log line of a request names its method, route template and status:
  never a path's values, a query string, a form field or a cookie.
"""

from __future__ import annotations

import secrets
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from functools import wraps
from pathlib import Path
from typing import Any, Protocol

import jinja2
import structlog
from starlette.datastructures import FormData
from starlette.requests import Request
from starlette.responses import HTMLResponse, RedirectResponse, Response

from memoryd.memctl.owners import labels_from
from memoryd.memctl.ui.security import CSRF_FIELD, Session, Sessions
from memoryd.rpc.client import BadReply, ConnectError, ConnectionLost, RpcError

__all__ = ["Handler", "Rpc", "Ui", "form_text", "page", "see_other"]

# JSON-RPC error class → HTTP status of the error page.
_STATUS_BY_CODE: Mapping[int, int] = {
    -32001: 403, -32002: 409, -32003: 404, -32004: 422, -32005: 422, -32006: 503,
    -32007: 409, -32602: 400,
}


# Which navigation item a page belongs to, by the first part of its path.
_NAV_OF: Mapping[str, str] = {"/entry": "/memories", "/receipt": "/memories",
                              "/journal": "/audit", "/tokens": "/consent"}


class Rpc(Protocol):
    """What the pages need of a client (``AsyncClient`` fits)."""

    async def call(self, method: str, params: Mapping[str, Any] | None = None, /) -> Any: ...


@dataclass
class Ui:
    rpc: Rpc
    env: jinja2.Environment
    sessions: Sessions
    socket_path: Path
    verify_timeout: float = 600.0
    now: Callable[[], datetime] = field(default=lambda: datetime.now(UTC))
    log: Any = field(default_factory=lambda: structlog.get_logger("memctl.ui"))
    jobs: dict[str, Any] = field(default_factory=dict)

    @staticmethod
    def session(request: Request) -> Session:
        session = request.scope["state"]["session"]
        assert isinstance(session, Session)  # the guard lets no request in without one
        return session

    def params(self, request: Request, **fields: Any) -> dict[str, Any]:
        """RPC params for the identity this session acts for, plus ``fields``
        (those that are None are left out)."""
        out = {k: v for k, v in fields.items() if v is not None}
        identity = self.session(request).identity
        if identity is not None:
            out["identity"] = dict(identity)
        return out

    async def call(self, method: str, params: Mapping[str, Any] | None = None) -> Any:
        return await self.rpc.call(method, dict(params or {}))

    def render(self, request: Request, template: str, status: int = 200,
               **context: Any) -> HTMLResponse:
        session = self.session(request) if "session" in request.scope.get("state", {}) \
            and request.scope["state"]["session"] is not None else None
        notices: list[str] = []
        if session is not None:
            notices, session.notices[:] = list(session.notices), []
        first = "/" + request.url.path.split("/")[1]
        context.setdefault("active", _NAV_OF.get(first, first))
        context.setdefault("pending_count", getattr(request.state, "pending_count", None))
        known = getattr(request.state, "known_owners", None) or []
        context.setdefault("known_owners", known)
        shown_of = dict(known)
        # Every owner the page shows carries its tokens' labels (subjects
        # are kept only as keyed hashes and cannot be shown).
        context.setdefault("owner_shown", lambda owner: shown_of.get(owner, owner))
        identity = session.identity if session else None
        context.setdefault("acting_shown", next(
            (shown for owner, shown in known if identity is not None
             and identity.get("kind") == "owner" and identity.get("subject") == owner),
            identity.get("subject") if identity and identity.get("kind") == "owner" else None))
        text = self.env.get_template(template).render(
            csrf=session.csrf if session else "", csrf_field=CSRF_FIELD,
            identity=session.identity if session else None, notices=notices,
            now=self.now(), **context)
        return HTMLResponse(text, status_code=status)

    def notice(self, request: Request, text: str) -> None:
        self.session(request).notices.append(text)


Handler = Callable[[Ui, Request], Awaitable[Response]]


def see_other(url: str) -> RedirectResponse:
    return RedirectResponse(url, status_code=303)


def form_text(form: FormData, name: str, *, limit: int = 65_536) -> str | None:
    """A text field, or None when absent or empty (a file upload counts as absent)."""
    value = form.get(name)
    if not isinstance(value, str) or value == "":
        return None
    return value[:limit]


async def _navigation(ui: Ui) -> tuple[int | None, list[tuple[str, str]]]:
    """Every owner's pending actions (None: unknown; the page itself then
    says why the daemon did not answer), and the owners the page may act
    for: those with entries, pending actions or tokens, each by its token
    labels."""
    try:
        status = await ui.call("memory.status", {"pending_by_owner": True})
        tokens = await ui.call("token.list", {})
    except (RpcError, ConnectError, ConnectionLost, BadReply, TimeoutError):
        return None, []
    count = status.get("pending_all_owners") if isinstance(status, dict) else None
    by_owner = status.get("pending_by_owner") if isinstance(status, dict) else None
    holding = status.get("entries_by_owner") if isinstance(status, dict) else None
    labels = labels_from(tokens)
    owners = set(labels.owners) | set(by_owner if isinstance(by_owner, dict) else {}) \
        | set(holding if isinstance(holding, dict) else {})
    for item in tokens.get("items") or [] if isinstance(tokens, dict) else []:
        if isinstance(item, dict) and isinstance(item.get("owner"), str):
            owners.add(item["owner"])
    known = sorted((labels.owner(o), o) for o in owners if o.startswith("own_"))
    return (count if isinstance(count, int) else None), [(o, shown) for shown, o in known]


def page(ui: Ui, handler: Handler) -> Callable[[Request], Awaitable[Response]]:
    """Wrap ``handler`` for Starlette: error pages and the request log line."""

    @wraps(handler)
    async def endpoint(request: Request) -> Response:
        route = getattr(request.scope.get("route"), "path", "?")
        try:
            # POST answers that render a page (an issued token) name owners too.
            request.state.pending_count, request.state.known_owners = await _navigation(ui)
            response = await handler(ui, request)
        except RpcError as exc:
            response = ui.render(request, "error.html", _STATUS_BY_CODE.get(exc.code, 502),
                                 title="memoryd refused", code=exc.data_code,
                                 message=exc.detail_message or exc.message,
                                 recovery=exc.recovery, incident=exc.incident,
                                 details=_safe_details(exc))
        except (ConnectError, ConnectionLost, BadReply, TimeoutError) as exc:
            ui.log.warning("ui_daemon_unreachable", error=type(exc).__name__)
            response = ui.render(request, "error.html", 503, title="memoryd is not reachable",
                                 message="The daemon did not answer on control.sock.",
                                 recovery="Check that memoryd is running on the same home, "
                                          "then reload this page.")
        except Exception as exc:  # noqa: BLE001 - answer with an incident id, never the text
            incident = "inc_" + secrets.token_hex(8)
            ui.log.error("ui_incident", incident=incident, error=type(exc).__name__,
                         route=route)
            response = ui.render(request, "error.html", 500, title="Something went wrong",
                                 message="The page could not be made.", incident=incident,
                                 recovery="memctl ui's log holds the details under this "
                                          "incident id.")
        ui.log.info("ui_request", method=request.method, route=route,
                    status=response.status_code)
        return response

    return endpoint


def _safe_details(exc: RpcError) -> list[str]:
    out: list[str] = []
    if isinstance(exc.errors, list):
        for e in exc.errors:
            if isinstance(e, Mapping):
                out.append(f"field {e.get('path')}: {e.get('expected') or e.get('problem')}")
    if isinstance(exc.details, Mapping):
        for key, value in exc.details.items():
            if key == "findings" and isinstance(value, list):
                for f in value:
                    if isinstance(f, Mapping):
                        out.append(f"{f.get('field')} [{f.get('start')}:{f.get('end')}] "
                                   f"{f.get('rule_id')} ({f.get('category')})")
            else:
                out.append(f"{key} = {value}")
    return out
