#!/usr/bin/env python3
"""Submit a finished Claude Code session to memoryd for extraction.

A Claude Code hook (``SessionEnd``, or ``Stop``) receives a JSON object on
stdin naming the session's transcript file (``transcript_path``). This script
reads that file, keeps the conversation's turns as memoryd's transcript
format (``{"role": "user" | "assistant" | "tool", "content": ...}``, one per
line; docs/extraction.md) and hands them to ``memctl extract submit -``.
memoryd then proposes the user's durable statements for the operator's
approval; nothing is applied without it.

Wiring (``~/.claude/settings.json``)::

    {"hooks": {"SessionEnd": [{"hooks": [{"type": "command",
        "command": "python3 /path/to/contrib/claude-code/memoryd_hook.py"}]}]}}

Environment: ``MEMORYD_HOME`` (the home memctl talks to, as for memctl),
``MEMORYD_EXTRACT_SCOPE`` (the scope proposals go to; default ``default``),
``MEMCTL`` (the memctl command; default ``memctl``).

A hook must never stop the session: every failure is one line on stderr and
exit status 0. The transcript's text is never printed.

Standard library only; it imports nothing of memoryd.
"""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import sys
from collections.abc import Iterable, Iterator
from typing import Any


def _text(content: Any) -> str:
    """The text of a message's content: a string, or the text of its blocks."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        parts = []
        for block in content:
            if isinstance(block, dict) and block.get("type") == "text":
                parts.append(str(block.get("text", "")))
            elif isinstance(block, dict) and block.get("type") == "tool_result":
                parts.append(_text(block.get("content")))
            elif isinstance(block, str):
                parts.append(block)
        return "\n".join(p for p in parts if p)
    return ""


def _is_tool_result(content: Any) -> bool:
    return isinstance(content, list) and any(
        isinstance(b, dict) and b.get("type") == "tool_result" for b in content)


# What a program printed, put in the transcript as a user line: a command the
# user ran from the prompt (``!cmd``) or a local slash command.
_PRINTED = ("<bash-stdout>", "<bash-stderr>", "<local-command-stdout>",
            "<local-command-stderr>")
# Lines that are no turn at all: command output Claude Code adds itself,
# subagents' sidechains, and the summary a compaction writes (the model's
# account of what the assistant and its tools said, shown in the transcript
# only).
_NOT_TURNS = ("isMeta", "isSidechain", "isCompactSummary", "isVisibleInTranscriptOnly")


def turns(lines: Iterable[str]) -> Iterator[dict[str, str]]:
    """memoryd turns from the lines of a Claude Code transcript file.

    A ``user`` line holding tool results or a command's printed output is a
    ``tool`` turn; meta lines, sidechains, compaction summaries
    (``_NOT_TURNS``) and lines of other types (summaries, snapshots) are
    left out, as are assistant tool calls (no text of their own)."""
    for line in lines:
        try:
            obj = json.loads(line)
        except ValueError:
            continue
        if not isinstance(obj, dict) or any(obj.get(mark) for mark in _NOT_TURNS):
            continue
        kind = obj.get("type")
        message = obj.get("message")
        if kind not in ("user", "assistant") or not isinstance(message, dict):
            continue
        content = message.get("content")
        text = _text(content).strip()
        role = ("tool" if kind == "user" and (_is_tool_result(content)
                                              or text.startswith(_PRINTED)) else kind)
        if not text:
            continue
        turn = {"role": role, "content": text}
        if isinstance(obj.get("timestamp"), str):
            turn["ts"] = obj["timestamp"]
        yield turn


def main() -> int:
    try:
        hook = json.load(sys.stdin)
        path = hook["transcript_path"]
        with open(os.path.expanduser(path), encoding="utf-8", errors="replace") as fh:
            found = list(turns(fh))
    except (OSError, ValueError, KeyError, TypeError) as exc:
        print(f"memoryd hook: no transcript read ({type(exc).__name__})", file=sys.stderr)
        return 0
    if not any(t["role"] == "user" for t in found):
        return 0
    jsonl = "".join(json.dumps(t, ensure_ascii=False) + "\n" for t in found)
    command = [*shlex.split(os.environ.get("MEMCTL", "memctl")), "extract", "submit", "-",
               "--scope", os.environ.get("MEMORYD_EXTRACT_SCOPE", "default"), "--json"]
    try:
        done = subprocess.run(command, input=jsonl.encode("utf-8"), capture_output=True,  # noqa: S603 (the operator's own memctl)
                              timeout=60, check=False)
    except (OSError, subprocess.TimeoutExpired) as exc:
        print(f"memoryd hook: memctl did not run ({type(exc).__name__})", file=sys.stderr)
        return 0
    if done.returncode != 0:
        print(f"memoryd hook: memctl extract submit exited {done.returncode}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
