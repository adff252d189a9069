"""Memory in and out, and memctl's operator comforts, against real daemons.

``memctl export`` from one home, ``memctl import`` into another (and from
the MCP reference memory server's file), ``memctl promote`` / ``--vouch``,
token labels, ids without ``--scope``, ``memctl edit``, ``--version`` and
shell completion — each through the real ``memctl`` command line.
"""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.harness import MEMCTL, REPO, Daemon, enable_consent, running

ALICE = ["--identity-kind", "token", "--identity-subject", "alice"]
MCP_FILE = (
    "\n".join(
        json.dumps(line)
        for line in [
            {
                "type": "entity",
                "name": "John_Smith",
                "entityType": "person",
                "observations": ["Speaks fluent Spanish", "Prefers morning meetings"],
            },
            {
                "type": "entity",
                "name": "Acme",
                "entityType": "organization",
                "observations": ["Ships on Thursdays"],
            },
            {"type": "relation", "from": "John_Smith", "to": "Acme", "relationType": "works_at"},
            {"type": "relation", "from": "Nobody", "to": "Acme", "relationType": "knows"},
        ]
    )
    + "\n"
)


@pytest.fixture(scope="module")
def src() -> Iterator[Daemon]:
    with running() as daemon:
        yield daemon


@pytest.fixture
def dst() -> Iterator[Daemon]:
    with running() as daemon:
        yield daemon


def ok(d: Daemon, *args: str, input: bytes | None = None) -> str:
    done = d.memctl(*args, input=input)
    assert done.returncode == 0, (args, done.stdout, done.stderr)
    return done.stdout.decode()


def js(d: Daemon, *args: str) -> Any:
    return json.loads(ok(d, *args, "--json"))


def add(
    d: Daemon, title: str, body: str, scope: str = "project:acme", type_: str = "fact"
) -> dict[str, Any]:
    out = js(d, "write", "--type", type_, "--title", title, "--body", body, "--scope", scope)
    return out["entries"][0]  # type: ignore[no-any-return]


def recalled(d: Daemon, intent: str, scope: str) -> dict[str, Any]:
    return js(d, "context", "--intent", intent, "--scope", scope)  # type: ignore[no-any-return]


# --- export ------------------------------------------------------------------------


def test_export_writes_a_header_then_one_entry_a_line(src: Daemon, tmp_path: Path) -> None:
    first = add(src, "Deploy", "Run make deploy from the release branch", type_="procedure")
    add(src, "Editor", "Uses vim keybindings", scope="project:tools", type_="preference")
    out = tmp_path / "memory.jsonl"
    ok(src, "export", "--output", str(out))
    lines = [json.loads(line) for line in out.read_text().splitlines()]
    assert lines[0]["format"] == "memoryd-export" and lines[0]["version"] == 1
    by_title = {line["title"]: line for line in lines[1:]}
    deploy = by_title["Deploy"]
    assert deploy["body"] == "Run make deploy from the release branch"
    assert (
        deploy["id"],
        deploy["scope"],
        deploy["type"],
        deploy["source"],
        deploy["revision"],
    ) == (first["id"], "project:acme", "procedure", "user", 1)
    for key in ("created_at", "updated_at", "expires_at", "basis", "validity", "status"):
        assert key in deploy
    assert stat.S_IMODE(out.stat().st_mode) == 0o600


def test_export_filters_by_scope_and_status(src: Daemon) -> None:
    gone = add(src, "Old note", "An outdated fact about the build", scope="project:filter")
    add(src, "New note", "A current fact about the build", scope="project:filter")
    ok(src, "archive", gone["id"], "--rev", "1", "--reason", "outdated")
    active = ok(src, "export", "--scope", "project:filter").splitlines()[1:]
    archived = ok(src, "export", "--scope", "project:filter", "--status", "archived").splitlines()[
        1:
    ]
    assert [json.loads(x)["title"] for x in active] == ["New note"]
    assert [json.loads(x)["title"] for x in archived] == ["Old note"]


def test_export_never_replaces_a_file(src: Daemon, tmp_path: Path) -> None:
    out = tmp_path / "there.jsonl"
    out.write_text("keep me\n")
    done = src.memctl("export", "--output", str(out))
    assert done.returncode == 2
    assert out.read_text() == "keep me\n"


# --- import ------------------------------------------------------------------------


def test_import_goes_through_governance_and_is_not_recalled_until_vouched(
    src: Daemon, dst: Daemon, tmp_path: Path
) -> None:
    add(src, "Release day", "Releases ship on Thursday afternoons", scope="project:rel")
    out = tmp_path / "rel.jsonl"
    ok(src, "export", "--scope", "project:rel", "--output", str(out))
    seq_before = js(dst, "status")["audit"]["seq"]
    report = js(dst, "import", str(out))
    assert (report["imported"], report["duplicates"], report["kind"]) == (1, 0, "memoryd")
    [entry_id] = report["ids"]
    shown = js(dst, "show", entry_id)["entries"][0]
    assert shown["source"] == "import" and shown["scope"] == "project:rel"
    assert js(dst, "status")["audit"]["seq"] > seq_before  # every entry audited
    before = recalled(dst, "when do releases ship", "project:rel")
    assert before["entries"] == [] and before["omitted"] == {"import": 1}
    promoted = js(dst, "promote", entry_id)
    assert promoted["promoted"] == [{"id": entry_id, "revision": 1}]
    after = recalled(dst, "when do releases ship", "project:rel")
    assert [c["id"] for c in after["entries"]] == [entry_id]
    assert js(dst, "show", entry_id)["entries"][0]["source"] == "user"
    assert js(dst, "audit", "verify")["ok"] is True


def test_importing_twice_skips_duplicates_and_reports_counts(
    src: Daemon, dst: Daemon, tmp_path: Path
) -> None:
    add(src, "Twice", "Imported two times, stored once", scope="project:twice")
    out = tmp_path / "twice.jsonl"
    ok(src, "export", "--scope", "project:twice", "--output", str(out))
    assert js(dst, "import", str(out))["imported"] == 1
    again = js(dst, "import", str(out))
    assert (again["imported"], again["duplicates"], again["conflicts"]) == (0, 1, 0)
    text = ok(dst, "import", str(out))
    assert "duplicates skipped:      1" in text
    listed = js(dst, "ls", "--scope", "project:twice")["items"]
    assert len(listed) == 1


def test_a_title_taken_by_other_content_is_a_conflict_not_an_overwrite(
    dst: Daemon, tmp_path: Path
) -> None:
    add(dst, "Shared title", "What the destination already knows", scope="project:c")
    line = {
        "id": "ent_X",
        "target": "memory",
        "scope": "project:c",
        "type": "fact",
        "title": "Shared title",
        "body": "Something else entirely",
        "status": "active",
    }
    path = tmp_path / "c.jsonl"
    path.write_text(
        json.dumps({"format": "memoryd-export", "version": 1}) + "\n" + json.dumps(line) + "\n"
    )
    report = js(dst, "import", str(path))
    assert (report["imported"], report["conflicts"]) == (0, 1)
    [kept] = js(dst, "ls", "--scope", "project:c")["items"]
    assert js(dst, "show", kept["id"])["entries"][0]["body"] == "What the destination already knows"


def test_a_rejected_entry_is_counted_and_the_rest_imported(dst: Daemon, tmp_path: Path) -> None:
    lines = [
        {"format": "memoryd-export", "version": 1},
        {
            "target": "memory",
            "scope": "project:r",
            "type": "fact",
            "title": "Key",
            "body": "aws key AKIAQ3EGT7VNMWK2PX4R here",
        },
        {
            "target": "memory",
            "scope": "project:r",
            "type": "fact",
            "title": "Fine",
            "body": "Nothing secret in this one",
        },
    ]
    path = tmp_path / "r.jsonl"
    path.write_text("".join(json.dumps(x) + "\n" for x in lines))
    done = dst.memctl("import", str(path), "--json")
    assert done.returncode == 0
    report = json.loads(done.stdout)
    assert report["imported"] == 1 and report["rejected"] == {"secret_detected": 1}
    assert b"AKIA" not in done.stdout + done.stderr


def test_a_rejected_entry_is_named_by_its_line_and_entity(dst: Daemon, tmp_path: Path) -> None:
    lines = [
        {
            "type": "entity",
            "name": "Calm",
            "entityType": "note",
            "observations": ["Nothing secret here"],
        },
        {
            "type": "entity",
            "name": "Leaky",
            "entityType": "note",
            "observations": ["aws key AKIAQ3EGT7VNMWK2PX4R here"],
        },
    ]
    path = tmp_path / "leaky.jsonl"
    path.write_text("".join(json.dumps(x) + "\n" for x in lines))
    done = dst.memctl("import", str(path), "--scope", "project:leaky")
    assert done.returncode == 0, done.stderr
    out = done.stdout.decode()
    assert "line 2 (entity Leaky): secret_detected" in out
    assert "AKIA" not in out + done.stderr.decode()
    as_json = js(dst, "import", str(path), "--scope", "project:leaky2")
    assert as_json["problems"] == [{"line": 2, "entity": "Leaky", "code": "secret_detected"}]


def test_import_reads_the_mcp_memory_server_file_and_vouch_makes_it_recallable(
    dst: Daemon, tmp_path: Path
) -> None:
    path = tmp_path / "memory.jsonl"
    path.write_text(MCP_FILE)
    report = js(dst, "import", str(path), "--scope", "project:people", "--vouch")
    assert (report["kind"], report["imported"], report["promoted"]) == ("mcp-memory", 2, 2)
    assert report["skipped"] == {"relation_without_entity": 1}
    items = {i["title"]: i for i in js(dst, "ls", "--scope", "project:people")["items"]}
    assert set(items) == {"John_Smith (person)", "Acme (organization)"}
    john = js(dst, "show", items["John_Smith (person)"]["id"])["entries"][0]
    assert john["body"] == ("- Speaks fluent Spanish\n- Prefers morning meetings\n- works at Acme")
    assert john["source"] == "user"
    snap = recalled(dst, "who speaks Spanish", "project:people")
    assert items["John_Smith (person)"]["id"] in [c["id"] for c in snap["entries"]]


def test_an_unreadable_import_file_changes_nothing(dst: Daemon, tmp_path: Path) -> None:
    path = tmp_path / "bad.jsonl"
    path.write_text('{"neither": "format"}\n')
    seq = js(dst, "status")["audit"]["seq"]
    done = dst.memctl("import", str(path))
    assert done.returncode == 2 and b"line 1" in done.stderr
    assert js(dst, "status")["audit"]["seq"] == seq


def test_promote_is_refused_on_agent_sock(dst: Daemon) -> None:
    from memoryd.rpc.client import RpcError

    with dst.agent() as a, pytest.raises(RpcError) as caught:
        a.call("memory.promote", {"ids": ["ent_x"]})
    assert caught.value.data_code == "method_not_found"


def test_promote_of_an_unknown_id_changes_nothing_and_names_no_id(dst: Daemon) -> None:
    entry = add(dst, "Mine", "A user note", scope="project:p")
    seq = js(dst, "status")["audit"]["seq"]
    done = dst.memctl("promote", entry["id"], "ent_DOESNOTEXIST")
    assert done.returncode == 1
    assert b"not_found" in done.stderr and b"ent_DOESNOTEXIST" not in done.stderr
    assert js(dst, "status")["audit"]["seq"] == seq


# --- labels, ids, edit ---------------------------------------------------------------


def test_a_token_label_names_the_proposer_and_never_reaches_agent_sock(dst: Daemon) -> None:
    ok(dst, "consent", "set", "--read", "on", "--contribute", "on", *ALICE)
    issued = js(
        dst, "token", "issue", "--kind", "token", "--subject", "alice", "--label", "alice-laptop"
    )
    assert issued["label"] == "alice-laptop"
    with dst.agent() as a:
        task = a.call("task.begin", {"token": issued["token"]})
        status = a.call("memory.status", {"task_id": task["task_id"]})
        a.call(
            "memory.write",
            {
                "task_id": task["task_id"],
                "target": "memory",
                "action": "add",
                "entry": {"type": "fact", "title": "T", "body": "B is b"},
            },
        )
    assert "alice-laptop" not in json.dumps([task, status])
    pending = ok(dst, "pending")
    assert f"token:alice-laptop ({issued['token_id']})" in pending
    owner = issued["owner"]
    # An owner reads as an owner, with the labels of its tokens beside it.
    assert f"{owner[:12]}… (tokens: alice-laptop)" in ok(dst, "token", "ls")
    assert f"{owner[:12]}… (tokens: alice-laptop)" in ok(dst, "consent", *ALICE)
    assert f"token:alice-laptop ({owner[:12]}" not in ok(dst, "consent", *ALICE)
    # Scripts get the daemon's answer as it is.
    assert js(dst, "consent", *ALICE)["owner"] == owner
    audit = dst.memctl("audit", "export").stdout
    assert b"alice-laptop" not in audit


def test_ids_are_enough_for_rm_archive_supersede_and_replace(dst: Daemon) -> None:
    a = add(dst, "Gone soon", "To be removed", scope="project:ids")
    b = add(dst, "Archived soon", "To be archived", scope="project:ids")
    c = add(dst, "Superseded soon", "To be superseded", scope="project:ids")
    d = add(dst, "Replaced soon", "To be replaced", scope="project:ids")
    ok(dst, "rm", a["id"], "--rev", "1")
    ok(dst, "archive", b["id"], "--rev", "1", "--reason", "done")
    ok(
        dst,
        "supersede",
        c["id"],
        "--rev",
        "1",
        "--type",
        "fact",
        "--title",
        "Successor",
        "--body",
        "The new text",
    )
    ok(
        dst,
        "write",
        "--replace",
        d["id"],
        "--rev",
        "1",
        "--type",
        "fact",
        "--title",
        "Replaced soon",
        "--body",
        "The replaced text",
    )
    statuses = {
        e["id"]: (e["status"], e["scope"])
        for e in js(dst, "show", a["id"], b["id"], c["id"], d["id"])["entries"]
    }
    assert statuses == {
        a["id"]: ("removed", "project:ids"),
        b["id"]: ("archived", "project:ids"),
        c["id"]: ("superseded", "project:ids"),
        d["id"]: ("active", "project:ids"),
    }


def test_edit_proposes_a_replace_of_the_revision_opened(dst: Daemon, tmp_path: Path) -> None:
    entry = add(dst, "Editable", "first text", scope="project:edit")
    editor = tmp_path / "editor.py"
    editor.write_text(
        "import sys\np = sys.argv[1]\ns = open(p).read()\n"
        "open(p, 'w').write(s.replace('first text', 'second text'))\n"
    )
    env = {**dst.env, "EDITOR": f"{sys.executable} {editor}"}
    done = subprocess.run(
        [*MEMCTL, "--home", str(dst.home), "edit", entry["id"]],
        env=env,
        cwd=REPO,
        capture_output=True,
        check=False,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    shown = js(dst, "show", entry["id"])["entries"][0]
    assert (shown["body"], shown["revision"]) == ("second text", 2)
    # Unchanged: nothing is written.
    env["EDITOR"] = "true"
    done = subprocess.run(
        [*MEMCTL, "--home", str(dst.home), "edit", entry["id"]],
        env=env,
        cwd=REPO,
        capture_output=True,
        check=False,
        timeout=60,
    )
    assert done.returncode == 0 and b"no change" in done.stderr
    assert js(dst, "show", entry["id"])["entries"][0]["revision"] == 2


@pytest.mark.sqlite_only(
    "memctl backup copies the SQLite file; a PostgreSQL home refuses it (test_pg_shared.py)"
)
def test_human_output_holds_no_raw_json(dst: Daemon, tmp_path: Path) -> None:
    with dst.control() as c:
        enable_consent(c)
    add(dst, "Journal me", "Some text", scope="project:j")
    ok(dst, "audit", "checkpoint")
    for args in (("status",), ("journal",), ("backup", str(tmp_path / "bk")), ("gc",)):
        text = ok(dst, *args)
        assert "{" not in text and '"' not in text, (args, text)


# --- version and completion -----------------------------------------------------------


def test_version_on_memctl_and_memoryd() -> None:
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    for argv, name in (
        ([*MEMCTL, "--version"], "memctl"),
        (
            [
                sys.executable,
                "-c",
                "import sys; from memoryd.daemon.cli import main; sys.exit(main())",
                "--version",
            ],
            "memoryd",
        ),
    ):
        done = subprocess.run(argv, env=env, cwd=REPO, capture_output=True, check=False, timeout=60)
        assert done.returncode == 0, done.stderr
        prog, version = done.stdout.decode().split()
        assert prog.endswith(name) and version[0].isdigit()


@pytest.mark.parametrize("shell", ["bash", "zsh", "fish"])
def test_completion_scripts_name_every_subcommand(shell: str) -> None:
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    done = subprocess.run(
        [*MEMCTL, "completion", shell],
        env=env,
        cwd=REPO,
        capture_output=True,
        check=False,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    script = done.stdout.decode()
    for word in ("export", "import", "promote", "edit", "approve", "--label", "--vouch"):
        # fish names a long option without its dashes (-l label).
        assert (word.lstrip("-") if shell == "fish" else word) in script
    # ACTION_ID after approve and deny completes from the pending actions.
    assert "pending --ids" in script
    if shell == "bash":
        checked = subprocess.run(
            ["bash", "-n"], input=done.stdout, capture_output=True, check=False
        )
        assert checked.returncode == 0, checked.stderr


def _propose_one(dst: Daemon, subject: str) -> str:
    who = {"kind": "local", "subject": subject}
    with dst.control() as c:
        enable_consent(c, identity=who)
        token = c.call("token.issue", {"identity": who})["token"]
    with dst.agent() as a:
        task = a.call("task.begin", {"token": token})["task_id"]
        return str(
            a.call(
                "memory.write",
                {
                    "task_id": task,
                    "action": "add",
                    "entry": {
                        "type": "fact",
                        "title": f"From {subject}",
                        "body": "Waits for a decision.",
                    },
                },
            )["action_id"]
        )


def test_pending_ids_lists_the_ids_that_wait(dst: Daemon) -> None:
    mine = _propose_one(dst, "lister")
    with dst.control() as c:
        waiting = {i["action_id"] for i in c.call("governance.action.list", {})["items"]}
    listed = ok(dst, "pending", "--ids").split()
    assert mine in listed
    assert set(listed) == waiting and len(listed) == len(waiting)


def test_bash_completes_action_ids_after_deny(dst: Daemon, tmp_path: Path) -> None:
    env = {**dst.env, "PYTHONPATH": str(REPO), "MEMORYD_HOME": str(dst.home)}
    script = subprocess.run(
        [*MEMCTL, "completion", "bash"],
        env=env,
        cwd=REPO,
        capture_output=True,
        check=True,
        timeout=60,
    ).stdout.decode()
    mine = _propose_one(dst, "completer")
    with dst.control() as c:
        waiting = {i["action_id"] for i in c.call("governance.action.list", {})["items"]}
    shim = tmp_path / "memctl"
    shim.write_text("#!/bin/sh\nexec " + " ".join(MEMCTL) + ' "$@"\n')
    shim.chmod(0o755)
    probe = script + "\n_memctl_action_ids act_\n"
    done = subprocess.run(
        ["bash", "-c", probe],
        env={**env, "PATH": f"{tmp_path}:/usr/bin:/bin"},
        capture_output=True,
        timeout=60,
        check=False,
    )
    assert mine in waiting
    assert set(done.stdout.decode().split()) == waiting, done.stderr
