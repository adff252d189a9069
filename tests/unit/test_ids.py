"""Identifiers: entry ids are 26 Crockford base32 digits, sortable by time."""

from __future__ import annotations

import os
import re
import secrets
import threading
from datetime import UTC, datetime, timedelta

import pytest
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


_HEX_ID = re.compile(r"[a-z]{2,3}_[0-9a-f]{32}")


@given(st.sampled_from(["dec", "op", "tsk", "act", "rcp"]), st.integers(min_value=1, max_value=300))
def test_random_ids_drawn_a_block_at_a_time_have_token_hexs_form(prefix: str, n: int) -> None:
    # The ids a block gives have the form one secrets.token_hex(16) each gave:
    # the prefix, an underscore, 32 lowercase hex digits; none given twice,
    # across blocks too.
    slow = f"{prefix}_{secrets.token_hex(16)}"
    ids = [random_id(prefix) for _ in range(n)]
    assert all(_HEX_ID.fullmatch(i) and len(i) == len(slow) for i in ids)
    assert _HEX_ID.fullmatch(slow)
    assert len(set(ids)) == n


def test_random_ids_from_many_threads_are_each_given_once() -> None:
    out: list[list[str]] = [[] for _ in range(8)]

    def take(mine: list[str]) -> None:
        mine.extend(random_id("dec") for _ in range(500))

    threads = [threading.Thread(target=take, args=(mine,)) for mine in out]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    every = [i for mine in out for i in mine]
    assert len(every) == len(set(every)) == 8 * 500


@pytest.mark.skipif(not hasattr(os, "fork"), reason="no fork on this platform")
def test_a_forked_child_never_gives_its_parents_ids() -> None:
    random_id("dec")  # a block drawn, most of it not yet given
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: its ids, then out without pytest's teardown
        os.close(read)
        os.write(write, " ".join(random_id("dec") for _ in range(100)).encode())
        os._exit(0)
    os.close(write)
    with os.fdopen(read) as f:
        child = set(f.read().split())
    os.waitpid(pid, 0)
    parent = {random_id("dec") for _ in range(200)}
    assert len(child) == 100
    assert not child & parent
