"""Signed checkpoints, start-up verification and the integrity methods.

Owns: taking checkpoints (every ``checkpoint.every_events`` events or
``checkpoint.every_seconds``, on request, and at shutdown), keeping them
(the ``checkpoints`` table plus ``HOME/last_checkpoint.json``), verifying the
chain against the newest one at start and on ``audit.verify``, clearing the
store's ``degraded`` state only when that verification passes, and the
handlers of ``audit.checkpoint``, ``audit.verify`` and ``memory.verify``.

Invariants:
- a checkpoint is only ever taken over a chain the daemon trusts: while the
  store is degraded (a failed commit, a broken chain) no checkpoint is signed,
  because signing would bless whatever is stored;
- a checkpoint row and the ``checkpoint`` audit event that records it commit
  in one transaction; the file copy is written after that commit, atomically,
  so it never names a head the database has not durably reached;
- the newest checkpoint (from the table or the file, whichever is further)
  is the reference: a chain that does not pass through it (edited, truncated,
  rolled back, or a database file swapped for an older copy while the file
  copy stayed) is broken, and governed writes are refused until it verifies;
- nothing here returns or logs memory text: ids, hashes, counts only.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import anyio
import msgspec
import structlog

from memoryd.audit.chain import ChainHead, VerifyResult
from memoryd.audit.checkpoint import (
    Checkpoint,
    decode_checkpoint,
    encode_checkpoint,
    public_key_of,
    sign_checkpoint,
    verify_checkpoint_signature,
)
from memoryd.audit.event import AuditError
from memoryd.audit.keyed import KeyedHasher
from memoryd.audit.packing import unpack_hash, unpack_rows
from memoryd.daemon.clock import Clock, fmt
from memoryd.daemon.config import CheckpointConfig
from memoryd.daemon.home import Home, HomeError, read_private, signing_key
from memoryd.daemon.pipeline.entries import content_hash
from memoryd.daemon.storage.store import Store, Tx
from memoryd.kernel.errors import Denied
from memoryd.rpc import schema
from memoryd.rpc.errors import InvalidParams
from memoryd.rpc.protocol import CallContext, MethodSpec

log = structlog.get_logger()

CHECKPOINT_FILE = "last_checkpoint.json"
# The periodic task wakes this often at most; the thresholds decide whether
# a checkpoint is due, the poll only bounds how late it can be.
POLL_SECONDS = 1.0



class MemoryVerify(msgspec.Struct, frozen=True, forbid_unknown_fields=True, kw_only=True):
    """``memory.verify`` params: one owner's entries, or every entry without ``identity``."""

    identity: schema.Identity | None = None


class _Touched(msgspec.Struct):
    # The only event fields memory.verify needs; msgspec skips the rest.
    kind: str
    entry_ids: list[str] = msgspec.field(default_factory=list)
    revisions: list[int] = msgspec.field(default_factory=list)
    content_hashes: list[str] = msgspec.field(default_factory=list)


_TOUCHED = msgspec.json.Decoder(_Touched)


def _head(cp: Checkpoint) -> ChainHead:
    return ChainHead(seq=cp.seq, hash=cp.hash)


def _wire(cp: Checkpoint) -> schema.CheckpointOut:
    return schema.CheckpointOut(seq=cp.seq, hash=cp.hash, ts=cp.ts, signature=cp.signature,
                                public_key=cp.public_key)


def _verified(result: VerifyResult, checkpoint: schema.CheckpointRef | None
              ) -> schema.AuditVerified:
    return schema.AuditVerified(
        ok=result.ok, checked=result.checked, first_bad_seq=result.first_bad_seq,
        head=schema.ChainHeadOut(seq=result.head.seq, hash=result.head.hash),
        reason=result.reason, checkpoint=checkpoint)


@dataclass
class Checkpointer:
    store: Store
    home: Home
    clock: Clock
    config: CheckpointConfig
    private_key: bytes
    last: Checkpoint | None = None
    verified: bool = True
    _last_at: float = field(default_factory=time.monotonic)

    @property
    def public_key(self) -> bytes:
        return public_key_of(self.private_key)

    @property
    def file(self) -> Path:
        return self.home.path / CHECKPOINT_FILE

    # -- keeping ----------------------------------------------------------------

    def _stored(self) -> tuple[Checkpoint | None, bool]:
        """The newest kept checkpoint and whether every kept copy is genuine."""
        genuine = True
        found: list[Checkpoint] = []
        # On a store several daemons share, each signs with its own key and
        # another's checkpoint is no reference: this daemon's own newest. On
        # a home's own store any row not signed by its key is tampering.
        columns = "SELECT seq, hash, ts, signature, public_key FROM checkpoints"
        mine = self.public_key.hex()
        shared = self.store.sharing == "multi-host"
        rows = self.store.run_sync(lambda tx: tx.all(
            columns + " WHERE public_key = ? ORDER BY seq DESC LIMIT 1", (mine,)) if shared
            else tx.all(columns + " ORDER BY seq DESC LIMIT 1"), write=False)
        if rows:
            found.append(Checkpoint(**rows[0]))
        try:
            found.append(decode_checkpoint(read_private(self.file)))
        except FileNotFoundError:
            pass
        except (OSError, AuditError, HomeError):
            genuine = False
        good = []
        for cp in found:
            try:
                verify_checkpoint_signature(cp, self.public_key)
            except AuditError:
                # A copy that is not ours (or altered) is itself tampering:
                # fail closed rather than fall back to an older reference.
                genuine = False
                continue
            good.append(cp)
        newest = max(good, key=lambda cp: cp.seq, default=None)
        return newest, genuine

    def _write_file(self, cp: Checkpoint) -> None:
        tmp = self.file.with_suffix(".tmp")
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_CLOEXEC | os.O_NOFOLLOW,
                     0o600)
        try:
            os.write(fd, encode_checkpoint(cp) + b"\n")
            os.fsync(fd)
        finally:
            os.close(fd)
        os.replace(tmp, self.file)
        dfd = os.open(self.home.path, os.O_RDONLY)
        try:
            os.fsync(dfd)
        finally:
            os.close(dfd)

    def take(self, reason: str) -> Checkpoint:
        """Sign the current head, keep it, and record it as an audit event.

        Raises ``Unavailable("store_unavailable")`` while the store is degraded
        (the store refuses the write transaction).
        """
        ts = fmt(self.clock.now())
        key = self.private_key

        def run(tx: Tx) -> Checkpoint:
            # The transaction's own head is the true newest event (the store may
            # commit several jobs together; its committed head can lag).
            cp = sign_checkpoint(key, tx.head, ts)
            tx.exec("INSERT OR REPLACE INTO checkpoints(seq, hash, ts, signature, public_key)"
                    " VALUES (?, ?, ?, ?, ?)", (cp.seq, cp.hash, cp.ts, cp.signature,
                                                cp.public_key))
            tx.audit("checkpoint", ts, details={"checkpoint_seq": cp.seq,
                                                "checkpoint_hash": cp.hash, "reason": reason})
            return cp

        cp = self.store.run_sync(run)
        self._write_file(cp)
        self.last = cp
        self._last_at = time.monotonic()
        log.info("checkpoint_taken", seq=cp.seq, hash=cp.hash, reason=reason)
        return cp

    # -- verifying --------------------------------------------------------------

    def verify_at_start(self) -> VerifyResult:
        """Walk the whole chain through the newest checkpoint; degrade the store if broken.

        The walk starts at the first event, not at the checkpoint: a walk from
        the checkpoint alone would miss an edit made before it.
        """
        last, genuine = self._stored()
        self.last = last
        result = self.store.verify_audit(None if last is None else _head(last))
        if not genuine and result.ok:
            result = VerifyResult(ok=False, checked=result.checked, first_bad_seq=None,
                                  head=result.head, reason="bad_signature")
        self.verified = bool(result.ok)
        if result.ok:
            self.store.degraded = None
            log.info("audit_verified", seq=result.head.seq,
                     checkpoint_seq=None if last is None else last.seq)
        else:
            self.store.degraded = "audit_chain_broken"
            log.error("audit_chain_broken", first_bad_seq=result.first_bad_seq,
                      reason=result.reason,
                      checkpoint_seq=None if last is None else last.seq,
                      note="governed writes are refused until the chain verifies")
        return result

    def verify(self, given: Checkpoint | None) -> schema.AuditVerified:
        """``audit.verify``: against ``given`` if any, else the newest kept checkpoint.

        When the store is degraded and the chain verifies through the daemon's
        own newest checkpoint, governed writes are allowed again.
        """
        own, genuine = self._stored()
        reference = given if given is not None else own
        if given is not None:
            try:
                verify_checkpoint_signature(given, self.public_key)
            except AuditError as exc:
                return _verified(VerifyResult(
                    ok=False, checked=0, first_bad_seq=None, head=self.store.head,
                    reason=exc.reason), schema.CheckpointRef(seq=given.seq, hash=given.hash,
                                                             source="given"))
        result: VerifyResult = self.store.verify_audit(
            None if reference is None else _head(reference))
        if result.ok and given is None and not genuine:
            result = VerifyResult(ok=False, checked=result.checked, first_bad_seq=None,
                                  head=result.head, reason="bad_signature")
        out = _verified(result, None if reference is None else schema.CheckpointRef(
            seq=reference.seq, hash=reference.hash,
            source="given" if given is not None else "daemon"))
        if result.ok and self.store.degraded is not None and genuine:
            recovered = self.store.try_recover(None if own is None else _head(own))
            out.recovered = recovered
            if recovered:
                self.verified = True
                log.info("store_recovered", seq=self.store.head.seq)
        if not result.ok:
            log.warning("audit_verify_failed", first_bad_seq=result.first_bad_seq,
                        reason=result.reason)
        return out

    # -- periodic ---------------------------------------------------------------

    def due(self) -> bool:
        last_seq = 0 if self.last is None else self.last.seq
        # After a checkpoint the head is its own event (last_seq + 1): nothing new.
        new = self.store.head.seq - last_seq - (0 if self.last is None else 1)
        if new <= 0 or self.store.degraded is not None:
            return False
        if new >= self.config.every_events:
            return True
        return time.monotonic() - self._last_at >= self.config.every_seconds

    async def run_periodic(self) -> None:
        poll = min(POLL_SECONDS, self.config.every_seconds)
        while True:
            await anyio.sleep(poll)
            if not self.due():
                continue
            try:
                await anyio.to_thread.run_sync(self.take, "periodic")
            except Exception as exc:  # noqa: BLE001 (a failed checkpoint must not end the loop)
                log.warning("checkpoint_failed", exc_type=type(exc).__name__)

    def at_shutdown(self) -> None:
        """The final checkpoint; skipped (and logged) while the store is degraded."""
        if self.store.degraded is not None:
            log.warning("shutdown_checkpoint_skipped", reason=self.store.degraded)
            return
        try:
            self.take("shutdown")
        except Exception as exc:  # noqa: BLE001 (shutdown goes on; the log says why)
            log.warning("shutdown_checkpoint_failed", exc_type=type(exc).__name__)

    def status(self) -> dict[str, Any]:
        return {"last_checkpoint": None if self.last is None else
                {"seq": self.last.seq, "hash": self.last.hash, "ts": self.last.ts},
                "verified": self.verified and self.store.degraded != "audit_chain_broken"}


def start(store: Store, home: Home, clock: Clock,
          config: CheckpointConfig) -> Checkpointer:
    """Load the signing key and verify the chain before any socket exists."""
    checkpointer = Checkpointer(store=store, home=home, clock=clock, config=config,
                                private_key=signing_key(home))
    checkpointer.verify_at_start()
    return checkpointer


# -- memory.verify ----------------------------------------------------------------


def verify_entries(tx: Tx, hasher: KeyedHasher, owner: str | None) -> schema.EntriesVerified:
    """Recompute each entry's keyed content hash and compare it with its last audit event.

    The reference for an entry is the last event that lists it with a
    revision and a content hash side by side (``operation``, ``undo``): that
    is the content the chain says the entry holds. An entry is a mismatch when
    it has no such event, when its stored ``content_hash`` differs from the
    audited one, or when its text no longer hashes to it. A removed entry has
    no text left to hash; for it the text must be gone and the stored hash
    must still match.
    """
    audited: dict[str, str] = {}
    head = tx.one("SELECT seq, hash FROM audit ORDER BY seq DESC LIMIT 1")
    chain = ((r["seq"], r["body"], r["hash"]) for r in
             tx.rows("SELECT seq, body, hash FROM audit ORDER BY seq"))
    for stored in unpack_rows(chain):
        try:
            event = _TOUCHED.decode(stored.body)
        except msgspec.DecodeError:
            continue  # chain damage is audit.verify's to report; here it is "no reference"
        ids = event.entry_ids
        if ids and len(ids) == len(event.revisions) == len(event.content_hashes):
            for entry_id, chash in zip(ids, event.content_hashes, strict=True):
                audited[entry_id] = chash
    columns = "SELECT id, type, title, summary, body, status, content_hash FROM entries"
    rows = (tx.all(columns + " ORDER BY id") if owner is None
            else tx.all(columns + " WHERE owner = ? ORDER BY id", (owner,)))
    checked = 0
    mismatches: list[str] = []
    for row in rows:
        checked += 1
        expected = audited.get(row["id"])
        if row["status"] == "removed":
            good = (expected is not None and row["content_hash"] == expected
                    and not row["title"] and not row["body"] and not row["summary"])
        else:
            actual = content_hash(hasher, row["type"], row["title"], row["summary"], row["body"])
            good = expected is not None and actual == expected == row["content_hash"]
        if not good:
            mismatches.append(row["id"])
    return schema.EntriesVerified(
        checked=checked, mismatches=mismatches,
        audit_head=schema.ChainHeadOut(seq=head["seq"] if head else 0,
                                       hash=unpack_hash(head["hash"]) if head else "0" * 64))


# -- methods ------------------------------------------------------------------------


def _channel_wall(ctx: CallContext) -> None:
    # These methods are absent from the agent table; this is the second wall.
    if ctx.channel != "control":
        raise Denied("channel_forbidden")


def _given(raw: dict[str, Any] | None) -> Checkpoint | None:
    if raw is None:
        return None
    try:
        return msgspec.convert(raw, Checkpoint, strict=True)
    except msgspec.ValidationError:
        raise InvalidParams([{"path": "$.checkpoint",
                              "expected": "checkpoint {seq, hash, ts, signature, public_key}"}]
                            ) from None


def methods(checkpointer: Checkpointer, hasher: KeyedHasher,
            owner_of: Callable[[schema.Identity], str],
            govern: Callable[[CallContext], Any] | None = None,
            ) -> list[MethodSpec]:
    """The methods this module serves (control.sock only).

    ``govern(ctx)`` is the authorization gate's GovernanceDecide question; it
    raises unless the kernel allows (a policy rule can deny these too).
    """

    def _control_only(ctx: CallContext) -> None:
        _channel_wall(ctx)
        if govern is not None:
            govern(ctx)

    async def audit_checkpoint(ctx: CallContext, p: schema.NoParams) -> schema.CheckpointOut:
        _control_only(ctx)
        cp = await anyio.to_thread.run_sync(checkpointer.take, "requested")
        return _wire(cp)

    async def audit_verify(ctx: CallContext, p: schema.AuditVerify) -> schema.AuditVerified:
        _control_only(ctx)
        given = _given(p.checkpoint)
        return await anyio.to_thread.run_sync(checkpointer.verify, given)

    async def memory_verify(ctx: CallContext, p: MemoryVerify) -> schema.EntriesVerified:
        _control_only(ctx)
        owner = None if p.identity is None else owner_of(p.identity)
        return await checkpointer.store.run(
            lambda tx: verify_entries(tx, hasher, owner), write=False)

    return [
        MethodSpec("audit.checkpoint", schema.NoParams, audit_checkpoint, schema.CheckpointOut),
        MethodSpec("audit.verify", schema.AuditVerify, audit_verify, schema.AuditVerified),
        MethodSpec("memory.verify", MemoryVerify, memory_verify, schema.EntriesVerified),
    ]
