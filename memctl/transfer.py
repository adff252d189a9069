"""Memory in and out: ``memctl export``, ``memctl import`` and ``memctl promote``.

Owns: the export file format (JSON Lines: a header naming the format and its
version, then one entry a line), reading it back, reading the MCP reference
memory server's file (``memory.jsonl``: entities, relations, observations),
and the runners that page entries out of a home and write them into another
one through governance.

Format (version 1)::

    {"format": "memoryd-export", "version": 1, "exported_at": ..., "filters": {...}}
    {"id": "ent_…", "target": "memory", "scope": "project:acme", "type": "fact",
     "title": …, "body": …, "summary": …, "status": "active", "revision": 3,
     "source": "user", "basis": {...}, "validity": null, "pinned": false,
     "ttl_days": 120, "created_at": …, "updated_at": …, "expires_at": …}

Invariants:
- import writes through ``memory.write`` (one ``add`` per entry, with
  ``source: "import"``): every entry is decided by the kernel, scanned and
  audited like any other write, and a rejected entry is counted and skipped
  without stopping the rest (docs/decisions/0006 says why not one batch);
- an imported entry is listed but never recalled until the operator vouches
  for it (``--vouch``, or ``memctl promote ID…`` after review), which is
  ``memory.promote``, a control-only, audited change of provenance;
- an entry whose title is taken in its scope by an entry with the same type
  and body is a duplicate and skipped; with other content it is a conflict,
  skipped too and counted apart (nothing is overwritten);
- export files hold memory text: they are created 0600 and never replace an
  existing file; reports and errors carry counts, ids and codes, never text.
"""

from __future__ import annotations

import argparse
import json
import os
from collections import Counter
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any, Final, Protocol, TextIO

from memoryd.kernel.retention import ENTRY_TYPES
from memoryd.kernel.scan import scan
from memoryd.memctl.cli import option
from memoryd.memctl.requests import Rpc, UsageError, identity_params
from memoryd.rpc.framing import FrameDecodeError, decode_frame

__all__ = [
    "EXPORT_FIELDS",
    "FORMAT",
    "FORMAT_VERSION",
    "Candidate",
    "ImportReport",
    "Parsed",
    "export_line",
    "header",
    "lines_of",
    "parse_import",
    "promote_ids",
    "run_export",
    "run_import",
    "run_promote",
]

FORMAT: Final = "memoryd-export"
FORMAT_VERSION: Final = 1
EXPORT_FIELDS: Final = ("id", "target", "scope", "type", "title", "body", "summary", "status",
                        "revision", "source", "basis", "validity", "pinned", "ttl_days",
                        "created_at", "updated_at", "renewed_at", "expires_at",
                        "superseded_by", "context", "observed_at")
# What memory.read takes at once, and what memory.promote takes at once.
READ_BATCH: Final = 10
PROMOTE_BATCH: Final = 50
# Entry fields an import may carry into memory.write's entry (SPEC §9).
_ENTRY_IN: Final = ("type", "title", "body", "summary", "basis", "validity", "ttl_days",
                    "pinned", "context", "observed_at")
_TYPES: Final = ENTRY_TYPES
MCP_NOTE: Final = "imported from an MCP memory server file"


class _Progress(Protocol):
    def update(self, n: int = 1) -> Any: ...

    def close(self) -> None: ...


# --- the format ------------------------------------------------------------------


def header(filters: Mapping[str, Any], now: datetime | None = None) -> dict[str, Any]:
    when = (now or datetime.now(UTC)).strftime("%Y-%m-%dT%H:%M:%SZ")
    return {"format": FORMAT, "version": FORMAT_VERSION, "exported_at": when,
            "filters": dict(filters)}


def export_line(entry: Mapping[str, Any]) -> dict[str, Any]:
    """One entry as an export line: the fields of EXPORT_FIELDS, in that order."""
    return {name: entry.get(name) for name in EXPORT_FIELDS}


@dataclass(frozen=True)
class Candidate:
    """One entry to import: where it goes and the ``entry`` memory.write takes."""

    line: int
    target: str
    scope: str | None
    entry: dict[str, Any]
    # The MCP memory server's entity name, to name a refused line by.
    entity: str | None = None


@dataclass
class Parsed:
    kind: str  # "memoryd" or "mcp-memory"
    candidates: list[Candidate] = field(default_factory=list)
    # Lines not imported, by reason (counts only: a report never shows text).
    skipped: Counter[str] = field(default_factory=Counter)


def lines_of(text: str) -> list[str]:
    """The lines of a JSON Lines file: cut at ``\n`` only, as an export
    writes U+2028, U+2029 and U+0085 unescaped inside its strings."""
    return text.split("\n")


def _loads(line: str, number: int) -> Any:
    # As strict as the daemon's frames (rpc/framing.py): a lone surrogate
    # escape or a NaN could not be sent on, and is refused before anything
    # of the file is written.
    try:
        return decode_frame(line.encode("utf-8"))
    except FrameDecodeError:
        raise UsageError(f"line {number} is not valid JSON") from None


def parse_import(lines: Iterable[str], *, scope: str | None = None) -> Parsed:
    """Read an export file, or an MCP memory server file; ``scope`` (for
    memory-target entries) overrides the scope each line names."""
    numbered = [(n, text) for n, text in enumerate(lines, 1) if text.strip()]
    if not numbered:
        raise UsageError("the file is empty")
    first_no, first = numbered[0]
    head = _loads(first, first_no)
    if isinstance(head, dict) and head.get("format") == FORMAT:
        if head.get("version") != FORMAT_VERSION:
            # The file's value is not repeated: it could be anything, of any size.
            raise UsageError(f"this memctl reads {FORMAT} version {FORMAT_VERSION} only; "
                             "the file's header names another")
        return _parse_memoryd(numbered[1:], scope)
    if isinstance(head, dict) and head.get("type") in ("entity", "relation"):
        return _parse_mcp(numbered, scope)
    raise UsageError(f"line {first_no} is neither a {FORMAT} header nor an MCP memory "
                     "server line (type entity or relation)")


def _parse_memoryd(numbered: Sequence[tuple[int, str]], scope: str | None) -> Parsed:
    parsed = Parsed("memoryd")
    for number, text in numbered:
        row = _loads(text, number)
        if not isinstance(row, dict):
            raise UsageError(f"line {number} is not a JSON object")
        if row.get("status", "active") != "active":
            parsed.skipped["not_active"] += 1
            continue
        if not isinstance(row.get("title"), str) or not isinstance(row.get("body"), str) \
                or row.get("type") not in _TYPES:
            raise UsageError(f"line {number} lacks a title, body or known type")
        entry = {k: row[k] for k in _ENTRY_IN if row.get(k) is not None}
        target = "user" if row.get("target") == "user" else "memory"
        # A user-target entry goes to the importing owner's own scope.
        where = None if target == "user" else (scope or row.get("scope") or None)
        parsed.candidates.append(Candidate(number, target, where, entry))
    return parsed


def _parse_mcp(numbered: Sequence[tuple[int, str]], scope: str | None) -> Parsed:
    parsed = Parsed("mcp-memory")
    entities: dict[str, tuple[int, str, list[str]]] = {}
    relations: list[tuple[int, str, str, str]] = []
    for number, text in numbered:
        row = _loads(text, number)
        kind = row.get("type") if isinstance(row, dict) else None
        if kind == "entity" and isinstance(row.get("name"), str) and row["name"].strip():
            observations = row.get("observations")
            found = entities.setdefault(row["name"], (number, str(row.get("entityType") or ""),
                                                      []))
            if isinstance(observations, list):
                found[2].extend(str(o) for o in observations if str(o).strip())
        elif kind == "relation" and all(isinstance(row.get(k), str)
                                        for k in ("from", "to", "relationType")):
            relations.append((number, row["from"], row["relationType"], row["to"]))
        else:
            parsed.skipped["unreadable_line"] += 1
    facts: dict[str, list[str]] = {name: [] for name in entities}
    for _number, source, relation, target in relations:
        if source in facts:
            facts[source].append(f"{relation.replace('_', ' ')} {target}")
        else:
            parsed.skipped["relation_without_entity"] += 1
    for name, (number, entity_type, observations) in entities.items():
        lines = [f"- {o}" for o in observations] + [f"- {r}" for r in facts[name]]
        if not lines:
            parsed.skipped["entity_without_observations"] += 1
            continue
        title = f"{name} ({entity_type})" if entity_type else name
        entry = {"type": "fact", "title": title, "body": "\n".join(lines),
                 "basis": {"kind": "unknown", "note": MCP_NOTE}}
        parsed.candidates.append(Candidate(number, "memory", scope, entry, entity=name))
    return parsed


# --- export ------------------------------------------------------------------------


def _list_pages(rpc: Rpc, params: Mapping[str, Any]) -> Iterator[list[dict[str, Any]]]:
    page = rpc.call("memory.list", dict(params))
    while True:
        items = page.get("items") if isinstance(page, Mapping) else None
        if not isinstance(items, list):
            raise UsageError("memoryd's memory.list answer has no items")
        yield [i for i in items if isinstance(i, dict)]
        cursor = page.get("next_cursor")
        if not cursor:
            return
        extra = {k: v for k, v in params.items() if k == "identity"}
        page = rpc.call("memory.list", {"cursor": cursor, **extra})


def _open_output(path: str | None, stdout: TextIO) -> TextIO:
    if path is None or path == "-":
        return stdout
    try:
        # Memory text leaves the daemon here: only the operator may read it,
        # and nothing that exists is replaced.
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:
        raise UsageError(f"{path} exists; choose a new file") from None
    except OSError as exc:
        raise UsageError(f"cannot create {path}: {exc.strerror or exc}") from None
    return os.fdopen(fd, "w", encoding="utf-8")


def run_export(args: argparse.Namespace, rpc: Rpc, out: TextIO,
               progress: _Progress | None = None) -> dict[str, Any]:
    """Write the export; answers the summary memctl prints on stderr."""
    filters: dict[str, Any] = {k: v for k, v in (
        ("target", option(args, "target")), ("scope", option(args, "scope")),
        ("statuses", option(args, "statuses") or ["active"])) if v is not None}
    params: dict[str, Any] = {**filters, "mode": "list", "page_size": 20,
                              **identity_params(args)}
    sink = _open_output(option(args, "output"), out)
    count = 0
    try:
        sink.write(json.dumps(header(filters), ensure_ascii=False) + "\n")
        for page in _list_pages(rpc, params):
            ids = [str(i["id"]) for i in page if "id" in i]
            for start in range(0, len(ids), READ_BATCH):
                read = rpc.call("memory.read", {"ids": ids[start:start + READ_BATCH],
                                                **identity_params(args)})
                for entry in read.get("entries", []) if isinstance(read, Mapping) else []:
                    sink.write(json.dumps(export_line(entry), ensure_ascii=False) + "\n")
                    count += 1
                    if progress is not None:
                        progress.update(1)
    finally:
        if sink is not out:
            sink.close()
        else:
            sink.flush()
    return {"format": FORMAT, "version": FORMAT_VERSION, "entries": count,
            "output": option(args, "output") or "-"}


# --- import ------------------------------------------------------------------------


# An entity name longer than this is not repeated in a refusal's line.
_ENTITY_SHOWN_MAX: Final = 80


def _shown_entity(name: str | None) -> str | None:
    """The entity name a refused line is named by, when it is safe to repeat:
    short, and holding nothing the scanner finds (the name is the entry's
    title, and may be what was refused). Otherwise the line number alone."""
    if name is None or len(name) > _ENTITY_SHOWN_MAX or scan(name):
        return None
    return name


@dataclass
class ImportReport:
    kind: str
    read: int = 0
    imported: list[str] = field(default_factory=list)
    pending: list[str] = field(default_factory=list)
    duplicates: int = 0
    conflicts: int = 0
    rejected: Counter[str] = field(default_factory=Counter)
    skipped: Counter[str] = field(default_factory=Counter)
    promoted: int = 0
    # Each refused entry: its line, its entity (MCP files) and the code.
    problems: list[dict[str, Any]] = field(default_factory=list)

    def refuse(self, cand: Candidate, code: str) -> None:
        self.rejected[code] += 1
        self.problems.append({"line": cand.line, "entity": _shown_entity(cand.entity),
                              "code": code})

    def wire(self) -> dict[str, Any]:
        return {"kind": self.kind, "read": self.read, "imported": len(self.imported),
                "ids": self.imported, "pending": self.pending, "duplicates": self.duplicates,
                "conflicts": self.conflicts, "rejected": dict(self.rejected),
                "skipped": dict(self.skipped), "promoted": self.promoted,
                "problems": self.problems}


# Refusals of one entry that leave the rest of an import going.
_PER_ENTRY: Final = frozenset({
    "secret_detected", "injection_detected", "invisible_unicode", "empty_content",
    "entry_too_large", "scope_budget_exceeded", "scope_mismatch", "policy_denied",
})


# JSON-RPC's "invalid params": the daemon refused the entry's shape.
INVALID_PARAMS: Final = -32602


def _same(existing: Mapping[str, Any], entry: Mapping[str, Any]) -> bool:
    return existing.get("type") == entry.get("type") and existing.get("body") == entry.get("body")


def run_import(args: argparse.Namespace, rpc: Rpc, text: str,
               progress: _Progress | None = None) -> ImportReport:
    from memoryd.rpc.client import RpcError

    parsed = parse_import(lines_of(text), scope=option(args, "scope"))
    report = ImportReport(parsed.kind, read=len(parsed.candidates), skipped=parsed.skipped)
    who = identity_params(args)
    for cand in parsed.candidates:
        params: dict[str, Any] = {"target": cand.target, "action": "add", "entry": cand.entry,
                                  "source": "import", **who}
        if cand.scope is not None:
            params["scope"] = cand.scope
        try:
            out = rpc.call("memory.write", params)
        except RpcError as exc:
            if exc.data_code == "duplicate_title":
                existing_id = (exc.details or {}).get("entry_id")
                found = rpc.call("memory.read", {"ids": [existing_id], **who}) \
                    if isinstance(existing_id, str) else {}
                entries = found.get("entries", []) if isinstance(found, Mapping) else []
                if entries and _same(entries[0], cand.entry):
                    report.duplicates += 1
                else:
                    report.conflicts += 1
            elif exc.data_code in _PER_ENTRY:
                report.refuse(cand, exc.data_code or "rejected")
            elif exc.code == INVALID_PARAMS:
                # One line of a hostile or damaged file (a 5,000-character
                # name, a basis that is not an object) must not stop the
                # import half-way with no report of what was written.
                report.refuse(cand, "invalid_entry")
            else:
                raise
        else:
            if out.get("outcome") == "pending" and out.get("action_id"):
                report.pending.append(str(out["action_id"]))
            else:
                report.imported.extend(str(e["id"]) for e in out.get("entries", [])
                                       if isinstance(e, Mapping) and "id" in e)
        if progress is not None:
            progress.update(1)
    if option(args, "vouch") and report.imported:
        report.promoted = len(promote_ids(rpc, report.imported, who)["promoted"])
    return report


def promote_ids(rpc: Rpc, ids: Sequence[str], who: Mapping[str, Any]) -> dict[str, Any]:
    """memory.promote for ``ids``, in batches: the entries promoted and those left as they were."""
    promoted: list[Any] = []
    unchanged: list[Any] = []
    for start in range(0, len(ids), PROMOTE_BATCH):
        out = rpc.call("memory.promote", {"ids": list(ids[start:start + PROMOTE_BATCH]), **who})
        if isinstance(out, Mapping):
            promoted.extend(out.get("promoted", []))
            unchanged.extend(out.get("unchanged", []))
    return {"promoted": promoted, "unchanged": unchanged}


def run_promote(args: argparse.Namespace, rpc: Rpc) -> dict[str, Any]:
    return promote_ids(rpc, list(dict.fromkeys(args.ids)), identity_params(args))
