"""The store's schema version is read at every start.

A store of an older version is migrated in one transaction before anything
else runs; a store written by a newer memoryd is refused with one line, and
left exactly as it was.
"""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import apsw
import pytest

from memoryd.audit.packing import TAG_V1, TAG_V2, TAG_V3, row_of, unpack_rows
from memoryd.daemon.pipeline.writes import unpack_items
from memoryd.daemon.retrieval import text_index
from memoryd.daemon.storage.sqlite_schema import ENTRIES_V6, ENTRY_COLUMNS, SCHEMA_VERSION
from memoryd.rpc.client import Client, RpcError
from tests.harness import MEMORYD, Daemon, entry


def _set_version(db: Path, version: int) -> None:
    conn = apsw.Connection(str(db))
    try:
        conn.execute("UPDATE meta SET value = ? WHERE key = 'schema_version'", (str(version),))
    finally:
        conn.close()


def _rows(db: Path, sql: str) -> list[tuple[Any, ...]]:
    """Every row ``sql`` reads from the store file, opened read-only."""
    conn = apsw.Connection(str(db), flags=apsw.SQLITE_OPEN_READONLY)
    try:
        return [tuple(row) for row in conn.execute(sql)]
    finally:
        conn.close()


def _version(db: Path) -> int:
    return int(_rows(db, "SELECT value FROM meta WHERE key = 'schema_version'")[0][0])


def _serve(home: Path) -> subprocess.CompletedProcess[str]:
    """A ``memoryd serve`` expected to refuse the start and exit by itself."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("MEMORYD_")}
    return subprocess.run(
        [*MEMORYD, "serve", "--home", str(home)],
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
        check=False,
    )


def _first_start(home: Path) -> None:
    d = Daemon(home)
    d.start()
    try:
        with d.control() as c:
            c.call(
                "memory.write",
                {"target": "memory", "action": "add", "entry": entry(title="kept across starts")},
            )
    finally:
        d.stop()


def test_a_fresh_store_is_at_the_current_version(home: Path) -> None:
    _first_start(home)
    assert _version(home / "memory.db") == SCHEMA_VERSION


def test_a_store_of_a_newer_version_is_refused_in_one_line_and_left_alone(home: Path) -> None:
    _first_start(home)
    db = home / "memory.db"
    _set_version(db, SCHEMA_VERSION + 1)
    before = hashlib.sha256(db.read_bytes()).hexdigest()
    done = _serve(home)
    assert done.returncode != 0
    lines = [line for line in done.stderr.splitlines() if line.strip()]
    assert len(lines) == 1, done.stderr
    assert f"schema version {SCHEMA_VERSION + 1}" in lines[0]
    assert "Traceback" not in done.stderr
    assert hashlib.sha256(db.read_bytes()).hexdigest() == before
    assert _version(db) == SCHEMA_VERSION + 1


def test_a_store_without_a_version_is_refused(home: Path) -> None:
    _first_start(home)
    conn = apsw.Connection(str(home / "memory.db"))
    try:
        conn.execute("DELETE FROM meta WHERE key = 'schema_version'")
    finally:
        conn.close()
    done = _serve(home)
    assert done.returncode != 0
    assert "schema version" in done.stderr
    assert "Traceback" not in done.stderr


@contextmanager
def _reopened_as(home: Path, version: int, undo_sql: str) -> Iterator[Client]:
    """A store first written by this memoryd, taken back to ``version`` by
    ``undo_sql`` (what that version did not have), then served again."""
    _first_start(home)
    db = home / "memory.db"
    conn = apsw.Connection(str(db))
    try:
        conn.execute(undo_sql)
    finally:
        conn.close()
    _set_version(db, version)
    d = Daemon(home)
    d.start()
    try:
        with d.control() as c:
            assert [item["title"] for item in c.call("memory.list", {})["items"]] == [
                "kept across starts"
            ]
            yield c
            assert c.call("audit.verify", {})["ok"] is True
    finally:
        d.stop()
    assert _version(db) == SCHEMA_VERSION


def test_a_store_of_an_older_version_is_migrated_and_keeps_its_memory(home: Path) -> None:
    # Version 1 had no per-scope running totals: a store of that version is
    # brought up to date (the totals counted once) when it is opened.
    with _reopened_as(home, 1, "DROP TABLE scope_usage") as c:
        assert c.call("memory.status", {})["counts"]["active"] == 1


def test_a_store_from_before_teams_is_migrated_to_hold_them(home: Path) -> None:
    with _reopened_as(home, 4, "DROP TABLE team_members; DROP TABLE teams") as c:
        c.call("team.create", {"name": "ops"})
        assert [t["scope"] for t in c.call("team.list", {})["teams"]] == ["team:ops"]


# What version 11 added: each active entry's index terms per namespace
# (daemon/retrieval/postings.py). Every older version's form lacks them.
_BEFORE_11 = """
DROP TRIGGER entry_terms_ai; DROP TRIGGER entry_terms_au; DROP TRIGGER entry_terms_ad;
DROP TABLE entry_terms; DROP TABLE term_spaces;
"""


def test_a_version_10_store_gets_every_active_entrys_terms_once(home: Path) -> None:
    # Ranking reads an owner's terms from entry_terms: a store without them
    # gets them when opened, and its search finds what it held.
    with _reopened_as(home, 10, _BEFORE_11) as c:
        items = c.call("memory.list", {"query": "kept starts"})["items"]
        assert [i["title"] for i in items] == ["kept across starts"]
    db = home / "memory.db"
    [(title, summary, body)] = _rows(db, "SELECT title, summary, body FROM entries")
    held = dict(_rows(db, "SELECT term, tf FROM entry_terms"))
    assert held == text_index.entry_terms(title, summary, body, None, None)
    assert {"kept", "across", "start"} <= set(held)


def _as_version_3(db: Path) -> None:
    """Rewrite a current store in version 3's form: audit bodies as canonical
    JSON and hashes as hex text, and a revision row copying every entry's
    live revision (version 3 kept a second copy of each added entry's text)."""
    conn = apsw.Connection(str(db))
    try:
        with conn:
            conn.execute(_BEFORE_11)
            rows = conn.execute("SELECT seq, body, hash FROM audit ORDER BY seq").fetchall()
            for event in unpack_rows(rows):
                conn.execute(
                    "UPDATE audit SET body = ?, hash = ? WHERE seq = ?",
                    (event.body, event.hash, event.seq),
                )
            conn.execute(
                "INSERT OR REPLACE INTO revisions(entry_id, revision, type, title, body, summary,"
                " basis, validity, content_hash, created_at) SELECT id, revision, type, title,"
                " body, summary, basis, validity, content_hash, updated_at FROM entries"
            )
            conn.execute("CREATE INDEX entries_scope ON entries(owner, target, scope, status)")
            conn.execute("UPDATE meta SET value = '3' WHERE key = 'schema_version'")
    finally:
        conn.close()


def _audit_forms(db: Path) -> set[tuple[bytes, int]]:
    """(first body byte, hash length) of every audit row."""
    return {(bytes(body)[:1], len(hsh)) for body, hsh in _rows(db, "SELECT body, hash FROM audit")}


def _index_names(db: Path) -> set[str]:
    return {str(r[0]) for r in _rows(db, "SELECT name FROM sqlite_master WHERE type = 'index'")}


def _revision_rows(db: Path) -> int:
    return int(_rows(db, "SELECT count(*) FROM revisions")[0][0])


def test_a_version_3_store_is_packed_in_one_step_and_its_undo_still_restores(home: Path) -> None:
    db = home / "memory.db"
    d = Daemon(home)
    d.start()
    try:
        with d.control() as c:
            added = c.call(
                "memory.write",
                {"target": "memory", "action": "add", "entry": entry(title="first words")},
            )["entries"][0]
            replaced = c.call(
                "memory.write",
                {
                    "target": "memory",
                    "action": "replace",
                    "id": added["id"],
                    "expected_revision": 1,
                    "entry": entry(title="second words"),
                },
            )
            c.call(
                "memory.write",
                {"target": "memory", "action": "add", "entry": entry(title="only added")},
            )
    finally:
        d.stop()
    _as_version_3(db)
    assert _audit_forms(db) == {(b"{", 64)}
    d = Daemon(home)
    d.start()
    try:
        with d.control() as c:
            assert c.call("audit.verify", {})["ok"] is True
            # Packed in the migrations: no row keeps the verbose form (rows
            # written since the start take the V3 form).
            assert (TAG_V2, 32) in _audit_forms(db) <= {(TAG_V2, 32), (TAG_V3, 32)}
            # The copies of live revisions are gone; the replaced text stays
            # (the undo of the replace needs it).
            assert _revision_rows(db) == 1
            assert "entries_scope" not in _index_names(db)  # no query needed it
            undone = c.call("memory.undo", {"operation_id": replaced["operation_id"]})
            assert [e["title"] for e in undone["entries"]] == ["first words"]
            got = c.call("memory.read", {"ids": [added["id"]]})["entries"][0]
            assert (got["title"], got["revision"]) == ("first words", 3)
            assert c.call("audit.verify", {})["ok"] is True
    finally:
        d.stop()
    assert _version(db) == SCHEMA_VERSION == 13


def test_an_added_entry_keeps_no_second_copy_of_its_text(home: Path) -> None:
    _first_start(home)
    assert _revision_rows(home / "memory.db") == 0


def _table_names(db: Path) -> set[str]:
    return {str(r[0]) for r in _rows(db, "SELECT name FROM sqlite_master")}


def test_a_short_add_stores_its_text_once(home: Path) -> None:
    # A one-line body is its own summary: the file holds it once, not as a
    # body and again as a summary.
    text = "Quokkas nap under the eucalyptus after lunch, every day."
    d = Daemon(home)
    d.start()
    try:
        with d.control() as c:
            added = c.call(
                "memory.write",
                {"target": "memory", "action": "add", "entry": entry(title="Quokkas", body=text)},
            )
            assert added["entries"][0]["summary"] == text
    finally:
        d.stop()
    stored = b"".join(
        path.read_bytes() for path in (home / "memory.db", home / "memory.db-wal") if path.exists()
    )
    assert stored.count(text.encode()) == 1


# Version 5's entries table, its indexes and its lexical index, as that
# version's daemon/storage/store.py made them: the summary stored beside the body,
# the index keyed through search_keys and keeping token positions, and a
# unique index on active titles.
_V5_ENTRIES = """
CREATE TABLE entries_v5(
  id TEXT PRIMARY KEY, owner TEXT NOT NULL, target TEXT NOT NULL, scope TEXT NOT NULL,
  type TEXT NOT NULL, title TEXT NOT NULL, body TEXT NOT NULL, summary TEXT NOT NULL,
  status TEXT NOT NULL, revision INTEGER NOT NULL, source TEXT NOT NULL,
  eligible INTEGER NOT NULL, basis TEXT NOT NULL, validity TEXT, pinned INTEGER NOT NULL,
  created_at TEXT NOT NULL, updated_at TEXT NOT NULL, renewed_at TEXT NOT NULL,
  ttl_days REAL NOT NULL, expires_at TEXT NOT NULL, use_count INTEGER NOT NULL DEFAULT 0,
  last_used_at TEXT, superseded_by TEXT, content_hash TEXT NOT NULL,
  evidence_hash TEXT, archive_reason TEXT, status_at TEXT);
"""
_V5_SEARCH = """
CREATE UNIQUE INDEX entries_active_title
  ON entries(owner, target, scope, title) WHERE status = 'active';
CREATE INDEX entries_expiry ON entries(status, expires_at);
CREATE INDEX entries_listing ON entries(owner, title, id, target, scope, status, expires_at);
CREATE VIRTUAL TABLE entries_fts USING fts5(
  title, summary, body, content='', tokenize='porter unicode61 remove_diacritics 2');
INSERT INTO entries_fts(rowid, title, summary, body)
  SELECT s.key, memoryd_fts_text(e.title), memoryd_fts_text(e.summary),
  memoryd_fts_text(e.body) FROM entries AS e JOIN search_keys AS s ON s.entry_id = e.id;
CREATE TRIGGER entries_search_ai AFTER INSERT ON entries BEGIN
  INSERT INTO search_keys(entry_id) VALUES (new.id);
  INSERT INTO entries_fts(rowid, title, summary, body) VALUES (
    (SELECT key FROM search_keys WHERE entry_id = new.id), memoryd_fts_text(new.title),
    memoryd_fts_text(new.summary), memoryd_fts_text(new.body));
END;
CREATE TRIGGER entries_search_au AFTER UPDATE OF title, summary, body ON entries
BEGIN
  INSERT INTO entries_fts(entries_fts, rowid, title, summary, body) VALUES ('delete',
    (SELECT key FROM search_keys WHERE entry_id = old.id), memoryd_fts_text(old.title),
    memoryd_fts_text(old.summary), memoryd_fts_text(old.body));
  INSERT INTO entries_fts(rowid, title, summary, body) VALUES (
    (SELECT key FROM search_keys WHERE entry_id = new.id), memoryd_fts_text(new.title),
    memoryd_fts_text(new.summary), memoryd_fts_text(new.body));
END;
CREATE TRIGGER entries_search_ad AFTER DELETE ON entries BEGIN
  INSERT INTO entries_fts(entries_fts, rowid, title, summary, body) VALUES ('delete',
    (SELECT key FROM search_keys WHERE entry_id = old.id), memoryd_fts_text(old.title),
    memoryd_fts_text(old.summary), memoryd_fts_text(old.body));
  DELETE FROM search_keys WHERE entry_id = old.id;
  UPDATE snapshot_cards SET card = NULL, line = NULL WHERE entry_id = old.id;
END;
"""


def _as_version_5(db: Path) -> None:
    """Rewrite a current store in version 5's form (_V5_ENTRIES, _V5_SEARCH),
    every entry with the index key it has now."""
    cols = ", ".join(ENTRY_COLUMNS)
    conn = apsw.Connection(str(db))
    text_index.register(conn)
    try:
        with conn:
            conn.execute(_BEFORE_11)
            conn.execute(_V5_ENTRIES)
            conn.execute(
                f"INSERT INTO entries_v5({cols}, summary)"  # noqa: S608 (our names)
                f" SELECT {cols}, summary FROM entries"
            )
            conn.execute(
                "CREATE TABLE search_keys(key INTEGER PRIMARY KEY, entry_id TEXT NOT NULL UNIQUE)"
            )
            conn.execute("INSERT INTO search_keys(key, entry_id) SELECT key, id FROM entries")
            conn.execute("DROP TABLE entries")
            conn.execute("DROP TABLE entries_fts")
            conn.execute("ALTER TABLE entries_v5 RENAME TO entries")
            conn.execute(_V5_SEARCH)
            # Version 5 kept each journal item as an object with its keys.
            for op_id, items in conn.execute(
                "SELECT operation_id, items FROM operations"
            ).fetchall():
                conn.execute(
                    "UPDATE operations SET items = ? WHERE operation_id = ?",
                    (json.dumps(unpack_items(items)), op_id),
                )
            # Version 5 packed every audit row on its own (audit/packing.py's V1).
            rows = conn.execute("SELECT seq, body, hash FROM audit ORDER BY seq").fetchall()
            for event in unpack_rows(rows):
                seq, packed, _hash = row_of(event)
                conn.execute("UPDATE audit SET body = ? WHERE seq = ?", (packed, seq))
            # Version 5 queued every active entry for embedding, model or not.
            conn.execute(
                "INSERT OR IGNORE INTO embed_queue(entry_id)"
                " SELECT id FROM entries WHERE status = 'active'"
            )
            conn.execute("UPDATE meta SET value = '5' WHERE key = 'schema_version'")
    finally:
        conn.close()


def _queued(db: Path) -> int:
    return int(_rows(db, "SELECT count(*) FROM embed_queue")[0][0])


def _fts_sql(db: Path) -> str:
    return str(_rows(db, "SELECT sql FROM sqlite_master WHERE name = 'entries_fts'")[0][0])


def _summary_texts(db: Path) -> dict[str, str | None]:
    return {str(i): t for i, t in _rows(db, "SELECT id, summary_text FROM entries")}


_KEPT = (
    "id",
    "type",
    "title",
    "body",
    "summary",
    "status",
    "revision",
    "content_hash",
    "created_at",
    "updated_at",
    "expires_at",
    "basis",
)


def _adder(c: Client) -> Callable[..., str]:
    """An add over ``c`` that answers the new entry's id."""

    def add(title: str, body: str, **extra: object) -> str:
        return str(
            c.call(
                "memory.write",
                {
                    "target": "memory",
                    "action": "add",
                    "entry": entry(title=title, body=body, **extra),
                },
            )["entries"][0]["id"]
        )

    return add


def _kept(c: Client, ids: list[str]) -> list[dict[str, object]]:
    got = c.call("memory.read", {"ids": ids})["entries"]
    return [{k: e[k] for k in _KEPT} for e in got]


def test_a_version_5_store_is_migrated_and_keeps_its_memory(home: Path) -> None:
    db = home / "memory.db"
    # Lexical recall: no embedding model ever records itself in this store.
    d = Daemon(home, ranker="lexical")
    d.start()
    try:
        with d.control() as c:
            add = _adder(c)

            short = add("Zebras", "Zebras graze near the river at dusk.")
            carded = add("Carded", "Its first line is the card.\nThe wombat detail follows.")
            own = add("Own summary", "The body says platypus.", summary="A card on echidnas.")
            made = add("first words", "A body that a replace will change.")
            replaced = c.call(
                "memory.write",
                {
                    "target": "memory",
                    "action": "replace",
                    "id": made,
                    "expected_revision": 1,
                    "entry": entry(title="second words", body="The replaced body."),
                },
            )
            ids = [short, carded, own, made]
            before = _kept(c, ids)
            journal = c.call("memory.journal", {})["items"]
    finally:
        d.stop()
    _as_version_5(db)
    assert {"search_keys", "entries_active_title"} <= _table_names(db)
    assert "detail=none" not in _fts_sql(db)
    assert _audit_forms(db) == {(TAG_V1, 32)}
    assert _queued(db) == 4
    d = Daemon(home, ranker="lexical")
    d.start()
    try:
        with d.control() as c:
            assert c.call("audit.verify", {})["ok"] is True
            assert _kept(c, ids) == before
            assert c.call("memory.journal", {})["items"] == journal
            for word, found in (
                ("zebras", short),
                ("wombat", carded),
                ("echidnas", own),
                ("platypus", own),
                ("replaced", made),
            ):
                listed = c.call("memory.list", {"query": word})["items"]
                assert [item["id"] for item in listed] == [found], word
            with pytest.raises(RpcError) as err:
                c.call(
                    "memory.write",
                    {
                        "target": "memory",
                        "action": "add",
                        "entry": entry(title="Zebras", body="Again."),
                    },
                )
            assert err.value.data_code == "duplicate_title"
            undone = c.call("memory.undo", {"operation_id": replaced["operation_id"]})
            assert [e["title"] for e in undone["entries"]] == ["first words"]
            assert c.call("audit.verify", {})["ok"] is True
    finally:
        d.stop()
    assert _version(db) == SCHEMA_VERSION == 13
    # Every audit row repacked: the prev hash the row before holds is not
    # stored again, and each body is packed against the one before it (V2);
    # the rows written since, one stream per block (V3).
    assert _audit_forms(db) == {(TAG_V2, 32), (TAG_V3, 32)}
    names = _table_names(db)
    assert "search_keys" not in names and "entries_active_title" not in names
    assert "detail=none" in _fts_sql(db)
    # No model ever embedded here: the queue version 5 kept is gone.
    assert _queued(db) == 0
    kept = _summary_texts(db)
    # Each summary is kept once: a summary that is the whole body is not stored.
    assert kept[short] is None
    assert kept[carded] == "Its first line is the card."
    assert kept[own] == "A card on echidnas."


# Version 6's entries table, as that version's daemon/storage/store.py made it: every
# time, the basis and the content hash's text stored as read.
_V6_ENTRIES = ENTRIES_V6.replace(
    "CREATE TABLE IF NOT EXISTS entries(", "CREATE TABLE entries_v6(", 1
)


def _as_version_6(db: Path) -> None:
    """Rewrite a current store's entries in version 6's form (_V6_ENTRIES),
    every entry with the key and values it has now."""
    cols = ", ".join(ENTRY_COLUMNS)
    conn = apsw.Connection(str(db))
    text_index.register(conn)
    try:
        with conn:
            conn.execute(_BEFORE_11)
            conn.execute(_V6_ENTRIES)
            conn.execute(
                f"INSERT INTO entries_v6(key, summary_text, {cols})"  # noqa: S608 (our names)
                f" SELECT key, summary_text, {cols} FROM entries ORDER BY key"
            )
            conn.execute("DROP TABLE entries")
            conn.execute("ALTER TABLE entries_v6 RENAME TO entries")
            conn.execute("CREATE INDEX entries_expiry ON entries(status, expires_at)")
            conn.execute(
                "CREATE INDEX entries_listing"
                " ON entries(owner, title, id, target, scope, status, expires_at)"
            )
            conn.execute("UPDATE meta SET value = '6' WHERE key = 'schema_version'")
    finally:
        conn.close()


_STORED = ("basis_text", "updated_text", "renewed_text", "status_text", "content_key")


def _stored(db: Path) -> dict[str, dict[str, object]]:
    """What the file keeps of each entry in the columns version 7 derives from."""
    return {
        str(row[0]): dict(zip(_STORED, row[1:], strict=True))
        for row in _rows(db, f"SELECT id, {', '.join(_STORED)} FROM entries")  # noqa: S608 (our column names)
    }


_READ = (*_KEPT, "renewed_at", "ttl_days", "pinned", "source", "validity", "use_count")


def _read(c: Client, ids: list[str]) -> list[dict[str, object]]:
    return [{k: e[k] for k in _READ} for e in c.call("memory.read", {"ids": ids})["entries"]]


def test_an_unchanged_note_stores_no_value_its_row_derives(home: Path) -> None:
    d = Daemon(home)
    d.start()
    try:
        with d.control() as c:
            made = c.call(
                "memory.write",
                {
                    "target": "memory",
                    "action": "add",
                    "entry": entry(title="Kestrels", body="Kestrels hover over the verge."),
                },
            )["entries"][0]
    finally:
        d.stop()
    stored = _stored(home / "memory.db")[made["id"]]
    # The hash as its 32 bytes; no time that repeats the one it follows, no default basis.
    assert stored == {
        "basis_text": None,
        "updated_text": None,
        "renewed_text": None,
        "status_text": None,
        "content_key": bytes.fromhex(made["content_hash"].removeprefix("b3k:")),
    }
    assert made["basis"] == {"kind": "unknown", "note": ""}
    assert made["created_at"] == made["updated_at"] == made["renewed_at"]


def test_a_version_6_store_is_migrated_and_keeps_its_memory(home: Path) -> None:
    db = home / "memory.db"
    d = Daemon(home, ranker="lexical")
    d.start()
    try:
        with d.control() as c:
            add = _adder(c)

            short = add("Zebras", "Zebras graze near the river at dusk.")
            based = add(
                "Based",
                "The wombat detail follows.",
                basis={"kind": "observed", "note": "seen twice"},
            )
            made = add("first words", "A body that a replace will change.")
            replaced = c.call(
                "memory.write",
                {
                    "target": "memory",
                    "action": "replace",
                    "id": made,
                    "expected_revision": 1,
                    "entry": entry(title="second words", body="The replaced body."),
                },
            )
            archived = add("Archived", "An okapi note put away.")
            c.call(
                "memory.write",
                {
                    "target": "memory",
                    "action": "archive",
                    "id": archived,
                    "reason": "done",
                    "expected_revision": 1,
                },
            )
            ids = [short, based, made, archived]
            before = _read(c, ids)
            journal = c.call("memory.journal", {})["items"]
    finally:
        d.stop()
    kept = _stored(db)
    _as_version_6(db)
    d = Daemon(home, ranker="lexical")
    d.start()
    try:
        with d.control() as c:
            assert c.call("audit.verify", {})["ok"] is True
            assert _read(c, ids) == before
            assert c.call("memory.journal", {})["items"] == journal
            for word, found in (("zebras", short), ("wombat", based), ("replaced", made)):
                listed = c.call("memory.list", {"query": word})["items"]
                assert [item["id"] for item in listed] == [found], word
            undone = c.call("memory.undo", {"operation_id": replaced["operation_id"]})
            assert [e["title"] for e in undone["entries"]] == ["first words"]
            assert c.call("audit.verify", {})["ok"] is True
    finally:
        d.stop()
    assert _version(db) == SCHEMA_VERSION == 13
    # The migration stores each row as this version writes it.
    migrated = _stored(db)
    assert {i: migrated[i] for i in (short, based, archived)} == {
        i: kept[i] for i in (short, based, archived)
    }
    assert migrated[short]["updated_text"] is None
    assert '"seen twice"' in str(migrated[based]["basis_text"])  # a basis given is kept
    # Archived: updated_at moved from created_at, and status_at with it.
    assert migrated[archived]["updated_text"] is not None
    assert migrated[archived]["status_text"] is None
    assert isinstance(migrated[short]["content_key"], bytes)


# Version 8's lexical index triggers: the body column indexed alone.
_V8_SEARCH_TRIGGERS = """
CREATE TRIGGER entries_search_ai AFTER INSERT ON entries BEGIN
  INSERT INTO entries_fts(rowid, title, summary, body) VALUES (new.key,
    memoryd_fts_text(new.title), memoryd_fts_text(new.summary_text), memoryd_fts_text(new.body));
END;
CREATE TRIGGER entries_search_au AFTER UPDATE OF title, summary_text, body ON entries
BEGIN
  INSERT INTO entries_fts(entries_fts, rowid, title, summary, body) VALUES ('delete', old.key,
    memoryd_fts_text(old.title), memoryd_fts_text(old.summary_text), memoryd_fts_text(old.body));
  INSERT INTO entries_fts(rowid, title, summary, body) VALUES (new.key,
    memoryd_fts_text(new.title), memoryd_fts_text(new.summary_text), memoryd_fts_text(new.body));
END;
CREATE TRIGGER entries_search_ad AFTER DELETE ON entries BEGIN
  INSERT INTO entries_fts(entries_fts, rowid, title, summary, body) VALUES ('delete', old.key,
    memoryd_fts_text(old.title), memoryd_fts_text(old.summary_text), memoryd_fts_text(old.body));
  UPDATE snapshot_cards SET card = NULL, line = NULL WHERE entry_id = old.id;
END;
"""


def _as_version_9(db: Path) -> None:
    """Take a current store back to version 9: no context or observed time
    in entries or revisions, the index's triggers of that version, and its
    way of counting a scope's usage."""
    conn = apsw.Connection(str(db))
    text_index.register(conn)
    try:
        with conn:
            conn.execute(_BEFORE_11)
            for name in (
                "entries_search_ai",
                "entries_search_au",
                "entries_search_ad",
                "entries_usage_ai",
                "entries_usage_au",
                "entries_usage_ad",
                "entries_revision_au",
            ):
                conn.execute(f"DROP TRIGGER {name}")
            for table in ("entries", "revisions"):
                for column in ("context", "observed_at"):
                    conn.execute(f"ALTER TABLE {table} DROP COLUMN {column}")
            conn.execute(_V8_SEARCH_TRIGGERS)
            conn.execute(
                "UPDATE meta SET value = 'all_text_columns,docs,chars' WHERE key = 'usage_counts'"
            )
            conn.execute("UPDATE meta SET value = '9' WHERE key = 'schema_version'")
    finally:
        conn.close()


def test_a_version_9_store_is_migrated_to_keep_context_and_time(home: Path) -> None:
    db = home / "memory.db"
    d = Daemon(home, ranker="lexical")
    d.start()
    try:
        with d.control() as c:
            add = _adder(c)
            kept = add("Herons", "Herons fish in the shallows.")
            removed = add("Egrets", "Egrets nest in the reeds.")
    finally:
        d.stop()
    _as_version_9(db)
    assert _version(db) == 9
    d = Daemon(home, ranker="lexical")
    d.start()
    try:
        with d.control() as c:
            assert [i["id"] for i in c.call("memory.list", {"query": "herons"})["items"]] == [kept]
            read = c.call("memory.read", {"ids": [kept]})["entries"][0]
            assert (read["context"], read["observed_at"]) == (None, None)
            # The new columns are indexed, counted and removed as the body is.
            turn = c.call(
                "memory.write",
                {
                    "target": "memory",
                    "action": "add",
                    "entry": entry(
                        title="Turn 2",
                        body="Yes, by the lake.",
                        context="Did you see the cormorants?",
                        observed_at="2025-03-08",
                    ),
                },
            )["entries"][0]
            for query in ("cormorants", "March 2025"):
                listed = c.call("memory.list", {"query": query})["items"]
                assert [i["id"] for i in listed] == [turn["id"]], query
            c.call(
                "memory.write",
                {"target": "memory", "action": "remove", "id": removed, "expected_revision": 1},
            )
            assert c.call("memory.list", {"query": "egrets"})["items"] == []
            assert c.call("audit.verify", {})["ok"] is True
    finally:
        d.stop()
    assert _version(db) == SCHEMA_VERSION == 13
    # The usage totals were recounted with the context columns.
    assert _rows(db, "SELECT value FROM meta WHERE key = 'usage_counts'") == [
        ("all_text_columns,docs,chars,context",)
    ]
