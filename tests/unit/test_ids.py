"""Identifiers: entry ids are 26 Crockford base32 digits, sortable by time."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from hypothesis import example, given
from hypothesis import strategies as st

from memoryd.daemon.ids import _CROCKFORD, _entry_digits, entry_id, random_id


def _digits(value: int, length: int) -> str:
    """The digits one at a time, least significant first, then reversed."""
    out = []
    for _ in range(length):
        out.append(_CROCKFORD[value & 31])
        value >>= 5
    return "".join(reversed(out))


@example((1 << 48) - 1, (1 << 80) - 1)  # every digit at its largest
@example(0, 0)
@example(1 << 47, 1 << 79)
@example(1023, 1023 << 40)
@given(
    st.integers(min_value=0, max_value=(1 << 48) - 1),
    st.integers(min_value=0, max_value=(1 << 80) - 1),
)
def test_an_entry_ids_digits_are_its_time_and_random_bits_most_significant_first(
    ms: int, rand: int
) -> None:
    assert _entry_digits(ms, rand) == _digits(ms << 80 | rand, 26)


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
