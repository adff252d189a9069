"""Reads from the event loop on the store's reader threads: answered with
fn's result or its exception, in the caller's context, two at once, and a
read under way finishes before the store closes."""

from __future__ import annotations

import contextvars
import threading
from pathlib import Path
from typing import Any

import anyio
import pytest

from memoryd.daemon.storage.store import SqliteStore, Tx
from memoryd.kernel.errors import NotFound, Unavailable

WHO: contextvars.ContextVar[str] = contextvars.ContextVar("who", default="nobody")


def test_a_read_answers_with_its_result_or_its_error(store: SqliteStore) -> None:
    def fails(_tx: Tx) -> None:
        raise NotFound("not_found")

    async def main() -> None:
        row = await store.run(lambda tx: tx.one("SELECT 7 AS n"), write=False)
        assert row == {"n": 7}
        with pytest.raises(NotFound):
            await store.run(fails, write=False)

    anyio.run(main)


def test_a_read_runs_in_the_callers_context(store: SqliteStore) -> None:
    async def main() -> str:
        WHO.set("conn_1")
        return await store.run(lambda _tx: WHO.get(), write=False)

    assert anyio.run(main) == "conn_1"


def test_two_reads_run_at_once(store: SqliteStore) -> None:
    first_in = threading.Event()

    def first(_tx: Tx) -> bool:
        first_in.set()
        return second_done.wait(30)

    second_done = threading.Event()

    def second(_tx: Tx) -> bool:
        ok = first_in.wait(30)
        second_done.set()
        return ok

    async def main() -> list[bool]:
        out: list[bool] = []

        async def one(fn: Any) -> None:
            out.append(await store.run(fn, write=False))

        async with anyio.create_task_group() as tg:
            tg.start_soon(one, first)
            tg.start_soon(one, second)
        return out

    assert anyio.run(main) == [True, True]


def test_close_waits_for_a_read_under_way_then_refuses_reads(tmp_path: Path) -> None:
    store = SqliteStore(tmp_path / "memory.db")
    inside, release = threading.Event(), threading.Event()

    def slow(tx: Tx) -> Any:
        inside.set()
        release.wait(30)
        return tx.one("SELECT 1 AS n")

    async def main() -> Any:
        async with anyio.create_task_group() as tg:
            result: list[Any] = []

            async def read() -> None:
                result.append(await store.run(slow, write=False))

            tg.start_soon(read)
            await anyio.to_thread.run_sync(inside.wait, 30)
            closer = threading.Thread(target=store.close)
            closer.start()
            release.set()
        await anyio.to_thread.run_sync(closer.join, 30)
        with pytest.raises(Unavailable):
            await store.run(lambda tx: tx.one("SELECT 1 AS n"), write=False)
        return result

    assert anyio.run(main) == [{"n": 1}]


def test_every_connection_plans_without_bound_values(store: SqliteStore) -> None:
    # SQLite's query planner stability guarantee: without it a statement
    # whose plan could use a bound value (a join of the lexical index with
    # entries filtered by a bound owner, any LIMIT ?) is prepared again on
    # every run. Results never depend on it; the cost of every recall does.
    import apsw

    def qpsg(tx: Tx) -> int:
        return int(tx.conn.config(apsw.SQLITE_DBCONFIG_ENABLE_QPSG, -1))  # type: ignore[attr-defined]

    assert store.run_sync(qpsg) == 1
    for _ in range(store.readers + 1):
        assert store.run_sync(qpsg, write=False) == 1
