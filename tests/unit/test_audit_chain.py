"""Hash chain: linking, and a verifier that catches every kind of tampering."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import msgspec
import pytest
from blake3 import blake3
from hypothesis import given
from hypothesis import strategies as st

from memoryd.audit import (
    EMPTY_HEAD,
    GENESIS_PREV,
    AuditError,
    ChainBuilder,
    ChainHead,
    EventBody,
    EventSubject,
    StoredEvent,
    VerifyResult,
    canonical_bytes,
    chain_hash,
    decode_body,
    encode_event,
    from_stored,
    link,
    next_event,
    next_row,
    next_stored,
    to_stored,
    verify_chain,
)

KINDS = ("decision", "operation", "action_proposed", "receipt", "snapshot_frozen")


def ts(i: int) -> str:
    return f"2026-11-01T12:00:{i % 60:02d}.{i:06d}Z"


def make_chain(n: int, start: ChainHead = EMPTY_HEAD) -> list[StoredEvent]:
    builder = ChainBuilder(start)
    rows = []
    for i in range(n):
        seq = start.seq + i + 1
        kind = "genesis" if seq == 1 else KINDS[i % len(KINDS)]
        rows.append(
            builder.append(
                kind,
                ts(i),
                subject=EventSubject(channel="control", role="operator", owner=f"own_{i:032x}"),
                capability="MemoryWrite" if i % 2 else None,
                entry_ids=[f"ent_{i}"] if i % 3 else [],
                revisions=[i] if i % 3 else [],
                details={"operation_id": f"op_{i}", "count": i},
            )
        )
    return rows


def assert_ok(result: VerifyResult, checked: int) -> None:
    assert result.ok, result
    assert result.checked == checked
    assert result.first_bad_seq is None and result.reason is None


def assert_bad(result: VerifyResult, seq: int, reason: str | None = None) -> None:
    assert not result.ok
    assert result.first_bad_seq == seq, result
    assert result.checked == seq - 1
    if reason is not None:
        assert result.reason == reason, result


chains = st.integers(min_value=1, max_value=25).map(make_chain)


# --------------------------------------------------------------------------
# linking
# --------------------------------------------------------------------------


def test_hash_follows_the_spec_rule() -> None:
    event = next_event(EMPTY_HEAD, "genesis", ts(0))
    expected = blake3(GENESIS_PREV.encode("ascii") + canonical_bytes(event)).hexdigest()
    assert event.hash == expected == chain_hash(GENESIS_PREV, canonical_bytes(event))


def test_next_event_continues_the_head() -> None:
    first = next_event(EMPTY_HEAD, "genesis", ts(0))
    second = next_event(ChainHead(seq=first.seq, hash=first.hash), "decision", ts(1))
    assert (first.seq, first.prev) == (1, GENESIS_PREV)
    assert (second.seq, second.prev) == (2, first.hash)


def test_link_refuses_a_body_naming_another_predecessor() -> None:
    body = EventBody(seq=1, ts=ts(0), kind="genesis", prev="1" * 64)
    with pytest.raises(AuditError) as info:
        link(GENESIS_PREV, body)
    assert info.value.field == "prev"


def test_link_refuses_text_in_an_event() -> None:
    with pytest.raises(AuditError) as info:
        next_event(EMPTY_HEAD, "operation", ts(0), details={"title": "Tea with milk"})
    assert info.value.reason == "invalid_event"


# Values an event's fields may be given, safe or not: ids, text with spaces,
# and a string of another type's field.
_values = st.one_of(
    st.from_regex(r"[A-Za-z0-9_:.@/+=-]{0,12}", fullmatch=True),
    st.sampled_from(["Tea with milk", "a\nb", "", "%41", "x" * 201]),
)


@given(
    st.integers(min_value=0, max_value=2**40),
    st.from_regex(r"[0-9a-f]{64}", fullmatch=True),
    st.sampled_from(sorted(KINDS)),
    st.one_of(st.none(), _values),
    st.lists(_values, max_size=3),
    st.lists(st.integers(min_value=-1, max_value=5), max_size=2),
    st.dictionaries(
        st.sampled_from(["operation_id", "count", "Title", "policy_hash"]),
        st.one_of(_values, st.integers(), st.booleans()),
        max_size=3,
    ),
)
def test_next_row_is_the_row_next_stored_makes(
    seq: int,
    hash_: str,
    kind: str,
    capability: str | None,
    entry_ids: list[str],
    revisions: list[int],
    details: dict[str, Any],
) -> None:
    # The writer's row without the AuditEvent: the same bytes and hash for
    # an event the guard takes, the same refusal (and field) for one it refuses.
    head = ChainHead(seq=seq, hash=hash_)
    fields: dict[str, Any] = {
        "capability": capability,
        "entry_ids": entry_ids,
        "revisions": revisions,
        "details": details,
    }
    try:
        _event, expected = next_stored(head, kind, ts(seq), **fields)
    except AuditError as refused:
        with pytest.raises(AuditError) as info:
            next_row(head, kind, ts(seq), **fields)
        assert (info.value.reason, info.value.field) == (refused.reason, refused.field)
    else:
        assert next_row(head, kind, ts(seq), **fields) == expected


def test_builder_head_tracks_the_last_row() -> None:
    builder = ChainBuilder(EMPTY_HEAD)
    row = builder.append("genesis", ts(0))
    assert builder.head == ChainHead(seq=1, hash=row.hash)


def test_stored_rows_round_trip_to_events() -> None:
    event = next_event(EMPTY_HEAD, "genesis", ts(0), details={"n": 1})
    row = to_stored(event)
    assert row == StoredEvent(1, canonical_bytes(event), event.hash)
    assert from_stored(row) == event
    assert decode_body(row.body).seq == 1


# --------------------------------------------------------------------------
# no false alarms
# --------------------------------------------------------------------------


def test_empty_chain_verifies_to_the_empty_head() -> None:
    result = verify_chain([])
    assert_ok(result, 0)
    assert result.head == EMPTY_HEAD


@given(chains)
def test_untouched_chain_always_verifies(rows: list[StoredEvent]) -> None:
    result = verify_chain(rows)
    assert_ok(result, len(rows))
    assert result.head == ChainHead(seq=rows[-1].seq, hash=rows[-1].hash)


@given(st.integers(min_value=0, max_value=20), st.integers(min_value=1, max_value=20))
def test_verification_resumes_from_any_trusted_head(split: int, more: int) -> None:
    rows = make_chain(split + more)
    start = EMPTY_HEAD if split == 0 else ChainHead(seq=split, hash=rows[split - 1].hash)
    assert_ok(verify_chain(rows[split:], start=start), more)


def test_plain_tuples_events_and_export_lines_verify_alike() -> None:
    rows = make_chain(6)
    assert_ok(verify_chain([tuple(r) for r in rows]), 6)  # type: ignore[misc]
    assert_ok(verify_chain([from_stored(r) for r in rows]), 6)
    assert_ok(verify_chain([encode_event(from_stored(r)) for r in rows]), 6)


def test_verifier_streams_and_stops_at_the_first_bad_row() -> None:
    rows = make_chain(5)
    rows[1] = rows[1]._replace(hash="f" * 64)

    def feed() -> Iterator[StoredEvent]:
        yield from rows[:2]
        raise AssertionError("read past the first bad row")

    assert_bad(verify_chain(feed()), 2, "hash_mismatch")


# --------------------------------------------------------------------------
# tampering: every single change is caught at or before the changed row
# --------------------------------------------------------------------------


@given(chains, st.data())
def test_any_changed_body_byte_is_detected_at_its_row(
    rows: list[StoredEvent], data: st.DataObject
) -> None:
    i = data.draw(st.integers(min_value=0, max_value=len(rows) - 1))
    pos = data.draw(st.integers(min_value=0, max_value=len(rows[i].body) - 1))
    flip = data.draw(st.integers(min_value=1, max_value=255))
    body = bytearray(rows[i].body)
    body[pos] ^= flip
    rows[i] = rows[i]._replace(body=bytes(body))
    assert_bad(verify_chain(rows), rows[i].seq, "hash_mismatch")


@given(chains, st.data())
def test_any_changed_hash_character_is_detected_at_its_row(
    rows: list[StoredEvent], data: st.DataObject
) -> None:
    i = data.draw(st.integers(min_value=0, max_value=len(rows) - 1))
    pos = data.draw(st.integers(min_value=0, max_value=63))
    old = rows[i].hash
    char = data.draw(st.characters().filter(lambda c: c != old[pos]))
    rows[i] = rows[i]._replace(hash=old[:pos] + char + old[pos + 1 :])
    assert_bad(verify_chain(rows), rows[i].seq, "hash_mismatch")


@given(chains, st.data())
def test_any_changed_seq_is_detected_at_or_before_its_row(
    rows: list[StoredEvent], data: st.DataObject
) -> None:
    i = data.draw(st.integers(min_value=0, max_value=len(rows) - 1))
    new_seq = data.draw(st.integers(min_value=-5, max_value=40).filter(lambda s: s != rows[i].seq))
    original = rows[i].seq
    rows[i] = rows[i]._replace(seq=new_seq)
    result = verify_chain(rows)
    assert not result.ok
    assert result.first_bad_seq is not None and result.first_bad_seq <= original


@given(st.integers(min_value=2, max_value=25), st.data())
def test_any_deletion_before_the_tail_is_detected_at_the_missing_seq(
    n: int, data: st.DataObject
) -> None:
    rows = make_chain(n)
    i = data.draw(st.integers(min_value=0, max_value=n - 2))
    del rows[i]
    assert_bad(verify_chain(rows), i + 1, "seq_gap")


@given(st.integers(min_value=2, max_value=25), st.data())
def test_any_adjacent_swap_is_detected_at_the_first_swapped_seq(
    n: int, data: st.DataObject
) -> None:
    rows = make_chain(n)
    i = data.draw(st.integers(min_value=0, max_value=n - 2))
    rows[i], rows[i + 1] = rows[i + 1], rows[i]
    assert_bad(verify_chain(rows), i + 1, "seq_gap")


@given(st.integers(min_value=2, max_value=25), st.data())
def test_swapped_contents_under_kept_seqs_are_detected(n: int, data: st.DataObject) -> None:
    rows = make_chain(n)
    i = data.draw(st.integers(min_value=0, max_value=n - 2))
    a, b = rows[i], rows[i + 1]
    rows[i] = StoredEvent(a.seq, b.body, b.hash)
    rows[i + 1] = StoredEvent(b.seq, a.body, a.hash)
    assert_bad(verify_chain(rows), i + 1, "hash_mismatch")


forged_rows = st.builds(
    StoredEvent,
    seq=st.integers(min_value=-2, max_value=30),
    body=st.binary(max_size=64),
    hash=st.text(alphabet="0123456789abcdef", min_size=64, max_size=64),
)


@given(chains, st.data())
def test_any_insertion_is_detected_at_its_position(
    rows: list[StoredEvent], data: st.DataObject
) -> None:
    i = data.draw(st.integers(min_value=0, max_value=len(rows)))
    forged = data.draw(st.one_of(forged_rows, st.sampled_from(rows)))
    rows.insert(i, forged)
    result = verify_chain(rows)
    assert not result.ok
    # A copy of the very row it lands before cannot be told from that row:
    # the duplicate is then the next one.
    twin = i + 1 < len(rows) and forged == rows[i + 1]
    assert result.first_bad_seq == (i + 2 if twin else i + 1)


def test_a_relinked_forgery_at_the_right_seq_is_caught_by_the_next_row() -> None:
    rows = make_chain(4)
    forged = next_event(ChainHead(seq=2, hash=rows[1].hash), "operation", ts(9))
    rows.insert(2, to_stored(forged))
    assert_bad(verify_chain(rows), 4, "seq_gap")


def test_a_wrong_start_head_fails_the_first_row() -> None:
    rows = make_chain(3)
    assert_bad(verify_chain(rows, start=ChainHead(seq=0, hash="1" * 64)), 1, "hash_mismatch")


# --------------------------------------------------------------------------
# rows that hash correctly but do not fit (a writer bug, not tampering)
# --------------------------------------------------------------------------


def _sealed(seq: int, prev: str, body: bytes) -> StoredEvent:
    return StoredEvent(seq, body, chain_hash(prev, body))


def test_a_body_naming_another_seq_is_reported() -> None:
    body = canonical_bytes(EventBody(seq=7, ts=ts(0), kind="genesis", prev=GENESIS_PREV))
    assert_bad(verify_chain([_sealed(1, GENESIS_PREV, body)]), 1, "seq_mismatch")


def test_a_body_naming_another_predecessor_is_reported() -> None:
    body = canonical_bytes(EventBody(seq=1, ts=ts(0), kind="genesis", prev="2" * 64))
    assert_bad(verify_chain([_sealed(1, GENESIS_PREV, body)]), 1, "prev_mismatch")


@pytest.mark.parametrize("body", [b"", b"not json", b"[1,2]", b'{"seq":"1","prev":"x"}'])
def test_an_undecodable_body_is_reported(body: bytes) -> None:
    assert_bad(verify_chain([_sealed(1, GENESIS_PREV, body)]), 1, "undecodable")


def test_an_unreadable_export_line_is_reported() -> None:
    rows: list[StoredEvent | bytes] = [*make_chain(2), b'{"seq": 3']
    assert_bad(verify_chain(rows), 3, "undecodable")


def test_a_malformed_tuple_row_is_reported() -> None:
    assert_bad(verify_chain([(1, b"{}")]), 1, "undecodable")  # type: ignore[list-item]


def test_a_body_of_the_wrong_type_is_reported() -> None:
    assert_bad(
        verify_chain([StoredEvent(1, "text", "0" * 64)]),
        1,  # type: ignore[arg-type]
        "undecodable",
    )


# --------------------------------------------------------------------------
# expected head (the mechanism behind checkpoints)
# --------------------------------------------------------------------------


def test_expected_head_before_the_start_is_a_caller_error() -> None:
    rows = make_chain(3)
    with pytest.raises(AuditError) as info:
        verify_chain(
            rows[2:],
            start=ChainHead(seq=2, hash=rows[1].hash),
            expect=ChainHead(seq=1, hash=rows[0].hash),
        )
    assert info.value.reason == "checkpoint_not_covered"


def test_expected_head_equal_to_the_start_is_compared_directly() -> None:
    rows = make_chain(2)
    start = ChainHead(seq=2, hash=rows[1].hash)
    assert_ok(verify_chain([], start=start, expect=start), 0)
    result = verify_chain([], start=start, expect=ChainHead(seq=2, hash="3" * 64))
    assert not result.ok and result.reason == "checkpoint_mismatch"


def test_verify_result_encodes_as_json() -> None:
    result = verify_chain(make_chain(2))
    decoded = msgspec.json.decode(msgspec.json.encode(result))
    assert decoded["ok"] is True and decoded["head"]["seq"] == 2
