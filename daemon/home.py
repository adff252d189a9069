"""The daemon's home folder: layout, permissions, the single-instance lock, keys.

Owns: creating ``HOME`` and ``HOME/run`` (0700; with an agent group the server
opens both to 0710 for that group, traverse only, once the config is read),
``HOME/keys`` (0700, files 0600), the lock file held for the process's
lifetime, and the per-home root secret and checkpoint signing key.

Invariants:
- the process umask is 077 before anything is created, so no file or socket
  ever exists with wider modes, even for an instant;
- a second daemon on the same home fails to take the lock and exits non-zero;
- secrets are created once and never overwritten.
"""

from __future__ import annotations

import fcntl
import os
import stat
from dataclasses import dataclass
from pathlib import Path

from memoryd.audit.checkpoint import generate_signing_key
from memoryd.audit.keyed import new_root_secret


class HomeError(Exception):
    """The home folder cannot be used; the message says why in plain words."""


@dataclass(frozen=True)
class Home:
    path: Path

    @property
    def run(self) -> Path:
        return self.path / "run"

    @property
    def keys(self) -> Path:
        return self.path / "keys"

    @property
    def db(self) -> Path:
        return self.path / "memory.db"

    @property
    def policy(self) -> Path:
        return self.path / "policy.toml"

    @property
    def agent_socket(self) -> Path:
        return self.run / "agent.sock"

    @property
    def control_socket(self) -> Path:
        return self.run / "control.sock"


def prepare(path: Path) -> Home:
    """Create the layout with private modes. Call after ``os.umask(0o077)``."""
    home = Home(path.expanduser().absolute())
    for folder in (home.path, home.run, home.keys):
        folder.mkdir(mode=0o700, parents=True, exist_ok=True)
        st = folder.lstat()
        if not stat.S_ISDIR(st.st_mode):
            raise HomeError(f"{folder} is not a folder")
        if st.st_uid != os.geteuid():
            raise HomeError(f"{folder} belongs to another user")
        os.chmod(folder, 0o700)
    return home


class InstanceLock:
    """An advisory lock on ``HOME/memoryd.lock`` held until the process exits."""

    def __init__(self, home: Home) -> None:
        self._path = home.path / "memoryd.lock"
        self._fd: int | None = None

    def acquire(self) -> None:
        fd = os.open(self._path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(fd)
            raise HomeError(
                f"another memoryd is already serving {self._path.parent}"
            ) from None
        os.ftruncate(fd, 0)
        os.write(fd, f"{os.getpid()}\n".encode())
        self._fd = fd

    def release(self) -> None:
        if self._fd is not None:
            os.close(self._fd)
            self._fd = None


def _read_or_create(path: Path, make: object) -> bytes:
    try:
        return path.read_bytes()
    except FileNotFoundError:
        pass
    data: bytes = make()  # type: ignore[operator]
    tmp = path.with_suffix(".tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_CLOEXEC, 0o600)
    try:
        os.write(fd, data)
        os.fsync(fd)
    finally:
        os.close(fd)
    # link() refuses to overwrite: a key, once made, is never replaced.
    try:
        os.link(tmp, path)
    except FileExistsError:
        data = path.read_bytes()
    finally:
        tmp.unlink(missing_ok=True)
    dfd = os.open(path.parent, os.O_RDONLY)
    try:
        os.fsync(dfd)
    finally:
        os.close(dfd)
    return data


def root_secret(home: Home) -> bytes:
    return _read_or_create(home.keys / "secret", new_root_secret)


def signing_key(home: Home) -> bytes:
    return _read_or_create(home.keys / "checkpoint.ed25519", generate_signing_key)


# sockaddr_un.sun_path holds 108 bytes on Linux, one of them the final NUL.
_MAX_SOCKET_PATH = 107


def check_socket_paths(*paths: Path) -> None:
    """Make way for our sockets, or refuse to.

    A path that is not a socket (a file, a folder, a link) is refused and left
    alone; a stale socket (we hold the lock, so nobody serves it) is removed.
    Every path is checked before anything is removed, so a refusal changes
    nothing. A path too long for ``AF_UNIX`` is refused here in plain words
    rather than failing later inside ``bind``.
    """
    stale = []
    for path in paths:
        if len(os.fsencode(path)) > _MAX_SOCKET_PATH:
            raise HomeError(f"{path} is too long for a Unix socket path; use a shorter home")
        try:
            st = path.lstat()
        except FileNotFoundError:
            continue
        if not stat.S_ISSOCK(st.st_mode):
            raise HomeError(f"{path} exists and is not a socket; refusing to replace it")
        stale.append(path)
    for path in stale:
        path.unlink(missing_ok=True)
