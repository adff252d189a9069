"""The audit table's row form: how one ``StoredEvent`` is kept on disk, compactly.

Owns: the byte form of the ``body`` and ``hash`` columns of the store's
``audit`` table, and the two conversions between it and ``StoredEvent``
(``row_of`` / ``stored_of``).

An event's canonical bytes are JSON with the same keys in every event and
several 64-hex hashes, about 800 bytes; kept verbatim with a 64-character hex
hash they cost 1 KB of disk per event, more than the memory they describe.
So the body is kept deflated against a fixed preset dictionary of the
schema's keys and common values (zlib, raw deflate), behind a one-byte format
tag, and the hash as its 32 raw bytes.

Invariants:
- ``unpack_body(pack_body(b)) == b`` for every ``b``: the verifier hashes the
  exact canonical bytes that were written, recovered losslessly, so the chain
  rule and its verification are unchanged (an altered row either fails to
  inflate — ``undecodable`` — or inflates to other bytes — ``hash_mismatch``);
- a body that starts with ``{`` is canonical JSON kept as is (stores and
  copies written before the packed form); any other first byte than a known
  tag is ``undecodable``;
- ``DICTIONARY_V1`` never changes: a new dictionary is a new tag, and every
  tag ever written stays readable;
- a hash column holding something other than 32 bytes is passed on as text,
  so the verifier reports a mismatch at that row rather than a foreign file.
"""

from __future__ import annotations

import zlib
from typing import Any

from memoryd.audit.chain import StoredEvent
from memoryd.audit.event import AuditError

# Format tag of a packed body: raw deflate against DICTIONARY_V1.
TAG_V1 = b"\x01"
# The schema's keys and the values most events share (kinds, capabilities,
# id prefixes, a timestamp's shape), two common events in full shape at the
# end where deflate reaches them with the shortest distances. Never edit:
# stored rows inflate against these exact bytes.
DICTIONARY_V1 = (
    b'{"capability":null,"content_hashes":[],"decision_id":null,"details":{},"effect":null,'
    b'"entry_ids":[],"kind":"checkpoint","prev":"","resource":null,"revisions":[],'
    b'"rule_ids":[],"seq":,"subject":null,"ts":""}'
    b'"action_id":"act_"checkpoint_hash":"checkpoint_seq":"reason":"policy_hash":"pol_'
    b'"explicit":false,"resources":["'
    b'"kind":"task_begun"kind":"task_ended"kind":"snapshot_frozen"kind":"receipt"kind":"undo'
    b'"kind":"action_proposed"kind":"content_rejected"effect":"deny"'
    b'"capability":"MemoryRead"capability":"MemoryPropose'
    b'{"capability":"MemoryWrite","content_hashes":["b3k:"],"decision_id":"dec_",'
    b'"details":{"operation_id":"op_"},"effect":"allow","entry_ids":["ent_"],'
    b'"kind":"operation","prev":"","resource":"memory/:add+fact:-@-:b3k:","revisions":[1],'
    b'"rule_ids":[],"seq":,"subject":{"channel":"agent","owner":"own_","role":"main",'
    b'"task_id":"tsk_"},"ts":"2026-12-01T00:00:00.000000Z"}'
    b'{"capability":"MemoryWrite","content_hashes":["b3k:"],"decision_id":"dec_",'
    b'"details":{"explicit":true,"policy_hash":"pol_","resources":["memory/:add+fact:-@-:b3k:"]},'
    b'"effect":"allow","entry_ids":[],"kind":"decision","prev":"",'
    b'"resource":"memory/:add+fact:-@-:b3k:","revisions":[],"rule_ids":[],"seq":,'
    b'"subject":{"channel":"control","owner":"own_","role":"main","task_id":null},'
    b'"ts":"2026-12-01T00:00:00.000000Z"}'
)
_RAW_DEFLATE = -15  # wbits: no zlib header or checksum (the chain hash checks the bytes)
_LEVEL = 6  # measured: level 9 packs an event no smaller
# The packer's window and hash table: an 8 KiB window holds the dictionary
# and all of a write's event (a batch's too); raw deflate inflates with the
# 32 KiB window either way. Measured over a store's events: 0.5% smaller in
# all than the default 32 KiB window and memory level 8, and the packer, made
# once with the dictionary already loaded, is copied per event (a new one
# clears 64 KiB of hash table and loads the dictionary again: a third of
# the cost of packing an event).
_PACK_WINDOW = -13
_PACK_MEMORY = 4
_PRIMED = zlib.compressobj(_LEVEL, zlib.DEFLATED, _PACK_WINDOW, _PACK_MEMORY,
                           zdict=DICTIONARY_V1)


def pack_body(body: bytes) -> bytes:
    """The stored form of an event's canonical bytes."""
    packer = _PRIMED.copy()
    return TAG_V1 + packer.compress(body) + packer.flush()


def unpack_body(stored: bytes) -> bytes:
    """The canonical bytes a stored body holds; ``AuditError("undecodable")`` if none."""
    if stored[:1] == b"{":
        return stored
    if stored[:1] != TAG_V1:
        raise AuditError("undecodable")
    unpacker = zlib.decompressobj(_RAW_DEFLATE, zdict=DICTIONARY_V1)
    try:
        body = unpacker.decompress(stored[1:]) + unpacker.flush()
    except zlib.error:
        raise AuditError("undecodable") from None
    if not unpacker.eof or unpacker.unused_data:
        raise AuditError("undecodable")  # cut short, or bytes appended after the end
    return body


def pack_hash(hex_hash: str) -> bytes:
    """The stored form of a 64-hex chain hash: its 32 bytes."""
    return bytes.fromhex(hex_hash)


def unpack_hash(stored: Any) -> Any:
    """The hex hash a stored hash column holds. Text (a store written before
    the packed form) is passed on as it is; so is anything not 32 bytes, which
    the verifier then finds does not match."""
    if isinstance(stored, bytes) and len(stored) == 32:
        return stored.hex()
    return stored


def row_of(event: StoredEvent) -> tuple[int, bytes, bytes]:
    """The ``(seq, body, hash)`` columns to insert for ``event``."""
    return event.seq, pack_body(event.body), pack_hash(event.hash)


def stored_of(seq: int, body: bytes, hash_: Any) -> StoredEvent:
    """The ``StoredEvent`` a row holds. A body that does not unpack is left as
    stored: the verifier reports it ``undecodable`` at its own seq."""
    try:
        raw = unpack_body(body)
    except AuditError:
        raw = body
    return StoredEvent(seq, raw, unpack_hash(hash_))
