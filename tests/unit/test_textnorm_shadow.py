"""The look-alike shadow's pieces, found by a pattern, equal the character-by-character walk.

``shadow_pieces`` finds the characters outside ASCII with a regular
expression; the reference below looks at every character in Python, as the
function did before. Generated texts mix ASCII stretches with characters
that fold, map to look-alikes, vanish (format characters), widen (NFKC), or
are lone surrogates, at the start, the end and side by side.
"""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from memoryd.kernel.textnorm import shadow_char, shadow_pieces


def _reference(text: str) -> list[tuple[str, int, int]]:
    pieces: list[tuple[str, int, int]] = []
    start = 0
    n = len(text)
    i = 0
    while i < n:
        if text[i].isascii():
            i += 1
            continue
        if i > start:
            pieces.append((text[start:i], start, i - start))
        pieces.append((shadow_char(text[i]), i, 1))
        i += 1
        start = i
    if start < n or not pieces:
        pieces.append((text[start:], start, n - start))
    return pieces


_ODD = [
    "\u2026",
    "\u2014",
    "\u00a0",
    "\u200b",
    "\u3000",
    "ｉ",
    "\u0130",
    "\u017f",
    "\u212a",
    "é",
    "e\u0301",
    "密码",
    "\u0430",
    "\ufb01",
    "\ud800",
    "\x7f",
    "\x80",
    "\U0001f600",
]
_pieces = st.one_of(
    st.sampled_from(_ODD),
    st.text(max_size=8),
    st.text(alphabet=st.characters(max_codepoint=0x7F), max_size=12),
)
_texts = st.lists(_pieces, max_size=10).map("".join)


@settings(max_examples=500, deadline=None)
@given(_texts)
def test_shadow_pieces_equal_the_character_walk(text: str) -> None:
    assert shadow_pieces(text) == _reference(text)


def test_shadow_pieces_of_edge_texts() -> None:
    for text in (
        "",
        "a",
        "\u2026",
        "plain ascii",
        "cut here\u2026",
        "\u2026lead",
        "\u0430\u0430",
        "x\u200by",
        "\ud800",
        "a\x7f\x80b",
    ):
        assert shadow_pieces(text) == _reference(text), text
    # Every piece maps back onto its own stretch of the text, in order.
    text = "say \u0440\u0430ss\u2026 w\u200bord\uff01"
    pos = 0
    for _piece, orig, length in shadow_pieces(text):
        assert orig == pos
        pos += length
    assert pos == len(text)
