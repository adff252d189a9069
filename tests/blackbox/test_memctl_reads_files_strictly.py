"""memctl reads the files and arguments it is given as the daemon reads a
frame, and reads back what it wrote.

``memctl export`` writes text unescaped, so an import must cut its lines
at newlines only; a line holding JSON the daemon refuses (a lone surrogate
escape, NaN) is a usage error naming its line, before anything is written,
never a crash half way through a file; so is an argument that is not
UTF-8 text.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.harness import MEMCTL, REPO, Daemon, entry, fresh_identity


def who(ident: dict[str, str]) -> list[str]:
    return ["--identity-kind", ident["kind"], "--identity-subject", ident["subject"]]


def audit_seq(d: Daemon) -> int:
    with d.control() as c:
        return int(c.call("memory.status", {})["audit"]["seq"])


def export_file(tmp_path: Path, *lines: str) -> Path:
    path = tmp_path / "in.jsonl"
    head = json.dumps({"format": "memoryd-export", "version": 1})
    path.write_text("\n".join([head, *lines]) + "\n", encoding="utf-8")
    return path


def test_an_entry_holding_a_line_separator_is_imported_from_its_export(
    d: Daemon, tmp_path: Path
) -> None:
    source, dest = fresh_identity("sep-"), fresh_identity("sep-")
    body = "Deploys go blue first\u2028then green, never both at once."
    with d.control() as c:
        c.call(
            "memory.write",
            {"identity": source, "action": "add", "entry": entry(title="Deploys", body=body)},
        )
    out = tmp_path / "export.jsonl"
    done = d.memctl("export", "--output", str(out), *who(source))
    assert done.returncode == 0, done.stderr
    done = d.memctl("import", str(out), "--json", *who(dest))
    assert done.returncode == 0, done.stderr
    report: dict[str, Any] = json.loads(done.stdout)
    assert report["imported"] == 1 and report["rejected"] == {}
    with d.control() as c:
        got = c.call("memory.read", {"identity": dest, "ids": report["ids"]})
    assert got["entries"][0]["body"] == body


@pytest.mark.parametrize(
    "line",
    [
        '{"type": "fact", "title": "Lone", "body": "half a pair \\ud800 here"}',
        '{"type": "fact", "title": "NaN", "body": "no number", "ttl_days": NaN}',
    ],
)
def test_an_import_line_the_daemon_could_not_take_is_refused_before_any_write(
    d: Daemon, tmp_path: Path, line: str
) -> None:
    fine = json.dumps(entry(title="Fine", body="The first line is fine."))
    path = export_file(tmp_path, fine, line)
    seq = audit_seq(d)
    done = d.memctl("import", str(path), *who(fresh_identity("imp-")))
    assert done.returncode == 2, done.stderr
    assert b"line 3" in done.stderr and b"Traceback" not in done.stderr
    assert audit_seq(d) == seq


@pytest.mark.parametrize(
    "text",
    [
        '{"action": "add", "entry": {"type": "fact", "title": "T", "body": "x \\udfff y"}}',
        '{"action": "add", "entry": ' + "[" * 100_000 + "]" * 100_000 + "}",
    ],
    ids=["lone-surrogate", "nested-too-deep"],
)
def test_a_json_params_file_the_daemon_could_not_take_is_a_usage_error(
    d: Daemon, tmp_path: Path, text: str
) -> None:
    path = tmp_path / "params.json"
    path.write_text(text)
    seq = audit_seq(d)
    done = d.memctl("write", "--json-params", str(path), process=True)
    assert done.returncode == 2 and b"--json-params" in done.stderr
    assert b"Traceback" not in done.stderr
    assert audit_seq(d) == seq


def test_an_export_version_memctl_cannot_read_is_not_repeated(d: Daemon, tmp_path: Path) -> None:
    canary = "ZQXVERSIONCANARY"
    path = tmp_path / "in.jsonl"
    path.write_text(json.dumps({"format": "memoryd-export", "version": canary * 100}) + "\n")
    done = d.memctl("import", str(path))
    assert done.returncode == 2 and b"version" in done.stderr
    assert canary.encode() not in done.stderr


def test_an_edit_saved_in_another_encoding_is_a_usage_error_and_changes_nothing(
    d: Daemon, tmp_path: Path
) -> None:
    with d.control() as c:
        made = c.call("memory.write", {"action": "add", "entry": entry(title="Cafe", body="tea")})
    editor = tmp_path / "editor.py"
    editor.write_text(
        "import sys\nopen(sys.argv[1], 'wb').write("
        "b'title: Caf\\xe9\\ntype: preference\\n\\ncoffee')\n"
    )
    done = subprocess.run(
        [*MEMCTL, "--home", str(d.home), "edit", made["entries"][0]["id"]],
        env={**d.env, "EDITOR": f"{sys.executable} {editor}"},
        cwd=REPO,
        capture_output=True,
        check=False,
        timeout=60,
    )
    assert done.returncode == 2, done.stderr
    assert b"UTF-8" in done.stderr and b"Traceback" not in done.stderr
    with d.control() as c:
        got = c.call("memory.read", {"ids": [made["entries"][0]["id"]]})["entries"][0]
    assert (got["body"], got["revision"]) == ("tea", 1)


@pytest.mark.parametrize(
    "args",
    [[b"show", b"ent_\xff"], [b"ls", b"--search", b"caf\xe9"], [b"team", b"create", b"\xff"]],
    ids=["show", "search", "team"],
)
def test_an_argument_that_is_not_utf8_is_a_usage_error(d: Daemon, args: list[bytes]) -> None:
    # A terminal in another encoding hands such bytes over; they cannot go
    # into a JSON frame.
    seq = audit_seq(d)
    argv = [*(a.encode() for a in MEMCTL), b"--home", str(d.home).encode(), *args]
    done = subprocess.run(argv, env=d.env, cwd=REPO, capture_output=True, check=False, timeout=60)
    assert done.returncode == 2, done.stderr
    assert b"UTF-8" in done.stderr and b"Traceback" not in done.stderr
    assert audit_seq(d) == seq
