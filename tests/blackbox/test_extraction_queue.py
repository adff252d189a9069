"""The extraction queue's rules in time, on the daemon composed in-process
(tests/inproc.py) with a clock the test moves: a throttled provider defers
jobs with backoff and jitter and is not asked again until the pause ends,
spent attempts end a job, a transcript never outlives
``extract.retention_hours``, and a crash between two candidates resumes
after the last one handled."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import anyio
import pytest

from memoryd.daemon.clock import fmt
from memoryd.daemon.extraction import extract_queue
from memoryd.daemon.extraction.extract_worker import Extraction, ProviderError
from memoryd.daemon.extraction.extractors import Builtin, Extracted
from memoryd.daemon.extraction.transcripts import Turn, decode
from tests.harness import backend, short_tempdir
from tests.inproc import FakeClock, InProcess, composed

pytestmark = pytest.mark.skipif(
    backend() != "sqlite", reason="one home's file; the queue's SQL is shared"
)

CONFIG = (
    "[extract]\nbackoff_initial_s = 10.0\nbackoff_max_s = 100.0\nmax_attempts = 3\n"
    "retention_hours = 2.0\n"
)
TURNS = [
    {"role": "user", "content": "I prefer short commit messages in the imperative mood."},
    {"role": "user", "content": "We deploy the API with Helm charts from the ops repo."},
    {"role": "user", "content": "Turns out the cache must be warmed before a release."},
]


class Throttled:
    """A provider that refuses (``code``: a 429 by default) while
    ``refusing``, counting every call."""

    name = "throttled"

    def __init__(self, code: str = "throttled") -> None:
        self.calls = 0
        self.refusing = True
        self.code = code

    def extract(self, turns: Sequence[Turn], max_candidates: int) -> Extracted:
        self.calls += 1
        if self.refusing:
            raise ProviderError(self.code)
        return Builtin().extract(turns, max_candidates)


def worker(p: InProcess) -> Extraction:
    assert p.app.extraction is not None
    return p.app.extraction


async def submit(p: InProcess, n: int = 1) -> list[str]:
    await p.call(
        "control",
        "consent.set",
        {"read": True, "contribute": True, "learn_from_tools": False, "version": 0},
    )
    jobs = []
    for _ in range(n):
        task = await p.call("agent", "task.begin", {})
        ended = await p.call("agent", "task.end", {"task_id": task["task_id"], "transcript": TURNS})
        jobs.append(ended["extraction"]["job_id"])
    return jobs


async def jobs_of(p: InProcess) -> dict[str, dict[str, Any]]:
    status = await p.call("control", "extract.status", {})
    return {j["job_id"]: j for j in status["jobs"]}


def transcripts_left(p: InProcess) -> int:
    row = p.store.run_sync(
        lambda tx: tx.one("SELECT count(*) AS n FROM extract_transcripts"), write=False
    )
    assert row is not None
    return int(row["n"])


@pytest.fixture
def home() -> Path:
    return short_tempdir() / "h"


def test_a_throttled_provider_pauses_the_queue_instead_of_a_storm(home: Path) -> None:
    clock = FakeClock()

    async def go() -> None:
        with composed(home, clock=clock, config=CONFIG) as p:
            throttled = Throttled()
            worker(p).extractor = throttled
            ids = await submit(p, 5)
            assert await worker(p).step() is True
            assert throttled.calls == 1
            job = (await jobs_of(p))[ids[0]]
            assert job["state"] == "queued" and job["last_error"] == "throttled"
            # Jittered backoff: between half the initial delay and 1.5 times it.
            waited = clock.now()
            for _ in range(10):
                assert await worker(p).step() is False
            assert throttled.calls == 1  # paused: nobody else was sent meanwhile
            clock.advance(seconds=16)
            throttled.refusing = False
            # Back at the configured rate (120 a minute): one job, then the
            # next only half a second later, never the backlog at once.
            handled = 0
            for _ in range(5):
                assert await worker(p).step() is True
                assert await worker(p).step() is False
                handled += 1
                clock.advance(seconds=0.5)
            assert handled == 5 and throttled.calls == 6
            states = {j["state"] for j in (await jobs_of(p)).values()}
            assert states == {"done"}
            assert clock.now() > waited
            assert transcripts_left(p) == 0

    anyio.run(go, backend="asyncio")


def test_spent_attempts_fail_the_job_and_destroy_its_transcript(home: Path) -> None:
    clock = FakeClock()

    async def go() -> None:
        with composed(home, clock=clock, config=CONFIG) as p:
            # A 5xx spends an attempt (a throttle does not:
            # tests/blackbox/test_extraction_throttle.py).
            throttled = Throttled("server_error")
            worker(p).extractor = throttled
            [job_id] = await submit(p)
            for _ in range(3):
                assert await worker(p).step() is True
                clock.advance(seconds=200)
            job = (await jobs_of(p))[job_id]
            assert (job["state"], job["attempts"], job["last_error"]) == (
                "failed",
                3,
                "server_error",
            )
            assert transcripts_left(p) == 0

    anyio.run(go, backend="asyncio")


def test_a_transcript_never_outlives_its_retention(home: Path) -> None:
    clock = FakeClock()

    async def go() -> None:
        with composed(home, clock=clock, config=CONFIG) as p:
            throttled = Throttled()
            worker(p).extractor = throttled
            [job_id] = await submit(p)
            assert transcripts_left(p) == 1
            clock.advance(hours=2, seconds=1)
            assert await worker(p).step() is False
            assert throttled.calls == 0
            assert (await jobs_of(p))[job_id]["state"] == "expired"
            assert transcripts_left(p) == 0

    anyio.run(go, backend="asyncio")


class Crash(BaseException):
    """Stands for the process dying between two candidates."""


def test_a_crash_between_candidates_resumes_without_proposing_twice(home: Path) -> None:
    clock = FakeClock()
    policy = (
        '[[rule]]\nid = "free"\neffect = "allow"\ncapability = "MemoryWrite"\nchannel = "agent"\n'
    )

    async def first() -> str:
        with composed(home, clock=clock, config=CONFIG, policy=policy) as p:
            [job_id] = await submit(p)
            governance = p.app.governance
            real = governance.outcome
            calls = []

            def dying(*args: Any) -> Any:
                if calls:
                    raise Crash
                calls.append(1)
                return real(*args)

            governance.outcome = dying  # type: ignore[method-assign]
            with pytest.raises(Crash):
                await worker(p).step()
            return job_id

    job_id = anyio.run(first, backend="asyncio")

    async def restarted() -> None:
        with composed(home, clock=clock, config=CONFIG, policy=policy) as p:
            job = (await jobs_of(p))[job_id]
            assert job["state"] == "running" and job["applied"] == 1
            # What the worker does first on a home no other daemon shares.
            now = fmt(clock.now())
            assert await p.store.run(lambda tx: extract_queue.release_all(tx, now)) == 1
            assert await worker(p).step() is True
            job = (await jobs_of(p))[job_id]
            assert (job["state"], job["applied"], job["candidates"]) == ("done", 3, 3)
            listed = await p.call("control", "memory.list", {})
            assert len(listed["items"]) == 3

    anyio.run(restarted, backend="asyncio")


@pytest.mark.parametrize(("tools_used", "learn"), [(False, False), (False, True), (True, True)])
def test_tool_output_is_kept_only_when_learning_from_tools(
    home: Path, tools_used: bool, learn: bool
) -> None:
    # A task begun with tools_used and learn_from_tools off submits nothing
    # (test_extraction.py); otherwise a tool turn is kept only when learning.
    async def go() -> list[str]:
        with composed(home, clock=FakeClock(), config=CONFIG) as p:
            await p.call(
                "control",
                "consent.set",
                {"read": True, "contribute": True, "learn_from_tools": learn, "version": 0},
            )
            task = await p.call("agent", "task.begin", {"tools_used": tools_used})
            await p.call(
                "agent",
                "task.end",
                {
                    "task_id": task["task_id"],
                    "transcript": [
                        *TURNS,
                        {"role": "tool", "content": "We use the tool output here."},
                    ],
                },
            )
            row = p.store.run_sync(
                lambda tx: tx.one("SELECT body FROM extract_transcripts"), write=False
            )
            assert row is not None
            return [t.role for t in decode(row["body"])]

    roles = anyio.run(go, backend="asyncio")
    assert roles == ["user", "user", "user", *(["tool"] if learn else [])]
