"""The ranker's term counts: one fast pass, equal to the index's own tokens."""

from __future__ import annotations

from collections import Counter

from hypothesis import given, settings
from hypothesis import strategies as st

from memoryd.daemon import search

# Letters that fold (É, ß, ﬁ), CJK, digits, underscores and punctuation:
# the places where a shortcut could disagree with the reference.
_ALPHABET = st.sampled_from(list("abcXYZ019 _-.,'\"\n\té ÉßﬁKſİı机器学习部署Ωω"))
_TEXT = st.text(alphabet=_ALPHABET, max_size=80) | st.text(max_size=40)


def _reference(text: str | None) -> Counter[str]:
    return Counter(search.index_tokens(text))


@given(_TEXT)
def test_term_counts_equal_counting_the_index_tokens(text: str) -> None:
    assert search.term_counts(text) == _reference(text)


@settings(max_examples=50)
@given(st.text(alphabet=st.characters(max_codepoint=127), max_size=200))
def test_ascii_text_takes_the_fast_path_with_the_same_counts(text: str) -> None:
    assert search.term_counts(text) == _reference(text)


def test_no_text_counts_nothing() -> None:
    assert search.term_counts(None) == Counter()
    assert search.term_counts("") == Counter()


def test_counts_fold_case_and_diacritics_like_the_index() -> None:
    assert search.term_counts("Café cafe CAFE rollback_plan") == Counter(
        {"cafe": 3, "rollback": 1, "plan": 1})


@given(_TEXT, st.lists(st.sampled_from(["abc", "a", "b", "019", "cafe", "é", "机器", "xyz", "ab"])
                       | st.text(max_size=5), max_size=6))
def test_a_plans_term_counter_equals_the_index_tokens_for_its_terms(
        text: str, terms: list[str]) -> None:
    want = _reference(text)
    got = search.TermCounter(tuple(dict.fromkeys(terms))).counts(text)
    assert {t: got.get(t, 0) for t in terms} == {t: want[t] for t in terms}


@given(st.text(alphabet="abcXZ019 _-.", max_size=60),
       st.lists(st.sampled_from(["abc", "ab", "a", "b", "c", "019", "9", "x", "bc"]),
                max_size=5))
def test_in_ascii_text_a_term_counts_only_where_a_whole_token_equals_it(
        text: str, terms: list[str]) -> None:
    want = _reference(text)
    got = search.TermCounter(tuple(dict.fromkeys(terms))).counts(text)
    assert {t: got.get(t, 0) for t in terms} == {t: want[t] for t in terms}


# Non-ASCII characters that are no part of any token: the fast path's
# territory when nothing else in the text is outside ASCII.
_SEPARATED = st.text(alphabet=st.sampled_from(list("abcXZ019 _-.…—€\u00a0\u2028«»·")),
                     max_size=60)


@given(_SEPARATED | _TEXT,
       st.lists(st.sampled_from(["abc", "ab", "a", "019", "x", "cafe", "机器"]), max_size=5))
def test_text_whose_only_non_ascii_characters_separate_tokens_counts_the_same(
        text: str, terms: list[str]) -> None:
    want = _reference(text)
    assert search.tokens_are_ascii(text) == all(
        ch.isascii() or not ch.isalnum() for ch in text)
    if search.tokens_are_ascii(text):
        assert search.term_counts(text) == want
    got = search.TermCounter(tuple(dict.fromkeys(terms))).counts(text)
    assert {t: got.get(t, 0) for t in terms} == {t: want[t] for t in terms}


def test_a_summary_cut_with_an_ellipsis_tokenises_as_ascii() -> None:
    assert search.tokens_are_ascii("Rollback plan for the deploy…")
    assert search.tokens_are_ascii("a — b")
    assert not search.tokens_are_ascii("Café")
    assert not search.tokens_are_ascii("deploy 机器")
    assert not search.tokens_are_ascii("\u212a")  # the Kelvin sign lowers to "k"
