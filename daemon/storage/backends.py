"""Which primary store a daemon opens, from ``[store]`` in memoryd.toml.

Owns: choosing the backend, and fetching the PostgreSQL password from where
the operator put it (an environment variable, or a file only its owner may
read) into the connection string given to the driver, and nowhere else.

Invariants:
- the password is never logged, never part of an error or of ``memory.status``;
  a password file that others may read is refused, like the home's key files;
- nothing falls back to the home's SQLite file when PostgreSQL is configured.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from memoryd.daemon.config import Config, StoreConfig


class BackendError(Exception):
    """The configured store cannot be opened; the message never holds the DSN or password."""


def password(store: StoreConfig, env: Mapping[str, str], home: Path) -> str | None:
    """The password ``store`` names, or None when it names none (trust, peer or .pgpass)."""
    if store.password_env is not None:
        value = env.get(store.password_env)
        if not value:
            raise BackendError(f"store.password_env names {store.password_env},"
                               " which is not set")
        return value
    if store.password_file is None:
        return None
    path = Path(store.password_file).expanduser()
    if not path.is_absolute():
        path = home / path
    try:
        fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC | os.O_NOFOLLOW)
    except OSError:
        raise BackendError("store.password_file cannot be opened as a plain file") from None
    with os.fdopen(fd, "rb") as fh:
        mode = os.fstat(fh.fileno()).st_mode
        if mode & (stat.S_IRWXG | stat.S_IRWXO):
            raise BackendError("store.password_file must be readable by its owner only"
                               " (chmod 600)")
        text = fh.read().decode("utf-8", "replace").strip()
    if not text:
        raise BackendError("store.password_file is empty")
    return text


def open_store(config: Config, db: Path, home: Path, env: Mapping[str, str]) -> Any:
    """The store ``config`` asks for: the SQLite file ``db``, or PostgreSQL.

    psycopg is imported only here, for PostgreSQL: a daemon installed
    without the ``postgresql`` extra runs on SQLite as before."""
    if config.store.backend == "sqlite":
        from memoryd.daemon.storage.store import SqliteStore

        return SqliteStore(db, synchronous=config.synchronous)
    from psycopg.conninfo import make_conninfo

    from memoryd.daemon.storage.store import StoreVersionError
    from memoryd.daemon.storage.store_pg import PostgresStore

    assert config.store.dsn is not None  # config.py requires it for this backend
    secret = password(config.store, env, home)
    conninfo = (make_conninfo(config.store.dsn, password=secret) if secret is not None
                else config.store.dsn)
    try:
        return PostgresStore(conninfo, schema=config.store.schema,
                             connect_timeout=config.store.connect_timeout_s)
    except StoreVersionError as exc:  # its messages name no DSN and no password
        raise BackendError(str(exc)) from None


KEY_CHECK_LABEL = b"memoryd shared store: root secret check"


def check_shared_secret(store: Any, mac: Any) -> None:
    """Refuse a daemon whose root secret differs from the one a shared database was made with.

    Owners, token hashes and cursors are keyed by the home's root secret: a
    second daemon with another secret would see none of the first one's
    memory and could not verify its tokens. The database keeps a MAC of a
    fixed label under the secret (never the secret); the first daemon writes
    it, every later one must match it. Only for stores shared between hosts.
    """
    if store.sharing != "multi-host":
        return
    check = mac(KEY_CHECK_LABEL).hex()

    def settle(tx: Any) -> str | None:
        row = tx.one("SELECT value FROM meta WHERE key = 'root_secret_check'")
        if row is None:
            tx.exec("INSERT INTO meta(key, value) VALUES ('root_secret_check', ?)", (check,))
            return None
        return str(row["value"])

    found = store.run_sync(settle, governed=False)
    if found is not None and found != check:
        raise BackendError(
            "this database is shared by daemons with another root secret: copy keys/secret"
            " from a home that already serves it (docs/postgresql.md), then start again")
