"""``memctl backup DEST`` and ``memctl backup verify FOLDER``.

Owns: running the two backup commands against the daemon (``admin.backup``,
``admin.backup_verify``) and saying in the operator's terms what they did,
or why a destination was refused.

Invariants:
- a refused destination is reported as ``memctl backup: cannot …: <reason>``
  with what to do next; the wire's own wording (params, ``data.errors``) is
  not the operator's and is never printed for it;
- ``backup verify`` only reads: the daemon opens the folder's database
  read-only and immutable, so nothing in the folder changes; exit 0 when the
  backup is whole, 1 when anything is wrong (the problems are listed);
- nothing here prints memory text: the answers hold counts, file names and
  hashes only.
"""

from __future__ import annotations

import argparse
import json
import os
from collections.abc import Mapping
from typing import Any

from memoryd.memctl import format as fmt
from memoryd.memctl.cli import option
from memoryd.memctl.requests import Io, Rpc, UsageError
from memoryd.rpc.client import RpcError

__all__ = ["backup_summary", "run_backup", "verify_summary"]


def _refused(io: Io, exc: RpcError, doing: str, path: str, what_to_do: str) -> int:
    reasons = [str(e.get("expected")) for e in exc.errors or []
               if isinstance(e, Mapping) and e.get("path") == "$.path"]
    if exc.data_code != "invalid_params" or not reasons:
        raise exc
    io.err(f"memctl backup: cannot {doing} {fmt.clean(path)}: {fmt.clean(reasons[0])}")
    io.err(f"  what to do: {what_to_do}")
    return 1


def backup_summary(result: Any) -> str:
    files = result.get("files") or []
    audit = result.get("audit") or {}
    return "\n".join([
        f"backed up to {fmt.cell(result.get('path'))}",
        f"  files: {', '.join(fmt.cell(f) for f in files)} ({fmt.cell(result.get('bytes'))} bytes)",
        f"  audit head: seq {fmt.cell(audit.get('seq'))} {fmt.cell(audit.get('hash'))}",
        "  keep it as private as the home: it holds all memory text and the keys",
    ])


def verify_summary(result: Any) -> str:
    audit = result.get("audit") or {}
    counts = result.get("counts") or {}
    cp = audit.get("last_checkpoint")
    lines = [
        f"backup {fmt.cell(result.get('path'))}: {'ok' if result.get('ok') else 'NOT OK'}",
        f"  files: {', '.join(fmt.cell(f) for f in result.get('files') or [])}",
        f"  schema version: {fmt.cell(result.get('schema_version'))}",
        "  entries: " + (", ".join(f"{fmt.cell(k)} {fmt.cell(v)}" for k, v in counts.items())
                         or "none"),
        f"  pending actions: {fmt.cell(result.get('pending_actions'))}",
        f"  audit: {'verified' if audit.get('verified') else 'BROKEN'}, "
        f"{fmt.cell(audit.get('checked'))} events, head seq {fmt.cell(audit.get('seq'))}",
        "  last checkpoint: " + ("none" if not isinstance(cp, Mapping) else
                                 f"seq {fmt.cell(cp.get('seq'))} at {fmt.cell(cp.get('ts'))}"),
    ]
    lines += [f"  problem: {fmt.clean(p)}" for p in result.get("problems") or []]
    return "\n".join(lines)


def _emit(io: Io, args: argparse.Namespace, result: Any, text: str) -> None:
    io.out(json.dumps(result, indent=2, ensure_ascii=False) if option(args, "json") else text)


def run_backup(args: argparse.Namespace, rpc: Rpc, io: Io) -> int:
    """``memctl backup DEST`` or ``memctl backup verify FOLDER``."""
    if args.folder is not None:
        if args.dest != "verify":
            raise UsageError("give one folder to back up to, or `verify FOLDER`")
        return _verify(args, rpc, io, os.path.abspath(os.path.expanduser(args.folder)))
    if args.dest == "verify":
        raise UsageError("`memctl backup verify FOLDER` needs the backup folder to inspect "
                         "(to back up into a folder named verify, write ./verify)")
    path = os.path.abspath(os.path.expanduser(args.dest))
    try:
        result = rpc.call("admin.backup", {"path": path})
    except RpcError as exc:
        return _refused(io, exc, "back up to", path,
                        "give a new folder (its parent folders are created as needed)")
    _emit(io, args, result, backup_summary(result))
    return 0


def _verify(args: argparse.Namespace, rpc: Rpc, io: Io, path: str) -> int:
    try:
        result = rpc.call("admin.backup_verify", {"path": path})
    except RpcError as exc:
        return _refused(io, exc, "inspect", path,
                        "give the folder `memctl backup` wrote (it holds memory.db and keys/)")
    _emit(io, args, result, verify_summary(result))
    return 0 if isinstance(result, Mapping) and result.get("ok") is True else 1
