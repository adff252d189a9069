"""The audit table's row form: lossless, compact, and tampering still detected."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from memoryd.audit import EMPTY_HEAD, AuditError, EventSubject, next_stored, verify_chain
from memoryd.audit.packing import (
    TAG_V1,
    pack_body,
    pack_hash,
    row_of,
    stored_of,
    unpack_body,
    unpack_hash,
)

SUBJECT = EventSubject(channel="agent", owner="own_" + "a7" * 16, role="main",
                       task_id="tsk_" + "f7" * 16)
CHASH = "b3k:" + "28" * 32


def _chain(n: int) -> list[tuple[int, bytes, bytes]]:
    """``n`` governed-write-like events, as the rows the store inserts."""
    head, rows = EMPTY_HEAD, []
    for i in range(n):
        _event, stored = next_stored(
            head, "operation", f"2026-12-01T02:39:58.{i:06d}Z", subject=SUBJECT,
            capability="MemoryWrite", resource=f"memory/notes:add+fact:-@-:{CHASH}",
            decision_id="dec_" + f"{i:032x}", effect="allow", rule_ids=["notes"],
            entry_ids=[f"ent_01M8QQJ9SB9FFP46KYZ6PG{i:04d}"], revisions=[1],
            content_hashes=[CHASH], details={"operation_id": "op_" + f"{i:032x}"})
        head = head.__class__(seq=stored.seq, hash=stored.hash)
        rows.append(row_of(stored))
    return rows


@given(st.binary(max_size=4096))
def test_any_body_unpacks_to_exactly_the_bytes_packed(body: bytes) -> None:
    assert unpack_body(pack_body(body)) == body


@given(st.binary(min_size=32, max_size=32))
def test_a_hash_round_trips_through_its_32_bytes(raw: bytes) -> None:
    assert pack_hash(raw.hex()) == raw
    assert unpack_hash(raw) == raw.hex()


def test_a_canonical_json_body_of_an_older_store_is_read_as_it_is() -> None:
    body = b'{"kind":"genesis"}'
    assert unpack_body(body) == body


@pytest.mark.parametrize("stored", [b"", b"\x02abc", TAG_V1 + b"\xff\xff\xff", b"x"])
def test_a_body_of_no_known_form_is_undecodable(stored: bytes) -> None:
    with pytest.raises(AuditError) as info:
        unpack_body(stored)
    assert info.value.reason == "undecodable"


def test_a_packed_body_cut_short_or_extended_is_undecodable() -> None:
    packed = pack_body(b'{"kind":"operation","seq":1}' * 4)
    for changed in (packed[:-2], packed + b"\x00"):
        with pytest.raises(AuditError):
            unpack_body(changed)


def test_a_hash_column_that_is_not_32_bytes_is_passed_on_for_the_verifier() -> None:
    assert unpack_hash("ab" * 32) == "ab" * 32
    assert unpack_hash(b"\x01\x02") == b"\x01\x02"


def test_a_governed_write_event_costs_under_300_bytes_of_body_and_hash() -> None:
    # The storage goal is 400 B per event on disk, SQLite's row and page
    # overhead included: the packed columns must leave room for it.
    for _seq, body, hash_ in _chain(5):
        assert len(body) + len(hash_) < 300


def test_packed_rows_verify_and_any_changed_body_byte_fails_at_its_seq() -> None:
    rows = _chain(6)
    assert verify_chain(stored_of(*r) for r in rows).ok
    seq, body, hash_ = rows[3]
    for at in range(1, len(body)):
        changed = body[:at] + bytes([body[at] ^ 0x01]) + body[at + 1:]
        tampered = [*rows[:3], (seq, changed, hash_), *rows[4:]]
        result = verify_chain(stored_of(*r) for r in tampered)
        assert not result.ok and result.first_bad_seq == seq
