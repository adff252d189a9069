"""Audit event schema: canonical bytes, the no-text guard, the package face."""

from __future__ import annotations

import ast
import importlib
import inspect
from datetime import UTC, datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import msgspec
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

import memoryd.audit as audit
import memoryd.audit.event as event_module
from memoryd.audit import (
    EVENT_KINDS,
    GENESIS_PREV,
    REASONS,
    AuditError,
    AuditEvent,
    EventBody,
    EventSubject,
    body_of,
    canonical_bytes,
    check_safe,
    decode_body,
    decode_event,
    encode_event,
    format_ts,
)
from memoryd.kernel.capability import Resource

TS = "2026-11-01T12:00:00.000001Z"
AUDIT_DIR = Path(audit.__file__).parent


def body(**overrides: Any) -> EventBody:
    fields: dict[str, Any] = {
        "seq": 1,
        "ts": TS,
        "kind": "operation",
        "prev": GENESIS_PREV,
        "subject": EventSubject(
            channel="agent", role="main", owner="own_" + "a" * 32, task_id="tsk_1"
        ),
        "capability": "MemoryWrite",
        "resource": "memory/user/own_5c:replace:ent_01J@3:b3k:" + "9" * 64,
        "decision_id": "dec_1",
        "effect": "allow",
        "rule_ids": ["r1"],
        "entry_ids": ["ent_01J"],
        "revisions": [3],
        "content_hashes": ["b3k:" + "f" * 64],
        "details": {
            "operation_id": "op_1",
            "count": 2,
            "pinned": False,
            "none": None,
            "manifest": ["ent_1", 4],
        },
    }
    fields.update(overrides)
    return EventBody(**fields)


# --------------------------------------------------------------------------
# canonical bytes
# --------------------------------------------------------------------------


def test_canonical_bytes_are_compact_with_sorted_keys() -> None:
    raw = canonical_bytes(body(details={"b": 1, "a": 2}))
    assert raw.startswith(b'{"capability":"MemoryWrite","content_hashes":')
    assert b'"details":{"a":2,"b":1}' in raw
    assert b" " not in raw


def test_canonical_bytes_keep_null_and_empty_fields() -> None:
    raw = canonical_bytes(EventBody(seq=1, ts=TS, kind="genesis", prev=GENESIS_PREV))
    decoded = msgspec.json.decode(raw)
    assert set(decoded) == set(EventBody.__struct_fields__)
    assert decoded["subject"] is None and decoded["rule_ids"] == [] and decoded["details"] == {}


def test_canonical_bytes_leave_out_the_hash() -> None:
    b = body()
    event = AuditEvent(**msgspec.structs.asdict(b), hash="1" * 64)
    assert canonical_bytes(event) == canonical_bytes(b)
    assert b'"hash"' not in canonical_bytes(event)
    assert body_of(event) == b


def test_export_form_is_the_body_with_the_hash_added() -> None:
    b = body()
    event = AuditEvent(**msgspec.structs.asdict(b), hash="1" * 64)
    line = encode_event(event)
    assert line.replace(b'"hash":"' + b"1" * 64 + b'",', b"") == canonical_bytes(b)
    assert decode_event(line) == event


safe_ids = st.from_regex(r"[A-Za-z0-9_:.@/+=-]{0,20}", fullmatch=True)
detail_values = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(),
    safe_ids,
    st.lists(st.one_of(st.integers(), safe_ids), max_size=3),
)
bodies = st.builds(
    EventBody,
    seq=st.integers(min_value=1, max_value=2**53),
    ts=st.just(TS),
    kind=st.sampled_from(sorted(EVENT_KINDS)),
    prev=st.from_regex(r"[0-9a-f]{64}", fullmatch=True),
    subject=st.none()
    | st.builds(EventSubject, channel=st.none() | safe_ids, owner=st.none() | safe_ids),
    capability=st.none() | safe_ids,
    resource=st.none() | st.from_regex(r"[!-~]{1,40}", fullmatch=True),
    rule_ids=st.lists(safe_ids, max_size=3),
    revisions=st.lists(st.integers(min_value=0, max_value=2**31), max_size=3),
    details=st.dictionaries(
        st.from_regex(r"[a-z][a-z0-9_]{0,10}", fullmatch=True), detail_values, max_size=4
    ),
)


@given(bodies)
def test_canonical_bytes_round_trip(b: EventBody) -> None:
    check_safe(b)
    raw = canonical_bytes(b)
    again = decode_body(raw)
    assert again == b
    assert canonical_bytes(again) == raw


def test_decode_body_refuses_unknown_fields_without_quoting_them() -> None:
    raw = canonical_bytes(body())[:-1] + b',"title":"my secret title"}'
    with pytest.raises(AuditError) as info:
        decode_body(raw)
    assert info.value.reason == "undecodable"
    assert "secret" not in str(info.value)


# --------------------------------------------------------------------------
# the no-text guard
# --------------------------------------------------------------------------


def test_a_well_formed_event_passes_the_guard() -> None:
    check_safe(body())


@pytest.mark.parametrize(
    ("field", "overrides"),
    [
        ("seq", {"seq": 0}),
        ("seq", {"seq": True}),
        ("ts", {"ts": "2026-11-01T12:00:00Z"}),
        ("ts", {"ts": "2026-11-01 12:00:00.000000Z"}),
        ("kind", {"kind": "made_up"}),
        ("prev", {"prev": "0" * 63}),
        ("prev", {"prev": "A" * 64}),
        ("subject", {"subject": EventSubject(owner="Alice Smith")}),
        ("subject", {"subject": {"owner": "own_1"}}),
        ("capability", {"capability": "Memory Write"}),
        ("resource", {"resource": "memory/user/my scope"}),
        ("resource", {"resource": ""}),
        ("resource", {"resource": "x" * 1025}),
        ("decision_id", {"decision_id": "dec\n1"}),
        ("rule_ids", {"rule_ids": ["ok", "not ok"]}),
        ("rule_ids", {"rule_ids": ("r1",)}),
        ("entry_ids", {"entry_ids": ["ent_" + "x" * 200]}),
        ("revisions", {"revisions": [-1]}),
        ("revisions", {"revisions": [True]}),
        ("content_hashes", {"content_hashes": ["the body text itself"]}),
        ("details", {"details": {"note": "remember that the user likes tea"}}),
        ("details", {"details": {"ratio": 0.5}}),
        ("details", {"details": {"nested": {"a": 1}}}),
        ("details", {"details": {"list": ["fine", "not fine"]}}),
        ("details", {"details": {"Bad Key": 1}}),
        ("details", {"details": {"k": "ü"}}),
    ],
)
def test_guard_refuses_text_and_malformed_fields(field: str, overrides: dict[str, Any]) -> None:
    with pytest.raises(AuditError) as info:
        check_safe(body(**overrides))
    assert info.value.reason == "invalid_event"
    assert info.value.field == field


def test_guard_accepts_canonical_resource_strings_in_details() -> None:
    resource = Resource(
        target="memory",
        scope="project:" + "a" * 120,
        action="replace",
        entry_id="ent_01J",
        expected_revision=3,
        content_hash="b3k:" + "9" * 64,
        type="fact",
    ).canonical()
    assert "%3A" in resource and len(resource) > 200
    check_safe(body(resource=resource, details={"resources": [resource], "first": resource}))


def test_guard_refuses_a_resource_lookalike_that_the_kernel_does_not_parse() -> None:
    with pytest.raises(AuditError):
        check_safe(body(details={"resources": ["memory/my%20secret%20note"]}))


def test_guard_error_never_quotes_the_value() -> None:
    with pytest.raises(AuditError) as info:
        check_safe(body(details={"k": "hunter2 is my password"}))
    assert "hunter2" not in str(info.value)
    assert "hunter2" not in repr(info.value)


def test_guard_checks_the_hash_of_a_whole_event() -> None:
    event = AuditEvent(**msgspec.structs.asdict(body()), hash="not a hash")
    with pytest.raises(AuditError) as info:
        check_safe(event)
    assert info.value.field == "hash"


# --------------------------------------------------------------------------
# timestamps, kinds, reasons
# --------------------------------------------------------------------------


def test_format_ts_writes_utc_microseconds_and_z() -> None:
    moment = datetime(2026, 11, 1, 14, 0, 0, 5, tzinfo=timezone(timedelta(hours=2)))
    assert format_ts(moment) == "2026-11-01T12:00:00.000005Z"
    assert format_ts(datetime(2026, 1, 2, 3, 4, 5, tzinfo=UTC)) == "2026-01-02T03:04:05.000000Z"


def test_format_ts_refuses_a_naive_time() -> None:
    with pytest.raises(AuditError):
        format_ts(datetime(2026, 11, 1, 12, 0))  # naive on purpose


def test_event_kinds_cover_every_audited_fact() -> None:
    required = {
        "genesis",
        "decision",
        "operation",
        "action_proposed",
        "action_approved",
        "action_denied",
        "action_expired",
        "consent_changed",
        "policy_loaded",
        "policy_rejected",
        "token_issued",
        "token_revoked",
        "task_begun",
        "task_ended",
        "snapshot_frozen",
        "retention_expired",
        "retention_purged",
        "receipt",
        "checkpoint",
        "undo",
    }
    assert required <= set(EVENT_KINDS)


def test_audit_error_takes_only_known_reasons() -> None:
    with pytest.raises(ValueError):
        AuditError("something_else")
    assert str(AuditError("seq_gap")) == REASONS["seq_gap"]


# --------------------------------------------------------------------------
# package face and layering
# --------------------------------------------------------------------------


def test_all_names_exist_and_every_public_definition_is_exported() -> None:
    assert len(audit.__all__) == len(set(audit.__all__))
    for name in audit.__all__:
        assert hasattr(audit, name), name
    for module_name in ("audit.chain", "audit.checkpoint", "audit.event", "audit.keyed"):
        module = importlib.import_module(module_name)
        for name, value in vars(module).items():
            defined_here = getattr(value, "__module__", None) == module_name
            if name.startswith("_") or not defined_here:
                continue
            if inspect.isclass(value) or inspect.isfunction(value):
                assert name in audit.__all__, f"{module_name}.{name} is not exported"


def test_audit_imports_nothing_from_daemon_or_rpc() -> None:
    for path in AUDIT_DIR.glob("*.py"):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            names: list[str] = []
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module:
                names = [node.module]
            for name in names:
                assert name.split(".")[0] not in {"daemon", "rpc"}, f"{path.name}: {name}"


# The quick guard and the field-by-field one agree on every event: values
# near the edges of each rule (newlines inside ids, bools for ints, floats,
# nested containers, resource strings, keys out of pattern) in every field.
_ODD_TEXT = st.sampled_from(
    [
        "",
        "ok",
        "own_1",
        "a\nb",
        "a b",
        "x" * 200,
        "x" * 201,
        "ü",
        "memory/default:add:-@-:-",
        "memory/a%3Ab:add:-@-:-",
        "memory/a%3ab:add:-@-:-",
        "Bad Key",
        "snake_key",
        "k\n",
        "\n",
    ]
)
_ODD = st.one_of(
    _ODD_TEXT,
    st.none(),
    st.booleans(),
    st.integers(-2, 3),
    st.floats(0, 1),
    st.lists(_ODD_TEXT, max_size=3),
    st.lists(st.integers(-1, 2), max_size=3),
    st.lists(st.one_of(_ODD_TEXT, st.integers(-1, 2), st.booleans()), max_size=3),
    st.tuples(_ODD_TEXT),
    st.dictionaries(_ODD_TEXT, st.integers(), max_size=1),
)
_ODD_SUBJECT = st.one_of(
    st.none(), st.builds(EventSubject, channel=_ODD, role=_ODD, owner=_ODD, task_id=_ODD), _ODD
)


_FIELD_VALUES: dict[str, Any] = {
    "seq": _ODD,
    "ts": st.one_of(_ODD, st.just(TS)),
    "kind": st.one_of(_ODD, st.just("decision")),
    "prev": st.one_of(_ODD, st.just(GENESIS_PREV)),
    "subject": _ODD_SUBJECT,
    "capability": _ODD,
    "resource": _ODD,
    "decision_id": _ODD,
    "effect": _ODD,
    "rule_ids": _ODD,
    "entry_ids": _ODD,
    "revisions": _ODD,
    "content_hashes": _ODD,
    "details": st.one_of(_ODD, st.dictionaries(_ODD_TEXT, _ODD, max_size=3)),
}
# One or two fields changed from a safe event: a value the guard refuses is
# then the only reason to refuse, so each rule is tried on its own.
_CHANGE = st.one_of(
    *(st.builds(lambda v, f=f: {f: v}, values) for f, values in _FIELD_VALUES.items())
)


def _verdict(event: EventBody) -> str | None:
    try:
        check_safe(event)
    except AuditError as exc:
        return exc.field or "?"
    return None


# Event after event, each is answered as it would be alone: the field the
# guard names (or none) never depends on the events checked before it.
@settings(max_examples=300)
@example([{}, {"details": {"k": "a b"}}])
@example([{"entry_ids": ["ent_1"]}, {"entry_ids": ["ent_1\n"]}])
@example([{}, {"ts": TS + "\n"}, {"resource": "memory/a b"}, {"details": {"Bad Key": 1}}])
@given(
    st.lists(
        st.lists(_CHANGE, max_size=2).map(lambda cs: {k: v for c in cs for k, v in c.items()}),
        min_size=2,
        max_size=4,
    )
)
def test_the_guard_answers_each_event_as_it_would_alone(changes: list[dict[str, Any]]) -> None:
    events = [body(**overrides) for overrides in changes]
    in_turn = [_verdict(event) for event in events]
    assert in_turn == [_verdict(event) for event in reversed(events)][::-1]
    assert in_turn[-1] == _verdict(events[-1])


# A resource string in the details is taken exactly when it is canonical and
# no longer than the longest the guard takes, next to ids and other strings.
_SCOPES = st.one_of(
    st.sampled_from(["default", "a:b", "x" * 1000, "y" * 1010, "z:" * 506]),
    st.text(alphabet="ab:% é\n", min_size=1, max_size=12),
)


@settings(max_examples=300)
@given(
    _SCOPES,
    st.lists(st.one_of(_ODD_TEXT, st.integers(0, 2)), max_size=2),
    st.sampled_from(["resources", "resource_list", "egress"]),
    st.booleans(),
)
def test_a_resource_string_in_the_details_is_taken_when_canonical_and_short_enough(
    scope: str, others: list[Any], key: str, alone: bool
) -> None:
    made = Resource(
        target="memory",
        scope=scope,
        action="add",
        entry_id=None,
        expected_revision=None,
        content_hash="b3k:" + "f" * 64,
    ).canonical()
    value: Any = made if alone else [*others, made]
    event = body(details={key: value, "policy_hash": "pol_" + "a" * 64})
    expected = len(made) <= event_module.SAFE_RESOURCE_MAX and all(
        event_module._detail_string(o) for o in ([] if alone else others) if isinstance(o, str)
    )
    try:
        check_safe(event)
    except AuditError as exc:
        assert not expected
        assert exc.field == "details"
    else:
        assert expected


# The guard keeps nothing between events: one found safe does not vouch for
# the next, however much of it the next one repeats.
@pytest.mark.parametrize(
    ("overrides", "field"),
    [
        ({"entry_ids": ["ent 2"]}, "entry_ids"),
        ({"details": {"operation_id": "op 2"}}, "details"),
        ({"decision_id": "dec 2"}, "decision_id"),
        ({"ts": TS + "\n"}, "ts"),
        ({"resource": "memory/a b"}, "resource"),
        ({"details": {"Bad Key": 1}}, "details"),
    ],
)
def test_an_event_after_a_safe_one_is_judged_on_its_own(
    overrides: dict[str, Any], field: str
) -> None:
    check_safe(body())
    check_safe(body(entry_ids=["ent_2"], details={"operation_id": "op_2"}))
    with pytest.raises(AuditError) as caught:
        check_safe(body(**overrides))
    assert caught.value.field == field
