"""The extraction queue through a long throttle, on the daemon composed
in-process (tests/inproc.py) with a clock the test moves and the language-model
extractor talking real HTTP to a scripted OpenAI-compatible endpoint on
loopback that answers ``429`` (with and without ``Retry-After``) for five
minutes of that clock, then answers normally.

What holds whatever the jitter drew: while the endpoint refuses, each refusal
at least doubles the worker's pause (and a ``Retry-After`` is waited for), so
it is asked a handful of times, not once per queued job; when it is back, job
starts in any 60 seconds never exceed ``max_jobs_per_minute``; and every
submitted job ends ``done``, its one candidate proposed once. The same run in
real time is ``bench/extract_throttle.py``."""

from __future__ import annotations

import itertools
import json
import re
from dataclasses import dataclass, field
from typing import Any

import anyio
import pytest

from bench.chat_endpoint import Reply, serving, user_text
from memoryd.daemon.extraction.extract_worker import Extraction
from tests.harness import backend, short_tempdir
from tests.inproc import FakeClock, InProcess, composed

pytestmark = pytest.mark.skipif(
    backend() != "sqlite", reason="one home's file; the worker's rules are shared"
)

POLICY = (
    '[[rule]]\nid = "llm-host"\neffect = "allow"\ncapability = "NetworkAccess"\n\n'
    '[[rule]]\nid = "llm-transcripts"\neffect = "allow"\n'
    'capability = "MemoryExternalize"\naction = "extract"\n'
)
INITIAL, MAXIMUM, CAP, RETRY_AFTER = 5.0, 300.0, 20.0, 30


@dataclass
class Sent:
    at: float  # seconds of the fake clock since the run began
    status: int
    retry_after: int | None


@dataclass
class Endpoint:
    """What the scripted endpoint answers, and every request it received."""

    clock: FakeClock
    origin: float
    throttle: tuple[float, float] = (0.0, 0.0)  # refuses in [start, end)
    sent: list[Sent] = field(default_factory=list)

    def elapsed(self) -> float:
        return self.clock.now().timestamp() - self.origin

    def reply(self, body: dict[str, Any]) -> Reply:
        at = self.elapsed()
        start, end = self.throttle
        if start <= at < end:
            # Every other refusal says when to come back.
            retry = RETRY_AFTER if len(self.sent) % 2 else None
            self.sent.append(Sent(at, 429, retry))
            return 429, {} if retry is None else {"Retry-After": str(retry)}, ""
        self.sent.append(Sent(at, 200, None))
        match = re.search(r"^\[0\] user: (.*)$", user_text(body), re.MULTILINE)
        assert match is not None
        quote = match.group(1)
        memories = [{"type": "fact", "title": quote[:11], "turn": 0, "quote": quote}]
        return 200, {}, json.dumps({"memories": memories})


def config(url: str) -> str:
    return (
        '[extract]\nextractor = "model"\n'
        f"backoff_initial_s = {INITIAL}\nbackoff_max_s = {MAXIMUM}\n"
        f"max_jobs_per_minute = {CAP}\n"
        f'[extract.model]\nendpoint = "{url}"\nmodel = "scripted"\n'
    )


def sentence(n: int) -> str:
    return f"Service {n:03d} is deployed with Helm from the ops repository."


def worker(p: InProcess) -> Extraction:
    assert p.app.extraction is not None
    return p.app.extraction


async def submit(p: InProcess, n: int) -> str:
    task = await p.call("agent", "task.begin", {})
    ended = await p.call(
        "agent",
        "task.end",
        {
            "task_id": task["task_id"],
            "transcript": [
                {"role": "user", "content": sentence(n)},
                {"role": "assistant", "content": "Noted."},
            ],
        },
    )
    return str(ended["extraction"]["job_id"])


async def pending_bodies(p: InProcess) -> list[str]:
    bodies: list[str] = []
    cursor = None
    while True:
        page = await p.call(
            "control",
            "governance.action.list",
            {"status": "pending", **({"cursor": cursor} if cursor else {})},
        )
        for item in page["items"]:
            action = await p.call(
                "control", "governance.action.get", {"action_id": item["action_id"]}
            )
            bodies.extend(op["entry"]["body"] for op in action["ops"])
        cursor = page.get("next_cursor")
        if not cursor:
            return bodies


async def all_jobs(p: InProcess) -> dict[str, dict[str, Any]]:
    status = await p.call("control", "extract.status", {})
    return {j["job_id"]: j for j in status["jobs"]}


async def run(
    p: InProcess,
    endpoint: Endpoint,
    *,
    until: float,
    submit_every: float,
    submit_until: float,
    tick: float = 0.5,
) -> list[str]:
    """Move the clock by ``tick`` until ``until``, submitting a task every
    ``submit_every`` seconds before ``submit_until``, and let the worker take
    each step it would take at that time."""
    await p.call(
        "control",
        "consent.set",
        {"read": True, "contribute": True, "learn_from_tools": False, "version": 0},
    )
    jobs: list[str] = []
    while endpoint.elapsed() < until:
        at = endpoint.elapsed()
        if at < submit_until and at >= len(jobs) * submit_every:
            jobs.append(await submit(p, len(jobs)))
        while await worker(p).step():
            pass
        endpoint.clock.advance(seconds=tick)
    return jobs


def floors(sent: list[Sent]) -> list[float]:
    """The least gap after each refusal: half the doubled backoff, or the
    ``Retry-After`` the refusal carried."""
    out = []
    for k, s in enumerate(sent):
        floor = min(MAXIMUM, INITIAL * 2**k) / 2
        out.append(max(floor, float(s.retry_after or 0)))
    return out


def test_five_minutes_of_throttling_back_off_then_drain_at_the_cap() -> None:
    clock = FakeClock()
    endpoint = Endpoint(clock, clock.now().timestamp(), throttle=(60.0, 360.0))

    async def go() -> None:
        with (
            serving(endpoint.reply) as server,
            composed(
                short_tempdir() / "h", clock=clock, config=config(server.url), policy=POLICY
            ) as p,
        ):
            jobs = await run(p, endpoint, until=1_200.0, submit_every=10.0, submit_until=480.0)
            refused = [s for s in endpoint.sent if s.status == 429]
            # Backoff, not a storm: each refusal at least doubles the pause
            # (2.5 s, 5 s, 10 s, …) or waits its Retry-After, so five minutes
            # of refusals are answered by a handful of requests.
            gaps = [b.at - a.at for a, b in itertools.pairwise(refused)]
            assert all(g >= f for g, f in zip(gaps, floors(refused), strict=False)), (
                gaps,
                floors(refused),
            )
            assert 2 <= len(refused) <= 8, len(refused)
            # Back: never more than the cap's starts in any 60 seconds.
            back = [s.at for s in endpoint.sent if s.at >= 360.0]
            busiest = max(sum(1 for u in back if t <= u < t + 60) for t in back)
            assert busiest <= CAP, busiest
            # None lost, none proposed twice.
            states = {j: s["state"] for j, s in (await all_jobs(p)).items()}
            assert len(jobs) == 48 and set(states) == set(jobs)
            assert set(states.values()) == {"done"}, states
            bodies = await pending_bodies(p)
            assert sorted(bodies) == sorted(sentence(n) for n in range(len(jobs)))

    anyio.run(go, backend="asyncio")


def test_a_lone_job_outlasts_a_throttle_longer_than_its_attempts() -> None:
    # Six refusals in a row (max_attempts) come within about three minutes:
    # a throttle says "later", not that the job is at fault, so it spends no
    # attempt, and the job is done once the endpoint answers.
    clock = FakeClock()
    endpoint = Endpoint(clock, clock.now().timestamp(), throttle=(0.0, 600.0))

    async def go() -> None:
        with (
            serving(endpoint.reply) as server,
            composed(
                short_tempdir() / "h", clock=clock, config=config(server.url), policy=POLICY
            ) as p,
        ):
            [job_id] = await run(
                p, endpoint, until=1_000.0, submit_every=10.0, submit_until=1.0, tick=1.0
            )
            assert sum(1 for s in endpoint.sent if s.status == 429) >= 6
            job = (await all_jobs(p))[job_id]
            assert (job["state"], job["proposed"]) == ("done", 1), job
            assert await pending_bodies(p) == [sentence(0)]

    anyio.run(go, backend="asyncio")
