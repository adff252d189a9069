"""What ``refresh: "compaction"`` answers, as docs/recall.md says: the same
snapshot when nothing it holds changed, a new one when something did."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.harness import REPO, Daemon, enable_consent, entry, running


@pytest.fixture(scope="module")
def d() -> Iterator[Daemon]:
    with running() as daemon:
        yield daemon


def test_a_compaction_refresh_keeps_an_unchanged_snapshot_and_replaces_a_changed_one(
    d: Daemon,
) -> None:
    with d.control() as c:
        enable_consent(c)
        c.call("memory.write", {"action": "add", "entry": entry("Editor", "Vim keybindings.")})
    with d.agent() as a:
        task = a.call("task.begin", {})["task_id"]
        first = a.call("memory.context", {"task_id": task, "intent": "editor setup"})
        same = a.call(
            "memory.context", {"task_id": task, "intent": "editor setup", "refresh": "compaction"}
        )
        assert same["snapshot_id"] == first["snapshot_id"]
        with d.control() as c:
            c.call(
                "memory.write",
                {"action": "add", "entry": entry("Editor font", "Editor font is Iosevka.")},
            )
        changed = a.call(
            "memory.context", {"task_id": task, "intent": "editor setup", "refresh": "compaction"}
        )
        assert changed["snapshot_id"] != first["snapshot_id"]


def test_the_recall_page_says_an_unchanged_refresh_keeps_its_snapshot() -> None:
    text = " ".join((REPO / "docs" / "recall.md").read_text(encoding="utf-8").split()).lower()
    assert "freezes exactly one new snapshot per call" not in text
    assert (
        "a refresh that would freeze exactly what the task already holds keeps that "
        "snapshot (same `snapshot_id`)"
    ) in text
