"""Human-readable rendering of memctl's results and errors.

Owns: turning the JSON results of memoryd's methods into the text memctl
prints by default (``--json`` bypasses all of this), and the two-line error
report for an ``RpcError``.

Invariants:
- every function here is pure: a result in, a string out; no I/O;
- renderers are lenient about shape: a missing field prints as ``-``, never
  a crash, so a daemon that adds or lacks a field still gets readable output;
- stored text (titles, bodies, summaries, scopes) is passed through
  ``clean``/``cell`` before it reaches a terminal: control and format
  characters are shown as escapes, so a memory cannot smuggle terminal escape
  sequences or bidirectional overrides into the operator's screen;
- no renderer prints a token, except ``token_issued`` (the one moment the
  operator must see it); the generic fallback drops any key named ``token``.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, Final

from wcwidth import wcswidth

from memoryd.kernel.retention import NEVER_EXPIRES

__all__ = [
    "action_detail",
    "cell",
    "clean",
    "consent",
    "context",
    "entries",
    "error_lines",
    "exported",
    "gc",
    "generic",
    "imported",
    "journal",
    "listing",
    "policy_explain",
    "policy_reload",
    "promoted",
    "proposer",
    "receipt",
    "scan_verdict",
    "status",
    "table",
    "team_changed",
    "teams",
    "token_issued",
    "token_revoked",
    "tokens",
    "verify",
    "write_result",
]

_TITLE_WIDTH: Final = 72
_SECRET_KEYS: Final = frozenset({"token"})
_SWITCHES: Final = ("read", "contribute", "learn_from_tools")  # an owner's consent


# --- text hygiene ----------------------------------------------------------


# Characters that render as nothing (or as blank) though they are not format
# characters: Hangul fillers, the braille blank, the combining grapheme joiner,
# Khmer inherent vowels, Mongolian free variation selectors, variation
# selectors (a hidden byte each) and the other default-ignorable code points.
_BLANK: Final = frozenset(
    [0x034F, 0x115F, 0x1160, 0x17B4, 0x17B5, 0x180B, 0x180C, 0x180D, 0x180F, 0x2800, 0x3164,
     0xFFA0, *range(0xFE00, 0xFE10), *range(0xE0100, 0xE01F0), *range(0x1BCA0, 0x1BCA4),
     *range(0x1D173, 0x1D17B)])


def _hidden(ch: str, base: str) -> bool:
    """Whether ``ch`` would not be seen, or would hide itself on ``base``."""
    category = unicodedata.category(ch)
    if category in ("Cc", "Cf", "Zl", "Zp", "Co", "Cn", "Cs") or ord(ch) in _BLANK:
        return True
    # Combining marks on Latin letters or ASCII stack invisibly between the
    # letters of a word; scripts that are written with marks keep them.
    return category in ("Mn", "Me") and (base.isascii() or "LATIN" in unicodedata.name(base, ""))


def clean(text: object, *, multiline: bool = False) -> str:
    """``text`` with every non-printing or non-spacing character shown as an escape.

    Control, format, unassigned and private-use characters, blank fillers and
    variation selectors, and combining marks on Latin text appear as
    ``\\x..``/``\\u....``/``\\U........``. With ``multiline`` newlines and
    tabs are kept (for bodies); otherwise they are escaped too, so one value
    stays on one line.
    """
    if text is None:
        return "-"
    out: list[str] = []
    base = " "
    for ch in str(text):
        if multiline and ch in "\n\t":
            out.append(ch)
        elif _hidden(ch, base):
            code = ord(ch)
            out.append(f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}" if code < 0x10000
                       else f"\\U{code:08x}")
        else:
            out.append(ch)
        if unicodedata.category(ch)[0] != "M":
            base = ch
    return "".join(out)


def cell(value: object, width: int | None = None) -> str:
    """One table cell: cleaned, on one line, cut to ``width`` with an ellipsis."""
    text = _scalar(value)
    if width is not None and len(text) > width:
        text = text[: width - 1] + "…"
    return text


def _scalar(value: object) -> str:
    if value is None:
        return "-"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, list | tuple):
        return ", ".join(_scalar(v) for v in value) or "-"
    if isinstance(value, dict):
        # Human output shows no raw JSON: a nested object reads as key=value.
        return ", ".join(f"{clean(k)}={_scalar(v)}" for k, v in sorted(value.items())) or "-"
    return clean(value)


def _get(obj: object, *path: str) -> Any:
    for key in path:
        if not isinstance(obj, Mapping):
            return None
        obj = obj.get(key)
    return obj


def _items(result: object, key: str = "items") -> list[Mapping[str, Any]]:
    value = _get(result, key)
    if not isinstance(value, list):
        return []
    return [item for item in value if isinstance(item, Mapping)]


def _onoff(value: object) -> str:
    return "on" if value is True else "off" if value is False else "-"


def _cells(text: str) -> int:
    """Terminal cells ``text`` takes (a CJK character takes two). Cells are
    escaped before they get here, so every character has a width."""
    width = wcswidth(text)
    return width if width >= 0 else len(text)


def table(headers: Sequence[str], rows: Iterable[Sequence[str]]) -> str:
    """Left-aligned columns separated by two spaces; the last column is not
    padded. Widths are counted in terminal cells, so CJK text lines up."""
    grid = [list(headers), *(list(r) for r in rows)]
    widths = [max(_cells(r[i]) for r in grid) for i in range(len(headers) - 1)]
    lines = []
    for row in grid:
        padded = [c + " " * (w - _cells(c)) for c, w in zip(row, widths, strict=False)]
        lines.append("  ".join([*padded, row[-1]]).rstrip())
    return "\n".join(lines)


def _fields(pairs: Iterable[tuple[str, object]]) -> str:
    pairs = list(pairs)
    width = max((len(k) for k, _ in pairs), default=0) + 1
    return "\n".join(f"{(k + ':').ljust(width)} {_scalar(v)}" for k, v in pairs)


def _named(result: object, *keys: str) -> str:
    """Fields of ``result`` labelled by their keys (``created_at`` reads ``created``)."""
    return _fields((k.removesuffix("_id").removesuffix("_at").replace("_", " "), _get(result, k))
                   for k in keys)


def _counts(value: object, empty: str = "none") -> str:
    """A mapping of counts as ``a 1, b 2``; ``empty`` when there are none."""
    if not isinstance(value, Mapping) or not value:
        return empty
    return ", ".join(f"{cell(k)} {cell(v)}" for k, v in value.items())


def _more(result: object, command: str) -> list[str]:
    """The command for the next page, when there is one."""
    cursor = _get(result, "next_cursor")
    return [f"more: {command} --cursor {cell(cursor)}"] if cursor else []


def _indent(text: str, prefix: str = "    ") -> str:
    return "\n".join(prefix + line if line else prefix.rstrip() for line in text.split("\n"))


def generic(result: object) -> str:
    """Fallback for results without a dedicated renderer (new or unknown shapes)."""
    if isinstance(result, Mapping):
        items = _items(result)
        parts: list[str] = []
        if items:
            parts.append(_generic_table(items))
        rest = [(k, v) for k, v in result.items()
                if k not in _SECRET_KEYS and not (k == "items" and items)]
        if rest:
            parts.append(_fields(rest))
        return "\n".join(parts) if parts else "(empty result)"
    if isinstance(result, list):
        rows = [r for r in result if isinstance(r, Mapping)]
        return _generic_table(rows) if rows else _scalar(result)
    return _scalar(result)


def _generic_table(items: Sequence[Mapping[str, Any]]) -> str:
    keys: list[str] = []
    for item in items:
        keys.extend(k for k in item if k not in keys and k not in _SECRET_KEYS)
    return table(keys, ([cell(i.get(k), 40) for k in keys] for i in items))


# --- memory ----------------------------------------------------------------


def status(result: object) -> str:
    backend = _get(result, "backend") or {}
    health = _scalar(_get(backend, "health"))
    if _get(backend, "degraded_reason"):
        health += f" ({cell(_get(backend, 'degraded_reason'))})"
    audit = _get(result, "audit") or {}
    ident = _get(result, "identity") or {}
    consent_ = _get(result, "consent") or {}
    lines = [
        ("backend", f"{cell(_get(backend, 'kind'))}, {cell(_get(backend, 'durability'))}, "
                    f"{cell(_get(backend, 'sharing'))}"),
        ("health", health),
        ("entries", _counts(_get(result, "counts"))),
        ("pending actions", _pending_count(result)),
        ("audit head", f"seq {cell(_get(audit, 'seq'))}, hash {cell(_get(audit, 'hash'), 19)}"),
        ("audit verified", _get(audit, "verified")),
        ("last checkpoint", _get(audit, "last_checkpoint")),
        ("owner", _get(ident, "owner")),
        ("identity source", _get(ident, "source")),
        ("identity verified", _get(ident, "identity_verified")),
        ("consent", ", ".join(f"{k} {_onoff(_get(consent_, k))}" for k in _SWITCHES)
         + f" (version {cell(_get(consent_, 'version'))})"),
        ("policy hash", _get(result, "policy", "hash")),
    ]
    if _get(result, "recall") is not None:
        lines.append(("recall", _ranker(_get(result, "recall"))))
    if _get(result, "projection") is not None:
        lines.append(("projection", "on" if _get(result, "projection", "enabled") else "off"))
    text = _fields(lines)
    for key in ("pending_by_owner", "entries_by_owner"):
        per_owner = _get(result, key)
        if isinstance(per_owner, Mapping):
            text += f"\n{key.replace('_', ' ')}:" + ("".join(
                f"\n  {cell(owner)}  {cell(n)}" for owner, n in per_owner.items()) or " none")
    return text


_LEXICAL_BECAUSE: Final = {
    "disabled": "switched off in memoryd.toml: [recall] ranker = lexical",
    "extra_not_installed": "the semantic extra is not installed",
    "installed_not_loaded": "the semantic extra is installed; restart memoryd to load it",
    "load_failed": "the embedding model failed to load; see memoryd's log",
}


def _ranker(recall: object) -> str:
    """Which ranker orders recall, in plain words."""
    if _get(recall, "ranker") == "hybrid":
        return f"hybrid (model {cell(_get(recall, 'model'))})"
    reason = _get(recall, "reason")
    why = _LEXICAL_BECAUSE.get(reason, cell(reason)) if isinstance(reason, str) else None
    return f"{cell(_get(recall, 'ranker'))}" + (f" ({why})" if why else "")


def _pending_count(result: object) -> object:
    """This identity's pending actions, and every owner's when the daemon
    counted them (control.sock)."""
    mine, everyone = _get(result, "pending_actions"), _get(result, "pending_all_owners")
    if everyone is None:
        return mine
    return f"{cell(mine)} for this identity, {cell(everyone)} in all (memctl pending)"


# How a pinned entry's expiry reads (it has none: docs/lifecycle.md).
NEVER_PINNED: Final = "never (pinned)"


def _expires(expires: object, *, short: bool = False) -> str:
    """An entry's ``expires_at`` as the operator reads it."""
    if expires == NEVER_EXPIRES:
        return NEVER_PINNED
    if not isinstance(expires, str):
        return "-"
    return cell(expires[:10] if short else expires)


def listing(result: object) -> str:
    items = _items(result)
    search = _get(result, "mode") == "search"
    headers = ["ID", "TYPE", "STATUS", "REV", "SCOPE", "EXPIRES", *(["SCORE"] if search else []),
               "TITLE"]
    rows = []
    for i in items:
        score = [] if not search else [_score(i.get("score"))]
        rows.append([cell(i.get("id")), cell(i.get("type")), cell(i.get("status")),
                     cell(i.get("revision")), cell(i.get("scope"), 28),
                     _expires(i.get("expires_at"), short=True), *score,
                     cell(i.get("title"), _TITLE_WIDTH)])
    parts = [table(headers, rows) if rows else "no entries"]
    for warning in _get(result, "coverage", "warnings") or []:
        parts.append(f"warning: {cell(warning)}")
    if _get(result, "coverage", "complete") is False:
        parts.append("warning: some records could not be read; this listing is incomplete")
    parts += _more(result, "memctl ls")
    return "\n".join(parts)


def _score(value: object) -> str:
    return f"{value:.3f}" if isinstance(value, int | float) else cell(value)


def entries(result: object) -> str:
    blocks = [_entry(e) for e in _items(result, "entries")]
    pending = _items(result, "pending")
    if pending:
        lines = ["pending proposals that would change these entries:"]
        for p in pending:
            lines.append(f"  {cell(p.get('action_id'))}  entries {cell(p.get('entry_ids'))}  "
                         f"created {cell(p.get('created_at'))}  "
                         f"expires {cell(p.get('expires_at'))}")
            lines.extend(f"    {_op_summary(op)}" for op in _ops(p))
        lines.append("  (memctl action ACTION_ID shows a proposal in full)")
        blocks.append("\n".join(lines))
    return "\n\n".join(blocks) if blocks else "no entries"


def _entry(e: Mapping[str, Any]) -> str:
    basis = e.get("basis") if isinstance(e.get("basis"), Mapping) else {}
    status_ = cell(e.get("status")) + (" (expired)" if e.get("expired") is True else "")
    head = _fields([
        ("id", e.get("id")),
        ("title", e.get("title")),
        ("type", e.get("type")),
        ("status", status_),
        ("revision", e.get("revision")),
        ("target/scope", f"{cell(e.get('target'))}/{cell(e.get('scope'))}"),
        ("source", e.get("source")),
        ("basis", " — ".join(cell(x) for x in (_get(basis, "kind"), _get(basis, "note"))
                             if x) or "-"),
        ("pinned", e.get("pinned")),
        ("created", e.get("created_at")),
        ("updated", e.get("updated_at")),
        ("expires", _expires(e.get("expires_at"))),
        ("used", f"{cell(e.get('use_count'))} times, last {cell(e.get('last_used_at'))}"),
        ("superseded by", e.get("superseded_by")),
        ("content hash", e.get("content_hash")),
        ("observed", e.get("observed_at")),
        ("summary", e.get("summary")),
    ])
    body = e.get("body")
    body_text = _indent(clean(body, multiline=True)) if body else "    (no body)"
    context = e.get("context")
    if context:
        # Searched with the entry, never shown as its body.
        body_text += "\ncontext:\n" + _indent(clean(context, multiline=True))
    return f"{head}\nbody:\n{body_text}"


def write_result(result: object) -> str:
    outcome = cell(_get(result, "outcome"))
    decision = _get(result, "decision") or {}
    rules = _get(decision, "rule_ids") or []
    lines = [("outcome", outcome),
             ("decision", f"{cell(_get(decision, 'effect'))} ({cell(_get(decision, 'decision_id'))}"
                          + (f"; rules {cell(rules)}" if rules else "") + ")")]
    if _get(result, "operation_id"):
        lines.append(("operation", _get(result, "operation_id")))
    if _get(result, "action_id"):
        lines.append(("action", _get(result, "action_id")))
    text = _fields(lines)
    rows = [[cell(e.get("id")), f"rev {cell(e.get('revision'))}", cell(e.get("status")),
             cell(e.get("type")), cell(e.get("title"), _TITLE_WIDTH)]
            for e in _items(result, "entries")]
    if rows:
        grid = table(["ID", "REV", "STATUS", "TYPE", "TITLE"], rows)
        text += "\nentries:\n" + _indent(grid, "  ")
    receipts = _items(result, "receipts") or [r for r in [_get(result, "receipt")]
                                               if isinstance(r, Mapping)]
    for r in receipts:
        text += (f"\nreceipt: {cell(r.get('receipt_id'))} for {cell(r.get('entry_id'))} "
                 f"({cell(r.get('status'))})")
    for w in _get(result, "warnings") or []:
        text += f"\nwarning: {cell(w)}"
    if outcome == "pending" and _get(result, "action_id"):
        action = cell(_get(result, "action_id"))
        text += (f"\nwaiting for a decision: memctl action {action} to review, "
                 f"memctl approve {action} or memctl deny {action}")
    return text


# --- governance ------------------------------------------------------------


def _ops(item: Mapping[str, Any], key: str = "ops_summary") -> list[Mapping[str, Any]]:
    ops = item.get(key)
    return [o for o in ops if isinstance(o, Mapping)] if isinstance(ops, list) else []


def _op_summary(op: Mapping[str, Any]) -> str:
    where = f"{cell(op.get('target'))}/{cell(op.get('scope'))}"
    entry = op.get("entry_id")
    if entry:
        where += f" {cell(entry)}@{cell(op.get('expected_revision'))}"
    return f"{cell(op.get('action'))} {where}"


def _whole(value: object) -> str:
    """A count or a latency as a whole number ("-" when absent)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return "-" if value is None else cell(value)
    return str(round(value))


def projection_report(result: object) -> str:
    """``memory.projection.report`` as a few lines and a table per recall mode."""
    parts = [f"mode: {cell(_get(result, 'mode'))}, projecting "
             f"{'on' if _get(result, 'project') else 'off'}",
             "outbox: " + _counts(_get(result, "outbox"), "empty")
             + (f" (oldest open since {cell(_get(result, 'oldest_open'))})"
                if _get(result, "oldest_open") else "")]
    modes = _get(result, "recall") or {}
    rows = []
    for mode, row in (modes.items() if isinstance(modes, Mapping) else []):
        if not isinstance(row, Mapping):
            continue
        degraded = row.get("degraded")
        rows.append([cell(mode), *(_whole(row.get(k)) for k in (
            "attempts", "ok", "returned", "kept", "flagged", "overlap", "local",
            "mean_latency_ms", "max_latency_ms")),
            _counts(dict(sorted(degraded.items())) if isinstance(degraded, Mapping) else None)])
    parts.append(table(["MODE", "ATTEMPTS", "OK", "RETURNED", "KEPT", "FLAGGED", "OVERLAP",
                        "LOCAL", "MEAN MS", "MAX MS", "DEGRADED"], rows)
                 if rows else "no external recall yet")
    return "\n".join(parts)


def projection_authorized(result: object) -> str:
    """What would leave the host, item by item, then the counts."""
    lines = []
    for item in _items(result):
        title = cell(item.get("title"), _TITLE_WIDTH) if item.get("title") else "(withdrawn)"
        lines.append(f"  {cell(item.get('entry_id'))}  rev {cell(item.get('revision'))}  "
                     f"{cell(item.get('action'))}  {title}")
    approved = _get(result, "approved")
    head = (f"{cell(_get(result, 'considered'))} items would leave this host"
            + (f"; {cell(approved)} approved now" if approved else "") + ":")
    outbox = _get(result, "outbox")
    parts = [head, *lines] if lines else ["nothing waits to leave this host"]
    if isinstance(outbox, Mapping):
        parts.append("outbox: " + _counts({k: v for k, v in outbox.items() if v}, ""))
    if lines and not approved:
        parts.append("approve them with: memctl projection authorize --approve "
                     "(or --entry ID for some)")
    return "\n".join(p for p in parts if p)


def items_of(result: object) -> list[Mapping[str, Any]]:
    return _items(result)


def _fit(text: str, width: int) -> str:
    """``text`` cut to ``width`` terminal cells, with an ellipsis."""
    if _cells(text) <= width:
        return text
    out = ""
    for ch in text:
        if _cells(out + ch) > width - 1:
            break
        out += ch
    return out + "…"


def pending_list(result: object, titles: Mapping[str, list[str]], width: int) -> str:
    """Actions two lines each, fitted to ``width`` columns: the id, what it
    does and its titles; then status, who proposed and when."""
    width = max(width, 40)
    lines = []
    for a in _items(result):
        action_id = cell(a.get("action_id"))
        ops = "; ".join(_op_summary(o) for o in _ops(a)) or "-"
        named = ", ".join(cell(t) for t in titles.get(str(a.get("action_id")), []))
        head = f"{action_id}  {ops}" + (f"  {named}" if named else "")
        lines.append(_fit(head, width))
        lines.append(_fit(f"  {cell(a.get('status'))} · by "
                          f"{proposer(a.get('proposed_by'), a.get('owner'))} · created "
                          f"{cell(a.get('created_at'))} · expires {cell(a.get('expires_at'))}",
                          width))
    parts = ["\n".join(lines) if lines else "no actions"]
    parts += [_fit(more, width) for more in _more(result, "memctl pending")]
    return "\n".join(parts)


def proposer(by: object, owner: object) -> str:
    """Who proposed an action: the token (labelled by memctl when it has a
    label) or the channel."""
    if not isinstance(by, Mapping):
        return cell(owner)
    token = by.get("token")
    if isinstance(token, str):
        return cell(token) if token.startswith("token:") else f"token {cell(token)}"
    channel = by.get("channel")
    return "operator" if channel == "control" else f"{cell(channel)} task"


def action_detail(result: object) -> str:
    if not isinstance(result, Mapping):
        return generic(result)
    text = _fields([
        ("action", result.get("action_id")),
        ("status", result.get("status")),
        ("owner", result.get("owner")),
        ("proposed by", proposer(result.get("proposed_by"), None)),
        ("created", result.get("created_at")),
        ("expires", result.get("expires_at")),
        ("decided", result.get("decided_at")),
        *([("reason", result.get("reason"))] if result.get("reason") else []),
        ("policy hash", result.get("policy_hash")),
    ])
    resources = result.get("resources") or []
    if resources:
        text += "\nresources:\n" + "\n".join(f"  {cell(r)}" for r in resources)
    ops = _ops(result, "ops")
    for n, op in enumerate(ops, 1):
        text += f"\n\noperation {n}: {_op_summary(op)}"
        entry = op.get("entry")
        if isinstance(entry, Mapping):
            text += "\n" + _indent(_proposed_entry(entry), "  ")
    if not ops and not isinstance(result.get("ops"), list) and result.get("status") != "pending":
        text += "\n(the proposal's content is no longer kept once an action is decided)"
    if result.get("result"):
        text += f"\nresult: {cell(result.get('result'))}"
    if result.get("status") == "pending":
        action = cell(result.get("action_id"))
        text += f"\n\ndecide: memctl approve {action}   or   memctl deny {action} --reason TEXT"
    return text


def _proposed_entry(entry: Mapping[str, Any]) -> str:
    basis = entry.get("basis")
    head = _fields([
        ("title", entry.get("title")),
        ("type", entry.get("type")),
        ("summary", entry.get("summary")),
        ("basis", basis if basis is not None else "(not given)"),
        ("validity", entry.get("validity") if entry.get("validity") is not None
         else "(not given)"),
        ("ttl days", entry.get("ttl_days")),
        ("pinned", entry.get("pinned")),
    ])
    body = clean(entry.get("body"), multiline=True)
    return f"{head}\nbody:\n{_indent(body)}"


# --- consent and tokens ----------------------------------------------------


def consent(result: object) -> str:
    return _fields([("owner", _get(result, "owner")),
                    *((k, _onoff(_get(result, k))) for k in _SWITCHES),
                    ("version", _get(result, "version"))])


def token_issued(result: object) -> str:
    token = _get(result, "token")
    return "\n".join([
        f"token:    {clean(token)}",
        _fields([("token id", _get(result, "token_id")), ("label", _get(result, "label")),
                 ("owner", _get(result, "owner")),
                 ("expires", _get(result, "expires_at") or "never")]),
        "",
        "This is the only time the token is shown: memoryd keeps only a keyed hash of it",
        "and cannot show it again. Hand it to the agent runner now (for example as",
        "MEMORYD_AGENT_TOKEN); if it is lost, revoke it and issue a new one.",
    ])


def tokens(result: object) -> str:
    rows = [[cell(t.get("token_id")), cell(t.get("label")), cell(t.get("state")),
             cell(t.get("kind")), cell(t.get("owner")), cell(t.get("scopes")),
             cell(t.get("created_at")), cell(t.get("expires_at") or "never")]
            for t in _items(result)]
    if not rows:
        return "no tokens"
    return table(["TOKEN ID", "LABEL", "STATE", "KIND", "OWNER", "SCOPES", "CREATED",
                  "EXPIRES"], rows)


def teams(result: object) -> str:
    rows = [[cell(t.get("scope")), cell(t.get("created_at")),
             ", ".join(cell(m.get("owner"), 80) for m in _items(t, "members")) or "none"]
            for t in _items(result, "teams")]
    if not rows:
        return "no teams"
    return table(["TEAM SCOPE", "CREATED", "MEMBERS (OWNERS, WITH THEIR TOKENS' LABELS)"], rows)


def team_changed(result: object) -> str:
    member = _get(result, "member")
    scope = cell(_get(result, "scope"))
    if member is None:
        return f"created {scope} (no members yet)"
    if _get(result, "changed") is False:
        return f"{cell(member)} was already a member of {scope}"
    return f"{cell(member)} {'added to' if _get(result, 'changed') else 'removed from'} {scope}"


def token_revoked(result: object) -> str:
    return f"revoked {cell(_get(result, 'token_id'))}"


# --- recall ----------------------------------------------------------------


def context(result: object) -> str:
    parts = [_fields([
        ("snapshot", _get(result, "snapshot_id")),
        ("task", _get(result, "task_id")),
        ("frozen at", _get(result, "frozen_at")),
    ])]
    if _get(result, "intent_truncated"):
        parts.append("note: the intent was cut to its first 4,096 characters")
    cards = _items(result, "entries")
    rows = [[cell(c.get("id")), cell(c.get("type")), cell(c.get("scope"), 28),
             _score(c.get("score")), cell(c.get("title"), _TITLE_WIDTH)] for c in cards]
    parts.append(table(["ID", "TYPE", "SCOPE", "SCORE", "TITLE"], rows)
                 if rows else "no cards")
    omitted = _get(result, "omitted")
    if isinstance(omitted, Mapping) and omitted:
        parts.append("omitted: " + _counts(omitted))
    if _get(result, "truncated"):
        parts.append("note: recall limits cut this snapshot")
    external = _get(result, "coverage", "external")
    if isinstance(external, Mapping):
        if external.get("status") == "ok":
            parts.append(f"external recall: {cell(external.get('items'))} items")
        else:
            parts.append(f"note: external recall degraded ({cell(external.get('reason'))}); "
                         "only local memory is in this snapshot")
    rendered = _get(result, "rendered")
    parts.append("rendered:\n" + (_indent(clean(rendered, multiline=True))
                                  if rendered else "    (empty)"))
    return "\n".join(parts)


# --- audit and policy --------------------------------------------------------


def verify(result: object) -> str:
    head = _get(result, "head") or {}
    where = f"head seq {cell(_get(head, 'seq'))}, hash {cell(_get(head, 'hash'), 19)}"
    if _get(result, "ok") is True:
        return f"audit chain ok: {cell(_get(result, 'checked'))} events checked, {where}"
    return (f"audit chain NOT ok: first bad event at seq {cell(_get(result, 'first_bad_seq'))}"
            f" ({cell(_get(result, 'reason'))}); {cell(_get(result, 'checked'))} events checked,"
            f" last good {where}")


def policy_reload(result: object) -> str:
    if _get(result, "loaded") is True:
        rules = _get(result, "rules")
        extra = f" ({cell(rules)} rules)" if rules is not None else ""
        return f"policy loaded: hash {cell(_get(result, 'hash'))}{extra}"
    return (f"policy NOT loaded: {cell(_get(result, 'error'))}\n"
            f"the previous policy (hash {cell(_get(result, 'hash'))}) stays in force")


def policy_explain(result: object) -> str:
    rules = _get(result, "rule_ids") or []
    how = ("by rule" + ("s " if len(rules) > 1 else " ") + ", ".join(cell(r) for r in rules)
           if _get(result, "explicit") is True
           else f"by the always-on rule {cell(_get(result, 'always_on'))}"
           if _get(result, "always_on") else "by the default (no rule matched)")
    lines = [f"{cell(_get(result, 'effect'))} {how}",
             f"resource     {cell(_get(result, 'resource'))}",
             f"reason       {cell(_get(result, 'reason'))}",
             f"policy hash  {cell(_get(result, 'policy_hash'))}"]
    if rules and _get(result, "explicit") is not True:
        lines.insert(1, f"matched      {', '.join(cell(r) for r in rules)}")
    return "\n".join(lines)


# --- history, retention, backup, transfer ------------------------------------


def journal(result: object) -> str:
    rows = []
    for op in _items(result):
        changed = [i for i in op.get("items") or [] if isinstance(i, Mapping)]
        entries_ = ", ".join(
            f"{cell(i.get('entry_id') or i.get('id'))}"
            + (f"@{cell(i.get('revision_after'))}" if i.get("revision_after") is not None else "")
            for i in changed) or "-"
        note = ""
        if op.get("undone_by"):
            note = f"undone by {cell(op.get('undone_by'))}"
        elif op.get("undo_of"):
            note = f"undoes {cell(op.get('undo_of'))}"
        rows.append([cell(op.get("operation_id")), cell(op.get("ts")), cell(op.get("action")),
                     cell(op.get("channel")), entries_, note])
    parts = [table(["OPERATION", "WHEN", "ACTION", "CHANNEL", "ENTRIES", "NOTE"], rows)
             if rows else "no operations"]
    parts += _more(result, "memctl journal")
    return "\n".join(parts)


def gc(result: object) -> str:
    return _named(result, "expired", "purged", "actions_expired", "receipts_rechecked")


def receipt(result: object) -> str:
    return _named(result, "receipt_id", "entry_id", "status", "created_at", "updated_at")


def exported(result: object) -> str:
    return (f"exported {cell(_get(result, 'entries'))} entries to {cell(_get(result, 'output'))}"
            f" ({cell(_get(result, 'format'))} version {cell(_get(result, 'version'))})")


def imported(result: object) -> str:
    lines = [_fields([
        ("read", f"{cell(_get(result, 'read'))} entries ({cell(_get(result, 'kind'))} file)"),
        ("imported", _get(result, "imported")),
        ("duplicates skipped", _get(result, "duplicates")),
        ("title conflicts skipped", _get(result, "conflicts")),
        ("rejected", _counts(_get(result, "rejected"), "0")),
        ("other lines skipped", _counts(_get(result, "skipped"), "0")),
        ("waiting for approval", len(_get(result, "pending") or [])),
        ("vouched for", _get(result, "promoted")),
    ])]
    for problem in _items(result, "problems"):
        entity = problem.get("entity")
        lines.append(f"line {cell(problem.get('line'))}"
                     + (f" (entity {cell(entity, 60)})" if entity else "")
                     + f": {cell(problem.get('code'))}")
    if _get(result, "imported") and not _get(result, "promoted"):
        lines.append("imported entries are listed but not recalled until you vouch for them: "
                     "review with `memctl ls` / `memctl show ID`, then `memctl promote ID...`")
    if _get(result, "pending"):
        lines.append("decide the proposals with `memctl pending` and `memctl approve ID`")
    return "\n".join(lines)


def promoted(result: object) -> str:
    done = _items(result, "promoted")
    same = _items(result, "unchanged")
    lines = [f"vouched for {len(done)} entries; recall may use them from now on"]
    lines.extend(f"  {cell(e.get('id'))} rev {cell(e.get('revision'))}" for e in done)
    if same:
        lines.append(f"left as they were ({len(same)}, not imported):")
        lines.extend(f"  {cell(e.get('id'))} ({cell(e.get('source'))})" for e in same)
    return "\n".join(lines)


# --- local scan ----------------------------------------------------------------


def scan_verdict(code: str | None, details: Mapping[str, Any] | None) -> str:
    """``code`` None means clean. Findings are shown by rule and offsets only."""
    if code is None:
        return "clean"
    lines = [f"rejected: {code}"]
    details = details or {}
    for f in details.get("findings") or []:
        if isinstance(f, Mapping):
            lines.append(f"  {cell(f.get('field'))} [{cell(f.get('start'))}:"
                         f"{cell(f.get('end'))}]  {cell(f.get('rule_id'))} "
                         f"({cell(f.get('category'))})")
    if details.get("findings_omitted"):
        lines.append(f"  … and {cell(details['findings_omitted'])} more")
    facts = {k: v for k, v in details.items() if k not in ("findings", "findings_omitted")}
    if facts:
        lines.append("  " + ", ".join(f"{k}={cell(v)}" for k, v in facts.items()))
    return "\n".join(lines)


# --- errors ------------------------------------------------------------------


def error_lines(*, message: str, data_code: str | None, recovery: str | None,
                incident: str | None, details: object, errors: object,
                method: str | None = None) -> list[str]:
    """The stderr lines for an error reply: ``memctl: <message> (<code>)``,
    then ``  what to do: <recovery>`` and any safe details."""
    head = f"memctl: {clean(message)}"
    if data_code:
        head += f" ({clean(data_code)})"
    if incident:
        head += f" (incident {clean(incident)})"
    lines = [head]
    if recovery:
        lines.append(f"  what to do: {clean(recovery)}")
    elif incident:
        lines.append("  what to do: the daemon's log holds the details under this incident id")
    if data_code == "method_not_found" and method:
        lines.append(f"  note: this memoryd does not offer {clean(method)}")
    if isinstance(errors, list):
        for e in errors:
            if isinstance(e, Mapping):
                what = e.get("expected") or e.get("problem")
                lines.append(f"  field {cell(e.get('path'))}: {cell(what)}")
    if isinstance(details, Mapping) and details:
        findings = details.get("findings")
        if isinstance(findings, list):
            lines.extend("  " + line for line in
                         scan_verdict(data_code or "rejected", details).split("\n")[1:])
        else:
            lines.append("  details: " + ", ".join(
                f"{cell(k)}={cell(v)}" for k, v in details.items()))
    return lines
