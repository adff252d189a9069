"""``PgTx.tuples``: the rows a statement reads, as tuples in its column order."""

from __future__ import annotations

from typing import Any

import pytest

psycopg = pytest.importorskip("psycopg")

from psycopg.rows import dict_row  # noqa: E402

from memoryd.daemon.storage.store_pg import PgTx  # noqa: E402
from tests.harness import PG_DSN  # noqa: E402


def test_tuples_give_each_row_in_column_order_as_all_gives_it_by_name() -> None:
    try:
        conn: Any = psycopg.connect(PG_DSN, row_factory=dict_row, connect_timeout=5)
    except psycopg.OperationalError:
        pytest.skip("no PostgreSQL at the test DSN")
    with conn:
        tx = PgTx(conn, None, None)  # type: ignore[arg-type]
        sql = "SELECT x AS b, x * 2 AS a FROM generate_series(1, ?) AS x ORDER BY x"
        assert tx.tuples(sql, (3,)) == [(1, 2), (2, 4), (3, 6)]
        assert tx.all(sql, (3,)) == [{"b": 1, "a": 2}, {"b": 2, "a": 4}, {"b": 3, "a": 6}]
        assert tx.tuples(sql, (0,)) == []
