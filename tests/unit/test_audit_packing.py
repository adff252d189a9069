"""The audit table's row form: lossless, compact, and tampering still detected."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from memoryd.audit import EMPTY_HEAD, AuditError, EventSubject, next_stored, verify_chain
from memoryd.audit.chain import GENESIS_PREV, ChainHead, StoredEvent
from memoryd.audit.packing import (
    BLOCK,
    TAG_V1,
    TAG_V2,
    TAG_V3,
    Packer,
    Unpacker,
    first_needed,
    opens_block,
    pack_body,
    pack_hash,
    pack_row,
    row_of,
    stored_of,
    unpack_body,
    unpack_hash,
    unpack_rows,
)

SUBJECT = EventSubject(
    channel="agent", owner="own_" + "a7" * 16, role="main", task_id="tsk_" + "f7" * 16
)
CHASH = "b3k:" + "28" * 32


def _chain(n: int) -> list[tuple[int, bytes, bytes]]:
    """``n`` governed-write-like events, as the rows the store inserts."""
    head, rows = EMPTY_HEAD, []
    for i in range(n):
        _event, stored = next_stored(
            head,
            "operation",
            f"2026-12-01T02:39:58.{i:06d}Z",
            subject=SUBJECT,
            capability="MemoryWrite",
            resource=f"memory/notes:add+fact:-@-:{CHASH}",
            decision_id="dec_" + f"{i:032x}",
            effect="allow",
            rule_ids=["notes"],
            entry_ids=[f"ent_01M8QQJ9SB9FFP46KYZ6PG{i:04d}"],
            revisions=[1],
            content_hashes=[CHASH],
            details={"operation_id": "op_" + f"{i:032x}"},
        )
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
        changed = body[:at] + bytes([body[at] ^ 0x01]) + body[at + 1 :]
        tampered = [*rows[:3], (seq, changed, hash_), *rows[4:]]
        result = verify_chain(stored_of(*r) for r in tampered)
        assert not result.ok and result.first_bad_seq == seq


# --- V2: what the chain derives is not stored again ----------------------------------


def _events(n: int) -> list[tuple[StoredEvent, str]]:
    """``n`` events alternating as a governed write's decision and operation,
    each with the hash of the head it was linked to."""
    head, out = EMPTY_HEAD, []
    for i in range(n):
        write = i // 2
        fields: dict[str, Any] = {
            "subject": SUBJECT,
            "capability": "MemoryWrite",
            "resource": f"memory/notes:add+fact:-@-:b3k:{write:064x}",
            "decision_id": "dec_" + f"{write:032x}",
            "effect": "allow",
            "rule_ids": ["notes"],
            "content_hashes": [f"b3k:{write:064x}"],
        }
        if i % 2:
            fields.update(
                entry_ids=[f"ent_01M8QQJ9SB9FFP46KYZ6PG{write:04d}"],
                revisions=[1],
                details={"operation_id": "op_" + f"{write:032x}"},
            )
            kind = "operation"
        else:
            fields.update(
                details={
                    "explicit": True,
                    "policy_hash": "pol_" + "c1" * 32,
                    "resources": [fields["resource"]],
                }
            )
            kind = "decision"
        _event, stored = next_stored(head, kind, f"2026-12-01T02:39:58.{write:06d}Z", **fields)
        out.append((stored, head.hash))
        head = head.__class__(seq=stored.seq, hash=stored.hash)
    return out


def _v2_rows(n: int) -> list[tuple[int, bytes, bytes]]:
    """The rows the SQLite writer inserts for ``_events(n)``."""
    rows, before = [], None
    for stored, prev in _events(n):
        rows.append(pack_row(stored, prev, before))
        before = stored.body
    return rows


def test_a_v2_chain_reads_back_exactly_from_its_start_and_from_any_row() -> None:
    events = [stored for stored, _prev in _events(3 * BLOCK + 5)]
    rows = _v2_rows(len(events))
    assert {row[1][:1] for row in rows} == {TAG_V2}
    assert list(unpack_rows(rows)) == events
    assert verify_chain(unpack_rows(rows)).ok
    for seq in range(1, len(rows) + 1):
        start = first_needed(seq)
        assert start >= seq - BLOCK
        got = list(unpack_rows(rows[start - 1 : seq], seq - 1))
        assert got == [events[seq - 1]]


def test_a_v2_row_read_without_the_rows_before_it_is_not_its_event() -> None:
    rows = _v2_rows(BLOCK + 3)
    events = [stored for stored, _prev in _events(BLOCK + 3)]
    alone = list(unpack_rows(rows[BLOCK + 1 :], BLOCK + 1))  # the row before is not fed
    assert alone[0].body == rows[BLOCK + 1][1] != events[BLOCK + 1].body  # left as stored
    result = verify_chain(alone, start=ChainHead(seq=BLOCK + 1, hash=unpack_hash(rows[BLOCK][2])))
    assert not result.ok and result.first_bad_seq == BLOCK + 2


def test_a_governed_write_packed_against_the_event_before_costs_under_120_bytes() -> None:
    # Each write's two events, after the first block's opening row: body and
    # hash together (docs/performance.md measures the whole row on disk).
    rows = _v2_rows(2 * BLOCK)
    sizes = [len(body) + len(hash_) for seq, body, hash_ in rows if not opens_block(seq)]
    assert max(sizes) < 120  # the V1 form of the same events: about 180


@pytest.mark.parametrize("seq", [1, 2, BLOCK, BLOCK + 1, BLOCK + 2])
def test_any_changed_byte_of_a_v2_row_fails_at_its_seq(seq: int) -> None:
    rows = _v2_rows(BLOCK + 4)
    _seq, body, hash_ = rows[seq - 1]
    for at in range(1, len(body)):
        changed = body[:at] + bytes([body[at] ^ 0x01]) + body[at + 1 :]
        tampered = [*rows[: seq - 1], (seq, changed, hash_), *rows[seq:]]
        result = verify_chain(unpack_rows(tampered))
        assert not result.ok and result.first_bad_seq == seq


def test_a_changed_hash_column_fails_at_its_own_row_not_the_next() -> None:
    rows = _v2_rows(6)
    seq, body, _hash = rows[2]
    tampered = [*rows[:2], (seq, body, bytes(32)), *rows[3:]]
    result = verify_chain(unpack_rows(tampered))
    assert not result.ok and result.first_bad_seq == 3


def test_a_deleted_v2_row_is_reported_at_its_seq() -> None:
    rows = _v2_rows(8)
    result = verify_chain(unpack_rows([*rows[:4], *rows[5:]]))
    assert not result.ok and result.first_bad_seq == 5


_HASH = st.text(alphabet="0123456789abcdef", min_size=64, max_size=64)


@given(
    st.binary(max_size=300),
    st.binary(max_size=300),
    _HASH,
    st.binary(max_size=600),
    st.integers(1, 3 * BLOCK),
)
def test_a_body_naming_its_prev_round_trips_in_v2(
    head: bytes, tail: bytes, prev: str, before: bytes, seq: int
) -> None:
    if seq == 1:
        prev = GENESIS_PREV  # the first row's predecessor is the chain's genesis
    body = head + b'"prev":"' + prev.encode() + b'"' + tail
    row = pack_row(StoredEvent(seq, body, "ab" * 32), prev, before)
    assert row[1][:1] == TAG_V2
    # The row before: any row that reads back as ``before`` with hash ``prev``.
    earlier = [] if seq == 1 else [(seq - 1, pack_body(before), pack_hash(prev))]
    assert [e.body for e in unpack_rows([*earlier, row], seq - 1)] == [body]


def test_a_body_that_does_not_name_its_prev_is_packed_to_stand_alone() -> None:
    ((stored, prev),) = _events(1)
    row = pack_row(stored, "f" * 64, None)
    assert row[1][:1] == TAG_V1
    assert list(unpack_rows([row])) == [stored]
    assert pack_row(stored, prev, None)[1][:1] == TAG_V2


# --- V3: a block's rows are one deflate stream --------------------------------------


def _v3_rows(n: int) -> list[tuple[int, bytes, bytes]]:
    """The rows the SQLite writer inserts for ``_events(n)``, one packer throughout."""
    packer = Packer()
    return [packer.pack(stored, prev) for stored, prev in _events(n)]


def test_a_v3_chain_reads_back_exactly_from_its_start_and_from_any_row() -> None:
    events = [stored for stored, _prev in _events(3 * BLOCK + 5)]
    rows = _v3_rows(len(events))
    assert {row[1][:1] for row in rows} == {TAG_V3}
    assert list(unpack_rows(rows)) == events
    assert verify_chain(unpack_rows(rows)).ok
    for seq in range(1, len(rows) + 1):
        got = list(unpack_rows(rows[first_needed(seq) - 1 : seq], seq - 1))
        assert got == [events[seq - 1]]


def test_a_governed_write_in_v3_costs_less_than_in_v2() -> None:
    # Body and hash of each row after the first block's opening row.
    v2 = [len(b) + len(h) for seq, b, h in _v2_rows(2 * BLOCK) if not opens_block(seq)]
    v3 = [len(b) + len(h) for seq, b, h in _v3_rows(2 * BLOCK) if not opens_block(seq)]
    assert max(v3) < 120
    assert sum(v3) < sum(v2)


def test_v3_rows_of_a_block_carry_the_stream_and_only_its_first_opens_it() -> None:
    rows = _v3_rows(BLOCK + 3)
    # The varint after the tag holds ``cut * 2 + opens``: its first byte's low bit.
    opening = [seq for seq, body, _h in rows if body[1] & 1]
    assert opening == [1, BLOCK + 1]


@pytest.mark.parametrize("seq", [1, 2, BLOCK, BLOCK + 1, BLOCK + 2])
def test_any_changed_bit_of_a_v3_row_fails_at_its_seq_or_changes_no_event(seq: int) -> None:
    # Deflate skips some bits: those that pad a stored block's header to a
    # byte (the sync flush ends each row with one), and some of a block's
    # code table (the length of a code no symbol uses). A change there, as
    # in V1 and V2, reads as the very same events, and leaves the stream the
    # same for the rows after. Any other change is found at its own row,
    # never at a later one that reads through it.
    rows = _v3_rows(BLOCK + 4)
    events = list(unpack_rows(rows))
    _seq, body, hash_ = rows[seq - 1]
    same = 0
    for at in range(1, len(body)):
        for bit in range(8):
            changed = body[:at] + bytes([body[at] ^ (1 << bit)]) + body[at + 1 :]
            tampered = [*rows[: seq - 1], (seq, changed, hash_), *rows[seq:]]
            result = verify_chain(unpack_rows(tampered))
            if result.ok:
                assert list(unpack_rows(tampered)) == events
                same += 1
            else:
                assert result.first_bad_seq == seq
    assert same < len(body)  # a few bits of a row's several hundred


def test_a_v3_row_cut_short_or_extended_fails_at_its_seq() -> None:
    rows = _v3_rows(8)
    seq, body, hash_ = rows[4]
    for changed in (body[:-1], body + b"\x00", body + b"\x03\x00"):
        result = verify_chain(unpack_rows([*rows[:4], (seq, changed, hash_), *rows[5:]]))
        assert not result.ok and result.first_bad_seq == seq


def test_a_deleted_or_reordered_v3_row_is_reported_at_its_seq() -> None:
    rows = _v3_rows(8)
    result = verify_chain(unpack_rows([*rows[:4], *rows[5:]]))
    assert not result.ok and result.first_bad_seq == 5
    result = verify_chain(unpack_rows([*rows[:3], rows[4], rows[3], *rows[5:]]))
    assert not result.ok and result.first_bad_seq == 4


def test_a_v3_row_that_continues_a_stream_is_not_read_without_its_row_before() -> None:
    rows = _v3_rows(6)
    events = [stored for stored, _prev in _events(6)]
    # Its predecessor fed as a row of another form (same event, V1): the
    # hash is known, the stream is not.
    earlier = row_of(events[2])
    got = list(unpack_rows([earlier, rows[3]], 3))
    assert got[0].body == rows[3][1] != events[3].body  # left as stored: undecodable
    # A continuing row fed where a block starts is not read either.
    unpacker = Unpacker()
    for row in rows[:3]:
        unpacker.feed(*row)
    moved = unpacker.feed(BLOCK + 1, rows[3][1], rows[3][2])
    assert moved.body == rows[3][1]


def test_a_v3_body_that_does_not_name_its_prev_is_packed_to_stand_alone() -> None:
    ((stored, prev),) = _events(1)
    packer = Packer()
    row = packer.pack(stored, "f" * 64)
    assert row[1][:1] == TAG_V1
    assert list(unpack_rows([row])) == [stored]
    assert packer.pack(stored, prev)[1][:1] == TAG_V3


def test_rows_of_every_form_read_as_one_chain() -> None:
    # A store packed in V1, then V2 (schema 6), then V3 (schema 8), any
    # order of forms inside a block.
    pairs = _events(2 * BLOCK + 6)
    events = [stored for stored, _prev in pairs]
    packer, rows, before = Packer(), [], None
    for i, (stored, prev) in enumerate(pairs):
        form = (i // 5) % 3
        if form == 0:
            rows.append(row_of(stored))
        elif form == 1:
            rows.append(pack_row(stored, prev, before))
        else:
            rows.append(packer.pack(stored, prev))
        before = stored.body
    assert {row[1][:1] for row in rows} == {TAG_V1, TAG_V2, TAG_V3}
    assert list(unpack_rows(rows)) == events
    for seq in range(1, len(rows) + 1):
        assert list(unpack_rows(rows[first_needed(seq) - 1 : seq], seq - 1)) == [events[seq - 1]]


# What the writer does between rows: commit a transaction of some events,
# roll one back (its rows never reach the disk), or start again (a new
# process: a new packer). ``same`` rewrites, after a rollback, the very
# events rolled back (same bytes, same hashes).
_STEP = st.one_of(
    st.tuples(st.just("commit"), st.integers(1, 2 * BLOCK)),
    st.tuples(st.just("rollback"), st.integers(1, 5)),
    st.tuples(st.just("same"), st.integers(1, 5)),
    st.tuples(st.just("restart"), st.just(0)),
)


def _event_after(head: ChainHead, n: int) -> StoredEvent:
    write = n // 2
    _event, stored = next_stored(
        head,
        "operation" if n % 2 else "decision",
        f"2026-12-01T02:39:58.{n % 10**6:06d}Z",
        subject=SUBJECT,
        capability="MemoryWrite",
        effect="allow",
        resource=f"memory/notes:add+fact:-@-:b3k:{write:064x}",
        decision_id="dec_" + f"{write:032x}",
        content_hashes=[f"b3k:{write:064x}"],
        entry_ids=[f"ent_01M8QQJ9SB9FFP46KYZ6PG{n:04d}"] if n % 2 else [],
        details={"n": n},
    )
    return stored


@given(st.lists(_STEP, max_size=25))
def test_v3_rows_read_back_through_rollbacks_and_restarts(steps: list[tuple[str, int]]) -> None:
    packer = Packer()
    disk: list[tuple[int, bytes, bytes]] = []
    events: list[StoredEvent] = []
    head, n = EMPTY_HEAD, 0
    last_rolled: list[int] = []
    for step, count in steps:
        if step == "restart":
            packer = Packer()
            continue
        tx_head, written, made = head, [], []
        numbers = last_rolled if step == "same" and last_rolled else list(range(n, n + count))
        for number in numbers:
            stored = _event_after(tx_head, number)
            written.append(packer.pack(stored, tx_head.hash))
            made.append(stored)
            tx_head = ChainHead(seq=stored.seq, hash=stored.hash)
        n = max(n, max(numbers) + 1)
        if step == "rollback":
            last_rolled = numbers  # nothing reaches the disk; the head stays
            continue
        disk += written
        events += made
        head = tx_head
        last_rolled = []
    assert list(unpack_rows(disk)) == events
    assert verify_chain(unpack_rows(disk)).ok
    for seq in range(1, len(disk) + 1):
        assert list(unpack_rows(disk[first_needed(seq) - 1 : seq], seq - 1)) == [events[seq - 1]]


class _OddFlush:
    """A compressor whose sync flush does not end as zlib's does."""

    def copy(self) -> _OddFlush:
        return self

    def compress(self, data: bytes) -> bytes:
        return b""

    def flush(self, mode: int) -> bytes:
        return b"\x01\x02"


def test_a_chunk_not_ending_as_a_sync_flush_is_packed_to_stand_alone(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from memoryd.audit import packing

    pairs = _events(3)
    first = Packer().pack(*pairs[0])
    packer = Packer()  # a new process: its first row opens a stream
    with monkeypatch.context() as patched:
        patched.setattr(packing, "_V3_PRIMED", _OddFlush())
        second = packer.pack(*pairs[1])
    third = packer.pack(*pairs[2])
    assert (first[1][:1], second[1][:1], third[1][:1]) == (TAG_V3, TAG_V1, TAG_V3)
    assert third[1][1] & 1  # the stream was dropped: the next row opens one
    assert list(unpack_rows([first, second, third])) == [stored for stored, _ in pairs]
