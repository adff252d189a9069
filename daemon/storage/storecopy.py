"""Copy a stopped SQLite home's memory into a fresh PostgreSQL schema (``memoryd copy-store``).

Owns: moving every row a daemon on PostgreSQL serves from (memory, revisions,
operations, pending actions, receipts, tasks, tokens, consent, teams,
checkpoints and the audit chain) out of ``HOME/memory.db`` into a schema
PostgresStore's own schema code makes, and proving afterwards that it did.

Invariants:
- the home is stopped: the copy holds the home's instance lock, so no daemon
  serves it while it runs;
- one transaction: the schema is made and filled in it; a failure leaves the
  database as it was;
- a target schema that holds any table is refused, never merged into;
- audit rows are copied as they are stored (audit/packing.py's form), so the
  chain, its hashes and its checkpoints verify the same on PostgreSQL;
- the copy is verified after COMMIT from the database: row counts per table,
  the chain head equal to the home's, and the whole chain walked;
- the summary holds table names, counts and the chain head only: no memory
  text, no DSN, no password.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import msgspec

from memoryd.audit.chain import EMPTY_HEAD, ChainHead, verify_chain
from memoryd.audit.packing import unpack_rows
from memoryd.daemon import home as home_mod
from memoryd.daemon.config import ConfigError, StoreConfig, load_config
from memoryd.daemon.storage.backends import BackendError, password
from memoryd.daemon.storage.seam import NEWEST_AUDIT_ROW, head_of

# The tables copied row for row, in an order that satisfies team_members'
# reference. Left out on purpose: scope_usage and search_index (the entries
# trigger rebuilds them on insert), meta's schema_version (the target's own),
# vectors and their queue (the entries trigger queues every active entry as it
# arrives, and the target's daemons embed them again), projection tables (the
# first sender on the target seeds its outbox from the entries), and the
# entries columns _LOCAL_ONLY names.
TABLES: tuple[str, ...] = (
    "consent", "tokens", "token_labels", "tasks", "snapshot_cards", "entries", "revisions",
    "operations", "actions", "idempotency", "receipts", "teams", "team_members",
    "checkpoints", "audit", "extract_jobs", "extract_transcripts",
)


class CopyError(Exception):
    """The copy was refused or failed; the message names no DSN, password or text."""


class Summary(msgspec.Struct, frozen=True, kw_only=True):
    schema: str
    rows: dict[str, int]
    audit_head: ChainHead
    audit_checked: int
    verified: bool


def _source_tables(db: sqlite3.Connection) -> set[str]:
    return {str(r[0]) for r in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}


# Columns of the SQLite file that PostgreSQL's table does not have: how the
# file keeps a row, not what the row says. ``entries.key`` is the lexical
# index's rowid, and the other columns keep what a row's generated columns
# (listed by table_xinfo) read: those values, ``summary``, ``basis``, the
# times and ``content_hash``, are what is copied.
_LOCAL_ONLY: dict[str, frozenset[str]] = {"entries": frozenset({
    "key", "summary_text", "basis_text", "updated_text", "renewed_text", "content_key",
    "status_text"})}


def _columns(db: sqlite3.Connection, table: str) -> list[str]:
    skip = _LOCAL_ONLY.get(table, frozenset())
    return [str(r[1]) for r in db.execute(f"PRAGMA table_xinfo({table})")  # names from TABLES
            if str(r[1]) not in skip]


def conninfo(dsn: str, store: StoreConfig, env: Mapping[str, str], home: Path) -> str:
    """``dsn`` with the password ``store`` names; a password in ``dsn`` itself is refused."""
    from psycopg.conninfo import conninfo_to_dict, make_conninfo

    try:
        parts = conninfo_to_dict(dsn)
    except Exception:  # noqa: BLE001 (the driver's message may quote the DSN)
        raise CopyError("--to is not a PostgreSQL connection string") from None
    if parts.get("password"):
        raise CopyError("--to must not hold a password; use --password-env or --password-file")
    try:
        secret = password(store, env, home)
    except BackendError as exc:
        raise CopyError(str(exc).replace("store.password_", "--password-")) from None
    return make_conninfo(dsn, password=secret) if secret is not None else dsn


def copy_home(home_path: Path, target: str, schema: str) -> Summary:
    """Copy ``home_path``'s SQLite store into ``schema`` on ``target`` (a full conninfo)."""
    import psycopg
    from psycopg.rows import dict_row

    from memoryd.daemon.storage.pg_schema import SCHEMA_NAME, install

    if not SCHEMA_NAME.match(schema):
        raise CopyError("--schema must be a lower-case SQL name")
    home = home_mod.prepare(home_path)
    lock = home_mod.InstanceLock(home)
    try:
        lock.acquire()
    except home_mod.HomeError:
        raise CopyError("the home is being served: stop its memoryd first") from None
    try:
        try:
            if load_config(home.path).store.backend != "sqlite":
                raise CopyError("the home's [store] is not SQLite: nothing to copy from")
        except ConfigError as exc:
            raise CopyError(str(exc)) from None
        if not home.db.exists():
            raise CopyError("the home has no memory.db to copy")
        db = sqlite3.connect(f"file:{home.db}?mode=ro", uri=True)
        try:
            present = _source_tables(db)
            head = head_of(db.execute(NEWEST_AUDIT_ROW))
            try:
                conn = psycopg.connect(target, row_factory=dict_row, connect_timeout=10)
            except psycopg.Error:
                raise CopyError("the PostgreSQL database cannot be reached"
                                " (check --to and that the server runs)") from None
            with conn:
                counts = _fill(conn, db, present, schema, head, install)
        except psycopg.Error as exc:
            # The driver's message may quote a row's values: name the table only.
            raise CopyError(f"the copy failed at table {getattr(exc, 'memoryd_table', '?')}"
                            f" ({type(exc).__name__}); nothing was written") from None
        finally:
            db.close()
    finally:
        lock.release()
    return _verify(target, schema, counts, head)


def _fill(conn: Any, db: sqlite3.Connection, present: set[str], schema: str,
          head: ChainHead, install: Any) -> dict[str, int]:
    counts: dict[str, int] = {}
    current = ["schema"]
    try:
        _fill_in(conn, db, present, schema, head, install, counts, current)
    except Exception as exc:
        exc.memoryd_table = current[0]  # type: ignore[attr-defined]
        raise
    return counts


def _fill_in(conn: Any, db: sqlite3.Connection, present: set[str], schema: str,
             head: ChainHead, install: Any, counts: dict[str, int], current: list[str]) -> None:
    with conn.transaction():
        taken = conn.execute("SELECT count(*) AS n FROM pg_tables WHERE schemaname = %s",
                             (schema,)).fetchone()
        if taken and taken["n"]:
            raise CopyError(f"schema {schema} already holds tables: copy into a new one")
        install(conn, schema)
        conn.execute(f'SET LOCAL search_path TO "{schema}"')  # validated name
        for table in TABLES:
            if table not in present:
                counts[table] = 0
                continue
            current[0] = table
            names = _columns(db, table)
            cols = ", ".join(names)
            marks = ", ".join(["%s"] * len(names))
            n = 0
            with conn.cursor() as cur:
                # Table names come from TABLES, column names from the file's own schema.
                rows = db.execute(f"SELECT {cols} FROM {table}")  # noqa: S608
                while batch := rows.fetchmany(500):
                    cur.executemany(
                        f"INSERT INTO {table}({cols}) VALUES ({marks})", batch)  # noqa: S608
                    n += len(batch)
            counts[table] = n
        for key, value in db.execute("SELECT key, value FROM meta WHERE key <> 'schema_version'"):
            conn.execute("INSERT INTO meta(key, value) VALUES (%s, %s)"
                         " ON CONFLICT(key) DO UPDATE SET value = excluded.value", (key, value))
        conn.execute("UPDATE audit_head SET seq = %s, hash = %s WHERE id = 1",
                     (head.seq, head.hash))


def _verify(target: str, schema: str, counts: dict[str, int], head: ChainHead) -> Summary:
    import psycopg
    from psycopg.rows import dict_row

    with psycopg.connect(target, row_factory=dict_row, connect_timeout=10) as conn, \
            conn.transaction():
        conn.execute("SET TRANSACTION READ ONLY, ISOLATION LEVEL REPEATABLE READ")
        conn.execute(f'SET LOCAL search_path TO "{schema}"')  # validated name
        found: dict[str, int] = {}
        for t in TABLES:
            counted = conn.execute(f"SELECT count(*) AS n FROM {t}").fetchone()  # noqa: S608
            found[t] = int(counted["n"]) if counted else -1
        row = conn.execute("SELECT seq, hash FROM audit_head WHERE id = 1").fetchone()
        stored = EMPTY_HEAD if row is None else ChainHead(seq=row["seq"], hash=row["hash"])
        walk = verify_chain(unpack_rows((r["seq"], r["body"], r["hash"]) for r in
                                        conn.execute("SELECT seq, body, hash FROM audit"
                                                     " ORDER BY seq")))
    ok = found == counts and stored == head and walk.ok and walk.head == head
    if not ok:
        raise CopyError("the copy does not verify: row counts or the audit chain differ;"
                        f" drop schema {schema} and copy again")
    return Summary(schema=schema, rows=found, audit_head=head, audit_checked=walk.checked,
                   verified=True)
