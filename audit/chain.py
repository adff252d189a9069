"""The hash chain: linking new events and verifying stored ones.

Owns: the chain hash rule, the row format the store persists, building the
next event from the current head, and the streaming verifier.

The chain rule (SPEC §8)::

    hash = BLAKE3(prev || canonical_bytes(event without hash)).hexdigest()

where ``prev`` is the predecessor's hash as its 64 ASCII hex characters (the
first event uses ``GENESIS_PREV``, 64 zeros). ``prev`` has a fixed length, so
the concatenation splits one way only. ``prev`` is also a field of the body,
so each body names its own place in the chain. The formula is SPEC's, with no
extra prefix, so an outside tool can recompute it from an export; it is
BLAKE3's plain hash mode, while every keyed hash (``audit/keyed.py``) uses the
keyed mode under a derived key, so the two families never coincide.

Storage format: the store persists one ``StoredEvent(seq, body, hash)`` row
per event — ``seq`` the integer key (1, 2, 3, …; no gaps), ``body`` the exact
canonical bytes that were hashed (a BLOB), ``hash`` the 64-hex chain hash.
Keeping the hashed bytes verbatim makes verification honest (it checks the
bytes that are stored, not a re-encoding of them) and fast (no encoding on the
read side). ``encode_event`` gives the full-event JSON line for export, and
``verify_chain`` accepts those lines too, re-deriving the body from them.

Invariants:
- the verifier is streaming (constant memory) and stops at the first bad row;
  ``first_bad_seq`` is the sequence number where the chain first stops being
  the one that was written: a modified row is reported at its own seq, a
  deleted row at the missing seq, an inserted or reordered row at the seq
  where it appears;
- an untouched chain always verifies (no false alarms), from any start head;
- a deletion of the newest events leaves a valid shorter chain: only a
  checkpoint (``expect``, see ``audit/checkpoint.py``) detects it.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any, NamedTuple

import msgspec
from blake3 import blake3

from memoryd.audit.event import (
    AuditError,
    AuditEvent,
    DetailValue,
    EventBody,
    EventSubject,
    canonical_bytes,
    check_safe,
    decode_body,
    decode_event,
)

GENESIS_PREV = "0" * 64


class ChainHead(msgspec.Struct, frozen=True, forbid_unknown_fields=True, kw_only=True):
    """The newest event's sequence number and hash (seq 0 = empty chain)."""

    seq: int
    hash: str


EMPTY_HEAD = ChainHead(seq=0, hash=GENESIS_PREV)


class StoredEvent(NamedTuple):
    """One persisted row: the store keeps exactly these three columns."""

    seq: int
    body: bytes
    hash: str


class VerifyResult(msgspec.Struct, frozen=True, forbid_unknown_fields=True, kw_only=True):
    """Outcome of a walk. ``head`` is the last event that verified (or the
    start head); ``reason`` is a key of ``audit.event.REASONS`` when not ok."""

    ok: bool
    checked: int
    first_bad_seq: int | None
    head: ChainHead
    reason: str | None


def chain_hash(prev_hash: str, body: bytes) -> str:
    """``BLAKE3(prev || body)`` as 64 hex, ``prev`` taken as its ASCII hex."""
    return blake3(prev_hash.encode("ascii") + body).digest().hex()


def link(prev_hash: str, body: EventBody) -> AuditEvent:
    """Seal ``body`` onto the chain after ``prev_hash``.

    The body's own ``prev`` must equal ``prev_hash``, and the body must pass
    ``check_safe``; otherwise ``AuditError("invalid_event")``.
    """
    return _seal(prev_hash, body)[0]


def _sealed(prev_hash: str, body: EventBody) -> tuple[bytes, str]:
    """The canonical bytes of ``body`` and its chain hash after ``prev_hash``,
    once the body passes ``check_safe`` and names ``prev_hash`` as its ``prev``."""
    check_safe(body)
    if body.prev != prev_hash:
        raise AuditError("invalid_event", field="prev")
    raw = canonical_bytes(body)
    return raw, chain_hash(prev_hash, raw)


def _seal(prev_hash: str, body: EventBody) -> tuple[AuditEvent, bytes]:
    raw, hash_ = _sealed(prev_hash, body)
    fields = msgspec.structs.asdict(body)
    fields.pop("hash", None)  # an AuditEvent given as the body is sealed anew
    return AuditEvent(**fields, hash=hash_), raw


def next_stored(head: ChainHead, kind: str, ts: str,
                **fields: Any) -> tuple[AuditEvent, StoredEvent]:
    """The event that follows ``head`` and the row to persist for it.

    The keywords are the event's own fields: ``subject``, ``capability``,
    ``resource``, ``decision_id``, ``effect``, ``rule_ids``, ``entry_ids``,
    ``revisions``, ``content_hashes`` and ``details``. The canonical bytes
    are encoded once: the same bytes are hashed and stored.
    """
    event, raw = _seal(head.hash, _next_body(head, kind, ts, **fields))
    return event, StoredEvent(event.seq, raw, event.hash)


def next_row(head: ChainHead, kind: str, ts: str, **fields: Any) -> StoredEvent:
    """The row to persist for the event that follows ``head`` (keywords as
    ``next_stored``): what ``next_stored`` gives as its second half, under
    the same guard and chain rule, without making the ``AuditEvent`` a
    writer that only stores the row has no use for."""
    body = _next_body(head, kind, ts, **fields)
    raw, hash_ = _sealed(head.hash, body)
    return StoredEvent(body.seq, raw, hash_)


def next_event(head: ChainHead, kind: str, ts: str, **fields: Any) -> AuditEvent:
    """The event that follows ``head``: seq ``head.seq + 1``, prev ``head.hash``
    (keywords as ``next_stored``)."""
    return next_stored(head, kind, ts, **fields)[0]


def _next_body(
    head: ChainHead,
    kind: str,
    ts: str,
    *,
    subject: EventSubject | None = None,
    capability: str | None = None,
    resource: str | None = None,
    decision_id: str | None = None,
    effect: str | None = None,
    rule_ids: Sequence[str] = (),
    entry_ids: Sequence[str] = (),
    revisions: Sequence[int] = (),
    content_hashes: Sequence[str] = (),
    details: dict[str, DetailValue] | None = None,
) -> EventBody:
    return EventBody(
        seq=head.seq + 1,
        ts=ts,
        kind=kind,
        prev=head.hash,
        subject=subject,
        capability=capability,
        resource=resource,
        decision_id=decision_id,
        effect=effect,
        rule_ids=list(rule_ids),
        entry_ids=list(entry_ids),
        revisions=list(revisions),
        content_hashes=list(content_hashes),
        details={} if details is None else dict(details),
    )


def to_stored(event: AuditEvent) -> StoredEvent:
    """The row to persist for ``event``."""
    return StoredEvent(event.seq, canonical_bytes(event), event.hash)


def from_stored(row: StoredEvent) -> AuditEvent:
    """The event a stored row holds (no chain check: use ``verify_chain``)."""
    body = decode_body(row.body)
    fields = {name: getattr(body, name) for name in EventBody.__struct_fields__}
    return AuditEvent(**fields, hash=row.hash)


def head_of(event: AuditEvent) -> ChainHead:
    return ChainHead(seq=event.seq, hash=event.hash)


class ChainBuilder:
    """Appends several events from one head, e.g. inside one store
    transaction; if the transaction rolls back, drop the builder."""

    __slots__ = ("head",)

    def __init__(self, head: ChainHead) -> None:
        self.head = head

    def append(self, kind: str, ts: str, **fields: Any) -> StoredEvent:
        """Append the next event (keywords as ``next_stored``) and return its row."""
        event, stored = next_stored(self.head, kind, ts, **fields)
        self.head = head_of(event)
        return stored


# --------------------------------------------------------------------------
# Verification
# --------------------------------------------------------------------------


class _Link(msgspec.Struct):
    # Only the two fields that place a body in the chain; msgspec skips (but
    # still parses) the rest, which is several times faster than a full decode.
    seq: int
    prev: str


_LINK_DECODER = msgspec.json.Decoder(_Link)

Row = StoredEvent | AuditEvent | bytes


def _as_stored(row: object) -> StoredEvent:
    if isinstance(row, AuditEvent):
        return StoredEvent(row.seq, canonical_bytes(row), row.hash)
    if isinstance(row, bytes | bytearray | memoryview):
        return to_stored(decode_event(bytes(row)))
    raise TypeError("not an audit row")


def verify_chain(
    rows: Iterable[Row],
    *,
    start: ChainHead = EMPTY_HEAD,
    expect: ChainHead | None = None,
) -> VerifyResult:
    """Walk ``rows`` in order from ``start`` and report the first bad row.

    ``rows`` are ``StoredEvent`` rows (or plain ``(seq, body, hash)``
    tuples), ``AuditEvent`` objects, or exported JSON lines (bytes).
    ``start`` is a head already trusted (default: the empty chain), so a
    verifier may resume from a checkpoint. ``expect``, if given, is a head
    that must lie on the chain: the hash at ``expect.seq`` must equal
    ``expect.hash``, and a chain that ends before ``expect.seq`` is reported
    ``truncated`` at the first missing seq.
    """
    if expect is not None and expect.seq < start.seq:
        raise AuditError("checkpoint_not_covered")
    if expect is not None and expect.seq == start.seq and expect.hash != start.hash:
        return VerifyResult(ok=False, checked=0, first_bad_seq=start.seq, head=start,
                            reason="checkpoint_mismatch")
    expect_seq = -1 if expect is None else expect.seq
    expect_hash = "" if expect is None else expect.hash

    seq = start.seq
    prev_hex = start.hash
    prev_raw = prev_hex.encode("ascii")
    reason: str | None = None
    decode = _LINK_DECODER.decode
    # The loop body is the hot path: locals only, one hash, one small decode.
    for row in rows:
        nxt = seq + 1
        try:
            # StoredEvent, or any plain (seq, body, hash) tuple a cursor yields.
            if isinstance(row, tuple):
                row_seq, body, row_hash = row
            else:
                row_seq, body, row_hash = _as_stored(row)
        except (AuditError, ValueError, TypeError):
            reason = "undecodable"
            break
        if row_seq != nxt:
            reason = "seq_gap"
            break
        try:
            digest = blake3(prev_raw + body).digest().hex()
        except TypeError:
            reason = "undecodable"
            break
        if digest != row_hash:
            reason = "hash_mismatch"
            break
        try:
            placed = decode(body)
        except msgspec.DecodeError:
            reason = "undecodable"
            break
        if placed.seq != nxt:
            reason = "seq_mismatch"
            break
        if placed.prev != prev_hex:
            reason = "prev_mismatch"
            break
        if nxt == expect_seq and digest != expect_hash:
            reason = "checkpoint_mismatch"
            break
        seq = nxt
        prev_hex = digest
        prev_raw = digest.encode("ascii")

    head = ChainHead(seq=seq, hash=prev_hex)
    checked = seq - start.seq
    if reason is None and seq < expect_seq:
        reason = "truncated"
    if reason is None:
        return VerifyResult(ok=True, checked=checked, first_bad_seq=None, head=head, reason=None)
    return VerifyResult(ok=False, checked=checked, first_bad_seq=seq + 1, head=head, reason=reason)
