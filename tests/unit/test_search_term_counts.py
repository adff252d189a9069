"""The ranker's term counts: one fast pass, equal to the index's own tokens."""

from __future__ import annotations

import re
from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from memoryd.daemon.retrieval import text_index

# Letters that fold (É, ß, ﬁ), CJK, digits, underscores and punctuation:
# the places where a shortcut could disagree with the reference.
_ALPHABET = st.sampled_from(list("abcXYZ019 _-.,'\"\n\té ÉßﬁKſİı机器学习部署Ωω"))
_TEXT = st.text(alphabet=_ALPHABET, max_size=80) | st.text(max_size=40)


def _reference(text: str | None) -> Counter[str]:
    return Counter(text_index.index_tokens(text))


@given(_TEXT)
def test_term_counts_equal_counting_the_index_tokens(text: str) -> None:
    assert text_index.term_counts(text) == _reference(text)


@settings(max_examples=50)
@given(st.text(alphabet=st.characters(max_codepoint=127), max_size=200))
def test_ascii_text_takes_the_fast_path_with_the_same_counts(text: str) -> None:
    assert text_index.term_counts(text) == _reference(text)


@pytest.mark.parametrize(
    "text",
    [
        "\U0002ebe1",  # CJK Extension I: CJK to the pre-split, unassigned in older Unicode tables
        "note \U0002ebe1\U0002ebe2 done",
        "\u3007 \U00030000",  # ideographic zero, Extension G
    ],
)
def test_characters_the_pre_split_reads_as_cjk_are_counted(text: str) -> None:
    assert text_index.term_counts(text) == _reference(text)
    assert text_index.term_counts(text)


def test_no_text_counts_nothing() -> None:
    assert text_index.term_counts(None) == Counter()
    assert text_index.term_counts("") == Counter()


def test_counts_fold_case_and_diacritics_like_the_index() -> None:
    assert text_index.term_counts("Café cafe CAFE rollback_plan") == Counter(
        {"cafe": 3, "rollback": 1, "plan": 1}
    )


@given(
    _TEXT,
    st.lists(
        st.sampled_from(["abc", "a", "b", "019", "cafe", "é", "机器", "xyz", "ab"])
        | st.text(max_size=5),
        max_size=6,
    ),
)
def test_a_plans_term_counter_equals_the_index_tokens_for_its_terms(
    text: str, terms: list[str]
) -> None:
    want = _reference(text)
    got = text_index.TermCounter(tuple(dict.fromkeys(terms))).counts(text)
    assert {t: got.get(t, 0) for t in terms} == {t: want[t] for t in terms}


@given(
    st.text(alphabet="abcXZ019 _-.", max_size=60),
    st.lists(st.sampled_from(["abc", "ab", "a", "b", "c", "019", "9", "x", "bc"]), max_size=5),
)
def test_in_ascii_text_a_term_counts_only_where_a_whole_token_equals_it(
    text: str, terms: list[str]
) -> None:
    want = _reference(text)
    got = text_index.TermCounter(tuple(dict.fromkeys(terms))).counts(text)
    assert {t: got.get(t, 0) for t in terms} == {t: want[t] for t in terms}


# Non-ASCII characters that are no part of any token: the fast path's
# territory when nothing else in the text is outside ASCII.
_SEPARATED = st.text(alphabet=st.sampled_from(list("abcXZ019 _-.…—€\u00a0\u2028«»·")), max_size=60)


@given(
    _SEPARATED | _TEXT,
    st.lists(st.sampled_from(["abc", "ab", "a", "019", "x", "cafe", "机器"]), max_size=5),
)
def test_text_whose_only_non_ascii_characters_separate_tokens_counts_the_same(
    text: str, terms: list[str]
) -> None:
    want = _reference(text)
    got = text_index.TermCounter(tuple(dict.fromkeys(terms))).counts(text)
    assert {t: got.get(t, 0) for t in terms} == {t: want[t] for t in terms}


# Ideographs, kana (ヴ folds to ウ), Hangul (a syllable folds to its jamo),
# a compatibility ideograph (it folds to another), the kana middle dot (a CJK
# character that is no letter), repeated ideographs (overlapping bigrams)
# and the separators a summary holds, beside ASCII words.
_MIXED = st.text(
    alphabet=st.sampled_from(
        [
            *"ab cX0_-.…—\u00a0\u3000。、机器学习好好部署",
            "ヴ",
            "テ",
            "한",
            "\uf900",
            "\u30fb",
            "é",
            "\u212a",
        ]
    ),
    max_size=60,
)
_TERMS = st.lists(
    st.sampled_from(
        [
            "ab",
            "a",
            "c",
            "x0",
            "0",
            "机器",
            "器学",
            "机",
            "好好",
            "好",
            "部署",
            "ヴ",
            "ウ",
            "テ",
            "한",
            "\uf900",
            "\u8c48",
            "\u30fb",
            "机\u30fb",
            "e",
            "k",
        ]
    ),
    max_size=6,
)


@given(_MIXED | _TEXT, _TERMS)
def test_text_of_ascii_and_ideograph_runs_counts_the_index_tokens(
    text: str, terms: list[str]
) -> None:
    want = _reference(text)
    got = text_index.TermCounter(tuple(dict.fromkeys(terms))).counts(text)
    assert {t: got.get(t, 0) for t in terms} == {t: want[t] for t in terms}


def test_overlapping_ideograph_bigrams_are_each_a_token() -> None:
    counter = text_index.TermCounter(text_index.index_terms(["好好", "好", "deploys"]))
    assert counter.counts("deploy 好好好 Deploy…") == Counter({"好好": 2, "好": 3, "deploi": 2})


def test_every_ideograph_is_a_token_character_that_folds_to_itself() -> None:
    for lo, hi in ((0x3400, 0x4DBF), (0x4E00, 0x9FFF)):
        for cp in range(lo, hi + 1):
            ch = chr(cp)
            assert text_index.index_tokens(ch) == [ch], hex(cp)
            assert ch.lower() == ch


@given(_MIXED | _SEPARATED | _TEXT, st.text(alphabet="abcxz019", min_size=1, max_size=4))
def test_a_word_in_spaced_tokens_occurs_once_per_run_equal_to_it(text: str, word: str) -> None:
    # ``TermCounter`` counts an ASCII text's forms of a term so.
    if text.isascii():
        want = re.findall("[a-z0-9]+", text.lower()).count(word)
        assert text_index.spaced_tokens(text).count(f" {word} ".encode()) == want
