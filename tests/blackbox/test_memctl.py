"""The operator's day with memctl, against a real daemon: the README's quickstart.

Every step runs the real ``memctl`` command line, a new process each, on the
daemon's home; the agent's side speaks to ``agent.sock`` with the project's
client.
"""

from __future__ import annotations

import json
import subprocess
from typing import Any

import pytest

from tests.harness import MEMCTL, REPO, Daemon

ALICE = ["--identity-kind", "token", "--identity-subject", "alice"]


def _ok(d: Daemon, *args: str, input: bytes | None = None) -> str:
    done = d.memctl(*args, input=input, process=True)
    assert done.returncode == 0, (args, done.stdout, done.stderr)
    return done.stdout.decode()


def _json(d: Daemon, *args: str) -> Any:
    return json.loads(_ok(d, *args, "--json"))


@pytest.fixture(scope="module")
def agent_task(d: Daemon) -> dict[str, Any]:
    """The quickstart's set-up: consent on for alice, a token, a task on agent.sock."""
    _ok(d, "consent", "set", "--read", "on", "--contribute", "on", *ALICE)
    issued = _json(d, "token", "issue", "--kind", "token", "--subject", "alice")
    with d.agent() as a:
        task = a.call("task.begin", {"token": issued["token"]})
    # A token task is bound to its token: a later connection presents it again.
    return {**task, "token": issued["token"]}


def _propose(d: Daemon, task: dict[str, Any], title: str, body: str) -> str:
    with d.agent() as a:
        a.call("task.resume", {"task_id": task["task_id"], "token": task["token"]})
        out = a.call(
            "memory.write",
            {
                "task_id": task["task_id"],
                "target": "memory",
                "action": "add",
                "entry": {"type": "preference", "title": title, "body": body},
            },
        )
    assert out["outcome"] == "pending"
    return str(out["action_id"])


def test_consent_set_is_shown_by_consent(d: Daemon, agent_task: dict[str, Any]) -> None:
    shown = _json(d, "consent", *ALICE)
    assert (shown["read"], shown["contribute"], shown["learn_from_tools"]) == (True, True, False)
    assert "memory.write" in agent_task["grants"]


def test_quickstart_proposal_waits_then_approval_applies_it(
    d: Daemon, agent_task: dict[str, Any]
) -> None:
    action_id = _propose(d, agent_task, "Editor", "Prefers vim keybindings.")
    listed = _ok(d, "pending")
    assert action_id in listed
    assert "vim" not in listed  # the pending list carries no memory text
    assert "vim keybindings" in _ok(d, "action", action_id)  # the proposal in full
    applied = _json(d, "approve", action_id)
    assert applied["outcome"] == "applied"
    entry_id = applied["entries"][0]["id"]
    assert entry_id in _ok(d, "ls", *ALICE)
    assert "Prefers vim keybindings." in _ok(d, "show", entry_id, *ALICE)
    verify = d.memctl("audit", "verify", process=True)
    assert verify.returncode == 0, verify.stderr


def test_deny_leaves_nothing_applied(d: Daemon, agent_task: dict[str, Any]) -> None:
    action_id = _propose(d, agent_task, "Shell", "Uses fish.")
    _ok(d, "deny", action_id)
    assert "Shell" not in _ok(d, "ls", *ALICE)
    again = d.memctl("approve", action_id, process=True)
    assert again.returncode != 0
    assert b"already_decided" in again.stderr


def test_ls_search_finds_by_words_in_the_body(d: Daemon) -> None:
    _ok(
        d,
        "write",
        "--type",
        "fact",
        "--title",
        "Deploy window",
        "--body-file",
        "-",
        input=b"Deploys happen on Tuesdays after the standup.",
    )
    found = _json(d, "ls", "--search", "tuesdays")
    assert found["mode"] == "search"
    assert [i["title"] for i in found["items"]] == ["Deploy window"]


def test_ls_pages_with_cursor(d: Daemon) -> None:
    for i in range(3):
        _ok(
            d,
            "write",
            "--type",
            "fact",
            "--title",
            f"Page note {i}",
            "--body-file",
            "-",
            input=f"Note number {i} for paging.".encode(),
        )
    first = _json(d, "ls", "--page-size", "2")
    assert first["next_cursor"]
    second = _json(d, "ls", "--cursor", first["next_cursor"])
    assert {i["id"] for i in first["items"]}.isdisjoint({i["id"] for i in second["items"]})


def test_context_previews_what_an_agent_would_see(d: Daemon) -> None:
    _ok(d, "consent", "set", "--read", "on")
    _ok(
        d,
        "write",
        "--type",
        "procedure",
        "--title",
        "Release checklist",
        "--body-file",
        "-",
        input=b"Tag the release, then publish the changelog.",
    )
    preview = _json(d, "context", "--intent", "how do we cut a release")
    assert any(card["title"] == "Release checklist" for card in preview["entries"])
    assert "begin" in preview["rendered"] and "end" in preview["rendered"]


def test_audit_export_prints_one_json_event_per_line(d: Daemon) -> None:
    lines = _ok(d, "audit", "export").splitlines()
    events = [json.loads(line) for line in lines]
    assert [e["seq"] for e in events] == list(range(1, len(events) + 1))
    assert {"decision", "operation", "action_approved"} <= {e["kind"] for e in events}


def test_scan_names_the_rule_and_offsets_without_the_secret(d: Daemon) -> None:
    key = "AKIA" + "Q7ZJ2M4N6P8R1T3V"
    done = d.memctl("scan", input=f"our deploy key is {key} for now".encode(), process=True)
    assert done.returncode == 1
    out = done.stdout + done.stderr
    assert b"secret_detected" in out
    assert key.encode() not in out


def test_scan_of_ordinary_text_is_clean(d: Daemon) -> None:
    done = d.memctl("scan", input=b"The user prefers dark mode in every editor.", process=True)
    assert done.returncode == 0, done.stdout + done.stderr


def test_memctl_without_a_daemon_says_so(tmp_path: Any) -> None:
    done = Daemon(tmp_path / "nothing").memctl("status", process=True)
    assert done.returncode != 0
    assert b"not running" in done.stderr


def test_terminal_escapes_never_reach_the_store(d: Daemon) -> None:
    # A body carrying an escape sequence would reach the operator's terminal
    # through `memctl show`; the scanner refuses it as a control character.
    done = d.memctl(
        "write",
        "--type",
        "fact",
        "--title",
        "Colours",
        "--body-file",
        "-",
        input=b"red \x1b[31mtext\x1b[0m",
        process=True,
    )
    assert done.returncode != 0
    assert b"invisible_unicode" in done.stderr


def test_team_ls_names_members_with_their_token_labels(d: Daemon) -> None:
    issued = _json(
        d, "token", "issue", "--kind", "local", "--subject", "dora", "--label", "dora-desktop"
    )
    _ok(d, "team", "create", "ops")
    _ok(d, "team", "add", "ops", "--identity-kind", "local", "--identity-subject", "dora")
    listed = _ok(d, "team", "ls")
    assert f"{issued['owner'][:12]}… (tokens: dora-desktop)" in listed
    assert "token:dora-desktop (own_" not in listed


def test_status_says_which_ranker_runs_and_why(d: Daemon) -> None:
    # The test daemon ranks lexically by configuration ([recall] ranker = "lexical").
    shown = _ok(d, "status")
    assert (
        "recall:            lexical (switched off in memoryd.toml: [recall] ranker = lexical)"
        in shown
    )


def _erin_task(d: Daemon) -> dict[str, Any]:
    erin = ["--identity-kind", "local", "--identity-subject", "erin"]
    _ok(d, "consent", "set", "--read", "on", "--contribute", "on", *erin)
    issued = _json(
        d, "token", "issue", "--kind", "local", "--subject", "erin", "--label", "erin-laptop"
    )
    with d.agent() as a:
        task = a.call("task.begin", {"token": issued["token"]})
    return {**task, "token": issued["token"]}


def _status_of(d: Daemon, action_id: str) -> str:
    with d.control() as c:
        return str(c.call("governance.action.get", {"action_id": action_id})["status"])


def test_approve_and_deny_take_several_ids(d: Daemon, agent_task: dict[str, Any]) -> None:
    first, second, third = (
        _propose(d, agent_task, f"Several {n}", f"Body of note {n}.") for n in range(3)
    )
    denied = d.memctl("deny", first, second, "--reason", "not needed", process=True)
    assert denied.returncode == 0, denied.stderr
    out = denied.stdout.decode()
    assert f"denied {first}" in out and f"denied {second}" in out
    assert (_status_of(d, first), _status_of(d, second)) == ("denied", "denied")
    approved = d.memctl("approve", third, process=True)
    assert approved.returncode == 0, approved.stderr
    assert _status_of(d, third) == "approved"


def test_one_failed_id_among_several_is_reported_and_the_rest_are_decided(
    d: Daemon, agent_task: dict[str, Any]
) -> None:
    real = _propose(d, agent_task, "Among several", "Still decided.")
    done = d.memctl("deny", "act_doesnotexist", real, process=True)
    assert done.returncode != 0
    assert b"act_doesnotexist" in done.stderr and b"action_not_found" in done.stderr
    assert _status_of(d, real) == "denied"


def test_pending_fits_the_terminal_and_shows_titles(d: Daemon, agent_task: dict[str, Any]) -> None:
    action_id = _propose(
        d,
        agent_task,
        "A rather long title about the build cache and why it must be cleared before every release",
        "Clear the cache.",
    )
    done = subprocess.run(
        [*MEMCTL, "--home", str(d.home), "pending"],
        capture_output=True,
        env={**d.env, "COLUMNS": "80"},
        cwd=REPO,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    lines = done.stdout.decode().splitlines()
    assert max(len(line) for line in lines) <= 80, lines
    mine = next(i for i, line in enumerate(lines) if action_id in line)
    assert "A rather long title" in "\n".join(lines[mine : mine + 2])
    assert "Clear the cache." not in done.stdout.decode()  # titles only, never bodies


def test_deny_all_from_an_identity_asks_first(d: Daemon) -> None:
    task = _erin_task(d)
    ids = [_propose(d, task, f"Erin {n}", f"Erin's note {n}.") for n in range(2)]
    refused = d.memctl(
        "deny", "--all-from", "local:erin", "--reason", "not now", input=b"n\n", process=True
    )
    assert refused.returncode != 0
    assert b"2 pending actions" in refused.stdout
    assert [_status_of(d, i) for i in ids] == ["pending", "pending"]
    done = d.memctl(
        "deny", "--all-from", "local:erin", "--reason", "not now", input=b"y\n", process=True
    )
    assert done.returncode == 0, done.stderr
    assert [_status_of(d, i) for i in ids] == ["denied", "denied"]


def test_global_options_are_accepted_before_or_after_the_command(d: Daemon) -> None:
    # No --home in front: it comes after the command; --json before it.
    env_without_home = {k: v for k, v in d.env.items() if k != "MEMORYD_HOME"}
    for argv in (
        ["--json", "status", "--home", str(d.home)],
        ["status", "--home", str(d.home), "--json"],
        ["status", f"--home={d.home}", "--timeout", "20", "--json"],
    ):
        done = subprocess.run(
            [*MEMCTL, *argv],
            capture_output=True,
            env=env_without_home,
            cwd=REPO,
            timeout=60,
            check=False,
        )
        assert done.returncode == 0, (argv, done.stderr)
        assert "backend" in json.loads(done.stdout)


def test_a_misspelled_command_gets_a_suggestion(d: Daemon) -> None:
    done = d.memctl("stauts", process=True)
    assert done.returncode == 2
    assert b"unknown command 'stauts'; did you mean 'status'?" in done.stderr


def test_ls_and_show_say_when_an_entry_expires(d: Daemon) -> None:
    done = d.memctl(
        "write",
        "--type",
        "fact",
        "--title",
        "Short lived",
        "--ttl-days",
        "10",
        "--body-file",
        "-",
        "--json",
        input=b"Gone in ten days.",
        process=True,
    )
    assert done.returncode == 0, done.stderr
    made = json.loads(done.stdout)["entries"][0]
    expires = made["expires_at"]
    listed = _json(d, "ls")
    (item,) = [i for i in listed["items"] if i["id"] == made["id"]]
    assert item["expires_at"] == expires
    human = _ok(d, "ls")
    assert "EXPIRES" in human.splitlines()[0]
    row = next(line for line in human.splitlines() if made["id"] in line)
    assert expires[:10] in row
    assert "expires:" in _ok(d, "show", made["id"])


def test_every_owner_memctl_prints_carries_its_token_labels(d: Daemon) -> None:
    who = ["--identity-kind", "local", "--identity-subject", "eve"]
    issued = _ok(d, "token", "issue", "--kind", "local", "--subject", "eve", "--label", "eve-desk")
    shown = "… (tokens: eve-desk)"
    assert shown in issued
    _ok(d, "team", "create", "eve-team")
    assert shown in _ok(d, "team", "add", "eve-team", *who)
    assert shown in _ok(d, "consent", "set", "--read", "on", "--contribute", "on", *who)
    token = _json(d, "token", "issue", "--kind", "local", "--subject", "eve")["token"]
    with d.agent() as a:
        task = a.call("task.begin", {"token": token})["task_id"]
        a.call(
            "memory.write",
            {
                "task_id": task,
                "action": "add",
                "entry": {"type": "fact", "title": "Eve waits", "body": "A pending proposal."},
            },
        )
    by_owner = _ok(d, "status", "--by-owner")
    assert shown in by_owner.split("pending by owner:")[1]
