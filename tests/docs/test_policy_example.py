"""docs/policy.md's example policy behaves as the page says, loaded from the page."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from memoryd.rpc.client import Client
from tests.docs.runner import blocks
from tests.harness import REPO, Daemon, entry, running


def example_policy() -> str:
    (block,) = [
        b
        for b in blocks(REPO / "docs" / "policy.md")
        if b.lang == "toml" and 'id = "facts-reviewed"' in b.text
    ]
    return block.text


@pytest.fixture(scope="module")
def d() -> Iterator[Daemon]:
    with running(policy=example_policy()) as daemon:
        yield daemon


@pytest.fixture
def c(d: Daemon) -> Iterator[Client]:
    with d.control() as client:
        yield client


def test_facts_reviewed_holds_the_operators_own_fact_writes(c: Client) -> None:
    out = c.call(
        "memory.write",
        {
            "action": "add",
            "scope": "project:acme",
            "entry": entry(title="Staging host", body="Staging is stg-2.", type_="fact"),
        },
    )
    assert out["outcome"] == "pending" and out["action_id"].startswith("act_")
    assert "facts-reviewed" in out["decision"]["rule_ids"]


def test_the_operators_other_writes_apply_at_once(c: Client) -> None:
    out = c.call(
        "memory.write",
        {
            "action": "add",
            "scope": "project:acme",
            "entry": entry(title="Upload test", body="Rerun it once.", type_="lesson"),
        },
    )
    assert out["outcome"] == "applied"
