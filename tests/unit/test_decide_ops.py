"""``Gate.decide_write`` for one op decides it without the fold over many: the
verdict is the one the fold over every op's decision gives (daemon/access/gate.py)."""

from __future__ import annotations

import dataclasses

from hypothesis import given, settings
from hypothesis import strategies as st

from memoryd.daemon.access.gate import Gate
from memoryd.daemon.pipeline.governance import control_caller
from memoryd.daemon.pipeline.writes import Caller, Op
from memoryd.kernel.capability import Channel, Role, Subject
from memoryd.kernel.retention import EntryType
from tests.unit.test_kernel_decide_pure import POLICIES

_TYPES = [t.value for t in EntryType]


def _caller(agent: bool, role: Role, grants: frozenset[str] | None) -> Caller:
    caller = control_caller("own_a")
    if not agent:
        return caller
    return dataclasses.replace(
        caller,
        subject=Subject(Channel.AGENT, role, "own_a", "tsk_1"),
        channel="agent",
        grants=grants,
    )


_ops = st.builds(
    lambda action, target, scope, rev, type_: Op(
        action=action,
        target=target,
        scope=scope,
        entry_id=None if action == "add" else "ent_01HZY0000000000000000000AA",
        expected_revision=None if action == "add" else rev,
        entry=None if action in ("archive", "remove") else {"type": type_, "title": "t"},
        content_hash=None if action in ("archive", "remove") else "b3k:00",
    ),
    st.sampled_from(["add", "replace", "supersede", "archive", "remove"]),
    st.sampled_from(["memory", "user"]),
    st.sampled_from(["project:acme", "other", "user:own_a", "a b%"]),
    st.integers(min_value=0, max_value=5),
    st.sampled_from(_TYPES),
)


@settings(max_examples=300, deadline=None)
@given(
    st.booleans(),
    st.sampled_from(list(Role)),
    st.one_of(st.none(), st.frozensets(st.sampled_from(["memory.write", "memory.read"]))),
    st.lists(_ops, min_size=1, max_size=3),
    st.sampled_from(range(len(POLICIES))),
    st.one_of(st.none(), st.just({}), st.dictionaries(st.just(0), st.sampled_from(_TYPES))),
)
def test_a_verdict_is_the_fold_over_every_ops_decision(
    agent: bool,
    role: Role,
    grants: frozenset[str] | None,
    ops: list[Op],
    policy: int,
    touched: dict[int, str] | None,
) -> None:
    caller = _caller(agent, role, grants)
    gate = Gate(lambda: POLICIES[policy])
    got = gate.decide_write(caller, ops, POLICIES[policy], touched)
    want = gate.fold_write(caller, ops, POLICIES[policy], touched, got.decision_id)
    assert got == want
    assert type(got.effect) is type(want.effect)
    assert type(got.explicit) is bool
    assert got.decision_id.startswith("dec_") and len(got.decision_id) == 36
