"""What to do next, in memctl's terms: one row per error code.

Owns: the recovery hint memctl prints under an error reply. The daemon's own
``data.recovery`` speaks the wire (method and field names, for any client);
an operator at a shell needs the memctl command that gets them unstuck, so
memctl prints its row here instead, and the daemon's text where it has none.

Invariants:
- a hint is built from the table and from ids the daemon put in
  ``details`` (entry, action ids, revisions) only — never from request
  text, titles or bodies;
- every row names a memctl command or option that exists (a unit test runs
  each named subcommand's ``--help``).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any, Final

__all__ = ["HINTS", "hint"]

_ID: Final = re.compile(r"^[A-Za-z0-9_.:-]{1,80}$")

# {entry} / {action} / {rev} / {cmd} are filled from details and the command
# line when known; otherwise the placeholder words stay (ID, N).
HINTS: Final[dict[str, str]] = {
    "policy_denied": "a rule of policy.toml denies this; change it and run "
                     "`memctl policy reload`, or act for an allowed identity",
    "consent_required": "turn the switch on with `memctl consent set --read on --contribute "
                        "on` (with --identity-kind/--identity-subject for another owner)",
    "read_only_task": "a subagent task cannot write; write from a main task",
    "channel_forbidden": "run this with memctl on the operator's control.sock",
    "scope_mismatch": "pick a scope the task reads (`memctl context --scope SCOPE`)",
    "revision_conflict": "the entry changed: see it with `memctl show {entry}` and repeat "
                         "with --rev {rev}",
    "missing_revision": "add --rev N, the entry's current revision (`memctl show ID`)",
    "covered_target_changed": "see the covering entry with `memctl show ID` and repeat with "
                              "its current --covered-rev",
    "duplicate_title": "an active entry has this title: see it with `memctl show {entry}`, "
                       "then `memctl edit {entry}` or `memctl supersede {entry} --rev N ...`, "
                       "or choose another --title",
    # At approval, the title was taken after the action was proposed.
    "duplicate_title@approve": "an active entry took this title since it was proposed: "
                               "`memctl approve {action} --as-supersede` makes the proposal "
                               "supersede it, or `memctl deny {action}`",
    "decision_stale": "the entries changed since the proposal: `memctl deny {action}` and "
                      "let the agent propose again",
    "already_decided": "nothing changed; see it with `memctl action {action}`",
    "idempotency_conflict": "use a new --idempotency-key for a new request",
    "undo_impossible": "see `memctl journal`; a removal is final: write the entry again",
    "not_found": "find the id with `memctl ls` (other statuses: `memctl ls --status archived "
                 "superseded`)",
    "task_not_found": "the task ended or expired; run the command again",
    "action_not_found": "list actions with `memctl pending` (decided ones: "
                        "`memctl pending --status approved`)",
    "secret_detected": "remove the secret (keep a pointer to where it is stored) and run the "
                       "command again; `memctl scan` checks text without the daemon",
    "injection_detected": "state the fact plainly, without instructions to a model; "
                          "`memctl scan` checks text without the daemon",
    "invisible_unicode": "remove the characters at the offsets shown; `memctl scan` checks "
                         "text without the daemon",
    "empty_content": "give a non-empty --title and body",
    "entry_too_large": "shorten the body or split it into several entries",
    "scope_budget_exceeded": "make room: `memctl ls --scope SCOPE`, then `memctl archive ID "
                             "--reason ...` or `memctl rm ID`; or raise the budget in "
                             "memoryd.toml (docs/configuration.md)",
    "batch_too_large": "split it into batches of at most 50",
    "rate_limited": "decide what waits (`memctl pending`, `memctl approve ID`, "
                    "`memctl deny ID`)",
    "store_unavailable": "check `memctl status` and `memctl audit verify`; writes resume once "
                         "the chain verifies",
    # A store_unavailable whose details name the reason database_unreachable
    # (PostgreSQL): the hint is this row, not the audit chain's.
    "store_unavailable/database_unreachable":
        "the PostgreSQL database cannot be reached: check that its server runs and the "
        "[store] dsn in memoryd.toml; memoryd reconnects by itself, and `memctl status` "
        "says database_unreachable until then",
    "consent_authority_unavailable": "check `memctl status` and the daemon's log",
    "cursor_invalid": "run the listing again without --cursor",
    "cursor_mixed_with_filters": "give --cursor alone; it carries its listing's filters",
    "invalid_params": "check the options with `memctl {cmd} --help`",
    "method_not_found": "this memoryd is older than memctl: upgrade memoryd "
                        "(docs/operations.md), then run the command again",
}


def _safe(value: object) -> str | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return str(value)
    return value if isinstance(value, str) and _ID.match(value) else None


def hint(code: str | None, *, command: str | None = None,
         details: object = None, args: Mapping[str, Any] | None = None) -> str | None:
    """The memctl hint for ``code``, or None when memctl has none."""
    reason = details.get("reason") if isinstance(details, Mapping) else None
    template = HINTS.get(f"{code}/{reason}") if isinstance(reason, str) else None
    template = template or HINTS.get(f"{code}@{command}") or HINTS.get(code or "")
    if template is None:
        return None
    # What the daemon reports wins over the command line: a duplicate title
    # names the other entry, not the one being written.
    known: dict[str, Any] = {}
    if isinstance(details, Mapping):
        for key, name in (("entry_id", "entry"), ("id", "entry"), ("action_id", "action"),
                          ("current_revision", "rev"), ("revision", "rev")):
            value = _safe(details.get(key))
            if value is not None:
                known.setdefault(name, value)
    for key, value in (args or {}).items():
        known.setdefault(key, value)
    fills = {"entry": "ID", "action": "ACTION_ID", "rev": "N", "cmd": command or "SUBCOMMAND"}
    for key, value in known.items():
        if (key in fills and _safe(value) is not None) or key == "cmd":
            fills[key] = str(value)
    return template.format(**fills)
