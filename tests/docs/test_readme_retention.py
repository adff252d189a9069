"""A newcomer reads in the README that memories expire and are then purged,
with the figures the daemon uses, and that a pinned entry never expires."""

from __future__ import annotations

from memoryd.daemon.config import RetentionConfig
from memoryd.kernel.retention import DEFAULT_TTL_DAYS
from tests.harness import REPO


def test_the_readme_says_memories_expire_and_when() -> None:
    text = " ".join((REPO / "README.md").read_text(encoding="utf-8").split())
    low, high = min(DEFAULT_TTL_DAYS.values()), max(DEFAULT_TTL_DAYS.values())
    grace = RetentionConfig().purge_grace_days
    assert f"expire {int(low)}–{int(high)} days after their last update" in text
    assert f"purged {int(grace)} days later" in text
    assert "A pinned entry (`memctl write --pinned`) never expires" in text
    assert "`never (pinned)`" in text
    assert "memctl show ID" in text
