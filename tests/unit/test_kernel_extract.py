"""The ``MemoryExtract`` capability: submitting a finished task's transcript
is decided by the kernel, with the owner's consent as its input."""

from __future__ import annotations

from memoryd.kernel.capability import Capability, Effect, Resource, Role, Subject
from memoryd.kernel.decide import decide
from memoryd.kernel.grants import Consent, extract_grants
from memoryd.kernel.policy import EMPTY_POLICY, load_policy

RES = Resource(
    target="memory",
    scope="default",
    action="extract",
    entry_id=None,
    expected_revision=None,
    content_hash=None,
)


def ask(
    role: str, consent: Consent, policy: object = EMPTY_POLICY, channel: str = "agent"
) -> object:
    subject = Subject(channel=channel, role=role, owner="own_x")  # type: ignore[arg-type]
    return decide(
        subject,
        Capability.MEMORY_EXTRACT,
        RES,
        policy,  # type: ignore[arg-type]
        decision_id="dec_1",
        grants=extract_grants(consent, role),
    )


def test_a_main_task_of_a_contributing_owner_may_submit() -> None:
    d = ask("main", Consent(contribute=True))
    assert d.effect is Effect.ALLOW  # type: ignore[attr-defined]


def test_submission_without_contribute_is_denied_by_an_always_on_rule() -> None:
    d = ask("main", Consent(read=True, learn_from_tools=True))
    assert d.effect is Effect.DENY  # type: ignore[attr-defined]
    assert d.always_on == "extraction_needs_contribute"  # type: ignore[attr-defined]


def test_a_subagent_never_submits_whatever_its_consent() -> None:
    d = ask("subagent", Consent(read=True, contribute=True, learn_from_tools=True))
    assert d.effect is Effect.DENY  # type: ignore[attr-defined]
    assert extract_grants(Consent(contribute=True), Role.SUBAGENT) == frozenset()


def test_policy_may_deny_submission_but_never_loosen_consent() -> None:
    policy = load_policy(
        '[[rule]]\nid = "no-extract"\neffect = "deny"\ncapability = "MemoryExtract"\n'
    )
    assert ask("main", Consent(contribute=True), policy).effect is Effect.DENY  # type: ignore[attr-defined]
    loose = load_policy('[[rule]]\nid = "yes"\neffect = "allow"\ncapability = "MemoryExtract"\n')
    d = ask("main", Consent(), loose)
    assert d.effect is Effect.DENY and d.always_on == "extraction_needs_contribute"  # type: ignore[attr-defined]


def test_the_operator_submits_only_for_a_contributing_owner() -> None:
    assert ask("operator", Consent(contribute=True), channel="control").effect is Effect.ALLOW  # type: ignore[attr-defined]
    assert ask("operator", Consent(), channel="control").effect is Effect.DENY  # type: ignore[attr-defined]
