"""Black-box: the scope budget's running total stays equal to the bytes it stands for.

The write path checks a scope's budget against ``scope_usage``, a per-scope
total kept by store triggers (daemon/storage/sqlite_schema.py) instead of a sum over the
scope on every write. These tests drive every kind of change through the real
sockets and compare that total with the sum it replaces, read from the
daemon's own database (its SQLite file on a read-only connection, or its
PostgreSQL schema under --backend postgresql).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import anyio
import apsw
import pytest

from memoryd.rpc.client import Client, RpcError
from tests.harness import Daemon, entry, pg_connect, pg_store_of
from tests.inproc import FakeClock, composed

CONFIG = "scope_budget_bytes = 3000\n"


# How this module's daemon starts (the ``d`` fixture, tests/blackbox/conftest.py).
DAEMON = {"config": CONFIG}


def write(c: Client, scope: str, **params: Any) -> dict[str, Any]:
    return c.call("memory.write", {"scope": scope, **params})  # type: ignore[no-any-return]


def add(c: Client, scope: str, title: str, body: str, **fields: Any) -> dict[str, Any]:
    out = write(c, scope, action="add", entry=entry(title=title, body=body, **fields))
    return out


def totals(d: Daemon | Path, scope: str) -> tuple[int, int]:
    """(the running total, the sum it stands for) for ``scope``, as committed;
    ``d`` is a daemon or the home of one composed in-process."""
    home = d if isinstance(d, Path) else d.home
    pg = pg_store_of(home)
    if pg is not None:
        return _pg_totals(*pg, scope)
    conn = apsw.Connection(
        f"file:{home / 'memory.db'}?mode=ro", flags=apsw.SQLITE_OPEN_READONLY | apsw.SQLITE_OPEN_URI
    )
    try:
        kept = conn.execute(
            "SELECT coalesce(sum(active_bytes), 0) FROM scope_usage"
            " WHERE target = 'memory' AND scope = ?",
            (scope,),
        ).fetchall()
        # Every stored text column counts (title, body, summary, basis, validity).
        stored = " + ".join(f"coalesce(length(CAST({c} AS BLOB)), 0)" for c in STORED_COLUMNS)
        summed = conn.execute(
            f"SELECT coalesce(sum({stored}), 0) FROM entries"  # noqa: S608
            " WHERE target = 'memory' AND scope = ? AND status = 'active'",
            (scope,),
        ).fetchall()
        kept_n, summed_n = kept[0][0], summed[0][0]
        assert isinstance(kept_n, int) and isinstance(summed_n, int)
        return kept_n, summed_n
    finally:
        conn.close()


STORED_COLUMNS = ("title", "body", "summary", "basis", "validity")


def _pg_totals(dsn: str, schema: str, scope: str) -> tuple[int, int]:
    """The same two figures from the daemon's PostgreSQL schema."""
    stored = " + ".join(f"coalesce(octet_length({c}), 0)" for c in STORED_COLUMNS)
    with pg_connect(dsn, schema) as conn:
        kept = conn.execute(
            "SELECT coalesce(sum(active_bytes), 0) FROM scope_usage"
            " WHERE target = 'memory' AND scope = %s",
            (scope,),
        ).fetchone()
        summed = conn.execute(
            f"SELECT coalesce(sum({stored}), 0) FROM entries"  # noqa: S608
            " WHERE target = 'memory' AND scope = %s AND status = 'active'",
            (scope,),
        ).fetchone()
    assert kept is not None and summed is not None
    return int(kept[0]), int(summed[0])


def test_running_total_follows_every_kind_of_change(d: Daemon, c: Client) -> None:
    scope = "usage-1"

    def same() -> None:
        kept, summed = totals(d, scope)
        assert kept == summed

    a = add(c, scope, "A", "älpha " * 20)["entries"][0]
    b = add(c, scope, "B", "beta " * 30)["entries"][0]
    same()
    write(
        c,
        scope,
        action="replace",
        id=a["id"],
        expected_revision=1,
        entry=entry(title="A", body="grown " * 60),
    )
    same()
    write(
        c,
        scope,
        action="replace",
        id=a["id"],
        expected_revision=2,
        entry=entry(title="A", body="short"),
    )
    same()
    sup = write(
        c,
        scope,
        action="supersede",
        id=b["id"],
        expected_revision=1,
        entry=entry(title="B", body="successor " * 10),
    )
    same()
    c.call("memory.undo", {"operation_id": sup["operation_id"]})
    same()
    arch = write(c, scope, action="archive", id=a["id"], expected_revision=3, reason="done")
    same()
    c.call("memory.undo", {"operation_id": arch["operation_id"]})
    same()
    current = c.call("memory.read", {"ids": [b["id"]]})["entries"][0]
    write(c, scope, action="remove", id=b["id"], expected_revision=current["revision"])
    same()
    batch = write(
        c,
        scope,
        action="batch",
        ops=[
            {"action": "add", "entry": entry(title=f"N{i}", body="n" * (50 + i))} for i in range(5)
        ],
    )
    assert batch["outcome"] == "applied"
    same()
    assert totals(d, scope)[0] > 0


def test_running_total_follows_expiry_and_purge(tmp_path: Path) -> None:
    # Retention on the in-process seam: a fake clock moves past expires_at
    # and the purge grace instead of waiting for them.
    home, scope, clock = tmp_path / "h", "usage-ttl", FakeClock()

    def same() -> None:
        kept, summed = totals(home, scope)
        assert kept == summed

    async def go() -> None:
        with composed(home, clock=clock, config="[retention]\npurge_grace_days = 1\n") as daemon:

            async def add_in(title: str, body: str, **fields: Any) -> dict[str, Any]:
                out = await daemon.call(
                    "control",
                    "memory.write",
                    {
                        "scope": scope,
                        "action": "add",
                        "entry": entry(title=title, body=body, **fields),
                    },
                )
                return out["entries"][0]  # type: ignore[no-any-return]

            await add_in("Stays", "stays " * 10)
            await add_in("Short", "expires " * 10, ttl_days=1)
            same()
            clock.advance(days=1, seconds=1)
            assert (await daemon.call("control", "memory.gc", {}))["expired"] == 1
            same()
            clock.advance(days=1)
            assert (await daemon.call("control", "memory.gc", {}))["purged"] == 1
            same()
            assert totals(home, scope)[0] > 0

    anyio.run(go, backend="asyncio")


def test_budget_counts_a_scope_only_once_its_room_is_freed(d: Daemon, c: Client) -> None:
    scope = "usage-2"
    # Each entry stores its title, a one-byte summary and its basis besides
    # the body; the budget counts all of it.
    first = add(c, scope, "A", "a" * 1_400, summary="a")["entries"][0]
    add(c, scope, "B", "b" * 1_400, summary="b")
    used = totals(d, scope)[0]
    assert 2_800 < used < 3_000
    with pytest.raises(RpcError) as err:
        add(c, scope, "C", "c" * 400, summary="c")
    assert err.value.data["code"] == "scope_budget_exceeded"
    assert err.value.data["details"]["used_bytes"] == used
    write(c, scope, action="remove", id=first["id"], expected_revision=1)
    assert add(c, scope, "C", "c" * 400, summary="c")["outcome"] == "applied"
    used = totals(d, scope)[0]
    with pytest.raises(RpcError) as err:
        add(c, scope, "D", "d" * 1_201, summary="d")
    assert err.value.data["details"]["used_bytes"] == used


def test_a_full_budget_names_the_cap_its_value_and_how_to_raise_it(d: Daemon, c: Client) -> None:
    scope = "usage-cap"
    add(c, scope, "A", "a" * 2_900, summary="a")
    used = totals(d, scope)[0]
    overhead = used - 2_900  # title, summary and basis of an entry like A or B
    with pytest.raises(RpcError) as err:
        add(c, scope, "B", "b" * 200, summary="b")
    data = err.value.data
    assert data["details"] == {
        "cap": "scope_budget_bytes",
        "limit": 3000,
        "used_bytes": used,
        "budget_bytes": 3000,
        "needed_bytes": 200 + overhead,
    }
    assert "raise scope_budget_bytes (now 3000) in memoryd.toml" in data["recovery"]
    assert "b" * 20 not in str(data)
