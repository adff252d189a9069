"""``entry_terms`` follows ``entries`` through every change the daemon makes.

Whatever happens to an entry (added, rewritten, archived, made active
again, moved to another namespace or owner, removed, deleted), the rows
ranking reads (daemon/retrieval/postings.py) are exactly the terms and
lengths of the active entries, each under its own namespace: nothing
missing, nothing left behind.
"""

from __future__ import annotations

import random
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from msgspec import UNSET

from memoryd.daemon.pipeline import entries
from memoryd.daemon.retrieval import text_index
from memoryd.daemon.storage.store import SqliteStore, Tx

WORDS = ["deploy", "Deploys", "rollback", "cache", "机器学习", "café", "x1", "the", "…"]
NAMESPACES = [("own_a", "memory", "s0"), ("own_a", "user", "u"), ("own_b", "memory", "s0")]


def _text(rng: random.Random, k: int) -> str:
    return " ".join(rng.choice(WORDS) for _ in range(k))


def _expected(tx: Tx) -> set[tuple[Any, ...]]:
    """What the rows must be: each active entry's terms and length, from its text."""
    out = set()
    for r in tx.all(
        "SELECT key, owner, target, scope, title, summary, body, context,"
        " observed_at FROM entries WHERE status = 'active'"
    ):
        texts = (r["title"], r["summary"], r["body"], r["context"], r["observed_at"])
        dl = text_index.doc_length(*texts)
        for term, tf in text_index.entry_terms(*texts).items():
            out.add((r["owner"], r["target"], r["scope"], term, r["key"], tf, dl))
    return out


def _held(tx: Tx) -> set[tuple[Any, ...]]:
    rows = tx.tuples(
        "SELECT s.owner, s.target, s.scope, t.term, t.key, t.tf, t.dl"
        " FROM entry_terms AS t JOIN term_spaces AS s ON s.id = t.space"
    )
    assert len(rows) == len(set(rows))
    return set(rows)


def _step(tx: Tx, rng: random.Random, i: int) -> None:
    keys = [r[0] for r in tx.tuples("SELECT key FROM entries")]
    op = rng.choice(["add", "add", "text", "status", "move", "delete", "context"])
    if op == "add" or not keys:
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
    key = rng.choice(keys)
    if op == "text":
        column = rng.choice(["title", "body", "summary_text"])
        value = f"{_text(rng, 3)} {i}" if column == "title" else rng.choice([_text(rng, 4), None])
        if column != "summary_text" and value is None:
            value = _text(rng, 2)
        tx.exec(f"UPDATE entries SET {column} = ? WHERE key = ?", (value, key))  # noqa: S608 (our names)
    elif op == "context":
        tx.exec(
            "UPDATE entries SET context = ?, observed_at = ? WHERE key = ?",
            (rng.choice([None, _text(rng, 2)]), rng.choice([None, "2024-02-29"]), key),
        )
    elif op == "status":
        tx.exec(
            "UPDATE entries SET status = ? WHERE key = ?",
            (rng.choice(["active", "archived", "superseded", "removed"]), key),
        )
    elif op == "move":
        owner, target, scope = rng.choice(NAMESPACES)
        tx.exec(
            "UPDATE entries SET owner = ?, target = ?, scope = ? WHERE key = ?",
            (owner, target, scope, key),
        )
    else:
        tx.exec("DELETE FROM entries WHERE key = ?", (key,))


def test_rows_are_every_active_entrys_terms_after_any_change(tmp_path: Path) -> None:
    store = SqliteStore(tmp_path / "m.db", synchronous="OFF")
    try:
        rng = random.Random(11)
        for i in range(400):
            store.run_sync(lambda tx, i=i: _step(tx, rng, i))
            if i % 50 == 49:
                expected, held = store.run_sync(lambda tx: (_expected(tx), _held(tx)), write=False)
                assert held == expected
        expected = store.run_sync(_expected, write=False)
        assert len({row[4] for row in expected}) > 20  # active entries do hold terms
    finally:
        store.close()


def test_a_store_opened_without_rows_gets_them_from_its_entries(tmp_path: Path) -> None:
    store = SqliteStore(tmp_path / "m.db", synchronous="OFF")
    rng = random.Random(12)
    for i in range(60):
        store.run_sync(lambda tx, i=i: _step(tx, rng, i))
    store.run_sync(lambda tx: tx.exec("DROP TABLE entry_terms"))
    store.close()
    store = SqliteStore(tmp_path / "m.db", synchronous="OFF")
    try:
        expected, held = store.run_sync(lambda tx: (_expected(tx), _held(tx)), write=False)
        assert held == expected and expected
    finally:
        store.close()
