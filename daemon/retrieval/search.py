"""Lexical search over entries: query plans and ranking.

Owns: how a free-text query becomes a bounded FTS5 ``MATCH`` expression or
PostgreSQL tsquery (``plan``), the ranked candidate query (``ranked``) and
its BM25 over one owner's view (``view_stats``, ``scores``, ``bm25``,
``best``), the readers of each backend's index that a store names as its
``Tx.fulltext`` (``FTS5``, ``TSVECTOR``), and the snippet a search result
shows. How text becomes the index's tokens, and the index itself, are
daemon/retrieval/text_index.py's.

Query plans. Stop words (English function words, Chinese particles) are
dropped. Then each remaining term's document frequency is probed with a
capped count (never more than ``COMMON_DOCS + 1`` postings read; all the
terms' counts in one statement), and terms
are kept rarest first while their document frequencies sum to at most
``CANDIDATE_BUDGET``; a term that would pass it is over-common and dropped.
So the rows FTS5 must score are bounded whatever the query holds: this is
what removes the cliff where one very common word makes FTS5 score nearly
every row. If every term is over-common ("they are all there is"), the
rarest one is kept and the candidate set is the newest ``COMMON_SCAN``
entries matching it, ranked by BM25.

Invariants:
- user text never reaches FTS5 query syntax unquoted: a plan's expression
  is made of ``text_index.match_term``'s quoted strings, and PostgreSQL's
  terms are parameters of ``plainto_tsquery``;
- the plan, the candidates and every score are functions of the query and
  of the entries the caller's filter admits (its owner's view) only: another
  owner's entries change none of them.
"""

from __future__ import annotations

import itertools
import json
import math
import operator
import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from memoryd.daemon.retrieval.text_index import (
    WEIGHTS,
    TermCounter,
    body_text,
    index_terms,
    match_term,
    query_terms,
)

if TYPE_CHECKING:
    from memoryd.daemon.storage.txn import Tx

# A term found in more documents than this is over-common by itself.
COMMON_DOCS = 2_000
# Rarest-first terms are kept while their document frequencies sum to this.
CANDIDATE_BUDGET = 4_000
# When only over-common terms remain: rank the newest this many matches.
COMMON_SCAN = 1_000


@dataclass(frozen=True, slots=True)
class Plan:
    """What a query became. ``match`` is None when no term is left to search."""

    match: str | None
    terms: tuple[str, ...]
    stop_dropped: int
    common_dropped: int
    only_common: bool
    # Each of ``terms``' document frequency in the view the plan was made
    # for, when the plan kept them by their frequencies (exact: each at most
    # ``COMMON_DOCS``); empty otherwise.
    freqs: tuple[int, ...] = ()

    @property
    def scored(self) -> tuple[str, ...]:
        """The index terms scoring counts: the terms' stems and CJK grams
        (``index_terms``), the same tokens that selected the candidates."""
        return index_terms(self.terms)

    def stats(self) -> dict[str, Any]:
        return {"terms": len(self.terms), "stop_dropped": self.stop_dropped,
                "common_dropped": self.common_dropped, "only_common": self.only_common}


def doc_freq(tx: Tx, term: str, cap: int = COMMON_DOCS, where: str = "TRUE",
             args: tuple[Any, ...] = ()) -> int:
    """Documents holding ``term`` among those ``where`` admits, counted up to
    ``cap + 1``. ``where`` is the caller's owner and view, so how common a term
    is never depends on another owner's entries."""
    return doc_freqs(tx, (term,), cap, where, args)[0]


def doc_freqs(tx: Tx, terms: Sequence[str], cap: int = COMMON_DOCS, where: str = "TRUE",
              args: tuple[Any, ...] = ()) -> list[int]:
    """``doc_freq`` of each of ``terms``, in one statement: one capped count
    per term, each a scalar subquery of the same shape a lone probe runs, so
    the counts are the same and the statement is prepared and stepped once."""
    if not terms:
        return []
    return tx.fulltext.doc_freqs(tx, terms, cap, where, args)


def _counts(tx: Tx, probe: str, per_term: Sequence[tuple[Any, ...]]) -> list[int]:
    """The capped counts of ``probe`` (a scalar subquery), once per term
    with that term's arguments, in one statement."""
    sql = "SELECT " + ", ".join(f"{probe} AS n{i}" for i in range(len(per_term)))
    row = tx.one(sql, tuple(x for one in per_term for x in one))
    if row is None:
        return [0] * len(per_term)
    return [int(row[f"n{i}"]) for i in range(len(per_term))]


def plan(tx: Tx, text: str, where: str = "TRUE", args: tuple[Any, ...] = ()) -> Plan:
    """The plan of ``text`` for the entries ``where`` admits (one owner's view)."""
    terms, stopped = query_terms(text)
    if not terms:
        return Plan(None, (), stopped, 0, only_common=False)
    return plan_of(terms, stopped, doc_freqs(tx, terms, COMMON_DOCS, where, args))


def plan_of(terms: Sequence[str], stopped: int, dfs: Sequence[int]) -> Plan:
    """The plan of query terms ``terms`` (``query_terms``, ``stopped`` stop
    words dropped) whose document frequencies in the view, each counted up
    to ``COMMON_DOCS + 1``, are ``dfs``."""
    freqs = [(df, i, t) for i, (t, df) in enumerate(zip(terms, dfs, strict=True))]
    present = [f for f in freqs if f[0] > 0]
    if not present:
        # Nothing matches anything: a cheap, empty query still answers.
        return Plan(" OR ".join(match_term(t) for t in terms), tuple(terms), stopped, 0, False)
    present.sort()
    kept: list[str] = []
    total = 0
    for df, _i, term in present:
        if df > COMMON_DOCS or total + df > CANDIDATE_BUDGET:
            break
        kept.append(term)
        total += df
    dropped = len(present) - len(kept)
    if not kept:
        rarest = present[0][2]
        return Plan(match_term(rarest), (rarest,), stopped, dropped - 1, only_common=True)
    # Keep query order in the expression so the plan reads like the query.
    order = {t: i for _df, i, t in present}
    kept.sort(key=order.__getitem__)
    freq = {t: df for df, _i, t in present}
    return Plan(" OR ".join(match_term(t) for t in kept), tuple(kept), stopped, dropped, False,
                tuple(freq[t] for t in kept))


def pg_query(n: int) -> str:
    """A PostgreSQL tsquery matching any of ``n`` terms given as parameters.

    Each term goes through ``plainto_tsquery`` (the same english stemmer the
    index used), so no term is ever read as query syntax."""
    return "(" + " || ".join(["plainto_tsquery('english', ?)"] * n) + ")"


# BM25 parameters, as FTS5's own bm25() uses them.
BM25_K1 = 1.2
BM25_B = 0.75


def namespaces_in(spaces: Iterable[tuple[str, str]], alias: str = ""
                  ) -> tuple[str, list[str]]:
    """An SQL condition (and its arguments) true exactly for the rows in one
    of ``spaces`` (``(target, scope)`` pairs; ``alias`` prefixes the column
    names); no arguments when ``spaces`` is empty, and then no condition to
    use. One test per target: ``scope IN (...)`` over its scopes is one
    look-up per row where a pair per namespace was a comparison each (a
    task may hold sixteen scopes), and admits the same rows."""
    a = alias
    by_target: dict[str, list[str]] = {}
    for target, scope in sorted(spaces):
        by_target.setdefault(target, []).append(scope)
    tests = [f"({a}target = ? AND {a}scope = ?)" if len(scopes) == 1
             else f"({a}target = ? AND {a}scope IN ({', '.join('?' * len(scopes))}))"
             for scopes in by_target.values()]
    return ("(" + " OR ".join(tests) + ")",
            [x for target, scopes in by_target.items() for x in (target, *scopes)])


# An owner's active entries already past ``expires_at`` (``?``: now, then
# the owner) that the janitor has not marked yet, ``{columns}`` of them;
# the caller adds its namespaces' condition. Found through
# ``entries_expiry`` first: the CTE is planned alone, so no planner can walk
# every active entry of the owner instead (PostgreSQL did, on a table not
# yet analysed, at each recall).
LAPSING = ("WITH lapsing AS MATERIALIZED (SELECT * FROM entries"
           " WHERE status = 'active' AND expires_at <= ?)"
           " SELECT {columns} FROM lapsing WHERE owner = ?")


def view_stats(tx: Tx, owner: str, spaces: Sequence[tuple[str, str]],
               now: str) -> tuple[int, float]:
    """BM25's document count and average length (characters of title, summary
    and body) over ``owner``'s active, unexpired entries in ``spaces``.

    Exactly what a scan of that view gives, without the scan: the running
    totals of active entries per namespace (``scope_usage``, kept by the
    store's triggers) less the active entries already past ``expires_at``
    that the janitor has not marked yet (found through ``entries_expiry``).
    Only ``owner``'s rows are counted, so no other owner moves the figures.
    """
    if not spaces:
        return 0, 1.0
    within, flat = namespaces_in(spaces)
    total = tx.one("SELECT coalesce(sum(active_docs), 0) AS n,"  # noqa: S608 (placeholders only)
                   " coalesce(sum(active_chars), 0) AS chars FROM scope_usage"
                   " WHERE owner = ? AND " + within, (owner, *flat))
    lapsed = tx.one(LAPSING.format(
        columns="count(*) AS n, coalesce(sum(length(title) + length(summary) + length(body)"
                " + coalesce(length(context), 0)), 0) AS chars") + " AND " + within,
        (now, owner, *flat))
    assert total is not None and lapsed is not None
    n = int(total["n"]) - int(lapsed["n"])
    chars = int(total["chars"]) - int(lapsed["chars"])
    # As SQL's avg() over the view: NULL for no rows, and a zero length
    # falls back to 1.0 like it.
    return n, (chars / n if n and chars else 1.0)


def scores(terms: tuple[str, ...], titles: Sequence[str], summaries: Sequence[str],
           bodies: Sequence[str], stats: tuple[int, float]) -> list[float]:
    """BM25 of each candidate (its title, summary and body: ``titles[j]``,
    ``summaries[j]``, ``bodies[j]``) for ``terms``, with FTS5's parameters and
    column weights over ``stats`` (the view's document count and average
    length), before rounding; the candidates themselves give each term's
    document frequency. A candidate that holds no term scores ``0`` (an
    int: the empty sum).

    Each field adds its column's weight times each term's count to the
    candidate's term frequencies (``TermCounter.add_all``, one column of
    fields at a time; the weights are whole numbers, so the sums are exact
    and equal to weight × count in any order). Only candidates that hold a
    term are scored; each one's sum runs over its terms in the plan's order,
    so every score is the same float as one summed term by term."""
    n = len(titles)
    n_docs, avgdl = stats
    counter = TermCounter(terms)
    w_title, w_summary, w_body = WEIGHTS
    same = list(map(operator.eq, summaries, bodies))
    tfs: dict[int, list[float]] = {}
    counter.add_all(titles, [w_title] * n, tfs)
    # A short note's summary is its body: its text is counted once, at both weights.
    counter.add_all(bodies, [w_summary + w_body if s else w_body for s in same], tfs)
    counter.add_all(["" if s else summary for s, summary in zip(same, summaries, strict=True)],
                    [w_summary] * n, tfs)
    out: list[float] = [0] * n
    if not tfs:
        return out
    # How many candidates hold each term: its column's entries that are not
    # 0 (a candidate that holds no term has no row).
    df = [len(tfs) - column.count(0.0) for column in zip(*tfs.values(), strict=True)]
    idf = [max(1e-6, math.log((n_docs - d + 0.5) / (d + 0.5))) for d in df]
    k1 = BM25_K1 + 1
    unscaled, per_char = 1 - BM25_B, max(avgdl, 1.0)
    bm25_k1, bm25_b = BM25_K1, BM25_B
    for j, tf in tfs.items():
        dl = len(titles[j]) + len(summaries[j]) + len(bodies[j])
        norm = bm25_k1 * (unscaled + bm25_b * dl / per_char)
        out[j] = sum([w * (f * k1) / (f + norm) for w, f in zip(idf, tf) if f])  # noqa: B905 (one slot per term: the same length)
    return out


def best(raw: Sequence[float], ids: Sequence[str], limit: int,
         after: tuple[float, str] | None = None) -> list[tuple[float, str, int]]:
    """The best ``limit`` candidates as (-score, id, position), score
    descending then id ascending, where a candidate's score is its ``raw``
    score rounded to 9 places; ``after`` keeps only those below a (score,
    id) position. (ids are unique, so the position never decides.)

    Rounding never swaps two scores (it is monotonic), so without a cursor
    the candidates are ordered by raw score and only the first ``limit``
    are rounded, and then as many more as are tied with the last of them
    once rounded: those ties are ordered by id with the rest."""
    if after is not None:
        kept = []
        for at, (score, eid) in enumerate(zip(map(round, raw, itertools.repeat(9)), ids,
                                              strict=True)):
            if score < after[0] or (score == after[0] and eid > after[1]):
                kept.append((-score, eid, at))
        kept.sort()
        return kept[:limit]
    picked: list[tuple[float, str, int]] = []
    last: float | None = None
    for at in sorted(range(len(raw)), key=raw.__getitem__, reverse=True):
        score = round(raw[at], 9)
        if len(picked) >= limit and score != last:
            break
        picked.append((-score, ids[at], at))
        last = score
    picked.sort()
    return picked[:limit]


def _filtered_stats(tx: Tx, where: str, args: tuple[Any, ...],
                    found: int) -> tuple[int, float]:
    """The document count and average length of the entries ``where``
    selects, when the caller has no ``view_stats`` (any other filter);
    ``found`` counts the candidates, for a view with no row."""
    row = tx.one("SELECT count(*) AS n, avg(length(e.title) + length(e.summary)"  # noqa: S608 (no client text in SQL)
                 " + length(e.body) + coalesce(length(e.context), 0)) AS avgdl"
                 " FROM entries AS e WHERE " + where, args)
    return (int(row["n"]), float(row["avgdl"] or 1.0)) if row else (found, 1.0)


def ranked(tx: Tx, p: Plan, where: str, args: tuple[Any, ...], limit: int,
           after: tuple[float, str] | None = None,
           columns: tuple[str, ...] | None = None,
           stats: tuple[int, float] | None = None) -> list[dict[str, Any]]:
    """Entries matching plan ``p`` and the SQL filter ``where`` on ``e``, best first.

    Each row is the entry's columns (only ``columns`` when given) plus
    ``score``: BM25 with FTS5's parameters and column weights, but over the
    statistics of the entries ``where`` admits (one owner's view) — document
    count, average length (in characters) and document frequencies — so no
    score, order or cut depends on another owner's entries. Candidates are
    selected inside ``where`` too (the plan bounds how many), so other owners'
    volume never crowds an owner's own match out. ``after`` continues below a
    (score, id) position. ``stats``, when the caller has them
    (``view_stats`` of the same view), spares a scan of the view.
    """
    if p.match is None:
        return []
    return tx.fulltext.ranked(tx, p, where, args, limit, after, columns, stats)


def _ranked_fts5(tx: Tx, p: Plan, where: str, args: tuple[Any, ...], limit: int,
                 after: tuple[float, str] | None, columns: tuple[str, ...] | None,
                 stats: tuple[int, float] | None) -> list[dict[str, Any]]:
    """``ranked`` on SQLite's FTS5 index: the candidates' text is read in
    one join and scored here (``scores``)."""
    sql_args: tuple[Any, ...]
    # What scoring reads of each candidate. On SQLite the other columns the
    # caller keeps are read for the top ``limit`` alone, after the cut, in
    # the same transaction (one snapshot): each row becomes a Python dict,
    # and a candidate set runs to thousands of rows.
    scored_columns = ("id", "title", "summary", "body", "context", "observed_at")
    # The candidates and their text in one join: each row that passes the
    # filter is read once (``where`` names ``e``'s columns). The order of
    # the rows decides nothing: they are sorted by (score, id) below, and
    # ids are unique.
    sql = ("SELECT e.key, e.id, e.title, e.summary, e.body, e.context, e.observed_at"  # noqa: S608 (no client text in SQL)
           " FROM entries_fts AS f"
           " CROSS JOIN entries AS e WHERE f.entries_fts MATCH ? AND e.key = f.rowid AND "
           + where)
    sql_args = (p.match, *args)
    if p.only_common:
        sql += " ORDER BY f.rowid DESC LIMIT ?"  # the owner's newest matches
        sql_args += (COMMON_SCAN,)
    rest = (None if columns is None
            else tuple(c for c in columns if c not in scored_columns))
    later: str | None = None
    if rest is None:
        later = "*"
    elif rest:
        later = ", ".join(("key", *rest))
    # Each candidate as (key, id, title, summary, body, context, observed_at).
    texts: list[tuple[Any, ...]] = tx.tuples(sql, sql_args)
    if not texts:
        return []
    if stats is None:
        stats = _filtered_stats(tx, where, args, len(texts))
    _keys, ids, titles, summaries, bodies, contexts, observed = zip(*texts, strict=True)
    # The body is scored with the context and observed time the index holds
    # beside it (most candidates have neither).
    if any(contexts) or any(observed):
        bodies = tuple(map(body_text, bodies, contexts, observed))
    top = best(scores(p.scored, titles, summaries, bodies, stats), ids, limit, after)
    if columns is not None and rest is not None:
        # Each kept row as one tuple, the candidate's (key, id, title,
        # summary, body, context, observed_at) followed by its other columns (``rest``, read after
        # the cut), and each of ``columns`` a place in it: a dict per row
        # made in one call, with no dict per row in between.
        extra: dict[int, tuple[Any, ...]] = {}
        if rest and top:
            keyed = [texts[at][0] for _s, _i, at in top]
            extra = {r[0]: r[1:] for r in tx.tuples(
                "SELECT key, " + ", ".join(rest) + " FROM entries WHERE key IN ("  # noqa: S608 (our column names, placeholders)
                + ", ".join("?" * len(keyed)) + ")", keyed)}
        places = [scored_columns.index(c) + 1 if c in scored_columns
                  else len(scored_columns) + 1 + rest.index(c) for c in columns]
        out = []
        for neg, _id, at in top:
            whole = texts[at] + extra[texts[at][0]] if rest else texts[at]
            kept = dict(zip(columns, map(whole.__getitem__, places)))  # noqa: B905 (a place per column)
            kept["score"] = -neg
            out.append(kept)
        return out
    full: dict[int, dict[str, Any]] = {}
    if later is not None and top:
        keyed = [texts[at][0] for _s, _i, at in top]
        full = {r["key"]: r for r in tx.all(
            "SELECT " + later + " FROM entries WHERE key IN ("  # noqa: S608 (our column names, placeholders)
            + ", ".join("?" * len(keyed)) + ")", keyed)}
    out = []
    for neg, _id, at in top:
        kept = dict(full[texts[at][0]])
        kept["score"] = -neg
        out.append(kept)
    return out


def pg_lexemes(tx: Tx, terms: Sequence[str]) -> list[list[str]]:
    """What PostgreSQL's index holds for each query term: its english
    lexemes, those ``plainto_tsquery('english', term)`` searches for (none
    for a word the english configuration drops)."""
    if not terms:
        return []
    rows = tx.tuples("SELECT i, tsvector_to_array(to_tsvector('english', t))"
                     " FROM unnest(?::text[]) WITH ORDINALITY AS u(t, i)", (list(terms),))
    got = {int(i): list(lexemes) for i, lexemes in rows}
    return [got[i + 1] for i in range(len(terms))]


def bm25_weights(dfs: Sequence[int], stats: tuple[int, float]
                 ) -> tuple[list[float], tuple[float, float, float, float, float]]:
    """Each term's weight (its idf in a view of ``stats``, the document
    count and average length, where ``dfs`` hold it) and the constants of
    the term score ``w * (f * k1p) / (f + k1 * (unscaled + b * dl / per_char))``:
    ``(k1p, k1, unscaled, b, per_char)``. FTS5's parameters; one definition
    for every place that scores (``bm25`` and the database's own arithmetic
    in daemon/retrieval/postings.py)."""
    n_docs, avgdl = stats
    idf = [max(1e-6, math.log((n_docs - d + 0.5) / (d + 0.5))) for d in dfs]
    return idf, (BM25_K1 + 1, BM25_K1, 1 - BM25_B, BM25_B, max(avgdl, 1.0))


def bm25(tfs: dict[Any, list[float]], lengths: dict[Any, int],
         stats: tuple[int, float]) -> dict[Any, float]:
    """BM25 of each candidate whose weighted term counts (one slot per
    scored term, in the plan's order) are ``tfs[k]`` and length
    ``lengths[k]``, with FTS5's parameters over ``stats`` (the view's
    document count and average length), rounded to 9 places; the
    candidates themselves give each term's document frequency. ``scores``'
    arithmetic, term by term in the same order: the same floats."""
    if not tfs:
        return {}
    df = [len(tfs) - column.count(0.0) for column in zip(*tfs.values(), strict=True)]
    idf, (k1, bm25_k1, unscaled, bm25_b, per_char) = bm25_weights(df, stats)
    score: dict[Any, float] = {}
    for key, tf in tfs.items():
        norm = bm25_k1 * (unscaled + bm25_b * lengths[key] / per_char)
        raw = sum([w * (f * k1) / (f + norm) for w, f in zip(idf, tf) if f])  # noqa: B905 (one slot per term)
        score[key] = round(raw, 9)
    return score


def _ranked_pg(tx: Tx, p: Plan, where: str, args: tuple[Any, ...], limit: int,
               after: tuple[float, str] | None, columns: tuple[str, ...] | None,
               stats: tuple[int, float] | None) -> list[dict[str, Any]]:
    """``ranked`` on PostgreSQL, on its own lexemes (docs/decisions/0460).

    The candidates are the entries the tsquery matches; each one's weighted
    count of every scored lexeme (the english lexemes of the plan's terms)
    and its length are read from its index document in the same statement
    (its positions carry their column: ``memoryd_term_weight``) and from
    ``memoryd_doc_length``: no text is read or tokenised in Python. One
    statement: a write transaction there reads each statement's own
    committed rows, and a second one could see another revision."""
    scored = list(dict.fromkeys(x for lexemes in pg_lexemes(tx, p.terms) for x in lexemes))
    if not scored:
        return []
    wanted = "e.*" if columns is None else ", ".join(
        f"e.{c}" for c in dict.fromkeys(("id", *columns)))
    sql = ("SELECT " + wanted + ", memoryd_doc_length(e) AS memoryd_dl, t.memoryd_terms,"  # noqa: S608 (no client text in SQL)
           " t.memoryd_tfs FROM search_index AS f CROSS JOIN entries AS e"
           " CROSS JOIN LATERAL (SELECT array_agg(u.lexeme) AS memoryd_terms,"
           " array_agg(memoryd_term_weight(u.weights)) AS memoryd_tfs"
           " FROM unnest(f.doc) AS u WHERE u.lexeme = ANY(?::text[])) AS t"
           " WHERE f.doc @@ " + pg_query(len(p.terms)) + " AND e.id = f.entry_id AND " + where)
    sql_args: tuple[Any, ...] = (scored, *p.terms, *args)
    if p.only_common:
        # The owner's newest matches, never the index's; ids follow
        # creation order (daemon/ids.py).
        sql += " ORDER BY e.id DESC LIMIT ?"
        sql_args += (COMMON_SCAN,)
    rows = tx.all(sql, sql_args)
    if not rows:
        return []
    if stats is None:
        stats = _filtered_stats(tx, where, args, len(rows))
    slot = {t: i for i, t in enumerate(scored)}
    tfs: dict[int, list[float]] = {}
    lengths: dict[int, int] = {}
    for at, r in enumerate(rows):
        counts = tfs[at] = [0.0] * len(scored)
        lengths[at] = int(r["memoryd_dl"])
        for term, tf in zip(r["memoryd_terms"] or (), r["memoryd_tfs"] or (), strict=True):
            counts[slot[term]] = float(tf)
    score = bm25(tfs, lengths, stats)
    # A candidate holding no scored lexeme (none can: the tsquery matched
    # them) would score 0, as ``scores`` gives it.
    top = best([score[at] for at in range(len(rows))], [r["id"] for r in rows], limit, after)
    out = []
    for neg, _id, at in top:
        kept = ({k: v for k, v in rows[at].items() if not k.startswith("memoryd_")}
                if columns is None else {c: rows[at][c] for c in columns})
        kept["score"] = -neg
        out.append(kept)
    return out


def _fts5_doc_freqs(tx: Tx, terms: Sequence[str], cap: int, where: str,
                    args: tuple[Any, ...]) -> list[int]:
    probe = ("(SELECT count(*) FROM (SELECT f.rowid FROM entries_fts AS f"  # noqa: S608 (no client text in SQL)
             " CROSS JOIN entries AS e WHERE f.entries_fts MATCH ? AND e.key = f.rowid AND "
             + where + " LIMIT ?))")
    return _counts(tx, probe, [(match_term(t), *args, cap + 1) for t in terms])


def _pg_doc_freqs(tx: Tx, terms: Sequence[str], cap: int, where: str,
                  args: tuple[Any, ...]) -> list[int]:
    probe = ("(SELECT count(*) FROM (SELECT 1 FROM search_index AS f"  # noqa: S608 (no client text in SQL)
             " CROSS JOIN entries AS e WHERE f.doc @@ " + pg_query(1)
             + " AND e.id = f.entry_id AND " + where + " LIMIT ?) AS hits)")
    return _counts(tx, probe, [(t, *args, cap + 1) for t in terms])


def _fts5_tokens(_tx: Tx, terms: Sequence[str]) -> list[list[str]]:
    return [list(index_terms((term,))) for term in terms]


@dataclass(frozen=True, slots=True)
class FullText:
    """A store's full-text index, as search and postings read it: what a
    backend's ``Tx`` names as its ``fulltext`` (daemon/storage/txn.py), so
    no reader here asks which SQL the store speaks. Each reader answers
    for the same view what the others do (the same plan, candidates and
    scores up to the index's own tokens: tests/contract/test_ranking_contract.py).
    """

    # The column of ``entries`` that names an entry in the index and in
    # ``entry_terms.key`` (daemon/retrieval/postings.py).
    key: str
    # ``doc_freqs(tx, terms, cap, where, args)``: ``doc_freqs``' counts.
    doc_freqs: Callable[[Tx, Sequence[str], int, str, tuple[Any, ...]], list[int]]
    # ``ranked(tx, p, where, args, limit, after, columns, stats)`` for a plan
    # that matches something: ``ranked``'s rows.
    ranked: Callable[[Tx, Plan, str, tuple[Any, ...], int, tuple[float, str] | None,
                      tuple[str, ...] | None, tuple[int, float] | None],
                     list[dict[str, Any]]]
    # ``tokens(tx, terms)``: each query term's index tokens (on SQLite its
    # stems and CJK grams, on PostgreSQL its english lexemes).
    tokens: Callable[[Tx, Sequence[str]], list[list[str]]]


# SQLite's FTS5 table ``entries_fts`` (rowid: the entry's ``key``), matched
# by ``match_term``'s quoted strings.
FTS5 = FullText(key="key", doc_freqs=_fts5_doc_freqs, ranked=_ranked_fts5,
                tokens=_fts5_tokens)
# PostgreSQL's ``search_index`` tsvectors (by entry id), matched by ``pg_query``.
TSVECTOR = FullText(key="id", doc_freqs=_pg_doc_freqs, ranked=_ranked_pg,
                    tokens=pg_lexemes)


_SPACE = re.compile(r"\s+")


def read_rows(tx: Tx, ids: Sequence[str], where: str, args: tuple[Any, ...],
              columns: tuple[str, ...] | None, by_id: dict[str, dict[str, Any]]) -> None:
    """Add to ``by_id`` the rows of ``ids`` it lacks, read through the caller's
    filter ``where`` on ``e`` (``columns`` of each, None for every column)."""
    missing = [entry_id for entry_id in ids if entry_id not in by_id]
    if not missing:
        return
    cols = "e.*" if columns is None else ", ".join(f"e.{c}" for c in columns)
    # CROSS JOIN pins the order: each candidate by primary key, then the
    # filter. Left to itself the planner may walk an index of every active
    # entry instead. (The CTE's column has a name no entries column has: the
    # caller's filter may name columns unqualified.)
    for row in tx.all("WITH c(wanted_id) AS (SELECT value FROM json_each(?))"  # noqa: S608 (no client text in SQL)
                      f" SELECT {cols} FROM c CROSS JOIN entries AS e"
                      f" WHERE e.id = c.wanted_id AND {where}",
                      (json.dumps(missing), *args)):
        by_id[row["id"]] = row


def snippet(text_fields: tuple[str, ...], terms: tuple[str, ...], width: int = 200) -> str:
    """At most ``width`` characters around the first match in the given fields.

    Fields are tried in order (body, summary, title); the first one holding a
    term gives the window, else the first non-empty field's start.
    """
    lowered_terms = [t for t in terms if t]
    for text in text_fields:
        flat = _SPACE.sub(" ", text).strip()
        folded = flat.casefold()
        hits = [folded.find(t) for t in lowered_terms]
        hits = [h for h in hits if h >= 0]
        if hits:
            return _window(flat, min(hits), width)
    for text in text_fields:
        flat = _SPACE.sub(" ", text).strip()
        if flat:
            return _window(flat, 0, width)
    return ""


def _window(flat: str, at: int, width: int) -> str:
    if len(flat) <= width:
        return flat
    start = max(0, min(at - width // 4, len(flat) - width))
    piece = flat[start:start + width]
    if start > 0:
        piece = "…" + piece[1:]
    if start + width < len(flat):
        piece = piece[:-1] + "…"
    return piece
