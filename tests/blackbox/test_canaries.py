"""Canaries: raw memory text, queries, reasons, identities and tokens never leak.

One daemon runs a mixed workload in which random canary strings sit in every
field a caller can fill with text — titles, bodies, summaries, basis notes,
validity checks, archive and deny reasons, queries, intents, workspace paths,
identity subjects, tokens — written on control, proposed on agent (approved,
denied, left pending), rejected by the content scanner, and refused in every
error we can provoke. Then each place the daemon reports to — its log, the full
audit export, every error reply, ``memory.status`` on both sockets — is
searched: none may hold any canary. (Idempotency keys are the caller's own
record ids and may appear in records; they are not canaries here.)
"""

from __future__ import annotations

import json
import random
import re
import string
import time
import uuid
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import pytest

from memoryd.rpc.client import Client, RpcError
from tests.harness import Daemon, enable_consent, entry, running


def canary() -> str:
    # Twelve hex digits: unguessable here, and short of the high-entropy
    # secret rule, so the scanner lets the entry through to be stored.
    return "CANARY" + uuid.uuid4().hex[:12]


def fake_aws_key() -> str:
    return "AKIA" + "".join(random.choices(string.ascii_uppercase + string.digits, k=16))


@dataclass
class Run:
    daemon: Daemon
    canaries: list[str] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)  # every error reply, as JSON
    statuses: list[str] = field(default_factory=list)

    def new(self) -> str:
        value = canary()
        self.canaries.append(value)
        return value

    def fail(self, client: Client, method: str, params: dict[str, Any]) -> RpcError:
        with pytest.raises(RpcError) as info:
            client.call(method, params)
        err = info.value
        self.errors.append(
            json.dumps(
                {"code": err.code, "message": err.message, "data": err.data, "text": str(err)}
            )
        )
        return err


def _workload(run: Run, c: Client, a: Client) -> None:
    n = run.new
    ident = {"kind": "local", "subject": n()}
    enable_consent(c, ident)
    enable_consent(c)
    issued = c.call("token.issue", {"identity": ident, "scopes": ["project:x", "default"]})
    run.canaries.append(issued["token"])
    task = a.call("task.begin", {"token": issued["token"]})["task_id"]
    unscoped = c.call("token.issue", {"identity": ident})["token"]
    run.canaries.append(unscoped)
    ws_task = a.call("task.begin", {"token": unscoped, "workspace": f"/tmp/{n()}/repo"})["task_id"]

    def full_entry() -> dict[str, Any]:
        return entry(
            n(),
            f"Body with {n()} inside.",
            summary=f"Card {n()}",
            basis={"kind": "human", "note": f"said {n()}"},
            validity={"check": f"check {n()}"},
        )

    # Operator writes: add, replace, supersede, archive, remove.
    first = c.call("memory.write", {"action": "add", "entry": full_entry()})["entries"][0]
    second = c.call(
        "memory.write",
        {"action": "replace", "id": first["id"], "expected_revision": 1, "entry": full_entry()},
    )
    sup = c.call(
        "memory.write",
        {"action": "supersede", "id": first["id"], "expected_revision": 2, "entry": full_entry()},
    )
    newer = sup["entries"][1]
    c.call(
        "memory.write",
        {
            "action": "archive",
            "id": newer["id"],
            "expected_revision": 1,
            "reason": f"because {n()}",
        },
    )
    gone = c.call("memory.write", {"action": "add", "entry": full_entry()})["entries"][0]
    c.call("memory.write", {"action": "remove", "id": gone["id"], "expected_revision": 1})
    kept = c.call(
        "memory.write", {"action": "add", "entry": full_entry(), "idempotency_key": "kept-1"}
    )["entries"][0]
    assert second["outcome"] == "applied"

    # Agent proposals: approved, denied, left pending, one extraction with evidence.
    proposals = [
        a.call("memory.write", {"task_id": task, "action": "add", "entry": full_entry()})[
            "action_id"
        ]
        for _ in range(4)
    ]
    approved = c.call("governance.action.approve", {"action_id": proposals[0]})["entries"][0]
    c.call("governance.action.deny", {"action_id": proposals[1], "reason": f"no {n()}"})
    c.call("governance.action.get", {"action_id": proposals[2]})
    said = f"remember that {n()} matters"
    a.call(
        "memory.write",
        {
            "task_id": task,
            "action": "add",
            "source": "extraction",
            "evidence": {"user_message": said},
            "entry": entry(n(), said),
        },
    )
    a.call("memory.write", {"task_id": ws_task, "action": "add", "entry": full_entry()})
    a.call(
        "memory.write",
        {
            "task_id": task,
            "action": "batch",
            "ops": [
                {"action": "add", "entry": full_entry()},
                {"action": "add", "entry": full_entry()},
            ],
        },
    )

    # The scanner rejects, on both sockets.
    leaky = entry(n(), f"{n()} key {fake_aws_key()} {n()}")
    run.fail(c, "memory.write", {"action": "add", "entry": leaky})
    run.fail(
        a,
        "memory.write",
        {"task_id": task, "action": "add", "entry": entry(n(), f"{n()} id {fake_aws_key()}")},
    )
    run.fail(
        c, "memory.write", {"action": "add", "entry": entry(n(), f"{n()} \u202e hidden {n()}")}
    )
    run.fail(c, "memory.write", {"action": "add", "entry": entry(n(), "x" * 5000 + n())})

    # Conflicts and refusals carrying text.
    run.fail(c, "memory.write", {"action": "add", "entry": entry(kept["title"], n())})
    run.fail(
        c,
        "memory.write",
        {"action": "replace", "id": kept["id"], "expected_revision": 9, "entry": entry(n(), n())},
    )
    run.fail(
        c, "memory.write", {"action": "add", "entry": entry(n(), n()), "idempotency_key": "kept-1"}
    )
    run.fail(
        a,
        "memory.write",
        {"task_id": task, "action": "add", "scope": "project:other", "entry": entry(n(), n())},
    )
    run.fail(a, "task.begin", {"token": "mdt_" + n()})
    run.fail(a, "task.begin", {"identity": {"kind": "local", "subject": n()}})
    run.fail(c, "governance.action.deny", {"action_id": proposals[1], "reason": n()})

    # Bad params: values must never be echoed, nor unknown keys.
    run.fail(
        c, "memory.write", {"action": "add", "entry": {"type": n(), "title": n(), "body": n()}}
    )
    run.fail(c, "memory.write", {"action": "add", "entry": entry(n(), n()), n(): n()})
    run.fail(
        c, "memory.write", {"action": "add", "entry": {"type": "fact", "title": n(), "body": 7}}
    )
    run.fail(c, "memory.read", {"ids": [n()]})
    run.fail(c, "memory.write", {"action": n(), "entry": entry(n(), n())})
    run.fail(
        c,
        "memory.write",
        {"action": "add", "idempotency_key": f"bad key {n()}", "entry": entry(n(), n())},
    )
    run.fail(c, "memory.list", {"cursor": n()})
    run.fail(c, "memory.list", {"cursor": n(), "query": n()})
    run.fail(
        c,
        "consent.set",
        {"identity": {"kind": "local", "subject": n()}, "read": True, "version": 99},
    )
    run.fail(c, n(), {"text": n()})

    # Token labels, imported entries and their promotion (memctl import / promote).
    c.call("token.issue", {"identity": ident, "label": n()})
    imported = c.call(
        "memory.write",
        {
            "target": "memory",
            "scope": "canary:import",
            "action": "add",
            "source": "import",
            "entry": entry(n(), n()),
        },
    )["entries"][0]
    c.call("memory.promote", {"ids": [imported["id"]]})
    run.fail(c, "memory.promote", {"ids": [n()]})
    run.fail(c, "token.issue", {"identity": ident, "label": f"bad\n{n()}"})

    # Teams (docs/teams.md): members are named by identity; a member writes
    # into the team scope and a task reads it; refusals name no subject.
    c.call("team.create", {"name": "canaryteam"})
    c.call("team.add", {"name": "canaryteam", "identity": ident})
    c.call(
        "memory.write",
        {"identity": ident, "scope": "team:canaryteam", "action": "add", "entry": full_entry()},
    )
    team_task = a.call("task.begin", {"token": unscoped, "scopes": ["team:canaryteam"]})
    a.call("memory.list", {"task_id": team_task["task_id"], "query": n()})
    run.fail(c, "team.add", {"name": "nosuchteam", "identity": {"kind": "local", "subject": n()}})
    run.fail(c, "team.create", {"name": n()})
    run.fail(
        c,
        "memory.write",
        {
            "identity": {"kind": "local", "subject": n()},
            "scope": "team:canaryteam",
            "action": "add",
            "entry": full_entry(),
        },
    )
    run.fail(a, "task.begin", {"token": issued["token"], "scopes": ["team:canaryteam"]})
    c.call("team.remove", {"name": "canaryteam", "identity": ident})
    c.call("team.list", {})

    # Queries and intents.
    c.call("memory.list", {"query": f"vim {n()}"})
    a.call("memory.list", {"task_id": task, "query": n()})
    try:
        a.call("memory.context", {"task_id": task, "intent": f"fix the {n()} bug"})
    except RpcError as exc:
        if exc.code != -32601:  # absent until the recall issue lands
            raise
    a.call("memory.read", {"task_id": task, "ids": [approved["id"]], "include_pending": True})
    a.call("memory.list", {"task_id": task, "target": "user", "query": n()})
    c.call("policy.explain", {"capability": "MemoryRead", "channel": "agent", "target": "user"})

    for client, params in ((c, {}), (c, {"identity": ident}), (a, {"task_id": task}), (a, {})):
        run.statuses.append(json.dumps(client.call("memory.status", params)))


# A read rule that decides part of every agent read (the owner's user scope is
# in every task's view), so each read call writes its audited decision event
# with counts and rule ids — and with none of the queries or intents.
POLICY = """
[[rule]]
id = "no-agent-user-reads"
effect = "deny"
capability = "MemoryRead"
channel = "agent"
target = "user"
"""


@pytest.fixture(scope="module")
def run() -> Iterator[Run]:
    # Hybrid where the semantic extra is installed: the embedding worker and
    # the vector index are components the canaries must not reach either.
    with running(policy=POLICY, ranker="auto") as daemon:
        result = Run(daemon)
        with daemon.control() as c, daemon.agent() as a:
            _workload(result, c, a)
        yield result


def _leaks(text: str, canaries: list[str]) -> list[str]:
    return [value for value in canaries if value in text]


def test_the_workload_really_stored_canaries(run: Run) -> None:
    # Guards the searches below: the canaries are in the store, readable by
    # the operator, so their absence elsewhere means something.
    with run.daemon.control() as c:
        items = c.call("memory.list", {"statuses": ["active", "archived", "superseded"]})
        ids = [i["id"] for i in items["items"]]
        stored = json.dumps(c.call("memory.read", {"ids": ids}))
    assert len(_leaks(stored, run.canaries)) >= 10
    assert len(run.errors) >= 20


def test_no_canary_in_the_daemon_log(run: Run) -> None:
    log = run.daemon.log()
    assert log
    assert _leaks(log, run.canaries) == []


def test_no_canary_in_the_audit_export(run: Run) -> None:
    with run.daemon.control() as c:
        exported = c.call("audit.export", {})
    assert exported["events"]
    assert _leaks(json.dumps(exported), run.canaries) == []


def test_read_decisions_were_audited_without_text(run: Run) -> None:
    # Guards the export search above for the gate's read events: they exist.
    with run.daemon.control() as c:
        events = c.call("audit.export", {})["events"]
    reads = [e for e in events if "no-agent-user-reads" in e.get("rule_ids", [])]
    assert len(reads) >= 3
    assert _leaks(json.dumps(reads), run.canaries) == []


def test_no_canary_in_any_error_reply(run: Run) -> None:
    leaks = {i: _leaks(err, run.canaries) for i, err in enumerate(run.errors)}
    assert {i: found for i, found in leaks.items() if found} == {}


def test_no_canary_in_memory_status(run: Run) -> None:
    assert _leaks("\n".join(run.statuses), run.canaries) == []


def test_no_canary_in_the_pending_listing(run: Run) -> None:
    with run.daemon.control() as c:
        listed = c.call("governance.action.list", {})
        denied = c.call("governance.action.list", {"status": "denied"})
    assert listed["items"]
    assert _leaks(json.dumps([listed, denied]), run.canaries) == []


# --- projection and external recall (docs/projection.md) -------------------------------


def test_no_canary_or_credential_leaves_through_projection() -> None:
    """Projected and recalled text, intents and the provider credential stay out of
    the log, the audit export, memory.status and the projection report."""
    import shutil

    from tests.harness import Daemon, short_tempdir
    from tests.provider_receiver import receiver

    credential = "PROVIDERTOKEN" + uuid.uuid4().hex
    canaries = [canary() for _ in range(6)]
    allow = (
        '[[rule]]\nid = "net"\neffect = "allow"\ncapability = "NetworkAccess"\n\n'
        '[[rule]]\nid = "ext"\neffect = "allow"\ncapability = "MemoryExternalize"\n'
    )
    with receiver(credential) as rx:
        rx.recall_items = [{"id": f"ext-{canaries[0]}", "text": f"Remote {canaries[1]}."}]
        root = short_tempdir()
        d = Daemon(
            root / "h",
            env={"MEMORYD_TEST_PROVIDER_TOKEN": credential},
            policy=allow,
            config=f'[projection]\nmode = "hybrid"\nproject = true\n'
            f'endpoint = "{rx.endpoint}/{canaries[5]}"\n'
            'credential_env = "MEMORYD_TEST_PROVIDER_TOKEN"\n'
            "poll_interval_s = 0.05\n",
        )
        try:
            d.start()
            with d.control() as c:
                enable_consent(c)
                first = c.call(
                    "memory.write",
                    {"action": "add", "entry": entry(canaries[2], f"Body {canaries[3]}.")},
                )["entries"][0]
                deadline = time.monotonic() + 30
                while not rx.puts() and time.monotonic() < deadline:
                    time.sleep(0.02)
                assert rx.puts(), "the entry was never projected"
                task = c.call("task.begin", {})["task_id"]
                out = c.call("memory.context", {"task_id": task, "intent": f"about {canaries[4]}"})
                assert canaries[1] in out["rendered"]  # the evidence really arrived
                c.call(
                    "memory.write", {"action": "remove", "id": first["id"], "expected_revision": 1}
                )
                statuses = json.dumps(c.call("memory.status", {}))
                exported = json.dumps(c.call("audit.export", {}))
            report = d.memctl("projection", "report").stdout.decode()
            report += d.memctl("status", "--json").stdout.decode()
        finally:
            d.stop()
            log = d.log()
            shutil.rmtree(root, ignore_errors=True)
    for place, text in (
        ("log", log),
        ("status", statuses),
        ("audit", exported),
        ("report", report),
    ):
        assert _leaks(text, [*canaries, credential]) == [], place
    assert "projection_sent" in exported and "external_recall" in exported


def test_no_canary_in_the_ui_server_log(run: Run) -> None:
    # memctl ui (the optional web page) on the same daemon: log in, act for
    # a canary identity, search for canaries, open every page and every
    # entry, issue a token, provoke refusals; its log must hold none of it,
    # nor the one-time login address.
    pytest.importorskip("starlette")
    from tests.ui_harness import UiServer, csrf_of

    server = UiServer(run.daemon).start()
    secrets_seen = [server.login_url.split("token=", 1)[1]]
    try:
        cookie = server.login()
        page = server.http("GET", "/memories", cookie=cookie)
        csrf = csrf_of(page.body)
        server.http(
            "POST", "/memories", cookie=cookie, form={"csrf": csrf, "query": f"find {run.new()}"}
        )
        for link in set(re.findall(r'href="(/entry/[^"]+)"', page.body)):
            server.http("GET", link, cookie=cookie)
        for path in ("/pending", "/consent", "/audit", "/status"):
            assert server.http("GET", path, cookie=cookie).status == 200
        issued = server.http(
            "POST",
            "/tokens/issue",
            cookie=cookie,
            form={"csrf": csrf, "kind": "local", "subject": run.new()},
        )
        secrets_seen.append(
            issued.body.split('id="tok"', 1)[1].split('value="', 1)[1].split('"', 1)[0]
        )
        server.http(
            "POST",
            "/identity",
            cookie=cookie,
            form={"csrf": csrf, "kind": "local", "subject": run.new()},
        )
        server.http("GET", "/memories", cookie=cookie)
        server.http(
            "POST",
            "/memories/add",
            cookie=cookie,
            form={"csrf": csrf, "type": "fact", "title": run.new(), "body": f"a {run.new()} b"},
        )
        server.http("POST", "/memories", cookie=cookie, form={"query": run.new()})  # no CSRF
        server.http("GET", f"/entry/{run.new()}", cookie=cookie)
        server.http("GET", f"/memories?v={run.new()}", cookie=cookie, host="evil.example")
    finally:
        server.stop()
    log = server.log()
    assert "ui_request" in log
    assert _leaks(log, run.canaries + secrets_seen) == []
