"""PostgreSQL's lexical index keeps no pending list that every search must scan.

A GIN index with ``fastupdate`` on collects new entries in a pending list
that each search reads in full until a vacuum moves it into the index: a
store being written answers its plan's probes by scanning that list
(docs/recall.md, "Ranking reads numbers"). The daemon's index has it off,
and a schema made before is changed when a daemon opens it.
"""

from __future__ import annotations

from pathlib import Path

import psycopg

from tests.contract.conftest import opened, pg_section
from tests.harness import PG_DSN


def _options(schema: str) -> list[str]:
    with psycopg.connect(PG_DSN, autocommit=True) as conn:
        row = conn.execute(
            "SELECT c.reloptions FROM pg_class AS c JOIN pg_namespace AS n"
            " ON n.oid = c.relnamespace WHERE n.nspname = %s AND c.relname = 'search_index_doc'",
            (schema,),
        ).fetchone()
    assert row is not None
    return list(row[0] or [])


def test_the_index_is_made_without_a_pending_list(tmp_path: Path, pg_schema: str) -> None:
    with opened(tmp_path, pg_section(pg_schema)):
        assert _options(pg_schema) == ["fastupdate=off"]


def test_an_index_made_with_one_loses_it_when_opened(tmp_path: Path, pg_schema: str) -> None:
    with opened(tmp_path / "first", pg_section(pg_schema)):
        pass
    with psycopg.connect(PG_DSN, autocommit=True) as conn:
        conn.execute(f'ALTER INDEX "{pg_schema}".search_index_doc SET (fastupdate = on)')
    assert _options(pg_schema) == ["fastupdate=on"]
    with opened(tmp_path / "second", pg_section(pg_schema)):
        assert _options(pg_schema) == ["fastupdate=off"]
