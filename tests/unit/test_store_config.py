"""``[store]`` in memoryd.toml and the PostgreSQL password: refused shapes, and no echo."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from memoryd.daemon.config import ConfigError, StoreConfig, load_config
from memoryd.daemon.storage.backends import BackendError, password
from memoryd.daemon.storage.store_pg import translate

CANARY = "pw-canary-7f3a91"


def _load(tmp_path: Path, text: str) -> object:
    (tmp_path / "memoryd.toml").write_text(text)
    return load_config(tmp_path)


def test_postgresql_section_is_read(tmp_path: Path) -> None:
    config = _load(
        tmp_path,
        '[store]\nbackend = "postgresql"\ndsn = "host=db dbname=m"\npassword_env = "PGPW"\n',
    )
    assert config.store == StoreConfig(
        backend="postgresql",
        dsn="host=db dbname=m",  # type: ignore[attr-defined]
        password_env="PGPW",
    )


@pytest.mark.parametrize(
    "text",
    [
        '[store]\nbackend = "postgresql"\n',
        f'[store]\nbackend = "postgresql"\ndsn = "postgresql://u:{CANARY}@db/m"\n',
        f'[store]\nbackend = "postgresql"\ndsn = "host=db password={CANARY}"\n',
        f'[store]\nbackend = "sqlite"\ndsn = "host=db password={CANARY}"\n',
        '[store]\nbackend = "postgresql"\ndsn = "host=db"\n'
        'password_env = "A"\npassword_file = "f"\n',
        '[store]\nbackend = "postgresql"\ndsn = "host=db"\nschema = "Bad-Name"\n',
        f'[store]\nbackend = "{CANARY}"\n',
    ],
)
def test_bad_store_sections_are_refused_without_their_values(tmp_path: Path, text: str) -> None:
    with pytest.raises(ConfigError) as info:
        _load(tmp_path, text)
    assert CANARY not in str(info.value)
    assert "store" in str(info.value)


def test_projection_runs_on_postgresql(tmp_path: Path) -> None:
    config = _load(
        tmp_path,
        '[store]\nbackend = "postgresql"\ndsn = "host=db"\n'
        '[projection]\nmode = "shadow"\nendpoint = "http://127.0.0.1:9/x"\n'
        'credential_env = "T"\n',
    )
    assert config.store.backend == "postgresql" and config.projection.mode == "shadow"  # type: ignore[attr-defined]


def test_the_password_comes_from_the_named_variable(tmp_path: Path) -> None:
    store = StoreConfig(backend="postgresql", dsn="host=db", password_env="PGPW")
    assert password(store, {"PGPW": CANARY}, tmp_path) == CANARY
    with pytest.raises(BackendError) as info:
        password(store, {}, tmp_path)
    assert CANARY not in str(info.value)


def test_a_password_file_others_may_read_is_refused(tmp_path: Path) -> None:
    secret = tmp_path / "pw"
    secret.write_text(CANARY + "\n")
    store = StoreConfig(backend="postgresql", dsn="host=db", password_file="pw")
    os.chmod(secret, 0o600)
    assert password(store, {}, tmp_path) == CANARY
    os.chmod(secret, 0o640)
    with pytest.raises(BackendError) as info:
        password(store, {}, tmp_path)
    assert CANARY not in str(info.value)


@pytest.mark.parametrize(
    ("sqlite", "postgresql"),
    [
        ("SELECT * FROM entries WHERE id = ?", "SELECT * FROM entries WHERE id = %s"),
        ("SELECT 1 WHERE x LIKE '%a%' AND y = ?", "SELECT 1 WHERE x LIKE '%%a%%' AND y = %s"),
        (
            "INSERT OR IGNORE INTO embed_queue(entry_id) VALUES (?)",
            "INSERT INTO embed_queue(entry_id) VALUES (%s) ON CONFLICT DO NOTHING",
        ),
        (
            "INSERT OR REPLACE INTO meta(key, value) VALUES ('a', ?)",
            "INSERT INTO meta(key, value) VALUES ('a', %s)"
            " ON CONFLICT(key) DO UPDATE SET value = excluded.value",
        ),
        ("SELECT 1 FROM t WHERE (+status = 'active')", "SELECT 1 FROM t WHERE (status = 'active')"),
        (
            "SELECT 1 AS x FROM sqlite_master WHERE name = 'snapshot_cards'",
            "SELECT 1 AS x FROM pg_tables WHERE schemaname = current_schema()"
            " AND tablename = 'snapshot_cards'",
        ),
        (
            "SELECT s FROM tasks WHERE instr(snapshot, ?) > 0",
            "SELECT s FROM tasks WHERE strpos(snapshot, %s) > 0",
        ),
        (
            "UPDATE p SET a = CAST(a || ? AS BLOB), b = CAST(b || ? AS BLOB) WHERE id = ?",
            "UPDATE p SET a = a || %s, b = b || %s WHERE id = %s",
        ),
    ],
)
def test_the_dialect_seam_translates(sqlite: str, postgresql: str) -> None:
    assert translate(sqlite) == postgresql


def test_a_replace_on_a_table_without_a_declared_key_fails_loudly() -> None:
    with pytest.raises(KeyError):
        translate("INSERT OR REPLACE INTO nowhere(a) VALUES (?)")
