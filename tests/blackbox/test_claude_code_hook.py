"""contrib/claude-code/memoryd_hook.py: a Claude Code session's transcript
file becomes memoryd turns, and the hook submits it for extraction."""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
import time
from collections.abc import Iterator
from types import ModuleType

import pytest

from tests.harness import REPO, Daemon, enable_consent, running

HOOK = REPO / "contrib" / "claude-code" / "memoryd_hook.py"
SESSION = REPO / "tests" / "data" / "extraction" / "claude_code_session.jsonl"
PREFERENCE = "I prefer pytest fixtures over setUp methods in every test file."
LESSON = "Turns out the test depended on the wall clock, so inject the clock instead."


def hook_module() -> ModuleType:
    spec = importlib.util.spec_from_file_location("memoryd_hook", HOOK)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_a_claude_code_transcript_reads_as_user_assistant_and_tool_turns() -> None:
    with SESSION.open(encoding="utf-8") as fh:
        got = list(hook_module().turns(fh))
    assert [(t["role"], t["content"]) for t in got] == [
        ("user", f"The checkout test is flaky again. {PREFERENCE}"),
        ("assistant", "I will look at the test. We use a fixture for the clock."),
        ("tool", "We use random seed 7. 1 failed, 40 passed"),
        ("user", LESSON),
    ]
    assert got[0]["ts"] == "2026-12-01T09:00:01.000Z"


def _line(content: str, **marks: bool) -> str:
    return json.dumps(
        {
            "type": "user",
            **marks,
            "message": {"role": "user", "content": content},
            "timestamp": "2026-12-01T10:00:00.000Z",
        }
    )


def test_a_compaction_summary_is_never_read_as_the_users_turn() -> None:
    """When Claude Code compacts a session it writes the model's summary of
    everything so far (what the assistant and its tools said) as a ``user``
    line marked ``isCompactSummary``: it is no turn of the user's, and
    nothing an assistant or a tool said may become a memory."""
    tool_said = "We deploy every service by hand from the release laptop."
    summary = (
        "This session is being continued from a previous conversation that ran out of"
        f" context. The conversation is summarized below:\n1. The web page said: {tool_said}"
    )
    lines = [
        _line(summary, isCompactSummary=True, isVisibleInTranscriptOnly=True),
        _line(summary, isVisibleInTranscriptOnly=True),
        _line(PREFERENCE),
    ]
    got = list(hook_module().turns(lines))
    assert got == [{"role": "user", "content": PREFERENCE, "ts": "2026-12-01T10:00:00.000Z"}]


def test_a_shell_commands_output_the_user_ran_is_a_tool_turn() -> None:
    """Output of a command the user ran from the prompt (``!cmd``) or of a
    local slash command is what a program printed, not the user's words."""
    printed = "deploy.sh: every service deployed by hand"
    lines = [
        _line("<bash-input>./deploy.sh</bash-input>"),
        _line(f"<bash-stdout>{printed}</bash-stdout><bash-stderr></bash-stderr>"),
        _line(f"<local-command-stdout>{printed}</local-command-stdout>"),
    ]
    got = list(hook_module().turns(lines))
    assert [t["role"] for t in got] == ["user", "tool", "tool"]


@pytest.fixture(scope="module")
def d() -> Iterator[Daemon]:
    with running(config="[extract]\npoll_interval_s = 0.05\n") as daemon:
        yield daemon


def run_hook(d: Daemon, payload: bytes) -> subprocess.CompletedProcess[bytes]:
    env = {**d.env, "MEMORYD_HOME": str(d.home), "MEMCTL": f"{sys.executable} -m memoryd.memctl"}
    return subprocess.run(
        [sys.executable, str(HOOK)],
        input=payload,
        env=env,
        capture_output=True,
        timeout=120,
        check=False,
    )


def test_the_session_end_hook_submits_the_session_for_extraction(d: Daemon) -> None:
    with d.control() as c:
        enable_consent(c)
        done = run_hook(
            d,
            json.dumps({"hook_event_name": "SessionEnd", "transcript_path": str(SESSION)}).encode(),
        )
        assert done.returncode == 0 and done.stderr == b"", done.stderr
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            jobs = c.call("extract.status", {})["jobs"]
            if jobs and jobs[0]["state"] == "done":
                break
            time.sleep(0.05)
        assert jobs[0]["state"] == "done" and jobs[0]["proposed"] == 2
        bodies = set()
        for item in c.call("governance.action.list", {"status": "pending"})["items"]:
            action = c.call("governance.action.get", {"action_id": item["action_id"]})
            bodies.add(action["ops"][0]["entry"]["body"])
        assert bodies == {PREFERENCE, LESSON}


def test_the_hook_never_fails_the_session(d: Daemon) -> None:
    missing = str(SESSION.parent / "missing.jsonl")
    for payload in (b"not json", json.dumps({"transcript_path": missing}).encode()):
        done = run_hook(d, payload)
        assert done.returncode == 0
        assert b"memoryd hook:" in done.stderr
