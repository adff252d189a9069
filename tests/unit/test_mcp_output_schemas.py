"""The tools' output schemas: every top-level field typed, every shape's
required fields named at every level, and nothing below the top level that a
client's check would visit field by field."""

from __future__ import annotations

import copy
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

jsonschema = pytest.importorskip("jsonschema")

from jsonschema.validators import validator_for  # noqa: E402
from referencing import Registry  # noqa: E402

from memoryd.memctl.mcp_tools import OUTPUT_SCHEMAS, TOOLS  # noqa: E402

# Per tool: the fields the answer must have, at the top and in each nested
# shape (an array's items named by the array), as SPEC §9 fixes them.
REQUIRED: dict[str, dict[str, list[str]]] = {
    "memory_status": {
        "": ["backend", "counts", "audit", "identity", "consent", "session"],
        "session": ["task_id", "grants", "tools", "notes"],
    },
    "memory_context": {
        "": ["snapshot_id", "task_id", "entries", "rendered"],
        "entries": ["id", "title", "type", "scope"],
    },
    "memory_search": {
        "": ["items", "mode"],
        "items": ["id", "title", "type", "status", "revision", "scope"],
    },
    "memory_read": {
        "": ["entries"],
        "entries": ["id", "target", "scope", "type", "title", "status", "revision"],
    },
    "memory_actions": {
        "": ["items"],
        "items": ["action_id", "status", "created_at"],
    },
    "memory_write": {
        "": ["outcome", "decision", "entries"],
        "decision": ["effect"],
        "entries": ["id", "target", "scope", "type", "title", "status", "revision"],
    },
    "memory_submit_session": {
        "": ["task_id", "ended"],
    },
}


def _nested(schema: dict[str, Any], field: str) -> dict[str, Any]:
    sub: dict[str, Any] = schema["properties"][field]
    return sub["items"] if sub.get("type") == "array" else sub


def test_every_tool_has_a_schema_and_the_table_covers_it() -> None:
    assert set(OUTPUT_SCHEMAS) == {spec.name for spec in TOOLS} == set(REQUIRED)


@pytest.mark.parametrize("tool", sorted(REQUIRED))
def test_the_required_fields_are_named_at_every_level(tool: str) -> None:
    schema = OUTPUT_SCHEMAS[tool]
    for path, names in REQUIRED[tool].items():
        shape = schema if path == "" else _nested(schema, path)
        assert shape["type"] == "object"
        assert shape["required"] == names, (tool, path)


@pytest.mark.parametrize("tool", sorted(REQUIRED))
def test_top_level_fields_are_typed_and_nested_shapes_are_not_checked_field_by_field(
    tool: str,
) -> None:
    schema = OUTPUT_SCHEMAS[tool]
    assert schema["additionalProperties"] is True  # new fields are welcome
    for field, sub in schema["properties"].items():
        assert "type" in sub or "enum" in sub, (tool, field)
        for shape in (sub, sub.get("items") or {}):
            # A declared field below the top level is one more subschema a
            # client's check visits for every answer (and every item).
            assert "properties" not in shape, (tool, field)
            if "required" in shape:
                assert shape.get("description"), (tool, field)


def _minimal(schema: dict[str, Any], tool: str) -> dict[str, Any]:
    """The smallest answer that fits: every required field at every level,
    each array with one item."""
    values = {"string": "x", "integer": 1, "boolean": True, "object": {}, "array": []}
    answer: dict[str, Any] = {}
    for field in schema["required"]:
        sub = schema["properties"][field]
        if field in REQUIRED[tool]:
            item: dict[str, Any] = {
                name: 1 if name == "revision" else "x" for name in REQUIRED[tool][field]
            }
            if field == "session":
                item.update(grants=[], tools=[], notes=[])
            answer[field] = [item] if sub["type"] == "array" else item
        elif "enum" in sub:
            answer[field] = sub["enum"][0]
        else:
            kind = sub["type"]
            answer[field] = values[kind if isinstance(kind, str) else kind[0]]
    return answer


def _check(schema: dict[str, Any], answer: dict[str, Any]) -> list[Any]:
    """The MCP SDK client's check of a structured result."""
    validator = validator_for(schema)(schema, registry=Registry())
    return list(validator.iter_errors(answer))


@pytest.mark.parametrize("tool", sorted(REQUIRED))
def test_an_answer_with_every_required_field_fits(tool: str) -> None:
    schema = OUTPUT_SCHEMAS[tool]
    answer = _minimal(schema, tool)
    assert _check(schema, answer) == []
    # Fields nobody declared are welcome at every level.
    answer["new_field"] = {"any": ["thing"]}
    for path in REQUIRED[tool]:
        if path:
            shape = answer[path][0] if isinstance(answer[path], list) else answer[path]
            shape["new_field"] = None
    assert _check(schema, answer) == []


_MISSING = [
    (tool, path, name)
    for tool, levels in sorted(REQUIRED.items())
    for path, names in levels.items()
    for name in names
]


@pytest.mark.parametrize(("tool", "path", "name"), _MISSING)
def test_an_answer_missing_a_required_field_at_any_level_does_not_fit(
    tool: str, path: str, name: str
) -> None:
    schema = OUTPUT_SCHEMAS[tool]
    answer = copy.deepcopy(_minimal(schema, tool))
    if path == "":
        del answer[name]
    else:
        shape = answer[path][0] if isinstance(answer[path], list) else answer[path]
        del shape[name]
    assert _check(schema, answer) != []


@given(
    tool=st.sampled_from(sorted(REQUIRED)),
    wrong=st.one_of(st.integers(), st.text(max_size=3), st.booleans(), st.none()),
)
def test_a_top_level_field_of_the_wrong_kind_does_not_fit(tool: str, wrong: Any) -> None:
    schema = OUTPUT_SCHEMAS[tool]
    answer = _minimal(schema, tool)
    for field in schema["required"]:
        sub = schema["properties"][field]
        kind = sub.get("type")
        if kind in ("object", "array"):
            bad = dict(answer, **{field: wrong})
            assert _check(schema, bad) != [], (tool, field, wrong)
