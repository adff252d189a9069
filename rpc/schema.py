"""Typed params and results of every method (SPEC §9).

Owns: the wire shapes. Params are decoded into these Structs by the dispatcher
(unknown fields, wrong types and missing required fields are ``-32602``);
results are encoded from them. The names are the contract; more fields may be
added, none renamed.

Invariants: every Struct forbids unknown fields; string fields that carry ids
or keys are length-bounded so a hostile client cannot make us hash or store
megabytes through a field that should be short.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

import msgspec
from msgspec import UNSET, Meta, UnsetType

# --- bounded scalars -------------------------------------------------------

# Ids are the daemon's own (``ent_…``, ``act_…``, ``op_…``): letters, digits and
# a few separators. Anything else is refused as -32602 before it reaches a
# lookup, a log line or the audit chain.
Id = Annotated[str, Meta(min_length=1, max_length=80, pattern=r"^[A-Za-z0-9][A-Za-z0-9_.:-]*$")]
# A path or other free text a client names: no NUL (the OS cannot take one).
PathText = Annotated[str, Meta(min_length=1, max_length=4_096, pattern=r"^[^\x00]+$")]
# RFC 3339 date-time (the calendar is checked by the write path).
Rfc3339 = Annotated[str, Meta(max_length=40, pattern=(
    r"^[0-9]{4}-[0-9]{2}-[0-9]{2}[Tt][0-9]{2}:[0-9]{2}:[0-9]{2}(?:\.[0-9]{1,9})?"
    r"(?:[Zz]|[+-][0-9]{2}:[0-9]{2})$"))]
MAX_REFS = 16
ScopeName = Annotated[str, Meta(min_length=1, max_length=128, pattern=r"^[A-Za-z0-9._:@/+-]+$")]
IdempotencyKey = Annotated[str, Meta(min_length=1, max_length=128, pattern=r"^[A-Za-z0-9._:-]+$")]
Revision = Annotated[int, Meta(ge=1, le=2**53)]
ShortText = Annotated[str, Meta(max_length=1_000)]
TokenLabel = Annotated[str, Meta(min_length=1, max_length=64,
                                 pattern=r"^[A-Za-z0-9][A-Za-z0-9 ._:@+-]*$")]
# Titles and bodies are bounded in bytes by the size check; this bound only
# keeps a hostile frame from reaching the scanner with megabytes in one field.
Text = Annotated[str, Meta(max_length=262_144)]

Target = Literal["memory", "user"]
EntryType = Literal["preference", "procedure", "fact", "lesson"]
Status = Literal["active", "superseded", "archived", "expired", "removed"]
Action = Literal["add", "replace", "supersede", "archive", "remove", "batch"]
Source = Literal["user", "agent", "extraction", "import", "unknown"]


class _P(msgspec.Struct, frozen=True, forbid_unknown_fields=True, kw_only=True):
    """Base of every params Struct."""


class Identity(_P, frozen=True, kw_only=True):
    kind: Annotated[str, Meta(min_length=1, max_length=32, pattern=r"^[a-z][a-z0-9_-]*$")]
    subject: Annotated[str, Meta(min_length=1, max_length=512)]
    issuer: Annotated[str, Meta(min_length=1, max_length=512)] | None = None


class Basis(_P, frozen=True, kw_only=True):
    kind: Literal["human", "observed", "derived", "unknown"]
    note: ShortText = ""
    refs: Annotated[list[Annotated[str, Meta(max_length=512)]],
                    Meta(max_length=MAX_REFS)] | None = None


class Validity(_P, frozen=True, kw_only=True):
    check: ShortText
    until: Rfc3339 | None = None


class EntryIn(_P, frozen=True, kw_only=True):
    type: EntryType
    title: Annotated[str, Meta(max_length=1_000)]
    body: Text
    summary: Annotated[str, Meta(max_length=2_000)] | None = None
    basis: Basis | UnsetType | None = UNSET
    validity: Validity | UnsetType | None = UNSET
    ttl_days: Annotated[float, Meta(gt=0, le=36_500)] | None = None
    pinned: bool = False


class CoveredBy(_P, frozen=True, kw_only=True):
    id: Id
    expected_revision: Revision


class Evidence(_P, frozen=True, kw_only=True):
    user_message: Text


class WriteOp(_P, frozen=True, kw_only=True):
    action: Literal["add", "replace", "supersede", "archive", "remove"]
    target: Target | None = None
    scope: ScopeName | None = None
    id: Id | None = None
    expected_revision: Revision | None = None
    entry: EntryIn | None = None
    reason: ShortText | None = None
    covered_by: CoveredBy | None = None


class NoParams(_P, frozen=True, kw_only=True):
    pass


class PolicyExplain(_P, frozen=True, kw_only=True):
    """What the kernel would decide for this subject and resource (control only)."""

    capability: Literal["MemoryRead", "MemoryWrite", "MemoryExternalize", "NetworkAccess",
                        "GovernanceDecide", "ConsentManage"]
    channel: Literal["agent", "control"] = "agent"
    role: Literal["main", "subagent", "operator"] | None = None
    target: Literal["memory", "user"] = "memory"
    scope: ScopeName = "default"
    action: Literal["add", "replace", "supersede", "archive", "remove",
                    "context", "journal", "list", "read", "receipt", "govern"] | None = None
    type: Literal["preference", "procedure", "fact", "lesson"] | None = None
    # The task's grants on the agent channel; by default every grant, as for a
    # task whose owner has switched every consent on.
    grants: list[Literal["memory.context", "memory.list", "memory.read", "memory.receipt",
                         "memory.write"]] | None = None


class TaskBegin(_P, frozen=True, kw_only=True):
    token: Annotated[str, Meta(min_length=1, max_length=512)] | None = None
    identity: Identity | None = None
    workspace: PathText | None = None
    scopes: Annotated[list[ScopeName], Meta(min_length=1, max_length=16)] | None = None
    role: Literal["main", "subagent"] = "main"
    parent_task: Id | None = None
    tools_used: bool = False


class TaskRef(_P, frozen=True, kw_only=True):
    task_id: Id


class TaskResume(_P, frozen=True, kw_only=True):
    """A new connection presents the credential its task was begun with."""

    task_id: Id
    token: Annotated[str, Meta(min_length=1, max_length=512)] | None = None


class IdentityOnly(_P, frozen=True, kw_only=True):
    identity: Identity | None = None


class ConsentSet(_P, frozen=True, kw_only=True):
    identity: Identity | None = None
    read: bool | None = None
    contribute: bool | None = None
    learn_from_tools: bool | None = None
    version: Annotated[int, Meta(ge=0)]


class TokenIssue(_P, frozen=True, kw_only=True):
    identity: Identity
    scopes: Annotated[list[ScopeName], Meta(min_length=1, max_length=16)] | None = None
    expires_in: Annotated[int, Meta(gt=0, le=10 * 365 * 86_400)] | None = None
    # The operator's name for the token ("alice-laptop"), shown beside its
    # owner in memctl's output; never on agent.sock, never in audit or logs.
    label: TokenLabel | None = None


class TokenRevoke(_P, frozen=True, kw_only=True):
    token_id: Id


class MemoryWrite(_P, frozen=True, kw_only=True):
    task_id: Id | None = None
    identity: Identity | None = None
    target: Target = "memory"
    scope: ScopeName | None = None
    action: Action
    id: Id | None = None
    expected_revision: Revision | None = None
    entry: EntryIn | None = None
    reason: ShortText | None = None
    covered_by: CoveredBy | None = None
    ops: Annotated[list[WriteOp], Meta(min_length=1)] | None = None
    source: Source | None = None
    evidence: Evidence | None = None
    idempotency_key: IdempotencyKey | None = None


class ActionList(_P, frozen=True, kw_only=True):
    status: Literal["pending", "approved", "denied", "expired", "failed"] | None = None
    cursor: Annotated[str, Meta(max_length=1_024)] | None = None


class ActionRef(_P, frozen=True, kw_only=True):
    action_id: Id


class ActionDeny(_P, frozen=True, kw_only=True):
    action_id: Id
    reason: ShortText | None = None


class MemoryRead(_P, frozen=True, kw_only=True):
    task_id: Id | None = None
    identity: Identity | None = None
    ids: Annotated[list[Id], Meta(min_length=1, max_length=10)]
    include_pending: bool = False


class MemoryList(_P, frozen=True, kw_only=True):
    task_id: Id | None = None
    identity: Identity | None = None
    target: Target | None = None
    scope: ScopeName | None = None
    query: Annotated[str, Meta(max_length=4_096)] | None = None
    mode: Literal["list", "search"] | None = None
    statuses: Annotated[list[Status], Meta(min_length=1, max_length=5)] | None = None
    types: Annotated[list[EntryType], Meta(min_length=1, max_length=4)] | None = None
    page_size: Annotated[int, Meta(ge=1, le=20)] | None = None
    cursor: Annotated[str, Meta(min_length=1, max_length=2_048)] | None = None


class MemoryContext(_P, frozen=True, kw_only=True):
    task_id: Id
    # Cut to max_intent_chars by the daemon (intent_truncated); this bound
    # only refuses absurd frames.
    intent: Annotated[str, Meta(max_length=262_144)]
    refresh: Literal["compaction"] | None = None


class MemoryReceipt(_P, frozen=True, kw_only=True):
    task_id: Id | None = None
    identity: Identity | None = None
    receipt_id: Id


class MemoryStatus(_P, frozen=True, kw_only=True):
    task_id: Id | None = None
    identity: Identity | None = None


class MemoryJournal(_P, frozen=True, kw_only=True):
    identity: Identity | None = None
    cursor: Annotated[str, Meta(max_length=1_024)] | None = None
    page_size: Annotated[int, Meta(ge=1, le=100)] = 20


class MemoryUndo(_P, frozen=True, kw_only=True):
    identity: Identity | None = None
    operation_id: Id


class AuditVerify(_P, frozen=True, kw_only=True):
    checkpoint: dict[str, Any] | None = None


class AuditExport(_P, frozen=True, kw_only=True):
    after_seq: Annotated[int, Meta(ge=0)] = 0
    limit: Annotated[int, Meta(ge=1, le=100_000)] = 10_000


class ProjectionAuthorize(_P, frozen=True, kw_only=True):
    """``memory.projection.authorize``: decide blocked items again; with
    ``approve``, approve exactly the revisions that now require approval."""

    entry_ids: Annotated[list[Id], Meta(min_length=1, max_length=100)] | None = None
    approve: bool = False


class ProjectionRetry(_P, frozen=True, kw_only=True):
    entry_ids: Annotated[list[Id], Meta(min_length=1, max_length=100)] | None = None


class ScanParams(_P, frozen=True, kw_only=True):
    title: Text = ""
    body: Text
    summary: Text | None = None


# --- results ---------------------------------------------------------------


class _R(msgspec.Struct, kw_only=True, omit_defaults=False):
    """Base of result Structs."""


class Entry(_R, kw_only=True):
    id: str
    target: str
    scope: str
    type: str
    title: str
    body: str
    summary: str
    status: str
    revision: int
    source: str
    basis: dict[str, Any]
    validity: dict[str, Any] | None
    pinned: bool
    created_at: str
    updated_at: str
    renewed_at: str
    ttl_days: float
    expires_at: str
    use_count: int
    last_used_at: str | None
    superseded_by: str | None
    content_hash: str
    applicability: str
    expired: bool


class DecisionOut(_R, kw_only=True):
    decision_id: str
    effect: str
    rule_ids: list[str]


class ReceiptOut(_R, kw_only=True):
    receipt_id: str
    entry_id: str
    status: str
    created_at: str
    updated_at: str


class EntryRef(_R, kw_only=True):
    """What a write answer shows a task without ``read``: the id and the
    revision its own write produced, never stored text."""

    id: str
    revision: int


class WriteResult(_R, kw_only=True):
    outcome: Literal["applied", "pending", "unchanged"]
    operation_id: str | None
    decision: DecisionOut
    entries: list[Entry] | list[EntryRef]
    warnings: list[str]
    action_id: str | None = None
    receipt: ReceiptOut | None = None
    receipts: list[ReceiptOut] | None = None
