"""A pinned entry does not expire (docs/lifecycle.md).

Expiry runs on the in-process seam (tests/inproc.py) with a fake clock: time
is moved far past any TTL rather than waited for. What the operator reads
(``memctl ls`` / ``memctl show``) runs the real command line on a real daemon.
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import anyio

from memoryd.kernel.retention import NEVER_EXPIRES
from tests.harness import Daemon, entry
from tests.inproc import FakeClock, InProcess, composed


def on_fake_clock(home: Path, body: Callable[[InProcess, FakeClock], Awaitable[None]]) -> None:
    clock = FakeClock()

    async def go() -> None:
        with composed(home, clock=clock, config="[retention]\npurge_grace_days = 2\n") as daemon:
            await body(daemon, clock)

    anyio.run(go, backend="asyncio")


async def write(daemon: InProcess, **params: Any) -> dict[str, Any]:
    out = await daemon.call("control", "memory.write", params)
    assert out["outcome"] == "applied"
    return {e["id"]: e for e in out["entries"]}


async def read(daemon: InProcess, entry_id: str) -> dict[str, Any]:
    out = await daemon.call("control", "memory.read", {"ids": [entry_id]})
    return dict(out["entries"][0])


async def listed(daemon: InProcess, scope: str) -> list[str]:
    out = await daemon.call("control", "memory.list", {"scope": scope})
    return [i["id"] for i in out["items"]]


def test_a_pinned_entry_never_expires_nor_is_purged(tmp_path: Path) -> None:
    async def body(daemon: InProcess, clock: FakeClock) -> None:
        (pinned,) = (
            await write(
                daemon,
                action="add",
                scope="pin",
                entry=entry("Pinned", "Kept for good.", ttl_days=1, pinned=True),
            )
        ).values()
        (plain,) = (
            await write(
                daemon,
                action="add",
                scope="pin",
                entry=entry("Plain", "Goes in a day.", ttl_days=1),
            )
        ).values()
        assert pinned["expires_at"] == NEVER_EXPIRES
        clock.advance(days=1000)
        assert await listed(daemon, "pin") == [pinned["id"]]
        swept = await daemon.call("control", "memory.gc", {})
        clock.advance(days=3)
        swept2 = await daemon.call("control", "memory.gc", {})
        assert (swept["expired"], swept2["purged"]) == (1, 1)  # the plain one only
        kept = await read(daemon, pinned["id"])
        assert (kept["status"], kept["expired"], kept["body"]) == (
            "active",
            False,
            "Kept for good.",
        )
        assert (await read(daemon, plain["id"]))["status"] == "removed"
        found = await daemon.call("control", "memory.list", {"scope": "pin", "query": "kept"})
        assert [i["id"] for i in found["items"]] == [pinned["id"]]

    on_fake_clock(tmp_path / "h", body)


def test_pinning_and_unpinning_by_replace_set_the_expiry(tmp_path: Path) -> None:
    async def body(daemon: InProcess, clock: FakeClock) -> None:
        (e,) = (
            await write(
                daemon,
                action="add",
                scope="pin2",
                entry=entry("Later", "Pinned later.", ttl_days=2),
            )
        ).values()
        pinned = (
            await write(
                daemon,
                action="replace",
                scope="pin2",
                id=e["id"],
                expected_revision=1,
                entry=entry("Later", "Pinned later.", ttl_days=2, pinned=True),
            )
        )[e["id"]]
        assert (pinned["pinned"], pinned["expires_at"]) == (True, NEVER_EXPIRES)
        clock.advance(days=10)
        assert await listed(daemon, "pin2") == [e["id"]]
        unpinned = (
            await write(
                daemon,
                action="replace",
                scope="pin2",
                id=e["id"],
                expected_revision=2,
                entry=entry("Later", "Pinned later.", ttl_days=2),
            )
        )[e["id"]]
        assert unpinned["pinned"] is False and unpinned["expires_at"] < NEVER_EXPIRES
        clock.advance(days=2, seconds=1)
        assert await listed(daemon, "pin2") == []

    on_fake_clock(tmp_path / "h", body)


def test_memctl_shows_a_pinned_entry_never_expires(d: Daemon) -> None:
    done = d.memctl(
        "write",
        "--type",
        "fact",
        "--title",
        "Pinned note",
        "--pinned",
        "--body-file",
        "-",
        "--json",
        input=b"Pinned for good.",
        process=True,
    )
    assert done.returncode == 0, done.stderr
    entry_id = json.loads(done.stdout)["entries"][0]["id"]
    plain = d.memctl(
        "write",
        "--type",
        "fact",
        "--title",
        "Plain note",
        "--body-file",
        "-",
        input=b"Not pinned.",
        process=True,
    )
    assert plain.returncode == 0, plain.stderr
    shown = d.memctl("show", entry_id, process=True).stdout.decode()
    assert "never (pinned)" in shown
    rows = d.memctl("ls", process=True).stdout.decode().splitlines()
    assert any("Pinned note" in r and "never (pinned)" in r for r in rows), rows
    assert not any("Plain note" in r and "never" in r for r in rows), rows
