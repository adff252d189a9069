"""The second round of attacks on the performance shortcuts and the fields
around them, on a real daemon over its sockets.

Each hole this round found has a test here that failed before its fix; each
attack that held and was not covered elsewhere has one too, so it stays held.
The canary strings of a test must never reach the daemon's log, the audit
chain, an error or a status answer.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest

from memoryd.rpc.client import Client, RpcError
from tests.harness import Daemon, enable_consent, entry, fresh_identity, running

# Agent writes apply at once, so nothing but the content scan (and its review
# flag) stands between a write and its scope.
_AGENT_WRITES = """
[[rule]]
id = "agent-writes"
effect = "allow"
capability = "MemoryWrite"
channel = "agent"
"""

# A scope name that one of the scanner's review-only rules flags (a
# PowerShell download-and-run, ``iex iwr``, once the separators read as
# spaces): a write naming it is held for the operator's review.
REVIEW_SCOPE = "tools:iex-iwr"


@pytest.fixture(scope="module")
def d() -> Iterator[Daemon]:
    with running(policy=_AGENT_WRITES) as daemon:
        yield daemon


def expect(code: int, data_code: str, fn: Any, *args: Any) -> RpcError:
    with pytest.raises(RpcError) as info:
        fn(*args)
    assert (info.value.code, info.value.data_code) == (code, data_code), info.value.data
    return info.value


# --- holes: names the scanner reads, where they enter ---------------------------------


def test_a_scope_flagged_for_review_is_no_namespace_a_write_lands_in_unreviewed(
        d: Daemon, c: Client, a: Client) -> None:
    # A write naming the scope is held for review (scan.review); a write
    # without a scope goes to its task's first scope, which its own scan
    # never reads. So the name must not become a task's namespace (or a
    # team's scope) with its review finding dropped, or the same content in
    # the same scope is applied unreviewed.
    ident = fresh_identity("rv-")
    enable_consent(c, ident)
    token = c.call("token.issue", {"identity": ident})["token"]
    err = expect(-32004, "injection_detected", a.call, "task.begin",
                 {"token": token, "scopes": [REVIEW_SCOPE]})
    assert {f["field"] for f in err.data["details"]["findings"]} == {"scope"}
    expect(-32004, "injection_detected", c.call, "team.create", {"name": "iex-iwr"})
    assert "team:iex-iwr" not in json.dumps(c.call("team.list", {}))
    # A clean task of the same owner still writes as before.
    tid = a.call("task.begin", {"token": token, "scopes": ["tools:fine"]})["task_id"]
    assert a.call("memory.write", {"task_id": tid, "action": "add",
                                   "entry": entry()})["outcome"] == "applied"
    listed = c.call("memory.list", {"identity": ident})["items"]
    assert [item["scope"] for item in listed] == ["tools:fine"]
