"""The ranker's batch counting and scoring against plain references.

``TermCounter.add_all`` searches all of a column's texts in one buffer,
``search.scores`` scores only the candidates holding a term, and
``search.best`` rounds only the scores that can reach the cut. Each is held
here to a reference that does none of that: every text counted alone by
``term_counts``, BM25 written out term by term, every score rounded and the
whole list sorted. Scores are compared as floats' bits and types (a
candidate holding no term scores the int ``0``, as the empty sum did).
"""

from __future__ import annotations

import math
from collections import Counter
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from memoryd.daemon.retrieval import search, text_index

# ASCII words (one a prefix of another), letters that fold, ideographs with
# repeats (overlapping bigrams), kana, NUL and other control characters, the
# separators a summary holds, and a lone surrogate.
_PIECES = st.sampled_from(
    [
        "deploy",
        "deploys",
        "Deploy",
        "x1",
        "cache",
        "plan",
        " ",
        "  ",
        ".",
        "_",
        "-",
        "\n",
        "\t",
        "\x00",
        "\x01",
        "…",
        "—",
        "\u00a0",
        "é",
        "café",
        "\u212a",
        "机器",
        "学习",
        "好好好",
        "好",
        "テスト",
        "\u30fb",
        "\uf900",
        "\ud800",
        "?",
        "9",
    ]
)
_TEXT = st.lists(_PIECES, max_size=14).map("".join) | st.text(max_size=30)
_TERMS = st.lists(
    st.sampled_from(
        [
            "deploy",
            "deploys",
            "x1",
            "cache",
            "plan",
            "9",
            "cafe",
            "k",
            "机器",
            "器学",
            "好好",
            "好",
            "テス",
            "e",
            "1",
        ]
    ),
    min_size=1,
    max_size=5,
    unique=True,
).map(tuple)


@st.composite
def _candidate(draw: Any) -> tuple[str, str, str]:
    """(title, summary, body) as the store holds them: a summary is often the
    body itself, or the body's start cut with an ellipsis (inside a word
    too), or a text of its own, or empty."""
    title = draw(_TEXT)
    body = draw(_TEXT)
    cut = body[: draw(st.integers(0, len(body)))]
    summary = draw(st.sampled_from([body, body, cut + "…", cut, "…", ""]) | _TEXT)
    return title, summary, body


# At most 12 candidates: the statistics below count at least 12 documents.
_CANDIDATES = st.lists(_candidate(), min_size=1, max_size=12)


def _reference_counts(
    terms: tuple[str, ...], texts: list[str], weights: list[float]
) -> dict[int, list[float]]:
    rows: dict[int, list[float]] = {}
    for j, (text, weight) in enumerate(zip(texts, weights, strict=True)):
        counts = text_index.term_counts(text)
        row = [weight * counts[t] for t in terms]
        if any(row):
            rows[j] = row
    return rows


@given(_TERMS, st.lists(st.tuples(_TEXT, st.sampled_from([1.0, 5.0, 6.0, 10.0])), max_size=12))
def test_counting_a_column_at_once_equals_counting_each_text_alone(
    terms: tuple[str, ...], column: list[tuple[str, float]]
) -> None:
    texts = [t for t, _w in column]
    weights = [w for _t, w in column]
    got: dict[int, list[float]] = {}
    text_index.TermCounter(terms).add_all(texts, weights, got)
    assert got == _reference_counts(terms, texts, weights)


def test_adjacent_equal_tokens_and_texts_side_by_side_each_count() -> None:
    got: dict[int, list[float]] = {}
    text_index.TermCounter(("plan", "x1")).add_all(
        ["plan plan", "plan", "x1…", "", "Plan.plan\x00plan", "planx1 x1plan"],
        [1.0, 10.0, 5.0, 1.0, 1.0, 1.0],
        got,
    )
    assert got == {0: [2.0, 0.0], 1: [10.0, 0.0], 2: [0.0, 5.0], 4: [3.0, 0.0]}


def _reference_scores(
    terms: tuple[str, ...], candidates: list[tuple[str, str, str]], stats: tuple[int, float]
) -> list[float]:
    n_docs, avgdl = stats
    tfs = []
    for fields in candidates:
        tf: Counter[str] = Counter()
        for text, weight in zip(fields, text_index.WEIGHTS, strict=True):
            for token, n in text_index.term_counts(text).items():
                tf[token] += weight * n
        tfs.append(tf)
    df = {t: sum(1 for tf in tfs if tf[t]) for t in terms}
    idf = {t: max(1e-6, math.log((n_docs - df[t] + 0.5) / (df[t] + 0.5))) for t in terms}
    out = []
    for (title, summary, body), tf in zip(candidates, tfs, strict=True):
        dl = len(title) + len(summary) + len(body)
        norm = search.BM25_K1 * (1 - search.BM25_B + search.BM25_B * dl / max(avgdl, 1.0))
        out.append(
            sum([idf[t] * (tf[t] * (search.BM25_K1 + 1)) / (tf[t] + norm) for t in terms if tf[t]])
        )
    return out


def _bits(scores: list[float]) -> list[str]:
    return [f"{type(s).__name__}:{s.hex() if isinstance(s, float) else s}" for s in scores]


@settings(max_examples=300)
@given(_TERMS, _CANDIDATES, st.sampled_from([(12, 1.0), (137, 41.5), (12, 0.0), (40, 380.25)]))
def test_scores_equal_bm25_written_out_from_each_texts_counts(
    terms: tuple[str, ...], candidates: list[tuple[str, str, str]], stats: tuple[int, float]
) -> None:
    titles, summaries, bodies = (list(c) for c in zip(*candidates, strict=True))
    got = search.scores(terms, titles, summaries, bodies, stats)
    assert _bits(got) == _bits(_reference_scores(terms, candidates, stats))


def _reference_best(
    raw: list[float], ids: list[str], limit: int, after: tuple[float, str] | None
) -> list[tuple[float, str, int]]:
    order = []
    for at, (r, eid) in enumerate(zip(raw, ids, strict=True)):
        score = round(r, 9)
        if after is None or score < after[0] or (score == after[0] and eid > after[1]):
            order.append((-score, eid, at))
    order.sort()
    return order[:limit]


# Raw scores that tie before rounding, only after it (they differ past the
# ninth place), or never; zeros of both types.
_RAW = st.lists(
    st.sampled_from(
        [
            0,
            0.0,
            1e-10,
            4e-10,
            0.5,
            0.5 + 1e-12,
            0.5 - 1e-12,
            0.5000000004,
            0.5000000006,
            1.25,
            2.0,
            2.0000000001,
        ]
    )
    | st.floats(0, 10),
    max_size=40,
)


@settings(max_examples=300)
@given(_RAW, st.integers(0, 45) | st.integers(0, 6), st.data())
def test_best_equals_rounding_and_sorting_every_candidate(
    raw: list[float], limit: int, data: st.DataObject
) -> None:
    ids = data.draw(st.permutations([f"ent_{i:03d}" for i in range(len(raw))]))
    after = None
    if raw and data.draw(st.booleans()):
        at = data.draw(st.integers(0, len(raw) - 1))
        after = (round(raw[at], 9), ids[at])
    got = search.best(raw, ids, limit, after)
    want = _reference_best(raw, ids, limit, after)
    assert [(_bits([-s])[0], i, at) for s, i, at in got] == [
        (_bits([-s])[0], i, at) for s, i, at in want
    ]


def test_ties_at_the_cut_once_rounded_are_taken_by_id() -> None:
    # Equal raw scores, and ones that only rounding makes equal, across the cut.
    raw = [0.5, 0.5 + 1e-12, 2.0, 0.5 - 1e-12, 0.5, 0]
    ids = ["ent_e", "ent_d", "ent_f", "ent_a", "ent_c", "ent_b"]
    assert search.best(raw, ids, 3) == [(-2.0, "ent_f", 2), (-0.5, "ent_a", 3), (-0.5, "ent_c", 4)]
    assert search.best(raw, ids, 6)[-1] == (0, "ent_b", 5)
