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
    return "".join(ch if ch in raw else "".join(f"%{b:02X}" for b in ch.encode("utf-8"))
                   for ch in value)


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


_escaped_texts = st.lists(st.one_of(
    st.text(max_size=6),
    st.sampled_from(["%", "%2", "%2D", "%2d", "%3A", "%E4%B8%AD", "%E4%B8", "%FF", "%C3%A9", ":"]),
), max_size=8).map("".join)


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
