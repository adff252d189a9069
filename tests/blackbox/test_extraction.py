"""Extraction from finished tasks over the real sockets (docs/extraction.md).

A transcript handed over at ``task.end`` (or by ``memctl extract submit``)
is queued, the worker proposes the user's durable statements as governed
writes, and nothing of the transcript outlives its job.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from memoryd.rpc.client import Client, RpcError
from tests.harness import (
    Daemon,
    backend,
    enable_consent,
    expect,
    exported_audit,
    fresh_identity,
    running,
)

CONFIG = (
    "[extract]\npoll_interval_s = 0.05\nmax_transcript_bytes = 8192\nmax_candidates = 4\n"
    "lease_s = 1.0\n"
)

PREFERENCE = "I prefer pytest over unittest for every new test module."
FACT = "We deploy the billing service with Argo CD from the main branch."
CHINESE = "以后请总是用中文回答我的问题。"
TRANSCRIPT = [
    {"role": "user", "content": f"Can you fix the flaky test? {PREFERENCE} Thanks."},
    {"role": "assistant", "content": "I prefer to run the whole suite first, then fix it."},
    {"role": "tool", "content": "We deploy everything by hand from a laptop (tool output)."},
    {"role": "user", "content": f"Looks good.\n{FACT}"},
    {"role": "user", "content": CHINESE},
]


@pytest.fixture(scope="module")
def d() -> Iterator[Daemon]:
    with running(config=CONFIG) as daemon:
        yield daemon


def owner_with_token(c: Client, **consent: bool) -> tuple[dict[str, str], str]:
    ident = fresh_identity("ex-")
    enable_consent(c, ident, **consent)
    token = c.call("token.issue", {"identity": ident})["token"]
    return ident, token


def wait_done(c: Client, job_id: str, ident: dict[str, str]) -> dict[str, Any]:
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        jobs = c.call("extract.status", {"identity": ident})["jobs"]
        job = next(j for j in jobs if j["job_id"] == job_id)
        if job["state"] not in ("queued", "running"):
            return job  # type: ignore[no-any-return]
        time.sleep(0.05)
    raise AssertionError("the extraction job did not end")


def pending_for(c: Client, owner: str) -> list[dict[str, Any]]:
    items = c.call("governance.action.list", {"status": "pending"})["items"]
    return [
        c.call("governance.action.get", {"action_id": i["action_id"]})
        for i in items
        if i["owner"] == owner
    ]


def end_with(a: Client, token: str, transcript: list[dict[str, Any]], **begin: Any) -> Any:
    task = a.call("task.begin", {"token": token, **begin})
    return task, a.call("task.end", {"task_id": task["task_id"], "transcript": transcript})


def test_a_finished_task_leaves_pending_proposals_in_the_users_own_words(
    c: Client, a: Client
) -> None:
    ident, token = owner_with_token(c)
    task, ended = end_with(a, token, TRANSCRIPT)
    assert ended["ended"] is True and ended["extraction"]["queued"] is True
    job = wait_done(c, ended["extraction"]["job_id"], ident)
    assert job["state"] == "done" and job["proposed"] == 3 and job["applied"] == 0
    actions = pending_for(c, task["owner"])
    bodies = {}
    for action in actions:
        entry = action["ops"][0]["entry"]
        basis = entry["basis"]
        assert basis["kind"] == "observed"
        turn = int(next(r for r in basis["refs"] if r.startswith("turn:"))[5:])
        start, end = map(
            int, next(r for r in basis["refs"] if r.startswith("span:"))[5:].split("-")
        )
        assert TRANSCRIPT[turn]["role"] == "user"
        assert TRANSCRIPT[turn]["content"][start:end] == entry["body"]
        assert f"task:{task['task_id']}" in basis["refs"]
        bodies[entry["body"]] = action
    assert set(bodies) == {PREFERENCE, FACT, CHINESE}
    # Approval applies it; a task of the owner then recalls it.
    approved = c.call("governance.action.approve", {"action_id": bodies[FACT]["action_id"]})
    assert approved["outcome"] == "applied"
    reader = a.call("task.begin", {"token": token})
    snap = a.call(
        "memory.context",
        {"task_id": reader["task_id"], "intent": "how do we deploy the billing service"},
    )
    assert any(card["id"] == approved["entries"][0]["id"] for card in snap["entries"])
    entry = a.call(
        "memory.read", {"task_id": reader["task_id"], "ids": [approved["entries"][0]["id"]]}
    )["entries"][0]
    assert entry["source"] == "extraction" and entry["body"] == FACT
    status = a.call("memory.status", {"task_id": reader["task_id"]})
    assert status["extraction"]["done"] == 1


def test_consent_off_submits_nothing(c: Client, a: Client) -> None:
    ident, token = owner_with_token(c, contribute=False)
    task, ended = end_with(a, token, TRANSCRIPT)
    assert ended["ended"] is True
    assert ended["extraction"] == {
        "queued": False,
        "job_id": None,
        "refused": "consent_required",
        "decision_id": ended["extraction"]["decision_id"],
    }
    assert c.call("extract.status", {"identity": ident})["jobs"] == []
    assert pending_for(c, task["owner"]) == []
    assert '"MemoryExtract"' in exported_audit(c)


@pytest.mark.parametrize("learn", [False, True])
def test_a_task_that_used_external_tools_submits_only_when_learning_from_tools(
    c: Client, a: Client, learn: bool
) -> None:
    # SPEC §7 and §11: a task begun with tools_used is eligible for
    # extraction only when learn_from_tools is on too, as for its writes.
    ident, token = owner_with_token(c, learn_from_tools=learn)
    _task, ended = end_with(a, token, TRANSCRIPT, tools_used=True)
    assert ended["extraction"]["queued"] is learn
    if learn:
        assert wait_done(c, ended["extraction"]["job_id"], ident)["state"] == "done"
    else:
        assert ended["extraction"]["refused"] == "consent_required"
        assert c.call("extract.status", {"identity": ident})["jobs"] == []


def test_a_subagents_task_never_submits(c: Client, a: Client) -> None:
    ident, token = owner_with_token(c)
    parent = a.call("task.begin", {"token": token})
    child = a.call(
        "task.begin", {"token": token, "role": "subagent", "parent_task": parent["task_id"]}
    )
    ended = a.call("task.end", {"task_id": child["task_id"], "transcript": TRANSCRIPT})
    assert ended["extraction"]["queued"] is False
    assert ended["extraction"]["refused"] == "read_only_task"
    assert c.call("extract.status", {"identity": ident})["jobs"] == []


def test_a_revoked_tokens_task_submits_nothing(c: Client, a: Client) -> None:
    ident, token = owner_with_token(c)
    task = a.call("task.begin", {"token": token})
    token_id = c.call("token.list", {"identity": ident})["items"][0]["token_id"]
    c.call("token.revoke", {"token_id": token_id})
    expect(
        -32001,
        "policy_denied",
        a.call,
        "task.end",
        {"task_id": task["task_id"], "transcript": TRANSCRIPT},
    )
    assert c.call("extract.status", {"identity": ident})["jobs"] == []


def test_a_malformed_transcript_is_refused_by_line_and_changes_nothing(
    c: Client, a: Client
) -> None:
    ident, token = owner_with_token(c)
    task = a.call("task.begin", {"token": token})
    bad = [*TRANSCRIPT[:2], {"role": "system", "content": "x"}]
    expect(
        -32602,
        "invalid_params",
        a.call,
        "task.end",
        {"task_id": task["task_id"], "transcript": bad},
    )
    lines = (
        b'{"role": "user", "content": "I prefer tabs over spaces in every file."}\n'
        b'\n{"role": "user", "content": "fine"}\n{"role": "user", "content": 3}\n'
    )
    err = expect(
        -32602,
        "invalid_params",
        c.call,
        "extract.submit",
        {"identity": ident, "jsonl": lines.decode()},
    )
    assert err.data["errors"][0]["line"] == "4"
    assert "tabs" not in str(err.data)
    assert c.call("extract.status", {"identity": ident})["jobs"] == []
    # The refused call left the task open: it ends now.
    assert a.call("task.end", {"task_id": task["task_id"]})["ended"] is True


def test_a_turn_holding_a_unicode_line_separator_is_one_line_of_the_transcript(
    c: Client, a: Client
) -> None:
    # JSON allows U+2028, U+2029 and U+0085 unescaped inside a string (and
    # json.dumps(ensure_ascii=False) writes them so): they end no line of a
    # JSON Lines file, whose lines end at "\n" only ("\r\n" too: the "\r"
    # is JSON whitespace).
    ident, _token = owner_with_token(c)
    said = "From now on, always deploy\u2028with the blue\u2029green\u0085switch."
    lines = json.dumps({"role": "user", "content": said}, ensure_ascii=False) + "\r\n"
    lines += json.dumps({"role": "assistant", "content": "Noted."}, ensure_ascii=False)
    out = c.call("extract.submit", {"identity": ident, "jsonl": lines})
    assert out["queued"] is True
    job = wait_done(c, out["job_id"], ident)
    assert job["turns"] == 2 and job["state"] == "done"


@pytest.mark.parametrize(
    "line",
    [
        '{"role": "user", "content": "x", "ts": ' + "[" * 3_000 + "]" * 3_000 + "}",
        "[" * 4_000,
    ],
    ids=["deep-ts", "deep-line"],
)
def test_a_transcript_line_nested_too_deep_is_invalid_params_naming_its_line(
    c: Client, line: str
) -> None:
    ident, _token = owner_with_token(c)
    lines = '{"role": "user", "content": "I prefer tabs over spaces in every file."}\n' + line
    err = expect(
        -32602, "invalid_params", c.call, "extract.submit", {"identity": ident, "jsonl": lines}
    )
    assert err.data["errors"][0]["line"] == "2"
    assert c.call("extract.status", {"identity": ident})["jobs"] == []


def test_a_transcript_over_the_cap_is_transcript_too_large(c: Client, a: Client) -> None:
    ident, token = owner_with_token(c)
    task = a.call("task.begin", {"token": token})
    big = [{"role": "user", "content": "I prefer long sentences. " * 400}]
    expect(
        -32005,
        "transcript_too_large",
        a.call,
        "task.end",
        {"task_id": task["task_id"], "transcript": big},
    )
    assert c.call("extract.status", {"identity": ident})["jobs"] == []


def test_a_candidate_repeating_an_active_entry_is_dropped(c: Client, a: Client) -> None:
    ident, token = owner_with_token(c)
    c.call(
        "memory.write",
        {
            "identity": ident,
            "action": "add",
            "entry": {"type": "preference", "title": "Test runner", "body": PREFERENCE},
        },
    )
    task, ended = end_with(a, token, TRANSCRIPT[:1])
    job = wait_done(c, ended["extraction"]["job_id"], ident)
    assert (job["candidates"], job["dropped"], job["proposed"]) == (1, 1, 0)
    assert pending_for(c, task["owner"]) == []


def test_a_statement_under_an_entrys_title_is_proposed_as_its_supersede(
    c: Client, a: Client
) -> None:
    ident, token = owner_with_token(c)
    task = a.call("task.begin", {"token": token})
    first = c.call(
        "memory.write",
        {
            "identity": ident,
            "action": "add",
            "entry": {
                "type": "preference",
                "title": "I prefer pytest over unittest for every new…",
                "body": "The user prefers unittest.",
            },
        },
    )["entries"][0]
    a.call("task.end", {"task_id": task["task_id"]})
    _task, ended = end_with(a, token, TRANSCRIPT[:1])
    job = wait_done(c, ended["extraction"]["job_id"], ident)
    assert job["proposed"] == 1
    [action] = pending_for(c, task["owner"])
    op = action["ops"][0]
    assert (op["action"], op["entry_id"], op["expected_revision"]) == (
        "supersede",
        first["id"],
        first["revision"],
    )
    assert op["entry"]["body"] == PREFERENCE
    assert (
        c.call("governance.action.approve", {"action_id": action["action_id"]})["outcome"]
        == "applied"
    )
    old = c.call("memory.read", {"identity": ident, "ids": [first["id"]]})["entries"][0]
    assert old["status"] == "superseded"


def test_memctl_extract_submit_queues_a_file_for_an_identity(
    d: Daemon, c: Client, tmp_path: Path
) -> None:
    ident, _token = owner_with_token(c)
    path = tmp_path / "session.jsonl"
    path.write_text(
        '{"role": "user", "content": "From now on, always use ruff for linting Python code."}\n'
    )
    out = d.memctl(
        "extract",
        "submit",
        str(path),
        "--identity-kind",
        ident["kind"],
        "--identity-subject",
        ident["subject"],
        "--json",
    )
    assert out.returncode == 0, out.stderr
    status = d.memctl(
        "extract",
        "status",
        "--identity-kind",
        ident["kind"],
        "--identity-subject",
        ident["subject"],
        "--json",
    )
    assert b"ext_" in status.stdout


def test_drop_ends_an_open_job_and_retry_refuses_an_ended_one(c: Client, a: Client) -> None:
    ident, token = owner_with_token(c)
    _task, ended = end_with(a, token, TRANSCRIPT[:1])
    job_id = ended["extraction"]["job_id"]
    job = wait_done(c, job_id, ident)
    expect(-32002, "extract_job_state", c.call, "extract.retry", {"job_id": job_id})
    expect(-32002, "extract_job_state", c.call, "extract.drop", {"job_id": job_id})
    expect(-32003, "extract_job_not_found", c.call, "extract.drop", {"job_id": "ext_nothing"})
    assert job["state"] == "done"


def test_extract_methods_are_not_on_the_agent_socket(a: Client) -> None:
    with pytest.raises(RpcError) as err:
        a.call("extract.status", {})
    assert err.value.code == -32601


CANARIES = (
    "zebracanaryassistant",
    "zebracanarytool",
    "zebracanaryquestion",
    "zebracanarydropped",
    "zebracanarybeside",
)


def test_no_transcript_text_outlives_its_job(d: Daemon, c: Client, a: Client) -> None:
    ident, token = owner_with_token(c)
    transcript = [
        {"role": "user", "content": "Could you check the zebracanaryquestion build?"},
        {"role": "assistant", "content": "I prefer zebracanaryassistant, it is what we use."},
        {"role": "tool", "content": "We use zebracanarytool for every deploy of the service."},
        {"role": "user", "content": "ok zebracanarydropped"},
        # The evidence of a proposal is this whole turn: only its keyed hash
        # is kept, so the words beside the proposed sentence are not.
        {"role": "user", "content": f"Hmm zebracanarybeside. {PREFERENCE}"},
    ]
    _task, ended = end_with(a, token, transcript)
    job = wait_done(c, ended["extraction"]["job_id"], ident)
    assert job["state"] == "done" and job["proposed"] == 1
    seen = [
        d.log(),
        exported_audit(c),
        str(c.call("extract.status", {})),
        str(c.call("memory.status", {"identity": ident})),
    ]
    for text in seen:
        for canary in CANARIES:
            assert canary not in text
    if backend() == "sqlite":
        for name in ("memory.db", "memory.db-wal"):
            path = d.home / name
            data = path.read_bytes() if path.exists() else b""
            for canary in CANARIES:
                assert canary.encode() not in data, (name, canary)


def test_a_kill_mid_queue_loses_no_job_and_proposes_nothing_twice() -> None:
    policy = (
        '[[rule]]\nid = "extracted-free"\neffect = "allow"\n'
        'capability = "MemoryWrite"\nchannel = "agent"\n'
    )
    with running(config=CONFIG, policy=policy) as daemon:
        with daemon.control() as c, daemon.agent() as a:
            ident, token = owner_with_token(c)
            jobs = [end_with(a, token, TRANSCRIPT)[1]["extraction"]["job_id"] for _ in range(3)]
        daemon.kill()
        daemon.start()
        with daemon.control() as c:
            done = [wait_done(c, job_id, ident) for job_id in jobs]
            assert all(j["state"] == "done" for j in done)
            # The same three statements each time: applied once, then
            # dropped as repeats of the active entries, never twice.
            assert sum(j["applied"] for j in done) == 3
            listed = c.call("memory.list", {"identity": ident})["items"]
            ids = [item["id"] for item in listed]
            read = c.call("memory.read", {"identity": ident, "ids": ids})["entries"]
            assert sorted(e["body"] for e in read) == sorted([PREFERENCE, FACT, CHINESE])
