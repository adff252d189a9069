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

import msgspec
import pytest

from memoryd.rpc.client import Client, RpcError
from tests.harness import Daemon, entry, running, short_tempdir

WRITERS = 3


@pytest.fixture(scope="module")
def d() -> Any:
    with running() as daemon:
        yield daemon


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
                    result = c.call("memory.write", {
                        "action": "add", "scope": f"load-{n}",
                        "entry": entry(title=f"note {n}-{i}", body=f"Load note {n} {i}.",
                                       type_="fact")})
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
        found.extend(c.call("memory.read", {"ids": ids[start:start + 10]})["entries"])
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
