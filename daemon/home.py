"""The daemon's home folder: layout, permissions, the single-instance lock, keys.

Owns: creating ``HOME`` and ``HOME/run`` (0700; with an agent group the server
opens both to 0710 for that group, traverse only, once the config is read),
``HOME/keys`` (0700, files 0600), the lock file held for the process's
lifetime, and the per-home root secret and checkpoint signing key.

Invariants:
- the process umask is 077 before anything is created, so no file or socket
  ever exists with wider modes, even for an instant;
- a second daemon on the same home fails to take the lock and exits non-zero;
- secrets are created once and never overwritten;
- a home that already exists is trusted only if it and everything in it
  belongs to the daemon's uid, is writable by nobody else, and holds no
  symbolic link; otherwise start-up is refused with one line saying what to
  fix (nothing is repaired or changed behind the operator's back);
- every file of the home is opened with ``O_NOFOLLOW``: a link planted after
  start is refused, never followed;
- key files are checked for their exact length before use.
"""

from __future__ import annotations

import errno
import fcntl
import os
import stat
from dataclasses import dataclass
from pathlib import Path

from memoryd.audit.checkpoint import generate_signing_key
from memoryd.audit.keyed import ROOT_SECRET_BYTES, new_root_secret

# A raw Ed25519 private key.
SIGNING_KEY_BYTES = 32


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


# How many names under an existing home are checked before start (a home
# holds a handful; a huge tree is refused rather than walked for minutes).
MAX_HOME_ENTRIES = 10_000

_FIX = "chmod go-w / chown it to this user, or remove it"


def _check_one(path: Path, st: os.stat_result, uid: int) -> None:
    if stat.S_ISLNK(st.st_mode):
        raise HomeError(f"{path} is a symbolic link inside the home; memoryd never follows "
                        "links there: remove it")
    if st.st_uid != uid:
        raise HomeError(f"{path} belongs to another user (uid {st.st_uid}); {_FIX}")
    if stat.S_ISSOCK(st.st_mode):
        return  # our own sockets (0660 with agent_group); stale ones are replaced
    if st.st_mode & 0o022:
        raise HomeError(f"{path} is writable by group or others (mode "
                        f"{stat.S_IMODE(st.st_mode):o}); {_FIX}")


def check_existing(path: Path) -> None:
    """Refuse a home that someone else could have planted files in."""
    uid = os.geteuid()
    _check_one(path, path.lstat(), uid)
    seen = 0
    for folder, dirs, files in os.walk(path, followlinks=False):
        for name in (*dirs, *files):
            seen += 1
            if seen > MAX_HOME_ENTRIES:
                raise HomeError(f"{path} holds more than {MAX_HOME_ENTRIES} files; "
                                "is this really a memoryd home?")
            entry = Path(folder) / name
            _check_one(entry, entry.lstat(), uid)


def prepare(path: Path) -> Home:
    """Create the layout with private modes. Call after ``os.umask(0o077)``."""
    home = Home(path.expanduser().absolute())
    if os.path.lexists(home.path):
        check_existing(home.path)
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
        try:
            fd = os.open(self._path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC | os.O_NOFOLLOW,
                         0o600)
        except OSError as exc:
            raise HomeError(f"{self._path} cannot be opened ({exc.strerror}); "
                            "it must be a plain file, not a link") from None
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


def read_private(path: Path) -> bytes:
    """A file of the home, opened without following a link (``O_NOFOLLOW``)."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC | os.O_NOFOLLOW)
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise HomeError(f"{path} is a symbolic link; memoryd never follows links in its "
                            "home: replace it with the file itself") from None
        raise
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise HomeError(f"{path} is not a regular file")
        chunks = []
        while chunk := os.read(fd, 65_536):
            chunks.append(chunk)
        return b"".join(chunks)
    finally:
        os.close(fd)


def _read_key(path: Path, size: int) -> bytes | None:
    try:
        data = read_private(path)
    except FileNotFoundError:
        return None
    if len(data) != size:
        raise HomeError(f"{path} must be exactly {size} bytes, found {len(data)}; restore it "
                        "from a backup of this home (memoryd never replaces a key)")
    return data


def _read_or_create(path: Path, make: object, size: int) -> bytes:
    existing = _read_key(path, size)
    if existing is not None:
        return existing
    data: bytes = make()  # type: ignore[operator]
    tmp = path.with_suffix(".tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_CLOEXEC | os.O_NOFOLLOW,
                 0o600)
    try:
        os.write(fd, data)
        os.fsync(fd)
    finally:
        os.close(fd)
    # link() refuses to overwrite: a key, once made, is never replaced.
    try:
        os.link(tmp, path)
    except FileExistsError:
        data = _read_key(path, size) or b""
    finally:
        tmp.unlink(missing_ok=True)
    dfd = os.open(path.parent, os.O_RDONLY)
    try:
        os.fsync(dfd)
    finally:
        os.close(dfd)
    return data


def root_secret(home: Home) -> bytes:
    return _read_or_create(home.keys / "secret", new_root_secret, ROOT_SECRET_BYTES)


def signing_key(home: Home) -> bytes:
    return _read_or_create(home.keys / "checkpoint.ed25519", generate_signing_key,
                           SIGNING_KEY_BYTES)


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
