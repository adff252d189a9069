"""The guard in front of every page of ``memctl ui``.

Owns: the one-time login token, the server-side sessions it is exchanged
for, the per-session CSRF token, and the ASGI middleware that checks each
request (Host header, session cookie, CSRF on state-changing methods) and
adds the security headers to each answer.

Invariants:
- the login token works once; it becomes a random session id sent only as
  an ``HttpOnly; SameSite=Strict`` cookie without ``Max-Age``, and sessions
  live in this process's memory only, so they end when ``memctl ui`` stops;
- a request whose ``Host`` is not the bound address (DNS rebinding), that
  has no valid session (except ``/login`` and the style sheet), or that
  changes state (any method but GET/HEAD) without this session's CSRF token
  and a same-origin ``Origin`` (when the browser sends one) is refused
  before any handler runs, and the refusal carries no request data;
- every answer carries a Content-Security-Policy that allows no script at
  all and forbids framing; a referrer goes to this origin only (Chromium
  sends ``Origin: null`` on same-origin form posts under ``no-referrer``,
  which must stay refused); nothing is cached.
"""

from __future__ import annotations

import hmac
import secrets
from collections import OrderedDict
from collections.abc import Awaitable, Callable, MutableMapping
from dataclasses import dataclass, field
from http.cookies import SimpleCookie
from typing import Any, Final
from urllib.parse import parse_qs

__all__ = [
    "COOKIE",
    "CSP",
    "CSRF_FIELD",
    "Guard",
    "Session",
    "Sessions",
    "allowed_hosts",
]

COOKIE: Final = "memui_session"
CSRF_FIELD: Final = "csrf"
# No script source at all: the page works without JavaScript, so nothing a
# memory could smuggle into the markup can run.
CSP: Final = ("default-src 'none'; style-src 'self'; img-src 'self'; form-action 'self'; "
              "frame-ancestors 'none'; base-uri 'none'")
_SAFE_METHODS: Final = frozenset({"GET", "HEAD"})
_PUBLIC_PATHS: Final = frozenset({"/login", "/static/ui.css"})
_MAX_VIEWS: Final = 64
_FORM_LIMIT: Final = 1024 * 1024

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]


@dataclass
class Session:
    """What the server remembers for the one logged-in browser."""

    csrf: str = field(default_factory=lambda: secrets.token_urlsafe(32))
    # The identity the operator acts for (None: the daemon's default one).
    identity: dict[str, str] | None = None
    # Listing state kept here so that no query or cursor travels in a URL:
    # a short random key names it in the address bar.
    views: OrderedDict[str, Any] = field(default_factory=OrderedDict)
    notices: list[str] = field(default_factory=list)

    def keep(self, value: Any) -> str:
        key = secrets.token_urlsafe(9)
        self.views[key] = value
        while len(self.views) > _MAX_VIEWS:
            self.views.popitem(last=False)
        return key

    def view(self, key: str | None) -> Any:
        return self.views.get(key) if key else None


class Sessions:
    """The login token and the sessions made from it."""

    def __init__(self) -> None:
        self.login_token: str | None = secrets.token_urlsafe(32)
        self._by_id: dict[str, Session] = {}

    def exchange(self, token: str) -> str | None:
        """A new session id for the login token, once; None otherwise."""
        expected = self.login_token
        if expected is None or not hmac.compare_digest(token.encode(), expected.encode()):
            return None
        self.login_token = None  # one use: the printed address cannot log in again
        sid = secrets.token_urlsafe(32)
        self._by_id[sid] = Session()
        return sid

    def get(self, sid: str | None) -> Session | None:
        return self._by_id.get(sid) if sid else None

    def end(self, sid: str | None) -> None:
        if sid:
            self._by_id.pop(sid, None)

    def end_all(self) -> None:
        self._by_id.clear()


def allowed_hosts(host: str, port: int) -> frozenset[str]:
    """The ``Host`` header values that name the bound address."""
    shown = f"[{host}]" if ":" in host else host
    names = {f"{shown}:{port}"}
    if host in ("127.0.0.1", "::1"):
        names.add(f"localhost:{port}")
    return frozenset(names)


def _header(scope: Scope, name: bytes) -> str | None:
    for key, value in scope.get("headers", ()):
        if key == name:
            return bytes(value).decode("latin-1")
    return None


def session_id(scope: Scope) -> str | None:
    raw = _header(scope, b"cookie")
    if not raw:
        return None
    jar: SimpleCookie = SimpleCookie()
    try:
        jar.load(raw)
    except Exception:  # noqa: BLE001 - a malformed cookie header is simply no session
        return None
    morsel = jar.get(COOKIE)
    return morsel.value if morsel is not None else None


def security_headers() -> list[tuple[bytes, bytes]]:
    return [
        (b"content-security-policy", CSP.encode()),
        (b"x-content-type-options", b"nosniff"),
        (b"x-frame-options", b"DENY"),
        (b"referrer-policy", b"same-origin"),
        (b"cache-control", b"no-store"),
        (b"cross-origin-opener-policy", b"same-origin"),
        (b"cross-origin-resource-policy", b"same-origin"),
    ]


async def _refuse(send: Send, status: int, text: str) -> None:
    body = (text + "\n").encode()
    headers = [(b"content-type", b"text/plain; charset=utf-8"),
               (b"content-length", str(len(body)).encode()), *security_headers()]
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})


class Guard:
    """ASGI middleware: refuse what is not ours, then let the app answer.

    ``on_refused(reason)`` is told each refusal (for the log); it gets a
    fixed reason word, never request data."""

    def __init__(self, app: ASGIApp, sessions: Sessions, hosts: frozenset[str],
                 on_refused: Callable[[str, str], None] = lambda _reason, _method: None) -> None:
        self.app = app
        self.sessions = sessions
        self.hosts = hosts
        self.on_refused = on_refused

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            if scope["type"] == "lifespan":
                await self.app(scope, receive, send)
            return  # no websockets here
        method = scope.get("method", "GET")
        if _header(scope, b"host") not in self.hosts:
            self.on_refused("wrong_host", method)
            await _refuse(send, 421, "This server answers only to the address it printed.")
            return
        path = scope.get("path", "")
        session = self.sessions.get(session_id(scope))
        if session is None and path not in _PUBLIC_PATHS:
            self.on_refused("no_session", method)
            await _refuse(send, 401, "Not logged in. Open the address memctl ui printed; "
                                     "it works once.")
            return
        if method not in _SAFE_METHODS:
            if session is None:
                self.on_refused("no_session", method)
                await _refuse(send, 401, "Not logged in.")
                return
            origin = _header(scope, b"origin")
            if origin is not None and origin.split("://", 1)[-1] not in self.hosts:
                self.on_refused("cross_origin", method)
                await _refuse(send, 403, "Refused: the request came from another site.")
                return
            body = await _read_body(receive)
            if body is None:
                self.on_refused("form_too_large", method)
                await _refuse(send, 413, "Refused: the form is too large.")
                return
            if not _csrf_ok(scope, body, session.csrf):
                self.on_refused("csrf", method)
                await _refuse(send, 403, "Refused: the form is missing its CSRF token; "
                                         "reload the page and try again.")
                return
            receive = _replay(body)
        scope.setdefault("state", {})["session"] = session
        scope["state"]["session_id"] = session_id(scope)

        async def with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                message["headers"] = [*message.get("headers", []), *security_headers()]
            await send(message)

        await self.app(scope, receive, with_headers)


async def _read_body(receive: Receive) -> bytes | None:
    chunks: list[bytes] = []
    size = 0
    while True:
        message = await receive()
        if message["type"] != "http.request":
            break
        chunk = message.get("body", b"")
        size += len(chunk)
        if size > _FORM_LIMIT:
            return None
        chunks.append(chunk)
        if not message.get("more_body", False):
            break
    return b"".join(chunks)


def _replay(body: bytes) -> Receive:
    sent = False

    async def receive() -> Message:
        nonlocal sent
        if sent:
            return {"type": "http.disconnect"}
        sent = True
        return {"type": "http.request", "body": body, "more_body": False}

    return receive


def _csrf_ok(scope: Scope, body: bytes, expected: str) -> bool:
    # The forms are urlencoded (no file uploads); a header also works for
    # scripted clients. Either must equal this session's token.
    given = _header(scope, b"x-csrf-token")
    if given is None:
        ctype = (_header(scope, b"content-type") or "").split(";")[0].strip().lower()
        if ctype != "application/x-www-form-urlencoded":
            return False
        try:
            fields = parse_qs(body.decode("utf-8"), keep_blank_values=True)
        except UnicodeDecodeError:
            return False
        values = fields.get(CSRF_FIELD) or []
        given = values[0] if len(values) == 1 else None
    return given is not None and hmac.compare_digest(given.encode(), expected.encode())
