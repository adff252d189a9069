"""Signed checkpoints of the chain head.

Owns: the checkpoint record, the exact bytes that are signed, Ed25519 key
generation and signing, and verification of a chain against a checkpoint.
Key files and their modes stay in the daemon; everything here takes and
returns bytes.

The signed message is::

    b"memoryd-checkpoint-v1\\x00" + {"hash":"<64 hex>","seq":N,"ts":"<RFC 3339>"}

(compact JSON, keys sorted). The prefix keeps a checkpoint signature from
ever being valid for any other message the same key might sign. A
``Checkpoint`` carries ``signature`` (64 bytes) and ``public_key`` (the raw
32-byte Ed25519 key) as lowercase hex, like every other hash in the log.

Invariants:
- ``sign_checkpoint`` refuses a malformed head or timestamp, so every
  checkpoint it makes also passes ``verify_checkpoint_signature``;
- a checkpoint only counts if its signature verifies; with a trusted public
  key it must also be that key's;
- ``verify_against_checkpoint`` reports a chain shorter than the checkpoint
  (rolled back) or whose hash at the checkpoint's seq differs, at the first
  bad sequence number.
"""

from __future__ import annotations

from collections.abc import Iterable

import msgspec
from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives.asymmetric.ed25519 import (
    Ed25519PrivateKey,
    Ed25519PublicKey,
)

from memoryd.audit.chain import EMPTY_HEAD, ChainHead, Row, VerifyResult, verify_chain
from memoryd.audit.event import HEX64, TIMESTAMP, AuditError

CHECKPOINT_DOMAIN = b"memoryd-checkpoint-v1\x00"
KEY_BYTES = 32
SIGNATURE_BYTES = 64


class _Signed(msgspec.Struct, frozen=True, kw_only=True):
    seq: int
    hash: str
    ts: str


class Checkpoint(_Signed, frozen=True, forbid_unknown_fields=True, kw_only=True):
    """A signed ``(seq, hash, ts)``: what ``memctl audit checkpoint`` prints."""

    signature: str
    public_key: str


_ENCODER = msgspec.json.Encoder(order="sorted")
_DECODER = msgspec.json.Decoder(Checkpoint)


def checkpoint_message(seq: int, head_hash: str, ts: str) -> bytes:
    """The exact bytes a checkpoint signature covers."""
    return CHECKPOINT_DOMAIN + _ENCODER.encode(_Signed(seq=seq, hash=head_hash, ts=ts))


def _check_point(seq: object, head_hash: object, ts: object) -> None:
    if not (type(seq) is int and seq >= 0
            and type(head_hash) is str and HEX64.fullmatch(head_hash) is not None
            and type(ts) is str and TIMESTAMP.fullmatch(ts) is not None):
        raise AuditError("malformed_checkpoint")


def _private_key(private_key: bytes) -> Ed25519PrivateKey:
    if type(private_key) is not bytes or len(private_key) != KEY_BYTES:
        raise AuditError("bad_key")
    return Ed25519PrivateKey.from_private_bytes(private_key)


def generate_signing_key() -> bytes:
    """A new raw 32-byte Ed25519 private key (the daemon stores it, 0600)."""
    return Ed25519PrivateKey.generate().private_bytes_raw()


def public_key_of(private_key: bytes) -> bytes:
    """The raw 32-byte public key of a raw private key."""
    return _private_key(private_key).public_key().public_bytes_raw()


def sign_checkpoint(private_key: bytes, head: ChainHead, ts: str) -> Checkpoint:
    """Sign ``(head.seq, head.hash, ts)``; ``ts`` comes from the caller's clock."""
    _check_point(head.seq, head.hash, ts)
    key = _private_key(private_key)
    signature = key.sign(checkpoint_message(head.seq, head.hash, ts))
    return Checkpoint(
        seq=head.seq,
        hash=head.hash,
        ts=ts,
        signature=signature.hex(),
        public_key=key.public_key().public_bytes_raw().hex(),
    )


def _unhex(text: str, size: int) -> bytes:
    try:
        raw = bytes.fromhex(text)
    except ValueError:
        raise AuditError("malformed_checkpoint") from None
    # Only the lowercase form we write is accepted, so one checkpoint has one text.
    if len(raw) != size or raw.hex() != text:
        raise AuditError("malformed_checkpoint")
    return raw


def verify_checkpoint_signature(cp: Checkpoint, trusted_public_key: bytes | None) -> None:
    """Raise ``AuditError`` unless ``cp`` is well formed and its signature verifies.

    With ``trusted_public_key`` the checkpoint must be signed by that key
    (``untrusted_key`` otherwise). With ``None`` the checkpoint's own key is
    used: that proves the record is intact, not who made it — anyone can sign
    a checkpoint with a key of their own — so pass the daemon's public key
    whenever it is known.
    """
    _check_point(cp.seq, cp.hash, cp.ts)
    if type(cp.signature) is not str or type(cp.public_key) is not str:
        raise AuditError("malformed_checkpoint")
    signature = _unhex(cp.signature, SIGNATURE_BYTES)
    embedded = _unhex(cp.public_key, KEY_BYTES)
    if trusted_public_key is not None:
        if type(trusted_public_key) is not bytes or len(trusted_public_key) != KEY_BYTES:
            raise AuditError("bad_key")
        if trusted_public_key != embedded:
            raise AuditError("untrusted_key")
    try:
        Ed25519PublicKey.from_public_bytes(embedded).verify(
            signature, checkpoint_message(cp.seq, cp.hash, cp.ts)
        )
    except (InvalidSignature, ValueError):
        raise AuditError("bad_signature") from None


def verify_against_checkpoint(
    rows: Iterable[Row],
    cp: Checkpoint,
    *,
    trusted_public_key: bytes | None,
    start: ChainHead = EMPTY_HEAD,
) -> VerifyResult:
    """Verify the signature, then walk the chain requiring it to pass through
    ``(cp.seq, cp.hash)``. Rows after the checkpoint are verified too.

    A bad checkpoint gives ``ok=False`` with its reason and
    ``first_bad_seq=None`` (no row was judged). ``trusted_public_key`` has no
    default on purpose: callers decide whether they know the signer.
    """
    try:
        verify_checkpoint_signature(cp, trusted_public_key)
    except AuditError as exc:
        return VerifyResult(ok=False, checked=0, first_bad_seq=None, head=start,
                            reason=exc.reason)
    return verify_chain(rows, start=start, expect=ChainHead(seq=cp.seq, hash=cp.hash))


def encode_checkpoint(cp: Checkpoint) -> bytes:
    """The checkpoint as compact sorted JSON (the form kept in a file)."""
    return _ENCODER.encode(cp)


def decode_checkpoint(data: bytes | str) -> Checkpoint:
    """Parse a kept checkpoint; ``AuditError("malformed_checkpoint")`` if it is not one."""
    try:
        return _DECODER.decode(data)
    except msgspec.DecodeError:
        raise AuditError("malformed_checkpoint") from None
