"""Resource strings escape and unescape in one pass, exactly as the character-by-character form.

The references below are the escaping rules written out one character at a
time (SPEC §4): the fast forms must give the same string, and refuse the same
inputs, for any text.
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from memoryd.kernel import capability
from memoryd.kernel.capability import Resource

_HEX = "0123456789ABCDEF"


def _escape_reference(value: str, raw: frozenset[str]) -> str:
    # SPEC §4 spelled out: '-' alone is escaped, each other character is kept
    # when raw, else written as the %XX escapes of its UTF-8 bytes.
    if value == "-":
        return "%2D"
    return "".join(
        ch if ch in raw else "".join(f"%{b:02X}" for b in ch.encode("utf-8")) for ch in value
    )


def _unescape_reference(text: str) -> str:
    buf = bytearray()
    i = 0
    while i < len(text):
        ch = text[i]
        if ch == "%":
            pair = text[i + 1 : i + 3]
            if len(pair) != 2 or any(c not in _HEX for c in pair):
                raise ValueError("bad %-escape in resource string")
            buf.append(int(pair, 16))
            i += 3
        else:
            buf.extend(ch.encode("utf-8"))
            i += 1
    return buf.decode("utf-8")


def _outcome(fn: object, text: str) -> tuple[str, str]:
    try:
        return "ok", fn(text)  # type: ignore[operator]
    except ValueError:
        return "refused", ""


_escaped_texts = st.lists(
    st.one_of(
        st.text(max_size=6),
        st.sampled_from(
            ["%", "%2", "%2D", "%2d", "%3A", "%E4%B8%AD", "%E4%B8", "%FF", "%C3%A9", ":"]
        ),
    ),
    max_size=8,
).map("".join)


@settings(max_examples=400)
@given(st.text(max_size=40), st.sampled_from(["unreserved", "hash"]))
def test_escape_equals_the_character_by_character_form(value: str, which: str) -> None:
    raw = capability._UNRESERVED if which == "unreserved" else capability._HASH_RAW
    try:
        expected = _escape_reference(value, raw)
    except UnicodeEncodeError:
        with pytest.raises(UnicodeEncodeError):
            capability._escape(value, raw)
        return
    assert capability._escape(value, raw) == expected


@settings(max_examples=400)
@given(_escaped_texts)
def test_unescape_equals_the_character_by_character_form(text: str) -> None:
    expected = _outcome(_unescape_reference, text)
    got = _outcome(capability._unescape, text)
    if "%" not in text and expected[0] == "refused":
        # Only text with no UTF-8 form (a lone surrogate); Resource refuses it.
        assert got == ("ok", text)
        with pytest.raises(ValueError):
            Resource("memory", text, "add", None, None, None)
        return
    assert got == expected


@settings(max_examples=200)
@given(_escaped_texts, _escaped_texts)
def test_parse_accepts_exactly_canonical_strings(scope: str, entry: str) -> None:
    text = f"memory/{scope}:add:{entry}@-:-"
    try:
        parsed = Resource.parse(text)
    except ValueError:
        return
    assert parsed.canonical() == text


@settings(max_examples=300)
@given(st.text(max_size=20))
def test_an_escape_is_the_escape_of_that_value_and_raw_set_every_time(value: str) -> None:
    # The same value is escaped differently when ':' is raw; asked twice,
    # each answer is still this value's escape under this raw set.
    try:
        unreserved = _escape_reference(value, capability._UNRESERVED)
        hashed = _escape_reference(value, capability._HASH_RAW)
    except UnicodeEncodeError:
        return
    for _ in range(2):
        assert capability._escape(value, capability._UNRESERVED) == unreserved
        assert capability._escape(value, capability._HASH_RAW) == hashed


def test_a_str_subclass_is_escaped_for_itself() -> None:
    class Odd(str):
        __slots__ = ()

        # Equal to "a:b" and hashed as it: a lookup by value alone would be
        # served "a:b"'s escape.
        def __eq__(self, other: object) -> bool:
            return other == "a:b" or str.__eq__(self, other)

        def __hash__(self) -> int:
            return hash("a:b")

    assert capability._escape("a:b", capability._UNRESERVED) == "a%3Ab"
    assert capability._escape(Odd("a/b"), capability._UNRESERVED) == "a%2Fb"
    assert capability._escape("a b", capability._UNRESERVED) == _escape_reference(
        "a b", capability._UNRESERVED
    )


@pytest.mark.parametrize("given_type", ["fact", "preference", "Fact", "nope", ""])
def test_a_resource_type_is_normalised_as_the_enum_would(given_type: str) -> None:
    from memoryd.kernel.retention import EntryType

    try:
        expected = EntryType(given_type).value
    except ValueError:
        with pytest.raises(ValueError):
            Resource("memory", "s", "add", None, None, None, type=given_type)
        return
    made = Resource("memory", "s", "add", None, None, None, type=given_type)
    assert made.type == expected and type(made.type) is str
    from_enum = Resource("memory", "s", "add", None, None, None, type=EntryType(given_type))
    assert from_enum == made and type(from_enum.type) is str and hash(from_enum) == hash(made)
