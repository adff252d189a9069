"""Identifiers: entry ids are 26 Crockford base32 digits, sortable by time."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from hypothesis import given
from hypothesis import strategies as st

from memoryd.daemon.ids import _CROCKFORD, _b32, entry_id, random_id


def _digits(value: int, length: int) -> str:
    """The digits one at a time, least significant first, then reversed."""
    out = []
    for _ in range(length):
        out.append(_CROCKFORD[value & 31])
        value >>= 5
    return "".join(reversed(out))


@given(st.integers(min_value=0, max_value=(1 << 160) - 1), st.integers(min_value=1, max_value=30))
def test_b32_writes_the_last_digits_of_a_value_most_significant_first(
        value: int, length: int) -> None:
    assert _b32(value, length) == _digits(value, length)


def test_entry_ids_are_26_digits_and_sort_by_creation_time() -> None:
    start = datetime(2026, 1, 1, tzinfo=UTC)
    ids = [entry_id(start + timedelta(milliseconds=k)) for k in range(0, 5000, 7)]
    assert all(len(i) == 30 and i.startswith("ent_") for i in ids)
    assert all(set(i[4:]) <= set(_CROCKFORD) for i in ids)
    assert ids == sorted(ids)


def test_random_ids_carry_128_bits() -> None:
    ident = random_id("tsk")
    assert ident.startswith("tsk_") and len(ident) == 4 + 32
    assert random_id("tsk") != ident
