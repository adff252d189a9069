"""An entry's validity ends at the moment it names, whatever offset it is written with.

In process, with a fake clock.
"""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import anyio

from tests.harness import (
    backend,
    entry,
    pg_store_of,
    pg_store_section,
)
from tests.inproc import FakeClock, composed

# (until as written, applicability at 00:00Z, at 00:45Z, at 02:00:00.5Z): the
# moment each names, not its text, decides. Compared as text, an offset other
# than Z moved the end by up to a day either way, and a lower-case t or z, or
# an end without a fraction, kept an entry valid past it.
_UNTILS = [
    ("2026-01-01T03:00:00+05:00", "expired", "expired", "expired"),  # 2025-12-31 22:00Z
    ("2025-12-31T20:00:00-05:00", "recheck", "recheck", "expired"),  # 01:00Z
    ("2026-01-01T00:30:00.5+00:00", "recheck", "expired", "expired"),
    ("2026-01-01T02:00:00Z", "recheck", "recheck", "expired"),
    ("2026-01-01t01:30:00z", "recheck", "recheck", "expired"),
    ("2026-01-02T00:00:00+23:59", "recheck", "expired", "expired"),  # 00:01Z
    ("2026-01-01T20:00:00+20:00", "expired", "expired", "expired"),  # 00:00Z exactly
]


def test_a_validity_end_lapses_at_the_moment_it_names_whatever_its_offset(tmp_path: Path) -> None:
    clock = FakeClock(datetime(2026, 1, 1, tzinfo=UTC))
    # In-process for the fake clock, on the backend the suite runs on.
    config = pg_store_section() if backend() == "postgresql" else None

    async def go() -> list[tuple[str, ...]]:
        with composed(tmp_path / "h", clock=clock, config=config) as daemon:
            ids = [
                (
                    await daemon.call(
                        "control",
                        "memory.write",
                        {
                            "action": "add",
                            "scope": "valid:until",
                            "entry": entry(f"Until {n}", validity={"check": "ask", "until": until}),
                        },
                    )
                )["entries"][0]["id"]
                for n, (until, *_) in enumerate(_UNTILS)
            ]

            async def seen() -> tuple[str, ...]:
                read = await daemon.call("control", "memory.read", {"ids": ids})
                listed = {
                    i["id"]: i["applicability"]
                    for i in (
                        await daemon.call(
                            "control", "memory.list", {"scope": "valid:until", "page_size": 20}
                        )
                    )["items"]
                }
                got = tuple(e["applicability"] for e in read["entries"])
                assert got == tuple(listed[i] for i in ids)
                # The value is kept as it was written.
                assert [e["validity"]["until"] for e in read["entries"]] == [u for u, *_ in _UNTILS]
                return got

            assert (pg_store_of(tmp_path / "h") is None) == (backend() != "postgresql")
            out = [await seen()]
            clock.advance(seconds=45 * 60)
            out.append(await seen())
            clock.advance(seconds=75 * 60 + 0.5)
            out.append(await seen())
            return out

    assert anyio.run(go, backend="asyncio") == [tuple(row[k] for row in _UNTILS) for k in (1, 2, 3)]
