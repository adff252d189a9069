"""memory.list search scores BM25 over the caller's filter alone, over the real socket.

The document count and average length behind every score are those of the
entries the search's filter admits: the caller's view (one owner, the task's
namespaces), narrowed by ``target``, ``scope``, ``statuses`` and ``types``.
An entry outside it — another owner's, another namespace's, an archived one,
another type's — moves no score, order or cursor; one inside it does (so the
comparisons below can fail).
"""

from __future__ import annotations

from typing import Any

from memoryd.rpc.client import Client
from tests.harness import (
    Daemon,
    enable_consent,
    entry,
    fresh_identity,
    running,
    team_member_and_outsider,
)

SCOPE = "kites"


def _add(c: Client, title: str, body: str, type_: str = "fact", **extra: Any) -> dict[str, Any]:
    out = c.call(
        "memory.write",
        {"target": "memory", "action": "add", "entry": entry(title, body, type_), **extra},
    )
    return out["entries"][0]  # type: ignore[no-any-return]


def _filler(c: Client, n: int, tag: str, type_: str = "fact", **extra: Any) -> list[str]:
    """``n`` entries that hold none of the query's words."""
    return [
        _add(c, f"Pebble {tag} {i}", f"Grey pebble {tag} number {i} on the shore.", type_, **extra)[
            "id"
        ]
        for i in range(n)
    ]


def _walk(call: Any, **params: Any) -> list[list[tuple[str, float]]]:
    """Every page of a search: (id, score) per item, the pages as the cursors cut them."""
    pages = []
    page = call(page_size=2, **params)
    while True:
        pages.append([(i["id"], i["score"]) for i in page["items"]])
        if page["next_cursor"] is None:
            return pages
        page = call(cursor=page["next_cursor"])


def _searches(d: Daemon) -> dict[str, list[list[tuple[str, float]]]]:
    """The same query through each kind of view, all but ``control_all`` narrowed to
    ``SCOPE``."""
    with d.control() as c, d.agent() as a:
        task = a.call("task.begin", {"scopes": [SCOPE]})["task_id"]

        def agent(**p: Any) -> Any:
            return a.call("memory.list", {"task_id": task, **p})

        def control(**p: Any) -> Any:
            return c.call("memory.list", p)

        query = "kite string"
        return {
            "agent": _walk(agent, query=query),
            "agent_facts": _walk(agent, query=query, types=["fact"]),
            "control_all": _walk(control, query=query),
            "control_scope": _walk(control, query=query, scope=SCOPE),
            "control_target_scope": _walk(control, query=query, target="memory", scope=SCOPE),
            "control_facts": _walk(control, query=query, scope=SCOPE, types=["fact"]),
            "with_archived": _walk(
                control, query=query, scope=SCOPE, statuses=["active", "archived"]
            ),
        }


def _setup(c: Client) -> None:
    enable_consent(c)
    for i in range(5):
        _add(c, f"Kite {i}", "A red kite on a string. " * (i + 1), scope=SCOPE)
    _add(c, "String", "Kite string, spare.", scope=SCOPE)
    # Enough entries without the query's words that its terms are rare (no
    # idf at its floor), so the statistics show in every score.
    _filler(c, 30, "seen", scope=SCOPE)


def test_entries_outside_the_filter_move_no_score_order_or_cursor() -> None:
    with running() as d:
        with d.control() as c:
            _setup(c)
        before = _searches(d)
        assert all(len(pages) >= 3 for pages in before.values())
        with d.control() as c:
            # Another owner's entries in a namespace of the same name, matching or not.
            other = fresh_identity("other-")
            enable_consent(c, identity=other)
            for i in range(4):
                _add(c, f"Kite theirs {i}", "Their kite string.", scope=SCOPE, identity=other)
            _filler(c, 20, "theirs", scope=SCOPE, identity=other)
        assert _searches(d) == before
        with d.control() as c:
            # The owner's entries in another namespace: in the view of a control
            # channel search without a scope filter alone.
            _filler(c, 20, "elsewhere", scope="elsewhere")
        after = _searches(d)
        assert _but(after, "control_all") == _but(before, "control_all")
        assert _ids(after["control_all"]) == _ids(before["control_all"])
        assert _scores(after["control_all"]) != _scores(before["control_all"])


def test_archived_and_other_types_count_only_where_the_filter_admits_them() -> None:
    with running() as d:
        with d.control() as c:
            _setup(c)
        before = _searches(d)
        with d.control() as c:
            for made in _filler(c, 8, "archived", scope=SCOPE):
                c.call(
                    "memory.write",
                    {
                        "action": "archive",
                        "id": made,
                        "scope": SCOPE,
                        "expected_revision": 1,
                        "reason": "old",
                    },
                )
        archived = _searches(d)
        # Archived entries lie outside the default statuses, inside "with_archived".
        assert _but(archived, "with_archived") == _but(before, "with_archived")
        assert _scores(archived["with_archived"]) != _scores(before["with_archived"])
        assert _ids(archived["with_archived"]) == _ids(before["with_archived"])
        with d.control() as c:
            _filler(c, 8, "lessons", type_="lesson", scope=SCOPE)
        lessons = _searches(d)
        # Lessons lie outside a facts-only filter, inside every other one.
        for key in ("agent_facts", "control_facts"):
            assert lessons[key] == archived[key]
        for key in (
            "agent",
            "control_all",
            "control_scope",
            "control_target_scope",
            "with_archived",
        ):
            assert _scores(lessons[key]) != _scores(archived[key])
            assert _ids(lessons[key]) == _ids(archived[key])


def test_an_entry_in_the_view_moves_the_scores() -> None:
    """The other tests' equalities are not vacuous: the statistics follow the view."""
    with running() as d:
        with d.control() as c:
            _setup(c)
        before = _searches(d)
        with d.control() as c:
            _filler(c, 8, "more", scope=SCOPE)
        after = _searches(d)
        for key in before:
            assert _ids(after[key]) == _ids(before[key])
            assert _scores(after[key]) != _scores(before[key])


def test_a_team_scopes_entries_count_in_its_members_view() -> None:
    """A team's rows are the team's, not the member's: they are in the view,
    and the statistics hold them."""
    team = "team:kites"
    with running() as d:
        with d.control() as c:
            member, _outsider, tokens = team_member_and_outsider(c, "kites", "kites-")
            for i in range(3):
                _add(c, f"Kite team {i}", "A team kite on a string.", scope=team, identity=member)
            _filler(c, 30, "team", scope=team, identity=member)

        def search() -> list[list[tuple[str, float]]]:
            with d.agent() as a:
                task = a.call("task.begin", {"token": tokens[member["subject"]], "scopes": [team]})[
                    "task_id"
                ]
                return _walk(
                    lambda **p: a.call("memory.list", {"task_id": task, **p}), query="kite string"
                )

        before = search()
        assert len(before) >= 2
        with d.control() as c:
            _filler(c, 8, "team more", scope=team, identity=member)
        after = search()
        assert _ids(after) == _ids(before)
        assert _scores(after) != _scores(before)


def _but(
    searches: dict[str, list[list[tuple[str, float]]]], key: str
) -> dict[str, list[list[tuple[str, float]]]]:
    """Every search's pages but ``key``'s."""
    return {k: v for k, v in searches.items() if k != key}


def _ids(pages: list[list[tuple[str, float]]]) -> set[str]:
    return {i for page in pages for i, _ in page}


def _scores(pages: list[list[tuple[str, float]]]) -> list[float]:
    return [s for page in pages for _, s in page]
