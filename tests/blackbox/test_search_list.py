"""memory.list over the real socket: search and list modes, filters, cursors, coverage."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from memoryd.rpc.client import Client, RpcError
from tests.harness import Daemon, enable_consent, entry, running


@pytest.fixture(scope="module")
def d() -> Iterator[Daemon]:
    with running() as daemon:
        with daemon.control() as c:
            enable_consent(c)
            for i in range(12):
                _add(c, f"Osprey {i:02d}", f"Osprey nest number {i} near the lake.")
            _add(
                c,
                "Lake house",
                "A long note. " * 40
                + "The osprey watch starts at dawn. "
                + "More filler text. " * 40,
                type_="lesson",
            )
        yield daemon


def _add(c: Client, title: str, body: str, type_: str = "fact", **extra: Any) -> Any:
    return c.call(
        "memory.write",
        {"target": "memory", "action": "add", "entry": entry(title, body, type_), **extra},
    )["entries"][0]


def _list(c: Client, **params: Any) -> dict[str, Any]:
    return c.call("memory.list", params)  # type: ignore[no-any-return]


def test_query_defaults_to_search_mode_with_page_of_eight(d: Daemon) -> None:
    with d.control() as c:
        page = _list(c, query="osprey")
        assert page["mode"] == "search"
        assert len(page["items"]) == 8
        assert page["next_cursor"] is not None


def test_search_items_carry_snippet_and_score(d: Daemon) -> None:
    with d.control() as c:
        items = _list(c, query="osprey watch", page_size=20)["items"]
        lake = next(i for i in items if i["title"] == "Lake house")
        assert "osprey watch" in lake["snippet"]
        assert len(lake["snippet"]) <= 200
        assert all(isinstance(i["score"], float) for i in items)
        assert items == sorted(items, key=lambda i: -i["score"])


def test_search_cursor_walks_every_match_once(d: Daemon) -> None:
    with d.control() as c:
        seen: list[str] = []
        page = _list(c, query="osprey", page_size=5)
        while True:
            seen.extend(i["id"] for i in page["items"])
            if page["next_cursor"] is None:
                assert page["coverage"]["exhausted"] is True
                break
            page = _list(c, cursor=page["next_cursor"])
        assert len(seen) == len(set(seen)) == 13


def test_list_mode_orders_by_title_with_page_of_twenty(d: Daemon) -> None:
    with d.control() as c:
        page = _list(c)
        titles = [i["title"] for i in page["items"]]
        assert page["mode"] == "list"
        assert titles == sorted(titles)
        assert len(page["items"]) <= 20


def test_list_cursor_continues_after_the_last_title(d: Daemon) -> None:
    with d.control() as c:
        first = _list(c, page_size=4)
        second = _list(c, cursor=first["next_cursor"])
        assert second["items"][0]["title"] > first["items"][-1]["title"]


def test_types_filter_applies_to_search(d: Daemon) -> None:
    with d.control() as c:
        items = _list(c, query="osprey", types=["lesson"])["items"]
        assert [i["title"] for i in items] == ["Lake house"]


def test_statuses_filter_finds_archived_entries(d: Daemon) -> None:
    with d.control() as c:
        made = _add(c, "Petrel", "Petrel archived note.")
        c.call(
            "memory.write",
            {"action": "archive", "id": made["id"], "expected_revision": 1, "reason": "old"},
        )
        assert _list(c, query="petrel")["items"] == []
        archived = _list(c, query="petrel", statuses=["archived"])
        assert [i["id"] for i in archived["items"]] == [made["id"]]
        assert archived["coverage"]["statuses"] == ["archived"]


def test_common_words_do_not_hide_the_match(d: Daemon) -> None:
    with d.control() as c:
        items = _list(c, query="the note about the lake near the nest")["items"]
        assert items


def test_coverage_reports_scopes_statuses_and_completeness(d: Daemon) -> None:
    with d.control() as c:
        cov = _list(c, query="osprey")["coverage"]
        assert set(cov) >= {"scopes", "statuses", "exhausted", "complete", "warnings"}
        assert cov["complete"] is True


def test_cursor_with_filters_is_cursor_mixed_with_filters(d: Daemon) -> None:
    with d.control() as c:
        cursor = _list(c, query="osprey")["next_cursor"]
        with pytest.raises(RpcError) as err:
            _list(c, cursor=cursor, query="osprey")
        assert err.value.data_code == "cursor_mixed_with_filters"


def test_cursor_does_not_carry_the_query_in_readable_form(d: Daemon) -> None:
    # The filters inside a cursor hold the caller's query: a cursor is sealed,
    # not just signed, so decoding it shows nothing of the query.
    import base64

    with d.control() as c:
        cursor = _list(c, query="osprey", page_size=2)["next_cursor"]
    # A cursor is one letter (so it never begins with "-" on a command line)
    # followed by base64url.
    body = cursor[1:]
    raw = base64.urlsafe_b64decode(body + "=" * (-len(body) % 4))
    assert b"osprey" not in raw.lower()
    assert b"osprey" not in cursor.lower().encode()


def test_forged_cursor_is_cursor_invalid(d: Daemon) -> None:
    with d.control() as c:
        cursor = _list(c, query="osprey")["next_cursor"]
        forged = cursor[:-4] + ("AAAA" if not cursor.endswith("AAAA") else "BBBB")
        with pytest.raises(RpcError) as err:
            _list(c, cursor=forged)
        assert err.value.data_code == "cursor_invalid"


def test_another_owners_cursor_is_cursor_invalid(d: Daemon) -> None:
    with d.control() as c:
        cursor = _list(c, query="osprey")["next_cursor"]
        with pytest.raises(RpcError) as err:
            c.call(
                "memory.list",
                {"cursor": cursor, "identity": {"kind": "token", "subject": "mallory"}},
            )
        assert err.value.data_code == "cursor_invalid"


def test_another_tasks_cursor_is_cursor_invalid(d: Daemon) -> None:
    with d.agent() as a:
        t1 = a.call("task.begin", {})["task_id"]
        t2 = a.call("task.begin", {"scopes": ["elsewhere"]})["task_id"]
        cursor = a.call("memory.list", {"task_id": t1, "query": "osprey"})["next_cursor"]
        with pytest.raises(RpcError) as err:
            a.call("memory.list", {"task_id": t2, "cursor": cursor})
        assert err.value.data_code == "cursor_invalid"


def test_search_mode_without_query_is_invalid_params(d: Daemon) -> None:
    with d.control() as c, pytest.raises(RpcError) as err:
        _list(c, mode="search")
    assert err.value.code == -32602


def test_page_size_over_twenty_is_invalid_params(d: Daemon) -> None:
    with d.control() as c, pytest.raises(RpcError) as err:
        _list(c, query="osprey", page_size=21)
    assert err.value.code == -32602


def test_pre_restart_cursor_is_cursor_invalid() -> None:
    with running() as daemon:
        with daemon.control() as c:
            for i in range(3):
                _add(c, f"Tern {i}", "Tern colony.")
            cursor = _list(c, query="tern", page_size=1)["next_cursor"]
        daemon.restart()
        with daemon.control() as c, pytest.raises(RpcError) as err:
            _list(c, cursor=cursor)
        assert err.value.data_code == "cursor_invalid"


def test_read_reports_pending_target_and_applicability(d: Daemon) -> None:
    with d.control() as c, d.agent() as a:
        made = c.call(
            "memory.write",
            {
                "action": "add",
                "entry": entry("Shag", "Shag cliff.", "fact", validity={"check": "ask the warden"}),
            },
        )["entries"][0]
        task = a.call("task.begin", {})["task_id"]
        a.call(
            "memory.write",
            {
                "task_id": task,
                "action": "replace",
                "id": made["id"],
                "expected_revision": 1,
                "entry": entry("Shag", "Shag cliff, north side.", "fact"),
            },
        )
        out = c.call("memory.read", {"ids": [made["id"]], "include_pending": True})
        got = out["entries"][0]
        assert got["target"] == "memory"
        assert got["applicability"] == "recheck"
        assert [p["entry_ids"] for p in out["pending"]] == [[made["id"]]]
