"""memctl, the operator's command-line client for memoryd.

Owns: the command line (argparse), turning each subcommand into the JSON-RPC
call(s) it stands for, and reporting the outcome (human text by default,
the raw JSON result with ``--json``). Rendering lives in
``rpc.memctl_format``; the reference is ``docs/memctl.md``.

Shape: every subcommand is one row of ``COMMANDS``. A row's ``build`` is a
pure function from the parsed arguments to a ``Request`` (method + params),
so what memctl would send can be tested without a daemon; the few commands
that need several calls (``consent set``, ``context``, ``audit export``) or
none (``scan``) have their own ``run``.

Invariants:
- memctl talks only to ``control.sock`` of the home resolved like
  ``memoryd serve`` does (``--home``, ``$MEMORYD_HOME``, XDG, ``~``), through
  ``rpc.client.Client``, and sends each request once (no silent retries);
- exit status: 0 success; 1 the daemon refused (error reply), a verification
  failed, a policy was not loaded, or content was rejected; 2 bad usage;
  3 the daemon cannot be reached; 4 the exchange broke (timeout, lost
  connection, unreadable reply, scanner unavailable);
- human output never shows a token except right after ``token issue``;
  error reports never include request text.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final, Protocol, TextIO

from rpc import memctl_format as fmt
from rpc.client import BadReply, Client, ConnectError, ConnectionLost, RpcError
from rpc.paths import control_socket, resolve_home

__all__ = [
    "COMMANDS",
    "EXIT_FAILED",
    "EXIT_NOT_RUNNING",
    "EXIT_OK",
    "EXIT_TRANSPORT",
    "EXIT_USAGE",
    "Command",
    "Io",
    "Request",
    "Rpc",
    "UsageError",
    "build_parser",
    "main",
    "parse",
    "run",
]

EXIT_OK: Final = 0
EXIT_FAILED: Final = 1
EXIT_USAGE: Final = 2
EXIT_NOT_RUNNING: Final = 3
EXIT_TRANSPORT: Final = 4

# The daemon's default per-entry body limit (SPEC §6), used by the local scan.
DEFAULT_MAX_BODY_BYTES: Final = 4_000

# Choices offered on the command line. They mirror the Literals of
# rpc/schema.py (a unit test keeps them equal); they are spelled out here so
# that memctl does not load the server-side schema module to start.
TARGETS: Final = ("memory", "user")
ENTRY_TYPES: Final = ("preference", "procedure", "fact", "lesson")
STATUSES: Final = ("active", "superseded", "archived", "expired", "removed")
ACTION_STATUSES: Final = ("pending", "approved", "denied", "expired", "failed")
BASIS_KINDS: Final = ("human", "observed", "derived", "unknown")


class UsageError(Exception):
    """A command line memctl refuses before talking to the daemon."""


class Rpc(Protocol):
    """What memctl needs of a client (``rpc.client.Client`` fits)."""

    def call(self, method: str, params: Mapping[str, Any] | None = None, /) -> Any: ...

    def close(self) -> None: ...


@dataclass(frozen=True)
class Request:
    method: str
    params: dict[str, Any]
    # Said on stderr before the call (e.g. options that were ignored).
    notes: tuple[str, ...] = ()


@dataclass
class Io:
    stdout: TextIO = field(default_factory=lambda: sys.stdout)
    stderr: TextIO = field(default_factory=lambda: sys.stderr)
    stdin: TextIO = field(default_factory=lambda: sys.stdin)

    def read_text(self, path: str) -> str:
        """A file's text, or stdin's for ``-``; one final newline is dropped."""
        try:
            if path == "-":
                raw = getattr(self.stdin, "buffer", None)
                text = raw.read().decode("utf-8") if raw is not None else self.stdin.read()
            else:
                text = Path(path).read_text(encoding="utf-8")
        except UnicodeDecodeError:
            raise UsageError(f"{'stdin' if path == '-' else path} is not UTF-8 text") from None
        except OSError as exc:
            raise UsageError(f"cannot read {path}: {exc.strerror or exc}") from None
        return text.removesuffix("\n")

    def out(self, text: str) -> None:
        print(text, file=self.stdout)

    def err(self, text: str) -> None:
        print(text, file=self.stderr)


Reader = Callable[[str], str]
Builder = Callable[[argparse.Namespace, Reader], Request]
Renderer = Callable[[Any], str]
Runner = Callable[[argparse.Namespace, Rpc, Io], int]


def _always_ok(_result: Any) -> int:
    return EXIT_OK


@dataclass(frozen=True)
class Command:
    """One subcommand: how to build its request, render its result and judge it.

    ``run`` replaces the build/call/render cycle for commands that make
    several calls (or none: ``needs_daemon=False``)."""

    build: Builder | None
    render: Renderer = fmt.generic
    judge: Callable[[Any], int] = _always_ok
    run: Runner | None = None
    needs_daemon: bool = True


# --- argument helpers ----------------------------------------------------------


def _opt(args: argparse.Namespace, name: str) -> Any:
    # Shared options default to SUPPRESS (see _parents), so they may be absent.
    return getattr(args, name, None)


def _identity(args: argparse.Namespace) -> dict[str, Any] | None:
    kind, subject = _opt(args, "identity_kind"), _opt(args, "identity_subject")
    issuer = _opt(args, "identity_issuer")
    if kind is None and subject is None:
        if issuer is not None:
            raise UsageError("--identity-issuer needs --identity-kind and --identity-subject")
        return None
    if kind is None or subject is None:
        raise UsageError("--identity-kind and --identity-subject go together")
    return _identity_of(kind, subject, issuer)


def _identity_of(kind: str, subject: str, issuer: str | None) -> dict[str, Any]:
    ident: dict[str, Any] = {"kind": kind, "subject": subject}
    if issuer is not None:
        ident["issuer"] = issuer
    return ident


def _with_identity(args: argparse.Namespace, params: dict[str, Any]) -> dict[str, Any]:
    ident = _identity(args)
    return params if ident is None else {**params, "identity": ident}


def _drop_none(params: Mapping[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in params.items() if v is not None}


def _switch(text: str) -> bool:
    value = text.strip().lower()
    if value in ("on", "true", "yes", "1"):
        return True
    if value in ("off", "false", "no", "0"):
        return False
    raise argparse.ArgumentTypeError(f"expected on or off, not {text!r}")


def _positive_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number, not {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError("expected a number of 1 or more")
    return value


def _json_object(text: str, where: str) -> dict[str, Any]:
    try:
        value = json.loads(text)
    except json.JSONDecodeError as exc:
        raise UsageError(f"{where} is not valid JSON (line {exc.lineno}, column {exc.colno})") \
            from None
    if not isinstance(value, dict):
        raise UsageError(f"{where} must hold one JSON object")
    return value


# --- builders: pure functions from arguments to a request -----------------------


def build_status(args: argparse.Namespace, _read: Reader) -> Request:
    return Request("memory.status", _with_identity(args, {}))


_LS_FILTERS: Final = ("target", "scope", "statuses", "types", "search", "mode", "page_size")


def build_ls(args: argparse.Namespace, _read: Reader) -> Request:
    if args.cursor is not None:
        # A cursor is bound to the filters of the listing it came from and
        # carries them; sending filters too is refused by the daemon.
        given = [name for name in _LS_FILTERS if getattr(args, name) is not None]
        notes = (f"note: --cursor continues its own listing; ignored: "
                 f"{', '.join('--' + n.replace('_', '-') for n in given)}",) if given else ()
        return Request("memory.list", _with_identity(args, {"cursor": args.cursor}), notes)
    params = _drop_none({
        "target": args.target, "scope": args.scope, "statuses": args.statuses,
        "types": args.types, "query": args.search, "mode": args.mode,
        "page_size": args.page_size,
    })
    return Request("memory.list", _with_identity(args, params))


def build_show(args: argparse.Namespace, _read: Reader) -> Request:
    if len(args.ids) > 10:
        raise UsageError("show reads at most 10 entries at a time")
    params: dict[str, Any] = {"ids": list(args.ids)}
    if args.pending:
        params["include_pending"] = True
    return Request("memory.read", _with_identity(args, params))


def _entry(args: argparse.Namespace, read: Reader) -> dict[str, Any]:
    if args.title is None:
        raise UsageError("--title is required")
    if args.type is None:
        raise UsageError(f"--type is required ({', '.join(ENTRY_TYPES)})")
    if (args.body is None) == (args.body_file is None):
        raise UsageError("give the body with exactly one of --body TEXT or --body-file FILE|-")
    body = args.body if args.body is not None else read(args.body_file)
    entry: dict[str, Any] = {"type": args.type, "title": args.title, "body": body}
    if args.summary is not None:
        entry["summary"] = args.summary
    if args.ttl_days is not None:
        entry["ttl_days"] = args.ttl_days
    if args.pinned:
        entry["pinned"] = True
    if args.basis_note is not None and args.basis_kind is None:
        raise UsageError("--basis-note needs --basis-kind")
    if args.basis_kind is not None:
        entry["basis"] = _drop_none({"kind": args.basis_kind, "note": args.basis_note})
    return entry


def _write_params(args: argparse.Namespace, action: str, **extra: Any) -> dict[str, Any]:
    params = _drop_none({
        "target": args.target, "scope": args.scope, "action": action, **extra,
        "idempotency_key": args.idempotency_key,
    })
    if getattr(args, "import_", False):
        params["source"] = "import"
    return _with_identity(args, params)


_ENTRY_OPTIONS: Final = ("title", "body", "body_file", "type", "summary", "ttl_days",
                         "basis_kind", "basis_note", "replace", "rev", "target", "scope",
                         "idempotency_key", "identity_kind", "identity_subject")


def build_write(args: argparse.Namespace, read: Reader) -> Request:
    if args.json_params is not None:
        mixed = [n for n in _ENTRY_OPTIONS if _opt(args, n) is not None]
        if mixed or args.pinned or args.import_:
            raise UsageError("--json-params sends the params as given; "
                             "put every field in the JSON instead of options")
        return Request("memory.write", _json_object(read(args.json_params), "--json-params"))
    if args.rev is not None and args.replace is None:
        raise UsageError("--rev goes with --replace ID")
    if args.replace is not None:
        if args.rev is None:
            raise UsageError("--replace needs --rev N, the revision being replaced "
                             "(see memctl show ID)")
        return Request("memory.write", _write_params(
            args, "replace", id=args.replace, expected_revision=args.rev,
            entry=_entry(args, read)))
    return Request("memory.write", _write_params(args, "add", entry=_entry(args, read)))


def build_rm(args: argparse.Namespace, _read: Reader) -> Request:
    return Request("memory.write", _write_params(
        args, "remove", id=args.id, expected_revision=args.rev))


def build_archive(args: argparse.Namespace, _read: Reader) -> Request:
    covered = None
    if (args.covered_by is None) != (args.covered_rev is None):
        raise UsageError("--covered-by ID and --covered-rev N go together")
    if args.covered_by is not None:
        covered = {"id": args.covered_by, "expected_revision": args.covered_rev}
    return Request("memory.write", _write_params(
        args, "archive", id=args.id, expected_revision=args.rev, reason=args.reason,
        covered_by=covered))


def build_supersede(args: argparse.Namespace, read: Reader) -> Request:
    return Request("memory.write", _write_params(
        args, "supersede", id=args.id, expected_revision=args.rev, entry=_entry(args, read)))


def build_journal(args: argparse.Namespace, _read: Reader) -> Request:
    return Request("memory.journal", _with_identity(
        args, _drop_none({"cursor": args.cursor, "page_size": args.page_size})))


def build_undo(args: argparse.Namespace, _read: Reader) -> Request:
    return Request("memory.undo", _with_identity(args, {"operation_id": args.operation_id}))


def build_receipt(args: argparse.Namespace, _read: Reader) -> Request:
    return Request("memory.receipt", _with_identity(args, {"receipt_id": args.receipt_id}))


def build_gc(_args: argparse.Namespace, _read: Reader) -> Request:
    return Request("memory.gc", {})


def build_pending(args: argparse.Namespace, _read: Reader) -> Request:
    return Request("governance.action.list",
                   _drop_none({"status": args.status, "cursor": args.cursor}))


def build_action(args: argparse.Namespace, _read: Reader) -> Request:
    return Request("governance.action.get", {"action_id": args.action_id})


def build_approve(args: argparse.Namespace, _read: Reader) -> Request:
    return Request("governance.action.approve", {"action_id": args.action_id})


def build_deny(args: argparse.Namespace, _read: Reader) -> Request:
    return Request("governance.action.deny",
                   _drop_none({"action_id": args.action_id, "reason": args.reason}))


def build_consent(args: argparse.Namespace, _read: Reader) -> Request:
    return Request("consent.get", _with_identity(args, {}))


def build_consent_set(args: argparse.Namespace, version: int) -> Request:
    """consent.set for the switches given, against the ``version`` just read."""
    switches = _drop_none({"read": args.read, "contribute": args.contribute,
                           "learn_from_tools": args.learn_from_tools})
    if not switches:
        raise UsageError("say what to change: --read, --contribute and/or --learn-from-tools")
    return Request("consent.set", _with_identity(args, {**switches, "version": version}))


def build_token_issue(args: argparse.Namespace, _read: Reader) -> Request:
    params: dict[str, Any] = {"identity": _identity_of(args.kind, args.subject, args.issuer)}
    if args.scopes:
        params["scopes"] = list(args.scopes)
    if args.expires_in is not None:
        params["expires_in"] = args.expires_in
    return Request("token.issue", params)


def build_token_ls(args: argparse.Namespace, _read: Reader) -> Request:
    return Request("token.list", _with_identity(args, {}))


def build_token_revoke(args: argparse.Namespace, _read: Reader) -> Request:
    return Request("token.revoke", {"token_id": args.token_id})


def build_task_begin(args: argparse.Namespace) -> Request:
    params: dict[str, Any] = {}
    if args.scopes:
        params["scopes"] = list(args.scopes)
    if args.workspace is not None:
        # The daemon hashes the workspace's real path; its own working
        # directory is not ours, so the path must be made absolute here.
        params["workspace"] = os.path.realpath(args.workspace)
    return Request("task.begin", _with_identity(args, params))


def build_audit_verify(args: argparse.Namespace, read: Reader) -> Request:
    if args.checkpoint is None:
        return Request("audit.verify", {})
    return Request("audit.verify",
                   {"checkpoint": _json_object(read(args.checkpoint), args.checkpoint)})


def build_audit_export_page(args: argparse.Namespace, after_seq: int) -> Request:
    return Request("audit.export", {"after_seq": after_seq, "limit": args.limit})


def build_audit_checkpoint(_args: argparse.Namespace, _read: Reader) -> Request:
    return Request("audit.checkpoint", {})


def build_policy_reload(_args: argparse.Namespace, _read: Reader) -> Request:
    return Request("policy.reload", {})


# --- runners for commands that are more than one call -----------------------------


def _emit(io: Io, args: argparse.Namespace, result: Any, render: Renderer) -> None:
    if _opt(args, "json"):
        io.out(json.dumps(result, indent=2, ensure_ascii=False))
    else:
        io.out(render(result))


def run_consent_set(args: argparse.Namespace, rpc: Rpc, io: Io) -> int:
    probe = build_consent_set(args, 0)  # refuse an empty change before any call
    current = rpc.call("consent.get", _with_identity(args, {}))
    version = current.get("version") if isinstance(current, Mapping) else None
    if not isinstance(version, int):
        raise BadReply("memoryd's consent.get answer has no version")
    request = build_consent_set(args, version)
    del probe
    try:
        result = rpc.call(request.method, request.params)
    except RpcError as exc:
        if exc.data_code != "revision_conflict":
            raise
        io.err(f"memctl: consent was changed by someone else between reading it (version "
               f"{version}) and writing it; nothing was changed (revision_conflict)")
        io.err("  what to do: check it with `memctl consent`, then run this command again")
        return EXIT_FAILED
    _emit(io, args, result, fmt.consent)
    return EXIT_OK


def run_context(args: argparse.Namespace, rpc: Rpc, io: Io) -> int:
    begin = build_task_begin(args)
    task = rpc.call(begin.method, begin.params)
    task_id = task.get("task_id") if isinstance(task, Mapping) else None
    if not isinstance(task_id, str):
        raise BadReply("memoryd's task.begin answer has no task_id")
    try:
        result = rpc.call("memory.context", {"task_id": task_id, "intent": args.intent})
    finally:
        try:
            rpc.call("task.end", {"task_id": task_id})
        except RpcError as exc:
            io.err(f"memctl: note: task {task_id} could not be ended ({exc}); "
                   "it expires with the task TTL")
    _emit(io, args, result, fmt.context)
    return EXIT_OK


def run_audit_export(args: argparse.Namespace, rpc: Rpc, io: Io) -> int:
    after: int | None = args.after_seq
    while after is not None:
        request = build_audit_export_page(args, after)
        page = rpc.call(request.method, request.params)
        events = page.get("events") if isinstance(page, Mapping) else None
        if not isinstance(events, list):
            raise BadReply("memoryd's audit.export answer has no events list")
        for event in events:
            io.out(json.dumps(event, ensure_ascii=False, separators=(",", ":")))
        following = page.get("next_after_seq")
        if following is not None and (not isinstance(following, int) or following <= after):
            # Never loop on a page marker that does not move forward.
            raise BadReply("memoryd's audit.export answer does not advance")
        after = following
    return EXIT_OK


def run_scan(args: argparse.Namespace, _rpc: Rpc, io: Io) -> int:
    try:
        import kernel.scan as scanner
        from kernel.errors import ContentRejected, LimitExceeded
    except ImportError:
        io.err("memctl: the content scanner (kernel.scan) is not installed here")
        return EXIT_TRANSPORT
    body = io.read_text(args.body_file)
    # Without --title only the body (and summary) is judged: a neutral title
    # keeps the empty-content rule from firing on a title nobody gave.
    title = args.title if args.title is not None else "untitled"
    code: str | None = None
    details: dict[str, Any] = {}
    try:
        scanner.check_entry(title, body, args.summary, max_body_bytes=args.max_body_bytes)
    except (ContentRejected, LimitExceeded) as exc:
        code, details = exc.code, dict(exc.details or {})
    except Exception:  # noqa: BLE001 - fail closed: a scanner fault is never "clean"
        io.err("memctl: the content scanner failed; the content was NOT judged clean")
        return EXIT_TRANSPORT
    if _opt(args, "json"):
        io.out(json.dumps({"clean": code is None, "code": code, "details": details}, indent=2))
    else:
        io.out(fmt.scan_verdict(code, details))
    return EXIT_OK if code is None else EXIT_FAILED


# --- the table ---------------------------------------------------------------------


def _verify_judge(result: Any) -> int:
    return EXIT_OK if isinstance(result, Mapping) and result.get("ok") is True else EXIT_FAILED


def _policy_judge(result: Any) -> int:
    return EXIT_OK if isinstance(result, Mapping) and result.get("loaded") is True \
        else EXIT_FAILED


def _pretty_json(result: Any) -> str:
    return json.dumps(result, indent=2, ensure_ascii=False)


def _denied(result: Any) -> str:
    action = result.get("action_id") if isinstance(result, Mapping) else None
    return f"denied {fmt.cell(action)}"


def run_mcp(args: argparse.Namespace, _rpc: Rpc, io: Io) -> int:
    # The bridge needs the optional MCP SDK (memoryd[mcp]): import it only
    # here, so every other subcommand works without it.
    try:
        from rpc import mcp_bridge
    except ImportError:
        io.err("memctl mcp: the MCP SDK is not installed; install memoryd[mcp] "
               "(pip install 'memoryd[mcp]')")
        return EXIT_FAILED
    return mcp_bridge.main(args.bridge_args, home=args.home, timeout=args.timeout)


def build_backup(args: argparse.Namespace, _read: Reader) -> Request:
    return Request("admin.backup", {"path": os.path.abspath(args.dest)})


COMMANDS: Final[dict[str, Command]] = {
    "status": Command(build_status, fmt.status),
    "ls": Command(build_ls, fmt.listing),
    "show": Command(build_show, fmt.entries),
    "write": Command(build_write, fmt.write_result),
    "rm": Command(build_rm, fmt.write_result),
    "archive": Command(build_archive, fmt.write_result),
    "supersede": Command(build_supersede, fmt.write_result),
    "journal": Command(build_journal, fmt.generic),
    "undo": Command(build_undo, fmt.write_result),
    "receipt": Command(build_receipt, fmt.generic),
    "gc": Command(build_gc, fmt.generic),
    "pending": Command(build_pending, fmt.actions),
    "pending show": Command(build_action, fmt.action_detail),
    "action": Command(build_action, fmt.action_detail),
    "approve": Command(build_approve, fmt.write_result),
    "deny": Command(build_deny, _denied),
    "consent": Command(build_consent, fmt.consent),
    "consent set": Command(None, run=run_consent_set),
    "token issue": Command(build_token_issue, fmt.token_issued),
    "token ls": Command(build_token_ls, fmt.tokens),
    "token revoke": Command(build_token_revoke, fmt.token_revoked),
    "context": Command(None, run=run_context),
    "audit verify": Command(build_audit_verify, fmt.verify, _verify_judge),
    "audit export": Command(None, run=run_audit_export),
    "audit checkpoint": Command(build_audit_checkpoint, _pretty_json),
    "policy reload": Command(build_policy_reload, fmt.policy_reload, _policy_judge),
    "scan": Command(None, run=run_scan, needs_daemon=False),
    "mcp": Command(None, run=run_mcp, needs_daemon=False),
    "backup": Command(build_backup, fmt.generic),
}


def run_simple(command: Command, args: argparse.Namespace, rpc: Rpc, io: Io) -> int:
    assert command.build is not None
    request = command.build(args, io.read_text)
    for note in request.notes:
        io.err(note)
    result = rpc.call(request.method, request.params)
    _emit(io, args, result, command.render)
    return command.judge(result)


# --- the parser ----------------------------------------------------------------------

class _Formatter(argparse.RawDescriptionHelpFormatter):
    """Keeps the hand-wrapped descriptions and example blocks as written."""


def _examples(*lines: str) -> str:
    return "examples:\n" + "\n".join(f"  {line}" for line in lines)


@dataclass(frozen=True)
class _Parents:
    """Option groups shared by several subcommands (built once per parser)."""

    json: argparse.ArgumentParser
    identity: argparse.ArgumentParser
    place: argparse.ArgumentParser
    entry: argparse.ArgumentParser


def _parents() -> _Parents:
    # Shared options default to SUPPRESS so that a nested subcommand
    # (`pending show`, `consent set`) does not overwrite a value given to its
    # parent command with its own default.
    hide = argparse.SUPPRESS
    json_ = argparse.ArgumentParser(add_help=False)
    json_.add_argument("--json", action="store_true", default=hide,
                       help="print the raw JSON result (for scripts) instead of text")
    identity = argparse.ArgumentParser(add_help=False)
    group = identity.add_argument_group(
        "acting for another owner (default: the daemon's default identity)")
    group.add_argument("--identity-kind", metavar="KIND", default=hide,
                       help="identity kind, e.g. local, token, device, password")
    group.add_argument("--identity-subject", metavar="SUBJECT", default=hide,
                       help="the identity's subject (user name, device id, ...)")
    group.add_argument("--identity-issuer", metavar="ISSUER", default=hide,
                       help="the identity's issuer, if it has one")
    place = argparse.ArgumentParser(add_help=False)
    place.add_argument("--target", choices=TARGETS,
                       help="memory (project/agent notes, the default) or user (profile facts)")
    place.add_argument("--scope", metavar="SCOPE",
                       help="scope inside the target, e.g. project:acme (default: default)")
    place.add_argument("--idempotency-key", metavar="KEY",
                       help="makes a retry safe: a repeat with the same key returns the first "
                            "answer (1-128 of A-Z a-z 0-9 . _ : -)")
    entry = argparse.ArgumentParser(add_help=False)
    content = entry.add_argument_group("entry content")
    content.add_argument("--title", help="the entry's title (unique among active entries "
                                         "of a scope)")
    content.add_argument("--body", help="the entry's body text")
    content.add_argument("--body-file", metavar="FILE",
                         help="read the body from FILE, or from stdin with -")
    content.add_argument("--type", choices=ENTRY_TYPES, help="what kind of memory this is")
    content.add_argument("--summary", help="short card text (default: derived from the body)")
    content.add_argument("--ttl-days", type=float, metavar="DAYS",
                         help="keep it this many days unless renewed (default by type)")
    content.add_argument("--pinned", action="store_true", help="pin the entry")
    content.add_argument("--basis-kind", choices=BASIS_KINDS,
                         help="where the content comes from")
    content.add_argument("--basis-note", metavar="NOTE", help="a short note on the basis")
    content.add_argument("--import", dest="import_", action="store_true",
                         help="mark as imported older notes (listed, never injected in recall)")
    return _Parents(json_, identity, place, entry)


class _Tree:
    """Adds subcommands with the common options, help text and examples."""

    def __init__(self, parents: _Parents) -> None:
        self.p = parents

    def add(self, subs: Any, name: str, key: str, *, summary: str, description: str,
            examples: tuple[str, ...], identity: bool = False,
            extra: tuple[argparse.ArgumentParser, ...] = ()) -> argparse.ArgumentParser:
        parents = [self.p.json, *extra, *([self.p.identity] if identity else [])]
        parser: argparse.ArgumentParser = subs.add_parser(
            name, help=summary, description=description, epilog=_examples(*examples),
            formatter_class=_Formatter, parents=parents)
        parser.set_defaults(key=key)
        return parser


def _add_memory_reads(tree: _Tree, subs: Any) -> None:
    tree.add(subs, "status", "status", identity=True,
             summary="show the daemon's health and the owner's state",
             description="Show backend health, entry counts by status, pending actions, the "
                         "audit head,\nthe owner's identity and consent switches, and the "
                         "policy hash (memory.status).",
             examples=("memctl status", "memctl --home /srv/memoryd status --json"))
    ls = tree.add(subs, "ls", "ls", identity=True,
                  summary="list or search entries",
                  description="List the owner's entries (memory.list), newest first, or search "
                              "them with --search.\nPrints a table and, when there is more, the "
                              "command for the next page.",
                  examples=("memctl ls", "memctl ls --target memory --scope project:acme",
                            "memctl ls --status archived superseded --type fact",
                            'memctl ls --search "deploy steps"', "memctl ls --cursor CURSOR"))
    ls.add_argument("--target", choices=TARGETS, help="only this target")
    ls.add_argument("--scope", metavar="SCOPE", help="only this scope")
    ls.add_argument("--status", dest="statuses", choices=STATUSES, nargs="+",
                    action="extend", metavar="STATUS",
                    help=f"only these statuses ({', '.join(STATUSES)}); default active")
    ls.add_argument("--type", dest="types", choices=ENTRY_TYPES, nargs="+", action="extend",
                    metavar="TYPE", help=f"only these types ({', '.join(ENTRY_TYPES)})")
    ls.add_argument("--search", metavar="QUERY", help="rank entries against QUERY")
    ls.add_argument("--mode", choices=("list", "search"), help="force list or search mode")
    ls.add_argument("--page-size", type=_positive_int, metavar="N", help="entries per page "
                    "(1-20)")
    ls.add_argument("--cursor", metavar="CURSOR", help="the next page of an earlier listing "
                    "(the cursor carries its filters)")
    show = tree.add(subs, "show", "show", identity=True,
                    summary="show entries in full",
                    description="Show up to 10 entries with their bodies (memory.read).",
                    examples=("memctl show ent_01J...", "memctl show ent_A ent_B --pending"))
    show.add_argument("ids", nargs="+", metavar="ID", help="entry id")
    show.add_argument("--pending", action="store_true",
                      help="also list pending proposals that would change these entries")


def _add_memory_writes(tree: _Tree, subs: Any) -> None:
    p = tree.p
    write = tree.add(
        subs, "write", "write", identity=True, extra=(p.place, p.entry),
        summary="add an entry, replace one, or send raw write params",
        description="Add a new entry (memory.write action add), or with --replace ID --rev N "
                    "write a new\nrevision of an existing entry (the body is the whole new "
                    "body). --json-params sends\na params object as given, e.g. a batch.",
        examples=('memctl write --type preference --title "Editor" --body "Uses vim keys"',
                  "memctl write --type procedure --title Deploy --body-file deploy.md "
                  "--scope project:acme",
                  'echo "Prefers tabs" | memctl write --type preference --title Indent '
                  "--body-file -",
                  "memctl write --replace ent_01J... --rev 3 --type fact --title T "
                  "--body-file new.md",
                  "memctl write --json-params batch.json"))
    write.add_argument("--replace", metavar="ID", help="replace this entry")
    write.add_argument("--rev", type=_positive_int, metavar="N",
                       help="with --replace: the revision being replaced")
    write.add_argument("--json-params", metavar="FILE",
                       help="send the memory.write params in FILE (- for stdin) as they are")
    rev_help = "the entry's current revision (see memctl show ID)"
    rm = tree.add(subs, "rm", "rm", identity=True, extra=(p.place,),
                  summary="remove an entry (its body is destroyed)",
                  description="Remove an entry (memory.write action remove): the body is "
                              "destroyed, a tombstone\nis kept and a delete receipt returned. "
                              "A removal cannot be undone.",
                  examples=("memctl rm ent_01J... --rev 2",))
    rm.add_argument("id", metavar="ID", help="entry id")
    rm.add_argument("--rev", type=_positive_int, required=True, metavar="N", help=rev_help)
    archive = tree.add(subs, "archive", "archive", identity=True, extra=(p.place,),
                       summary="archive an entry (leaves recall, body kept)",
                       description="Archive an entry (memory.write action archive). With "
                                   "--covered-by, record the entry\nthat covers it; that "
                                   "entry's revision is re-checked.",
                       examples=('memctl archive ent_A --rev 2 --reason "outdated"',
                                 'memctl archive ent_A --rev 2 --reason merged '
                                 "--covered-by ent_B --covered-rev 4"))
    archive.add_argument("id", metavar="ID", help="entry id")
    archive.add_argument("--rev", type=_positive_int, required=True, metavar="N", help=rev_help)
    archive.add_argument("--reason", required=True, help="why it is archived")
    archive.add_argument("--covered-by", metavar="ID", help="the entry that covers this one")
    archive.add_argument("--covered-rev", type=_positive_int, metavar="N",
                         help="that entry's current revision")
    sup = tree.add(subs, "supersede", "supersede", identity=True, extra=(p.place, p.entry),
                   summary="replace an entry by a new one with its own id",
                   description="Supersede an entry (memory.write action supersede): a new "
                               "entry is written and the\nold one points at it.",
                   examples=("memctl supersede ent_A --rev 2 --type fact --title T "
                             "--body-file new.md",))
    sup.add_argument("id", metavar="ID", help="entry id")
    sup.add_argument("--rev", type=_positive_int, required=True, metavar="N", help=rev_help)


def _add_history(tree: _Tree, subs: Any) -> None:
    journal = tree.add(subs, "journal", "journal", identity=True,
                       summary="list applied operations, newest first",
                       description="List applied operations (memory.journal): ids and hashes, "
                                   "no text.",
                       examples=("memctl journal", "memctl journal --cursor CURSOR"))
    journal.add_argument("--cursor", metavar="CURSOR", help="the next page")
    journal.add_argument("--page-size", type=_positive_int, metavar="N", help="items per page")
    undo = tree.add(subs, "undo", "undo", identity=True,
                    summary="undo one applied operation",
                    description="Undo an operation (memory.undo) if its entries are still at "
                                "the revisions it\nproduced. A removal cannot be undone.",
                    examples=("memctl undo op_01J...",))
    undo.add_argument("operation_id", metavar="OP", help="operation id (see memctl journal)")
    receipt = tree.add(subs, "receipt", "receipt", identity=True,
                       summary="show a delete receipt",
                       description="Show how far a removal is proven (memory.receipt).",
                       examples=("memctl receipt rcp_01J...",))
    receipt.add_argument("receipt_id", metavar="RID", help="receipt id (from memctl rm)")
    tree.add(subs, "gc", "gc", summary="run retention clean-up now",
             description="Ask the daemon to expire and purge entries now (memory.gc).",
             examples=("memctl gc",))


def _add_governance(tree: _Tree, subs: Any) -> None:
    pending = tree.add(subs, "pending", "pending",
                       summary="list actions waiting for a decision",
                       description="List governed changes (governance.action.list), pending "
                                   "ones by default.\n`memctl pending show ID` shows one in "
                                   "full.",
                       examples=("memctl pending", "memctl pending --status denied",
                                 "memctl pending show act_01J..."))
    pending.add_argument("--status", choices=ACTION_STATUSES, help="which actions (default "
                         "pending)")
    pending.add_argument("--cursor", metavar="CURSOR", help="the next page")
    inner = pending.add_subparsers(title="subcommands", metavar="show")
    detail = ("Show one action (governance.action.get) with the proposed operations, "
              "titles and\nbodies, so you can judge it before approving.")
    show = tree.add(inner, "show", "pending show", summary="show one action in full",
                    description=detail, examples=("memctl pending show act_01J...",))
    show.add_argument("action_id", metavar="ACTION_ID", help="action id")
    action = tree.add(subs, "action", "action", summary="show one action in full",
                      description=detail, examples=("memctl action act_01J...",))
    action.add_argument("action_id", metavar="ACTION_ID", help="action id")
    approve = tree.add(subs, "approve", "approve", summary="approve a pending action",
                       description="Approve and apply a pending action "
                                   "(governance.action.approve). If its entries\nchanged "
                                   "since, it fails with decision_stale and nothing changes.",
                       examples=("memctl approve act_01J...",))
    approve.add_argument("action_id", metavar="ACTION_ID", help="action id")
    deny = tree.add(subs, "deny", "deny", summary="deny a pending action",
                    description="Deny a pending action (governance.action.deny).",
                    examples=("memctl deny act_01J...",
                              'memctl deny act_01J... --reason "not true"'))
    deny.add_argument("action_id", metavar="ACTION_ID", help="action id")
    deny.add_argument("--reason", help="why (kept with the decision)")


def _add_consent_tokens(tree: _Tree, subs: Any) -> None:
    consent = tree.add(subs, "consent", "consent", identity=True,
                       summary="show or change the owner's consent switches",
                       description="Show the consent switches (consent.get); `consent set` "
                                   "changes them. All are off\nfor a new owner; changes affect "
                                   "tasks begun afterwards.",
                       examples=("memctl consent", "memctl consent set --read on --contribute "
                                 "on", "memctl consent set --learn-from-tools off "
                                 "--identity-kind local --identity-subject alice"))
    inner = consent.add_subparsers(title="subcommands", metavar="set")
    cset = tree.add(inner, "set", "consent set", identity=True,
                    summary="change consent switches",
                    description="Read the current consent (for its version), then set the "
                                "switches given\n(consent.set). A change made meanwhile by "
                                "someone else is reported, not overwritten.",
                    examples=("memctl consent set --read on",
                              "memctl consent set --contribute on --learn-from-tools off"))
    for name, what in (("read", "tasks may use memories"),
                       ("contribute", "tasks may propose writes"),
                       ("learn-from-tools", "tasks that used external tools may contribute")):
        cset.add_argument(f"--{name}", type=_switch, metavar="on|off", help=what)
    token = subs.add_parser("token", help="issue, list and revoke agent tokens",
                            description="Agent tokens: an agent runner presents one to act "
                                        "for an owner.",
                            epilog=_examples("memctl token issue --kind local --subject alice",
                                             "memctl token ls", "memctl token revoke tok_..."),
                            formatter_class=_Formatter)
    tsubs = token.add_subparsers(title="subcommands", metavar="{issue,ls,revoke}",
                                 required=True)
    issue = tree.add(tsubs, "issue", "token issue", summary="issue a token",
                     description="Issue an agent token (token.issue). It is printed once and "
                                 "cannot be shown again.",
                     examples=("memctl token issue --kind local --subject alice",
                               "memctl token issue --kind local --subject alice "
                               "--scope project:acme --expires-in 86400"))
    issue.add_argument("--kind", required=True, help="identity kind, e.g. local")
    issue.add_argument("--subject", required=True, help="identity subject")
    issue.add_argument("--issuer", help="identity issuer")
    issue.add_argument("--scope", dest="scopes", action="append", metavar="SCOPE",
                       help="limit tasks begun with it to this memory scope (repeatable)")
    issue.add_argument("--expires-in", type=_positive_int, metavar="SECONDS",
                       help="lifetime in seconds (default: no expiry)")
    tree.add(tsubs, "ls", "token ls", identity=True, summary="list tokens (never the tokens "
             "themselves)", description="List issued tokens (token.list): ids, owners, "
             "states; never the token text.", examples=("memctl token ls",))
    revoke = tree.add(tsubs, "revoke", "token revoke", summary="revoke a token",
                      description="Revoke a token (token.revoke); tasks can no longer be "
                                  "begun with it.",
                      examples=("memctl token revoke tok_01J...",))
    revoke.add_argument("token_id", metavar="TOKEN_ID", help="token id (see memctl token ls)")


def _add_recall(tree: _Tree, subs: Any) -> None:
    ctx = tree.add(subs, "context", "context", identity=True,
                   summary="preview what an agent would recall for an intent",
                   description="Begin a task (task.begin), take its memory snapshot for the "
                               "intent\n(memory.context), end the task (task.end), and print the "
                               "cards and the rendered block.",
                   examples=('memctl context --intent "deploy the acme service"',
                             'memctl context --intent "fix the build" --workspace .',
                             'memctl context --intent "release" --scope project:acme'))
    ctx.add_argument("--intent", required=True, help="what the agent is about to do")
    ctx.add_argument("--scope", dest="scopes", action="append", metavar="SCOPE",
                     help="memory scope to read (repeatable)")
    ctx.add_argument("--workspace", metavar="DIR", help="use this workspace's scope")
    scan = tree.add(subs, "scan", "scan", summary="check text with the content scanner, "
                    "locally", description="Run the content scanner on a body read from "
                    "stdin (or --body-file), without\nthe daemon. Prints clean, or the error "
                    "code with rule ids and offsets (never the\nmatched text). Exit 0 when "
                    "clean, 1 when it would be rejected.",
                    examples=("memctl scan < note.md", 'memctl scan --title "Deploy" '
                              "--body-file note.md"))
    scan.add_argument("--title", help="also check this title")
    scan.add_argument("--summary", help="also check this summary")
    scan.add_argument("--body-file", default="-", metavar="FILE",
                      help="read the body from FILE (default: stdin)")
    scan.add_argument("--max-body-bytes", type=_positive_int, default=DEFAULT_MAX_BODY_BYTES,
                      metavar="N", help=f"body size limit (default {DEFAULT_MAX_BODY_BYTES})")


def _add_audit_policy(tree: _Tree, subs: Any) -> None:
    audit = subs.add_parser("audit", help="verify, export or checkpoint the audit chain",
                            description="The hash-chained audit log.",
                            epilog=_examples("memctl audit verify",
                                             "memctl audit checkpoint > cp.json",
                                             "memctl audit verify --checkpoint cp.json",
                                             "memctl audit export > audit.jsonl"),
                            formatter_class=_Formatter)
    asubs = audit.add_subparsers(title="subcommands", metavar="{verify,export,checkpoint}",
                                 required=True)
    verify = tree.add(asubs, "verify", "audit verify", summary="re-walk the chain",
                      description="Re-walk the audit chain (audit.verify) and report the first "
                                  "bad sequence number.\nWith --checkpoint, also detect "
                                  "truncation behind that signed checkpoint.\nExits 1 when the "
                                  "chain does not verify.",
                      examples=("memctl audit verify", "memctl audit verify --checkpoint "
                                "cp.json"))
    verify.add_argument("--checkpoint", metavar="FILE",
                        help="a checkpoint printed earlier by memctl audit checkpoint")
    export = tree.add(asubs, "export", "audit export", summary="write the chain as JSON lines",
                      description="Write every audit event as one JSON line on stdout "
                                  "(audit.export, paged).",
                      examples=("memctl audit export > audit.jsonl",
                                "memctl audit export --after-seq 1000"))
    export.add_argument("--after-seq", type=int, default=0, metavar="SEQ",
                        help="start after this sequence number (default 0: everything)")
    export.add_argument("--limit", type=_positive_int, default=1_000, metavar="N",
                        help="events per request (default 1000)")
    tree.add(asubs, "checkpoint", "audit checkpoint", summary="sign a checkpoint now",
             description="Take a signed checkpoint now (audit.checkpoint) and print it as "
                         "JSON; keep it\nsomewhere else and pass it to `audit verify "
                         "--checkpoint` later.",
             examples=("memctl audit checkpoint > cp.json",))
    policy = subs.add_parser("policy", help="reload policy.toml",
                             description="The kernel policy (HOME/policy.toml).",
                             epilog=_examples("memctl policy reload"), formatter_class=_Formatter)
    psubs = policy.add_subparsers(title="subcommands", metavar="{reload}", required=True)
    tree.add(psubs, "reload", "policy reload", summary="reload policy.toml",
             description="Reload policy.toml (policy.reload). An invalid file is refused and "
                         "the previous\npolicy stays; memctl then prints why and exits 1.",
             examples=("memctl policy reload",))


def _add_bridge_backup(tree: _Tree, subs: Any) -> None:
    # prefix_chars that no option uses: every argument after `mcp` goes to
    # the bridge's own parser (rpc/mcp_bridge.py), which loads only with the
    # optional MCP SDK.
    mcp = subs.add_parser("mcp", help="serve memory to an agent client over MCP (stdio; "
                          "needs memoryd[mcp]; `memctl mcp --help`)",
                          add_help=False, prefix_chars="\0")
    mcp.add_argument("bridge_args", nargs=argparse.REMAINDER)
    mcp.set_defaults(key="mcp")
    backup = tree.add(subs, "backup", "backup", summary="back up the home while it runs",
                      description="Write a consistent copy of memory.db (SQLite's online "
                                  "backup) and keys/ into DEST,\na new folder that is itself a "
                                  "home: `memoryd serve --home DEST` restores it.",
                      examples=("memctl backup ~/backups/memoryd-$(date +%F)",))
    backup.add_argument("dest", metavar="DEST", help="a folder that does not exist yet")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="memctl", formatter_class=_Formatter,
        description="The operator's client for memoryd: inspect memory, approve or deny "
                    "governed changes,\nmanage consent and agent tokens, verify the audit "
                    "chain. Talks to HOME/run/control.sock.\n\nHOME is --home, else "
                    "$MEMORYD_HOME, else $XDG_STATE_HOME/memoryd, else "
                    "~/.local/state/memoryd.\nEvery subcommand takes --json; `memctl "
                    "SUBCOMMAND --help` shows its options.",
        epilog=_examples("memctl status", "memctl pending", "memctl action act_01J...",
                         "memctl approve act_01J...", "memctl ls --search deploy",
                         "memctl --home /srv/memoryd audit verify")
        + "\n\nexit status: 0 ok; 1 refused by the daemon, or a failed check; 2 usage;\n"
          "3 memoryd not reachable; 4 the exchange broke (timeout, lost connection).",
    )
    parser.add_argument("--home", metavar="DIR", help="the memoryd home (before the "
                        "subcommand)")
    parser.add_argument("--timeout", type=float, default=30.0, metavar="SECONDS",
                        help="how long to wait for each answer (default 30)")
    subs = parser.add_subparsers(title="subcommands", metavar="SUBCOMMAND", required=True)
    tree = _Tree(_parents())
    for add in (_add_memory_reads, _add_memory_writes, _add_history, _add_governance,
                _add_consent_tokens, _add_recall, _add_audit_policy,
                _add_bridge_backup):
        add(tree, subs)
    return parser

def parse(argv: Sequence[str]) -> argparse.Namespace:
    """Parse ``argv``; argparse's own exits (help, usage) propagate as SystemExit."""
    return build_parser().parse_args(list(argv))


# --- running ---------------------------------------------------------------------------


Connect = Callable[[Path, float], Rpc]


def _connect(path: Path, timeout: float) -> Rpc:
    return Client(path, timeout=timeout)


class _Recording:
    """Passes calls through; an error reply is tagged with the method it
    answered, so the report can name it (a later call, such as ``task.end``
    after a failed ``memory.context``, must not take its place)."""

    def __init__(self, inner: Rpc) -> None:
        self.inner = inner

    def call(self, method: str, params: Mapping[str, Any] | None = None, /) -> Any:
        try:
            return self.inner.call(method, params)
        except RpcError as exc:
            if getattr(exc, "memctl_method", None) is None:
                exc.memctl_method = method  # type: ignore[attr-defined]
            raise

    def close(self) -> None:
        self.inner.close()


class _NoDaemon:
    """Stands in for a client where a command works locally."""

    def call(self, method: str, params: Mapping[str, Any] | None = None, /) -> Any:
        raise AssertionError(f"a local command called {method}")

    def close(self) -> None:
        pass


def _report_rpc_error(io: Io, exc: RpcError, method: str | None) -> None:
    for line in fmt.error_lines(
        message=exc.detail_message or exc.message, data_code=exc.data_code,
        recovery=exc.recovery, incident=exc.incident, details=exc.details,
        errors=exc.errors, method=method,
    ):
        io.err(line)


def _not_running(io: Io, exc: ConnectError) -> int:
    if not exc.path.exists():
        io.err(f"memctl: memoryd is not running (no socket at {exc.path})")
        io.err("  what to do: start it with `memoryd serve` on the same home, "
               "or point memctl at its home with --home DIR or MEMORYD_HOME")
    else:
        io.err(f"memctl: {exc}")
    return EXIT_NOT_RUNNING


def run(argv: Sequence[str] | None = None, *, connect: Connect = _connect,
        io: Io | None = None) -> int:
    """Everything ``main`` does, with the client factory and streams injectable."""
    io = io or Io()
    try:
        args = parse(sys.argv[1:] if argv is None else argv)
    except SystemExit as exc:  # --help, or a usage error argparse already printed
        return exc.code if isinstance(exc.code, int) else EXIT_USAGE
    command = COMMANDS[args.key]
    rpc: _Recording | None = None
    try:
        if command.needs_daemon:
            rpc = _Recording(connect(control_socket(resolve_home(args.home)), args.timeout))
        if command.run is not None:
            return command.run(args, rpc or _NoDaemon(), io)
        assert rpc is not None
        return run_simple(command, args, rpc, io)
    except UsageError as exc:
        io.err(f"memctl {args.key}: {exc}")
        return EXIT_USAGE
    except ConnectError as exc:
        return _not_running(io, exc)
    except RpcError as exc:
        _report_rpc_error(io, exc, getattr(exc, "memctl_method", None))
        return EXIT_FAILED
    except (ConnectionLost, BadReply, TimeoutError) as exc:
        io.err(f"memctl: {exc}")
        return EXIT_TRANSPORT
    finally:
        if rpc is not None:
            rpc.close()


def main(argv: Sequence[str] | None = None) -> int:
    try:
        return run(argv)
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        # The reader went away (`memctl audit export | head`): stop quietly,
        # and keep the interpreter's final flush from complaining.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return EXIT_FAILED


if __name__ == "__main__":
    sys.exit(main())
