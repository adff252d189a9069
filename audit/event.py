"""The audit event schema, its canonical bytes, and the no-text guard.

Owns: the shape of one audit event (SPEC §8), the table of event kinds, the
table of audit failure reasons, the one audit exception (``AuditError``), the
canonical byte form that the chain hashes, and ``check_safe``, the structural
guard that keeps memory text out of the log.

Invariants:
- ``canonical_bytes`` is a pure function of the event's field values: compact
  JSON, keys sorted at every level (msgspec ``order="sorted"``), the ``hash``
  field left out, every other field present (``null`` / ``[]`` / ``{}``
  included, never omitted), so an outside tool can rebuild it from an
  exported line;
- an event that passes ``check_safe`` holds only opaque ids, hashes, counts,
  revisions, booleans and RFC 3339 timestamps: every string matches a narrow
  pattern of id characters with no spaces (or, in ``resource`` and
  ``details``, is a resource string; in ``details`` one the kernel parses as
  canonical), so a title, body, query or secret sentence cannot be written
  into the log by accident;
- ``check_safe`` checks every field of every event, the same way each time:
  it keeps nothing between calls;
- ``AuditError`` and every verification result carry a reason from
  ``REASONS``; no message is ever formatted from event contents.
"""

from __future__ import annotations

import re
from datetime import UTC, datetime
from types import MappingProxyType
from typing import Final

import msgspec

from memoryd.kernel.capability import Resource

# --------------------------------------------------------------------------
# Failure reasons: one table for raised errors and verification results.
# --------------------------------------------------------------------------

REASONS: Final = MappingProxyType({
    # raised while building events or handling keys
    "invalid_event": "the event breaks the audit schema or holds a value that is not an opaque id",
    "bad_key": "a key or secret has the wrong type or length",
    "checkpoint_not_covered": "the checkpoint lies before the start of the rows given",
    # verification results (chain)
    "seq_gap": "a row's sequence number is not the next one (deleted, inserted or reordered)",
    "hash_mismatch": "a row's hash does not match its predecessor and its body (modified)",
    "undecodable": "a row's body is not a readable audit event",
    "seq_mismatch": "a row's body names a different sequence number than its position",
    "prev_mismatch": "a row's body names a different predecessor than the chain holds",
    # verification results (checkpoint)
    "truncated": "the chain ends before the checkpoint's sequence number (rolled back)",
    "checkpoint_mismatch": "the chain's hash at the checkpoint differs from the signed one",
    "malformed_checkpoint": "the checkpoint is not well formed",
    "bad_signature": "the checkpoint's signature does not verify",
    "untrusted_key": "the checkpoint was signed by a key other than the trusted one",
})


class AuditError(Exception):
    """The one audit error. ``reason`` is a key of ``REASONS``; ``field`` (if
    any) names one of our own schema fields, never a caller-chosen key."""

    def __init__(self, reason: str, *, field: str | None = None) -> None:
        if reason not in REASONS:
            raise ValueError(f"unknown audit reason {reason!r}")
        self.reason = reason
        self.field = field
        super().__init__(REASONS[reason])


# --------------------------------------------------------------------------
# Event kinds: adding a kind is adding a row.
# --------------------------------------------------------------------------

EVENT_KINDS: Final = MappingProxyType({
    "genesis": "first event of a home's chain (prev is GENESIS_PREV)",
    "decision": "the kernel decided a capability request (effect, rule_ids, policy_hash)",
    "content_rejected": "a proposed change failed the content scan (rule ids and code only)",
    "operation": "a governed change was applied (entry ids, revisions, content hashes)",
    "action_proposed": "a change that requires approval was stored as a pending action",
    "action_approved": "the operator approved a pending action",
    "action_denied": "the operator denied a pending action; its proposed content is dropped",
    "action_expired": "a pending action passed pending_ttl; its proposed content is dropped",
    "consent_changed": "an owner's consent switches changed (new version)",
    "policy_loaded": "a policy file was validated and took effect (policy_hash)",
    "policy_rejected": "a policy file failed validation; the old policy stays",
    "token_issued": "an agent token was issued (keyed token hash, never the token)",
    "token_revoked": "an agent token was revoked",
    "team_changed": "the operator created a team or changed its members (scope, owner ids)",
    "task_begun": "a task began; its consent was frozen",
    "task_ended": "a task ended or passed its TTL",
    "snapshot_frozen": "a task's memory snapshot was frozen (manifest of ids and hashes)",
    "retention_expired": "the janitor marked entries expired",
    "retention_purged": "the janitor hard-purged expired entries",
    "receipt": "a delete receipt was created or its status changed",
    "checkpoint": "a signed checkpoint of the chain head was taken",
    "undo": "an applied operation was reversed by memory.undo",
    "entries_promoted": "the operator vouched for imported entries (provenance import -> user)",
    "projection_started": "projection started: mode, endpoint host, open items re-blocked",
    "projection_decided": "the kernel decided an outbox item's egress (both decisions)",
    "projection_changed": "an outbox item changed state without a request (nothing remote)",
    "projection_sent": "an outbox item was sent; its outcome class and new state",
    "projection_approved": "the operator approved one egress resource string",
    "projection_retry": "failed outbox items were moved back to be decided again",
    "projection_reseeded": "every projected document got a new generation",
    "external_recall": "an external recall attempt: mode, status, reason, counts, latency",
    "extraction_changed": "an extraction job ended, was retried, dropped or expired (job id,"
                          " state, counts); its transcript is destroyed when it ends",
})

# --------------------------------------------------------------------------
# Patterns of the no-text guard.
# --------------------------------------------------------------------------

# Ids, hashes, names and counts only: no whitespace, no quotes, nothing that
# can carry a sentence. 200 characters fits any id or "b3k:" hash we make.
SAFE_ID = re.compile(r"[A-Za-z0-9_:.@/+=-]{0,200}")
# Resource strings (SPEC §4) join target, scope, action, ids and a content
# hash; scope names are caller-chosen namespaces, so they get the visible
# ASCII range (still no spaces) and room for a long scope.
SAFE_RESOURCE_MAX = 1024
SAFE_RESOURCE = re.compile(rf"[!-~]{{1,{SAFE_RESOURCE_MAX}}}")
# details keys are names we choose in code, so they are snake_case.
DETAIL_KEY = re.compile(r"[a-z][a-z0-9_]{0,63}")
# RFC 3339, UTC, microseconds, 'Z' (the form format_ts writes).
TIMESTAMP = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}\.[0-9]{6}Z")
HEX64 = re.compile(r"[0-9a-f]{64}")

DetailValue = str | int | bool | None | list[str | int]


class EventSubject(msgspec.Struct, frozen=True, forbid_unknown_fields=True, kw_only=True):
    """Who acted: opaque ids only (the owner is ``own_…``, never a name)."""

    channel: str | None = None
    role: str | None = None
    owner: str | None = None
    task_id: str | None = None


class EventBody(msgspec.Struct, frozen=True, forbid_unknown_fields=True, kw_only=True):
    """Every field of an event except ``hash``: exactly what the chain hashes."""

    seq: int
    ts: str
    kind: str
    prev: str
    subject: EventSubject | None = None
    capability: str | None = None
    resource: str | None = None
    decision_id: str | None = None
    effect: str | None = None
    rule_ids: list[str] = msgspec.field(default_factory=list)
    entry_ids: list[str] = msgspec.field(default_factory=list)
    revisions: list[int] = msgspec.field(default_factory=list)
    content_hashes: list[str] = msgspec.field(default_factory=list)
    # Non-text metadata: action_id, operation_id, policy_hash, manifests, counts.
    details: dict[str, DetailValue] = msgspec.field(default_factory=dict)


class AuditEvent(EventBody, frozen=True, forbid_unknown_fields=True, kw_only=True):
    """One event of the chain: its body plus ``hash = BLAKE3(prev || body)``."""

    hash: str


# Built once; order="sorted" is what makes the bytes canonical.
_ENCODER = msgspec.json.Encoder(order="sorted")
_BODY_DECODER = msgspec.json.Decoder(EventBody)
_EVENT_DECODER = msgspec.json.Decoder(AuditEvent)
_BODY_FIELDS: tuple[str, ...] = EventBody.__struct_fields__


def body_of(event: EventBody) -> EventBody:
    """The event without its ``hash`` (an ``EventBody`` is returned as is)."""
    if type(event) is EventBody:
        return event
    return EventBody(**{name: getattr(event, name) for name in _BODY_FIELDS})


def canonical_bytes(event: EventBody) -> bytes:
    """The canonical bytes of ``event`` without ``hash`` (see module invariants)."""
    return _ENCODER.encode(body_of(event))


def encode_event(event: AuditEvent) -> bytes:
    """The canonical JSON of a whole event, ``hash`` included (export form)."""
    return _ENCODER.encode(event)


def decode_body(body: bytes) -> EventBody:
    """Decode stored body bytes; ``AuditError("undecodable")`` if they are not one."""
    try:
        return _BODY_DECODER.decode(body)
    except msgspec.DecodeError:
        # msgspec's message may quote the offending value; it is not passed on.
        raise AuditError("undecodable") from None


def decode_event(line: bytes) -> AuditEvent:
    """Decode an exported event line; ``AuditError("undecodable")`` if it is not one."""
    try:
        return _EVENT_DECODER.decode(line)
    except msgspec.DecodeError:
        raise AuditError("undecodable") from None


def format_ts(moment: datetime) -> str:
    """RFC 3339 in UTC with microseconds and 'Z'; the clock stays the caller's."""
    if moment.tzinfo is None or moment.utcoffset() is None:
        # A naive time has no defined instant; guessing a zone would lie in the log.
        raise AuditError("invalid_event", field="ts")
    u = moment.astimezone(UTC)
    return (
        f"{u.year:04d}-{u.month:02d}-{u.day:02d}T"
        f"{u.hour:02d}:{u.minute:02d}:{u.second:02d}.{u.microsecond:06d}Z"
    )


# --------------------------------------------------------------------------
# The no-text guard.
# --------------------------------------------------------------------------


def _is_int(value: object) -> bool:
    # bool is an int subclass; a revision or count that is True is a bug.
    return type(value) is int


def _is_safe_id(value: object) -> bool:
    return type(value) is str and SAFE_ID.fullmatch(value) is not None


def _optional_id(value: object) -> bool:
    return value is None or _is_safe_id(value)


def _id_list(value: object) -> bool:
    return type(value) is list and all(_is_safe_id(item) for item in value)


def _is_resource(value: object) -> bool:
    # Canonical resource strings percent-escape their scope, so they fall
    # outside SAFE_ID; the kernel's strict parser accepts exactly those.
    if type(value) is not str or len(value) > SAFE_RESOURCE_MAX:
        return False
    return Resource.is_canonical(value)


def _detail_string(value: object) -> bool:
    return _is_safe_id(value) or _is_resource(value)


def _detail_value(value: object) -> bool:
    if value is None or type(value) is bool or _is_int(value):
        return True
    if type(value) is str:
        return _detail_string(value)
    if type(value) is list:
        return all(_is_int(item) or _detail_string(item) for item in value)
    # floats (no single canonical text form), dicts and anything else are refused
    return False


def _subject_ok(subject: object) -> bool:
    if subject is None:
        return True
    if type(subject) is not EventSubject:
        return False
    return all(
        _optional_id(getattr(subject, name)) for name in EventSubject.__struct_fields__
    )


def _details_ok(details: object) -> bool:
    if type(details) is not dict:
        return False
    return all(
        type(key) is str and DETAIL_KEY.fullmatch(key) is not None and _detail_value(value)
        for key, value in details.items()
    )


def check_safe(event: EventBody) -> None:
    """Refuse an event that breaks the schema or could carry memory text.

    Callers put only ids, keyed hashes, counts, revisions and booleans in an
    event; this guard enforces the shape of that rule (it cannot tell an id
    from a one-word secret, which is why content is hashed before it gets
    here). Raises ``AuditError("invalid_event", field=<our field name>)``.
    """
    field = _first_unsafe(event)
    if field is not None:
        raise AuditError("invalid_event", field=field)


def _first_unsafe(event: EventBody) -> str | None:
    """The first field of ``event`` the guard refuses, field by field; None if none."""
    checks: tuple[tuple[str, bool], ...] = (
        ("seq", _is_int(event.seq) and event.seq >= 1),
        ("ts", type(event.ts) is str and TIMESTAMP.fullmatch(event.ts) is not None),
        ("kind", type(event.kind) is str and event.kind in EVENT_KINDS),
        ("prev", type(event.prev) is str and HEX64.fullmatch(event.prev) is not None),
        ("subject", _subject_ok(event.subject)),
        ("capability", _optional_id(event.capability)),
        ("resource", event.resource is None
         or (type(event.resource) is str and SAFE_RESOURCE.fullmatch(event.resource) is not None)),
        ("decision_id", _optional_id(event.decision_id)),
        ("effect", _optional_id(event.effect)),
        ("rule_ids", _id_list(event.rule_ids)),
        ("entry_ids", _id_list(event.entry_ids)),
        ("revisions", type(event.revisions) is list
         and all(_is_int(r) and r >= 0 for r in event.revisions)),
        ("content_hashes", _id_list(event.content_hashes)),
        ("details", _details_ok(event.details)),
    )
    for field, ok in checks:
        if not ok:
            return field
    if isinstance(event, AuditEvent) and not (
        type(event.hash) is str and HEX64.fullmatch(event.hash) is not None
    ):
        return "hash"
    return None

