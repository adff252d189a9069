"""The audit table's row form: how one ``StoredEvent`` is kept on disk, compactly.

Owns: the byte form of the ``body`` and ``hash`` columns of the store's
``audit`` table, and the conversions between it and ``StoredEvent``
(``pack_row`` / ``row_of`` to store, ``Unpacker`` / ``stored_of`` to read).

An event's canonical bytes are JSON with the same keys in every event and
several 64-hex hashes, about 800 bytes; kept verbatim with a 64-character hex
hash they cost 1 KB of disk per event, more than the memory they describe.
Three forms pack them, each behind a one-byte format tag:

- V1: the body deflated (zlib, raw deflate) against a fixed preset dictionary
  of the schema's keys and common values. A row stands alone.
- V2: what the chain lets a row leave out is left out. The body's ``prev``
  is the hash column of the row before, so its 64 hex characters are cut
  (their offset is kept). And consecutive events repeat most of each other
  (a write's decision and operation name the same owner, task, policy,
  decision and content hash), so inside a block of ``BLOCK`` rows each body
  is deflated against the dictionary followed by the canonical bytes of the
  row before it; the first row of a block uses the dictionary alone. A V2
  row is read with the rows before it in its block: ``Unpacker`` takes rows
  in seq order from ``first_needed(seq)``.
- V3: as V2, ``prev`` cut and blocks of ``BLOCK`` rows, but a block's rows
  are one raw-deflate stream: the stream starts (primed with the dictionary)
  at a row that says it opens one, and each row is the stream's output for
  its body up to a ``Z_SYNC_FLUSH``, without the flush's fixed four-byte
  tail ``00 00 ff ff`` (put back on reading, as RFC 7692 does). A row finds
  its matches anywhere in the block's earlier rows, and neither the
  dictionary nor the row before is hashed again for each row. The writer
  (``Packer``) keeps its open compressor between commits only while the row
  it packed last is the chain's head: after a rollback, a restart or
  anything else, its next row opens a new stream, so a stream never builds
  on a row that is not on disk. A stream opens at every block's first row
  and may open again inside a block; a reader inflates from the block's
  first row (``first_needed`` is V2's). Layout: the tag, a varint of
  ``cut * 2 + opens`` (``cut`` the offset of the cut ``prev``, ``opens`` 1
  where a stream starts), the chunk. The compression level is the writer's
  choice and no part of the form.

The hash is kept as its 32 raw bytes.

Invariants:
- unpacking is lossless: ``Unpacker`` returns, for every row it is fed from
  ``first_needed`` on, the exact canonical bytes that were written, so the
  chain rule and its verification are unchanged (an altered row either fails
  to inflate — ``undecodable`` — or inflates to other bytes —
  ``hash_mismatch``; a row after it in its block reads through it and fails
  too, after the verifier has already stopped at the first);
- a body that starts with ``{`` is canonical JSON kept as is (stores and
  copies written before the packed form); any other first byte than a known
  tag is ``undecodable``; a V2 row whose predecessor is missing or unreadable
  is ``undecodable``, and so is a V3 row that continues a stream where the
  row before it is not a readable row of the same stream (or where a block
  starts);
- a V3 stream of the writer holds exactly the rows on disk from its opening
  row to the chain's head, or it is not used again;
- ``DICTIONARY_V1`` and ``BLOCK`` never change: a new dictionary or block
  size is a new tag, and every tag ever written stays readable;
- a hash column holding something other than 32 bytes is passed on as text,
  so the verifier reports a mismatch at that row rather than a foreign file.
"""

from __future__ import annotations

import zlib
from collections.abc import Iterable, Iterator
from typing import Any

from zlib_ng import zlib_ng

from memoryd.audit.chain import GENESIS_PREV, StoredEvent
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


# Format tag of a V2 body: the prev hash cut out, the rest deflated against
# DICTIONARY_V1 and, inside a block, the previous event's canonical bytes.
TAG_V2 = b"\x02"
# Rows per block: the first row of each is deflated against the dictionary
# alone, so a row is read with at most BLOCK - 1 rows before it. Measured
# (docs/performance.md, "Storage, schema 6"): 16 rows give 124.5 bytes of
# body per event, 32 give 120.7, 64 give 118.8; 32 keeps a random read to 31
# extra inflations of about 8 µs each. Never change it: a new size is a new tag.
BLOCK = 32
_PREV = b'"prev":"'
_HEX = frozenset(b"0123456789abcdef")


def opens_block(seq: int) -> bool:
    """Whether row ``seq`` is the first of its block (deflated without context)."""
    return (seq - 1) % BLOCK == 0


def first_needed(seq: int) -> int:
    """The first row a reader feeds ``Unpacker`` to read row ``seq``: the
    row before its block (whose hash the block's first row leaves out)."""
    return max(1, seq - (seq - 1) % BLOCK - 1)


def _varint(n: int) -> bytes:
    out = bytearray()
    while True:
        byte, n = n & 0x7F, n >> 7
        out.append(byte | (0x80 if n else 0))
        if not n:
            return bytes(out)


def _read_varint(data: bytes, at: int) -> tuple[int, int]:
    n = shift = 0
    while at < len(data) and shift < 35:
        byte = data[at]
        n |= (byte & 0x7F) << shift
        at += 1
        if not byte & 0x80:
            return n, at
        shift += 7
    raise AuditError("undecodable")


def _zdict(before: bytes | None) -> bytes:
    # Deflate looks back at most 32 KiB: keep the end of the context, where
    # the nearest matches are.
    return DICTIONARY_V1 if before is None else (DICTIONARY_V1 + before)[-32768:]


def pack_row(event: StoredEvent, prev_hash: Any,
             before: bytes | None) -> tuple[int, bytes, bytes]:
    """The ``(seq, body, hash)`` columns to insert for ``event`` in the V2 form.

    ``prev_hash`` is the hash of the row before (the chain head the event
    was linked to) and ``before`` that row's canonical bytes, needed unless
    the event opens a block. Without them, or if the body does not name
    ``prev_hash`` as its ``prev``, the row is packed in the V1 form, which
    stands alone."""
    body = event.body
    at = (body.find(_PREV + prev_hash.encode("ascii") + b'"')
          if isinstance(prev_hash, str) and len(prev_hash) == 64 and prev_hash.isascii() else -1)
    if at < 0 or (before is None and not opens_block(event.seq)):
        return row_of(event)
    cut = at + len(_PREV)
    rest = body[:cut] + body[cut + 64:]
    packer = zlib.compressobj(_LEVEL, zlib.DEFLATED, _RAW_DEFLATE,
                              zdict=_zdict(None if opens_block(event.seq) else before))
    packed = TAG_V2 + _varint(cut) + packer.compress(rest) + packer.flush()
    return event.seq, packed, pack_hash(event.hash)


def _unpack_v2(stored: bytes, prev_hash: Any, before: bytes | None) -> bytes:
    if not (isinstance(prev_hash, str) and len(prev_hash) == 64
            and _HEX.issuperset(prev_hash.encode("ascii", "replace"))):
        raise AuditError("undecodable")
    cut, at = _read_varint(stored, 1)
    unpacker = zlib.decompressobj(_RAW_DEFLATE, zdict=_zdict(before))
    try:
        rest = unpacker.decompress(stored[at:]) + unpacker.flush()
    except zlib.error:
        raise AuditError("undecodable") from None
    if not unpacker.eof or unpacker.unused_data or cut > len(rest):
        raise AuditError("undecodable")
    return rest[:cut] + prev_hash.encode("ascii") + rest[cut:]


# Format tag of a V3 body: the prev hash cut out, a block's rows one
# raw-deflate stream (primed with DICTIONARY_V1), each row its chunk up to a
# sync flush.
TAG_V3 = b"\x03"
# A sync flush ends in an empty stored block whose last four bytes are
# always these; they are cut from each stored chunk and put back to read it.
_SYNC_TAIL = b"\x00\x00\xff\xff"
# An empty stored block that is not the last: the header's three bits (and
# the padding to a byte), then a length of 0 and its complement.
_EMPTY_BLOCK = b"\x00" + _SYNC_TAIL
# The writer's compressor and level (no part of the form: the reader
# inflates any raw deflate with the zlib module). Measured by
# bench/audit_packing.py over 1,000 writes' events (docs/performance.md,
# "The audit row as one stream per block" and "The writer thread: the audit
# rows, the index's merging, the event copy"): zlib's level 1 packs a row in
# ~73 K instructions and 105 bytes of body, its level 6 in ~94 K and 100
# bytes (V2: ~193 K and 122 bytes); zlib-ng's level 1 (its quick deflate,
# fixed codes) in ~46 K and 115 bytes.
_V3_LEVEL = 1
# (Any: zlib-ng's stubs leave out ``copy``, which its compressor has.)
_V3_PRIMED: Any = zlib_ng.compressobj(_V3_LEVEL, zlib_ng.DEFLATED, _RAW_DEFLATE, 8,
                                      zlib_ng.Z_DEFAULT_STRATEGY, zdict=DICTIONARY_V1)


def _cut_at(body: bytes, prev_hash: Any) -> int:
    """Where ``prev_hash``'s 64 characters start in ``body`` as its ``prev``; -1 if not."""
    if not (isinstance(prev_hash, str) and len(prev_hash) == 64 and prev_hash.isascii()):
        return -1
    at = body.find(_PREV + prev_hash.encode("ascii") + b'"')
    return at if at < 0 else at + len(_PREV)


class Packer:
    """The writer's V3 form: one open compressor for the rows of a block.

    ``pack`` is given each new event with the hash of the head it was linked
    to. It continues its stream only when that head is the row it packed
    last (same seq, same hash) and no block starts; otherwise the row opens
    a new stream. So after a transaction that packed rows is rolled back (the
    head it returns to is not the row packed last), after a failed commit,
    or in a new process, the next row opens a stream, and a stream only
    ever continues from a row that is the chain's head — on disk, or in the
    same transaction as the row that follows it. One packer per chain
    writer, used from one thread.
    """

    __slots__ = ("_hash", "_seq", "_stream")

    def __init__(self) -> None:
        self._stream: Any = None
        self._seq = 0
        self._hash = ""

    def pack(self, event: StoredEvent, prev_hash: Any) -> tuple[int, bytes, bytes]:
        """The ``(seq, body, hash)`` columns to insert for ``event`` (V3), or
        its V1 form if its body does not name ``prev_hash`` as its ``prev``."""
        body, seq, stream = event.body, event.seq, self._stream
        self._stream = None  # until this row is packed whole
        cut = _cut_at(body, prev_hash)
        if cut < 0:
            return row_of(event)
        opens = (stream is None or self._seq != seq - 1 or self._hash != prev_hash
                 or opens_block(seq))
        if opens:
            stream = _V3_PRIMED.copy()
        chunk = (stream.compress(body[:cut] + body[cut + 64:])
                 + stream.flush(zlib_ng.Z_SYNC_FLUSH))
        if not chunk.endswith(_SYNC_TAIL):  # never seen: zlib always ends a sync flush so
            return row_of(event)            # (the stream is dropped: the next row opens one)
        self._stream, self._seq, self._hash = stream, seq, event.hash
        return (seq, TAG_V3 + _varint(cut << 1 | opens) + chunk[:-4],
                pack_hash(event.hash))


def _unpack_v3(stored: bytes, prev_hash: Any, stream: Any, seq: int) -> tuple[bytes, Any]:
    """A V3 row's canonical bytes and the inflater to read the next row of
    its stream with. ``stream`` is the inflater left by the row before (None
    if that row was not a V3 row read whole)."""
    if not (isinstance(prev_hash, str) and len(prev_hash) == 64
            and _HEX.issuperset(prev_hash.encode("ascii", "replace"))):
        raise AuditError("undecodable")
    mark, at = _read_varint(stored, 1)
    cut = mark >> 1
    if mark & 1:
        stream = zlib.decompressobj(_RAW_DEFLATE, zdict=DICTIONARY_V1)
    elif stream is None or opens_block(seq):
        raise AuditError("undecodable")  # a stream goes on only from its row before
    try:
        rest = stream.decompress(stored[at:] + _SYNC_TAIL)
        # An empty stored block: it inflates to nothing and leaves the stream
        # as it was only where the row ended between two blocks, as every
        # row the writer packs does; a row cut short, extended or otherwise
        # changed so that its bytes still inflate to the same event but it
        # leaves the stream elsewhere (so that the next row would read
        # wrongly) is caught at its own seq.
        probe = stream.decompress(_EMPTY_BLOCK)
    except zlib.error:
        raise AuditError("undecodable") from None
    if probe or stream.eof or stream.unused_data or cut > len(rest):
        raise AuditError("undecodable")
    return rest[:cut] + prev_hash.encode("ascii") + rest[cut:], stream


class Unpacker:
    """Reads stored rows back into ``StoredEvent``s, fed in seq order.

    A V2 row needs the row before it: its hash, and (inside a block) its
    canonical bytes; a V3 row its hash and (unless it opens a stream) the
    inflater left by it; the unpacker keeps them from the row it was fed last.
    Feed it from ``first_needed(seq)`` to read row ``seq``; from seq 1 for a
    walk of the whole chain. A row that cannot be read (no form known, no
    predecessor fed, damaged) comes back as stored: the verifier reports it
    ``undecodable`` at its own seq.
    """

    __slots__ = ("_body", "_hash", "_seq", "_stream")

    def __init__(self) -> None:
        self._seq = 0
        self._hash: Any = GENESIS_PREV
        self._body: bytes | None = None
        # The inflater of the V3 stream the row fed last belongs to; None
        # when that row was not a V3 row read whole.
        self._stream: Any = None

    def feed(self, seq: int, body: bytes, hash_: Any) -> StoredEvent:
        follows = seq == self._seq + 1
        stream, self._stream = self._stream, None
        raw: bytes | None
        try:
            if body[:1] == TAG_V3:
                if not follows:
                    raise AuditError("undecodable")
                raw, self._stream = _unpack_v3(body, self._hash, stream, seq)
            elif body[:1] == TAG_V2:
                if not follows:
                    raise AuditError("undecodable")
                before = None if opens_block(seq) else self._body
                if before is None and not opens_block(seq):
                    raise AuditError("undecodable")
                raw = _unpack_v2(body, self._hash, before)
            else:
                raw = unpack_body(body)
        except AuditError:
            raw = None
        event = StoredEvent(seq, body if raw is None else raw, unpack_hash(hash_))
        self._seq, self._hash, self._body = seq, event.hash, raw
        return event


def unpack_rows(rows: Iterable[tuple[int, bytes, Any]],
                after_seq: int = 0) -> Iterator[StoredEvent]:
    """The events of ``rows`` (fed in seq order from ``first_needed(after_seq
    + 1)``) whose seq is above ``after_seq``."""
    unpacker = Unpacker()
    for seq, body, hash_ in rows:
        event = unpacker.feed(seq, bytes(body), hash_)
        if seq > after_seq:
            yield event


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
    """The ``(seq, body, hash)`` columns to insert for ``event`` in the V1
    form, which stands alone (PostgreSQL's writer, where several daemons
    append, packs every row this way)."""
    return event.seq, pack_body(event.body), pack_hash(event.hash)


def stored_of(seq: int, body: bytes, hash_: Any) -> StoredEvent:
    """The ``StoredEvent`` a row of the V1 form holds, read on its own (a V2
    row needs the rows before it: ``Unpacker``). A body that does not unpack
    is left as stored: the verifier reports it ``undecodable`` at its own seq."""
    try:
        raw = unpack_body(body)
    except AuditError:
        raw = body
    return StoredEvent(seq, raw, unpack_hash(hash_))
