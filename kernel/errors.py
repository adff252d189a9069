"""The domain error table and the one exception hierarchy.

Owns: every stable ``data.code`` of SPEC §3, its JSON-RPC code, default
message and recovery hint. Adding an error is adding a row to ``ERRORS``.

Invariants:
- messages and recoveries are fixed strings from this table; nothing a client
  sent or the store holds is ever formatted into them;
- ``details`` carry only ids, revisions, offsets, counts and category names
  (callers must keep it so; ``rpc/errors.py`` encodes them as they are);
- a class can only be raised with a code of its own family.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any, ClassVar


@dataclass(frozen=True, slots=True)
class ErrorRow:
    family: str
    message: str
    recovery: str


# One row per stable data.code. Families map to JSON-RPC codes in FAMILY_CODES.
ERRORS: Mapping[str, ErrorRow] = MappingProxyType({
    # -32001 denied
    "policy_denied": ErrorRow(
        "denied", "the policy denies this call",
        "ask the operator to change policy.toml or use an identity that is allowed",
    ),
    "consent_required": ErrorRow(
        "denied", "the owner has not consented to this use of memory",
        "ask the owner to enable the consent switch (memctl consent set), then begin a new task",
    ),
    "read_only_task": ErrorRow(
        "denied", "this task may not write memory",
        "propose the change from a main task of an owner who allows contributions",
    ),
    "channel_forbidden": ErrorRow(
        "denied", "this method is not available on this socket",
        "use control.sock (operator only)",
    ),
    "scope_mismatch": ErrorRow(
        "denied", "the scope is outside this task's namespaces",
        "write to a scope named at task.begin, or begin a task with that scope",
    ),
    # -32002 conflict
    "revision_conflict": ErrorRow(
        "conflict", "the entry is not at the expected revision",
        "read the entry again and retry with its current revision",
    ),
    "missing_revision": ErrorRow(
        "conflict", "this action needs expected_revision",
        "read the entry and pass its current revision as expected_revision",
    ),
    "covered_target_changed": ErrorRow(
        "conflict", "the covering entry changed or is not active",
        "read the covering entry again and retry with its current revision",
    ),
    "duplicate_title": ErrorRow(
        "conflict", "an active entry in this scope already has this title",
        "replace or supersede the existing entry, or choose another title",
    ),
    "decision_stale": ErrorRow(
        "conflict", "the proposal no longer matches the stored entries",
        "deny this action and propose the change again against the current revision",
    ),
    "already_decided": ErrorRow(
        "conflict", "this action has already been decided",
        "list pending actions again; nothing was changed",
    ),
    "extract_job_state": ErrorRow(
        "conflict", "the extraction job is not in a state this call changes",
        "see the job's state with memctl extract status",
    ),
    "idempotency_conflict": ErrorRow(
        "conflict", "this idempotency key was used for a different request",
        "use a new idempotency key for a new request",
    ),
    "team_exists": ErrorRow(
        "conflict", "a team with this name already exists",
        "add members to the existing team (memctl team add), or choose another name",
    ),
    "undo_impossible": ErrorRow(
        "conflict", "this operation cannot be undone",
        "see details.reason; a removal is final: write the entry again instead",
    ),
    # -32003 not found
    "not_found": ErrorRow(
        "not_found", "no such entry for this owner and scope",
        "list entries to find the right id",
    ),
    "extract_job_not_found": ErrorRow(
        "not_found", "no extraction job has this id",
        "list jobs with memctl extract status",
    ),
    "task_not_found": ErrorRow(
        "not_found", "no such open task for this caller",
        "begin a new task with task.begin",
    ),
    "action_not_found": ErrorRow(
        "not_found", "no such action",
        "list actions with governance.action.list",
    ),
    "team_not_found": ErrorRow(
        "not_found", "no such team, or the identity is not one of its members",
        "list teams and their members with memctl team ls",
    ),
    # -32004 content rejected
    "secret_detected": ErrorRow(
        "content", "the content contains what looks like a credential or secret",
        "remove the secret (store a reference to where it is kept instead) and retry",
    ),
    "injection_detected": ErrorRow(
        "content", "the content contains instructions aimed at a future model",
        "state the fact or preference plainly, without instructions to a model, and retry",
    ),
    "invisible_unicode": ErrorRow(
        "content", "the content contains invisible or bidirectional control characters",
        "remove the characters at the reported offsets and retry",
    ),
    "empty_content": ErrorRow(
        "content", "the content is empty",
        "give a non-empty title and body",
    ),
    # -32005 limit
    "entry_too_large": ErrorRow(
        "limit", "the entry body is over the size limit",
        "shorten the body or split it into several entries",
    ),
    "scope_budget_exceeded": ErrorRow(
        "limit", "the scope's budget for active memory is used up",
        "archive or remove entries in this scope to make room, then retry",
    ),
    "transcript_too_large": ErrorRow(
        "limit", "the transcript is larger than the daemon accepts",
        "submit a shorter transcript (the last turns of the session)",
    ),
    "batch_too_large": ErrorRow(
        "limit", "too many requests or operations in one batch",
        "split the batch into batches of at most 50",
    ),
    "rate_limited": ErrorRow(
        "limit", "too many open tasks or pending actions for this owner",
        "end finished tasks, or ask the operator to decide pending actions",
    ),
    # -32006 unavailable
    "store_unavailable": ErrorRow(
        "unavailable", "the memory store cannot accept governed writes right now",
        "retry later; the operator should check memctl status and memctl audit verify",
    ),
    "projection_off": ErrorRow(
        "unavailable", "projection to an external memory service is not enabled",
        "set [projection] mode and project = true in memoryd.toml and restart memoryd",
    ),
    "backup_unsupported": ErrorRow(
        "unavailable", "memoryd's backup copies a SQLite store; this home's store is PostgreSQL",
        "back the PostgreSQL schema up with pg_dump (docs/postgresql.md)",
    ),
    "consent_authority_unavailable": ErrorRow(
        "unavailable", "the consent record could not be read",
        "retry later; the operator should check memctl status",
    ),
    # -32007 cursor
    "cursor_invalid": ErrorRow(
        "cursor", "the cursor is not valid for this caller, these filters or this daemon run",
        "start the listing again without a cursor",
    ),
    "cursor_mixed_with_filters": ErrorRow(
        "cursor", "a continuation takes only the cursor",
        "send the cursor alone; filters are carried inside it",
    ),
})

FAMILY_CODES: Mapping[str, int] = MappingProxyType({
    "denied": -32001,
    "conflict": -32002,
    "not_found": -32003,
    "content": -32004,
    "limit": -32005,
    "unavailable": -32006,
    "cursor": -32007,
})


class MemorydError(Exception):
    """A domain error with a stable code. Its ``str()`` is the fixed message."""

    family: ClassVar[str] = ""

    def __init__(
        self,
        code: str,
        *,
        details: dict[str, Any] | None = None,
        recovery: str | None = None,
    ) -> None:
        row = ERRORS.get(code)
        if row is None:
            raise ValueError(f"unknown error code {code!r}")
        if self.family and row.family != self.family:
            raise ValueError(f"{code!r} is not a {self.family} error")
        self.code = code
        self.rpc_code = FAMILY_CODES[row.family]
        self.message = row.message
        self.recovery = recovery if recovery is not None else row.recovery
        self.details = details
        super().__init__(row.message)

    @classmethod
    def of(cls, code: str, **kwargs: Any) -> MemorydError:
        """Build the error of the right family for ``code``."""
        return FAMILIES[ERRORS[code].family](code, **kwargs)


class Denied(MemorydError):
    family = "denied"


class Conflict(MemorydError):
    family = "conflict"


class NotFound(MemorydError):
    family = "not_found"


class ContentRejected(MemorydError):
    family = "content"


class LimitExceeded(MemorydError):
    family = "limit"

    @classmethod
    def cap(cls, code: str, cap: str, limit: int, **usage: int) -> LimitExceeded:
        """A configured cap was reached: ``details`` name the cap (its
        ``memoryd.toml`` key), its value and the usage that met it, and the
        recovery says how the operator raises it. Only names and numbers."""
        row = ERRORS[code]
        return cls(code, details={"cap": cap, "limit": limit, **usage},
                   recovery=f"{row.recovery}; the operator can raise {cap} (now {limit}) "
                            "in memoryd.toml and restart memoryd")


class Unavailable(MemorydError):
    family = "unavailable"


class CursorError(MemorydError):
    family = "cursor"


FAMILIES: Mapping[str, type[MemorydError]] = MappingProxyType({
    cls.family: cls
    for cls in (Denied, Conflict, NotFound, ContentRejected, LimitExceeded, Unavailable,
                CursorError)
})
