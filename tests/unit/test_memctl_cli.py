"""memctl without a daemon: command lines → requests, canned results → output.

The daemon side is covered by black-box tests; here a fake client stands in
for ``rpc.client.Client`` and records what memctl would send.
"""

from __future__ import annotations

import io
import json
import sys
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any, get_args, get_type_hints

import pytest

from memoryd.memctl import format as fmt
from memoryd.memctl import main as memctl
from memoryd.memctl.main import COMMANDS, Io, Request, UsageError, parse, run
from memoryd.rpc import schema
from memoryd.rpc.client import ConnectError, RpcError

ENTRY = {
    "id": "ent_A",
    "target": "memory",
    "scope": "default",
    "type": "fact",
    "title": "Sky",
    "body": "The sky is blue",
    "summary": "The sky is blue",
    "status": "active",
    "revision": 2,
    "source": "user",
    "basis": {"kind": "human", "note": "seen"},
    "validity": None,
    "pinned": False,
    "created_at": "2025-01-01T00:00:00Z",
    "updated_at": "2025-01-02T00:00:00Z",
    "renewed_at": "2025-01-02T00:00:00Z",
    "ttl_days": 120.0,
    "expires_at": "2025-05-02T00:00:00Z",
    "use_count": 0,
    "last_used_at": None,
    "superseded_by": None,
    "content_hash": "b3k:00",
    "applicability": "general",
    "expired": False,
}
APPLIED = {
    "outcome": "applied",
    "operation_id": "op_1",
    "action_id": None,
    "decision": {"decision_id": "dec_1", "effect": "allow", "rule_ids": []},
    "entries": [ENTRY],
    "warnings": ["content changed without refreshed attribution"],
}
ALICE = ["--identity-kind", "local", "--identity-subject", "alice"]
ALICE_ID = {"kind": "local", "subject": "alice"}


class FakeRpc:
    """Answers from a table: a value, an RpcError to raise, or a callable of params."""

    def __init__(self, answers: Mapping[str, Any] | None = None) -> None:
        self.answers = dict(answers or {})
        self.calls: list[tuple[str, dict[str, Any]]] = []
        self.closed = False

    def call(self, method: str, params: Mapping[str, Any] | None = None, /) -> Any:
        self.calls.append((method, dict(params or {})))
        answer = self.answers.get(method, {})
        if isinstance(answer, RpcError):
            raise answer
        if callable(answer):
            return answer(dict(params or {}))
        return answer

    def close(self) -> None:
        self.closed = True


def request_for(argv: list[str], files: Mapping[str, str] | None = None) -> Request:
    args = parse(argv)
    build = COMMANDS[args.key].build
    assert build is not None, f"{args.key} has its own runner"

    def read(path: str) -> str:
        return (files or {})[path]

    return build(args, read)


def invoke(
    argv: list[str],
    rpc: FakeRpc | None = None,
    *,
    stdin: str = "",
    connect: Callable[[Path, float], Any] | None = None,
) -> tuple[int, str, str]:
    streams = Io(stdout=io.StringIO(), stderr=io.StringIO(), stdin=io.StringIO(stdin))
    fake = rpc if rpc is not None else FakeRpc()
    code = run(argv, connect=connect or (lambda _path, _timeout: fake), io=streams)
    assert isinstance(streams.stdout, io.StringIO) and isinstance(streams.stderr, io.StringIO)
    return code, streams.stdout.getvalue(), streams.stderr.getvalue()


def rpc_error(
    code: int, data_code: str, message: str, recovery: str, details: dict[str, Any] | None = None
) -> RpcError:
    data: dict[str, Any] = {"code": data_code, "message": message, "recovery": recovery}
    if details:
        data["details"] = details
    return RpcError(code, message, data)


# --- requests ------------------------------------------------------------------

REQUESTS: list[tuple[list[str], str, dict[str, Any]]] = [
    (["status"], "memory.status", {}),
    (["status", *ALICE], "memory.status", {"identity": ALICE_ID}),
    (["ls"], "memory.list", {}),
    (
        [
            "ls",
            "--target",
            "memory",
            "--scope",
            "project:acme",
            "--status",
            "active",
            "archived",
            "--type",
            "fact",
            "--type",
            "lesson",
            "--search",
            "deploy",
            "--page-size",
            "5",
        ],
        "memory.list",
        {
            "target": "memory",
            "scope": "project:acme",
            "statuses": ["active", "archived"],
            "types": ["fact", "lesson"],
            "query": "deploy",
            "page_size": 5,
        },
    ),
    (
        ["ls", "--identity-kind", "token", "--identity-subject", "s", "--identity-issuer", "i"],
        "memory.list",
        {"identity": {"kind": "token", "subject": "s", "issuer": "i"}},
    ),
    (["ls", "--cursor", "C1", *ALICE], "memory.list", {"cursor": "C1", "identity": ALICE_ID}),
    (["show", "ent_A", "ent_B"], "memory.read", {"ids": ["ent_A", "ent_B"]}),
    (["show", "ent_A", "--pending"], "memory.read", {"ids": ["ent_A"], "include_pending": True}),
    (
        ["write", "--type", "fact", "--title", "T", "--body", "B"],
        "memory.write",
        {"action": "add", "entry": {"type": "fact", "title": "T", "body": "B"}},
    ),
    (
        [
            "write",
            "--type",
            "lesson",
            "--title",
            "T",
            "--body",
            "B",
            "--target",
            "user",
            "--scope",
            "s",
            "--summary",
            "S",
            "--ttl-days",
            "30",
            "--pinned",
            "--basis-kind",
            "human",
            "--basis-note",
            "N",
            "--import",
            "--idempotency-key",
            "k-1",
            *ALICE,
        ],
        "memory.write",
        {
            "target": "user",
            "scope": "s",
            "action": "add",
            "idempotency_key": "k-1",
            "source": "import",
            "identity": ALICE_ID,
            "entry": {
                "type": "lesson",
                "title": "T",
                "body": "B",
                "summary": "S",
                "ttl_days": 30.0,
                "pinned": True,
                "basis": {"kind": "human", "note": "N"},
            },
        },
    ),
    (
        [
            "write",
            "--replace",
            "ent_A",
            "--rev",
            "3",
            "--type",
            "fact",
            "--title",
            "T",
            "--body",
            "B",
        ],
        "memory.write",
        {
            "action": "replace",
            "id": "ent_A",
            "expected_revision": 3,
            "entry": {"type": "fact", "title": "T", "body": "B"},
        },
    ),
    (
        ["rm", "ent_A", "--rev", "2"],
        "memory.write",
        {"action": "remove", "id": "ent_A", "expected_revision": 2},
    ),
    (
        ["rm", "ent_A", "--rev", "2", "--scope", "p"],
        "memory.write",
        {"scope": "p", "action": "remove", "id": "ent_A", "expected_revision": 2},
    ),
    (
        ["archive", "ent_A", "--rev", "2", "--reason", "old"],
        "memory.write",
        {"action": "archive", "id": "ent_A", "expected_revision": 2, "reason": "old"},
    ),
    (
        [
            "archive",
            "ent_A",
            "--rev",
            "2",
            "--reason",
            "old",
            "--covered-by",
            "ent_B",
            "--covered-rev",
            "4",
        ],
        "memory.write",
        {
            "action": "archive",
            "id": "ent_A",
            "expected_revision": 2,
            "reason": "old",
            "covered_by": {"id": "ent_B", "expected_revision": 4},
        },
    ),
    (
        ["supersede", "ent_A", "--rev", "2", "--type", "fact", "--title", "T", "--body", "B"],
        "memory.write",
        {
            "action": "supersede",
            "id": "ent_A",
            "expected_revision": 2,
            "entry": {"type": "fact", "title": "T", "body": "B"},
        },
    ),
    (["journal"], "memory.journal", {}),
    (["journal", "--cursor", "J"], "memory.journal", {"cursor": "J"}),
    (["undo", "op_1"], "memory.undo", {"operation_id": "op_1"}),
    (["receipt", "rcp_1"], "memory.receipt", {"receipt_id": "rcp_1"}),
    (["gc"], "memory.gc", {}),
    (["pending"], "governance.action.list", {}),
    (
        ["pending", "--status", "denied", "--cursor", "act_9"],
        "governance.action.list",
        {"status": "denied", "cursor": "act_9"},
    ),
    (["pending", "show", "act_1"], "governance.action.get", {"action_id": "act_1"}),
    (["action", "act_1"], "governance.action.get", {"action_id": "act_1"}),
    (["approve", "act_1"], "governance.action.approve", {"action_id": "act_1"}),
    (["deny", "act_1"], "governance.action.deny", {"action_id": "act_1"}),
    (
        ["deny", "act_1", "--reason", "no"],
        "governance.action.deny",
        {"action_id": "act_1", "reason": "no"},
    ),
    (["consent"], "consent.get", {}),
    (["consent", *ALICE], "consent.get", {"identity": ALICE_ID}),
    (
        ["token", "issue", "--kind", "local", "--subject", "bob"],
        "token.issue",
        {"identity": {"kind": "local", "subject": "bob"}},
    ),
    (
        [
            "token",
            "issue",
            "--kind",
            "local",
            "--subject",
            "bob",
            "--issuer",
            "corp",
            "--scope",
            "a",
            "--scope",
            "b",
            "--expires-in",
            "60",
        ],
        "token.issue",
        {
            "identity": {"kind": "local", "subject": "bob", "issuer": "corp"},
            "scopes": ["a", "b"],
            "expires_in": 60,
        },
    ),
    (["token", "ls"], "token.list", {}),
    (["token", "revoke", "tok_1"], "token.revoke", {"token_id": "tok_1"}),
    (["audit", "verify"], "audit.verify", {}),
    (["audit", "checkpoint"], "audit.checkpoint", {}),
    (["policy", "reload"], "policy.reload", {}),
    (
        ["policy", "explain", "MemoryRead"],
        "policy.explain",
        {"capability": "MemoryRead", "channel": "agent", "target": "memory", "scope": "default"},
    ),
    (
        [
            "policy",
            "explain",
            "MemoryWrite",
            "--channel",
            "agent",
            "--role",
            "subagent",
            "--target",
            "user",
            "--scope",
            "s:1",
            "--action",
            "replace",
            "--type",
            "fact",
            "--grants",
            "memory.read",
            "memory.write",
        ],
        "policy.explain",
        {
            "capability": "MemoryWrite",
            "channel": "agent",
            "role": "subagent",
            "target": "user",
            "scope": "s:1",
            "action": "replace",
            "type": "fact",
            "grants": ["memory.read", "memory.write"],
        },
    ),
    (["projection", "authorize"], "memory.projection.authorize", {}),
    (
        ["projection", "authorize", "--approve", "--entry", "ent_1", "--entry", "ent_2"],
        "memory.projection.authorize",
        {"approve": True, "entry_ids": ["ent_1", "ent_2"]},
    ),
    (["projection", "retry"], "memory.projection.retry", {}),
    (
        ["projection", "retry", "--entry", "ent_1"],
        "memory.projection.retry",
        {"entry_ids": ["ent_1"]},
    ),
    (["projection", "reseed"], "memory.projection.reseed", {}),
    (["projection", "report"], "memory.projection.report", {}),
    (["backup", "/srv/b"], "admin.backup", {"path": "/srv/b"}),
    (["team", "create", "ops"], "team.create", {"name": "ops"}),
    (["team", "add", "ops", *ALICE], "team.add", {"name": "ops", "identity": ALICE_ID}),
    (["team", "remove", "ops", *ALICE], "team.remove", {"name": "ops", "identity": ALICE_ID}),
    (["team", "ls"], "team.list", {}),
    (["extract", "status"], "extract.status", {}),
    (["extract", "status", *ALICE], "extract.status", {"identity": ALICE_ID}),
    (["extract", "retry", "ext_1"], "extract.retry", {"job_id": "ext_1"}),
    (["extract", "drop", "ext_1"], "extract.drop", {"job_id": "ext_1"}),
]

# Commands that read a file (given to ``request_for`` as ``files``).
FILE_REQUESTS: list[tuple[list[str], str, dict[str, Any]]] = [
    (
        ["extract", "submit", "-", "--scope", "project:acme"],
        "extract.submit",
        {"jsonl": "{}", "scope": "project:acme"},
    ),
    (
        ["extract", "submit", "s.jsonl", *ALICE],
        "extract.submit",
        {"jsonl": "{}", "identity": ALICE_ID},
    ),
]


@pytest.mark.parametrize(
    ("argv", "method", "params"), REQUESTS, ids=[" ".join(r[0]) for r in REQUESTS]
)
def test_command_line_builds_request(argv: list[str], method: str, params: dict[str, Any]) -> None:
    request = request_for(argv)
    assert (request.method, request.params) == (method, params)


@pytest.mark.parametrize(
    ("argv", "method", "params"), FILE_REQUESTS, ids=[" ".join(r[0]) for r in FILE_REQUESTS]
)
def test_command_line_reading_a_file_builds_request(
    argv: list[str], method: str, params: dict[str, Any]
) -> None:
    request = request_for(argv, files={"-": "{}", "s.jsonl": "{}"})
    assert (request.method, request.params) == (method, params)


def test_every_subcommand_is_in_the_request_table_or_has_a_runner() -> None:
    covered = {parse(argv).key for argv, _, _ in [*REQUESTS, *FILE_REQUESTS]}
    runners = {key for key, command in COMMANDS.items() if command.run is not None}
    assert covered | runners == set(COMMANDS)


def test_body_comes_from_file_or_stdin() -> None:
    for source in ("notes.md", "-"):
        request = request_for(
            ["write", "--type", "fact", "--title", "T", "--body-file", source],
            files={source: "from " + source},
        )
        assert request.params["entry"]["body"] == "from " + source


def test_json_params_are_sent_as_given() -> None:
    batch = {
        "action": "batch",
        "ops": [{"action": "remove", "id": "ent_A", "expected_revision": 1}],
    }
    request = request_for(["write", "--json-params", "b.json"], files={"b.json": json.dumps(batch)})
    assert request == Request("memory.write", batch)


@pytest.mark.parametrize("text", ["[1, 2]", "{not json"])
def test_json_params_must_be_one_object(text: str) -> None:
    with pytest.raises(UsageError):
        request_for(["write", "--json-params", "-"], files={"-": text})


def test_ls_cursor_ignores_filters_and_says_so() -> None:
    request = request_for(["ls", "--cursor", "C", "--type", "fact"])
    assert request.params == {"cursor": "C"}
    assert any("--types" in note for note in request.notes)


def test_audit_verify_sends_the_checkpoint_object() -> None:
    checkpoint = {"seq": 4, "hash": "ab", "ts": "t", "signature": "s", "public_key": "k"}
    request = request_for(
        ["audit", "verify", "--checkpoint", "cp.json"], files={"cp.json": json.dumps(checkpoint)}
    )
    assert request.params == {"checkpoint": checkpoint}


@pytest.mark.parametrize(
    "argv",
    [
        ["status", "--identity-kind", "local"],
        ["status", "--identity-issuer", "x"],
        ["write", "--title", "T", "--body", "B"],
        ["write", "--type", "fact", "--body", "B"],
        ["write", "--type", "fact", "--title", "T"],
        ["write", "--type", "fact", "--title", "T", "--body", "B", "--body-file", "-"],
        ["write", "--type", "fact", "--title", "T", "--body", "B", "--rev", "2"],
        ["write", "--replace", "ent_A", "--type", "fact", "--title", "T", "--body", "B"],
        ["write", "--json-params", "-", "--title", "T"],
        ["write", "--type", "fact", "--title", "T", "--body", "B", "--basis-note", "n"],
        ["archive", "ent_A", "--rev", "1", "--reason", "r", "--covered-by", "ent_B"],
        ["show", *[f"ent_{i}" for i in range(11)]],
    ],
)
def test_inconsistent_options_are_usage_errors(argv: list[str]) -> None:
    with pytest.raises(UsageError):
        request_for(argv, files={"-": "{}"})


def test_usage_error_exits_2_without_calling() -> None:
    rpc = FakeRpc()
    code, _out, err = invoke(["write", "--title", "T", "--body", "B"], rpc)
    assert code == memctl.EXIT_USAGE
    assert "--type is required" in err
    assert rpc.calls == []


def test_argparse_refusal_exits_2(capsys: pytest.CaptureFixture[str]) -> None:
    code, _out, _err = invoke(["rm", "ent_A"])
    assert code == memctl.EXIT_USAGE
    assert "--rev" in capsys.readouterr().err


def test_choices_match_the_wire_schema() -> None:
    assert memctl.TARGETS == get_args(schema.Target)
    # The wire decodes types and statuses into the kernel's enums.
    assert memctl.ENTRY_TYPES == tuple(t.value for t in schema.EntryType)
    assert memctl.STATUSES == tuple(s.value for s in schema.Status)
    assert memctl.BASIS_KINDS == get_args(get_type_hints(schema.Basis)["kind"])


# --- help --------------------------------------------------------------------------

HELP_PATHS = sorted(
    {tuple(key.split()) for key in COMMANDS} | {("token",), ("audit",), ("policy",), ()}
)


@pytest.mark.parametrize("path", HELP_PATHS, ids=[" ".join(p) or "memctl" for p in HELP_PATHS])
def test_help_exits_0_and_shows_examples(
    path: tuple[str, ...], capsys: pytest.CaptureFixture[str]
) -> None:
    code, _out, _err = invoke([*path, "--help"])
    assert code == 0
    assert "examples:" in capsys.readouterr().out


# --- running: home, errors, exit codes ---------------------------------------------------


def test_home_before_subcommand_picks_the_control_socket(tmp_path: Path) -> None:
    seen: list[Path] = []

    def connect(path: Path, _timeout: float) -> FakeRpc:
        seen.append(path)
        return FakeRpc()

    code, _out, _err = invoke(["--home", str(tmp_path), "status"], connect=connect)
    assert code == 0
    assert seen == [tmp_path / "run" / "control.sock"]


def test_daemon_not_running_is_one_clear_line_and_exit_3(tmp_path: Path) -> None:
    sock = tmp_path / "run" / "control.sock"

    def connect(path: Path, _timeout: float) -> FakeRpc:
        raise ConnectError(f"memoryd is not running at {path}", path)

    code, out, err = invoke(["--home", str(tmp_path), "status"], connect=connect)
    assert code == memctl.EXIT_NOT_RUNNING
    assert out == ""
    assert err.splitlines()[0] == f"memctl: memoryd is not running (no socket at {sock})"


def test_rpc_error_prints_message_code_and_recovery() -> None:
    rpc = FakeRpc(
        {
            "memory.write": rpc_error(
                -32002,
                "revision_conflict",
                "the entry is not at the expected revision",
                "read the entry again",
                {"current_revision": 3},
            )
        }
    )
    code, out, err = invoke(["rm", "ent_A", "--rev", "2"], rpc)
    assert code == memctl.EXIT_FAILED
    assert out == ""
    lines = err.splitlines()
    assert lines[0] == "memctl: the entry is not at the expected revision (revision_conflict)"
    # The wire's recovery ("read the entry again") speaks for any client; at
    # the shell memctl says it in its own commands, with the ids it knows.
    assert lines[1] == (
        "  what to do: the entry changed: see it with `memctl show ent_A` and repeat with --rev 3"
    )
    assert "current_revision=3" in err


def test_method_not_found_names_the_method() -> None:
    rpc = FakeRpc(
        {
            "memory.gc": rpc_error(
                -32601, "method_not_found", "no such method", "check the method name"
            )
        }
    )
    code, _out, err = invoke(["gc"], rpc)
    assert code == memctl.EXIT_FAILED
    assert "(method_not_found)" in err
    assert "memory.gc" in err


def test_invalid_params_lists_fields() -> None:
    error = RpcError(
        -32602,
        "Invalid params",
        {
            "code": "invalid_params",
            "message": "the params do not match",
            "recovery": "fix",
            "errors": [{"path": "$.page_size", "expected": "int"}],
        },
    )
    code, _out, err = invoke(["ls", "--page-size", "50"], FakeRpc({"memory.list": error}))
    assert code == memctl.EXIT_FAILED
    assert "field $.page_size: int" in err


def test_transport_failure_exits_4() -> None:
    def boom(_params: dict[str, Any]) -> Any:
        raise TimeoutError("memoryd did not answer within 30 s")

    code, _out, err = invoke(["status"], FakeRpc({"memory.status": boom}))
    assert code == memctl.EXIT_TRANSPORT
    assert "did not answer" in err


def test_client_is_closed_after_the_command() -> None:
    rpc = FakeRpc()
    invoke(["status"], rpc)
    assert rpc.closed


def test_json_flag_prints_the_raw_result() -> None:
    code, out, _err = invoke(
        ["approve", "act_1", "--json"], FakeRpc({"governance.action.approve": APPLIED})
    )
    assert code == 0
    assert json.loads(out) == APPLIED


def test_json_given_to_parent_survives_nested_subcommand() -> None:
    code, out, _err = invoke(
        ["pending", "--json", "show", "act_1"],
        FakeRpc({"governance.action.get": {"action_id": "act_1"}}),
    )
    assert code == 0
    assert json.loads(out) == {"action_id": "act_1"}


# --- multi-call commands ----------------------------------------------------------------


def test_consent_set_reads_version_then_sets() -> None:
    rpc = FakeRpc(
        {
            "consent.get": {
                "owner": "own_1",
                "read": False,
                "contribute": False,
                "learn_from_tools": False,
                "version": 7,
            },
            "consent.set": {
                "owner": "own_1",
                "read": True,
                "contribute": False,
                "learn_from_tools": False,
                "version": 8,
            },
        }
    )
    code, out, _err = invoke(["consent", "set", "--read", "on", "--contribute", "off", *ALICE], rpc)
    assert code == 0
    assert rpc.calls == [
        ("consent.get", {"identity": ALICE_ID}),
        ("consent.set", {"read": True, "contribute": False, "version": 7, "identity": ALICE_ID}),
        ("token.list", {}),  # after the change: the owner is shown with its labels
    ]
    assert "read:" in out and "on" in out


def test_consent_set_without_switches_calls_nothing() -> None:
    rpc = FakeRpc()
    code, _out, err = invoke(["consent", "set"], rpc)
    assert code == memctl.EXIT_USAGE
    assert rpc.calls == []
    assert "--read" in err


def test_consent_set_race_is_reported_not_retried() -> None:
    rpc = FakeRpc(
        {
            "consent.get": {"version": 2},
            "consent.set": rpc_error(-32002, "revision_conflict", "stale", "re-read"),
        }
    )
    code, _out, err = invoke(["consent", "set", "--read", "on"], rpc)
    assert code == memctl.EXIT_FAILED
    assert [m for m, _ in rpc.calls] == ["consent.get", "consent.set"]
    assert "revision_conflict" in err and "changed by someone else" in err


def test_context_begins_recalls_and_ends_a_task(tmp_path: Path) -> None:
    rpc = FakeRpc(
        {
            "task.begin": {"task_id": "tsk_1"},
            "memory.context": {
                "snapshot_id": "snp_1",
                "task_id": "tsk_1",
                "entries": [
                    {
                        "id": "ent_A",
                        "title": "Sky",
                        "type": "fact",
                        "scope": "default",
                        "score": 1.5,
                    }
                ],
                "rendered": "BEGIN\nSky\nEND",
                "omitted": {"import": 1},
            },
            "task.end": {},
        }
    )
    code, out, _err = invoke(
        ["context", "--intent", "deploy", "--scope", "p", "--workspace", str(tmp_path), *ALICE], rpc
    )
    assert code == 0
    assert rpc.calls == [
        (
            "task.begin",
            {"scopes": ["p"], "workspace": str(tmp_path.resolve()), "identity": ALICE_ID},
        ),
        ("memory.context", {"task_id": "tsk_1", "intent": "deploy"}),
        ("task.end", {"task_id": "tsk_1"}),
    ]
    assert "snp_1" in out and "1.500" in out and "BEGIN" in out and "import 1" in out


def test_context_ends_the_task_when_recall_fails() -> None:
    rpc = FakeRpc(
        {
            "task.begin": {"task_id": "tsk_1"},
            "memory.context": rpc_error(-32601, "method_not_found", "no such method", "check"),
        }
    )
    code, _out, err = invoke(["context", "--intent", "x"], rpc)
    assert code == memctl.EXIT_FAILED
    assert rpc.calls[-1] == ("task.end", {"task_id": "tsk_1"})
    assert "memory.context" in err


def test_audit_export_pages_until_done() -> None:
    pages = {
        0: {"events": [{"seq": 1}, {"seq": 2}], "next_after_seq": 2},
        2: {"events": [{"seq": 3}], "next_after_seq": None},
    }
    rpc = FakeRpc({"audit.export": lambda p: pages[p["after_seq"]]})
    code, out, _err = invoke(["audit", "export", "--limit", "2"], rpc)
    assert code == 0
    assert [json.loads(line)["seq"] for line in out.splitlines()] == [1, 2, 3]
    assert rpc.calls == [
        ("audit.export", {"after_seq": 0, "limit": 2}),
        ("audit.export", {"after_seq": 2, "limit": 2}),
    ]


def test_audit_export_refuses_a_page_marker_that_does_not_advance() -> None:
    rpc = FakeRpc({"audit.export": {"events": [], "next_after_seq": 0}})
    code, _out, err = invoke(["audit", "export"], rpc)
    assert code == memctl.EXIT_TRANSPORT
    assert "does not advance" in err


# --- results that decide the exit status --------------------------------------------------


def test_audit_verify_failure_exits_1_and_names_the_seq() -> None:
    result = {
        "ok": False,
        "checked": 4,
        "first_bad_seq": 5,
        "reason": "hash_mismatch",
        "head": {"seq": 4, "hash": "ab" * 32},
    }
    code, out, _err = invoke(["audit", "verify"], FakeRpc({"audit.verify": result}))
    assert code == memctl.EXIT_FAILED
    assert "seq 5" in out and "hash_mismatch" in out


def test_audit_verify_ok_exits_0() -> None:
    result = {
        "ok": True,
        "checked": 9,
        "first_bad_seq": None,
        "reason": None,
        "head": {"seq": 9, "hash": "cd" * 32},
    }
    code, out, _err = invoke(["audit", "verify"], FakeRpc({"audit.verify": result}))
    assert code == 0
    assert out.startswith("audit chain ok: 9 events")


def test_policy_reload_refused_exits_1_with_the_error() -> None:
    result = {"loaded": False, "hash": "pol_old", "error": "rule r1: unknown field"}
    code, out, _err = invoke(["policy", "reload"], FakeRpc({"policy.reload": result}))
    assert code == memctl.EXIT_FAILED
    assert "rule r1: unknown field" in out and "pol_old" in out


def test_audit_checkpoint_prints_json() -> None:
    checkpoint = {"seq": 3, "hash": "ab", "ts": "t", "signature": "s", "public_key": "k"}
    code, out, _err = invoke(["audit", "checkpoint"], FakeRpc({"audit.checkpoint": checkpoint}))
    assert code == 0
    assert json.loads(out) == checkpoint


# --- rendering -------------------------------------------------------------------------------


def test_status_shows_the_operator_facts() -> None:
    text = fmt.status(
        {
            "backend": {
                "kind": "sqlite",
                "durability": "wal",
                "sharing": "single-host",
                "health": "ok",
            },
            "counts": {"active": 3, "archived": 1},
            "pending_actions": 2,
            "audit": {"seq": 41, "hash": "ab" * 32, "verified": True},
            "identity": {"owner": "own_1", "source": "env_user", "identity_verified": False},
            "consent": {"read": True, "contribute": False, "learn_from_tools": False, "version": 4},
            "policy": {"hash": "pol_9"},
        }
    )
    for fact in (
        "sqlite",
        "active 3",
        "pending actions:   2",
        "seq 41",
        "own_1",
        "env_user",
        "read on, contribute off",
        "pol_9",
    ):
        assert fact in text


def test_listing_is_a_table_with_the_next_cursor() -> None:
    text = fmt.listing(
        {
            "items": [
                {
                    "id": "ent_A",
                    "type": "fact",
                    "status": "active",
                    "revision": 2,
                    "scope": "default",
                    "title": "Sky",
                    "expires_at": "2027-03-01T00:00:00.000000Z",
                }
            ],
            "mode": "list",
            "next_cursor": "CUR",
            "coverage": {"complete": True},
        }
    )
    header, row = text.splitlines()[:2]
    assert header.split() == ["ID", "TYPE", "STATUS", "REV", "SCOPE", "EXPIRES", "TITLE"]
    assert row.split() == ["ent_A", "fact", "active", "2", "default", "2027-03-01", "Sky"]
    assert "memctl ls --cursor CUR" in text


def test_show_prints_the_body_and_pending_proposals() -> None:
    text = fmt.entries(
        {
            "entries": [ENTRY],
            "pending": [
                {
                    "action_id": "act_1",
                    "entry_ids": ["ent_A"],
                    "ops_summary": [
                        {
                            "action": "replace",
                            "target": "memory",
                            "scope": "default",
                            "entry_id": "ent_A",
                            "expected_revision": 2,
                        }
                    ],
                }
            ],
        }
    )
    assert "The sky is blue" in text
    assert "human — seen" in text
    assert "act_1" in text and "replace memory/default ent_A@2" in text


def test_write_result_shows_ids_revisions_and_warnings() -> None:
    text = fmt.write_result(APPLIED)
    assert "op_1" in text and "ent_A" in text and "rev 2" in text
    assert "warning: content changed without refreshed attribution" in text


def test_pending_write_tells_how_to_decide() -> None:
    text = fmt.write_result(
        {
            "outcome": "pending",
            "operation_id": None,
            "action_id": "act_7",
            "decision": {"effect": "requires_approval"},
            "entries": [],
            "warnings": [],
        }
    )
    assert "memctl approve act_7" in text


def test_action_detail_shows_proposed_content() -> None:
    text = fmt.action_detail(
        {
            "action_id": "act_1",
            "status": "pending",
            "resources": ["memory/default:add"],
            "ops": [
                {
                    "action": "add",
                    "target": "memory",
                    "scope": "default",
                    "entry_id": None,
                    "expected_revision": None,
                    "entry": {"type": "fact", "title": "Sky", "body": "line one\nline two"},
                }
            ],
        }
    )
    assert "Sky" in text and "      line one\n      line two" in text
    assert "memctl approve act_1" in text


def test_token_issue_shows_the_token_once_with_a_warning() -> None:
    code, out, _err = invoke(
        ["token", "issue", "--kind", "local", "--subject", "bob"],
        FakeRpc(
            {
                "token.issue": {
                    "token": "mdt_SECRET",
                    "token_id": "tok_1",
                    "owner": "own_1",
                    "expires_at": None,
                }
            }
        ),
    )
    assert code == 0
    assert out.count("mdt_SECRET") == 1
    assert "cannot show it again" in out


@pytest.mark.parametrize("render", [fmt.generic, fmt.tokens])
def test_other_output_never_shows_a_token(render: Callable[[Any], str]) -> None:
    result = {
        "items": [{"token_id": "tok_1", "token": "mdt_SECRET", "state": "active"}],
        "token": "mdt_SECRET",
    }
    assert "mdt_SECRET" not in render(result)


def test_stored_text_cannot_drive_the_terminal() -> None:
    hostile = dict(ENTRY, title="a\x1b[2Jb", body="x\x1b]0;pwned\x07y\u202e")
    text = fmt.entries({"entries": [hostile]}) + fmt.listing({"items": [hostile]})
    assert "\x1b" not in text and "\x07" not in text and "\u202e" not in text
    assert "\\x1b[2J" in text and "\\u202e" in text


def test_renderers_tolerate_missing_fields() -> None:
    for key, command in COMMANDS.items():
        if command.build is not None:
            assert isinstance(command.render({}), str), key
    assert fmt.generic(None) == "-"


# --- local scan ------------------------------------------------------------------------------


def test_scan_clean_exits_0() -> None:
    code, out, _err = invoke(["scan"], stdin="Prefers small commits.\n")
    assert (code, out.strip()) == (0, "clean")


def test_scan_rejection_shows_rules_and_offsets_never_the_text() -> None:
    secret = "AKIA" + "Q3EGT7VNMWK2PX4R"
    code, out, _err = invoke(["scan", "--title", "keys"], stdin=f"the key is {secret}\n")
    assert code == memctl.EXIT_FAILED
    assert out.startswith("rejected: secret_detected")
    assert "body [11:31]" in out
    assert secret not in out


def test_scan_without_the_scanner_says_so(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "memoryd.kernel.scan", None)
    code, out, err = invoke(["scan"], stdin="text")
    assert code == memctl.EXIT_TRANSPORT
    assert out == ""
    assert "scanner" in err


@pytest.mark.parametrize(
    "titles",
    [
        ("部署注意事项", "Deploy notes"),
        ("ｆｕｌｌｗｉｄｔｈ", "ascii"),
        ("日本語のメモ", "한국어 메모", "plain"),
    ],
)
def test_table_columns_line_up_on_screen_with_wide_characters(titles: tuple[str, ...]) -> None:
    # A CJK character takes two terminal cells: columns must line up by cells
    # on screen, not by code points.
    from wcwidth import wcswidth

    out = fmt.table(["TITLE", "ID"], [[t, f"ent_{i}"] for i, t in enumerate(titles)])
    starts = {wcswidth(line[: line.index("ent_")]) for line in out.splitlines()[1:]}
    assert len(starts) == 1, out
    header = out.splitlines()[0]
    assert wcswidth(header[: header.index("ID")]) == starts.pop()


def test_team_membership_needs_a_named_member() -> None:
    """The default identity is never added or removed by omission."""
    for verb in ("add", "remove"):
        with pytest.raises(UsageError):
            request_for(["team", verb, "ops"])


def test_team_ls_shows_scopes_and_member_owner_ids() -> None:
    out = fmt.teams(
        {
            "teams": [
                {
                    "name": "ops",
                    "scope": "team:ops",
                    "created_at": "2025-01-01T00:00:00Z",
                    "members": [
                        {"owner": "own_a", "added_at": "x"},
                        {"owner": "own_b", "added_at": "y"},
                    ],
                },
                {
                    "name": "qa",
                    "scope": "team:qa",
                    "created_at": "2025-01-02T00:00:00Z",
                    "members": [],
                },
            ]
        }
    )
    assert "team:ops" in out and "own_a, own_b" in out
    assert out.splitlines()[-1].split()[-1] == "none"
    assert fmt.teams({"teams": []}) == "no teams"
