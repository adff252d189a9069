"""PostgreSQL's ``entry_terms`` follows ``entries`` through every change.

Whatever happens to an entry (added, rewritten, archived, made active
again, moved to another namespace or owner, removed, deleted), the rows an
owner's ranking reads there (daemon/retrieval/postings.py) are exactly the
english lexemes of the active entries, each with its count weighted by
column and the entry's length, under its own namespace: nothing missing,
nothing left behind. A store made before them gets them at its first open.
"""

from __future__ import annotations

import random
from collections import Counter
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import psycopg
import pytest
from msgspec import UNSET

from memoryd.daemon.pipeline import entries
from memoryd.daemon.retrieval import postings, search, text_index
from memoryd.daemon.storage.store import Tx
from tests.contract.conftest import opened, pg_section
from tests.harness import PG_DSN

WORDS = [
    "deploy",
    "Deploys",
    "rollback",
    "generously",
    "skies",
    "机器学习",
    "café",
    "x1",
    "the",
    "…",
    "/var/log/syslog",
    "db-07.internal",
]
NAMESPACES = [("own_a", "memory", "s0"), ("own_a", "user", "u"), ("own_b", "memory", "s0")]


def _text(rng: random.Random, k: int) -> str:
    return " ".join(rng.choice(WORDS) for _ in range(k))


def _lexemes(tx: Tx, text: str) -> Counter[str]:
    """Each english lexeme of ``text`` (its index form) and how often it occurs."""
    return Counter(
        {
            r["lexeme"]: int(r["k"])
            for r in tx.all(
                "SELECT u.lexeme, cardinality(u.positions) AS k"
                " FROM unnest(to_tsvector('english', memoryd_fts_text(?))) AS u",
                (text,),
            )
        }
    )


def _expected(tx: Tx) -> set[tuple[Any, ...]]:
    """What the rows must be: each active entry's lexemes, weighted by column
    (title, summary, body with its context and date), and its length."""
    out = set()
    w_title, w_summary, w_body = (int(w) for w in text_index.WEIGHTS)
    for r in tx.all(
        "SELECT id, owner, target, scope, title, summary, body, context,"
        " observed_at FROM entries WHERE status = 'active'"
    ):
        body = text_index.body_text(r["body"], r["context"], r["observed_at"])
        tf: Counter[str] = Counter()
        for text, weight in ((r["title"], w_title), (r["summary"], w_summary), (body, w_body)):
            for lexeme, k in _lexemes(tx, text).items():
                tf[lexeme] += weight * k
        dl = text_index.doc_length(
            r["title"], r["summary"], r["body"], r["context"], r["observed_at"]
        )
        out.update(
            (r["owner"], r["target"], r["scope"], term, r["id"], n, dl) for term, n in tf.items()
        )
    return out


def _held(tx: Tx) -> set[tuple[Any, ...]]:
    rows = tx.tuples(
        "SELECT s.owner, s.target, s.scope, t.term, t.key, t.tf, t.dl"
        " FROM entry_terms AS t JOIN term_spaces AS s ON s.id = t.space"
    )
    assert len(rows) == len(set(rows))
    return set(rows)


def _step(tx: Tx, rng: random.Random, i: int) -> None:
    ids = [r[0] for r in tx.tuples("SELECT id FROM entries")]
    op = rng.choice(["add", "add", "text", "status", "move", "delete", "context"])
    if op == "add" or not ids:
        owner, target, scope = rng.choice(NAMESPACES)
        body = _text(rng, rng.randint(1, 8))
        entries.insert(
            tx,
            owner,
            target,
            scope,
            {
                "type": "fact",
                "title": f"{_text(rng, 2)} {i}",
                "body": body,
                "summary": rng.choice([body, body[:5] + "…"]),
                "basis": UNSET,
                "validity": UNSET,
                "ttl_days": 30,
                "pinned": False,
                "context": rng.choice([UNSET, _text(rng, 3)]),
                "observed_at": rng.choice([UNSET, "2025-03-08"]),
            },
            "b3k:" + f"{i:064x}",
            entries.Provenance("agent", True, None),
            datetime(2026, 1, 1, tzinfo=UTC) + timedelta(seconds=i),
        )
        return
    eid = rng.choice(ids)
    if op == "text":
        column = rng.choice(["title", "body", "summary"])
        value = f"{_text(rng, 3)} {i}" if column == "title" else _text(rng, 4)
        tx.exec(f"UPDATE entries SET {column} = ? WHERE id = ?", (value, eid))  # noqa: S608 (our names)
    elif op == "context":
        tx.exec(
            "UPDATE entries SET context = ?, observed_at = ? WHERE id = ?",
            (rng.choice([None, _text(rng, 2)]), rng.choice([None, "2024-02-29"]), eid),
        )
    elif op == "status":
        # Another active entry may hold the title in the new namespace: a
        # title is unique among active entries.
        tx.exec(
            "UPDATE entries SET status = ?, title = title || ' ' || ? WHERE id = ?",
            (rng.choice(["active", "archived", "superseded", "removed"]), str(i), eid),
        )
    elif op == "move":
        owner, target, scope = rng.choice(NAMESPACES)
        tx.exec(
            "UPDATE entries SET owner = ?, target = ?, scope = ?, title = title || ' ' || ?"
            " WHERE id = ?",
            (owner, target, scope, str(i), eid),
        )
    else:
        tx.exec("DELETE FROM entries WHERE id = ?", (eid,))


def test_rows_are_every_active_entrys_lexemes_after_any_change(
    tmp_path: Path, pg_schema: str
) -> None:
    with opened(tmp_path, pg_section(pg_schema)) as store:
        rng = random.Random(11)
        for i in range(240):
            store.run_sync(lambda tx, i=i: _step(tx, rng, i))
            if i % 60 == 59:
                expected, held = store.run_sync(lambda tx: (_expected(tx), _held(tx)), write=False)
                assert held == expected
        expected = store.run_sync(_expected, write=False)
        assert len({row[4] for row in expected}) > 20  # active entries do hold terms
        assert {row[3] for row in expected} >= {"generous", "sky", "机器"}


def _reopened(
    tmp_path: Path, pg_schema: str, seed: int, older: tuple[str, ...], count: str
) -> tuple[set[tuple[Any, ...]], set[tuple[Any, ...]], int]:
    """A store filled by random steps, set back to an older version by the
    statements ``older``, then opened again: the rows its postings must
    hold, the rows they hold, and the ``count`` query's answer."""
    rng = random.Random(seed)
    with opened(tmp_path / "first", pg_section(pg_schema)) as store:
        for i in range(60):
            store.run_sync(lambda tx, i=i: _step(tx, rng, i))
    with psycopg.connect(PG_DSN, autocommit=True) as conn:
        conn.execute(f'SET search_path TO "{pg_schema}"')
        for statement in older:
            conn.execute(statement)
    with opened(tmp_path / "second", pg_section(pg_schema)) as store:
        expected, held, row = store.run_sync(
            lambda tx: (_expected(tx), _held(tx), tx.one(count)), write=False
        )
    assert row is not None
    return expected, held, int(row["n"])


def test_a_store_made_before_the_rows_gets_them_at_its_first_open(
    tmp_path: Path, pg_schema: str
) -> None:
    # As version 3 left it: no postings, and index documents without weights.
    expected, held, weighted = _reopened(
        tmp_path,
        pg_schema,
        12,
        (
            "DROP TABLE entry_terms; DROP TABLE term_spaces",
            "UPDATE search_index SET doc = setweight(doc, 'D')",
            "UPDATE meta SET value = '3' WHERE key = 'schema_version'",
        ),
        "SELECT count(*) AS n FROM search_index AS f, unnest(f.doc) AS u,"
        " unnest(u.weights) AS w WHERE w = 'A'",
    )
    assert held == expected and expected
    assert weighted > 0  # titles are weighted again


def test_a_version_4_store_is_indexed_again_in_words_at_its_first_open(
    tmp_path: Path, pg_schema: str
) -> None:
    # Version 4's documents kept a path or a host name whole; stand in for
    # them with documents and postings that hold nothing at all.
    expected, held, documents = _reopened(
        tmp_path,
        pg_schema,
        14,
        (
            "UPDATE search_index SET doc = ''::tsvector",
            "DELETE FROM entry_terms",
            "UPDATE meta SET value = '4' WHERE key = 'schema_version'",
        ),
        "SELECT count(*) AS n FROM search_index WHERE doc <> ''::tsvector",
    )
    assert held == expected and expected
    assert {row[3] for row in expected} >= {"syslog", "intern"}  # words of a path, a host
    assert documents > 0


def test_an_owners_whole_namespaces_are_ranked_from_its_postings(
    tmp_path: Path, pg_schema: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    rng = random.Random(13)
    with opened(tmp_path, pg_section(pg_schema)) as store:
        for i in range(40):
            store.run_sync(lambda tx, i=i: _step(tx, rng, i))

        def index_read(*_args: Any, **_kwargs: Any) -> None:
            raise AssertionError("the index was read for an owner's whole namespaces")

        for name in ("plan", "ranked", "doc_freqs", "scores"):
            monkeypatch.setattr(search, name, index_read)
        now = "2026-01-02T00:00:00.000000Z"
        view = postings.OwnView("own_a", (("memory", "s0"), ("user", "u")), now)
        within, flat = search.namespaces_in(view.spaces, "e.")
        where = f"e.owner = ? AND {within} AND e.status = 'active' AND e.expires_at > ?"
        args = ("own_a", *flat, now)

        def rank(tx: Tx) -> list[dict[str, Any]]:
            p = postings.plan(tx, "deploy skies rollback", where, args, view)
            return postings.ranked(tx, p, where, args, 10, columns=("id",), view=view)

        found = store.run_sync(rank, write=False)
        assert found and all(r["score"] > 0 for r in found)
