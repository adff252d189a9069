"""Extraction writes only where its owner may write when the job runs
(docs/extraction.md, "Where proposals go").

A transcript's candidates are proposed into the job's scope for the job's
owner, through the governed write. A team scope is written for an owner only
while it is a member (as a control write for it is), and a job queued before
the owner withdrew ``contribute`` or left the team proposes nothing after: the
worker asks again when it runs, before the transcript goes to any extractor,
and again in the transaction that writes each candidate. The update finder
never reaches, nor supersedes, an entry of a team the owner is not in.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import pytest

from memoryd.rpc.client import Client
from tests.blackbox.test_extraction import CONFIG, wait_done
from tests.harness import (
    Daemon,
    backend,
    expect,
    running,
    short_tempdir,
    team_member_and_outsider,
)
from tests.inproc import FakeClock, InProcess, composed

OLD_PORT = "Our staging database listens on port 5432."
NEW_PORT = "Our staging database now listens on port 6432."
# Extracted entries are applied at once: what the worker writes is then on
# the entries themselves, not only in a pending action the approval re-checks.
FREE = (
    '[[rule]]\nid = "extracted-free"\neffect = "allow"\n'
    'capability = "MemoryWrite"\nchannel = "agent"\n'
)


@pytest.fixture(scope="module")
def d() -> Iterator[Daemon]:
    with running(config=CONFIG, policy=FREE) as daemon:
        yield daemon


def _team_entry(c: Client, member: dict[str, str], team: str) -> dict[str, Any]:
    return c.call(
        "memory.write",
        {  # type: ignore[no-any-return]
            "identity": member,
            "action": "add",
            "scope": team,
            "entry": {"type": "fact", "title": "Staging database port", "body": OLD_PORT},
        },
    )["entries"][0]


def _team_items(c: Client, member: dict[str, str], team: str) -> list[tuple[str, str]]:
    items = c.call(
        "memory.list", {"identity": member, "scope": team, "statuses": ["active", "superseded"]}
    )["items"]
    return sorted((i["id"], i["status"]) for i in items)


def test_a_transcript_is_not_queued_for_a_team_its_owner_is_not_in(c: Client) -> None:
    member, outsider, _tokens = team_member_and_outsider(c, "ops-x1", "xs1")
    first = _team_entry(c, member, "team:ops-x1")
    before = _team_items(c, member, "team:ops-x1")
    expect(
        -32001,
        "scope_mismatch",
        c.call,
        "extract.submit",
        {
            "identity": outsider,
            "scope": "team:ops-x1",
            "jsonl": json.dumps({"role": "user", "content": NEW_PORT}) + "\n",
        },
    )
    assert c.call("extract.status", {"identity": outsider})["jobs"] == []
    assert _team_items(c, member, "team:ops-x1") == before
    assert (
        c.call("memory.read", {"identity": member, "ids": [first["id"]]})["entries"][0]["status"]
        == "active"
    )


def test_a_members_transcript_still_updates_the_teams_entry(c: Client) -> None:
    """The refusal above is the membership's: a member's same transcript
    supersedes the team's entry."""
    member, _outsider, _tokens = team_member_and_outsider(c, "ops-x2", "xs2")
    first = _team_entry(c, member, "team:ops-x2")
    out = c.call(
        "extract.submit",
        {
            "identity": member,
            "scope": "team:ops-x2",
            "jsonl": json.dumps({"role": "user", "content": NEW_PORT}) + "\n",
        },
    )
    job = wait_done(c, out["job_id"], member)
    assert (job["state"], job["applied"]) == ("done", 1)
    assert (
        c.call("memory.read", {"identity": member, "ids": [first["id"]]})["entries"][0]["status"]
        == "superseded"
    )


# --- a job queued before the owner's standing changed (in process: the worker
# --- is stepped by hand, so the change lands between submission and work)


inproc = pytest.mark.skipif(backend() != "sqlite", reason="composed in process on one home's file")


def _worker_step(p: InProcess) -> Any:
    assert p.app.extraction is not None
    return p.app.extraction.step()


async def _jobs(p: InProcess) -> list[dict[str, Any]]:
    return (await p.call("control", "extract.status", {}))["jobs"]  # type: ignore[no-any-return]


def _transcripts_left(p: InProcess) -> int:
    row = p.store.run_sync(
        lambda tx: tx.one("SELECT count(*) AS n FROM extract_transcripts"), write=False
    )
    assert row is not None
    return int(row["n"])


async def _consent(p: InProcess, identity: dict[str, str] | None = None, **switches: bool) -> None:
    who = {} if identity is None else {"identity": identity}
    current = await p.call("control", "consent.get", who)
    await p.call(
        "control",
        "consent.set",
        {
            **who,
            **{"read": True, "contribute": True, "learn_from_tools": False, **switches},
            "version": current["version"],
        },
    )


@pytest.fixture
def where() -> Path:
    return short_tempdir() / "h"


@inproc
def test_a_job_writes_nothing_into_a_team_its_owner_has_left(where: Path) -> None:
    async def go() -> None:
        with composed(where, clock=FakeClock(), config=CONFIG, policy=FREE) as p:
            alice = {"kind": "token", "subject": "alice"}
            await _consent(p, identity=alice)
            token = (await p.call("control", "token.issue", {"identity": alice}))["token"]
            await p.call("control", "team.create", {"name": "ops"})
            await p.call("control", "team.add", {"name": "ops", "identity": alice})
            first = (
                await p.call(
                    "control",
                    "memory.write",
                    {
                        "identity": alice,
                        "action": "add",
                        "scope": "team:ops",
                        "entry": {
                            "type": "fact",
                            "title": "Staging database port",
                            "body": OLD_PORT,
                        },
                    },
                )
            )["entries"][0]
            task = await p.call("agent", "task.begin", {"token": token, "scopes": ["team:ops"]})
            ended = await p.call(
                "agent",
                "task.end",
                {
                    "task_id": task["task_id"],
                    "transcript": [
                        {"role": "user", "content": NEW_PORT},
                        {
                            "role": "user",
                            "content": "I prefer tabs over spaces in every Makefile of the team.",
                        },
                    ],
                },
            )
            assert ended["extraction"]["queued"] is True
            await p.call("control", "team.remove", {"name": "ops", "identity": alice})
            assert await _worker_step(p) is True
            [job] = await _jobs(p)
            assert job["state"] in ("done", "failed")
            assert (job["applied"], job["proposed"]) == (0, 0)
            assert _transcripts_left(p) == 0
            # The team's entry is as the member left it, and nothing new is in the team.
            rows = await p.store.run(
                lambda tx: tx.all("SELECT id, status FROM entries WHERE scope = 'team:ops'"),
                write=False,
            )
            assert [(r["id"], r["status"]) for r in rows] == [(first["id"], "active")]

    anyio.run(go, backend="asyncio")


@inproc
def test_a_job_proposes_nothing_once_its_owner_withdrew_contribute(where: Path) -> None:
    async def go() -> None:
        with composed(where, clock=FakeClock(), config=CONFIG, policy=FREE) as p:
            await _consent(p)
            seen: list[int] = []
            extraction = p.app.extraction
            assert extraction is not None
            real = extraction.extractor

            class Counting:
                name = "counting"

                def extract(self, turns: Any, max_candidates: int) -> Any:
                    seen.append(len(turns))
                    return real.extract(turns, max_candidates)

            extraction.extractor = Counting()
            task = await p.call("agent", "task.begin", {})
            ended = await p.call(
                "agent",
                "task.end",
                {"task_id": task["task_id"], "transcript": [{"role": "user", "content": NEW_PORT}]},
            )
            assert ended["extraction"]["queued"] is True
            await _consent(p, contribute=False)
            assert await _worker_step(p) is True
            [job] = await _jobs(p)
            assert (job["applied"], job["proposed"]) == (0, 0)
            assert job["state"] == "failed" and job["last_error"] == "consent_required"
            assert seen == []  # the transcript went to no extractor
            assert _transcripts_left(p) == 0
            listed = await p.call("control", "memory.list", {})
            assert listed["items"] == []

    anyio.run(go, backend="asyncio")
