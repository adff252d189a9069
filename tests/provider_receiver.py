"""A provider that speaks memoryd's provider protocol (docs/provider-openapi.yaml),
on loopback, for the tests.

It keeps documents per bank in memory, enforces "newest generation wins"
(an older generation gets 409, as the protocol says), records every request
it answered (method, bank, document, generation, title), and can be taken
down and brought back on the same port, or told to answer recalls with
chosen items, a status, a redirect or malformed JSON, or to take its time
over each document it is sent (``put_delay_s``: a slow provider).
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, unquote, urlsplit


@dataclass
class Seen:
    method: str
    bank: str
    document: str | None
    generation: int | None
    title: str | None
    authorization: str | None


@dataclass
class Receiver:
    token: str | None = None
    port: int = 0
    docs: dict[tuple[str, str], dict[str, Any]] = field(default_factory=dict)
    generations: dict[tuple[str, str], int] = field(default_factory=dict)
    seen: list[Seen] = field(default_factory=list)
    recall_items: list[dict[str, Any]] = field(default_factory=list)
    recall_mode: str = "ok"  # ok | status500 | redirect | malformed | oversized | deep
    # Every request as it came off the wire: its path and body bytes.
    wire: list[bytes] = field(default_factory=list)
    put_delay_s: float = 0.0  # how long each PUT takes before it is answered
    in_flight: int = 0  # PUTs being answered now
    most_in_flight: int = 0  # the most PUTs ever answered at once
    lock: threading.Lock = field(default_factory=threading.Lock)
    _server: ThreadingHTTPServer | None = None
    _thread: threading.Thread | None = None

    @property
    def endpoint(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def up(self) -> None:
        handler = _handler(self)
        self._server = ThreadingHTTPServer(("127.0.0.1", self.port), handler)
        self.port = self._server.server_address[1]
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)
        self._thread.start()

    def down(self) -> None:
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
            self._server = None

    def puts(self) -> list[Seen]:
        with self.lock:
            return [s for s in self.seen if s.method == "PUT"]

    def writes(self) -> list[Seen]:
        with self.lock:
            return [s for s in self.seen if s.method in ("PUT", "DELETE")]

    def received(self) -> bytes:
        """Every request path and body this provider was sent, joined."""
        with self.lock:
            return b"\n".join(self.wire)

    def bodies(self) -> list[str]:
        with self.lock:
            return [d["body"] for d in self.docs.values()]


def _handler(rx: Receiver) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, format: str, *args: Any) -> None:  # quiet
            pass

        def _reply(self, status: int, body: Any = None, raw: bytes | None = None) -> None:
            data = raw if raw is not None else (b"" if body is None else json.dumps(body).encode())
            self.send_response(status)
            if status in (301, 302, 307, 308):
                self.send_header("Location", "http://127.0.0.1:9/elsewhere")
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def _route(self) -> tuple[str, str | None, str, dict[str, list[str]]]:
            url = urlsplit(self.path)
            parts = [unquote(p) for p in url.path.strip("/").split("/")]
            # A base path in the endpoint is the provider's business: skip it.
            parts = parts[parts.index("v1") :] if "v1" in parts else parts
            # v1 / banks / BANK / documents / DOC   or   v1 / banks / BANK / recall
            if len(parts) == 5 and parts[:2] == ["v1", "banks"] and parts[3] == "documents":
                return parts[2], parts[4], "document", parse_qs(url.query)
            if len(parts) == 4 and parts[:2] == ["v1", "banks"] and parts[3] == "recall":
                return parts[2], None, "recall", parse_qs(url.query)
            return "", None, "unknown", {}

        def _body(self) -> Any:
            length = int(self.headers.get("Content-Length", "0"))
            raw = self.rfile.read(length)
            with rx.lock:
                rx.wire.append(self.path.encode() + b"\n" + raw)
            return json.loads(raw or b"null")

        def _authorised(self) -> bool:
            if rx.token is None:
                return True
            return self.headers.get("Authorization") == f"Bearer {rx.token}"

        def do_PUT(self) -> None:
            bank, doc, kind, _ = self._route()
            body = self._body()
            if kind != "document" or doc is None:
                return self._reply(404, {"error": "unknown"})
            key = (bank, doc)
            with rx.lock:
                rx.seen.append(
                    Seen(
                        "PUT",
                        bank,
                        doc,
                        body["generation"],
                        body["title"],
                        self.headers.get("Authorization"),
                    )
                )
                rx.in_flight += 1
                rx.most_in_flight = max(rx.most_in_flight, rx.in_flight)
            try:
                if rx.put_delay_s:
                    time.sleep(rx.put_delay_s)
            finally:
                with rx.lock:
                    rx.in_flight -= 1
            if not self._authorised():
                return self._reply(401, {"error": "auth"})
            with rx.lock:
                if rx.generations.get(key, 0) > body["generation"]:
                    return self._reply(409, {"generation": rx.generations[key]})
                rx.generations[key] = body["generation"]
                rx.docs[key] = body
            self._reply(200, {"generation": body["generation"]})

        def do_DELETE(self) -> None:
            bank, doc, kind, query = self._route()
            with rx.lock:
                rx.wire.append(self.path.encode())
            if kind != "document" or doc is None:
                return self._reply(404, {"error": "unknown"})
            if not self._authorised():
                return self._reply(401, {"error": "auth"})
            generation = int(query.get("generation", ["0"])[0])
            key = (bank, doc)
            with rx.lock:
                rx.seen.append(
                    Seen("DELETE", bank, doc, generation, None, self.headers.get("Authorization"))
                )
                if rx.generations.get(key, 0) > generation:
                    return self._reply(409, {"generation": rx.generations[key]})
                rx.generations[key] = generation
                found = rx.docs.pop(key, None)
            self._reply(200 if found else 404, {"deleted": found is not None})

        def do_POST(self) -> None:
            bank, _doc, kind, _ = self._route()
            body = self._body()
            if kind != "recall":
                return self._reply(404, {"error": "unknown"})
            if not self._authorised():
                return self._reply(401, {"error": "auth"})
            with rx.lock:
                rx.seen.append(
                    Seen("POST", bank, None, None, None, self.headers.get("Authorization"))
                )
                mode = rx.recall_mode
                items = list(rx.recall_items)
                items += [
                    {"id": d, "text": v["body"], "score": 1.0}
                    for (b, d), v in rx.docs.items()
                    if b == bank
                ]
            if mode == "status500":
                return self._reply(500, {"error": "down"})
            if mode == "redirect":
                return self._reply(307)
            if mode == "malformed":
                return self._reply(200, raw=b'{"items": [{"id": 1}')
            if mode == "oversized":
                return self._reply(200, {"items": [{"id": "x", "text": "y" * 2_000_000}]})
            if mode == "deep":
                # Well-formed JSON, but an unknown field nested 3,000 levels deep.
                nested = b"[" * 3_000 + b"]" * 3_000
                return self._reply(200, raw=b'{"items": [], "more": ' + nested + b"}")
            self._reply(200, {"items": items[: int(body.get("limit", 8))]})

    return Handler


@contextmanager
def receiver(token: str | None = None) -> Iterator[Receiver]:
    rx = Receiver(token=token)
    rx.up()
    try:
        yield rx
    finally:
        rx.down()
