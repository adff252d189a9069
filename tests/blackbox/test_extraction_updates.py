"""Extracted statements that update an active entry, over the real sockets
(docs/extraction.md, "Updates and repeats").

A user's statement that gives a new value for what an active entry of the
same scope and type says is proposed as a ``supersede`` of that entry; one
that repeats it is dropped and counted; one that merely shares words with
it is an ordinary ``add``.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from memoryd.rpc.client import Client
from tests.blackbox.test_extraction import (
    CONFIG,
    end_with,
    owner_with_token,
    pending_for,
    wait_done,
)
from tests.harness import Daemon, exported_audit, running

OLD_PORT = "Our staging database listens on port 5432."
NEW_PORT = "Our staging database now listens on port 6432."
PREFERRED = "I prefer pytest fixtures over setUp methods in every test file."
PARAPHRASE = "In every test file, I'd rather use pytest fixtures than setUp methods."


@pytest.fixture(scope="module")
def d() -> Iterator[Daemon]:
    with running(config=CONFIG) as daemon:
        yield daemon


def seed(
    c: Client, ident: dict[str, str], kind: str, title: str, body: str, scope: str = "default"
) -> dict[str, Any]:
    return c.call(
        "memory.write",
        {
            "identity": ident,
            "action": "add",
            "scope": scope,  # type: ignore[no-any-return]
            "entry": {"type": kind, "title": title, "body": body},
        },
    )["entries"][0]


def only_op(c: Client, owner: str) -> tuple[dict[str, Any], dict[str, Any]]:
    [action] = pending_for(c, owner)
    return action, action["ops"][0]


def extracted(
    c: Client, a: Client, ident: dict[str, str], token: str, *said: str
) -> tuple[dict[str, Any], dict[str, Any]]:
    task, ended = end_with(a, token, [{"role": "user", "content": s} for s in said])
    return task, wait_done(c, ended["extraction"]["job_id"], ident)


def test_a_new_value_for_an_entrys_subject_is_proposed_as_its_supersede(
    c: Client, a: Client
) -> None:
    ident, token = owner_with_token(c)
    first = seed(c, ident, "fact", "Staging database port", OLD_PORT)
    task, job = extracted(c, a, ident, token, f"Heads up. {NEW_PORT}")
    assert (job["state"], job["proposed"], job["dropped"]) == ("done", 1, 0)
    action, op = only_op(c, task["owner"])
    assert (op["action"], op["entry_id"], op["expected_revision"]) == (
        "supersede",
        first["id"],
        first["revision"],
    )
    assert op["entry"]["body"] == NEW_PORT
    approved = c.call("governance.action.approve", {"action_id": action["action_id"]})
    assert approved["outcome"] == "applied"
    # The old entry at its next revision (superseded), then the new one.
    old_ref, new_ref = approved["entries"]
    assert old_ref["id"] == first["id"]
    # Recall now shows the new value, and not the old one.
    reader = a.call("task.begin", {"token": token})
    snap = a.call(
        "memory.context",
        {"task_id": reader["task_id"], "intent": "which port does the staging database use"},
    )
    ids = [card["id"] for card in snap["entries"]]
    assert new_ref["id"] in ids and first["id"] not in ids
    bodies = [
        e["body"]
        for e in a.call("memory.read", {"task_id": reader["task_id"], "ids": ids})["entries"]
    ]
    assert NEW_PORT in bodies and OLD_PORT not in bodies
    old = c.call("memory.read", {"identity": ident, "ids": [first["id"]]})["entries"][0]
    assert old["status"] == "superseded"


def test_a_changed_preference_is_proposed_as_a_supersede(c: Client, a: Client) -> None:
    ident, token = owner_with_token(c)
    first = seed(
        c, ident, "preference", "Indentation", "I prefer tabs for indentation in every file."
    )
    task, job = extracted(
        c, a, ident, token, "Actually I prefer spaces for indentation in every file."
    )
    assert job["proposed"] == 1
    _action, op = only_op(c, task["owner"])
    assert (op["action"], op["entry_id"]) == ("supersede", first["id"])


def test_a_chinese_statement_that_switches_tools_is_proposed_as_a_supersede(
    c: Client, a: Client
) -> None:
    ident, token = owner_with_token(c)
    first = seed(c, ident, "fact", "依赖管理", "我们用 pnpm 管理依赖。")
    task, job = extracted(c, a, ident, token, "我们改用 yarn 管理依赖了。")
    assert job["proposed"] == 1
    _action, op = only_op(c, task["owner"])
    assert (op["action"], op["entry_id"]) == ("supersede", first["id"])
    assert op["entry"]["body"] == "我们改用 yarn 管理依赖了。"


def test_an_unrelated_statement_sharing_words_is_a_plain_add(c: Client, a: Client) -> None:
    ident, token = owner_with_token(c)
    seed(
        c,
        ident,
        "fact",
        "Billing deploys",
        "We deploy the billing service with Argo CD from the main branch.",
    )
    seed(c, ident, "fact", "Staging database port", OLD_PORT)
    task, job = extracted(
        c,
        a,
        ident,
        token,
        "We deploy the search service with Jenkins from the release branch.",
        # Another database, the same port: a second fact, not a new value.
        "Our production database listens on port 5432.",
    )
    assert job["proposed"] == 2
    ops = [action["ops"][0] for action in pending_for(c, task["owner"])]
    assert [op["action"] for op in ops] == ["add", "add"]
    assert all(op["entry_id"] is None for op in ops)


def test_an_entry_of_another_scope_or_type_is_not_superseded(c: Client, a: Client) -> None:
    ident, token = owner_with_token(c)
    seed(c, ident, "fact", "Staging database port", OLD_PORT, scope="project:other")
    seed(c, ident, "lesson", "Staging port lesson", OLD_PORT)
    task, job = extracted(c, a, ident, token, NEW_PORT)
    assert job["proposed"] == 1
    _action, op = only_op(c, task["owner"])
    assert (op["action"], op["entry_id"]) == ("add", None)


def test_a_restated_entry_is_dropped_and_counted(c: Client, a: Client) -> None:
    ident, token = owner_with_token(c)
    seed(c, ident, "fact", "Dependencies", "We use pnpm to manage dependencies in this repo.")
    task, job = extracted(
        c, a, ident, token, "We now use pnpm to manage dependencies in this repo!"
    )
    assert (job["candidates"], job["proposed"], job["dropped"]) == (1, 0, 1)
    assert pending_for(c, task["owner"]) == []
    jobs = c.call("extract.status", {"identity": ident})["jobs"]
    assert next(j for j in jobs if j["job_id"] == job["job_id"])["dropped"] == 1


def test_an_update_leaves_no_transcript_text_behind(d: Daemon, c: Client, a: Client) -> None:
    ident, token = owner_with_token(c)
    seed(c, ident, "fact", "Staging database port", OLD_PORT)
    _task, job = extracted(
        c, a, ident, token, f"Hmm zebracanaryupdate. {NEW_PORT}", "ok zebracanaryother"
    )
    assert job["proposed"] == 1
    seen = [
        d.log(),
        exported_audit(c),
        str(c.call("extract.status", {})),
        str(c.call("memory.status", {"identity": ident})),
    ]
    for text in seen:
        for secret in ("zebracanaryupdate", "zebracanaryother", NEW_PORT, OLD_PORT):
            assert secret not in text


def test_without_the_semantic_extra_a_paraphrase_is_an_add(c: Client, a: Client) -> None:
    # Its words differ: only the model's embeddings tell it is a repeat
    # (tests/blackbox/test_extraction_semantic.py).
    ident, token = owner_with_token(c)
    seed(c, ident, "preference", "Fixtures", PREFERRED)
    task, job = extracted(c, a, ident, token, PARAPHRASE)
    assert (job["proposed"], job["dropped"]) == (1, 0)
    _action, op = only_op(c, task["owner"])
    assert (op["action"], op["entry"]["body"]) == ("add", PARAPHRASE)
