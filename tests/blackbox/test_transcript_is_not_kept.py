"""A transcript's bytes leave the disk when its job ends, even when a reader
held the WAL back at that moment (docs/extraction.md, "The transcript is
not kept").

The job's end deletes the transcript (``secure_delete`` zeroes its pages)
and the worker truncates the WAL, whose frames still hold the page images
with its text. A reader's open snapshot makes that truncation wait and then
give up; the worker tries again on its next rounds until it completes,
rather than leave the text in ``memory.db-wal`` until some removal happens
to truncate it. On the daemon composed in process, so the reader's snapshot
can be held across the job's end.
"""

from __future__ import annotations

from pathlib import Path

import anyio
import pytest

from tests.harness import backend, short_tempdir, store_file
from tests.inproc import FakeClock, InProcess, composed

pytestmark = pytest.mark.skipif(backend() != "sqlite", reason="SQLite's WAL file")

CANARY = "zebracanaryheldback"


def _files_holding(home: Path, needle: bytes) -> list[str]:
    return sorted(p.name for p in home.rglob("*") if p.is_file() and needle in p.read_bytes())


def _step(p: InProcess) -> object:
    assert p.app.extraction is not None
    return p.app.extraction.step()


def test_a_transcript_held_back_by_a_reader_leaves_the_wal_once_the_reader_is_done() -> None:
    home = short_tempdir() / "h"

    async def go() -> None:
        with composed(home, clock=FakeClock()) as p:
            await p.call(
                "control",
                "consent.set",
                {"read": True, "contribute": True, "learn_from_tools": False, "version": 0},
            )
            task = await p.call("agent", "task.begin", {})
            ended = await p.call(
                "agent",
                "task.end",
                {
                    "task_id": task["task_id"],
                    "transcript": [
                        {"role": "user", "content": f"ok {CANARY}"},
                        {
                            "role": "user",
                            "content": "I prefer short commit messages in the imperative.",
                        },
                    ],
                },
            )
            assert ended["extraction"]["queued"] is True
            reader = store_file(home / "memory.db", readonly=True)
            try:
                reader.execute("BEGIN")
                reader.execute("SELECT count(*) FROM entries").fetchall()
                assert await _step(p) is True
                [job] = (await p.call("control", "extract.status", {}))["jobs"]
                assert job["state"] == "done"
                # The reader's snapshot kept the truncation from completing:
                # the frames with the transcript's text are still on disk.
                assert "memory.db-wal" in _files_holding(home, CANARY.encode())
            finally:
                reader.execute("COMMIT")
                reader.close()
            # The worker's next round (nothing left to extract) finishes the job's scrub.
            assert await _step(p) is False
            assert _files_holding(home, CANARY.encode()) == []

    anyio.run(go, backend="asyncio")
