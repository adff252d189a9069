"""A refusal names rules, codes and ids, never what it refused; that is never stored.

No secret, scope name or text a refusal is about reaches the chain, an
error or the store files.

On a real daemon over its sockets. The canary strings of a test must never
reach the daemon's log, the audit chain, an error or a status answer.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Iterator
from typing import Any

import pytest

from memoryd.rpc.client import Client
from tests.harness import (
    AGENT_WRITES,
    GITHUB_TOKEN,
    Daemon,
    enable_consent,
    entry,
    expect,
    exported_audit,
    fresh_identity,
    pg_connect,
    pg_store_of,
    running,
)

# How this module's daemon starts (the ``d`` fixture, tests/blackbox/conftest.py).
DAEMON = {"policy": AGENT_WRITES}


def _tokens(n: int) -> str:
    """``n`` distinct secrets of the GitHub token's form, one finding each."""
    return " ".join(f"ghp_{i:04d}" + GITHUB_TOKEN[8:] for i in range(n))


def _leaks(d: Daemon, c: Client, canary: str) -> bool:
    return canary in exported_audit(c) or canary in d.log()


@pytest.mark.parametrize(
    ("case", "content", "code"),
    [
        # More findings in the entry than a refusal's details list: the scope's
        # finding comes after them and was left off the details.
        ("many_findings", entry("Keys", _tokens(60)), "secret_detected"),
        # Refused before any text is scanned.
        ("blank_title", entry("   ", "fine"), "empty_content"),
        ("oversized", entry("Long", "word " * 1_000), "entry_too_large"),
    ],
)
def test_a_refused_write_keeps_a_secret_scope_name_out_of_the_chain_whatever_refused_it(
    d: Daemon, c: Client, case: str, content: dict[str, Any], code: str
) -> None:
    scope = f"{case}:{GITHUB_TOKEN}"
    family = -32005 if code == "entry_too_large" else -32004
    err = expect(
        family, code, c.call, "memory.write", {"action": "add", "scope": scope, "entry": content}
    )
    assert GITHUB_TOKEN not in json.dumps(err.data)
    assert not _leaks(d, c, GITHUB_TOKEN)
    events = c.call("audit.export", {"after_seq": 0, "limit": 100_000})["events"]
    rejected = [e for e in events if e["kind"] == "content_rejected"]
    assert rejected and rejected[-1]["resource"] == "memory/withheld:scope_refused"
    assert rejected[-1]["details"]["code"] == code


def test_a_refused_write_with_a_clean_scope_still_names_its_resource(d: Daemon, c: Client) -> None:
    # The other side of the fix: nothing is withheld that need not be.
    expect(
        -32004,
        "empty_content",
        c.call,
        "memory.write",
        {"action": "add", "scope": "clean:scope", "entry": entry("   ", "fine")},
    )
    events = c.call("audit.export", {"after_seq": 0, "limit": 100_000})["events"]
    rejected = [e for e in events if e["kind"] == "content_rejected"]
    assert rejected[-1]["resource"].startswith("memory/clean%3Ascope:add")


def test_the_mcp_bridge_names_no_unknown_argument_the_scanner_refuses(d: Daemon) -> None:
    # The daemon never names an unknown key (param_errors: the keys are client
    # data); the bridge names an unknown argument so a model can fix its call,
    # but a key's form pasted as an argument's name is not repeated back.
    pytest.importorskip("mcp")
    import anyio

    from tests.blackbox.test_mcp_session import FULL, _text, _token, session

    token = _token(d, "attacks3-unknown-arg", **FULL)

    async def go() -> Any:
        async with session(d.home, token=token) as s:
            await s.list_tools()
            return await s.call_tool(
                "memory_search", {"query": "x", GITHUB_TOKEN: 3, "limit_to": 3}
            )

    result = anyio.run(go)
    assert result.is_error
    error = result.structured_content["error"]
    assert error["code"] == "unknown_argument"
    shown = _text(result) + json.dumps(result.structured_content)
    assert GITHUB_TOKEN not in shown and GITHUB_TOKEN[:20] not in shown
    # A plain mistyped name is still named, and the withheld one still counted.
    assert {"path": "$.limit_to", "problem": "unknown argument"} in error["errors"]
    assert len(error["errors"]) == 2
    assert "limit_to" in _text(result) and "query" in _text(result)


def test_a_content_rejection_names_every_rule_that_fired_beyond_the_details_cut(
    d: Daemon, c: Client
) -> None:
    # The error lists at most fifty findings; the chain is the record, so
    # its event names every rule, the ones past the cut too.
    body = _tokens(60) + " AKIAIOSFODNN7EXAMPLE"
    err = expect(
        -32004,
        "secret_detected",
        c.call,
        "memory.write",
        {"action": "add", "scope": "rules:cut", "entry": entry("Keys", body)},
    )
    assert err.data["details"]["findings_omitted"] == 11
    events = c.call("audit.export", {"after_seq": 0, "limit": 100_000})["events"]
    rejected = [e for e in events if e["kind"] == "content_rejected"][-1]
    assert rejected["rule_ids"] == ["secret.aws_access_key_id", "secret.github_classic_token"]


def test_a_token_label_scope_or_kind_the_scan_refuses_is_refused_and_never_stored(
    d: Daemon, c: Client
) -> None:
    # A label is text the operator chose, kept beside the token and shown by
    # token.list (and memctl): a credential pasted into it would sit there.
    ident = fresh_identity("lb-")
    expect(
        -32004, "secret_detected", c.call, "token.issue", {"identity": ident, "label": GITHUB_TOKEN}
    )
    assert c.call("token.list", {"identity": ident})["items"] == []
    # A token's scopes are kept and shown the same way (and a task begun
    # with the token would be refused): the scan refuses them at issue too.
    err = expect(
        -32004,
        "secret_detected",
        c.call,
        "token.issue",
        {"identity": ident, "scopes": ["plain", "AKIAIOSFODNN7EXAMPLE"]},
    )
    assert {f["field"] for f in err.data["details"]["findings"]} == {"scope"}
    assert c.call("token.list", {"identity": ident})["items"] == []
    # So is the kind of its identity (token.list shows it), whose pattern
    # admits a GitLab token's form; any other identity field is only hashed.
    gitlab = "glpat-" + uuid.uuid4().hex[:20]
    expect(
        -32004,
        "secret_detected",
        c.call,
        "token.issue",
        {"identity": {"kind": gitlab, "subject": "someone"}},
    )
    issued = c.call(
        "token.issue", {"identity": ident, "label": "alice-laptop", "scopes": ["plain"]}
    )
    assert issued["label"] == "alice-laptop"
    listed = json.dumps(c.call("token.list", {}))
    assert GITHUB_TOKEN not in listed and "AKIAIOSFODNN7EXAMPL" not in listed
    assert gitlab not in listed
    assert GITHUB_TOKEN not in d.log()
    assert GITHUB_TOKEN not in exported_audit(c)


@pytest.fixture(scope="module")
def held() -> Iterator[Daemon]:
    """A daemon on the default policy: an agent's write is held for approval."""
    with running() as daemon:
        yield daemon


def _stored_bytes(daemon: Daemon) -> bytes:
    """Every byte of the store: the SQLite database and its WAL, or on
    PostgreSQL every row of the daemon's schema as text."""
    pg = pg_store_of(daemon.home)
    if pg is None:
        files = sorted(daemon.home.glob("memory.db*"))
        assert files, "no store files to read"
        return b"".join(path.read_bytes() for path in files)
    import psycopg.sql

    out = []
    with pg_connect(*pg) as conn:
        tables = [
            r[0]
            for r in conn.execute("SELECT tablename FROM pg_tables WHERE schemaname = %s", (pg[1],))
        ]
        assert tables, "no store tables to read"
        for table in tables:
            query = psycopg.sql.SQL("SELECT t::text FROM {} AS t").format(
                psycopg.sql.Identifier(table)
            )
            out += [str(r[0]) for r in conn.execute(query)]
    return "\n".join(out).encode()


def test_hashed_and_unkept_texts_never_reach_the_store_files(held: Daemon) -> None:
    # Only keyed hashes of an identity, a cited user message and an intent
    # are kept, and a query not at all: none of them may reach a page of the
    # database or its WAL (nor the log or the chain). A deny reason is kept
    # with its decision, and is never in the log or the chain.
    canary = {
        k: f"Cnry{k}{uuid.uuid4().hex[:8]}"
        for k in ("subject", "issuer", "message", "intent", "query", "deny")
    }
    with held.control() as c, held.agent() as a:
        ident = {"kind": "local", "subject": canary["subject"], "issuer": canary["issuer"]}
        enable_consent(c, ident)
        token = c.call("token.issue", {"identity": ident})["token"]
        tid = a.call("task.begin", {"token": token})["task_id"]
        out = a.call(
            "memory.write",
            {
                "task_id": tid,
                "action": "add",
                "source": "extraction",
                "entry": entry("Tea", "likes green tea"),
                "evidence": {"user_message": f"{canary['message']}: she likes green tea"},
            },
        )
        a.call("memory.context", {"task_id": tid, "intent": f"about {canary['intent']}"})
        a.call("memory.list", {"task_id": tid, "query": f"{canary['query']} tea"})
        c.call("governance.action.deny", {"action_id": out["action_id"], "reason": canary["deny"]})
        exported = exported_audit(c)
        status = json.dumps(c.call("memory.status", {"identity": ident}))
    stored, log = _stored_bytes(held), held.log()
    for name, text in canary.items():
        if name != "deny":
            assert text.encode() not in stored, name
        assert text not in log and text not in exported and text not in status, name
    # A deny reason is kept with the decision, for the operator and the
    # proposing agent (docs/decisions/0240-deny-reason-and-agent-outcome.md):
    # stored, and still never in the log, the chain or status.
    with held.control() as c:
        assert (
            c.call("governance.action.get", {"action_id": out["action_id"]})["reason"]
            == canary["deny"]
        )
    assert token.encode() not in stored and token not in log
