"""Listing cursors: opaque, sealed, bound to who asked and what they asked.

Owns: turning a listing position (owner, the exact filters, this daemon run,
the last row seen) into an opaque string and back.

Invariants:
- a cursor is sealed with an AEAD (ChaCha20-Poly1305) under a key derived
  from the per-home secret: a client can neither read it (the filters hold
  the caller's query text) nor forge or alter one; anything that does not
  open is ``cursor_invalid``;
- the boot id inside it makes every cursor of an earlier run invalid, so a
  restart never silently answers with page one;
- a cursor never begins with ``-``, so it can follow ``--cursor`` on a
  command line.
"""

from __future__ import annotations

import base64
import os

import msgspec
from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives.ciphers.aead import ChaCha20Poly1305

from memoryd.audit.keyed import KeyedHasher
from memoryd.kernel.errors import CursorError

_NONCE = 12
_AAD = b"memoryd-cursor-v1"
# A fixed first character: base64url may begin with "-", and a cursor that
# does would be taken for an option by command-line parsers
# (`memctl ls --cursor -x…` fails).
_PREFIX = "c"
_encode = msgspec.json.Encoder(order="sorted")


class Cursor(msgspec.Struct, frozen=True):
    owner: str
    filters: str
    boot: str
    after_title: str
    after_id: str
    # Search mode continues below a (score, id) position instead of a title.
    after_score: float | None = None


def _aead(hasher: KeyedHasher) -> ChaCha20Poly1305:
    # A subkey of the MAC purpose, so the cursor key is never used for anything else.
    return ChaCha20Poly1305(hasher.mac(b"cursor sealing key v1"))


def seal(hasher: KeyedHasher, cursor: Cursor) -> str:
    nonce = os.urandom(_NONCE)
    sealed = _aead(hasher).encrypt(nonce, _encode.encode(cursor), _AAD)
    return _PREFIX + base64.urlsafe_b64encode(nonce + sealed).decode().rstrip("=")


def unseal(hasher: KeyedHasher, text: str) -> Cursor:
    if not text.startswith(_PREFIX):
        raise CursorError("cursor_invalid")
    text = text[len(_PREFIX):]
    try:
        raw = base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))
        body = _aead(hasher).decrypt(raw[:_NONCE], raw[_NONCE:], _AAD)
        return msgspec.json.decode(body, type=Cursor)
    except (ValueError, InvalidTag, msgspec.DecodeError):
        raise CursorError("cursor_invalid") from None
