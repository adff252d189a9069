"""Extraction with two daemons on one PostgreSQL database: each queued job is
claimed and worked once, whichever daemon's worker takes it, and no
transcript is left in the database after the jobs end."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator

import pytest

from tests.harness import (
    Daemon,
    enable_consent,
    exported_audit,
    fresh_identity,
    pg_connect,
    pg_store_of,
    shared_pair_on_fresh_schema,
)

CONFIG = "[extract]\npoll_interval_s = 0.02\nlease_s = 5.0\n"
POLICY = (
    '[[rule]]\nid = "extracted-free"\neffect = "allow"\n'
    'capability = "MemoryWrite"\nchannel = "agent"\n'
)
STATEMENTS = [
    "I prefer squash merges for every feature branch in this repository.",
    "We run the payment workers on a dedicated node pool in the cluster.",
    "Turns out the queue stalls when the broker disk passes ninety percent.",
]


@pytest.fixture(scope="module")
def pair() -> Iterator[tuple[Daemon, Daemon]]:
    yield from shared_pair_on_fresh_schema(policy=POLICY, config=CONFIG)


def test_each_job_is_claimed_once_across_daemons(pair: tuple[Daemon, Daemon]) -> None:
    first, second = pair
    ident = fresh_identity("pgx-")
    with first.control() as c:
        enable_consent(c, ident)
        token = c.call("token.issue", {"identity": ident})["token"]
    jobs = []
    for n in range(12):
        daemon = first if n % 2 else second
        with daemon.agent() as a:
            task = a.call("task.begin", {"token": token})
            transcript = [{"role": "user", "content": STATEMENTS[n % 3]}]
            ended = a.call("task.end", {"task_id": task["task_id"], "transcript": transcript})
            jobs.append(ended["extraction"]["job_id"])
    with second.control() as c:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            listed = {j["job_id"]: j for j in c.call("extract.status", {"identity": ident})["jobs"]}
            if all(listed[j]["state"] == "done" for j in jobs):
                break
            time.sleep(0.05)
        assert all(listed[j]["state"] == "done" for j in jobs)
        # Each statement applied once; its repeats dropped as repeats.
        assert sum(listed[j]["applied"] for j in jobs) == 3
        assert sum(listed[j]["dropped"] for j in jobs) == 9
        ended = [
            event["details"]["job_id"]
            for event in map(json.loads, exported_audit(c).splitlines())
            if event["kind"] == "extraction_changed" and event["details"]["state"] == "done"
        ]
        assert sorted(ended) == sorted(jobs)
    store = pg_store_of(first.home)
    assert store is not None
    with pg_connect(*store) as conn:
        assert conn.execute("SELECT count(*) FROM extract_transcripts").fetchone()[0] == 0
