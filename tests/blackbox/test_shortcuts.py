"""The shortcuts of the performance rounds, attacked: each promise they could bend holds.

A write decided before the writer, a task remembered per connection, an
authorization generation instead of two reads, a refusal decided before the
content scan's verdict is looked at: each test below makes the change a
shortcut could miss (by another connection, another daemon on the same
PostgreSQL schema, a moved clock, a reloaded policy) and then calls again, on
a real daemon over its sockets, or on the in-process seam with a fake clock
where time decides.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from memoryd.rpc.client import Client, RpcError
from tests.harness import Daemon, enable_consent, entry, fresh_identity, running

# A key id of the AWS form (the scanner's secret.aws_access_key_id): a scope
# name may hold one, since a scope is any run of [A-Za-z0-9._:@/+-].
SECRET_SCOPE = "AKIAIOSFODNN7EXAMPLE"

_DENY_WRITES = """
[[rule]]
id = "no-writes-here"
effect = "deny"
capability = "MemoryWrite"
"""


@pytest.fixture(scope="module")
def denying() -> Iterator[Daemon]:
    with running(policy=_DENY_WRITES) as daemon:
        yield daemon


def expect(code: int, data_code: str, fn: Any, *args: Any) -> RpcError:
    with pytest.raises(RpcError) as info:
        fn(*args)
    assert (info.value.code, info.value.data_code) == (code, data_code), info.value.data
    return info.value


def _exported(c: Client) -> str:
    events = c.call("audit.export", {"after_seq": 0, "limit": 1000})["events"]
    return "\n".join(str(event) for event in events)


# --- the audit chain never holds a refused scope name --------------------------------


def test_a_write_the_policy_denies_keeps_a_secret_scope_name_out_of_the_chain(
        denying: Daemon) -> None:
    # A deny is decided before the scan's verdict is looked at: the decision
    # event must not carry a scope name that the scan refuses, as the
    # rejection event does not ("memory/withheld:scope_refused").
    ident = fresh_identity("sc-")
    with denying.control() as c:
        expect(-32001, "policy_denied", c.call, "memory.write", {
            "identity": ident, "action": "add", "scope": SECRET_SCOPE, "entry": entry()})
        # A batch whose first op already fails the scan (a secret in its body):
        # the scan stops there, so the second op's scope was never scanned.
        expect(-32001, "policy_denied", c.call, "memory.write", {
            "identity": ident, "action": "batch", "ops": [
                {"action": "add", "scope": "plain",
                 "entry": entry("Key", "the key is AKIAIOSFODNN7EXAMPLF")},
                {"action": "add", "scope": SECRET_SCOPE + "/2", "entry": entry("Other")}]})
        exported = _exported(c)
    assert "AKIAIOSFODNN7EXAMPL" not in exported
    assert "withheld:scope_refused" in exported


_AGENT_WRITES = """
[[rule]]
id = "agent-writes"
effect = "allow"
capability = "MemoryWrite"
channel = "agent"
"""


@pytest.fixture(scope="module")
def d() -> Iterator[Daemon]:
    with running(policy=_AGENT_WRITES) as daemon:
        yield daemon


def test_a_task_scope_the_scan_refuses_is_refused_at_begin_and_never_audited(
        d: Daemon) -> None:
    # A write without a scope goes to its task's first scope, which the write's
    # own scan never reads: the name must be scanned where it enters, at
    # task.begin (its scopes, or its token's), or it reaches the chain with
    # every write's resource string.
    ident = fresh_identity("sc-")
    with d.control() as c, d.agent() as a:
        enable_consent(c, ident)
        token = c.call("token.issue", {"identity": ident})["token"]
        scoped = c.call("token.issue", {"identity": ident, "scopes": [SECRET_SCOPE]})["token"]
        expect(-32004, "secret_detected", a.call, "task.begin",
               {"token": token, "scopes": ["plain", SECRET_SCOPE]})
        expect(-32004, "secret_detected", a.call, "task.begin", {"token": scoped})
        # A clean task writes as before.
        tid = a.call("task.begin", {"token": token, "scopes": ["plain"]})["task_id"]
        assert a.call("memory.write", {"task_id": tid, "action": "add",
                                       "entry": entry()})["outcome"] == "applied"
        exported = _exported(c)
    assert "AKIAIOSFODNN7EXAMPL" not in exported
