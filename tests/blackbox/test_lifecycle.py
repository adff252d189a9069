"""Black-box: retention, basis and validity, supersede, archive, titles, budgets (SPEC §6).

Expiry and the purge grace run on the in-process seam (tests/inproc.py) with a
fake clock: time is moved past ``expires_at`` rather than waited for. Only the
janitor's own timer is shown on a real daemon.
"""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import anyio
import pytest

from memoryd.rpc.client import Client, RpcError
from tests.harness import entry, running
from tests.inproc import FakeClock, InProcess, composed

CONFIG = "scope_budget_bytes = 3000\n"
GRACE_DAYS = 2


# How this module's daemon starts (the ``d`` fixture, tests/blackbox/conftest.py).
DAEMON = {"config": CONFIG}


def add(c: Client, scope: str, **fields: Any) -> dict[str, Any]:
    result = c.call("memory.write", {"action": "add", "scope": scope, "entry": entry(**fields)})
    return result["entries"][0]  # type: ignore[no-any-return]


def read(c: Client, entry_id: str) -> dict[str, Any]:
    return c.call("memory.read", {"ids": [entry_id]})["entries"][0]  # type: ignore[no-any-return]


def listed(c: Client, scope: str, **params: Any) -> list[str]:
    return [i["id"] for i in c.call("memory.list", {"scope": scope, **params})["items"]]


def ts(text: str) -> datetime:
    return datetime.fromisoformat(text.replace("Z", "+00:00"))


def wait_for(check: Any, timeout: float = 20.0) -> Any:
    deadline = time.monotonic() + timeout
    while True:
        value = check()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError("condition not reached in time")
        time.sleep(0.05)


# --- retention ----------------------------------------------------------------


@pytest.mark.parametrize(
    ("type_", "days"), [("preference", 180), ("procedure", 90), ("fact", 120), ("lesson", 120)]
)
def test_default_ttl_follows_the_type(c: Client, type_: str, days: int) -> None:
    e = add(c, f"ttl-{type_}", title="T", type_=type_)
    assert e["ttl_days"] == days
    assert ts(e["expires_at"]) - ts(e["renewed_at"]) == timedelta(days=days)


def test_own_fractional_ttl_sets_expires_at(c: Client) -> None:
    e = add(c, "ttl-own", title="T", ttl_days=0.5)
    assert e["ttl_days"] == 0.5
    assert ts(e["expires_at"]) - ts(e["renewed_at"]) == timedelta(hours=12)


def test_non_positive_ttl_is_refused(c: Client) -> None:
    with pytest.raises(RpcError) as err:
        add(c, "ttl-bad", title="T", ttl_days=0)
    assert err.value.code == -32602


def test_replace_renews_the_entry(c: Client) -> None:
    e = add(c, "ttl-renew", title="T", ttl_days=3)
    time.sleep(0.01)
    new = c.call(
        "memory.write",
        {
            "action": "replace",
            "scope": "ttl-renew",
            "id": e["id"],
            "expected_revision": 1,
            "entry": entry(title="T", body="changed"),
        },
    )["entries"][0]
    assert ts(new["renewed_at"]) > ts(e["renewed_at"])
    assert ts(new["expires_at"]) - ts(new["renewed_at"]) == timedelta(days=3)


def on_fake_clock(home: Path, body: Callable[[InProcess, FakeClock], Awaitable[None]]) -> None:
    clock = FakeClock()

    async def go() -> None:
        config = f"[retention]\npurge_grace_days = {GRACE_DAYS}\n"
        with composed(home, clock=clock, config=config) as daemon:
            await body(daemon, clock)

    anyio.run(go, backend="asyncio")


async def add_in(daemon: InProcess, scope: str, **fields: Any) -> dict[str, Any]:
    out = await daemon.call(
        "control", "memory.write", {"action": "add", "scope": scope, "entry": entry(**fields)}
    )
    return out["entries"][0]  # type: ignore[no-any-return]


async def read_in(daemon: InProcess, entry_id: str) -> dict[str, Any]:
    out = await daemon.call("control", "memory.read", {"ids": [entry_id]})
    return out["entries"][0]  # type: ignore[no-any-return]


async def listed_in(daemon: InProcess, scope: str, **params: Any) -> list[str]:
    out = await daemon.call("control", "memory.list", {"scope": scope, **params})
    return [i["id"] for i in out["items"]]


async def audit_kinds_in(daemon: InProcess, entry_id: str) -> list[str]:
    events = (await daemon.call("control", "audit.export", {}))["events"]
    return [e["kind"] for e in events if entry_id in e["entry_ids"]]


def test_expired_entry_leaves_the_listing_and_reads_as_expired(tmp_path: Path) -> None:
    async def body(daemon: InProcess, clock: FakeClock) -> None:
        keep = await add_in(daemon, "exp-list", title="Keeps")
        gone = await add_in(daemon, "exp-list", title="Goes", ttl_days=1)
        clock.advance(hours=23)
        assert gone["id"] in await listed_in(daemon, "exp-list")
        clock.advance(hours=1, seconds=1)
        assert await listed_in(daemon, "exp-list") == [keep["id"]]
        e = await read_in(daemon, gone["id"])
        assert e["expired"] is True
        assert e["body"] == gone["body"]
        assert await listed_in(daemon, "exp-list", statuses=["expired"]) == [gone["id"]]

    on_fake_clock(tmp_path / "h", body)


def test_janitor_expires_then_purges_after_the_grace_period(tmp_path: Path) -> None:
    async def body(daemon: InProcess, clock: FakeClock) -> None:
        e = await add_in(daemon, "exp-gc", title="Short", ttl_days=1)
        clock.advance(days=1, seconds=1)
        assert (await daemon.call("control", "memory.gc", {}))["expired"] == 1
        soft = await read_in(daemon, e["id"])
        assert soft["status"] == "expired"
        assert soft["body"] == e["body"]
        assert "retention_expired" in await audit_kinds_in(daemon, e["id"])
        clock.advance(days=GRACE_DAYS - 1)
        assert (await daemon.call("control", "memory.gc", {}))["purged"] == 0
        assert (await read_in(daemon, e["id"]))["body"] == e["body"]
        clock.advance(days=1)
        assert (await daemon.call("control", "memory.gc", {}))["purged"] == 1
        hard = await read_in(daemon, e["id"])
        assert hard["status"] == "removed"
        assert (hard["title"], hard["summary"], hard["body"]) == ("", "", "")
        assert hard["content_hash"] == e["content_hash"]
        assert "retention_purged" in await audit_kinds_in(daemon, e["id"])

    on_fake_clock(tmp_path / "h", body)


def test_janitor_runs_on_its_own_interval() -> None:
    # The one test of the janitor's own timer, so on a real daemon: nobody
    # calls memory.gc, and the entry expires (86 ms) well before the first pass.
    config = "[retention]\njanitor_interval_s = 0.3\n"
    with running(config=config) as daemon, daemon.control() as c:
        e = add(c, "default", title="Short", ttl_days=0.000001)
        wait_for(lambda: read(c, e["id"])["status"] == "expired")


# --- basis and validity ---------------------------------------------------------------


def replace(c: Client, e: dict[str, Any], **fields: Any) -> dict[str, Any]:
    body = {"type": e["type"], "title": e["title"], "body": e["body"], **fields}
    return c.call(
        "memory.write",
        {
            "action": "replace",
            "scope": e["scope"],
            "id": e["id"],  # type: ignore[no-any-return]
            "expected_revision": e["revision"],
            "entry": body,
        },
    )


BASIS = {"kind": "observed", "note": "seen in the build log"}


def test_changed_body_without_basis_drops_attribution_with_a_warning(c: Client) -> None:
    e = add(c, "basis-1", title="T", basis=BASIS)
    out = replace(c, e, body="a different body")
    assert out["entries"][0]["basis"]["kind"] == "unknown"
    assert out["warnings"] == ["content changed without refreshed attribution"]


def test_unchanged_text_without_basis_keeps_attribution(c: Client) -> None:
    e = add(c, "basis-2", title="T", basis=BASIS)
    out = replace(c, e, pinned=True)
    assert out["outcome"] == "applied"
    basis = out["entries"][0]["basis"]
    assert (basis["kind"], basis["note"]) == (BASIS["kind"], BASIS["note"])
    assert out["warnings"] == []


def test_omitted_validity_is_kept_and_null_clears_it(c: Client) -> None:
    e = add(c, "valid-1", title="T", validity={"check": "re-run the benchmark"})
    kept = replace(c, e, body="new body")["entries"][0]
    assert kept["validity"]["check"] == "re-run the benchmark"
    cleared = replace(c, kept, validity=None)["entries"][0]
    assert cleared["validity"] is None


@pytest.mark.parametrize(
    ("validity", "expected"),
    [
        (None, "unrecorded"),
        ({"check": "ask the user"}, "recheck"),
        ({"check": "ask the user", "until": "2001-01-01T00:00:00.000000Z"}, "expired"),
    ],
)
def test_applicability_follows_validity(c: Client, validity: Any, expected: str) -> None:
    fields = {} if validity is None else {"validity": validity}
    e = add(c, f"appl-{expected}", title="T", **fields)
    assert read(c, e["id"])["applicability"] == expected
    [item] = c.call("memory.list", {"scope": f"appl-{expected}"})["items"]
    assert item["applicability"] == expected


# --- supersede, archive, titles ---------------------------------------------------------


def test_supersede_links_the_old_entry_to_its_successor(c: Client) -> None:
    e = add(c, "sup-1", title="Old")
    out = c.call(
        "memory.write",
        {
            "action": "supersede",
            "scope": "sup-1",
            "id": e["id"],
            "expected_revision": 1,
            "entry": entry(title="New"),
        },
    )
    old, new = out["entries"]
    assert (old["id"], old["status"], old["superseded_by"]) == (e["id"], "superseded", new["id"])
    assert new["status"] == "active"
    assert listed(c, "sup-1") == [new["id"]]


def test_archive_keeps_the_body_and_leaves_the_default_listing(c: Client) -> None:
    e = add(c, "arch-1", title="T")
    out = c.call(
        "memory.write",
        {
            "action": "archive",
            "scope": "arch-1",
            "id": e["id"],
            "expected_revision": 1,
            "reason": "outdated",
        },
    )
    assert out["entries"][0]["status"] == "archived"
    assert read(c, e["id"])["body"] == e["body"]
    assert listed(c, "arch-1") == []


def test_archive_without_reason_is_refused(c: Client) -> None:
    e = add(c, "arch-2", title="T")
    with pytest.raises(RpcError) as err:
        c.call(
            "memory.write",
            {"action": "archive", "scope": "arch-2", "id": e["id"], "expected_revision": 1},
        )
    assert err.value.code == -32602
    assert read(c, e["id"])["status"] == "active"


def test_archive_with_stale_covered_by_changes_nothing(c: Client) -> None:
    e = add(c, "arch-3", title="Covered")
    cover = add(c, "arch-3", title="Cover")
    replace(c, cover, body="cover moved on")
    with pytest.raises(RpcError) as err:
        c.call(
            "memory.write",
            {
                "action": "archive",
                "scope": "arch-3",
                "id": e["id"],
                "expected_revision": 1,
                "reason": "merged",
                "covered_by": {"id": cover["id"], "expected_revision": 1},
            },
        )
    assert err.value.data["code"] == "covered_target_changed"
    assert read(c, e["id"])["revision"] == 1


def test_titles_are_unique_among_active_entries_of_a_scope(c: Client) -> None:
    e = add(c, "title-1", title="Same")
    with pytest.raises(RpcError) as err:
        add(c, "title-1", title="Same")
    assert err.value.data["code"] == "duplicate_title"
    assert add(c, "title-2", title="Same")["status"] == "active"
    c.call(
        "memory.write",
        {
            "action": "archive",
            "scope": "title-1",
            "id": e["id"],
            "expected_revision": 1,
            "reason": "freeing the title",
        },
    )
    assert add(c, "title-1", title="Same")["status"] == "active"


# --- budgets ----------------------------------------------------------------------------


def test_entry_over_the_size_limit_is_refused(c: Client) -> None:
    with pytest.raises(RpcError) as err:
        add(c, "size-1", title="T", body="x" * 4_001)
    assert err.value.code == -32005
    assert err.value.data["code"] == "entry_too_large"
    assert listed(c, "size-1") == []


def test_scope_budget_refuses_without_evicting_anything(c: Client) -> None:
    # Every stored byte counts (title, summary, basis too): short summaries
    # keep the arithmetic readable.
    first = add(c, "budget-1", title="A", body="a" * 1_400, summary="a")
    second = add(c, "budget-1", title="B", body="b" * 1_400, summary="b")
    with pytest.raises(RpcError) as err:
        add(c, "budget-1", title="C", body="c" * 400, summary="c")
    assert err.value.data["code"] == "scope_budget_exceeded"
    assert "archive or remove" in err.value.data["recovery"]
    assert sorted(listed(c, "budget-1")) == sorted([first["id"], second["id"]])
    c.call(
        "memory.write",
        {
            "action": "archive",
            "scope": "budget-1",
            "id": first["id"],
            "expected_revision": 1,
            "reason": "make room",
        },
    )
    assert add(c, "budget-1", title="C", body="c" * 400, summary="c")["status"] == "active"
