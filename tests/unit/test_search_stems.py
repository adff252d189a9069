"""Scoring counts the terms the index matched: stems and CJK grams.

The reference here is SQLite's own index: a text is put in an FTS5 table
with the index's tokenizer, and ``fts5vocab`` says which tokens it holds and
how often. The ranker's counts (``TermCounter``, ``term_counts``) and the
query's index terms (``index_terms``) must be exactly those tokens, so an
entry the index found through a stem ("painting" for "paint") is scored on
it, and a CJK query's bigrams count where the index split the text.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any

import apsw
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from memoryd.daemon.retrieval import search, text_index
from memoryd.daemon.storage.store import SqliteStore

# Inflected English (every Porter step), words that stem alike and words
# that do not, digits, folding letters, CJK runs, and separators.
WORDS = [
    "paint",
    "painting",
    "painted",
    "paints",
    "painter",
    "explore",
    "explored",
    "exploring",
    "exploration",
    "caresses",
    "ponies",
    "ties",
    "caress",
    "cats",
    "feed",
    "agreed",
    "plastered",
    "bled",
    "motoring",
    "sing",
    "conflated",
    "troubled",
    "sized",
    "hopping",
    "tanned",
    "falling",
    "hissing",
    "fizzed",
    "failing",
    "filing",
    "happy",
    "sky",
    "relational",
    "conditional",
    "rational",
    "valenci",
    "hesitanci",
    "digitizer",
    "conformabli",
    "radicalli",
    "differentli",
    "vileli",
    "analogousli",
    "vietnamization",
    "predication",
    "operator",
    "feudalism",
    "decisiveness",
    "hopefulness",
    "callousness",
    "formaliti",
    "sensitiviti",
    "sensibiliti",
    "triplicate",
    "formative",
    "formalize",
    "electriciti",
    "electrical",
    "hopeful",
    "goodness",
    "revival",
    "allowance",
    "inference",
    "airliner",
    "gyroscopic",
    "adjustable",
    "defensible",
    "irritant",
    "replacement",
    "adjustment",
    "dependent",
    "adoption",
    "homologou",
    "communism",
    "activate",
    "angulariti",
    "homologous",
    "effective",
    "bowdlerize",
    "probate",
    "rate",
    "cease",
    "controll",
    "roll",
    "generalizations",
    "oscillators",
    "Rollbacks",
    "DEPLOYS",
    "deployed",
    "café",
    "Cafés",
    "naïve",
    "x1",
    "v2",
    "2025",
    "ab",
    "a",
    "is",
    "机器学习",
    "学习",
    "好好好",
    "部署",
    "テスト",
    "—",
    "…",
    ".",
    "-",
    "_",
    "\n",
]
_TEXT = st.lists(st.sampled_from(WORDS), max_size=12).map(" ".join)


def _index_counts(texts: list[str]) -> list[Counter[str]]:
    """Each text's tokens and their counts as SQLite's FTS5 index holds them
    (the index's tokenizer, over the same pre-split text)."""
    conn = apsw.Connection(":memory:")
    conn.execute("CREATE VIRTUAL TABLE t USING fts5(x, tokenize = '" + text_index.TOKENIZER + "')")
    conn.execute("CREATE VIRTUAL TABLE v USING fts5vocab(t, 'instance')")
    for i, text in enumerate(texts):
        conn.execute("INSERT INTO t(rowid, x) VALUES (?, ?)", (i, text_index.fts_text(text)))
    out: list[Counter[str]] = [Counter() for _ in texts]
    for term, doc in conn.execute("SELECT term, doc FROM v"):
        out[int(doc)][str(term)] += 1
    return out


def test_index_tokens_are_the_tokens_sqlites_index_holds() -> None:
    texts = [*WORDS, " ".join(WORDS)]
    assert [Counter(text_index.index_tokens(t)) for t in texts] == _index_counts(texts)


@settings(max_examples=200)
@given(st.lists(_TEXT | st.text(max_size=30), min_size=1, max_size=6))
def test_term_counts_are_the_index_tokens_of_any_text(texts: list[str]) -> None:
    assert [text_index.term_counts(t) for t in texts] == _index_counts(texts)


@settings(max_examples=200)
@given(st.lists(_TEXT, min_size=1, max_size=8), st.lists(st.sampled_from(WORDS), max_size=5))
def test_a_query_words_stem_counts_every_form_the_index_matched(
    texts: list[str], query: list[str]
) -> None:
    # The reference: the query's own index tokens, counted in each text's
    # index tokens. Batch and one-text counting agree with it.
    terms = text_index.index_terms(text_index.query_terms(" ".join(query))[0])
    counter = text_index.TermCounter(terms)
    want = [Counter({t: c[t] for t in terms if c[t]}) for c in _index_counts(texts)]
    assert [counter.counts(t) for t in texts] == want
    batch: dict[int, list[float]] = {}
    counter.add_all(texts, [1.0] * len(texts), batch)
    got = [
        Counter({t: int(batch[j][i]) for t, i in counter.slot.items() if batch[j][i]})
        if j in batch
        else Counter()
        for j in range(len(texts))
    ]
    assert got == want


def test_index_terms_are_stems_and_cjk_grams_each_once() -> None:
    terms, _ = text_index.query_terms("Painting paints 机器学习 café")
    assert text_index.index_terms(terms) == ("paint", "机器", "器学", "学习", "cafe")


@pytest.fixture()
def store(tmp_path: Path) -> SqliteStore:
    s = SqliteStore(tmp_path / "m.db", synchronous="OFF")

    def run(tx: Any) -> None:
        for i, body in enumerate(
            [
                "We were painting the fence",
                "She explored the caves",
                "Unrelated note about lunch",
                "机器学习的课程",
            ]
        ):
            tx.exec(
                "INSERT INTO entries(id, owner, target, scope, type, title, body,"
                " status, revision, source, eligible, pinned, created_at,"
                " ttl_days, expires_at, content_key) VALUES"
                " (?, 'own', 'memory', 's', 'fact', '', ?, 'active', 1, 'agent', 1,"
                " 0, 't', 1.0, '2099-01-01T00:00:00.000000Z', 'h')",
                (f"ent_{i}", body),
            )

    s.run_sync(run)
    return s


@pytest.mark.parametrize(
    "query, found", [("paint", "ent_0"), ("explore", "ent_1"), ("学习", "ent_3")]
)
def test_an_entry_found_through_its_stem_scores_on_it(
    store: SqliteStore, query: str, found: str
) -> None:
    def run(tx: Any) -> list[dict[str, Any]]:
        where, args = "e.owner = ?", ("own",)
        p = search.plan(tx, query, where, args)
        return search.ranked(tx, p, where, args, 10, columns=("id",))

    rows = store.run_sync(run, write=False)
    assert [r["id"] for r in rows] == [found]
    assert rows[0]["score"] > 0


_ROOTS = [
    "rel",
    "cond",
    "hop",
    "happ",
    "gener",
    "form",
    "electr",
    "possib",
    "radic",
    "ag",
    "feed",
    "sing",
    "troubl",
    "fil",
    "siz",
    "tan",
    "fall",
    "hiss",
    "motor",
    "bl",
    "predic",
    "digit",
    "decis",
    "valen",
    "oper",
    "good",
    "allow",
    "adjust",
    "replac",
    "depend",
    "commun",
    "activ",
    "effect",
    "prob",
    "rat",
    "ceas",
    "roll",
    "x",
    "y",
    "a",
    "e",
    "i",
    "by",
    "sky",
    "ty",
    "abat",
    "lov",
    "mov",
    "cr",
    "tr",
    "ful",
]
_SUFFIXES = [
    "",
    "s",
    "es",
    "ies",
    "sses",
    "ed",
    "eed",
    "ing",
    "ly",
    "y",
    "ational",
    "tional",
    "enci",
    "anci",
    "izer",
    "abli",
    "bli",
    "alli",
    "entli",
    "eli",
    "ousli",
    "ization",
    "ation",
    "ator",
    "alism",
    "iveness",
    "fulness",
    "ousness",
    "aliti",
    "iviti",
    "biliti",
    "logi",
    "icate",
    "ative",
    "alize",
    "iciti",
    "ical",
    "ful",
    "ness",
    "al",
    "ance",
    "ence",
    "er",
    "ic",
    "able",
    "ible",
    "ant",
    "ement",
    "ment",
    "ent",
    "ion",
    "ou",
    "ism",
    "ate",
    "iti",
    "ous",
    "ive",
    "ize",
    "e",
    "ll",
    "ying",
    "ied",
    "ily",
    "iness",
    "ings",
    "ers",
    "ated",
    "ating",
]


@settings(max_examples=300)
@given(
    st.lists(
        st.builds(
            str.__add__,
            st.sampled_from(_ROOTS),
            st.lists(st.sampled_from(_SUFFIXES), max_size=3).map("".join),
        )
        | st.text(alphabet="abcdeilnorstuyz0", min_size=1, max_size=14),
        min_size=1,
        max_size=40,
    )
)
def test_a_word_starts_with_its_stems_form_prefix(words: list[str]) -> None:
    # What TermCounter's search for a term's forms rests on: Porter rewrites
    # the end of a word, never its first letter, and leaves at most an e, i
    # or l at the stem's end that the word does not hold there.
    stems = text_index.tokenize(" ".join(words).encode())
    assert len(stems) == len(words)
    for word, stem in zip(words, stems, strict=True):
        assert word.startswith(text_index.form_prefix(stem)), (word, stem)
