"""Refusals are outcomes of one transaction; scans stay out of the writer.

In-process (tests/inproc.py), so the writer's transactions can be counted:
the store's ``run`` is wrapped to count write jobs and to note when the
writer is running one of ours, and the kernel's scanner is wrapped to note
where it ran.

- a denied write and its ``decision`` event commit in ONE transaction (no
  second transaction just to audit), and so does a content rejection and its
  ``content_rejected`` event;
- a write's content scan and an approval's re-scan both run before the
  writer's transaction, never inside it.
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import anyio
import pytest
from structlog.testing import capture_logs

from memoryd.kernel import scan as kernel_scan
from tests.harness import entry, fresh_identity
from tests.inproc import CallFailed, InProcess, composed

POLICY = """\
[[rule]]
id = "no-vault"
effect = "deny"
capability = "MemoryWrite"
scope = "vault:*"
"""

TOKEN = "ghp_aB3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY3zA5"
# Text that must never reach a log line or an audit event.
CANARY = "canary-heron-4f1c"


class Watch:
    """Counts the store's write transactions and where the scanner ran."""

    def __init__(self, daemon: InProcess, monkeypatch: pytest.MonkeyPatch) -> None:
        self.writes = 0
        self.in_writer = False
        self.scans_inside = 0
        self.scans_outside = 0
        store = daemon.store
        real_run = store.run

        async def run(
            fn: Callable[[Any], Any], *, write: bool = True, governed: bool = True
        ) -> Any:
            if not write:
                return await real_run(fn, write=write, governed=governed)
            self.writes += 1

            def watched(tx: Any) -> Any:
                self.in_writer = True
                try:
                    return fn(tx)
                finally:
                    self.in_writer = False

            return await real_run(watched, write=write, governed=governed)

        monkeypatch.setattr(store, "run", run)
        real_verdict = kernel_scan.verdict_fields

        def verdict_fields(*args: Any, **kwargs: Any) -> Any:
            if self.in_writer:
                self.scans_inside += 1
            else:
                self.scans_outside += 1
            return real_verdict(*args, **kwargs)

        # The pipeline imports the scanner's functions where it scans, and
        # the kernel's own callers (check_fields) call them by the module's
        # name: both read the module's attribute at each call.
        monkeypatch.setattr(kernel_scan, "verdict_fields", verdict_fields)

    def reset(self) -> None:
        self.writes = self.scans_inside = self.scans_outside = 0


def events(daemon: InProcess) -> list[dict[str, Any]]:
    return [json.loads(row.body) for row in daemon.store.audit_rows()]


def go(tmp_path: Path, body: Callable[[InProcess], Awaitable[None]]) -> None:
    async def main() -> None:
        with composed(tmp_path / "h", policy=POLICY) as daemon:
            await body(daemon)

    anyio.run(main, backend="asyncio")


@dataclass
class Refused:
    error: dict[str, Any]  # the wire error
    writes: int  # write transactions the call took
    events: list[dict[str, Any]]  # audit events the call appended
    logs: list[dict[str, Any]]  # what it logged

    def leaks(self, text: str) -> bool:
        return text in json.dumps(self.events) + repr(self.logs) + json.dumps(self.error)


async def refused_write(daemon: InProcess, watch: Watch, params: dict[str, Any]) -> Refused:
    before = len(events(daemon))
    watch.reset()
    with capture_logs() as logs:
        try:
            await daemon.call("control", "memory.write", params)
        except CallFailed as exc:
            return Refused(exc.error, watch.writes, events(daemon)[before:], logs)
    raise AssertionError("the write was not refused")


def test_a_denied_write_is_audited_in_the_transaction_that_denied_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    async def body(daemon: InProcess) -> None:
        out = await refused_write(
            daemon,
            Watch(daemon, monkeypatch),
            {
                # A scope name is part of the resource string the audit keeps;
                # the entry's text is not.
                "scope": "vault:keys",
                "action": "add",
                "entry": entry(CANARY, f"{CANARY} body"),
            },
        )
        assert out.error["data"]["code"] == "policy_denied"
        assert out.writes == 1
        assert [(e["kind"], e["effect"]) for e in out.events] == [("decision", "deny")]
        assert out.events[0]["decision_id"] == out.error["data"]["details"]["decision_id"]
        assert [e["event"] for e in out.logs] == ["write_denied"]
        assert not out.leaks(CANARY)

    go(tmp_path, body)


def test_a_rejected_write_is_audited_in_the_transaction_that_rejected_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    async def body(daemon: InProcess) -> None:
        watch = Watch(daemon, monkeypatch)
        out = await refused_write(
            daemon,
            watch,
            {
                "scope": "project:x",
                "action": "add",
                "entry": entry(CANARY, f"{CANARY}: the key is {TOKEN}"),
            },
        )
        assert out.error["data"]["code"] == "secret_detected"
        assert out.writes == 1
        assert [e["kind"] for e in out.events] == ["content_rejected"]
        assert [e["event"] for e in out.logs] == ["write_rejected"]
        assert not out.leaks(TOKEN) and not out.leaks(CANARY)
        assert watch.scans_outside >= 1 and watch.scans_inside == 0

    go(tmp_path, body)


def test_an_approval_scans_its_proposal_before_the_writer(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    async def body(daemon: InProcess) -> None:
        ident = fresh_identity("go-")
        consent = await daemon.call("control", "consent.get", {"identity": ident})
        await daemon.call(
            "control",
            "consent.set",
            {"identity": ident, "read": True, "contribute": True, "version": consent["version"]},
        )
        token = (await daemon.call("control", "token.issue", {"identity": ident}))["token"]
        task = await daemon.call("agent", "task.begin", {"token": token})
        proposed = await daemon.call(
            "agent",
            "memory.write",
            {"task_id": task["task_id"], "action": "add", "entry": entry("Heron", "Grey.")},
        )
        assert proposed["outcome"] == "pending"
        watch = Watch(daemon, monkeypatch)
        out = await daemon.call(
            "control", "governance.action.approve", {"action_id": proposed["action_id"]}
        )
        assert out["outcome"] == "applied"
        assert watch.scans_outside >= 1, "the approval did not scan the proposal"
        assert watch.scans_inside == 0

    go(tmp_path, body)
