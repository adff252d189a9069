"""Lexical ranking, every backend, held to a reference written from its definition.

The daemon ranks a query for one view (an owner's namespaces, active and
unexpired) in three steps: ``search.plan`` keeps the query's terms by their
document frequencies in the view, ``search.view_stats`` gives the view's
document count and average length, and ``search.ranked`` selects the
candidates through the backend's index and scores them (decision 0009,
"Ranking is per owner"; decision 0100 for what is counted). Whatever does
that work, and wherever, the answer is a function of the query and of the
view's rows alone.

The reference here computes that function from the view's rows only, read
with the view's own filter and nothing else: no index, no running totals,
every text tokenised in full by the backend's tokenizer, BM25 written out.
The ranked ids and scores (rounded as the daemon rounds them) must be equal,
on SQLite and on PostgreSQL, for a fixed corpus of several owners sharing
one vocabulary, for fixed queries and for generated ones.

Each backend ranks on its own index's terms (docs/decisions/0460): on
SQLite FTS5's porter tokens (``text_index.index_tokens``, itself held to FTS5's
vocabulary in tests/unit/test_search_stems.py), on PostgreSQL the english
lexemes ``to_tsvector`` makes of each column apart. The vocabulary holds
words the two stemmers agree on and words they do not ("generously": porter
"gener", english "generous"), so the same query may rank otherwise on the
two backends; within each, every path ranks as its reference.
"""

from __future__ import annotations

import math
import os
import random
import uuid
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from msgspec import UNSET

from memoryd.daemon import home as home_mod
from memoryd.daemon.config import load_config
from memoryd.daemon.pipeline import entries
from memoryd.daemon.retrieval import postings, search, text_index
from memoryd.daemon.storage.backends import open_store
from memoryd.daemon.storage.store import Store, Tx
from tests.contract.conftest import BACKENDS, drop_schema, pg_section

NOW = "2026-03-01T00:00:00.000000Z"
START = datetime(2026, 1, 1, tzinfo=UTC)
OWNERS = ("own_a", "own_b", "own_c")
NAMESPACES = (("memory", "s0"), ("memory", "s1"), ("memory", "s2"), ("user", "u"))
# Content words with their inflections (each pair stems alike on both
# backends), a few rare ones, and CJK words. No accented word: PostgreSQL's
# index keeps the diacritics a query's folding removes ("café" is searched as
# "cafe" and finds nothing there), a difference in matching, not in ranking.
WORDS = tuple(
    (
        "deploy deploys deployed rollback rollbacks cache cached kernel kernels garden"
        " gardens lake lakes osprey ospreys heron river rivers tomato tomatoes invoice"
        " invoices budget printer printers meeting meetings quartz zebra walrus lantern"
        " generous generously fairly fair skies sky news new"
        " 机器 学习 部署"
    ).split()
)
COMMON = ("deploy", "cache", "lake", "meeting", "budget")
RARE = ("quartz", "zebra", "walrus", "lantern")
# Words a query may hold that no entry does, and stop words the plan drops.
QUERY_ONLY = ("nothing", "absent", "the", "and", "with", "的")
QUERIES = (
    "deploy rollback",
    "osprey lake",
    "kernel kernels cached",
    "quartz",
    "zebra walrus",
    "机器学习",
    "部署 cache",
    "invoice budget",
    "the deploy of the cache",
    "nothing absent",
    "tomatoes river printer",
    "meeting invoice budget deploy lake",
    "lantern gardens",
    "heron heron heron",
    "学习",
    "deployed caches zebra quartz walrus lantern",
    # More distinct terms than the database scores itself (postings.SCORED_IN_SQL).
    " ".join(WORDS[:24]),
)


def _text(rng: random.Random, k: int) -> str:
    words = []
    for _ in range(k):
        roll = rng.random()
        pool = COMMON if roll < 0.35 else RARE if roll < 0.38 else WORDS
        words.append(rng.choice(pool).capitalize() if rng.random() < 0.1 else rng.choice(pool))
    return " ".join(words)


def _entry(rng: random.Random) -> dict[str, Any]:
    lines = [_text(rng, rng.randint(1, 14)) for _ in range(rng.randint(1, 3))]
    body = "\n".join(lines)
    # A short note's summary is its body; a longer one's its first line, or
    # its first characters cut with an ellipsis (cut words included).
    summary = rng.choice([body, body, lines[0], body[: rng.randint(1, len(body))] + "…"])
    return {
        "type": rng.choice(["fact", "rule", "note"]),
        "title": _text(rng, rng.randint(0, 3)),
        "body": body,
        "summary": summary,
        "basis": UNSET,
        "validity": UNSET,
        "ttl_days": rng.choice([365, 365, 365, 1]),
        "pinned": False,
        "context": rng.choice([UNSET, UNSET, UNSET, _text(rng, 4)]),
        "observed_at": rng.choice([UNSET, UNSET, "2025-03-08T10:00:00Z"]),
    }


def _fill(tx: Tx) -> None:
    rng = random.Random(36)
    for i in range(420):
        # Every owner writes the same words; one owner three times as much.
        owner = rng.choice(("own_a", "own_b", "own_b", "own_b", "own_c"))
        target, scope = rng.choice(NAMESPACES)
        entry = _entry(rng)
        # A title is unique per namespace among active entries.
        entry["title"] = f"{entry['title']} {i}".strip()
        row = entries.insert(
            tx,
            owner,
            target,
            scope,
            entry,
            "b3k:" + f"{i:064x}",
            entries.Provenance("agent", True, None),
            START + timedelta(seconds=i),
        )
        if rng.random() < 0.1:
            tx.exec("UPDATE entries SET status = 'archived' WHERE id = ?", (row["id"],))


@dataclass(frozen=True)
class View:
    """One owner's view: its namespaces, and a type filter when searched with one."""

    owner: str
    spaces: tuple[tuple[str, str], ...]
    types: tuple[str, ...] = ()

    def where(self) -> tuple[str, tuple[Any, ...]]:
        within, flat = search.namespaces_in(self.spaces, "e.")
        sql = f"e.owner = ? AND {within} AND e.status = 'active' AND e.expires_at > ?"
        args: tuple[Any, ...] = (self.owner, *flat, NOW)
        if self.types:
            sql += f" AND e.type IN ({', '.join('?' * len(self.types))})"
            args += self.types
        return sql, args


VIEWS = (
    View("own_a", NAMESPACES),
    View("own_a", (("memory", "s0"), ("user", "u"))),
    View("own_b", NAMESPACES),
    View("own_b", (("memory", "s1"),)),
    View("own_c", (("memory", "s0"), ("memory", "s2"))),
    View("own_b", NAMESPACES, types=("fact", "rule")),
)


@pytest.fixture(scope="module", params=BACKENDS)
def store(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Store]:
    """The fixed corpus on each backend, written once per module."""
    schema = "c_" + uuid.uuid4().hex[:16]
    home_path = tmp_path_factory.mktemp("ranking") / "h"
    home_path.mkdir(mode=0o700)
    (home_path / "memoryd.toml").write_text(
        pg_section(schema) if request.param == "postgresql" else ""
    )
    home = home_mod.prepare(home_path)
    s = open_store(load_config(home.path), home.db, home.path, os.environ)
    try:
        s.run_sync(_fill)
        yield s
    finally:
        s.close()
        if request.param == "postgresql":
            drop_schema(schema)


# --- the reference -------------------------------------------------------------------


Tokens = tuple[Counter[str], Counter[str], Counter[str]]


def _tokens(row: dict[str, Any]) -> Tokens:
    body = text_index.body_text(row["body"], row["context"], row["observed_at"])
    return (
        Counter(text_index.index_tokens(row["title"])),
        Counter(text_index.index_tokens(row["summary"])),
        Counter(text_index.index_tokens(body)),
    )


def _pg_tokens(tx: Tx, where: str, args: tuple[Any, ...]) -> dict[str, Tokens]:
    """Each row's english lexemes and their counts, column by column (the
    body with its context and observed time), as ``to_tsvector`` makes them
    of the index form of each text alone."""
    out: dict[str, Tokens] = {}
    for r in tx.all("SELECT e.id FROM entries AS e WHERE " + where, args):  # noqa: S608 (test constants)
        out[r["id"]] = (Counter(), Counter(), Counter())
    for r in tx.all(
        "SELECT e.id, c.n, u.lexeme, cardinality(u.positions) AS k FROM entries AS e,"  # noqa: S608 (test constants)
        " LATERAL (VALUES (0, e.title), (1, e.summary), (2, concat_ws(' ', e.body,"
        " e.context, memoryd_when_words(e.observed_at)))) AS c(n, t),"
        " unnest(to_tsvector('english', memoryd_fts_text(c.t))) AS u WHERE " + where,
        args,
    ):
        out[r["id"]][int(r["n"])][r["lexeme"]] += int(r["k"])
    return out


def _holds(tokens: Tokens, term_tokens: tuple[str, ...]) -> bool:
    # A query term matches an entry holding every one of its index tokens
    # (a term with none, a word PostgreSQL's english configuration drops,
    # matches nothing).
    return bool(term_tokens) and all(any(c[t] for c in tokens) for t in term_tokens)


def reference(tx: Tx, query: str, view: View, limit: int) -> list[tuple[str, float]]:
    """The view's ranking of ``query`` as (id, score) pairs, best first,
    from the view's rows alone."""
    where, args = view.where()
    rows = tx.all(
        "SELECT e.id, e.title, e.summary, e.body, e.context, e.observed_at"  # noqa: S608 (test constants)
        " FROM entries AS e WHERE " + where,
        args,
    )
    terms, _stopped = text_index.query_terms(query)
    if tx.dialect == "postgresql":
        tokens = _pg_tokens(tx, where, args)
        term_tokens = {
            t: tuple(tx.one("SELECT tsvector_to_array(to_tsvector('english', ?)) AS l", (t,))["l"])  # type: ignore[index]
            for t in terms
        }
    else:
        tokens = {r["id"]: _tokens(r) for r in rows}
        term_tokens = {t: text_index.index_terms((t,)) for t in terms}
    # The plan: terms the view holds, rarest first while their document
    # frequencies fit the budget; if none fits, the rarest over the newest
    # entries holding it. A frequency is counted up to one past the
    # over-common limit (a bounded probe): terms past it tie, in query order.
    df = {
        t: min(
            search.COMMON_DOCS + 1, sum(1 for tk in tokens.values() if _holds(tk, term_tokens[t]))
        )
        for t in terms
    }
    present = sorted((df[t], i, t) for i, t in enumerate(terms) if df[t])
    kept: list[str] = []
    total = 0
    for d, _i, t in present:
        if d > search.COMMON_DOCS or total + d > search.CANDIDATE_BUDGET:
            break
        kept.append(t)
        total += d
    if present and not kept:
        rarest = present[0][2]
        kept = [rarest]
        newest = sorted(
            (r["id"] for r in rows if _holds(tokens[r["id"]], term_tokens[rarest])), reverse=True
        )[: search.COMMON_SCAN]
        candidates = [r for r in rows if r["id"] in set(newest)]
    else:
        kept.sort(key=terms.index)
        candidates = [r for r in rows if any(_holds(tokens[r["id"]], term_tokens[t]) for t in kept)]
    if not candidates:
        return []
    # The view's statistics: its entries and their mean length in characters.
    n_docs = len(rows)
    chars = sum(
        len(r["title"]) + len(r["summary"]) + len(r["body"]) + len(r["context"] or "") for r in rows
    )
    avgdl = chars / n_docs if chars else 1.0
    scored = tuple(dict.fromkeys(x for t in kept for x in term_tokens[t]))
    tf: dict[str, list[float]] = {}
    for r in candidates:
        title, summary, body = tokens[r["id"]]
        tf[r["id"]] = [
            float(
                text_index.WEIGHTS[0] * title[t]
                + text_index.WEIGHTS[1] * summary[t]
                + text_index.WEIGHTS[2] * body[t]
            )
            for t in scored
        ]
    held = [sum(1 for f in tf.values() if f[i]) for i in range(len(scored))]
    idf = [max(1e-6, math.log((n_docs - d + 0.5) / (d + 0.5))) for d in held]
    k1, b = search.BM25_K1, search.BM25_B
    out = []
    for r in candidates:
        body = text_index.body_text(r["body"], r["context"], r["observed_at"])
        dl = len(r["title"]) + len(r["summary"]) + len(body)
        norm = k1 * (1 - b + b * dl / max(avgdl, 1.0))
        score = sum(
            [w * (f * (k1 + 1)) / (f + norm) for w, f in zip(idf, tf[r["id"]], strict=True) if f]
        )
        out.append((r["id"], round(score, 9)))
    out.sort(key=lambda pair: (-pair[1], pair[0]))
    return out[:limit]


def daemon_ranking(tx: Tx, query: str, view: View, limit: int) -> list[tuple[str, float]]:
    """What recall and search run for ``view``: plan, statistics, ranked.

    A view of whole namespaces is read from postings; one a type filter
    narrows goes through the index, with a scan for its statistics."""
    where, args = view.where()
    own = None if view.types else postings.OwnView(view.owner, view.spaces, NOW)
    p = postings.plan(tx, query, where, args, own)
    if p.match is None:
        return []
    stats = None if view.types else search.view_stats(tx, view.owner, view.spaces, NOW)
    return [
        (r["id"], r["score"])
        for r in postings.ranked(tx, p, where, args, limit, columns=("id",), stats=stats, view=own)
    ]


def both(
    store: Store, query: str, view: View, limit: int = 200
) -> tuple[list[tuple[str, float]], list[tuple[str, float]]]:
    return store.run_sync(
        lambda tx: (daemon_ranking(tx, query, view, limit), reference(tx, query, view, limit)),
        write=False,
    )


# --- the contract --------------------------------------------------------------------


def test_the_corpus_holds_what_the_contract_needs(store: Store) -> None:
    counts = store.run_sync(
        lambda tx: tx.all(
            "SELECT owner, status, count(*) AS n FROM entries GROUP BY owner, status"
        ),
        write=False,
    )
    by = {(r["owner"], r["status"]): int(r["n"]) for r in counts}
    assert all(by.get((o, "active"), 0) > 40 for o in OWNERS)
    assert sum(n for (_o, s), n in by.items() if s == "archived") > 10
    lapsed = store.run_sync(
        lambda tx: tx.one(
            "SELECT count(*) AS n FROM entries WHERE status = 'active' AND expires_at <= ?", (NOW,)
        ),
        write=False,
    )
    assert lapsed is not None and int(lapsed["n"]) > 10
    # Tied scores, which a cursor must go on from by id.
    ranked = store.run_sync(lambda tx: reference(tx, "deploy", VIEWS[2], 10_000), write=False)
    assert len({score for _id, score in ranked}) < len(ranked)


@pytest.mark.parametrize("view", VIEWS, ids=lambda v: f"{v.owner}-{len(v.spaces)}-{v.types}")
def test_fixed_queries_rank_as_the_reference(store: Store, view: View) -> None:
    ranked = 0
    for q in QUERIES:
        for limit in (5, 200):
            got, want = both(store, q, view, limit)
            assert got == want, q
            ranked += len(want)
    assert ranked > 200  # the queries do find entries in every view


def test_budget_and_over_common_terms_rank_as_the_reference(
    store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Small limits, so the plan drops over-common terms, stops at its budget,
    # and ranks only the newest matches when every term is over-common.
    monkeypatch.setattr(search, "COMMON_DOCS", 30)
    monkeypatch.setattr(search, "CANDIDATE_BUDGET", 45)
    monkeypatch.setattr(search, "COMMON_SCAN", 9)
    ranked = 0
    for view in VIEWS:
        for q in QUERIES:
            got, want = both(store, q, view)
            assert got == want, (view, q)
            ranked += len(want)
    assert ranked > 200


@settings(max_examples=40)
@given(
    words=st.lists(st.sampled_from(WORDS + QUERY_ONLY), min_size=1, max_size=7),
    view=st.sampled_from(VIEWS),
    limit=st.sampled_from((1, 8, 200)),
)
def test_generated_queries_rank_as_the_reference(
    store: Store, words: list[str], view: View, limit: int
) -> None:
    got, want = both(store, " ".join(words), view, limit)
    assert got == want


@pytest.mark.parametrize("view", VIEWS[:5], ids=lambda v: f"{v.owner}-{len(v.spaces)}")
@pytest.mark.parametrize("page", (1, 3, 7))
def test_pages_below_a_cursor_rank_as_the_reference(store: Store, view: View, page: int) -> None:
    # Ties are common (short notes of the same words): a cursor at a tied
    # score must go on from its id, neither repeating nor skipping a row.
    own = postings.OwnView(view.owner, view.spaces, NOW)
    where, args = view.where()
    stats = store.run_sync(
        lambda tx: search.view_stats(tx, view.owner, view.spaces, NOW), write=False
    )
    for query in ("deploy cache lake", "meeting budget invoice", "osprey", "deploy"):
        want = store.run_sync(lambda tx, q=query: reference(tx, q, view, 10_000), write=False)

        def pages(tx: Tx, q: str = query) -> list[tuple[str, float]]:
            p = postings.plan(tx, q, where, args, own)
            out: list[tuple[str, float]] = []
            after = None
            while p.match is not None:
                rows = postings.ranked(
                    tx, p, where, args, page, after, columns=("id",), stats=stats, view=own
                )
                out += [(r["id"], r["score"]) for r in rows]
                if len(rows) < page:
                    break
                after = (rows[-1]["score"], rows[-1]["id"])
            return out

        got = store.run_sync(pages, write=False)
        assert got == want, query


def test_an_owners_lapsed_entries_are_found_through_the_expiry_index(store: Store) -> None:
    # Both recall statements that take the lapsed entries out of a view start
    # from entries_expiry: walking every active entry of the owner instead
    # (what PostgreSQL planned on a table not yet analysed) made each recall
    # grow with the owner's store.
    view = VIEWS[0]
    within, flat = search.namespaces_in(view.spaces)
    sql = search.LAPSING.format(columns="count(*)") + " AND " + within
    plan = store.run_sync(
        lambda tx: tx.tuples(
            ("EXPLAIN QUERY PLAN " if tx.dialect == "sqlite" else "EXPLAIN ") + sql,
            (NOW, view.owner, *flat),
        ),
        write=False,
    )
    text = " ".join(str(col) for row in plan for col in row)
    assert "entries_expiry" in text, text
    assert "entries_active_title" not in text, text
