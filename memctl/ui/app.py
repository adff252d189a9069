"""The ASGI application of ``memctl ui``: routes, login and logout.

Owns: the route table (one row per page or form), the login exchange of
the printed one-time address for a session cookie, logout, and the style
sheet. The pages themselves live in ``memories``, ``pending`` and
``admin``; the checks every request passes live in ``security``.

Invariants:
- every route but ``/login`` and the style sheet sits behind ``Guard``;
  every route that changes anything is a POST (so it needs the CSRF token);
- the session cookie is ``HttpOnly``, ``SameSite=Strict``, path ``/``, with
  no expiry: the browser forgets it when it closes, the server when
  ``memctl ui`` stops.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime
from importlib.resources import files
from pathlib import Path
from typing import Any

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import HTMLResponse, RedirectResponse, Response
from starlette.routing import Route

from memoryd.memctl.ui import admin, memories, pending
from memoryd.memctl.ui.context import Handler, Rpc, Ui, page, see_other
from memoryd.memctl.ui.present import make_environment
from memoryd.memctl.ui.security import COOKIE, Guard, Sessions, allowed_hosts
from memoryd.rpc.client import BadReply, ConnectError, ConnectionLost, RpcError

__all__ = ["build"]


async def _landing(ui: Ui) -> str:
    """Where a session starts: the queue when something waits, else memories."""
    try:
        status = await ui.call("memory.status", {})
    except (RpcError, ConnectError, ConnectionLost, BadReply, TimeoutError):
        return "/memories"
    waiting = status.get("pending_all_owners") if isinstance(status, dict) else None
    return "/pending" if isinstance(waiting, int) and waiting > 0 else "/memories"


async def _home(ui: Ui, _request: Request) -> Response:
    return see_other(await _landing(ui))


async def _logout(ui: Ui, request: Request) -> Response:
    ui.sessions.end(request.scope["state"].get("session_id"))
    response = HTMLResponse(ui.env.get_template("logged_out.html").render(
        csrf="", identity=None, notices=[], now=ui.now()))
    response.delete_cookie(COOKIE, path="/", httponly=True, samesite="strict")
    return response


# (path, methods, handler): the whole surface of the page.
ROUTES: list[tuple[str, list[str], Handler]] = [
    ("/", ["GET"], _home),
    ("/memories", ["GET"], memories.listing),
    ("/memories", ["POST"], memories.search),
    ("/memories/add", ["POST"], memories.add_entry),
    ("/entry/{entry_id}", ["GET"], memories.entry),
    ("/entry/{entry_id}/edit", ["POST"], memories.edit),
    ("/entry/{entry_id}/archive", ["POST"], memories.archive),
    ("/entry/{entry_id}/supersede", ["POST"], memories.supersede),
    ("/entry/{entry_id}/remove", ["POST"], memories.remove),
    ("/receipt/{receipt_id}", ["GET"], memories.receipt),
    ("/pending", ["GET"], pending.queue),
    ("/pending/{action_id}/approve", ["POST"], pending.approve),
    ("/pending/{action_id}/deny", ["POST"], pending.deny),
    ("/pending/bulk", ["POST"], pending.bulk_confirm),
    ("/pending/bulk/decide", ["POST"], pending.bulk_decide),
    ("/consent", ["GET"], admin.consent),
    ("/consent", ["POST"], admin.consent_set),
    ("/tokens/issue", ["POST"], admin.token_issue),
    ("/tokens/{token_id}/revoke", ["POST"], admin.token_revoke),
    ("/identity", ["POST"], admin.identity_set),
    ("/audit", ["GET"], admin.audit),
    ("/audit/verify", ["POST"], admin.verify_start),
    ("/audit/verify/{job_id}", ["GET"], admin.verify_job),
    ("/audit/checkpoint", ["POST"], admin.checkpoint),
    ("/journal/{operation_id}/undo", ["POST"], admin.undo),
    ("/status", ["GET"], admin.status),
    ("/projection", ["GET"], admin.projection),
    ("/projection/approve", ["POST"], admin.projection_approve),
    ("/logout", ["POST"], _logout),
]


def build(rpc: Rpc, socket_path: Path, host: str, port: int, *,
          sessions: Sessions | None = None, log: Any = None,
          now: Callable[[], datetime] = lambda: datetime.now(UTC)) -> tuple[Any, Ui]:
    """The guarded ASGI app for a server bound to ``host``:``port``."""
    sessions = sessions or Sessions()
    ui = Ui(rpc=rpc, env=make_environment(now), sessions=sessions, socket_path=socket_path,
            now=now)
    if log is not None:
        ui.log = log
    css = (files("memoryd.memctl.ui") / "static" / "ui.css").read_bytes()

    async def login(request: Request) -> Response:
        token = request.query_params.get("token", "")
        sid = sessions.exchange(token) if token else None
        if sid is None:
            ui.log.info("ui_login_refused")
            text = ui.env.get_template("login_refused.html").render(
                csrf="", identity=None, notices=[], now=ui.now())
            return HTMLResponse(text, status_code=403)
        ui.log.info("ui_login")
        response = RedirectResponse(await _landing(ui), status_code=303)
        response.set_cookie(COOKIE, sid, path="/", httponly=True, samesite="strict")
        return response

    async def style(_request: Request) -> Response:
        return Response(css, media_type="text/css")

    routes = [Route("/login", login, methods=["GET"]),
              Route("/static/ui.css", style, methods=["GET"])]
    routes += [Route(path, page(ui, handler), methods=methods)
               for path, methods, handler in ROUTES]
    app = Starlette(routes=routes)

    def refused(reason: str, method: str) -> None:
        ui.log.warning("ui_request_refused", reason=reason, method=method)

    return Guard(app, sessions, allowed_hosts(host, port), refused), ui
