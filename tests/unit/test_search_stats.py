"""BM25's statistics of an owner's view, from running totals instead of a scan.

``search.view_stats`` must give exactly what the scan of the view gives (the
document count and average length that ``ranked`` used to compute), whatever
writes, status changes, text changes, moves and expiries came before.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from memoryd.daemon.retrieval import search
from memoryd.daemon.storage.store import SqliteStore, Tx

NOW = "2026-12-01T00:00:00.000000Z"
PAST, FUTURE = "2026-11-01T00:00:00.000000Z", "2027-01-01T00:00:00.000000Z"
OWNERS = ("own_a", "own_b")
SPACES = (("memory", "s0"), ("memory", "s1"), ("user", "s0"))
STATUSES = ("active", "archived", "expired", "removed")


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> Iterator[SqliteStore]:
    s = SqliteStore(tmp_path_factory.mktemp("stats") / "m.db", synchronous="OFF")
    yield s
    s.close()


def _scan(tx: Tx, owner: str, spaces: tuple[tuple[str, str], ...]) -> tuple[int, float]:
    """What ``ranked`` computed before: a scan of the view."""
    where = (
        "e.owner = ? AND e.status = 'active' AND e.expires_at > ? AND ("
        + " OR ".join("(e.target = ? AND e.scope = ?)" for _ in spaces)
        + ")"
    )
    args = (owner, NOW, *(x for pair in spaces for x in pair))
    row = tx.one(
        "SELECT count(*) AS n, avg(length(e.title) + length(e.summary)"  # noqa: S608 (placeholders only)
        " + length(e.body)) AS avgdl FROM entries AS e WHERE " + where,
        args,
    )
    assert row is not None
    return int(row["n"]), float(row["avgdl"] or 1.0)


_TEXT = st.text(alphabet="ab é机\n", max_size=12)
_CHANGE = st.tuples(
    st.integers(0, 7),
    st.sampled_from(OWNERS),
    st.sampled_from(SPACES),
    st.sampled_from(STATUSES),
    _TEXT,
    _TEXT,
    _TEXT,
    st.sampled_from((PAST, FUTURE)),
    st.booleans(),
)


def _apply(tx: Tx, changes: list[tuple[Any, ...]], tag: str) -> None:
    for i, owner, (target, scope), status, title, summary, body, expires, delete in changes:
        entry_id = f"ent_{tag}_{i}"
        if tx.one("SELECT 1 AS x FROM entries WHERE id = ?", (entry_id,)) is None:
            tx.exec(
                "INSERT INTO entries(id, owner, target, scope, type, title, body, summary_text,"
                " status, revision, source, eligible, basis_text, pinned, created_at, updated_text,"
                " renewed_text, ttl_days, expires_at, content_key) VALUES (?, ?, ?, ?, 'fact',"
                " ?, ?, ?, ?, 1, 'user', 1, '{}', 0, 't', 't', 't', 1.0, ?, 'h')",
                (
                    entry_id,
                    owner,
                    target,
                    scope,
                    f"{tag}{i}{title}",
                    body,
                    summary,
                    status,
                    expires,
                ),
            )
        elif delete:
            tx.exec("DELETE FROM entries WHERE id = ?", (entry_id,))
        else:
            tx.exec(
                "UPDATE entries SET owner = ?, target = ?, scope = ?, status = ?,"
                " title = ?, summary_text = ?, body = ?, expires_at = ? WHERE id = ?",
                (
                    owner,
                    target,
                    scope,
                    status,
                    f"{tag}{i}{title}",
                    summary,
                    body,
                    expires,
                    entry_id,
                ),
            )


@settings(max_examples=40, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(_CHANGE, max_size=14), st.data())
def test_view_stats_equal_a_scan_of_the_view(
    store: SqliteStore, changes: list[Any], data: st.DataObject
) -> None:
    tag = f"t{data.draw(st.integers(0, 10**9))}"
    store.run_sync(lambda tx: _apply(tx, changes, tag))
    for owner in OWNERS:
        spaces = tuple(
            data.draw(st.lists(st.sampled_from(SPACES), min_size=1, max_size=3, unique=True))
        )
        view = (owner, spaces)
        got = store.run_sync(lambda tx, v=view: search.view_stats(tx, *v, NOW), write=False)
        want = store.run_sync(lambda tx, v=view: _scan(tx, *v), write=False)
        assert got == want


def test_an_empty_view_has_no_documents_and_the_neutral_length(tmp_path: Path) -> None:
    s = SqliteStore(tmp_path / "m.db", synchronous="OFF")
    try:
        got = s.run_sync(
            lambda tx: search.view_stats(tx, "own_z", (("memory", "x"),), NOW), write=False
        )
    finally:
        s.close()
    assert got == (0, 1.0)
