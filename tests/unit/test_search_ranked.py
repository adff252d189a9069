"""``search.ranked`` against a plain reference: the same rows, scores and order.

The ranker reads the candidates' text first (and the caller's other
columns only for the rows it keeps), and counts terms with
``TermCounter``'s fast paths. The
reference here does none of that: one join of every candidate to its whole
row, every text tokenised in full, BM25 written out. The two must agree for
every filter the daemon builds, every column choice, cursor and limit, and
one owner's answer must not move when another owner's entries are added.
"""

from __future__ import annotations

import math
import random
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from memoryd.daemon.retrieval import search, text_index
from memoryd.daemon.storage.store import SqliteStore

NOW = "2026-06-01T00:00:00.000000Z"
WORDS = [
    "deploy",
    "rollback",
    "zebra",
    "quartz",
    "the",
    "notes",
    "cache",
    "Cache",
    "plan",
    "deploys",
    "x1",
    "v2",
    "机器",
    "学习",
    "部署",
    "好好好",
    "テスト",
    "café",
    "…",
    "—",
]
RECALL_COLUMNS = (
    "id",
    "title",
    "summary",
    "type",
    "scope",
    "target",
    "revision",
    "content_hash",
    "source",
    "eligible",
    "updated_at",
)
# The filters the daemon builds: recall's (prefixed), memory.list search's
# (bare names), a team-like OR of owners, and one that reads a column the
# filter index does not hold.
FILTERS = [
    ("e.owner = ? AND e.status = 'active' AND e.expires_at > ?", ("own_a", NOW)),
    (
        "(e.owner = ? AND ((e.target = ? AND e.scope = ?) OR (e.target = ? AND e.scope = ?)))"
        " AND e.status = 'active' AND e.expires_at > ?",
        ("own_a", "memory", "s0", "user", "u", NOW),
    ),
    (
        "owner = ? AND target = ? AND (+status = 'active' AND expires_at > ?)",
        ("own_b", "memory", NOW),
    ),
    (
        "(e.owner = ? OR (e.owner = ? AND e.target = 'memory' AND e.scope = ?))"
        " AND e.status = 'active' AND e.expires_at > ?",
        ("own_a", "own_b", "s1", NOW),
    ),
    ("owner = ? AND type IN (?, ?) AND status = 'active'", ("own_a", "fact", "rule")),
]
QUERIES = [
    "deploy rollback",
    "zebra quartz notes",
    "机器 学习",
    "部署 the cache",
    "好好",
    "café plan",
    "テスト x1 v2",
    "cache",
    "nothing-here",
    "deploys deploy",
]


def _text(rng: random.Random, k: int) -> str:
    return " ".join(rng.choice(WORDS) for _ in range(k)) + rng.choice(["", "…", "。"])


def _fill(store: SqliteStore, seed: int, n: int, owners: tuple[str, ...]) -> None:
    rng = random.Random(seed)

    def run(tx: Any) -> None:
        for i in range(n):
            body = _text(rng, rng.randint(1, 12))
            summary = rng.choice([None, None, _text(rng, 4), ""])
            tx.exec(
                "INSERT INTO entries(id, owner, target, scope, type, title, body, summary_text,"
                " status, revision, source, eligible, basis_text, pinned, created_at,"
                " updated_text, renewed_text, ttl_days, expires_at, content_key) VALUES"
                " (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 'agent', 1, '{}', 0, 't', 't', 't', 1.0, ?, 'h')",
                (
                    f"ent_{seed}_{i:04d}",
                    rng.choice(owners),
                    rng.choice(["memory", "user"]),
                    rng.choice(["s0", "s1", "u"]),
                    rng.choice(["fact", "rule", "note"]),
                    _text(rng, rng.randint(0, 3)),
                    body,
                    summary,
                    rng.choice(["active", "active", "active", "archived"]),
                    rng.randint(1, 3),
                    rng.choice(["2099-01-01T00:00:00.000000Z", "2020-01-01T00:00:00.000000Z"]),
                ),
            )

    store.run_sync(run)


def _reference(
    tx: Any,
    p: search.Plan,
    where: str,
    args: tuple[Any, ...],
    limit: int,
    after: tuple[float, str] | None,
    columns: tuple[str, ...] | None,
    stats: tuple[int, float],
) -> list[dict[str, Any]]:
    sql = (
        "SELECT e.*, f.rowid AS k FROM entries_fts AS f CROSS JOIN entries AS e"  # noqa: S608 (test constants)
        " WHERE f.entries_fts MATCH ? AND e.key = f.rowid AND " + where
    )
    sql_args: tuple[Any, ...] = (p.match, *args)
    if p.only_common:
        sql += " ORDER BY f.rowid DESC LIMIT ?"
        sql_args += (search.COMMON_SCAN,)
    rows = tx.all(sql, sql_args)
    n_docs, avgdl = stats
    tfs = []
    for row in rows:
        tf = Counter[str]()
        for text, weight in zip(
            (row["title"], row["summary"], row["body"]), text_index.WEIGHTS, strict=True
        ):
            for token, n in Counter(text_index.index_tokens(text)).items():
                tf[token] += weight * n
        tfs.append(tf)
    # The terms the index matched: each query term's stem or CJK gram.
    terms = text_index.index_terms(p.terms)
    df = {t: sum(1 for tf in tfs if tf[t]) for t in terms}
    scored = []
    for row, tf in zip(rows, tfs, strict=True):
        dl = len(row["title"]) + len(row["summary"]) + len(row["body"])
        norm = search.BM25_K1 * (1 - search.BM25_B + search.BM25_B * dl / max(avgdl, 1.0))
        score = 0.0
        for t in terms:
            if tf[t]:
                idf = max(1e-6, math.log((n_docs - df[t] + 0.5) / (df[t] + 0.5)))
                score += idf * (tf[t] * (search.BM25_K1 + 1)) / (tf[t] + norm)
        scored.append((round(score, 9), row))
    if after is not None:
        scored = [
            (s, r) for s, r in scored if s < after[0] or (s == after[0] and r["id"] > after[1])
        ]
    scored.sort(key=lambda pair: (-pair[0], pair[1]["id"]))
    out = []
    for s, row in scored[:limit]:
        kept = (
            {k: v for k, v in row.items() if k != "k"}
            if columns is None
            else {c: row[c] for c in columns}
        )
        kept["score"] = s
        out.append(kept)
    return out


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> SqliteStore:
    s = SqliteStore(tmp_path_factory.mktemp("ranked") / "m.db", synchronous="OFF")
    _fill(s, 1, 600, ("own_a", "own_b", "own_c"))
    return s


def _both(
    store: SqliteStore,
    q: str,
    where: str,
    args: tuple[Any, ...],
    limit: int,
    after: tuple[float, str] | None,
    columns: tuple[str, ...] | None,
) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    def run(tx: Any) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
        p = search.plan(tx, q, where, args)
        if p.match is None:
            return [], []
        stats = (137, 41.5)
        return (
            search.ranked(tx, p, where, args, limit, after, columns, stats),
            _reference(tx, p, where, args, limit, after, columns, stats),
        )

    return store.run_sync(run, write=False)


@pytest.mark.parametrize("where, args", FILTERS)
@pytest.mark.parametrize("columns", [None, RECALL_COLUMNS, ("id",), ("title", "type", "id")])
def test_ranked_equals_the_reference_for_every_filter_and_column_choice(
    store: SqliteStore, where: str, args: tuple[Any, ...], columns: tuple[str, ...] | None
) -> None:
    compared = 0
    for q in QUERIES:
        for limit in (3, 200):
            got, want = _both(store, q, where, args, limit, None, columns)
            assert got == want, q
            compared += len(want)
            if len(want) > 2:
                # A cursor below the second row continues exactly as the reference does.
                cursor = (want[1]["score"], want[1]["id"]) if "id" in (columns or ("id",)) else None
                got, want = _both(store, q, where, args, limit, cursor, columns)
                assert got == want, q
    assert compared > 100  # the queries do find rows under each filter


def test_only_over_common_terms_rank_the_owners_newest_matches_the_same(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = SqliteStore(tmp_path / "m.db", synchronous="OFF")
    _fill(store, 2, 300, ("own_a", "own_b"))
    # Every term over-common: the plan keeps the rarest over a bounded scan.
    monkeypatch.setattr(search, "COMMON_DOCS", 5)
    monkeypatch.setattr(search, "COMMON_SCAN", 7)
    where, args = FILTERS[0]
    for q in ("deploy cache", "zebra", "机器"):
        got, want = _both(store, q, where, args, 200, None, RECALL_COLUMNS)
        assert got == want
        assert 0 < len(got) <= 7


def test_another_owners_entries_move_no_score_order_or_cut(tmp_path: Path) -> None:
    store = SqliteStore(tmp_path / "m.db", synchronous="OFF")
    _fill(store, 3, 200, ("own_a",))
    where, args = FILTERS[0]

    def answers() -> list[list[dict[str, Any]]]:
        def run(tx: Any) -> list[list[dict[str, Any]]]:
            out = []
            for q in QUERIES:
                p = search.plan(tx, q, where, args)
                stats = search.view_stats(
                    tx,
                    "own_a",
                    [
                        ("memory", "s0"),
                        ("memory", "s1"),
                        ("user", "u"),
                        ("memory", "u"),
                        ("user", "s0"),
                        ("user", "s1"),
                    ],
                    NOW,
                )
                out.append(
                    [
                        p.stats(),
                        *search.ranked(tx, p, where, args, 10, columns=RECALL_COLUMNS, stats=stats),
                    ]
                )
            return out

        return store.run_sync(run, write=False)

    alone = answers()
    assert sum(len(a) - 1 for a in alone) > 20
    _fill(store, 4, 2_000, ("own_b", "own_c"))  # the same words, many more of them
    assert answers() == alone


# Words whose starts are words too: a summary cut inside "deploys" ends in
# the token "deploy", one the body does not hold there.
PREFIX_WORDS = [
    "deploys",
    "deploy",
    "rollback",
    "roll",
    "Cache",
    "cached",
    "x1",
    "x12",
    "plan",
    "plans",
    "the",
    "v2.",
    "a-b",
    "\t",
    "café",
    "\u212aelvin",
]
PREFIX_QUERIES = [
    "deploy roll",
    "x1 cache plan",
    "plans x12",
    "deploys rollback",
    "a b",
    "cached roll v2",
    "cafe caf",
    "kelvin x1",
]


def test_a_summary_that_is_the_bodys_start_counts_as_its_own_text(tmp_path: Path) -> None:
    # The daemon's summaries are the body's first line, or its first
    # characters cut with an ellipsis; ``ranked`` reads such a summary's
    # tokens from the body's. Cut everywhere, words split included.
    store = SqliteStore(tmp_path / "m.db", synchronous="OFF")
    rng = random.Random(5)

    def run(tx: Any) -> None:
        for i in range(130):  # fewer than the statistics' 137 documents
            lines = [
                " ".join(rng.choice(PREFIX_WORDS) for _ in range(rng.randint(1, 8)))
                for _ in range(rng.randint(1, 3))
            ]
            body = "\n".join(lines)
            cut = body[: rng.randint(0, len(body))]
            summary = rng.choice(
                [cut + "…", cut, lines[0], lines[0][:-1] + "…", "…", cut + "é…", None]
            )
            tx.exec(
                "INSERT INTO entries(id, owner, target, scope, type, title, body, summary_text,"
                " status, revision, source, eligible, basis_text, pinned, created_at,"
                " updated_text, renewed_text, ttl_days, expires_at, content_key) VALUES"
                " (?, 'own_a', 'memory', 's0', 'fact', ?, ?, ?, 'active', 1, 'agent', 1, '{}',"
                " 0, 't', 't', 't', 1.0, '2099-01-01T00:00:00.000000Z', 'h')",
                (f"ent_p_{i:04d}", rng.choice(["", "deploy", "Roll x1", "plans"]), body, summary),
            )

    store.run_sync(run)
    where, args = FILTERS[0]
    compared = 0
    for q in PREFIX_QUERIES:
        got, want = _both(store, q, where, args, 200, None, RECALL_COLUMNS)
        assert got == want, q
        compared += len(want)
    assert compared > 200
