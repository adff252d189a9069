"""A word list written as a tree of shared beginnings matches as its alternation does.

The credential words are tried at every place a row may begin; as a flat
alternation, each word was tried at each place. ``_one_of`` writes them as
a tree (the words that begin with the character at hand are the only ones
tried), and must match what the alternation, longest word first, matches:
the same words, and where one word begins another, the longer first.
"""

from __future__ import annotations

import re

from hypothesis import given
from hypothesis import strategies as st

from memoryd.kernel.secret_prose import _LATIN_CRED, _one_of

_WORDS = st.lists(st.text(alphabet="abp -", min_size=1, max_size=6), min_size=1, max_size=12)


def _flat(words: list[str]) -> str:
    return "|".join(re.escape(w) for w in sorted(set(words), key=len, reverse=True))


@given(_WORDS, st.text(alphabet="abp -x", max_size=12))
def test_the_tree_matches_what_the_alternation_matches_longest_first(
    words: list[str], text: str
) -> None:
    flat = re.compile("(?:" + _flat(words) + ")")
    tree = re.compile("(?:" + _one_of(words) + ")")
    for pos in range(len(text) + 1):
        a, b = flat.match(text, pos), tree.match(text, pos)
        assert (a and a.group(0)) == (b and b.group(0))


def test_every_credential_word_is_matched_whole() -> None:
    tree = re.compile(_one_of(_LATIN_CRED))
    for word in _LATIN_CRED:
        assert tree.fullmatch(word), word
