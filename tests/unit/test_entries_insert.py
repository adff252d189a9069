"""An inserted entry row is stored exactly as ``entries.insert`` returns it."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

from msgspec import UNSET

from memoryd.daemon.pipeline import entries
from memoryd.daemon.storage.store import SqliteStore, Tx


def test_every_column_holds_the_value_insert_returned(tmp_path: Path) -> None:
    store = SqliteStore(tmp_path / "memory.db")
    try:
        entry = {
            "type": "fact",
            "title": "Editor",
            "body": "Uses vim.",
            "summary": "Uses vim.",
            "basis": {"kind": "human", "note": "said so"},
            "validity": UNSET,
            "ttl_days": 30,
            "pinned": True,
        }

        def insert(tx: Tx) -> dict[str, object]:
            return entries.insert(
                tx,
                "own_1",
                "memory",
                "default",
                entry,
                "b3k:" + "0" * 64,
                entries.Provenance("user", True, "b3k:" + "1" * 64),
                datetime(2026, 1, 2, 3, 4, 5, tzinfo=UTC),
            )

        row = store.run_sync(insert)
        stored = store.run_sync(
            lambda tx: tx.one("SELECT * FROM entries WHERE id = ?", (row["id"],)), write=False
        )
        assert stored is not None
        # Beyond what readers see, SQLite keeps the index key and the stored
        # forms of the derived columns (daemon/storage/sqlite_schema.py, ENTRIES_TABLE).
        assert set(stored) - set(row) == {
            "key",
            "summary_text",
            "basis_text",
            "updated_text",
            "renewed_text",
            "status_text",
            "content_key",
        }
        assert stored["summary_text"] is None  # the summary is the body
        assert {k: stored[k] for k in row} == row
    finally:
        store.close()
