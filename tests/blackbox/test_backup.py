"""``admin.backup`` / ``memctl backup``: a consistent copy of a running home.

The copy is taken while threads keep writing; it is then served by a second
daemon, whose audit chain must verify, whose content hashes must match (the
keys came along) and which must hold every write acknowledged before the
backup was asked for.
"""

from __future__ import annotations

import shutil
import threading
from pathlib import Path
from typing import Any

import apsw
import msgspec
import pytest

from memoryd.rpc.client import Client, RpcError
from tests.harness import Daemon, entry, short_tempdir

WRITERS = 3


class Load:
    """Threads writing through control.sock until told to stop; each
    acknowledged entry id is kept in order."""

    def __init__(self, d: Daemon) -> None:
        self.d = d
        self.stop = threading.Event()
        self.lock = threading.Lock()
        self.acked: list[str] = []
        self.errors: list[BaseException] = []
        self.threads = [threading.Thread(target=self.write, args=(n,)) for n in range(WRITERS)]

    def write(self, n: int) -> None:
        try:
            with self.d.control() as c:
                i = 0
                while not self.stop.is_set():
                    result = c.call(
                        "memory.write",
                        {
                            "action": "add",
                            "scope": f"load-{n}",
                            "entry": entry(
                                title=f"note {n}-{i}", body=f"Load note {n} {i}.", type_="fact"
                            ),
                        },
                    )
                    with self.lock:
                        self.acked.append(result["entries"][0]["id"])
                    i += 1
        except BaseException as exc:  # noqa: BLE001 (reported by the test)
            self.errors.append(exc)

    def acknowledged(self) -> list[str]:
        with self.lock:
            return list(self.acked)

    def wait_for(self, count: int) -> None:
        while len(self.acknowledged()) < count and not self.errors:
            self.stop.wait(0.01)

    def __enter__(self) -> Load:
        for t in self.threads:
            t.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop.set()
        for t in self.threads:
            t.join()


def read_all(c: Client, ids: list[str]) -> list[dict[str, Any]]:
    found: list[dict[str, Any]] = []
    for start in range(0, len(ids), 10):
        found.extend(c.call("memory.read", {"ids": ids[start : start + 10]})["entries"])
    return found


def test_backup_under_write_load_restores_to_a_verified_home(d: Daemon) -> None:
    dest = short_tempdir() / "copy"
    try:
        with Load(d) as load:
            load.wait_for(30)
            before = load.acknowledged()
            with d.control() as c:
                result = c.call("admin.backup", {"path": str(dest)})
            load.wait_for(len(before) + 10)
        assert not load.errors
        assert {"memory.db", "keys/secret"} <= set(result["files"])

        restored = Daemon(dest).start()
        try:
            with restored.control() as c:
                assert c.call("audit.verify", {})["ok"] is True
                assert c.call("memory.verify", {})["mismatches"] == []
                assert {e["id"] for e in read_all(c, before)} == set(before)
                status = c.call("memory.status", {})
            assert status["audit"]["seq"] >= result["audit"]["seq"]
        finally:
            restored.stop()
    finally:
        shutil.rmtree(dest.parent, ignore_errors=True)


def test_memctl_backup_writes_a_home_with_its_keys(d: Daemon) -> None:
    dest = short_tempdir() / "copy"
    try:
        done = d.memctl("backup", str(dest), "--json")
        assert done.returncode == 0, done.stderr
        result = msgspec.json.decode(done.stdout)
        assert result["path"] == str(dest)
        assert (dest / "keys" / "secret").read_bytes() == (d.home / "keys" / "secret").read_bytes()
        assert (dest.stat().st_mode & 0o777) == 0o700
        assert ((dest / "memory.db").stat().st_mode & 0o777) == 0o600
    finally:
        shutil.rmtree(dest.parent, ignore_errors=True)


def test_backup_refuses_an_existing_path_and_leaves_it_alone(d: Daemon) -> None:
    folder = short_tempdir()
    marker = folder / "keep.txt"
    marker.write_text("mine")
    try:
        with d.control() as c, pytest.raises(RpcError) as refused:
            c.call("admin.backup", {"path": str(folder)})
        assert refused.value.code == -32602
        assert refused.value.errors[0]["path"] == "$.path"
        assert sorted(p.name for p in folder.iterdir()) == ["keep.txt"]
        assert marker.read_text() == "mine"
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def test_backup_is_not_on_the_agent_socket(d: Daemon) -> None:
    dest = Path(short_tempdir()) / "copy"
    try:
        with d.agent() as a, pytest.raises(RpcError) as refused:
            a.call("admin.backup", {"path": str(dest)})
        assert refused.value.code == -32601
        assert not dest.exists()
    finally:
        shutil.rmtree(dest.parent, ignore_errors=True)


# --- folders that do not exist yet, refusals in memctl's words, inspection ----------


def _snapshot(folder: Path) -> dict[str, tuple[bytes, int, int]]:
    """Every file under ``folder``: its bytes, mode and mtime (ns)."""
    return {
        p.relative_to(folder).as_posix(): (p.read_bytes(), p.stat().st_mode, p.stat().st_mtime_ns)
        for p in sorted(folder.rglob("*"))
        if p.is_file()
    }


def test_memctl_backup_creates_missing_parent_folders(d: Daemon) -> None:
    root = short_tempdir()
    dest = root / "backups" / "weekly" / "memoryd-1"
    try:
        done = d.memctl("backup", str(dest))
        assert done.returncode == 0, done.stderr
        assert (dest / "memory.db").is_file() and (dest / "keys" / "secret").is_file()
        assert (root / "backups").stat().st_mode & 0o777 == 0o700
        out = done.stdout.decode()
        assert f"backed up to {dest}" in out and "{" not in out
    finally:
        shutil.rmtree(root, ignore_errors=True)


def test_a_refused_backup_says_why_in_memctl_terms(d: Daemon) -> None:
    folder = short_tempdir()
    try:
        done = d.memctl("backup", str(folder))
        assert done.returncode == 1
        err = done.stderr.decode()
        assert f"memctl backup: cannot back up to {folder}: the backup path already exists" in err
        assert "what to do: give a new folder" in err
        for wire in ("data.errors", "invalid_params", "$.path", "params"):
            assert wire not in err
    finally:
        shutil.rmtree(folder, ignore_errors=True)


@pytest.fixture(scope="module")
def backup(d: Daemon) -> Any:
    root = short_tempdir()
    with d.control() as c:
        c.call(
            "memory.write",
            {
                "action": "add",
                "scope": "inspect",
                "entry": entry(title="kept", body="Kept in the backup.", type_="fact"),
            },
        )
    done = d.memctl("backup", str(root / "b"))
    assert done.returncode == 0, done.stderr
    yield root / "b"
    shutil.rmtree(root, ignore_errors=True)


def test_backup_verify_inspects_without_changing_a_byte(d: Daemon, backup: Path) -> None:
    before = _snapshot(backup)
    names_before = sorted(p.name for p in backup.rglob("*"))
    done = d.memctl("backup", "verify", str(backup), "--json")
    assert done.returncode == 0, done.stderr
    report = msgspec.json.decode(done.stdout)
    assert report["ok"] is True and report["problems"] == []
    assert report["audit"]["verified"] is True and report["audit"]["seq"] > 0
    assert report["counts"]["active"] >= 1 and report["schema_version"] >= 1
    assert {"memory.db", "keys/secret", "keys/checkpoint.ed25519"} <= set(report["files"])
    assert _snapshot(backup) == before
    assert sorted(p.name for p in backup.rglob("*")) == names_before  # no -wal, -shm, lock
    human = d.memctl("backup", "verify", str(backup))
    assert human.returncode == 0 and ": ok" in human.stdout.decode()
    assert "Kept in the backup." not in human.stdout.decode() + done.stdout.decode()


def test_backup_verify_fails_on_a_changed_audit_event(d: Daemon, backup: Path) -> None:
    broken = short_tempdir() / "broken"
    try:
        shutil.copytree(backup, broken)
        conn = apsw.Connection(str(broken / "memory.db"))
        conn.execute("UPDATE audit SET hash = randomblob(32) WHERE seq = 2")  # another hash
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchall()
        conn.close()
        (broken / "keys" / "secret").unlink()
        done = d.memctl("backup", "verify", str(broken))
        assert done.returncode == 1
        out = done.stdout.decode()
        assert "NOT OK" in out and "the audit chain does not verify at seq 2" in out
        assert "keys/secret is missing" in out
    finally:
        shutil.rmtree(broken.parent, ignore_errors=True)


def test_backup_verify_of_a_folder_that_is_no_backup_says_so(d: Daemon) -> None:
    folder = short_tempdir()
    try:
        done = d.memctl("backup", "verify", str(folder))
        assert done.returncode == 1
        err = done.stderr.decode()
        assert f"cannot inspect {folder}: the folder holds no memory.db" in err
        assert "data.errors" not in err
    finally:
        shutil.rmtree(folder, ignore_errors=True)
