"""Team scopes without a daemon: the scope kind, team names, and a view's rows.

``View.rows`` (the SQL a read filters with) and ``View.holds`` (the check a
single entry passes) must agree on every row, teams or not: the property
below runs both over generated rows in an in-memory SQLite table.
"""

from __future__ import annotations

import sqlite3
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from memoryd.daemon.pipeline.entries import View
from memoryd.kernel.teams import is_team_scope, team_name, team_scope


@pytest.mark.parametrize(
    ("target", "scope", "team"),
    [
        ("memory", "team:ops", True),
        ("memory", "team:", True),  # malformed, still the team kind: fail closed
        ("memory", "team:Ops Crew", True),
        ("memory", "teams:ops", False),
        ("memory", "project:team:ops", False),
        ("memory", "default", False),
        ("user", "team:ops", False),  # the user target is always the owner's own
    ],
)
def test_what_is_a_team_scope(target: str, scope: str, team: bool) -> None:
    assert is_team_scope(target, scope) is team


@pytest.mark.parametrize(
    ("scope", "name"),
    [
        ("team:ops", "ops"),
        ("team:sre-2.eu_west", "sre-2.eu_west"),
        ("team:9", "9"),
        ("team:", None),
        ("team:Ops", None),
        ("team:-ops", None),
        ("team:a b", None),
        ("team:" + "a" * 64, None),
        ("team:ops/x", None),
        ("project:ops", None),
    ],
)
def test_team_name_of_a_scope(scope: str, name: str | None) -> None:
    assert team_name(scope) == name


def test_team_scope_refuses_a_bad_name() -> None:
    assert team_scope("ops") == "team:ops"
    with pytest.raises(ValueError, match="not a team name"):
        team_scope("Ops")


OWNERS = ["own_a", "own_b", "team:ops", "team:qa"]
TARGETS = ["memory", "user"]
SCOPES = ["default", "project:x", "team:ops", "team:qa", "own_a"]

rows_st = st.lists(
    st.fixed_dictionaries(
        {
            "owner": st.sampled_from(OWNERS),
            "target": st.sampled_from(TARGETS),
            "scope": st.sampled_from(SCOPES),
        }
    ),
    max_size=30,
)
views_st = st.builds(
    View,
    owner=st.sampled_from(["own_a", "own_b"]),
    namespaces=st.none()
    | st.frozensets(st.tuples(st.sampled_from(TARGETS), st.sampled_from(SCOPES)), max_size=5),
    teams=st.frozensets(st.sampled_from(["team:ops", "team:qa"])),
)


@settings(max_examples=300, deadline=None)
@given(rows=rows_st, view=views_st)
def test_rows_sql_admits_exactly_what_holds_admits(rows: list[dict[str, Any]], view: View) -> None:
    db = sqlite3.connect(":memory:")
    db.execute("CREATE TABLE entries(id INTEGER PRIMARY KEY, owner, target, scope)")
    db.executemany(
        "INSERT INTO entries(owner, target, scope) VALUES (:owner, :target, :scope)", rows
    )
    where, args = view.rows("e.")
    got = {r[0] for r in db.execute(f"SELECT id FROM entries e WHERE {where}", args)}  # noqa: S608 (placeholders only)
    want = {i + 1 for i, row in enumerate(rows) if view.holds(row)}
    assert got == want


@given(view=views_st)
def test_a_team_row_is_seen_only_by_a_view_holding_that_team(view: View) -> None:
    row = {"owner": "team:ops", "target": "memory", "scope": "team:ops"}
    assert view.holds(row) == ("team:ops" in view.teams and view.allows("memory", "team:ops"))


def test_another_owners_row_is_never_held_whatever_the_teams() -> None:
    view = View("own_a", None, frozenset({"team:ops"}))
    assert not view.holds({"owner": "own_b", "target": "memory", "scope": "team:ops"})
    assert not view.holds({"owner": "own_b", "target": "memory", "scope": "default"})
    assert view.holder("memory", "team:ops") == "team:ops"
    assert view.holder("memory", "default") == "own_a"


def test_without_teams_the_filter_is_the_owner_filter_it_always_was() -> None:
    assert View("own_a", None).rows() == ("owner = ?", ["own_a"])
    where, args = View("own_a", frozenset({("memory", "default")})).rows()
    assert where == "(owner = ? AND ((target = ? AND scope = ?)))"
    assert args == ["own_a", "memory", "default"]
