"""``Op.in_scope`` is ``dataclasses.replace(op, scope=...)``: the same fields, a
new object; and the wire forms of a subject and a verdict name each enum by
its value."""

from __future__ import annotations

import dataclasses

from memoryd.daemon.pipeline.writes import Op, Verdict
from memoryd.daemon.storage.txn import audit_subject
from memoryd.kernel.capability import Channel, Effect, Role, Subject


def _fields(op: Op) -> dict[str, object]:
    return {f.name: getattr(op, f.name) for f in dataclasses.fields(op)}


def test_in_scope_is_replace_of_the_scope() -> None:
    op = Op(
        action="add",
        target="memory",
        scope=None,
        entry_id=None,
        expected_revision=None,
        entry={"type": "fact", "title": "t", "body": "b"},
        content_hash="b3k:00",
        reason_given=True,
        covered_by={"x": 1},
        reason="r",
        summary_derived=True,
    )
    moved = op.in_scope("project:acme")
    assert moved is not op and type(moved) is Op
    assert _fields(moved) == _fields(dataclasses.replace(op, scope="project:acme"))
    assert op.scope is None  # the draft's op is left as it was
    moved.scope = "other"
    assert op.scope is None
    # Every field is covered: a new field would be copied too.
    assert set(vars(moved)) == {f.name for f in dataclasses.fields(Op)}


# --- the enum values a write's answer and audit events name ----------------------


def test_an_audit_subject_names_each_channel_and_role_by_its_value() -> None:
    for channel in Channel:
        for role in Role:
            for task_id in (None, "tsk_1"):
                wire = audit_subject(Subject(channel, role, "own_1", task_id))
                assert wire == {
                    "channel": channel.value,
                    "role": role.value,
                    "owner": "own_1",
                    "task_id": task_id,
                }
                # Plain strings, as the audit guard takes them (exact types).
                assert type(wire["channel"]) is str and type(wire["role"]) is str


def test_a_verdict_names_its_effect_by_its_value() -> None:
    for effect in Effect:
        out = Verdict("dec_1", effect, ("r",), True, "h", ("memory/x:add:-@-:-",)).wire()
        assert out.effect == effect.value and type(out.effect) is str
