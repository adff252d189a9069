"""Signed checkpoints: signing, verification, rollback and truncation."""

from __future__ import annotations

import msgspec
import pytest
from hypothesis import given
from hypothesis import strategies as st

from memoryd.audit import (
    CHECKPOINT_DOMAIN,
    EMPTY_HEAD,
    GENESIS_PREV,
    AuditError,
    ChainBuilder,
    ChainHead,
    Checkpoint,
    StoredEvent,
    VerifyResult,
    checkpoint_message,
    decode_checkpoint,
    encode_checkpoint,
    generate_signing_key,
    public_key_of,
    sign_checkpoint,
    verify_against_checkpoint,
    verify_checkpoint_signature,
)

TS = "2026-11-01T12:00:00.000000Z"
KEY = bytes(range(32))
OTHER_KEY = bytes(range(32, 64))


def make_chain(n: int, salt: str = "a", start: ChainHead = EMPTY_HEAD) -> list[StoredEvent]:
    builder = ChainBuilder(start)
    rows = []
    for i in range(n):
        kind = "genesis" if builder.head.seq == 0 else "operation"
        rows.append(
            builder.append(
                kind, f"2026-11-01T12:00:00.{i:06d}Z", details={"operation_id": f"op_{salt}{i}"}
            )
        )
    return rows


def checkpoint_at(rows: list[StoredEvent], seq: int, key: bytes = KEY) -> Checkpoint:
    head = EMPTY_HEAD if seq == 0 else ChainHead(seq=seq, hash=rows[seq - 1].hash)
    return sign_checkpoint(key, head, TS)


def verify(rows: list[StoredEvent], cp: Checkpoint) -> VerifyResult:
    return verify_against_checkpoint(rows, cp, trusted_public_key=public_key_of(KEY))


# --------------------------------------------------------------------------
# keys and signatures
# --------------------------------------------------------------------------


def test_generated_keys_are_raw_32_bytes_and_fresh() -> None:
    a, b = generate_signing_key(), generate_signing_key()
    assert len(a) == 32 and a != b
    assert len(public_key_of(a)) == 32


def test_signed_message_is_domain_prefix_plus_sorted_compact_json() -> None:
    assert checkpoint_message(7, "ab" * 32, TS) == (
        b"memoryd-checkpoint-v1\x00"
        + b'{"hash":"'
        + b"ab" * 32
        + b'","seq":7,"ts":"'
        + TS.encode()
        + b'"}'
    )
    assert checkpoint_message(7, "ab" * 32, TS).startswith(CHECKPOINT_DOMAIN)


def test_a_fresh_checkpoint_verifies_with_and_without_a_trusted_key() -> None:
    cp = checkpoint_at(make_chain(3), 3)
    assert cp.public_key == public_key_of(KEY).hex()
    assert len(bytes.fromhex(cp.signature)) == 64
    verify_checkpoint_signature(cp, public_key_of(KEY))
    verify_checkpoint_signature(cp, None)


@pytest.mark.parametrize(
    "change",
    [
        {"seq": 2},
        {"hash": "0" * 64},
        {"ts": "2026-11-01T12:00:00.000001Z"},
    ],
)
def test_any_changed_signed_field_breaks_the_signature(change: dict[str, object]) -> None:
    cp = msgspec.structs.replace(checkpoint_at(make_chain(3), 3), **change)
    with pytest.raises(AuditError) as info:
        verify_checkpoint_signature(cp, public_key_of(KEY))
    assert info.value.reason == "bad_signature"


@given(st.integers(min_value=0, max_value=63), st.integers(min_value=1, max_value=255))
def test_any_changed_signature_byte_is_refused(pos: int, flip: int) -> None:
    cp = checkpoint_at(make_chain(1), 1)
    sig = bytearray(bytes.fromhex(cp.signature))
    sig[pos] ^= flip
    with pytest.raises(AuditError) as info:
        verify_checkpoint_signature(
            msgspec.structs.replace(cp, signature=sig.hex()), public_key_of(KEY)
        )
    assert info.value.reason == "bad_signature"


def test_a_checkpoint_from_another_key_is_untrusted() -> None:
    cp = checkpoint_at(make_chain(2), 2, key=OTHER_KEY)
    verify_checkpoint_signature(cp, None)  # intact, just not ours
    with pytest.raises(AuditError) as info:
        verify_checkpoint_signature(cp, public_key_of(KEY))
    assert info.value.reason == "untrusted_key"


def test_swapping_in_another_public_key_breaks_the_signature() -> None:
    cp = checkpoint_at(make_chain(2), 2)
    forged = msgspec.structs.replace(cp, public_key=public_key_of(OTHER_KEY).hex())
    with pytest.raises(AuditError) as info:
        verify_checkpoint_signature(forged, None)
    assert info.value.reason == "bad_signature"


@pytest.mark.parametrize(
    "change",
    [
        {"seq": -1},
        {"hash": "zz" * 32},
        {"ts": "yesterday"},
        {"signature": "00"},
        {"signature": "not hex"},
        {"public_key": "ab" * 31},
    ],
)
def test_malformed_checkpoints_are_refused(change: dict[str, object]) -> None:
    cp = msgspec.structs.replace(checkpoint_at(make_chain(1), 1), **change)
    with pytest.raises(AuditError) as info:
        verify_checkpoint_signature(cp, None)
    assert info.value.reason == "malformed_checkpoint"


def test_uppercase_hex_is_not_a_second_spelling() -> None:
    cp = checkpoint_at(make_chain(1), 1)
    with pytest.raises(AuditError) as info:
        verify_checkpoint_signature(
            msgspec.structs.replace(cp, signature=cp.signature.upper()), None
        )
    assert info.value.reason == "malformed_checkpoint"


@pytest.mark.parametrize("key", [b"", bytes(31), bytes(64), "k" * 32])
def test_signing_keys_must_be_32_raw_bytes(key: object) -> None:
    with pytest.raises(AuditError) as info:
        sign_checkpoint(key, EMPTY_HEAD, TS)  # type: ignore[arg-type]
    assert info.value.reason == "bad_key"


def test_a_trusted_key_of_the_wrong_length_is_refused() -> None:
    cp = checkpoint_at(make_chain(1), 1)
    with pytest.raises(AuditError) as info:
        verify_checkpoint_signature(cp, bytes(16))
    assert info.value.reason == "bad_key"


def test_signing_refuses_a_malformed_head_or_time() -> None:
    with pytest.raises(AuditError):
        sign_checkpoint(KEY, ChainHead(seq=1, hash="short"), TS)
    with pytest.raises(AuditError):
        sign_checkpoint(KEY, EMPTY_HEAD, "2026-11-01")


def test_checkpoints_round_trip_through_their_json_form() -> None:
    cp = checkpoint_at(make_chain(2), 2)
    raw = encode_checkpoint(cp)
    assert set(msgspec.json.decode(raw)) == {"seq", "hash", "ts", "signature", "public_key"}
    assert decode_checkpoint(raw) == cp
    assert decode_checkpoint(raw.decode()) == cp


@pytest.mark.parametrize("raw", [b"", b"{}", b"[]", b'{"seq":1}', b"\xff"])
def test_unreadable_checkpoint_files_are_malformed(raw: bytes) -> None:
    with pytest.raises(AuditError) as info:
        decode_checkpoint(raw)
    assert info.value.reason == "malformed_checkpoint"


# --------------------------------------------------------------------------
# chain against checkpoint
# --------------------------------------------------------------------------


@given(st.integers(min_value=0, max_value=15), st.integers(min_value=0, max_value=10))
def test_a_chain_through_its_checkpoint_verifies(at: int, after: int) -> None:
    rows = make_chain(at + after)
    result = verify(rows, checkpoint_at(rows, at))
    assert result.ok and result.checked == at + after


@given(st.integers(min_value=1, max_value=20), st.data())
def test_any_tail_truncation_behind_a_checkpoint_is_detected(n: int, data: st.DataObject) -> None:
    rows = make_chain(n)
    at = data.draw(st.integers(min_value=1, max_value=n))
    keep = data.draw(st.integers(min_value=0, max_value=at - 1))
    result = verify(rows[:keep], checkpoint_at(rows, at))
    assert not result.ok
    assert result.reason == "truncated"
    assert result.first_bad_seq == keep + 1
    assert result.head.seq == keep


@given(st.integers(min_value=1, max_value=15), st.data())
def test_a_relinked_rewrite_behind_a_checkpoint_is_detected(n: int, data: st.DataObject) -> None:
    # Someone without the signing key rewrites history from row k on and
    # re-hashes it: internally consistent, but not the chain that was signed.
    rows = make_chain(n)
    at = data.draw(st.integers(min_value=1, max_value=n))
    k = data.draw(st.integers(min_value=1, max_value=at))
    start = EMPTY_HEAD if k == 1 else ChainHead(seq=k - 1, hash=rows[k - 2].hash)
    forged = rows[: k - 1] + make_chain(n - k + 1, salt="forged", start=start)
    result = verify(forged, checkpoint_at(rows, at))
    assert not result.ok
    assert result.reason == "checkpoint_mismatch"
    assert result.first_bad_seq == at


def test_a_rollback_to_an_earlier_prefix_plus_new_events_is_detected() -> None:
    rows = make_chain(6)
    cp = checkpoint_at(rows, 6)
    start = ChainHead(seq=3, hash=rows[2].hash)
    rolled = rows[:3] + make_chain(5, salt="later", start=start)
    result = verify(rolled, cp)
    assert not result.ok and result.reason == "checkpoint_mismatch" and result.first_bad_seq == 6


def test_tampering_before_the_checkpoint_is_reported_at_its_own_row() -> None:
    rows = make_chain(5)
    cp = checkpoint_at(rows, 5)
    rows[1] = rows[1]._replace(body=rows[1].body.replace(b"op_a1", b"op_a9"))
    result = verify(rows, cp)
    assert not result.ok and result.reason == "hash_mismatch" and result.first_bad_seq == 2


def test_tampering_after_the_checkpoint_is_still_caught() -> None:
    rows = make_chain(5)
    cp = checkpoint_at(rows, 2)
    rows[3] = rows[3]._replace(hash="e" * 64)
    result = verify(rows, cp)
    assert not result.ok and result.first_bad_seq == 4


def test_a_bad_checkpoint_judges_no_row() -> None:
    rows = make_chain(3)
    cp = msgspec.structs.replace(checkpoint_at(rows, 3), seq=2)
    result = verify(rows, cp)
    assert not result.ok
    assert result.reason == "bad_signature"
    assert result.first_bad_seq is None and result.checked == 0


def test_an_untrusted_checkpoint_is_refused_before_the_walk() -> None:
    rows = make_chain(3)
    cp = checkpoint_at(rows, 3, key=OTHER_KEY)
    result = verify(rows, cp)
    assert not result.ok and result.reason == "untrusted_key"


def test_a_checkpoint_of_the_empty_chain_is_valid() -> None:
    cp = checkpoint_at([], 0)
    assert cp.hash == GENESIS_PREV
    assert verify([], cp).ok


def test_verification_can_start_at_the_checkpoint_itself() -> None:
    rows = make_chain(6)
    cp = checkpoint_at(rows, 4)
    start = ChainHead(seq=cp.seq, hash=cp.hash)
    result = verify_against_checkpoint(
        rows[4:], cp, trusted_public_key=public_key_of(KEY), start=start
    )
    assert result.ok and result.checked == 2
