"""``Op.in_scope`` is ``dataclasses.replace(op, scope=...)``: the same fields, a new object."""

from __future__ import annotations

import dataclasses

from memoryd.daemon.writes import Op


def _fields(op: Op) -> dict[str, object]:
    return {f.name: getattr(op, f.name) for f in dataclasses.fields(op)}


def test_in_scope_is_replace_of_the_scope() -> None:
    op = Op(action="add", target="memory", scope=None, entry_id=None, expected_revision=None,
            entry={"type": "fact", "title": "t", "body": "b"}, content_hash="b3k:00",
            reason_given=True, covered_by={"x": 1}, reason="r", summary_derived=True)
    moved = op.in_scope("project:acme")
    assert moved is not op and type(moved) is Op
    assert _fields(moved) == _fields(dataclasses.replace(op, scope="project:acme"))
    assert op.scope is None  # the draft's op is left as it was
    moved.scope = "other"
    assert op.scope is None
    # Every field is covered: a new field would be copied too.
    assert set(vars(moved)) == {f.name for f in dataclasses.fields(Op)}
