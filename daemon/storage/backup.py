"""``admin.backup {path}``: a consistent copy of a running home (control only).

Owns: writing a backup folder that is itself a home — ``memory.db`` copied
with SQLite's online backup API, ``keys/`` (the keyed-hash secret and the
checkpoint signing key) and the optional ``memoryd.toml`` / ``policy.toml`` —
so restoring is ``memoryd serve --home BACKUP`` (or copying it into place).

Invariants:
- the database copy is one read snapshot taken on its own read-only
  connection: it holds every write committed before the snapshot began and
  none after, whatever is being written meanwhile, and the writer never waits
  for it (WAL readers do not block writers);
- the folder must not exist yet: a backup never overwrites or merges into
  anything; it is created 0700 and its files 0600 (the daemon's umask), and a
  failed backup removes what it made; missing parent folders are created
  (0700), as ``mkdir -p`` would, and are left in place;
- without ``keys/`` a copy cannot verify its content hashes or keep signing
  checkpoints under the same key, so keys are always part of it;
- the path is the operator's own (``control.sock`` is the operator); it is
  never written to the store, the audit chain or the log.

``admin.backup_verify {path}`` inspects a backup folder (or any stopped
home) without changing a byte of it: the database is opened read-only and
``immutable`` (no lock, no ``-wal``/``-shm`` made beside it), and the answer
holds counts, the audit head and what is missing, never memory text.
Serving a backup to look at it would write to it (schema, janitor, audit
events, checkpoints), which is exactly what inspecting must not do.
"""

from __future__ import annotations

import os
import re
import shutil
import urllib.parse
from pathlib import Path
from typing import Annotated, Any

import anyio
import apsw
import msgspec
import structlog
from msgspec import Meta

from memoryd.audit.chain import verify_chain
from memoryd.audit.packing import unpack_hash, unpack_rows
from memoryd.daemon.home import Home
from memoryd.kernel.errors import Denied, Unavailable
from memoryd.kernel.retention import ENTRY_STATUSES
from memoryd.rpc import schema
from memoryd.rpc.errors import InvalidParams
from memoryd.rpc.protocol import CallContext, MethodSpec

log = structlog.get_logger()

# Files of a home that belong in a backup besides memory.db and keys/.
CONFIG_FILES = ("memoryd.toml", "policy.toml")


class BackupParams(msgspec.Struct, frozen=True, forbid_unknown_fields=True, kw_only=True):
    path: Annotated[str, Meta(min_length=1, max_length=4_096, pattern=r"^[^\x00]+$")]


class BackupRefused(Exception):
    """The destination cannot take a backup; the message says why."""


def _fsync(path: Path) -> None:
    """Flush a file's or a directory's entries to disk (both open read-only)."""
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _copy_db(source: Path, dest: Path) -> tuple[int, str]:
    """Copy ``source`` into the new file ``dest`` in one read snapshot; return
    the copy's audit head (seq, hash)."""
    src = apsw.Connection(str(source), flags=apsw.SQLITE_OPEN_READONLY)
    try:
        src.set_busy_timeout(5_000)
        out = apsw.Connection(str(dest))
        try:
            # step(-1) copies every page in one step, so in one read
            # transaction of the source: one consistent snapshot.
            with out.backup("main", src, "main") as b:
                b.step(-1)
            head = (0, "")
            for seq, hsh in out.execute("SELECT seq, hash FROM audit ORDER BY seq DESC LIMIT 1"):
                head = (int(seq), str(unpack_hash(hsh)))
            # Leave a self-contained file: no -wal beside it to lose in a copy.
            out.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchall()
        finally:
            out.close()
    finally:
        src.close()
    return head


def _check_path(path: Path) -> None:
    if "\x00" in str(path):
        # The OS refuses such a path outright (ValueError, not OSError).
        raise BackupRefused("the backup path must not contain a NUL character")
    if not path.is_absolute():
        raise BackupRefused("the backup path must be absolute")


def make_backup(home: Home, dest: Path) -> schema.BackupMade:
    _check_path(dest)
    if os.path.lexists(dest):
        raise BackupRefused("the backup path already exists; give a new folder")
    try:
        dest.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    except FileExistsError:
        raise BackupRefused("a file is in the way of the backup path's parent folder") from None
    except OSError:
        raise BackupRefused("the daemon cannot create the backup path's parent folder") from None
    try:
        dest.mkdir(mode=0o700)
    except OSError:
        raise BackupRefused("the daemon cannot create that folder") from None
    try:
        seq, hsh = _copy_db(home.db, dest / "memory.db")
        files = ["memory.db"]
        (dest / "keys").mkdir(mode=0o700)
        for key in sorted(home.keys.iterdir()):
            # Never through a link (the home holds none at start; one planted
            # since is not followed).
            if key.is_file() and not key.is_symlink() and not key.name.endswith(".tmp"):
                shutil.copyfile(key, dest / "keys" / key.name)
                os.chmod(dest / "keys" / key.name, 0o600)
                _fsync(dest / "keys" / key.name)
                files.append(f"keys/{key.name}")
        for name in CONFIG_FILES:
            if (home.path / name).is_file() and not (home.path / name).is_symlink():
                shutil.copyfile(home.path / name, dest / name)
                os.chmod(dest / name, 0o600)
                _fsync(dest / name)
                files.append(name)
        _fsync(dest / "memory.db")
        _fsync(dest / "keys")
        _fsync(dest)
    except BaseException:
        shutil.rmtree(dest, ignore_errors=True)
        raise
    size = sum((dest / f).stat().st_size for f in files)
    return schema.BackupMade(path=str(dest), files=files, bytes=size,
                             audit=schema.ChainHeadOut(seq=seq, hash=hsh))


# What a home needs besides memory.db; without them it cannot verify or sign.
REQUIRED_KEYS = ("keys/secret", "keys/checkpoint.ed25519")


def _open_immutable(db: Path) -> apsw.Connection:
    uri = "file:" + urllib.parse.quote(str(db)) + "?mode=ro&immutable=1"
    conn = apsw.Connection(uri, flags=apsw.SQLITE_OPEN_READONLY | apsw.SQLITE_OPEN_URI)
    conn.execute("PRAGMA query_only=ON").fetchall()
    return conn


# What a memoryd store keeps in the columns the answer repeats: an entry's
# state, a checkpoint's sequence number, hex hash and UTC time.
_HASH = re.compile(r"[0-9a-f]{64}")
_TS = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}(?:\.[0-9]{1,9})?Z")
_SEQ_MAX = 2**63 - 1


def _state(status: Any) -> str:
    """An entry's state as the answer may name it; anything else (a hostile
    or foreign file's text) is a ``TypeError``, never repeated."""
    if status not in ENTRY_STATUSES:
        raise TypeError("entry state memoryd does not keep")
    return str(status)


def _checkpoint(seq: Any, hsh: Any, ts: Any) -> schema.Checkpointed:
    if not (type(seq) is int and 0 <= seq <= _SEQ_MAX and isinstance(hsh, str)
            and _HASH.fullmatch(hsh) and isinstance(ts, str) and _TS.fullmatch(ts)):
        raise TypeError("checkpoint row memoryd does not keep")
    return schema.Checkpointed(seq=seq, hash=hsh, ts=ts)


def _audit_row(seq: Any, body: Any, hsh: Any) -> tuple[int, bytes, str | bytes]:
    """One audit row as the chain's unpacker takes it; anything of another
    type (a hostile or foreign file) is a ``TypeError``."""
    if not (isinstance(seq, int) and isinstance(body, bytes) and isinstance(hsh, str | bytes)):
        raise TypeError("audit row of the wrong types")
    return seq, body, hsh


def inspect_backup(folder: Path) -> schema.BackupChecked:
    """What a backup folder holds and whether it is whole; changes nothing.

    ``problems`` lists what is wrong as short stable phrases; ``ok`` is true
    only when it is empty and the audit chain verifies."""
    _check_path(folder)
    if not folder.is_dir():
        raise BackupRefused("there is no folder at the backup path")
    db = folder / "memory.db"
    if not db.is_file():
        raise BackupRefused("the folder holds no memory.db: it is not a backup")
    problems: list[str] = []
    files = ["memory.db"]
    for name in (*REQUIRED_KEYS, *CONFIG_FILES):
        if (folder / name).is_file():
            files.append(name)
        elif name in REQUIRED_KEYS:
            problems.append(f"{name} is missing")
    wal = folder / "memory.db-wal"
    if wal.is_file() and wal.stat().st_size > 0:
        # An immutable reader ignores the WAL: what it reports would not be
        # what the folder holds. A memctl backup never leaves one.
        problems.append("memory.db-wal is not empty (a copy of a running home?)")
    try:
        conn = _open_immutable(db)
    except apsw.Error:
        raise BackupRefused("memory.db cannot be opened as a database") from None
    try:
        try:
            check = [str(r[0]) for r in conn.execute("PRAGMA quick_check")]
            if check != ["ok"]:
                problems.append("memory.db fails SQLite's integrity check")
            version = [str(r[0]) for r in conn.execute(
                "SELECT value FROM meta WHERE key = 'schema_version'")]
            counts = {_state(status): int(n) for status, n in conn.execute(
                "SELECT status, count(*) FROM entries GROUP BY status ORDER BY status")}
            pending_rows: list[Any] = conn.execute(
                "SELECT count(*) FROM actions WHERE status = 'pending'").fetchall()
            pending = int(pending_rows[0][0])
            cps: list[Any] = conn.execute(
                "SELECT seq, hash, ts FROM checkpoints ORDER BY seq DESC LIMIT 1").fetchall()
            rows = (_audit_row(seq, body, hsh) for seq, body, hsh in conn.execute(
                "SELECT seq, body, hash FROM audit ORDER BY seq"))
            chain = verify_chain(unpack_rows(rows))
            schema_version = int(version[0]) if version else None
            last_cp = None if not cps else _checkpoint(*cps[0])
        except (apsw.Error, ValueError, TypeError):
            # The folder may hold anything: a file that is a database but not
            # one of ours (wrong column types) is refused like a foreign one.
            raise BackupRefused("memory.db is not a memoryd store") from None
    finally:
        conn.close()
    if not chain.ok:
        problems.append(f"the audit chain does not verify at seq {chain.first_bad_seq}")
    return schema.BackupChecked(
        path=str(folder), ok=not problems, problems=problems, files=files,
        schema_version=schema_version, counts=counts, pending_actions=pending,
        audit=schema.BackupAudit(
            verified=chain.ok, checked=chain.checked, first_bad_seq=chain.first_bad_seq,
            reason=chain.reason, seq=chain.head.seq, hash=chain.head.hash,
            last_checkpoint=last_cp),
    )


def methods(home: Home, backend: str) -> list[MethodSpec]:
    """The methods this module serves (control.sock only). ``backend`` is the
    home's store: a backup copies a SQLite file, so on PostgreSQL it is refused
    (pg_dump backs that store up)."""

    async def admin_backup_verify(ctx: CallContext, p: BackupParams) -> schema.BackupChecked:
        if ctx.channel != "control":
            raise Denied("channel_forbidden")
        try:
            return await anyio.to_thread.run_sync(inspect_backup, Path(p.path))
        except BackupRefused as exc:
            raise InvalidParams([{"path": "$.path", "expected": str(exc)}]) from None

    async def admin_backup(ctx: CallContext, p: BackupParams) -> schema.BackupMade:
        if ctx.channel != "control":
            # Absent from the agent table; this is the second wall.
            raise Denied("channel_forbidden")
        if backend != "sqlite":
            raise Unavailable("backup_unsupported")
        try:
            result = await anyio.to_thread.run_sync(make_backup, home, Path(p.path))
        except BackupRefused as exc:
            raise InvalidParams([{"path": "$.path", "expected": str(exc)}]) from None
        log.info("backup_created", audit_seq=result.audit.seq, bytes=result.bytes)
        return result

    return [MethodSpec("admin.backup", BackupParams, admin_backup, schema.BackupMade),
            MethodSpec("admin.backup_verify", BackupParams, admin_backup_verify,
                       schema.BackupChecked)]
