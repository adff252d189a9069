"""Rows from ``SqliteTx.one`` / ``all`` / ``rows``: the names kept per
statement text give the same dicts as the connection's row tracer, which
asks the cursor for its description on every row."""

from __future__ import annotations

from typing import Any

import pytest

from memoryd.daemon.storage.seam import Job as _Job
from memoryd.daemon.storage.store import SqliteStore, SqliteTx

STATEMENTS = [
    ("SELECT * FROM meta ORDER BY key", ()),
    ("SELECT key, value FROM meta WHERE key = ?", ("schema_version",)),
    ("SELECT value AS v, key AS k, 1 AS one, NULL AS absent FROM meta ORDER BY key", ()),
    ("SELECT count(*) AS n FROM meta", ()),
    ("SELECT * FROM meta WHERE key = ?", ("no such key",)),
    # Two columns of one name: the last one wins, as in the tracer's dict.
    ("SELECT key AS x, value AS x FROM meta ORDER BY key", ()),
]


def _traced(store: SqliteStore, sql: str, args: tuple[Any, ...]) -> list[dict[str, Any]]:
    return list(store.conn.execute(sql, args))  # the connection's row tracer


@pytest.mark.parametrize(("sql", "args"), STATEMENTS)
def test_rows_match_the_row_tracer(store: SqliteStore, sql: str, args: tuple[Any, ...]) -> None:
    expected = _traced(store, sql, args)
    tx = SqliteTx(store.conn, store)
    for _ in range(2):  # the first run learns the names, the second uses them
        assert tx.all(sql, args) == expected
        assert list(tx.rows(sql, args)) == expected
        assert tx.one(sql, args) == (expected[0] if expected else None)


def test_a_row_of_another_width_than_the_names_kept_fails(store: SqliteStore) -> None:
    # Never a value under the wrong name: the schema is settled at open, and
    # if it were not, the call fails instead.
    sql = "SELECT * FROM meta ORDER BY key"
    tx = SqliteTx(store.conn, store)
    store.columns[sql] = ("stale",)
    with pytest.raises(ValueError):
        tx.all(sql)


def test_the_names_kept_are_bounded(store: SqliteStore) -> None:
    tx = SqliteTx(store.conn, store)
    for i in range(2100):
        assert tx.one(f"SELECT {i} AS n") == {"n": i}
    assert len(store.columns) <= 2048


def test_a_walk_goes_on_while_other_statements_run_and_a_row_left_unread_stops_nothing(
    store: SqliteStore,
) -> None:
    # The transaction's statements share one cursor (``SqliteTx``), except a
    # ``rows`` walk, which yields while its caller runs others; ``one`` stops
    # at the first row of many. Neither may cut the walk short or keep a
    # job's savepoint (two jobs in one group) or the commit from ending.
    keys = [f"w:{i}" for i in range(5)]

    def fill(tx: SqliteTx) -> None:
        for k in keys:
            tx.exec("INSERT INTO meta(key, value) VALUES (?, '0')", (k,))

    def walk(tx: SqliteTx) -> list[str]:
        seen = []
        for row in tx.rows("SELECT key FROM meta WHERE key >= 'w:' AND key < 'w;' ORDER BY key"):
            seen.append(row["key"])
            tx.one("SELECT key FROM meta WHERE key >= 'w:' ORDER BY key")
            tx.exec("UPDATE meta SET value = value + 1 WHERE key = ?", (row["key"],))
            assert tx.tuples("SELECT key FROM meta WHERE key = ?", (row["key"],)) == [(row["key"],)]
        tx.one("SELECT key FROM meta WHERE key >= 'w:' ORDER BY key")  # left at its first row
        return seen

    store.run_sync(fill)
    assert store.run_sync(walk) == keys
    jobs = [_Job(walk) for _ in range(2)]
    store._commit_group(jobs)  # one group: each job in its own savepoint
    assert [job.wait() for job in jobs] == [keys, keys]
    assert store.run_sync(
        lambda tx: tx.all("SELECT value FROM meta WHERE key >= 'w:' AND key < 'w;'"), write=False
    ) == [{"value": "3"}] * len(keys)
