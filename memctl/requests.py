"""What each memctl command sends: pure functions from parsed arguments to
the JSON-RPC request they stand for.

Owns: ``Request`` (method, params and any notes for stderr), ``UsageError``
for command lines refused before any call, what every command runs with
(``Rpc``, the client; ``Io``, the streams), and one ``build_*`` function per
request memctl can make. The command table in ``memoryd.memctl.main`` says which
builder serves which subcommand; multi-call runners there use the builders
here for each of their calls.

Invariants:
- builders do no I/O of their own: the only outside input is the ``Reader``
  they are given (a file's or stdin's text), so what memctl would send is
  testable without a daemon;
- an inconsistent command line raises ``UsageError`` before anything is
  sent, and its message names options, never the text given to them;
- ``identity`` is sent only when both ``--identity-kind`` and
  ``--identity-subject`` are given; the daemon's default identity applies
  otherwise.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final, Protocol, TextIO

from memoryd.memctl.cli import ENTRY_TYPES, option
from memoryd.rpc.framing import FrameDecodeError, decode_frame

__all__ = [
    "Builder",
    "Io",
    "Reader",
    "Request",
    "Rpc",
    "UsageError",
    "build_approve",
    "build_archive",
    "build_audit_export_page",
    "build_audit_verify",
    "build_backup",
    "build_consent_set",
    "build_deny",
    "build_extract_submit",
    "build_ls",
    "build_pending",
    "build_policy_explain",
    "build_projection_authorize",
    "build_rm",
    "build_show",
    "build_status",
    "build_supersede",
    "build_task_begin",
    "build_team_member",
    "build_token_issue",
    "build_write",
    "call",
    "identity_params",
]


class UsageError(Exception):
    """A command line memctl refuses before talking to the daemon."""


class Rpc(Protocol):
    """What memctl needs of a client (``rpc.client.Client`` fits)."""

    def call(self, method: str, params: Mapping[str, Any] | None = None, /) -> Any: ...

    def close(self) -> None: ...


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


@dataclass(frozen=True)
class Request:
    """One JSON-RPC call memctl would make."""

    method: str
    params: dict[str, Any]
    # Said on stderr before the call (e.g. options that were ignored).
    notes: tuple[str, ...] = ()


Reader = Callable[[str], str]
Builder = Callable[[argparse.Namespace, Reader], Request]


# --- argument helpers ----------------------------------------------------------


def _identity(args: argparse.Namespace) -> dict[str, Any] | None:
    kind, subject = option(args, "identity_kind"), option(args, "identity_subject")
    issuer = option(args, "identity_issuer")
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


def identity_params(args: argparse.Namespace) -> dict[str, Any]:
    """``{"identity": …}`` when the command line names one, else ``{}``."""
    ident = _identity(args)
    return {} if ident is None else {"identity": ident}


def _drop_none(params: Mapping[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in params.items() if v is not None}


def _json_object(text: str, where: str) -> dict[str, Any]:
    # Read as the daemon reads a frame: what Python's reader lets through but
    # no frame may carry (a lone surrogate escape, NaN) and nesting deeper
    # than a frame may be are refused here, not by a crash in memctl.
    try:
        value = decode_frame(text.encode("utf-8"))
    except FrameDecodeError as exc:
        if exc.reason == "malformed":
            raise UsageError(f"{where} is not valid JSON{_position(text)}") from None
        raise UsageError(f"{where} holds JSON memoryd does not take ({exc.reason})") from None
    if not isinstance(value, dict):
        raise UsageError(f"{where} must hold one JSON object")
    return value


def _position(text: str) -> str:
    """Where Python's reader stops in ``text``, to point the operator at it."""
    try:
        json.loads(text)
    except json.JSONDecodeError as exc:
        return f" (line {exc.lineno}, column {exc.colno})"
    except (ValueError, RecursionError):
        pass
    return ""


# --- builders: pure functions from arguments to a request -----------------------


def call(method: str, *names: str, identity: bool = False) -> Builder:
    """The builder of a request whose params are the arguments ``names``
    that were given, with ``identity`` the identity the command line names."""

    def build(args: argparse.Namespace, _read: Reader) -> Request:
        params = _drop_none({name: getattr(args, name) for name in names})
        return Request(method, _with_identity(args, params) if identity else params)

    return build


build_pending: Final = call("governance.action.list", "status", "cursor")


def build_status(args: argparse.Namespace, _read: Reader) -> Request:
    by_owner = {"pending_by_owner": True} if getattr(args, "by_owner", False) else {}
    return Request("memory.status", _with_identity(args, by_owner))


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
        mixed = [n for n in _ENTRY_OPTIONS if option(args, n) is not None]
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


def _one_id(args: argparse.Namespace) -> str:
    ids = args.action_id
    if isinstance(ids, list):
        if len(ids) != 1:
            raise UsageError("name one ACTION_ID here")
        return str(ids[0])
    return str(ids)


def build_approve(args: argparse.Namespace, _read: Reader) -> Request:
    params: dict[str, Any] = {"action_id": _one_id(args)}
    if getattr(args, "as_supersede", False):
        params["as_supersede"] = True
    return Request("governance.action.approve", params)


def build_deny(args: argparse.Namespace, _read: Reader) -> Request:
    return Request("governance.action.deny",
                   _drop_none({"action_id": _one_id(args), "reason": args.reason}))


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
    if option(args, "label") is not None:
        params["label"] = args.label
    return Request("token.issue", params)


def build_team_member(args: argparse.Namespace, _read: Reader) -> Request:
    """team.add / team.remove: the member is named, never the default identity."""
    ident = _identity(args)
    if ident is None:
        raise UsageError("name the member with --identity-kind and --identity-subject")
    return Request("team." + args.key.split()[1], {"name": args.name, "identity": ident})


def build_extract_submit(args: argparse.Namespace, read: Reader) -> Request:
    """A transcript file (JSON Lines; the daemon reads and bounds it)."""
    params = _drop_none({"jsonl": read(args.file), "scope": args.scope})
    return Request("extract.submit", _with_identity(args, params))


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


def build_policy_explain(args: argparse.Namespace, _read: Reader) -> Request:
    params: dict[str, Any] = {"capability": args.capability, "channel": args.channel,
                              "target": args.target, "scope": args.scope}
    for name, value in (("role", args.role), ("action", args.action),
                        ("type", args.entry_type), ("grants", args.grants)):
        if value is not None:
            params[name] = value
    return Request("policy.explain", params)


def build_projection_authorize(args: argparse.Namespace, _read: Reader) -> Request:
    return Request("memory.projection.authorize",
                   _drop_none({"entry_ids": args.entry_ids or None,
                               "approve": True if args.approve else None}))


def build_backup(args: argparse.Namespace, _read: Reader) -> Request:
    return Request("admin.backup", {"path": os.path.abspath(args.dest)})
