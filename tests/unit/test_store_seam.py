"""Every backend's transaction gives each primitive the ``Tx`` seam leaves to it.

``Tx`` (daemon/storage/txn.py) declares the primitives with empty bodies and
writes the operations once over them; a backend that left a primitive out
would inherit the empty body and answer None where a row was due. Read from
the source of ``Tx`` (which members are left to the backend), then from each
backend's class.
"""

from __future__ import annotations

import ast
import inspect
import textwrap
from typing import Any

import pytest

from memoryd.daemon.storage.store import SqliteStore, SqliteTx
from memoryd.daemon.storage.txn import Tx


def _left_to_backends() -> set[str]:
    """The members of ``Tx`` whose body is only ``...``, and the attributes
    it declares without a value (``dialect``, ``fulltext``)."""
    tree = ast.parse(textwrap.dedent(inspect.getsource(Tx)))
    cls = tree.body[0]
    assert isinstance(cls, ast.ClassDef)
    declared = {
        a.target.id
        for a in cls.body
        if isinstance(a, ast.AnnAssign) and a.value is None and isinstance(a.target, ast.Name)
    }
    return declared | {
        f.name
        for f in cls.body
        if isinstance(f, ast.FunctionDef)
        and len(f.body) == 1
        and isinstance(f.body[0], ast.Expr)
        and isinstance(f.body[0].value, ast.Constant)
        and f.body[0].value.value is ...
    }


def missing(backend: type) -> list[str]:
    """The members left to backends that ``backend`` does not define itself."""
    own = backend.__mro__[: backend.__mro__.index(Tx)]
    return sorted(name for name in _left_to_backends() if not any(name in k.__dict__ for k in own))


def test_the_primitives_are_the_ones_the_seam_names() -> None:
    assert _left_to_backends() == {
        "dialect",
        "fulltext",
        "head",
        "one",
        "all",
        "tuples",
        "exec",
        "rows",
        "audit",
    }


def test_the_check_sees_a_primitive_left_out() -> None:
    class Half(Tx):
        dialect = "half"

        def one(self, sql: str, args: Any = ()) -> dict[str, Any] | None:
            return None

    assert missing(Half) == ["all", "audit", "exec", "fulltext", "head", "rows", "tuples"]


def test_sqlite_gives_every_primitive() -> None:
    assert missing(SqliteTx) == []


def test_postgresql_gives_every_primitive() -> None:
    pytest.importorskip("psycopg")
    from memoryd.daemon.storage.store_pg import PgTx

    assert missing(PgTx) == []


def test_an_operation_runs_on_the_primitives(store: SqliteStore) -> None:
    store.run_sync(lambda tx: tx.add_receipt("rcp_1", "own_a", "ent_1", "2026-01-01T00:00:00Z"))
    row = store.run_sync(lambda tx: tx.receipt("rcp_1"), write=False)
    assert row is not None and (row["owner"], row["status"]) == ("own_a", "pending")
