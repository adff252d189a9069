"""Black-box: a home memoryd did not make is not trusted, and bad key files are
reported in one line.

A pre-created home is refused when it, or anything in it, is writable by
group or others, belongs to another user, or is a symbolic link; the daemon
exits non-zero with one line naming what to fix, and changes nothing. A key
file of the wrong length or a link is named, without a traceback.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.harness import MEMORYD, REPO, Daemon, short_tempdir


@pytest.fixture
def root() -> Iterator[Path]:
    path = short_tempdir()
    try:
        yield path
    finally:
        shutil.rmtree(path, ignore_errors=True)


def serve(home: Path) -> subprocess.CompletedProcess[str]:
    """Start ``memoryd serve`` expecting it to refuse (it exits on its own)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("MEMORYD_")}
    env["PYTHONPATH"] = str(REPO)
    return subprocess.run(
        [*MEMORYD, "serve", "--home", str(home)],
        capture_output=True,
        text=True,
        env=env,
        cwd=REPO,
        timeout=60,
        check=False,
    )


def refused(out: subprocess.CompletedProcess[str], *words: str) -> None:
    assert out.returncode != 0, out.stderr
    lines = [line for line in out.stderr.splitlines() if line.startswith("memoryd:")]
    assert len(lines) == 1, out.stderr
    assert "Traceback" not in out.stderr
    for word in words:
        assert word in lines[0], lines[0]


def test_a_home_writable_by_others_is_refused(root: Path) -> None:
    home = root / "h"
    home.mkdir()
    os.chmod(home, 0o777)  # noqa: S103 - the planted home under test
    refused(serve(home), str(home), "chmod")
    assert not (home / "memory.db").exists()


def test_a_group_writable_file_in_the_home_is_refused(root: Path) -> None:
    home = root / "h"
    home.mkdir(mode=0o700)
    (home / "policy.toml").write_text("")
    os.chmod(home / "policy.toml", 0o666)  # noqa: S103 - the planted file under test
    refused(serve(home), "policy.toml")


def test_a_planted_lock_symlink_is_refused_and_its_target_kept(root: Path) -> None:
    home = root / "h"
    home.mkdir(mode=0o700)
    victim = root / "victim.txt"
    victim.write_text("precious")
    (home / "memoryd.lock").symlink_to(victim)
    refused(serve(home), "memoryd.lock", "link")
    assert victim.read_text() == "precious"


def test_a_planted_database_symlink_is_refused(root: Path) -> None:
    home = root / "h"
    home.mkdir(mode=0o700)
    other = root / "other.db"
    other.write_bytes(b"")
    (home / "memory.db").symlink_to(other)
    refused(serve(home), "memory.db")
    assert other.read_bytes() == b""


@pytest.mark.skipif(
    os.geteuid() != 0, reason="planting a file as another uid needs root (CI runs as root)"
)
def test_files_planted_by_another_user_are_refused(root: Path) -> None:
    home = root / "h"
    home.mkdir(mode=0o700)
    planted = home / "memoryd.toml"
    planted.write_text("allowed_uids = [65534]\n")
    os.chmod(planted, 0o600)
    os.chown(planted, 65534, 65534)
    refused(serve(home), "memoryd.toml", "another user")
    assert not (home / "run").exists()


@pytest.mark.sqlite_only(
    "a PostgreSQL home holds its [store] section in memoryd.toml before"
    " the daemon starts, so it is never fresh"
)
def test_a_fresh_home_is_created_private(root: Path) -> None:
    d = Daemon.__new__(Daemon)  # only for its paths; the daemon makes the home itself
    home = root / "fresh"
    Daemon.__init__(d, home)
    home.rmdir()
    d.start()
    try:
        assert (home.stat().st_mode & 0o777) == 0o700
    finally:
        d.stop()


@pytest.mark.parametrize(
    ("content", "words"),
    [
        (b"short", ["keys/secret", "32 bytes"]),
        (b"x" * 64, ["keys/secret", "32 bytes"]),
    ],
)
def test_a_malformed_secret_is_one_line(root: Path, content: bytes, words: list[str]) -> None:
    home = root / "h"
    (home / "keys").mkdir(parents=True, mode=0o700)
    os.chmod(home, 0o700)
    (home / "keys" / "secret").write_bytes(content)
    os.chmod(home / "keys" / "secret", 0o600)
    refused(serve(home), *words)


def test_a_secret_that_is_a_link_is_one_line(root: Path) -> None:
    home = root / "h"
    (home / "keys").mkdir(parents=True, mode=0o700)
    os.chmod(home, 0o700)
    target = root / "elsewhere"
    target.write_bytes(b"k" * 32)
    (home / "keys" / "secret").symlink_to(target)
    refused(serve(home), "secret", "link")


def test_a_malformed_signing_key_is_one_line(root: Path) -> None:
    home = root / "h"
    (home / "keys").mkdir(parents=True, mode=0o700)
    os.chmod(home, 0o700)
    (home / "keys" / "checkpoint.ed25519").write_bytes(b"bad")
    os.chmod(home / "keys" / "checkpoint.ed25519", 0o600)
    refused(serve(home), "checkpoint.ed25519", "32 bytes")
