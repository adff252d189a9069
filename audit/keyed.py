"""Keyed hashing with the per-home root secret.

Owns: every hash or MAC memoryd makes with its secret — content hashes,
owner ids, token hashes, workspace ids, intent and evidence hashes, and the
MAC that signs cursors.

Invariants:
- one subkey per purpose, derived from the root secret with BLAKE3's
  key-derivation mode and a fixed context string from ``PURPOSES``; so a hash
  made for one purpose never equals one made for another, even of the same
  input, and learning one subkey reveals neither the root nor another subkey;
- every multi-part input is encoded unambiguously (a part count, then each
  part length-prefixed), so ("ab", "c") and ("a", "bc") never collide;
- text is encoded as UTF-8 with ``surrogatepass``: injective over every
  Python ``str``, so hashing never fails on odd input;
- the root secret and subkeys never appear in ``repr`` or errors.
"""

from __future__ import annotations

import hmac
import secrets
from collections.abc import Mapping
from types import MappingProxyType

from blake3 import blake3

from memoryd.audit.event import AuditError

ROOT_SECRET_BYTES = 32

# Context strings are fixed forever: changing one changes every stored hash of
# that purpose. A new purpose (or a new version of one) is a new row.
PURPOSES: Mapping[str, str] = MappingProxyType({
    "content": "memoryd 2026-11 content hash v1",
    "entry_content": "memoryd 2026-11 entry content hash v1",
    "owner": "memoryd 2026-11 owner id v1",
    "token": "memoryd 2026-11 agent token hash v1",
    "workspace": "memoryd 2026-11 workspace id v1",
    "intent": "memoryd 2026-11 recall intent hash v1",
    "message": "memoryd 2026-11 extraction evidence hash v1",
    "mac": "memoryd 2026-11 cursor mac v1",
})

MAC_BYTES = 32
# Ids shown to clients and stored as keys: 128 bits is far past collision risk
# for any one home and keeps ids short.
_ID_BYTES = 16


def new_root_secret() -> bytes:
    """32 fresh random bytes for a new home (the daemon stores them, 0600)."""
    return secrets.token_bytes(ROOT_SECRET_BYTES)


def _utf8(text: str) -> bytes:
    return text.encode("utf-8", "surrogatepass")


def _frame(parts: tuple[bytes, ...]) -> bytes:
    # Part count first, then each part with an 8-byte big-endian length: no
    # two different tuples of parts have the same framing.
    out = [len(parts).to_bytes(4, "big")]
    for part in parts:
        out.append(len(part).to_bytes(8, "big"))
        out.append(part)
    return b"".join(out)


class KeyedHasher:
    """Keyed BLAKE3 per purpose, all derived from one 32-byte root secret."""

    __slots__ = ("_keys",)

    def __init__(self, root_secret: bytes) -> None:
        if type(root_secret) is not bytes or len(root_secret) != ROOT_SECRET_BYTES:
            raise AuditError("bad_key")
        self._keys: dict[str, bytes] = {
            purpose: blake3(root_secret, derive_key_context=context).digest()
            for purpose, context in PURPOSES.items()
        }

    def __repr__(self) -> str:
        return "KeyedHasher(<secret>)"

    def _digest(self, purpose: str, data: bytes, length: int = 32) -> bytes:
        return blake3(data, key=self._keys[purpose]).digest(length=length)

    def content(self, text: str) -> str:
        """Keyed hash of one text: ``"b3k:" + 64 hex``."""
        return "b3k:" + self._digest("content", _utf8(text)).hex()

    def content_of(self, *parts: str) -> str:
        """Keyed hash of an entry's parts, e.g. (type, title, summary, body):
        ``"b3k:" + 64 hex``; the parts are framed so they cannot shift."""
        framed = _frame(tuple(_utf8(p) for p in parts))
        return "b3k:" + self._digest("entry_content", framed).hex()

    def owner(self, kind: str, *, subject: str, issuer: str | None = None) -> str:
        """Owner id ``"own_" + 32 hex`` of an identity ``{kind, subject, issuer?}``.

        ``subject`` and ``issuer`` are keyword-only: swapping them would
        silently give every identity a different owner. An absent issuer is
        distinct from an empty one.
        """
        issuer_part = b"\x00" if issuer is None else b"\x01" + _utf8(issuer)
        framed = _frame((_utf8(kind), _utf8(subject), issuer_part))
        return "own_" + self._digest("owner", framed, _ID_BYTES).hex()

    def token(self, token: str) -> str:
        """Keyed hash of an agent token (64 hex), the only form stored."""
        return self._digest("token", _utf8(token)).hex()

    def workspace(self, real_path: str) -> str:
        """Workspace scope ``"ws_" + 32 hex`` of a resolved real path."""
        return "ws_" + self._digest("workspace", _utf8(real_path), _ID_BYTES).hex()

    def intent(self, text: str) -> str:
        """Keyed hash of a recall intent: ``"b3k:" + 64 hex``."""
        return "b3k:" + self._digest("intent", _utf8(text)).hex()

    def message(self, text: str) -> str:
        """Keyed hash of a user message cited as extraction evidence."""
        return "b3k:" + self._digest("message", _utf8(text)).hex()

    def mac(self, data: bytes) -> bytes:
        """32-byte MAC of ``data`` (cursor signing)."""
        return self._digest("mac", bytes(data), MAC_BYTES)

    def verify_mac(self, data: bytes, tag: bytes) -> bool:
        """Constant-time check that ``tag`` is ``mac(data)``."""
        if type(tag) is not bytes:
            return False
        return hmac.compare_digest(self.mac(data), tag)
