"""``entries.load_many`` finds exactly the rows ``entries.load`` finds, id by id.

A five-id ``memory.read`` looks its ids up in one statement; whatever the
view (an owner's every scope, a task's namespaces, team scopes it holds or
not, another owner's rows, ids that do not exist, repeated ids), the rows it
gets are the ones one ``load`` per id would give, and no other.
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from msgspec import UNSET

from memoryd.daemon.pipeline import entries
from memoryd.daemon.pipeline.entries import View
from memoryd.daemon.storage.store import SqliteStore, Tx

# (holder, target, scope): rows of two owners, and of a team scope held by the team.
HOMES = [
    ("own_a", "memory", "s0"),
    ("own_a", "memory", "s1"),
    ("own_a", "user", "u"),
    ("own_b", "memory", "s0"),
    ("team:t1", "memory", "team:t1"),
    ("own_a", "memory", "team:t2"),
]
SPACES = [
    ("memory", "s0"),
    ("memory", "s1"),
    ("user", "u"),
    ("memory", "team:t1"),
    ("memory", "team:t2"),
]


@pytest.fixture(scope="module")
def stored(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[SqliteStore, list[str]]]:
    store = SqliteStore(Path(tmp_path_factory.mktemp("load_many")) / "memory.db")

    def fill(tx: Tx) -> list[str]:
        ids = []
        for i, (holder, target, scope) in enumerate(HOMES * 2):
            row = entries.insert(
                tx,
                holder,
                target,
                scope,
                {
                    "type": "fact",
                    "title": f"note {i}",
                    "body": f"body {i}",
                    "summary": f"body {i}",
                    "basis": UNSET,
                    "validity": UNSET,
                    "ttl_days": 30,
                    "pinned": False,
                },
                "b3k:" + f"{i:064x}",
                entries.Provenance("agent", True, None),
                datetime(2026, 1, 1, tzinfo=UTC) + timedelta(seconds=i),
            )
            ids.append(row["id"])
        return ids

    try:
        yield store, store.run_sync(fill)
    finally:
        store.close()


views = st.builds(
    View,
    owner=st.sampled_from(["own_a", "own_b", "own_c"]),
    namespaces=st.one_of(st.none(), st.frozensets(st.sampled_from(SPACES))),
    teams=st.frozensets(st.sampled_from(["team:t1", "team:t2"])),
)


@settings(max_examples=200, deadline=None)
@given(view=views, picks=st.lists(st.integers(0, 2 * len(HOMES)), min_size=1, max_size=10))
def test_load_many_finds_what_load_finds(
    stored: tuple[SqliteStore, list[str]], view: View, picks: list[int]
) -> None:
    store, ids = stored
    # An index past the stored ids is an id of the right shape that does not exist.
    wanted = [ids[i] if i < len(ids) else "ent_01ZZZZZZZZZZZZZZZZZZZZZZZZ" for i in picks]

    def both(tx: Tx) -> tuple[dict[str, Any], dict[str, Any]]:
        one_by_one = {
            i: row for i in dict.fromkeys(wanted) if (row := entries.load(tx, view, i)) is not None
        }
        return entries.load_many(tx, view, wanted), one_by_one

    many, one_by_one = store.run_sync(both, write=False)
    assert many == one_by_one


def test_load_many_of_no_ids_reads_nothing(stored: tuple[SqliteStore, list[str]]) -> None:
    store, _ids = stored
    assert (
        store.run_sync(lambda tx: entries.load_many(tx, View("own_a", None), []), write=False) == {}
    )
