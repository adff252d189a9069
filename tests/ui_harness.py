"""Run ``memctl ui`` against a test daemon, as the operator would.

The UI runs as a child process (``memctl --home H ui``); its stdout gives
the one-time login address and its stderr (the UI server's log) is kept in
a file so tests can search it for canaries. ``http`` speaks raw HTTP/1.1 to
it with chosen headers (Host included), for the refusal tests.
"""

from __future__ import annotations

import http.client
import re
import signal
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

from tests.harness import MEMCTL, REPO, Daemon


@dataclass
class Answer:
    status: int
    headers: dict[str, str]
    body: str


class UiServer:
    def __init__(self, daemon: Daemon) -> None:
        self.daemon = daemon
        self.log_path = daemon.home.parent / "ui.log"
        self.proc: subprocess.Popen[str] | None = None
        self.login_url = ""
        self.base = ""
        self.host = ""
        self.stdout_lines: list[str] = []

    def start(self) -> UiServer:
        log = open(self.log_path, "ab")
        self.proc = subprocess.Popen(
            [*MEMCTL, "--home", str(self.daemon.home), "ui"],
            stdout=subprocess.PIPE,
            stderr=log,
            env=self.daemon.env,
            cwd=REPO,
            text=True,
        )
        log.close()
        assert self.proc.stdout is not None
        while not self.login_url:
            line = self.proc.stdout.readline()
            if not line:
                raise RuntimeError(f"memctl ui exited: {self.log()}")
            self.stdout_lines.append(line)
            found = re.search(r"(http://([^/\s]+))/login\?token=\S+", line)
            if found:
                self.login_url, self.base, self.host = (
                    found.group(0),
                    found.group(1),
                    found.group(2),
                )
        return self

    def stop(self) -> int:
        if self.proc is None:
            return 0
        try:
            if self.proc.poll() is None:
                self.proc.send_signal(signal.SIGINT)
                try:
                    self.proc.wait(20)
                except subprocess.TimeoutExpired:
                    self.proc.kill()
                    self.proc.wait()
        finally:
            if self.proc.stdout is not None:
                self.proc.stdout.close()
        return self.proc.returncode

    def log(self) -> str:
        try:
            return Path(self.log_path).read_text(errors="replace")
        except FileNotFoundError:
            return ""

    def http(
        self,
        method: str,
        path: str,
        *,
        cookie: str | None = None,
        host: str | None = None,
        form: dict[str, Any] | None = None,
        headers: dict[str, str] | None = None,
    ) -> Answer:
        conn = http.client.HTTPConnection(self.host, timeout=30)
        sent = {"Host": host if host is not None else self.host, **(headers or {})}
        if cookie:
            sent["Cookie"] = cookie
        body = None
        if form is not None:
            body = urlencode(form, doseq=True)
            sent["Content-Type"] = "application/x-www-form-urlencoded"
        conn.request(method, path, body=body, headers=sent)
        reply = conn.getresponse()
        answer = Answer(
            reply.status,
            {k.lower(): v for k, v in reply.getheaders()},
            reply.read().decode("utf-8", "replace"),
        )
        conn.close()
        return answer

    def login(self) -> str:
        """Exchange the printed address for a session; the ``Cookie`` header value."""
        path = self.login_url.removeprefix(self.base)
        answer = self.http("GET", path)
        assert answer.status == 303, answer
        return answer.headers["set-cookie"].split(";")[0]


def csrf_of(html: str) -> str:
    found = re.search(r'name="csrf" value="([^"]+)"', html)
    assert found, "no CSRF field in the page"
    return found.group(1)
