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

from memoryd.kernel.retention import EntryStatus, EntryType
from memoryd.kernel.teams import TEAM_NAME

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
# Entry types and statuses are the kernel's vocabularies (kernel/retention.py),
# decoded into its enums: one definition for the wire, the policy and the TTLs.
Status = EntryStatus
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
    # Text searched with the entry but not shown as its body (the turn before
    # it, the session it belongs to): scanned, counted and removed as the body.
    context: Annotated[str, Meta(max_length=16_384)] | UnsetType | None = UNSET
    # The time the entry speaks of, given by its writer (a session's date):
    # an ISO 8601 date or date-time, checked by the write path.
    observed_at: Annotated[str, Meta(max_length=40)] | UnsetType | None = UNSET


class CoveredBy(_P, frozen=True, kw_only=True):
    id: Id
    expected_revision: Revision


class Evidence(_P, frozen=True, kw_only=True):
    user_message: Text


class IdentityOnly(_P, frozen=True, kw_only=True):
    """The identity acted for on control.sock (default: the daemon's own)."""

    identity: Identity | None = None


class _Caller(_P, frozen=True, kw_only=True):
    """The caller of a method both sockets serve: a task, or an identity."""

    task_id: Id | None = None
    identity: Identity | None = None


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
                        "GovernanceDecide", "ConsentManage", "MemoryExtract"]
    channel: Literal["agent", "control"] = "agent"
    role: Literal["main", "subagent", "operator"] | None = None
    target: Literal["memory", "user"] = "memory"
    scope: ScopeName = "default"
    action: Literal["add", "replace", "supersede", "archive", "remove",
                    "context", "journal", "list", "read", "receipt", "govern",
                    "extract"] | None = None
    type: EntryType | None = None
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


class TranscriptTurn(_P, frozen=True, kw_only=True):
    """One turn of a finished task's transcript (docs/extraction.md)."""

    role: Literal["user", "assistant", "tool"]
    content: Text
    ts: Annotated[str, Meta(max_length=64)] | None = None


class TaskEnd(_P, frozen=True, kw_only=True):
    """``task.end``; ``transcript`` submits the finished task for extraction."""

    task_id: Id
    transcript: Annotated[list[TranscriptTurn], Meta(max_length=100_000)] | None = None


class ExtractSubmit(IdentityOnly, frozen=True, kw_only=True):
    """``extract.submit`` (control): a transcript as JSON Lines, for an identity."""

    jsonl: Annotated[str, Meta(min_length=1)]
    scope: ScopeName | None = None


class ExtractJobRef(_P, frozen=True, kw_only=True):
    job_id: Id


class TaskResume(_P, frozen=True, kw_only=True):
    """A new connection presents the credential its task was begun with."""

    task_id: Id
    token: Annotated[str, Meta(min_length=1, max_length=512)] | None = None


class ConsentSet(IdentityOnly, frozen=True, kw_only=True):
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


class MemoryWrite(_Caller, frozen=True, kw_only=True):
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


class ActionApprove(_P, frozen=True, kw_only=True):
    """``governance.action.approve``. ``as_supersede``: an ``add`` whose title
    an active entry of its scope holds now supersedes that entry."""

    action_id: Id
    as_supersede: bool = False


class ActionDeny(_P, frozen=True, kw_only=True):
    action_id: Id
    reason: ShortText | None = None


class MemoryActions(_P, frozen=True, kw_only=True):
    """``memory.actions``: the actions the caller's own task or token proposed."""

    task_id: Id
    action_id: Id | None = None
    cursor: Annotated[str, Meta(max_length=1_024)] | None = None
    page_size: Annotated[int, Meta(ge=1, le=50)] = 20


class MemoryRead(_Caller, frozen=True, kw_only=True):
    ids: Annotated[list[Id], Meta(min_length=1, max_length=10)]
    include_pending: bool = False


class MemoryList(_Caller, frozen=True, kw_only=True):
    target: Target | None = None
    scope: ScopeName | None = None
    query: Annotated[str, Meta(max_length=4_096)] | None = None
    mode: Literal["list", "search"] | None = None
    statuses: Annotated[list[Status], Meta(min_length=1, max_length=5)] | None = None
    types: Annotated[list[EntryType], Meta(min_length=1, max_length=4)] | None = None
    page_size: Annotated[int, Meta(ge=1, le=20)] | None = None
    cursor: Annotated[str, Meta(min_length=1, max_length=2_048)] | None = None
    # Entries whose observed_at is at or after / before these (ISO 8601,
    # compared as written): an entry without one is left out.
    observed_after: Annotated[str, Meta(max_length=40)] | None = None
    observed_before: Annotated[str, Meta(max_length=40)] | None = None


class MemoryContext(_P, frozen=True, kw_only=True):
    task_id: Id
    # Cut to max_intent_chars by the daemon (intent_truncated); this bound
    # only refuses absurd frames.
    intent: Annotated[str, Meta(max_length=262_144)]
    refresh: Literal["compaction"] | None = None


class MemoryReceipt(_Caller, frozen=True, kw_only=True):
    receipt_id: Id


class MemoryStatus(_Caller, frozen=True, kw_only=True):
    # Control only: each owner's pending actions, by owner.
    pending_by_owner: bool = False


class MemoryJournal(IdentityOnly, frozen=True, kw_only=True):
    cursor: Annotated[str, Meta(max_length=1_024)] | None = None
    page_size: Annotated[int, Meta(ge=1, le=100)] = 20


class MemoryUndo(IdentityOnly, frozen=True, kw_only=True):
    operation_id: Id


class AuditVerify(_P, frozen=True, kw_only=True):
    checkpoint: dict[str, Any] | None = None


class AuditExport(_P, frozen=True, kw_only=True):
    after_seq: Annotated[int, Meta(ge=0)] = 0
    limit: Annotated[int, Meta(ge=1, le=100_000)] = 10_000


class ProjectionRetry(_P, frozen=True, kw_only=True):
    entry_ids: Annotated[list[Id], Meta(min_length=1, max_length=100)] | None = None


class ProjectionAuthorize(ProjectionRetry, frozen=True, kw_only=True):
    """``memory.projection.authorize``: decide blocked items again; with
    ``approve``, approve exactly the revisions that now require approval."""

    approve: bool = False


TeamName = Annotated[str, Meta(min_length=1, max_length=63, pattern=f"^{TEAM_NAME.pattern}$")]


class TeamCreate(_P, frozen=True, kw_only=True):
    name: TeamName


class TeamMember(_P, frozen=True, kw_only=True):
    name: TeamName
    identity: Identity


TeamList = NoParams


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
    context: str | None = None
    observed_at: str | None = None


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
    """``memory.write``, ``governance.action.approve`` and ``memory.undo``."""

    outcome: Literal["applied", "pending", "unchanged"]
    operation_id: str | None
    decision: DecisionOut
    entries: list[Entry] | list[EntryRef]
    warnings: list[str]
    action_id: str | None = None
    receipt: ReceiptOut | None = None
    receipts: list[ReceiptOut] | None = None


# Each result below is one method's answer (docs/methods.md lists them, and
# tests/docs/test_method_shapes.py holds the two together). Fields are in wire
# order: the encoder writes them as declared. A field that is sometimes absent
# is ``UNSET`` (never encoded) rather than ``None`` (encoded as ``null``).
# Parts whose inner shape belongs to another component (the ranker's status,
# an audit event, the projection's counters) are ``dict[str, Any]``.


class ConsentFlags(_R, kw_only=True):
    read: bool
    contribute: bool
    learn_from_tools: bool


class TaskOut(_R, kw_only=True):
    """``task.begin`` and ``task.resume``."""

    task_id: str
    owner: str
    role: str
    scopes: list[str]
    user_scope: str
    consent: ConsentFlags
    grants: list[str]
    expires_at: str


class ExtractSubmitted(_R, kw_only=True):
    """A transcript's submission: queued as ``job_id``, or refused
    (``refused``: the error code, e.g. ``consent_required``)."""

    queued: bool
    job_id: str | None = None
    refused: str | None = None
    decision_id: str | None = None


class TaskEnded(_R, kw_only=True):
    """``task.end``."""

    task_id: str
    ended: bool
    extraction: ExtractSubmitted | None = None


class ExtractStatus(_R, kw_only=True):
    """``extract.status``: jobs per state and the latest jobs (no text)."""

    counts: dict[str, int]
    jobs: list[dict[str, Any]]


class ConsentOut(_R, kw_only=True):
    """``consent.get`` and ``consent.set``."""

    owner: str
    read: bool
    contribute: bool
    learn_from_tools: bool
    version: int


class TokenIssued(_R, kw_only=True):
    """``token.issue``: the only answer that ever holds the token itself."""

    token: str
    token_id: str
    owner: str
    expires_at: str | None
    label: str | None


class TokenItem(_R, kw_only=True):
    token_id: str
    owner: str
    kind: str
    scopes: list[str] | None
    created_at: str
    expires_at: str | None
    revoked_at: str | None
    state: Literal["active", "revoked", "expired"]
    label: str | None


class TokenPage(_R, kw_only=True):
    """``token.list``."""

    items: list[TokenItem]


class TokenRevoked(_R, kw_only=True):
    """``token.revoke``."""

    token_id: str
    revoked: bool


class Proposer(_R, kw_only=True):
    channel: str
    task_id: str | None
    token: str | None


class ActionSummary(_R, kw_only=True):
    action_id: str
    status: str
    owner: str
    created_at: str
    expires_at: str
    decided_at: str | None
    ops_summary: list[dict[str, Any]]
    proposed_by: Proposer


class ActionPage(_R, kw_only=True):
    """``governance.action.list``."""

    items: list[ActionSummary]
    next_cursor: str | None


class ActionDetail(ActionSummary, kw_only=True):
    """``governance.action.get``: a pending action also shows its proposed ops."""

    resources: list[str]
    content_hashes: list[str]
    policy_hash: str
    result: dict[str, Any] | None
    ops: list[dict[str, Any]] | None
    # The operator's reason for a denial, kept with the decision (never in
    # the listing, which carries no text).
    reason: str | None = None


class ActionDenied(_R, kw_only=True):
    """``governance.action.deny``."""

    action_id: str
    status: Literal["denied"]
    reason: str | None = None


class AgentAction(_R, kw_only=True):
    """One action as its proposer sees it: its fate, never its content."""

    action_id: str
    status: str
    created_at: str
    expires_at: str
    decided_at: str | None
    reason: str | None
    entry_ids: list[str]


class AgentActionPage(_R, kw_only=True):
    """``memory.actions``."""

    items: list[AgentAction]
    next_cursor: str | None


class PendingOut(_R, kw_only=True):
    action_id: str
    entry_ids: list[str]
    created_at: str
    expires_at: str
    ops_summary: list[dict[str, Any]]


class ReadResult(_R, kw_only=True):
    """``memory.read``; ``pending`` only when asked for (``include_pending``)."""

    entries: list[Entry]
    pending: list[PendingOut] | UnsetType = UNSET


class ListItem(_R, kw_only=True):
    id: str
    title: str
    type: str
    status: str
    revision: int
    scope: str
    target: str
    source: str
    basis_kind: str
    applicability: str
    # When it leaves recall unless updated (retention, docs/lifecycle.md).
    expires_at: str | None = None
    # Search mode only.
    snippet: str | UnsetType = UNSET
    score: float | UnsetType = UNSET


class ListCoverage(_R, kw_only=True):
    scopes: list[str]
    statuses: list[str]
    exhausted: bool
    complete: bool
    warnings: list[str]
    # Search mode only: the plan's statistics and the ranker that ordered it.
    search: dict[str, Any] | UnsetType = UNSET
    ranking: dict[str, Any] | UnsetType = UNSET


class ListPage(_R, kw_only=True):
    """``memory.list`` (list and search modes)."""

    items: list[ListItem]
    mode: Literal["list", "search"]
    next_cursor: str | None
    coverage: ListCoverage


class StatusBackend(_R, kw_only=True):
    kind: str
    durability: str
    sharing: str
    health: Literal["ok", "degraded"]
    degraded_reason: str | None


class ChainHeadOut(_R, kw_only=True):
    seq: int
    hash: str


class Checkpointed(ChainHeadOut, kw_only=True):
    ts: str


class StatusAudit(_R, kw_only=True):
    """On agent.sock only ``verified``: the head moves with every owner's writes."""

    seq: int | UnsetType = UNSET
    hash: str | UnsetType = UNSET
    last_checkpoint: Checkpointed | UnsetType | None = UNSET
    verified: bool


class StatusIdentity(_R, kw_only=True):
    owner: str
    source: str
    identity_verified: bool


class StatusTask(_R, kw_only=True):
    task_id: str
    role: str
    grants: list[str]


class StatusPolicy(_R, kw_only=True):
    hash: str
    rules: int


class ConsentFlagsVersioned(ConsentFlags, kw_only=True):
    version: int


class StatusOut(_R, kw_only=True):
    """``memory.status``: no path, credential or memory text."""

    backend: StatusBackend
    counts: dict[str, int]
    pending_actions: int
    audit: StatusAudit
    identity: StatusIdentity
    consent: ConsentFlagsVersioned
    task: StatusTask | None
    policy: StatusPolicy
    projection: dict[str, Any]
    recall: dict[str, Any]
    extraction: dict[str, int] | None = None
    # Control only: every owner's pending actions (``pending_actions`` counts
    # the acting identity's), and per owner when asked.
    pending_all_owners: int | UnsetType = UNSET
    pending_by_owner: dict[str, int] | UnsetType = UNSET
    # Control only, with ``pending_by_owner``: every owner's active entries.
    entries_by_owner: dict[str, int] | UnsetType = UNSET


class ContextOut(_R, kw_only=True):
    """``memory.context``: a frozen, fenced snapshot of cards."""

    snapshot_id: str
    task_id: str
    frozen_at: str
    intent_truncated: bool
    limits: dict[str, Any]
    truncated: bool
    omitted: dict[str, int]
    ranking: dict[str, Any]
    entries: list[dict[str, Any]]
    rendered: str
    # Only when external recall answered: what it contributed.
    coverage: dict[str, Any] | UnsetType = UNSET
    # Cards of the snapshot whose entries were removed since it was frozen.
    withdrawn: int


class JournalItem(_R, kw_only=True):
    operation_id: str
    ts: str
    action: str
    channel: str
    items: list[dict[str, Any]]
    undo_of: str | None
    undone_by: str | None


class JournalPage(_R, kw_only=True):
    """``memory.journal``: operations, newest first."""

    items: list[JournalItem]
    next_cursor: str | None
    omitted: int


class GcOut(_R, kw_only=True):
    """``memory.gc``: one janitor pass, run now."""

    expired: int
    purged: int
    receipts_rechecked: int
    actions_expired: int


class AuditPage(_R, kw_only=True):
    """``audit.export``: events as the chain holds them."""

    events: list[dict[str, Any]]
    next_after_seq: int | None


class CheckpointOut(Checkpointed, kw_only=True):
    """``audit.checkpoint``: a signed ``(seq, hash, ts)``."""

    signature: str
    public_key: str


class CheckpointRef(ChainHeadOut, kw_only=True):
    source: Literal["given", "daemon"]


class AuditVerified(_R, kw_only=True):
    """``audit.verify``; ``recovered`` only when a degraded store was retried."""

    ok: bool
    checked: int
    first_bad_seq: int | None
    head: ChainHeadOut
    reason: str | None
    checkpoint: CheckpointRef | None
    recovered: bool | UnsetType = UNSET


class EntriesVerified(_R, kw_only=True):
    """``memory.verify``: keyed content hashes against the audit log, no text."""

    checked: int
    mismatches: list[str]
    audit_head: ChainHeadOut


class PolicyLoaded(_R, kw_only=True):
    """``policy.reload``: ``error`` when refused, ``rules`` when loaded."""

    loaded: bool
    error: str | UnsetType = UNSET
    hash: str
    rules: int | UnsetType = UNSET


class PolicyExplained(_R, kw_only=True):
    """``policy.explain``: what the kernel would decide (nothing is audited)."""

    effect: str
    explicit: bool
    rule_ids: list[str]
    always_on: str | None
    reason: str
    policy_hash: str
    resource: str


class BackupMade(_R, kw_only=True):
    """``admin.backup``."""

    path: str
    files: list[str]
    bytes: int
    audit: ChainHeadOut


class BackupAudit(_R, kw_only=True):
    verified: bool
    checked: int
    first_bad_seq: int | None
    reason: str | None
    seq: int
    hash: str
    last_checkpoint: Checkpointed | None


class BackupChecked(_R, kw_only=True):
    """``admin.backup_verify``."""

    path: str
    ok: bool
    problems: list[str]
    files: list[str]
    schema_version: int | None
    counts: dict[str, int]
    pending_actions: int
    audit: BackupAudit


class Promoted(_R, kw_only=True):
    """``memory.promote``."""

    promoted: list[EntryRef]
    unchanged: list[dict[str, Any]]
    decision_id: str | None


class ProjectionAuthorized(_R, kw_only=True):
    """``memory.projection.authorize``."""

    considered: int
    approved: int
    outbox: dict[str, int]
    # What the items considered would send (control.sock only): each entry's
    # id, title and revision, and whether it is sent or withdrawn.
    items: list[dict[str, Any]] = msgspec.field(default_factory=list)


class ProjectionRetried(_R, kw_only=True):
    """``memory.projection.retry``."""

    moved: int
    outbox: dict[str, int]


class ProjectionReseeded(_R, kw_only=True):
    """``memory.projection.reseed``."""

    documents: int
    outbox: dict[str, int]


class ProjectionReport(_R, kw_only=True):
    """``memory.projection.report``."""

    mode: str
    project: bool
    outbox: dict[str, int]
    oldest_open: str | None
    recall: dict[str, Any]


class TeamMemberOut(_R, kw_only=True):
    owner: str
    added_at: str


class TeamOut(_R, kw_only=True):
    """``team.create``, and one team of ``team.list``."""

    name: str
    scope: str
    created_at: str
    members: list[TeamMemberOut]


class TeamChanged(_R, kw_only=True):
    """``team.add`` / ``team.remove``."""

    name: str
    scope: str
    member: str
    changed: bool


class TeamPage(_R, kw_only=True):
    """``team.list``."""

    teams: list[TeamOut]
