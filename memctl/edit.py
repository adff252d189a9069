"""``memctl edit ID``: change an entry in the operator's editor.

Owns: writing an entry's title, type and body to a private temporary file,
running ``$VISUAL`` / ``$EDITOR`` on it, reading the result back and
proposing it as a ``replace`` of the revision that was opened.

The file::

    # memctl edit ent_… (revision 3, memory/project:acme)
    # Lines starting with # before the title are ignored. Save and quit to
    # propose the change; leave it as it is (or empty it) to change nothing.
    title: Deploy steps
    type: procedure

    The body, as many lines as it needs.

Invariants:
- the write carries ``expected_revision`` = the revision opened: a change
  made meanwhile is ``revision_conflict``, never overwritten;
- an unchanged or emptied file writes nothing;
- the temporary file holds memory text: it lives in a folder only the
  operator can read (0700, file 0600) and is removed afterwards, whatever
  happens.
"""

from __future__ import annotations

import argparse
import json
import os
import shlex
import subprocess
import tempfile
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Final

from memoryd.memctl import format as fmt
from memoryd.memctl.cli import ENTRY_TYPES, option
from memoryd.memctl.requests import Io, Rpc, UsageError, identity_params

__all__ = ["Edited", "parse", "render", "run"]

# Kept as they are; basis is left to the daemon, which keeps it only when the
# content is unchanged (an edited text has not been attributed again).
_KEEP: Final = ("summary", "validity", "ttl_days", "pinned")


# (title, type, body) read back from the file.
Edited = tuple[str, str, str]


def render(entry: Mapping[str, Any]) -> str:
    where = f"{entry.get('target')}/{entry.get('scope')}"
    return (f"# memctl edit {entry.get('id')} (revision {entry.get('revision')}, {where})\n"
            "# Lines starting with # before the title are ignored. Save and quit to\n"
            "# propose the change; leave it as it is (or empty it) to change nothing.\n"
            f"title: {entry.get('title')}\n"
            f"type: {entry.get('type')}\n"
            "\n"
            f"{entry.get('body') or ''}\n")


def parse(text: str) -> Edited | None:
    """The edited (title, type, body), or None for an emptied file."""
    lines = text.split("\n")
    while lines and lines[0].startswith("#"):
        lines.pop(0)
    if not "".join(lines).strip():
        return None
    head: dict[str, str] = {}
    while lines and lines[0].strip():
        key, sep, value = lines.pop(0).partition(":")
        if not sep or key.strip() not in ("title", "type"):
            raise UsageError("the edited file's header holds only 'title:' and 'type:' lines, "
                             "then an empty line, then the body")
        head[key.strip()] = value.strip()
    if lines:
        lines.pop(0)  # the empty line between header and body
    if "title" not in head or "type" not in head:
        raise UsageError("the edited file lost its 'title:' or 'type:' line")
    if head["type"] not in ENTRY_TYPES:
        raise UsageError(f"type must be one of {', '.join(ENTRY_TYPES)}")
    body = "\n".join(lines).removesuffix("\n")
    return (head["title"], head["type"], body)


def _editor() -> list[str]:
    command = os.environ.get("VISUAL") or os.environ.get("EDITOR") or "vi"
    return shlex.split(command)


def _edit_in_editor(text: str) -> str:
    with tempfile.TemporaryDirectory(prefix="memctl-edit-") as folder:
        # TemporaryDirectory is 0700; the file is made 0600 before any text.
        path = Path(folder) / "entry.txt"
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(text)
        try:
            done = subprocess.run([*_editor(), str(path)], check=False)  # noqa: S603
        except FileNotFoundError:
            raise UsageError("the editor was not found; set $EDITOR (e.g. EDITOR=nano)") \
                from None
        if done.returncode != 0:
            raise UsageError(f"the editor exited with status {done.returncode}; "
                             "nothing was changed")
        try:
            return path.read_text(encoding="utf-8")
        except UnicodeDecodeError:
            raise UsageError("the edited file is not UTF-8 text (save it as UTF-8); "
                             "nothing was changed") from None


def run(args: argparse.Namespace, rpc: Rpc, io: Io) -> int:
    who = identity_params(args)
    found = rpc.call("memory.read", {"ids": [args.id], **who})
    entries = found.get("entries") if isinstance(found, Mapping) else None
    if not isinstance(entries, list) or not entries:
        raise UsageError(f"no entry {args.id}")
    entry = entries[0]
    if entry.get("status") != "active":
        raise UsageError(f"{args.id} is {entry.get('status')}; only active entries are edited")
    edited = parse(_edit_in_editor(render(entry)))
    if edited is None or edited == (entry.get("title"), entry.get("type"), entry.get("body")):
        io.err("memctl edit: no change; nothing was written")
        return 0
    title, type_, body = edited
    new: dict[str, Any] = {"type": type_, "title": title, "body": body}
    for key in _KEEP:
        if entry.get(key) is not None:
            new[key] = entry[key]
    if body != entry.get("body"):
        new.pop("summary", None)  # derived again from the new body
    params: dict[str, Any] = {"target": entry.get("target"), "action": "replace",
                              "id": args.id, "expected_revision": entry.get("revision"),
                              "entry": new, **who}
    if entry.get("target") == "memory":
        params["scope"] = entry.get("scope")
    result = rpc.call("memory.write", params)
    if option(args, "json"):
        io.out(json.dumps(result, indent=2, ensure_ascii=False))
    else:
        io.out(fmt.write_result(result))
    return 0
