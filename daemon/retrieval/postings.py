"""Per-view term statistics: every active entry's index terms, as numbers, by namespace.

Owns: ``term_spaces`` (an integer per (owner, target, scope)) and
``entry_terms`` (space, term, entry key, weighted count, entry length): a
row per index term of every active entry, kept by triggers on ``entries``;
and the plan and ranking of a query over one owner's whole namespaces read
from them (``plan``, ``ranked``, for an ``OwnView``).

Why. Ranking uses the caller's view only (docs/decisions/0009, "Ranking is
per owner"). Through the FTS5 index, which holds every owner's entries, each
probe of a term's frequency and each candidate is a match joined to
``entries`` to apply the view's filter, and each candidate's text is read
and tokenised to count its terms. Here one owner's postings of a term are
one range of the primary key per namespace: a term's frequency in the view
is a count over that range (the index alone), and a candidate's counts are
numbers written once, when the entry was. Another owner's rows are never
read, so the time of a search does not grow with another owner's use of the
same words.

Invariants:
- ``entry_terms`` holds, for every active entry and only for those, the
  rows ``text_index.entry_terms`` and ``text_index.doc_length`` give of its text,
  under its namespace's space; the triggers keep them in the writer's
  transaction, and an entry that stops being active (archive, supersede,
  removal, deletion) or moves takes its rows with it. With ``secure_delete``
  the freed cells are zeroed, as the entry's own.
- ``plan`` and ``ranked`` answer exactly what ``search.plan`` and
  ``search.ranked`` answer for the filter "``owner``'s active, unexpired
  entries in ``spaces``" (tests/contract/test_ranking_contract.py holds
  it): the active entries already past expiry that the janitor has not
  marked yet hold rows here, and are read from ``entries`` and taken out.
- a query whose terms are not one index token each (a term the tokenizer
  splits, a term it drops) and any other filter are answered by
  ``search.plan`` and ``search.ranked``.

PostgreSQL keeps the same two tables (``PG_SCHEMA``, ``PG_FUNCTIONS``),
filled from each entry's stored ``tsvector`` (``search_index.doc``, whose
positions carry their column as a weight: title A, summary B, body D) by
the entries trigger of daemon/storage/pg_schema.py, in the writer's
transaction: a term there is an english lexeme, ``tf`` the weighted count of
its positions, ``key`` the entry's id (entries have no integer key there).
Its ranking is the same arithmetic over its own lexemes (docs/decisions/0460).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import apsw

from memoryd.daemon.retrieval import search, text_index

if TYPE_CHECKING:
    from memoryd.daemon.storage.txn import Tx

# An entry's terms and length, of row ``{r}``: text_index.entry_terms and text_index.doc_length.
_ENTRY = "({r}.title, {r}.summary, {r}.body, {r}.context, {r}.observed_at)"
_TERMS = text_index.ENTRY_TERMS_FUNCTION + _ENTRY
_LENGTH = text_index.DOC_LENGTH_FUNCTION + _ENTRY


def _insert_rows(r: str) -> str:
    """SQL adding the rows of entry ``r`` (a trigger's ``new``) when it is active.

    The length is the same on every row of the entry: it is computed once,
    in a subquery without a FROM clause, which SQLite never flattens into
    the join (written in the select list, the function ran once per term,
    each call handing it the entry's whole text again)."""
    return f"""
  INSERT OR IGNORE INTO term_spaces(owner, target, scope)
    SELECT {r}.owner, {r}.target, {r}.scope WHERE {r}.status = 'active';
  INSERT INTO entry_terms(space, term, key, tf, dl)
    SELECT s.id, t.key, {r}.key, t.value, d.dl
    FROM (SELECT {_LENGTH.format(r=r)} AS dl) AS d, term_spaces AS s,
      json_each({_TERMS.format(r=r)}) AS t
    WHERE {r}.status = 'active'
      AND s.owner = {r}.owner AND s.target = {r}.target AND s.scope = {r}.scope;"""  # noqa: S608 (our own names only)


# The rows of entry ``old`` are found again from its text: the same terms
# (the function is deterministic), each one look-up of the primary key.
_DELETE_OLD = f"""
  DELETE FROM entry_terms WHERE old.status = 'active' AND key = old.key
    AND space = (SELECT id FROM term_spaces
                 WHERE owner = old.owner AND target = old.target AND scope = old.scope)
    AND term IN (SELECT key FROM json_each({_TERMS.format(r="old")}));"""  # noqa: S608 (our own names only)

SCHEMA = f"""
CREATE TABLE IF NOT EXISTS term_spaces(
  id INTEGER PRIMARY KEY, owner TEXT NOT NULL, target TEXT NOT NULL, scope TEXT NOT NULL,
  UNIQUE(owner, target, scope));
CREATE TABLE IF NOT EXISTS entry_terms(
  space INTEGER NOT NULL, term TEXT NOT NULL, key INTEGER NOT NULL, tf INTEGER NOT NULL,
  dl INTEGER NOT NULL, PRIMARY KEY(space, term, key)) WITHOUT ROWID;
DROP TRIGGER IF EXISTS entry_terms_ai;
DROP TRIGGER IF EXISTS entry_terms_au;
DROP TRIGGER IF EXISTS entry_terms_ad;
CREATE TRIGGER entry_terms_ai AFTER INSERT ON entries WHEN new.status = 'active' BEGIN
{_insert_rows("new")}
END;
CREATE TRIGGER entry_terms_au
AFTER UPDATE OF status, title, summary_text, body, context, observed_at, owner, target, scope
  ON entries
WHEN old.status = 'active' OR new.status = 'active' BEGIN
{_DELETE_OLD}
{_insert_rows("new")}
END;
CREATE TRIGGER entry_terms_ad AFTER DELETE ON entries WHEN old.status = 'active' BEGIN
{_DELETE_OLD}
END;
"""

# Every active entry's rows, for a store that has none yet.
FILL = f"""
INSERT OR IGNORE INTO term_spaces(owner, target, scope)
  SELECT DISTINCT owner, target, scope FROM entries WHERE status = 'active';
INSERT INTO entry_terms(space, term, key, tf, dl)
  SELECT s.id, t.key, e.key, t.value, {_LENGTH.format(r="e")}
  FROM entries AS e CROSS JOIN term_spaces AS s, json_each({_TERMS.format(r="e")}) AS t
  WHERE e.status = 'active'
    AND s.owner = e.owner AND s.target = e.target AND s.scope = e.scope;
"""  # noqa: S608 (the SQL is built from our own constants only)


def install(conn: apsw.Connection) -> None:
    """Make the tables and their triggers (inside the opening transaction);
    a store without the tables gets every active entry's rows once."""
    made = not conn.execute(
        "SELECT 1 FROM sqlite_master WHERE name = 'entry_terms'").fetchall()
    conn.execute(SCHEMA)
    if made:
        conn.execute(FILL)


# --- PostgreSQL ------------------------------------------------------------------

_PG_T = 'TEXT COLLATE "C"'
PG_SCHEMA = f"""
CREATE TABLE IF NOT EXISTS term_spaces(
  id BIGSERIAL PRIMARY KEY, owner {_PG_T} NOT NULL, target {_PG_T} NOT NULL,
  scope {_PG_T} NOT NULL, UNIQUE(owner, target, scope));
-- tf and dl ride in the key's index: a term's rows are read from it alone.
CREATE TABLE IF NOT EXISTS entry_terms(
  space BIGINT NOT NULL, term {_PG_T} NOT NULL, key {_PG_T} NOT NULL, tf INTEGER NOT NULL,
  dl INTEGER NOT NULL, PRIMARY KEY(space, term, key) INCLUDE (tf, dl));
"""

_W_TITLE, _W_SUMMARY, _W_BODY = (int(w) for w in text_index.WEIGHTS)
# Called by memoryd_entries_changed (daemon/storage/pg_schema.py): the
# rows of an entry are added from its index document once that is written,
# and dropped (found again from the same document, each one look-up of the
# key) before it is rewritten or deleted.
PG_FUNCTIONS = f"""
-- An entry's length as BM25 measures it: text_index.doc_length.
CREATE OR REPLACE FUNCTION memoryd_doc_length(e entries) RETURNS bigint
LANGUAGE sql IMMUTABLE AS $$
  SELECT length(e.title) + length(e.summary) + length(array_to_string(array_remove(
    ARRAY[e.body, e.context, memoryd_when_words(e.observed_at)], ''), E'\n'))
$$;
-- A lexeme's weighted count: each of its positions counts its column's weight.
CREATE OR REPLACE FUNCTION memoryd_term_weight(weights text[]) RETURNS bigint
LANGUAGE sql IMMUTABLE AS $$
  SELECT coalesce(sum(CASE w WHEN 'A' THEN {_W_TITLE} WHEN 'B' THEN {_W_SUMMARY}
                      ELSE {_W_BODY} END), 0) FROM unnest(weights) AS w
$$;
CREATE OR REPLACE FUNCTION memoryd_terms_add(e entries) RETURNS void
LANGUAGE sql AS $$
  INSERT INTO term_spaces(owner, target, scope) SELECT e.owner, e.target, e.scope
    WHERE NOT EXISTS (SELECT 1 FROM term_spaces
                      WHERE owner = e.owner AND target = e.target AND scope = e.scope)
    ON CONFLICT DO NOTHING;
  INSERT INTO entry_terms(space, term, key, tf, dl)
    SELECT s.id, u.lexeme, e.id, memoryd_term_weight(u.weights), memoryd_doc_length(e)
    FROM term_spaces AS s, search_index AS f, unnest(f.doc) AS u
    WHERE s.owner = e.owner AND s.target = e.target AND s.scope = e.scope
      AND f.entry_id = e.id;
$$;
CREATE OR REPLACE FUNCTION memoryd_terms_drop(e entries) RETURNS void
LANGUAGE sql AS $$
  DELETE FROM entry_terms WHERE key = e.id
    AND space = (SELECT id FROM term_spaces
                 WHERE owner = e.owner AND target = e.target AND scope = e.scope)
    AND term = ANY(tsvector_to_array((SELECT doc FROM search_index WHERE entry_id = e.id)));
$$;
"""  # noqa: S608 (the SQL is built from our own constants only)

# Every index document made again (its columns weighted), then every active
# entry's rows, for a store that has none yet.
PG_FILL = """
UPDATE search_index AS f SET doc = memoryd_fts_doc(e.title, e.summary, e.body, e.context,
                                                  e.observed_at)
  FROM entries AS e WHERE e.id = f.entry_id;
INSERT INTO term_spaces(owner, target, scope)
  SELECT DISTINCT owner, target, scope FROM entries WHERE status = 'active'
  ON CONFLICT DO NOTHING;
INSERT INTO entry_terms(space, term, key, tf, dl)
  SELECT s.id, u.lexeme, e.id, memoryd_term_weight(u.weights), memoryd_doc_length(e)
  FROM entries AS e JOIN term_spaces AS s
    ON s.owner = e.owner AND s.target = e.target AND s.scope = e.scope
  JOIN search_index AS f ON f.entry_id = e.id, unnest(f.doc) AS u
  WHERE e.status = 'active';
"""


@dataclass(frozen=True, slots=True)
class OwnView:
    """A filter of the one shape ``plan`` and ``ranked`` read from postings:
    ``owner``'s active entries unexpired at ``now`` in ``spaces``, and
    nothing else."""

    owner: str
    spaces: tuple[tuple[str, str], ...]
    now: str


def _tokens(tx: Tx, terms: Sequence[str]) -> list[str] | None:
    """Each query term's one index token (on PostgreSQL its one lexeme), or
    None if some term has not exactly one."""
    out = []
    for tokens in tx.fulltext.tokens(tx, terms):
        if len(tokens) != 1:
            return None
        out.append(tokens[0])
    return out


def _key(tx: Tx) -> str:
    """The column of ``entries`` that ``entry_terms.key`` holds."""
    return tx.fulltext.key


def _space_ids(tx: Tx, view: OwnView) -> list[int]:
    if not view.spaces:
        return []
    within, flat = search.namespaces_in(view.spaces)
    return [int(r[0]) for r in tx.tuples(
        "SELECT id FROM term_spaces WHERE owner = ? AND " + within,  # noqa: S608 (placeholders only)
        (view.owner, *flat))]


def _lapsed_sql(view: OwnView, key: str) -> tuple[str, tuple[Any, ...]]:
    """A query of the keys (column ``key`` of ``entries``) of the view's
    active entries already past expiry (the janitor marks them later): they
    hold rows, and the view does not admit them."""
    within, flat = search.namespaces_in(view.spaces)
    return (search.LAPSING.format(columns=key) + " AND " + within,
            (view.now, view.owner, *flat))


def _lapsed(tx: Tx, view: OwnView) -> list[Any]:
    sql, args = _lapsed_sql(view, _key(tx))
    return [r[0] for r in tx.tuples(sql, args)]


def _marks(n: int) -> str:
    return ", ".join("?" * n)


def plan(tx: Tx, text: str, where: str, args: tuple[Any, ...],
         view: OwnView | None) -> search.Plan:
    """``search.plan(tx, text, where, args)``, read from postings when
    ``where`` is ``view``'s filter (the caller says so by giving it)."""
    terms, stopped = text_index.query_terms(text)
    tokens = None if view is None or not terms else _tokens(tx, terms)
    if view is None or tokens is None:
        return search.plan(tx, text, where, args)
    spaces = _space_ids(tx, view)
    if not spaces:
        return search.plan_of(terms, stopped, [0] * len(terms))
    lapsed = _lapsed(tx, view)
    cap = search.COMMON_DOCS + 1
    # Each term's rows in the view, counted up to the cap plus the lapsed
    # entries (which may hold it); then those are taken out.
    probe = ("(SELECT count(*) FROM (SELECT 1 FROM entry_terms"  # noqa: S608 (placeholders only)
             f" WHERE space IN ({_marks(len(spaces))}) AND term = ? LIMIT ?) AS hits)")
    row = tx.tuples("SELECT " + ", ".join([probe] * len(tokens)),
                    tuple(x for t in tokens for x in (*spaces, t, cap + len(lapsed))))[0]
    counts = [int(n) for n in row]
    if lapsed:
        # A subquery, not the keys: there may be more than SQLite binds.
        lapsed_sql, lapsed_args = _lapsed_sql(view, _key(tx))
        held = dict(tx.tuples(
            "SELECT term, count(*) FROM entry_terms"  # noqa: S608 (placeholders only)
            f" WHERE space IN ({_marks(len(spaces))}) AND term IN ({_marks(len(tokens))})"
            f" AND key IN ({lapsed_sql}) GROUP BY term",
            (*spaces, *tokens, *lapsed_args)))
        counts = [n - int(held.get(t, 0)) for n, t in zip(counts, tokens, strict=True)]
    return search.plan_of(terms, stopped, [min(cap, n) for n in counts])


def ranked(tx: Tx, p: search.Plan, where: str, args: tuple[Any, ...], limit: int,
           after: tuple[float, str] | None = None,
           columns: tuple[str, ...] | None = None,
           stats: tuple[int, float] | None = None,
           view: OwnView | None = None) -> list[dict[str, Any]]:
    """``search.ranked(tx, p, where, args, limit, after, columns, stats)``,
    read from postings when ``where`` is ``view``'s filter: each
    candidate's weighted counts and length are numbers here, its text is
    never read, and only the rows kept (with the ties at the cut) are read
    from ``entries``."""
    tokens = None if view is None or p.match is None else _tokens(tx, p.terms)
    if view is None or tokens is None:
        return search.ranked(tx, p, where, args, limit, after, columns, stats)
    spaces = _space_ids(tx, view)
    if not spaces or limit <= 0:
        return []
    if stats is None:
        stats = search.view_stats(tx, view.owner, view.spaces, view.now)
    lapsed = set(_lapsed(tx, view))
    # The distinct tokens, in the plan's order (``p.scored`` on SQLite).
    scored = tuple(dict.fromkeys(tokens))
    slot = {t: i for i, t in enumerate(scored)}
    within = f"space IN ({_marks(len(spaces))})"
    rows: list[tuple[Any, ...]]
    if p.only_common:
        # The view's newest entries holding the rarest term (keys follow
        # insertion, as the index's rowids do).
        rows = [(k, tokens[0], tf, dl) for k, tf, dl in tx.tuples(
            "SELECT key, tf, dl FROM entry_terms WHERE " + within  # noqa: S608 (placeholders only)
            + " AND term = ? ORDER BY key DESC LIMIT ?",
            (*spaces, tokens[0], search.COMMON_SCAN + len(lapsed)))
            if k not in lapsed][:search.COMMON_SCAN]
    elif p.freqs and len(scored) <= SCORED_IN_SQL:
        freqs = dict(zip(tokens, p.freqs, strict=True))
        return _top(tx, _best(tx, spaces, scored, lapsed, stats, limit, after, freqs),
                    limit, after, columns)
    else:
        rows = [r for r in tx.tuples(
            "SELECT key, term, tf, dl FROM entry_terms WHERE " + within  # noqa: S608 (placeholders only)
            + f" AND term IN ({_marks(len(scored))})", (*spaces, *scored))
            if r[0] not in lapsed]
    if not rows:
        return []
    n_terms = len(scored)
    tfs: dict[Any, list[float]] = {}
    lengths: dict[Any, int] = {}
    for key, term, tf, dl in rows:
        counts = tfs.get(key)
        if counts is None:
            counts = tfs[key] = [0.0] * n_terms
            lengths[key] = dl
        counts[slot[term]] = float(tf)
    # As search.scores: each term's frequency among the candidates, BM25
    # with FTS5's parameters over the view's statistics, summed term by
    # term in the plan's order (the same floats).
    score = search.bm25(tfs, lengths, stats)
    return _top(tx, score, limit, after, columns)


# Up to this many distinct terms, the database computes the scores and
# returns only the best (``_best``); a longer query's candidates are scored
# here, by ``search.bm25``, from their counts.
SCORED_IN_SQL = 16
# A score is rounded to 9 places: a raw score moves by at most half of this.
_ROUNDING = 1e-9
_F = "CAST(? AS DOUBLE PRECISION)"


def _best(tx: Tx, spaces: list[int], scored: tuple[str, ...], lapsed: set[Any],
          stats: tuple[int, float], limit: int, after: tuple[float, str] | None,
          freqs: dict[str, int]) -> dict[Any, float]:
    """The rounded BM25 of the candidates ``_top`` may keep for ``limit``
    rows below ``after``: computed by the database, which returns only the
    best of them instead of every candidate's counts.

    The arithmetic is ``search.bm25``'s, operation for operation (each
    term's share ``w * (f * k1p) / (f + norm)``, added in the plan's order,
    an absent term's share 0.0, which changes no sum; IEEE doubles on both
    sides), so the floats are the same; rounding stays here. A candidate
    left out scores at most the lowest raw score returned, so it cannot tie
    or beat the last row ``_top`` keeps when that lowest score is more than
    ``_ROUNDING`` below it; otherwise more are asked for. ``freqs``: each
    token's document frequency in the view, as the plan counted it."""
    within = f"space IN ({_marks(len(spaces))}) AND term IN ({_marks(len(scored))})"
    flat: tuple[Any, ...] = (*spaces, *scored)
    if lapsed:
        within += f" AND key NOT IN ({_marks(len(lapsed))})"
        flat += tuple(lapsed)
    idf, (k1p, k1, unscaled, b, per_char) = search.bm25_weights(
        [freqs[t] for t in scored], stats)
    shares = " + ".join(f"coalesce({_F} * (f{i} * {_F}) / (f{i} + norm), 0.0)"
                        for i in range(len(scored)))
    counts = ", ".join(f"max(CASE WHEN term = ? THEN tf END) AS f{i}"
                       for i in range(len(scored)))
    sql = (f"SELECT key, raw FROM (SELECT key, {shares} AS raw FROM"  # noqa: S608 (placeholders only)
           f" (SELECT key, {_F} * ({_F} + {_F} * max(dl) / {_F}) AS norm, {counts}"
           f" FROM entry_terms WHERE {within} GROUP BY key) AS c) AS s"
           + (f" WHERE raw <= {_F}" if after is not None else "")
           + " ORDER BY raw DESC LIMIT ?")
    args = (*(x for w in idf for x in (w, k1p)), k1, unscaled, b, per_char, *scored, *flat,
            *((after[0] + _ROUNDING,) if after is not None else ()))
    fetch = limit + 32
    while True:
        got = tx.tuples(sql, (*args, fetch))
        score = {key: round(raw, 9) for key, raw in got}
        if len(got) < fetch:
            return score
        eligible = sorted((s for s in score.values() if after is None or s <= after[0]),
                          reverse=True)
        reach = limit + (eligible.count(after[0]) if after is not None else 0)
        if len(eligible) >= reach and got[-1][1] < eligible[reach - 1] - _ROUNDING:
            return score
        fetch *= 4


def _top(tx: Tx, score: dict[Any, float], limit: int, after: tuple[float, str] | None,
         columns: tuple[str, ...] | None) -> list[dict[str, Any]]:
    """The best ``limit`` of the candidates ``score`` holds (key: rounded
    score), score descending then id ascending, below ``after`` when given;
    each the entry's columns (``columns`` only, when given) plus ``score``.

    Ids order ties, and only the rows that can be kept are read: those
    scoring at least the ``limit``-th best score, counting in the ones at
    the cursor's own score that its id may still rule out."""
    order = sorted(score, key=score.__getitem__, reverse=True)
    extra = 0
    if after is not None:
        order = [k for k in order if score[k] <= after[0]]
        extra = sum(1 for k in order if score[k] == after[0])
    reach = limit + extra
    if len(order) > reach:
        floor = score[order[reach - 1]]
        order = [k for k in order if score[k] >= floor]
    if not order:
        return []
    key = _key(tx)
    wanted = "*" if columns is None else ", ".join(dict.fromkeys((key, "id", *columns)))
    rows = {r[key]: r for r in tx.all(
        "SELECT " + wanted + f" FROM entries WHERE {key} IN ("  # noqa: S608 (our column names, placeholders)
        + _marks(len(order)) + ")", tuple(order))}
    ranked = sorted((-score[k], rows[k]["id"], k) for k in order
                    if after is None or score[k] < after[0]
                    or (score[k] == after[0] and rows[k]["id"] > after[1]))
    out = []
    for neg, _id, key in ranked[:limit]:
        row = rows[key]
        kept = dict(row) if columns is None else {c: row[c] for c in columns}
        kept["score"] = -neg
        out.append(kept)
    return out
