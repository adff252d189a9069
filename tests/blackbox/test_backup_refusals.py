"""A backup path or store memoryd cannot use is a clear refusal, never a crash or a half-made file.

On a real daemon over its sockets.
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

import pytest

from memoryd.rpc.client import Client, RpcError
from tests.blackbox.peer_daemon import DAEMON, refused  # noqa: F401 (DAEMON: the d fixture reads it)
from tests.harness import Daemon


@pytest.mark.parametrize("method", ["admin.backup", "admin.backup_verify"])
def test_a_backup_path_with_a_nul_byte_is_invalid_params(d: Daemon, c: Client, method: str) -> None:
    path = str(d.home.parent / "bk\x00canary-nul")
    err = refused(c.call, method, {"path": path})
    assert err.code == -32602
    assert "canary-nul" not in json.dumps(err.data)
    assert not (d.home.parent / "bk").exists()


def _hostile_store(folder: Path, audit_row: tuple[Any, Any, Any], version: str = "7") -> None:
    folder.mkdir()
    con = sqlite3.connect(folder / "memory.db")
    con.executescript(
        "CREATE TABLE meta(key, value); CREATE TABLE entries(status);"
        " CREATE TABLE actions(status); CREATE TABLE checkpoints(seq, hash, ts);"
        " CREATE TABLE audit(seq, body, hash);"
    )
    con.execute("INSERT INTO meta VALUES ('schema_version', ?)", (version,))
    con.execute("INSERT INTO audit VALUES (?, ?, ?)", audit_row)
    con.commit()
    con.close()


@pytest.mark.parametrize(
    ("name", "row", "version"),
    [
        ("text-seq", ("canary-seq", b"x", "h"), "7"),
        ("text-body", (1, "canary body", "h"), "7"),
        ("int-hash", (1, b"x", 5), "7"),
        ("text-version", (1, b"x", "h"), "canary-version"),
    ],
)
def test_backup_verify_of_a_hostile_store_is_a_clear_refusal(
    d: Daemon, c: Client, name: str, row: tuple[Any, Any, Any], version: str
) -> None:
    folder = d.home.parent / f"hostile-{name}"
    _hostile_store(folder, row, version)
    _refused_without_canary(c, folder)


def _refused_without_canary(c: Client, folder: Path) -> None:
    """``admin.backup_verify`` of ``folder`` refuses it, or reads as far as it
    can and says it is not a good backup; neither repeats its canary text."""
    try:
        out = c.call("admin.backup_verify", {"path": str(folder)})
    except RpcError as err:
        assert err.code == -32602, err.data
        assert "canary" not in json.dumps(err.data)
    else:
        assert out["ok"] is False
        assert "canary" not in json.dumps(out)


def test_backup_verify_names_no_text_of_a_hostile_stores_rows(d: Daemon, c: Client) -> None:
    # A database of the right tables whose rows hold text where memoryd keeps
    # states, hashes and times: the answer, or the refusal, repeats none of it.
    folder = d.home.parent / "hostile-rows"
    _hostile_store(folder, (1, b"x", "h"))
    con = sqlite3.connect(folder / "memory.db")
    con.execute("INSERT INTO entries VALUES ('canary-status')")
    con.execute(
        "INSERT INTO checkpoints VALUES (1180591620717411303424, 'canary-hash', 'canary-ts')"
    )
    con.commit()
    con.close()
    _refused_without_canary(c, folder)


@pytest.mark.sqlite_only(
    "memoryd's backup copies the SQLite store; a PostgreSQL home refuses it (test_pg_shared.py)"
)
def test_backup_verify_still_names_a_real_backups_last_checkpoint(d: Daemon, c: Client) -> None:
    cp = c.call("audit.checkpoint", {})
    dest = d.home.parent / "real-with-checkpoint"
    c.call("admin.backup", {"path": str(dest)})
    out = c.call("admin.backup_verify", {"path": str(dest)})
    assert out["ok"] is True, out["problems"]
    assert out["audit"]["last_checkpoint"]["seq"] >= cp["seq"]
