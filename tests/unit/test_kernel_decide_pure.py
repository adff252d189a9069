"""``decide`` is a pure function of its arguments.

Asked the same question, it gives the same answer under the new decision id,
whatever it was asked before: a property over generated inputs asks each
after its neighbours that differ in one field and compares each answer with
one asked first.
"""

from __future__ import annotations

import dataclasses
import importlib
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from memoryd.kernel.capability import Capability, Channel, Resource, Role, Subject
from memoryd.kernel.decide import decide
from memoryd.kernel.grants import GRANT_GATED_METHODS, READ_METHODS
from memoryd.kernel.policy import EMPTY_POLICY, Policy, Rule, load_policy
from memoryd.kernel.retention import EntryType

decide_module = importlib.import_module("memoryd.kernel.decide")
KERNEL = Path(decide_module.__file__).resolve().parent

_RULES = """
[[rule]]
id = "writes-in-acme"
effect = "allow"
capability = "MemoryWrite"
scope = "project:acme*"

[[rule]]
id = "no-lessons"
effect = "deny"
type = "lesson"
action = ["add", "replace"]

[[rule]]
id = "subagent-reads"
effect = "requires_approval"
role = "subagent"
channel = "agent"
target = "user"

[[rule]]
id = "control-removes"
effect = "requires_approval"
channel = "control"
action = "remove"
"""
POLICIES = [EMPTY_POLICY, load_policy(_RULES), load_policy(_RULES.replace('"deny"', '"allow"'))]

_methods = st.sampled_from(
    [
        None,
        "memory.write",
        "memory.read",
        "memory.context",
        "memory.list",
        *sorted(GRANT_GATED_METHODS),
    ]
)
_grant_sets = st.frozensets(
    st.sampled_from(sorted({"memory.write", *READ_METHODS, *GRANT_GATED_METHODS})), max_size=4
)
_asks = st.fixed_dictionaries(
    {
        "policy": st.sampled_from(range(len(POLICIES))),
        "channel": st.sampled_from(list(Channel)),
        "role": st.sampled_from(list(Role)),
        "owner": st.sampled_from(["own_a", "own_b"]),
        "task": st.sampled_from([None, "tsk_1", "tsk_2"]),
        "capability": st.sampled_from([*Capability, "MemoryWrite", "Nope"]),
        "target": st.sampled_from(["memory", "user"]),
        "scope": st.sampled_from(["project:acme", "project:acme2", "other", "user:own_a"]),
        "action": st.sampled_from(["add", "replace", "remove", "read", "archive"]),
        "entry_id": st.sampled_from([None, "ent_1", "ent_2"]),
        "revision": st.sampled_from([None, 0, 3]),
        "hash": st.sampled_from([None, "b3k:00", "b3k:11"]),
        "type": st.sampled_from([None, *(t.value for t in EntryType)]),
        "grants": st.one_of(st.none(), _grant_sets),
        "method": _methods,
    }
)


def _ask(a: dict[str, object]) -> tuple[Policy, dict[str, object]]:
    subject = Subject(a["channel"], a["role"], a["owner"], a["task"])  # type: ignore[arg-type]
    resource = Resource(
        a["target"],
        a["scope"],
        a["action"],
        a["entry_id"],  # type: ignore[arg-type]
        a["revision"],
        a["hash"],
        type=a["type"],
    )  # type: ignore[arg-type]
    return POLICIES[a["policy"]], {  # type: ignore[index]
        "subject": subject,
        "capability": a["capability"],
        "resource": resource,
        "grants": a["grants"],
        "method": a["method"],
    }


def _fresh(policy: Policy, ask: dict[str, object], decision_id: str) -> object:
    return decide(policy=policy, decision_id=decision_id, **ask)  # type: ignore[arg-type]


@settings(max_examples=300, deadline=None)
@given(_asks, st.data())
def test_a_decision_is_the_same_whatever_was_asked_before(
    base: dict[str, object], data: st.DataObject
) -> None:
    # Ask the base, then each neighbour differing in one field; each answer
    # must be the one it got when asked first, under its new id.
    neighbours = [base]
    for field in base:
        other = data.draw(_asks.map(lambda a, f=field: a[f]), label=field)
        if other != base[field]:
            neighbours.append({**base, field: other})
    first = [_fresh(*_ask(a), f"dec_{i}") for i, a in enumerate(neighbours)]
    kept = []
    for i, a in enumerate(neighbours):
        policy, ask = _ask(a)
        kept.append(decide(policy=policy, decision_id=f"dec_{i}", **ask))  # type: ignore[arg-type]
        again = decide(policy=policy, decision_id=f"dec_again_{i}", **ask)  # type: ignore[arg-type]
        assert again == dataclasses.replace(kept[-1], decision_id=f"dec_again_{i}")
    assert kept == first


def test_a_new_policy_object_is_never_answered_from_the_old_one() -> None:
    allow, deny = load_policy(_RULES), load_policy(_RULES.replace('"allow"', '"deny"'))
    subject = Subject(Channel.AGENT, Role.MAIN, "own_a", "tsk_1")
    resource = Resource("memory", "project:acme", "add", None, None, "b3k:00", type="fact")
    grants = frozenset({"memory.write", "memory.read"})
    first = decide(
        subject,
        Capability.MEMORY_WRITE,
        resource,
        allow,
        decision_id="dec_1",
        grants=grants,
        method="memory.write",
    )
    then = decide(
        subject,
        Capability.MEMORY_WRITE,
        resource,
        deny,
        decision_id="dec_2",
        grants=grants,
        method="memory.write",
    )
    assert (first.effect.value, then.effect.value) == ("allow", "deny")
    assert then.policy_hash == deny.hash != first.policy_hash


def test_a_rule_that_raises_denies_every_time() -> None:
    class Broken(Rule):
        __slots__ = ()

        def matches(self, *_: object) -> bool:
            raise RuntimeError("broken")

    policy = Policy.build([Broken(id="broken", effect=load_policy(_RULES).rules[0].effect)])
    subject = Subject(Channel.CONTROL, Role.OPERATOR, "own_a")
    resource = Resource("memory", "s", "add", None, None, None)
    for _ in range(2):
        made = decide(subject, Capability.MEMORY_WRITE, resource, policy, decision_id="dec_1")
        assert made.effect.value == "deny" and made.rule_ids == ("broken",)
