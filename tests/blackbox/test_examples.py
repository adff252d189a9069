"""The runnable examples of the docs, run as a reader would run them,
against a real daemon."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from types import ModuleType
from typing import Any

import msgspec
import pytest

from memoryd.rpc.client import Client
from tests.harness import REPO, Daemon, enable_consent, running

RUNNER = REPO / "examples" / "agent_runner.py"


@pytest.fixture(scope="module")
def d() -> Any:
    with running() as daemon:
        with daemon.control() as c:
            enable_consent(c)
        yield daemon


def load_runner() -> ModuleType:
    spec = importlib.util.spec_from_file_location("agent_runner", RUNNER)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def pending_actions(d: Daemon) -> set[str]:
    with d.control() as c:
        items = c.call("governance.action.list", {"status": "pending"})["items"]
    return {item["action_id"] for item in items}


def agent_runner(d: Daemon, *args: str) -> dict[str, Any]:
    done = subprocess.run(
        [sys.executable, str(RUNNER), "--home", str(d.home), "--json", *args],
        capture_output=True,
        env=d.env,
        cwd=REPO,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr.decode(errors="replace")
    report: dict[str, Any] = msgspec.json.decode(done.stdout)
    return report


def test_agent_runner_puts_the_fenced_context_into_its_prompt(d: Daemon) -> None:
    report = agent_runner(d, "--intent", "fix the build")
    assert "<<<memoryd:evidence begin" in report["prompt"]
    assert report["prompt"].rstrip().endswith("Task: fix the build")


def test_agent_runner_write_waits_for_the_operators_approval(d: Daemon) -> None:
    report = agent_runner(
        d,
        "--intent",
        "deploy acme",
        "--remember",
        "Deploy day",
        "Deploys of the acme service happen on Tuesdays.",
    )
    assert report["write"]["outcome"] == "pending"
    assert report["write"]["action_id"] in pending_actions(d)


def test_a_retried_proposal_returns_the_first_answer(d: Daemon) -> None:
    runner = load_runner()
    with Client(d.agent_path) as client:
        task_id = client.call("task.begin", {})["task_id"]
        first = runner.remember(
            client, task_id, "Retry note", "Retries reuse their key.", "run-retry-1"
        )
        again = runner.remember(
            client, task_id, "Retry note", "Retries reuse their key.", "run-retry-1"
        )
        client.call("task.end", {"task_id": task_id})
    assert first["outcome"] == "pending"
    assert again == first


def test_an_approved_lesson_is_recalled_by_the_next_run(d: Daemon) -> None:
    proposed = agent_runner(
        d,
        "--intent",
        "release",
        "--remember",
        "Release freeze",
        "No releases of the acme service on Fridays.",
    )
    approved = d.memctl("approve", proposed["write"]["action_id"])
    assert approved.returncode == 0, approved.stderr
    report = agent_runner(d, "--intent", "plan the acme release on friday")
    assert "Release freeze" in report["cards"]
    assert "No releases of the acme service on Fridays." in report["prompt"]
