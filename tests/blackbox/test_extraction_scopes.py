"""Extraction writes only where its owner may write when the job runs
(docs/extraction.md, "Who a job writes for").

A transcript's candidates are proposed into the job's scope for the job's
owner, through the governed write. A team scope is written for an owner only
while it is a member (as a control write for it is), and a job queued before
the owner withdrew ``contribute`` or left the team proposes nothing after: the
worker asks again when it runs, before the transcript goes to any extractor,
and again in the transaction that writes each candidate. So too for
``learn_from_tools``: a job whose task used tools, or whose transcript holds
tool output, proposes nothing once the owner has switched it off; nor does a
job whose task's token was revoked after it was queued, nor one the
policy no longer allows when the worker takes it. The update
finder never reaches, nor supersedes, an entry of a team the owner is not in.
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable, Iterator
from pathlib import Path
from typing import Any

import anyio
import pytest
from structlog.testing import capture_logs

from memoryd.rpc.client import Client
from tests.blackbox.test_extraction import CONFIG, wait_done
from tests.harness import (
    Daemon,
    backend,
    expect,
    pg_store_section,
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


# --- learn_from_tools withdrawn after a job was queued (in process, on the
# --- primary store this run tests: the home's file, or a fresh PostgreSQL schema)

PREFERENCE = "I prefer pytest over unittest for every new test module."
TOOL_OUTPUT = "Fetched page: the build uses make for every release."


def _on_the_store_under_test() -> str:
    return CONFIG + (pg_store_section() if backend() == "postgresql" else "")


def _watch(p: InProcess) -> list[list[str]]:
    """The roles of each transcript the daemon's extractor is given from now on."""
    extraction = p.app.extraction
    assert extraction is not None
    real = extraction.extractor
    seen: list[list[str]] = []

    class Watching:
        name = "watching"

        def extract(self, turns: Any, max_candidates: int) -> Any:
            seen.append([t.role for t in turns])
            return real.extract(turns, max_candidates)

    extraction.extractor = Watching()
    return seen


async def _nothing_of_it_said(p: InProcess, logs: list[Any], turns: list[dict[str, str]]) -> None:
    """No text of ``turns`` in the audit log, the logs or the status."""
    said = (
        json.dumps([json.loads(row.body) for row in p.store.audit_rows()])
        + repr(logs)
        + json.dumps(await p.call("control", "memory.status", {}))
        + json.dumps(await p.call("control", "extract.status", {}))
    )
    for turn in turns:
        assert turn["content"] not in said


async def _refused_after_withdrawal(p: InProcess, seen: list[list[str]]) -> list[Any]:
    """The owner switches ``learn_from_tools`` off, then the worker takes the
    queued job: it fails for the owner's consent, unread. The logs of that
    step."""
    await _consent(p, learn_from_tools=False)
    with capture_logs() as logs:
        assert await _worker_step(p) is True
    [job] = await _jobs(p)
    assert seen == [], f"the transcript went to the extractor: {seen}"
    assert (job["state"], job["last_error"]) == ("failed", "consent_required")
    assert (job["applied"], job["proposed"]) == (0, 0)
    assert _transcripts_left(p) == 0
    assert (await p.call("control", "memory.list", {}))["items"] == []
    return logs


def _in_process(where: Path, body: Callable[[InProcess], Awaitable[None]]) -> None:
    """``body`` on a daemon composed in process on the store under test,
    with extracted entries applied at once."""

    async def go() -> None:
        with composed(
            where, clock=FakeClock(), config=_on_the_store_under_test(), policy=FREE
        ) as p:
            await body(p)

    anyio.run(go, backend="asyncio")


async def _ended(p: InProcess, turns: list[dict[str, str]], **begin: Any) -> None:
    """A task begun with ``begin`` ends with ``turns``: its job is queued."""
    task = await p.call("agent", "task.begin", begin)
    ended = await p.call("agent", "task.end", {"task_id": task["task_id"], "transcript": turns})
    assert ended["extraction"]["queued"] is True


@pytest.mark.parametrize("tool_turn", [True, False], ids=["with_a_tool_turn", "task_row_only"])
def test_a_tools_used_job_proposes_nothing_once_learn_from_tools_is_withdrawn(
    where: Path, tool_turn: bool
) -> None:
    """SPEC §11: a task that used external tools is extracted only while
    ``learn_from_tools`` is on. The owner's switch when the job runs decides
    (decision 0490), known from the task's row even when its transcript
    kept no tool turn; with a model extractor the transcript, tool output
    included, would otherwise leave the host after the owner said no."""
    turns = [{"role": "user", "content": PREFERENCE}]
    if tool_turn:
        turns.append({"role": "tool", "content": TOOL_OUTPUT})

    async def body(p: InProcess) -> None:
        await _consent(p, learn_from_tools=True)
        seen = _watch(p)
        await _ended(p, turns, tools_used=True)
        logs = await _refused_after_withdrawal(p, seen)
        await _nothing_of_it_said(p, logs, turns)

    _in_process(where, body)


def test_submitted_tool_turns_reach_no_extractor_once_learn_from_tools_is_withdrawn(
    where: Path,
) -> None:
    """``extract.submit`` keeps a tool turn only while ``learn_from_tools`` is
    on; the job that holds it is refused once the switch is off."""
    turns = [
        {"role": "user", "content": PREFERENCE},
        {"role": "tool", "content": TOOL_OUTPUT},
    ]

    async def body(p: InProcess) -> None:
        await _consent(p, learn_from_tools=True)
        seen = _watch(p)
        jsonl = "".join(json.dumps(t) + "\n" for t in turns)
        out = await p.call("control", "extract.submit", {"jsonl": jsonl})
        assert out["queued"] is True
        logs = await _refused_after_withdrawal(p, seen)
        await _nothing_of_it_said(p, logs, turns)

    _in_process(where, body)


def test_a_job_without_tools_still_proposes_once_learn_from_tools_is_withdrawn(
    where: Path,
) -> None:
    """The refusal above is the tools': a task begun without ``tools_used``
    whose transcript holds no tool turn needs only ``contribute``."""

    async def body(p: InProcess) -> None:
        await _consent(p, learn_from_tools=True)
        seen = _watch(p)
        await _ended(p, [{"role": "user", "content": PREFERENCE}])
        await _consent(p, learn_from_tools=False)
        assert await _worker_step(p) is True
        [job] = await _jobs(p)
        assert seen == [["user"]]
        assert (job["state"], job["applied"]) == ("done", 1)

    _in_process(where, body)


def test_a_job_proposes_nothing_once_its_tasks_token_was_revoked(where: Path) -> None:
    """A token is revoked when what holds it can no longer be trusted: the
    transcript its task handed in before the revocation is one such thing's
    account, and the job proposes nothing from it (as every call with the
    token stops at once)."""
    turns = [{"role": "user", "content": PREFERENCE}]

    async def body(p: InProcess) -> None:
        holder = {"kind": "local", "subject": "revoked-later"}
        await _consent(p, holder)
        seen = _watch(p)
        issued = await p.call("control", "token.issue", {"identity": holder})
        await _ended(p, turns, token=issued["token"])
        await p.call("control", "token.revoke", {"token_id": issued["token_id"]})
        with capture_logs() as logs:
            assert await _worker_step(p) is True
        [job] = await _jobs(p)
        assert seen == [], f"the transcript went to the extractor: {seen}"
        assert (job["state"], job["last_error"]) == ("failed", "token_revoked")
        assert (job["applied"], job["proposed"]) == (0, 0)
        assert _transcripts_left(p) == 0
        listed = await p.call("control", "memory.list", {"identity": holder})
        assert listed["items"] == []
        await _nothing_of_it_said(p, logs, turns)

    _in_process(where, body)


def test_a_job_proposes_nothing_once_the_policy_no_longer_allows_its_extraction(
    where: Path,
) -> None:
    """The operator tightens the policy after a transcript was queued: the
    worker asks ``MemoryExtract`` again when it takes the job (decided and
    audited as at the submission), and a refusal fails the job unread."""
    turns = [{"role": "user", "content": PREFERENCE}]

    async def body(p: InProcess) -> None:
        await _consent(p)
        seen = _watch(p)
        await _ended(p, turns)
        (where / "policy.toml").write_text(
            FREE + '[[rule]]\nid = "no-extraction"\neffect = "deny"\n'
            'capability = "MemoryExtract"\nchannel = "agent"\n'
        )
        assert (await p.call("control", "policy.reload", {}))["loaded"]
        with capture_logs() as logs:
            assert await _worker_step(p) is True
        [job] = await _jobs(p)
        assert seen == [], f"the transcript went to the extractor: {seen}"
        assert (job["state"], job["last_error"]) == ("failed", "policy_denied")
        assert (job["applied"], job["proposed"]) == (0, 0)
        assert _transcripts_left(p) == 0
        decided = [
            json.loads(row.body)
            for row in p.store.audit_rows()
            if json.loads(row.body).get("capability") == "MemoryExtract"
        ]
        assert [(d["effect"], d["rule_ids"]) for d in decided][-1] == ("deny", ["no-extraction"])
        await _nothing_of_it_said(p, logs, turns)

    _in_process(where, body)
