"""A scripted OpenAI-compatible chat endpoint on loopback, for the model extractor.

The benchmark and the tests play the language model with it: each POST's
JSON body is handed to the ``reply`` it was made with, which answers
``(status, headers, content)``. For a 200, ``content`` (the assistant
message's text: the extractor's JSON answer) is wrapped in the chat
completions envelope; any other status answers ``{}``. The server runs on a
thread of its own while ``serving`` holds it open.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

# What a reply gives: the status, extra headers, and the assistant's content.
Reply = tuple[int, Mapping[str, str], str]


class ChatEndpoint(ThreadingHTTPServer):
    """The endpoint, on an ephemeral loopback port."""

    def __init__(self, reply: Callable[[dict[str, Any]], Reply]) -> None:
        super().__init__(("127.0.0.1", 0), _Handler)
        self.reply = reply

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server_port}/v1"


@contextmanager
def serving(reply: Callable[[dict[str, Any]], Reply]) -> Iterator[ChatEndpoint]:
    """A ``ChatEndpoint`` answering with ``reply``, served until the block ends."""
    server = ChatEndpoint(reply)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield server
    finally:
        server.shutdown()
        server.server_close()


def user_text(body: dict[str, Any]) -> str:
    """The request's user message: the transcript as the extractor renders it."""
    return str(body["messages"][1]["content"])


class _Handler(BaseHTTPRequestHandler):
    server: ChatEndpoint

    def do_POST(self) -> None:
        body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", "0"))))
        status, headers, content = self.server.reply(body)
        data = (
            json.dumps(
                {"choices": [{"message": {"role": "assistant", "content": content}}]}
            ).encode()
            if status == 200
            else b"{}"
        )
        self.send_response(status)
        for name, value in headers.items():
            self.send_header(name, value)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, *_args: Any) -> None:
        pass
