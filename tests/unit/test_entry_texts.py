"""``entry_texts`` answers a top-level string or scalar without the walk; what
it gives is what walking every field gives (kernel/entry_text.py)."""

from __future__ import annotations

from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from memoryd.kernel.entry_text import MAX_DEPTH, _walk, entry_texts


class Text(str):
    """A str subclass: walked, never taken as a plain str."""


class Flag(int):
    """An int subclass: walked too (it has no text)."""


_LEAF = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(),
    st.floats(allow_nan=False),
    st.text(max_size=4),
    st.text(max_size=4).map(Text),
    st.integers().map(Flag),
    st.just(object()),
    st.just(b"raw"),
)
_VALUE = st.recursive(
    _LEAF,
    lambda inner: st.one_of(
        st.lists(inner, max_size=3),
        st.lists(inner, max_size=3).map(tuple),
        st.dictionaries(st.text(max_size=3), inner, max_size=3),
    ),
    max_leaves=12,
)
_KEYS = st.one_of(
    st.sampled_from(
        ["type", "title", "body", "summary", "basis", "validity", "ttl_days", "pinned"]
    ),
    st.text(max_size=3),
)


def _slow(entry: dict[Any, Any], skip: frozenset[str] = frozenset()) -> list[tuple[str, str]]:
    """Every field walked, as ``entry_texts`` did before its shortcut."""
    return [
        pair
        for key, value in entry.items()
        if key not in skip
        for pair in _walk(value, str(key), 1)
    ]


@given(st.dictionaries(_KEYS, _VALUE, max_size=9), st.frozensets(_KEYS, max_size=3))
def test_entry_texts_is_every_field_walked(entry: dict[Any, Any], skip: frozenset[str]) -> None:
    got = entry_texts(entry, skip=skip)
    want = _slow(entry, skip)
    assert got == want
    assert [type(text) for _path, text in got] == [type(text) for _path, text in want]


def test_a_deep_value_is_still_reported_at_its_depth() -> None:
    deep: Any = "leaf"
    for _ in range(MAX_DEPTH + 2):
        deep = [deep]
    assert entry_texts({"basis": deep, "title": "t"}) == _slow({"basis": deep, "title": "t"})
