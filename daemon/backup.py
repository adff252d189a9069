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
  failed backup removes what it made;
- without ``keys/`` a copy cannot verify its content hashes or keep signing
  checkpoints under the same key, so keys are always part of it;
- the path is the operator's own (``control.sock`` is the operator); it is
  never written to the store, the audit chain or the log.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path
from typing import Annotated, Any

import anyio
import apsw
import msgspec
import structlog
from msgspec import Meta

from memoryd.daemon.home import Home
from memoryd.kernel.errors import Denied
from memoryd.rpc.errors import InvalidParams
from memoryd.rpc.protocol import CallContext, Handler

log = structlog.get_logger()

# Files of a home that belong in a backup besides memory.db and keys/.
CONFIG_FILES = ("memoryd.toml", "policy.toml")


class BackupParams(msgspec.Struct, frozen=True, forbid_unknown_fields=True, kw_only=True):
    path: Annotated[str, Meta(min_length=1, max_length=4_096, pattern=r"^[^\x00]+$")]


class BackupRefused(Exception):
    """The destination cannot take a backup; the message says why."""


def _fsync_dir(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _fsync_file(path: Path) -> None:
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
                head = (int(seq), str(hsh))
            # Leave a self-contained file: no -wal beside it to lose in a copy.
            out.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchall()
        finally:
            out.close()
    finally:
        src.close()
    return head


def make_backup(home: Home, dest: Path) -> dict[str, Any]:
    if not dest.is_absolute():
        raise BackupRefused("the backup path must be absolute")
    if os.path.lexists(dest):
        raise BackupRefused("the backup path already exists; give a new folder")
    if not dest.parent.is_dir():
        raise BackupRefused("the backup path's parent folder does not exist")
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
                _fsync_file(dest / "keys" / key.name)
                files.append(f"keys/{key.name}")
        for name in CONFIG_FILES:
            if (home.path / name).is_file() and not (home.path / name).is_symlink():
                shutil.copyfile(home.path / name, dest / name)
                os.chmod(dest / name, 0o600)
                _fsync_file(dest / name)
                files.append(name)
        _fsync_file(dest / "memory.db")
        _fsync_dir(dest / "keys")
        _fsync_dir(dest)
    except BaseException:
        shutil.rmtree(dest, ignore_errors=True)
        raise
    size = sum((dest / f).stat().st_size for f in files)
    return {"path": str(dest), "files": files, "bytes": size,
            "audit": {"seq": seq, "hash": hsh}}


def methods(home: Home) -> list[tuple[str, type, Handler]]:
    """The ``(name, params, handler)`` row for ``App.extra_methods``."""

    async def admin_backup(ctx: CallContext, p: BackupParams) -> Any:
        if ctx.channel != "control":
            # Absent from the agent table; this is the second wall.
            raise Denied("channel_forbidden")
        try:
            result = await anyio.to_thread.run_sync(make_backup, home, Path(p.path))
        except BackupRefused as exc:
            raise InvalidParams([{"path": "$.path", "expected": str(exc)}]) from None
        log.info("backup_created", audit_seq=result["audit"]["seq"], bytes=result["bytes"])
        return result

    return [("admin.backup", BackupParams, admin_backup)]
