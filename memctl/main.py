"""memctl, the operator's command-line client for memoryd.

Owns: the command table (one ``Command`` row per subcommand), running a
command against ``control.sock`` (the build/call/render cycle, and the
runners of commands that are more than one call, or none), exit statuses
and error reports. The argparse tree is ``memoryd.memctl.cli``, the pure request
builders are ``memoryd.memctl.requests``, rendering is ``memoryd.memctl.format``;
the reference is ``docs/memctl.md``. The names callers import from here
(``parse``, ``Request``, ``UsageError``, the command-line choices) are
re-exported from those modules.

Shape: every subcommand is one row of ``COMMANDS``. A row's ``build`` is a
pure function from the parsed arguments to a ``Request`` (method + params),
so what memctl would send can be tested without a daemon; the few commands
that need several calls (``consent set``, ``context``, ``audit export``) or
none (``scan``, ``mcp``) have their own ``run``.

Invariants:
- memctl talks only to ``control.sock`` of the home resolved like
  ``memoryd serve`` does (``--home``, ``$MEMORYD_HOME``, XDG, ``~``), through
  ``rpc.client.Client``, and sends each request once (no silent retries);
- exit status: 0 success; 1 the daemon refused (error reply), a verification
  failed, a policy was not loaded, or content was rejected; 2 bad usage;
  3 the daemon cannot be reached; 4 the exchange broke (timeout, lost
  connection, unreadable reply, scanner unavailable);
- human output never shows a token except right after ``token issue``;
  error reports never include request text;
- the MCP bridge (and with it the MCP SDK) and the content scanner are
  imported only when ``memctl mcp`` or ``memctl scan`` runs.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Any, Final

from memoryd.memctl import format as fmt
from memoryd.memctl.backup import run_backup
from memoryd.memctl.cli import (
    BASIS_KINDS,
    ENTRY_TYPES,
    STATUSES,
    TARGETS,
    build_parser,
    option,
    parse,
)
from memoryd.memctl.progress import bar, waiting
from memoryd.memctl.requests import (
    Builder,
    Io,
    Request,
    Rpc,
    UsageError,
    build_approve,
    build_archive,
    build_audit_export_page,
    build_audit_verify,
    build_backup,
    build_consent_set,
    build_deny,
    build_extract_submit,
    build_ls,
    build_pending,
    build_policy_explain,
    build_projection_authorize,
    build_rm,
    build_show,
    build_status,
    build_supersede,
    build_task_begin,
    build_team_member,
    build_token_issue,
    build_write,
    call,
    identity_params,
)
from memoryd.memctl.store import run_store_copy
from memoryd.rpc.client import BadReply, Client, ConnectError, ConnectionLost, RpcError
from memoryd.rpc.paths import control_socket, resolve_home

__all__ = [
    "BASIS_KINDS",
    "COMMANDS",
    "ENTRY_TYPES",
    "EXIT_FAILED",
    "EXIT_NOT_RUNNING",
    "EXIT_OK",
    "EXIT_TRANSPORT",
    "EXIT_USAGE",
    "STATUSES",
    "TARGETS",
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
    # Human output shows owners and tokens by the operator's labels (token.list).
    labelled: bool = False
    # ids are enough: the entry's target and scope are read when not given.
    locate: bool = False
    # A single call that may take a while: a spinner on a terminal.
    slow: bool = False


# --- runners for commands that are more than one call -----------------------------


def _emit(io: Io, args: argparse.Namespace, result: Any, render: Renderer,
          labels_from: Rpc | None = None) -> None:
    """Print ``result``: as JSON with --json, else rendered, owners and
    tokens shown by the operator's labels when ``labels_from`` is given."""
    if option(args, "json"):
        io.out(json.dumps(result, indent=2, ensure_ascii=False))
        return
    if labels_from is not None:
        from memoryd.memctl.owners import labelled, load_labels

        result = labelled(result, load_labels(labels_from))
    io.out(render(result))


def _never_seen(rpc: Rpc, args: argparse.Namespace) -> str | None:
    """The identity named on the command line, as KIND:SUBJECT, when memoryd
    has never seen it: no consent record, no token, no entries (a typo in a
    subject names a new, empty owner). None when seen, or none is named."""
    named = identity_params(args)
    if not named:
        return None
    if rpc.call("consent.get", named).get("version"):
        return None
    if rpc.call("token.list", named).get("items"):
        return None
    counts = rpc.call("memory.status", named).get("counts") or {}
    if any(counts.values()):
        return None
    who = named["identity"]
    return f"{who['kind']}:{who['subject']}"


def _never_seen_warning(who: str) -> str:
    return (f"memctl: warning: the identity {fmt.cell(who)} has never been seen (no token, "
            "no consent, no entries); check its spelling")


def run_team_add(args: argparse.Namespace, rpc: Rpc, io: Io) -> int:
    unseen = _never_seen(rpc, args)
    if unseen is not None:
        io.err(_never_seen_warning(unseen))
        if not args.force:
            io.err("  what to do: issue it a token or set its consent first, or add it "
                   "anyway with --force")
            return EXIT_FAILED
    return run_simple(COMMANDS["team add"], args, rpc, io)


def run_consent_set(args: argparse.Namespace, rpc: Rpc, io: Io) -> int:
    build_consent_set(args, 0)  # refuses an empty change before any call
    current = rpc.call("consent.get", identity_params(args))
    version = current.get("version") if isinstance(current, Mapping) else None
    if not isinstance(version, int):
        raise BadReply("memoryd's consent.get answer has no version")
    if version == 0:
        # Setting consent is how a new identity is first set up: a warning only.
        unseen = _never_seen(rpc, args)
        if unseen is not None:
            io.err(_never_seen_warning(unseen) + " (consent is set all the same)")
    request = build_consent_set(args, version)
    try:
        result = rpc.call(request.method, request.params)
    except RpcError as exc:
        if exc.data_code != "revision_conflict":
            raise
        io.err(f"memctl: consent was changed by someone else between reading it (version "
               f"{version}) and writing it; nothing was changed (revision_conflict)")
        io.err("  what to do: check it with `memctl consent`, then run this command again")
        return EXIT_FAILED
    _emit(io, args, result, fmt.consent, rpc)
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
        import memoryd.kernel.scan as scanner
        from memoryd.kernel.errors import ContentRejected, LimitExceeded
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
    if option(args, "json"):
        io.out(json.dumps({"clean": code is None, "code": code, "details": details}, indent=2))
    else:
        io.out(fmt.scan_verdict(code, details))
    return EXIT_OK if code is None else EXIT_FAILED


# export, import, promote, labels and hints load when a command needs them:
# `memctl mcp` (an agent client's start-up) pays for none of them.


def run_export(args: argparse.Namespace, rpc: Rpc, io: Io) -> int:
    from memoryd.memctl import transfer

    total = None
    if option(args, "scope") is None and option(args, "target") is None:
        counts = rpc.call("memory.status", identity_params(args)).get("counts")
        if isinstance(counts, Mapping):
            wanted = option(args, "statuses") or ["active"]
            total = sum(v for k, v in counts.items() if k in wanted and isinstance(v, int))
    with bar(io.stderr, total=total, desc="export", unit="entries") as progress:
        result = transfer.run_export(args, rpc, io.stdout, progress)
    if option(args, "json"):
        io.err(json.dumps(result, ensure_ascii=False))
    elif option(args, "output") not in (None, "-"):
        io.out(fmt.exported(result))
    else:
        io.err(fmt.exported(result))
    return EXIT_OK


def run_import(args: argparse.Namespace, rpc: Rpc, io: Io) -> int:
    from memoryd.memctl import transfer

    text = io.read_text(args.file)
    lines = sum(1 for line in transfer.lines_of(text) if line.strip())
    with bar(io.stderr, total=max(lines - 1, 0), desc="import", unit="entries") as progress:
        report = transfer.run_import(args, rpc, text, progress)
    _emit(io, args, report.wire(), fmt.imported)
    return EXIT_OK


def run_promote(args: argparse.Namespace, rpc: Rpc, io: Io) -> int:
    from memoryd.memctl import transfer

    _emit(io, args, transfer.run_promote(args, rpc), fmt.promoted)
    return EXIT_OK


def run_edit(args: argparse.Namespace, rpc: Rpc, io: Io) -> int:
    from memoryd.memctl import edit

    return edit.run(args, rpc, io)


def run_completion(args: argparse.Namespace, _rpc: Rpc, io: Io) -> int:
    import shtab

    io.out(shtab.complete(build_parser(), shell=args.shell))
    return EXIT_OK


# --- the table ---------------------------------------------------------------------


def _ok_if(field: str) -> Callable[[Any], int]:
    """Exit 0 when the result's ``field`` is true, else 1."""
    return lambda result: EXIT_OK if isinstance(result, Mapping) and result.get(field) is True \
        else EXIT_FAILED


def _pretty_json(result: Any) -> str:
    return json.dumps(result, indent=2, ensure_ascii=False)


def _denied(result: Any) -> str:
    action = result.get("action_id") if isinstance(result, Mapping) else None
    reason = result.get("reason") if isinstance(result, Mapping) else None
    return f"denied {fmt.cell(action)}" + (f" (reason kept: {fmt.cell(reason)})" if reason else "")


def _all_pending(rpc: Rpc) -> list[Mapping[str, Any]]:
    """Every pending action, every page of governance.action.list."""
    items: list[Mapping[str, Any]] = []
    cursor = None
    while True:
        page = rpc.call("governance.action.list",
                        {"status": "pending", **({"cursor": cursor} if cursor else {})})
        items.extend(i for i in (page.get("items") or []) if isinstance(i, Mapping))
        cursor = page.get("next_cursor") if isinstance(page, Mapping) else None
        if not isinstance(cursor, str):
            return items


def _ids_from(args: argparse.Namespace, rpc: Rpc, io: Io, verb: str) -> list[str] | None:
    """The ids named, and with --all-from every pending action of that
    identity once the operator said yes (None: not confirmed)."""
    ids = list(args.action_id or [])
    if args.all_from is None:
        if not ids:
            raise UsageError("name at least one ACTION_ID, or --all-from KIND:SUBJECT")
        return ids
    kind, sep, subject = args.all_from.partition(":")
    if not sep or not kind or not subject:
        raise UsageError("--all-from takes KIND:SUBJECT, e.g. local:alice or token:bob")
    owner = rpc.call("consent.get", {"identity": {"kind": kind, "subject": subject}})["owner"]
    theirs = [str(a["action_id"]) for a in _all_pending(rpc) if a.get("owner") == owner]
    io.out(f"{len(theirs)} pending actions from {fmt.cell(args.all_from)} "
           f"({fmt.cell(owner, 20)}) will be {verb}")
    if not theirs:
        return ids or []
    if not args.yes:
        io.stdout.write(f"{verb[:-1].capitalize()} them? [y/N] ")
        io.stdout.flush()
        if io.stdin.readline().strip().lower() not in ("y", "yes"):
            io.out(f"nothing was {verb}")
            return None
    return [*ids, *(i for i in theirs if i not in ids)]


def _run_decide(args: argparse.Namespace, rpc: Rpc, io: Io, *, approve: bool) -> int:
    verb = "approved" if approve else "denied"
    ids = _ids_from(args, rpc, io, verb)
    if ids is None:
        return EXIT_FAILED
    failed = 0
    for action_id in ids:
        one = argparse.Namespace(**{**vars(args), "action_id": [action_id]})
        request = (build_approve if approve else build_deny)(one, io.read_text)
        try:
            result = rpc.call(request.method, request.params)
        except RpcError as exc:
            # Each action is decided by its own call: one failure does not
            # stop the others.
            failed += 1
            io.err(f"memctl {args.key} {action_id}: not {verb}")
            _report_rpc_error(io, exc, request.method, one)
            continue
        _emit(io, args, result, fmt.write_result if approve else _denied)
    return EXIT_FAILED if failed else EXIT_OK


def _pending_pages(args: argparse.Namespace, rpc: Rpc,
                   io: Io) -> tuple[dict[str, Any], bool]:
    """The listing ``memctl pending`` shows, and whether more were left out.
    With --cursor: that one page. Otherwise the pages are followed: for
    pending actions (or with --all) to the end, else one page; --limit N
    stops at N actions."""
    request = build_pending(args, io.read_text)
    if args.cursor is not None:
        if args.limit is not None or args.all:
            raise UsageError("--cursor shows one page; leave out --limit and --all")
        return rpc.call(request.method, request.params), False
    follow = args.all or args.status in (None, "pending")
    items: list[Any] = []
    params = dict(request.params)
    while True:
        page = rpc.call(request.method, params)
        items.extend(fmt.items_of(page))
        cursor = page.get("next_cursor") if isinstance(page, Mapping) else None
        if args.limit is not None and len(items) >= args.limit:
            more = len(items) > args.limit or isinstance(cursor, str)
            return {"items": items[:args.limit], "next_cursor": None}, more
        if not isinstance(cursor, str):
            return {"items": items, "next_cursor": None}, False
        if not follow:
            return {"items": items, "next_cursor": cursor}, False
        params = {"cursor": cursor}


def run_pending(args: argparse.Namespace, rpc: Rpc, io: Io) -> int:
    if args.ids:
        for item in _all_pending(rpc):
            io.out(str(item.get("action_id")))
        return EXIT_OK
    result, more = _pending_pages(args, rpc, io)
    if option(args, "json"):
        _emit(io, args, result, fmt.generic)
        return EXIT_OK
    from memoryd.memctl.owners import labelled, load_labels

    titles: dict[str, list[str]] = {}
    for item in fmt.items_of(result):
        if item.get("status") == "pending":
            # The proposal's titles: control.sock shows the operator what waits.
            detail = rpc.call("governance.action.get", {"action_id": item.get("action_id")})
            titles[str(item.get("action_id"))] = [
                str(op["entry"].get("title")) for op in (detail.get("ops") or [])
                if isinstance(op, Mapping) and isinstance(op.get("entry"), Mapping)]
    width = shutil.get_terminal_size((100, 24)).columns
    io.out(fmt.pending_list(labelled(result, load_labels(rpc)), titles, width))
    if more:
        status = "" if args.status in (None, "pending") else f" --status {args.status}"
        io.out(f"more: memctl pending{status} --all")
    return EXIT_OK


def _no_extra(io: Io, extra: str, missing: str) -> int:
    # memoryd is not on PyPI: name the extra, install it from the checkout.
    io.err(f"memctl {extra}: {missing} with the memoryd[{extra}] extra: from the checkout, "
           f"pipx install --force '.[{extra}]' (or pip install '.[{extra}]' in memoryd's venv)")
    return EXIT_FAILED


# The bridge (the MCP SDK) and the web page come with optional extras: they
# are imported only here, so every other subcommand works without them.


def run_mcp(args: argparse.Namespace, _rpc: Rpc, io: Io) -> int:
    try:
        from memoryd.memctl import mcp_bridge
    except ImportError:
        return _no_extra(io, "mcp", "the MCP SDK is not installed; it comes")
    return mcp_bridge.main(args.bridge_args, home=args.home, timeout=args.timeout)


def run_ui(args: argparse.Namespace, _rpc: Rpc, io: Io) -> int:
    try:
        from memoryd.memctl.ui import server
    except ImportError:
        return _no_extra(io, "ui", "the web page's libraries are not installed; they come")
    return server.serve(args, io.stdout, io.stderr)


_SHOW_ACTION: Final = Command(call("governance.action.get", "action_id"), fmt.action_detail,
                              labelled=True)
COMMANDS: Final[dict[str, Command]] = {
    "status": Command(build_status, fmt.status, labelled=True),
    "ls": Command(build_ls, fmt.listing),
    "show": Command(build_show, fmt.entries),
    "write": Command(build_write, fmt.write_result, locate=True),
    "rm": Command(build_rm, fmt.write_result, locate=True),
    "archive": Command(build_archive, fmt.write_result, locate=True),
    "supersede": Command(build_supersede, fmt.write_result, locate=True),
    "journal": Command(call("memory.journal", "cursor", "page_size", identity=True), fmt.journal),
    "undo": Command(call("memory.undo", "operation_id", identity=True), fmt.write_result),
    "receipt": Command(call("memory.receipt", "receipt_id", identity=True), fmt.receipt),
    "gc": Command(call("memory.gc"), fmt.gc, slow=True),
    "pending": Command(build_pending, run=run_pending),
    "pending show": _SHOW_ACTION,
    "action": _SHOW_ACTION,
    "approve": Command(build_approve, fmt.write_result, run=partial(_run_decide, approve=True)),
    "deny": Command(build_deny, _denied, run=partial(_run_decide, approve=False)),
    "consent": Command(call("consent.get", identity=True), fmt.consent, labelled=True),
    "consent set": Command(None, run=run_consent_set),
    "extract submit": Command(build_extract_submit, fmt.generic),
    "extract status": Command(call("extract.status", identity=True), fmt.generic),
    "extract retry": Command(call("extract.retry", "job_id"), fmt.generic),
    "extract drop": Command(call("extract.drop", "job_id"), fmt.generic),
    "team create": Command(call("team.create", "name"), fmt.team_changed),
    "team add": Command(build_team_member, fmt.team_changed, labelled=True,
                        run=run_team_add),
    "team remove": Command(build_team_member, fmt.team_changed, labelled=True),
    "team ls": Command(call("team.list"), fmt.teams, labelled=True),
    "token issue": Command(build_token_issue, fmt.token_issued, labelled=True),
    "token ls": Command(call("token.list", identity=True), fmt.tokens, labelled=True),
    "token revoke": Command(call("token.revoke", "token_id"), fmt.token_revoked),
    "context": Command(None, run=run_context),
    "audit verify": Command(build_audit_verify, fmt.verify, _ok_if("ok"), slow=True),
    "audit export": Command(None, run=run_audit_export),
    "audit checkpoint": Command(call("audit.checkpoint"), _pretty_json),
    "policy reload": Command(call("policy.reload"), fmt.policy_reload, _ok_if("loaded")),
    "policy explain": Command(build_policy_explain, fmt.policy_explain),
    "scan": Command(None, run=run_scan, needs_daemon=False),
    "mcp": Command(None, run=run_mcp, needs_daemon=False),
    "backup": Command(build_backup, run=run_backup),
    "store copy": Command(None, run=run_store_copy, needs_daemon=False),
    "export": Command(None, run=run_export),
    "import": Command(None, run=run_import),
    "promote": Command(None, run=run_promote),
    "edit": Command(None, run=run_edit),
    "completion": Command(None, run=run_completion, needs_daemon=False),
    "projection authorize": Command(build_projection_authorize, fmt.projection_authorized),
    "projection retry": Command(call("memory.projection.retry", "entry_ids"), fmt.generic),
    "projection reseed": Command(call("memory.projection.reseed"), fmt.generic),
    "projection report": Command(call("memory.projection.report"), fmt.projection_report),
    "ui": Command(None, run=run_ui, needs_daemon=False),
}


def _locate(args: argparse.Namespace, rpc: Rpc) -> None:
    """Fill --target/--scope from the entry itself: its id is enough."""
    entry_id = option(args, "id") or option(args, "replace")
    if entry_id is None or option(args, "scope") is not None \
            or option(args, "target") is not None:
        return
    found = rpc.call("memory.read", {"ids": [entry_id], **identity_params(args)})
    entries = found.get("entries") if isinstance(found, Mapping) else None
    if isinstance(entries, list) and entries and isinstance(entries[0], Mapping):
        args.target = entries[0].get("target")
        # A user-target entry's scope is derived by the daemon, never named.
        args.scope = entries[0].get("scope") if args.target == "memory" else None


def run_simple(command: Command, args: argparse.Namespace, rpc: Rpc, io: Io) -> int:
    assert command.build is not None
    if command.locate:
        _locate(args, rpc)
    request = command.build(args, io.read_text)
    for note in request.notes:
        io.err(note)
    if command.slow:
        with waiting(io.stderr, desc=args.key):
            result = rpc.call(request.method, request.params)
    else:
        result = rpc.call(request.method, request.params)
    _emit(io, args, result, command.render, rpc if command.labelled else None)
    return command.judge(result)


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
        except UnicodeEncodeError:
            # Bytes that are not UTF-8 (a terminal in another encoding) reach
            # Python as lone surrogates, which no JSON frame can carry.
            raise UsageError("a value given is not UTF-8 text (check the terminal's "
                             "encoding); nothing was sent") from None
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


def _one(value: Any) -> Any:
    """A single id from an option that may hold a list of them."""
    if isinstance(value, list):
        return value[0] if len(value) == 1 else None
    return value


def _report_rpc_error(io: Io, exc: RpcError, method: str | None,
                      args: argparse.Namespace | None = None) -> None:
    # The wire's recovery speaks methods and fields; at the shell, say it in
    # memctl's own commands where memctl has a row for the code (hints.py).
    from memoryd.memctl import hints

    known = {} if args is None else {
        "entry": option(args, "id") or option(args, "replace"),
        "action": _one(option(args, "action_id"))}
    recovery = hints.hint(exc.data_code, command=None if args is None else args.key,
                          details=exc.details,
                          args={k: v for k, v in known.items() if v is not None}) \
        or exc.recovery
    for line in fmt.error_lines(
        message=exc.detail_message or exc.message, data_code=exc.data_code,
        recovery=recovery, incident=exc.incident, details=exc.details,
        errors=exc.errors, method=method,
    ):
        io.err(line)


def _not_running(io: Io, exc: ConnectError) -> int:
    if not exc.path.exists():
        io.err(f"memctl: memoryd is not running (no socket at {exc.path})")
    elif str(exc).startswith("memoryd is not running"):
        # A socket left by a daemon that did not stop cleanly: nobody serves it.
        io.err(f"memctl: memoryd is not running (nothing answers at {exc.path}; the socket "
               "was left by a daemon that did not stop cleanly)")
    else:
        io.err(f"memctl: {exc}")
        return EXIT_NOT_RUNNING
    io.err("  what to do: start it with `memoryd serve` on the same home (it replaces a "
           "stale socket), or point memctl at its home with --home DIR or MEMORYD_HOME")
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
        _report_rpc_error(io, exc, getattr(exc, "memctl_method", None), args)
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
