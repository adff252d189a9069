"""Who a call acts for: identities, owners, agent tokens and consent records.

Owns: turning an identity (``{kind, subject, issuer?}``) into an opaque owner
id, the daemon's default identity (from the environment), agent tokens
(issued, listed, revoked; stored only as keyed hashes), and per-owner consent.

Invariants:
- raw subjects, issuers and tokens are never stored, logged or audited: only
  ``own_…`` owner ids and keyed token hashes are;
- the same subject under two kinds is two owners;
- on ``agent.sock`` the identity comes from a token the operator issued, else
  the peer uid's configured identity, else the default — never from a field
  the client names;
- an unknown, revoked or expired token is ``policy_denied``;
- a consent record that cannot be read fails closed
  (``consent_authority_unavailable``), and consent changes need the current
  version (a stale writer gets ``revision_conflict``).
"""

from __future__ import annotations

import os
import secrets
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal

import apsw
import msgspec

from memoryd.audit.keyed import KeyedHasher
from memoryd.daemon.clock import fmt, parse, plus
from memoryd.daemon.config import Config
from memoryd.daemon.ids import random_id
from memoryd.daemon.storage.store import Tx, dumps, loads
from memoryd.daemon.storage.txn import audit_subject
from memoryd.kernel.errors import Conflict, Denied, NotFound, Unavailable
from memoryd.kernel.grants import Consent
from memoryd.rpc import schema


class IdentityError(Exception):
    """The default identity in the environment cannot be used (refuse to start)."""


@dataclass(frozen=True, slots=True)
class Who:
    owner: str
    kind: str
    source: str
    verified: bool = False


def owner_of(hasher: KeyedHasher, ident: schema.Identity) -> str:
    return hasher.owner(ident.kind, subject=ident.subject, issuer=ident.issuer)


def default_identity(
    env: Mapping[str, str], config: Config, hasher: KeyedHasher
) -> Who:
    """SPEC §7: IDENTITY_JSON, then a JWT's claims, then USER_ID, then the local profile."""
    raw = env.get("MEMORYD_IDENTITY_JSON")
    if raw:
        try:
            ident = msgspec.json.decode(raw.encode(), type=schema.Identity)
        except msgspec.DecodeError:
            raise IdentityError(
                "MEMORYD_IDENTITY_JSON must be {\"kind\", \"subject\", \"issuer\"?}"
            ) from None
        return Who(owner_of(hasher, ident), ident.kind, "identity_json")
    token = env.get("MEMORYD_TOKEN")
    if token:
        claims, verified = _jwt_claims(token, config.jwt_public_key)
        sub = claims.get("sub")
        if not isinstance(sub, str) or not sub:
            raise IdentityError("MEMORYD_TOKEN has no 'sub' claim")
        iss = claims.get("iss") if isinstance(claims.get("iss"), str) else None
        ident = schema.Identity(kind="token", subject=sub, issuer=iss)
        return Who(owner_of(hasher, ident), "token", "token", verified)
    user = env.get("MEMORYD_USER_ID")
    if user:
        ident = schema.Identity(kind="user", subject=user)
        return Who(owner_of(hasher, ident), "user", "user_id")
    ident = schema.Identity(kind="local", subject=f"uid:{os.geteuid()}")
    return Who(owner_of(hasher, ident), "local", "local_profile")


def _jwt_claims(token: str, public_key_pem: str | None) -> tuple[dict[str, Any], bool]:
    """The claims of ``MEMORYD_TOKEN``, and whether its signature was checked.

    PyJWT does the parsing and, with a configured key, the checks: the
    algorithm is pinned to EdDSA (no ``alg`` confusion with HS256 and the
    public key as a secret), and ``exp``, ``nbf`` and ``iat`` are enforced.
    No audience is configured, so ``aud`` is not checked. Messages name the
    variable and the problem, never the token.

    PyJWT and the PEM loader are imported here, not at the top: importing
    them costs about a quarter of the daemon's start-up, and only a daemon
    started with ``MEMORYD_TOKEN`` needs them.
    """
    import jwt
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey
    from cryptography.hazmat.primitives.serialization import load_pem_public_key

    if public_key_pem is None:
        # Unverified claims only choose a scope; they grant nothing.
        try:
            claims = jwt.decode(token, options={"verify_signature": False})
        except jwt.InvalidTokenError:
            raise IdentityError("MEMORYD_TOKEN is not a JWT") from None
        return claims, False
    try:
        key = load_pem_public_key(public_key_pem.encode())
    except ValueError:
        raise IdentityError("jwt_public_key in memoryd.toml is not a PEM public key") from None
    if not isinstance(key, Ed25519PublicKey):
        raise IdentityError("jwt_public_key in memoryd.toml must be an Ed25519 key")
    try:
        algorithm = jwt.get_unverified_header(token).get("alg")
    except jwt.InvalidTokenError:
        raise IdentityError("MEMORYD_TOKEN is not a JWT") from None
    if algorithm != "EdDSA":
        raise IdentityError("MEMORYD_TOKEN must be signed with EdDSA (Ed25519)")
    try:
        claims = jwt.decode(token, key, algorithms=["EdDSA"], options={"verify_aud": False})
    except jwt.ExpiredSignatureError:
        # A verified identity that has expired is no identity: refuse to start
        # rather than act for it.
        raise IdentityError("MEMORYD_TOKEN has expired") from None
    except jwt.ImmatureSignatureError:
        raise IdentityError("MEMORYD_TOKEN is not valid yet (nbf or iat in the future)") from None
    except jwt.InvalidSignatureError:
        raise IdentityError("MEMORYD_TOKEN signature does not verify") from None
    except jwt.InvalidTokenError:
        raise IdentityError("MEMORYD_TOKEN is not a valid JWT (a malformed claim)") from None
    return claims, True


# --- consent ----------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class ConsentRecord:
    owner: str
    consent: Consent
    version: int

    def wire(self) -> schema.ConsentOut:
        return schema.ConsentOut(
            owner=self.owner,
            read=self.consent.read,
            contribute=self.consent.contribute,
            learn_from_tools=self.consent.learn_from_tools,
            version=self.version,
        )


def read_consent(tx: Tx, owner: str) -> ConsentRecord:
    try:
        row = tx.one("SELECT * FROM consent WHERE owner = ?", (owner,))
    except apsw.Error:
        # Fail closed: nothing is guessed when the authority cannot answer.
        raise Unavailable("consent_authority_unavailable") from None
    if row is None:
        return ConsentRecord(owner, Consent(False, False, False), 0)
    return ConsentRecord(
        owner,
        Consent(bool(row["read"]), bool(row["contribute"]), bool(row["learn_from_tools"])),
        int(row["version"]),
    )


def set_consent(tx: Tx, owner: str, p: schema.ConsentSet, now: str) -> ConsentRecord:
    current = read_consent(tx, owner)
    if p.version != current.version:
        raise Conflict("revision_conflict", details={"current_version": current.version})
    new = Consent(
        current.consent.read if p.read is None else p.read,
        current.consent.contribute if p.contribute is None else p.contribute,
        current.consent.learn_from_tools if p.learn_from_tools is None else p.learn_from_tools,
    )
    version = current.version + 1
    tx.exec(
        "INSERT INTO consent(owner, read, contribute, learn_from_tools, version, updated_at)"
        " VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT(owner) DO UPDATE SET read = excluded.read,"
        " contribute = excluded.contribute, learn_from_tools = excluded.learn_from_tools,"
        " version = excluded.version, updated_at = excluded.updated_at",
        (owner, int(new.read), int(new.contribute), int(new.learn_from_tools), version, now),
    )
    tx.audit(
        "consent_changed", now, subject=audit_subject(owner, channel="control", role="operator"),
        capability="ConsentManage",
        details={
            "owner": owner, "version": version, "read": new.read,
            "contribute": new.contribute, "learn_from_tools": new.learn_from_tools,
        },
    )
    return ConsentRecord(owner, new, version)


# --- agent tokens -----------------------------------------------------------


@dataclass(frozen=True, slots=True)
class TokenGrant:
    token_id: str
    owner: str
    scopes: tuple[str, ...] | None


def issue_token(
    tx: Tx, hasher: KeyedHasher, p: schema.TokenIssue, now_dt: Any
) -> schema.TokenIssued:
    token = "mdt_" + secrets.token_urlsafe(32)
    token_id = random_id("tok")
    owner = owner_of(hasher, p.identity)
    now = fmt(now_dt)
    expires_at = fmt(plus(now_dt, seconds=p.expires_in)) if p.expires_in else None
    tx.exec(
        "INSERT INTO tokens(token_id, token_hash, owner, kind, scopes, created_at, expires_at)"
        " VALUES (?, ?, ?, ?, ?, ?, ?)",
        (token_id, hasher.token(token), owner, p.identity.kind,
         dumps(p.scopes) if p.scopes else None, now, expires_at),
    )
    if p.label is not None:
        tx.exec("INSERT INTO token_labels(token_id, label) VALUES (?, ?)", (token_id, p.label))
    tx.audit(
        "token_issued", now, subject=audit_subject(owner, channel="control", role="operator"),
        capability="GovernanceDecide", details={"token_id": token_id, "owner": owner},
    )
    return schema.TokenIssued(token=token, token_id=token_id, owner=owner, expires_at=expires_at,
                              label=p.label)


def list_tokens(tx: Tx, owner: str | None, now: str) -> list[schema.TokenItem]:
    sql = ("SELECT t.token_id, owner, kind, scopes, created_at, expires_at, revoked_at, label"
           " FROM tokens t LEFT JOIN token_labels l ON l.token_id = t.token_id")
    rows = tx.all(sql + (" WHERE owner = ?" if owner else "") + " ORDER BY created_at",
                  (owner,) if owner else ())
    out = []
    for row in rows:
        state: Literal["active", "revoked", "expired"] = "active"
        if row["revoked_at"]:
            state = "revoked"
        elif row["expires_at"] and row["expires_at"] <= now:
            state = "expired"
        out.append(schema.TokenItem(
            token_id=row["token_id"], owner=row["owner"], kind=row["kind"],
            scopes=loads(row["scopes"]), created_at=row["created_at"],
            expires_at=row["expires_at"], revoked_at=row["revoked_at"], state=state,
            label=row["label"],
        ))
    return out


def revoke_token(tx: Tx, token_id: str, now: str) -> schema.TokenRevoked:
    row = tx.one("SELECT owner, revoked_at FROM tokens WHERE token_id = ?", (token_id,))
    if row is None:
        raise NotFound("not_found")
    if row["revoked_at"] is None:
        tx.exec("UPDATE tokens SET revoked_at = ? WHERE token_id = ?", (now, token_id))
        tx.audit(
            "token_revoked", now,
            subject=audit_subject(row["owner"], channel="control", role="operator"),
            capability="GovernanceDecide", details={"token_id": token_id},
        )
    return schema.TokenRevoked(token_id=token_id, revoked=True)


def token_grant(tx: Tx, hasher: KeyedHasher, token: str, now: str) -> TokenGrant:
    row = tx.one(
        "SELECT token_id, owner, scopes, expires_at, revoked_at FROM tokens WHERE token_hash = ?",
        (hasher.token(token),),
    )
    if row is None or row["revoked_at"] is not None or (
        row["expires_at"] is not None and parse(row["expires_at"]) <= parse(now)
    ):
        raise Denied("policy_denied", details={"reason": "token_not_accepted"})
    scopes = loads(row["scopes"])
    return TokenGrant(row["token_id"], row["owner"], tuple(scopes) if scopes else None)
