"""``bench/run.py --backend postgresql``: every scenario, PostgreSQL's own floors, two daemons.

The benchmark asserts nothing about speed (figures depend on the machine).
This runs its tiny profile, the command docs/performance.md shows, with
``--json``, and checks that the result holds what a PostgreSQL run must: the
scenarios a SQLite run measures, PostgreSQL's floors measured in the same
run and the ratios taken against them, two daemons on one schema with every
write acknowledged, stored and on the one chain verified from both homes,
and no schema left behind. It needs the PostgreSQL server, as the store
contract does: without it the test fails. It runs in CI's PostgreSQL leg
(``--backend postgresql``), the leg that measures PostgreSQL, not in the
main suite, whose time budget a benchmark run would take a tenth of.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import psycopg
import pytest

from tests.harness import PG_DSN, REPO, backend

pytestmark = pytest.mark.skipif(
    backend() != "postgresql",
    reason="a benchmark run on PostgreSQL: runs in the PostgreSQL leg (--backend postgresql)",
)

COMMAND = "bench/run.py --tiny --backend postgresql"

# The scenarios bench/run.py measures on SQLite, at the tiny profile's one size.
SCENARIOS = {
    "context_200",
    "search_200",
    "context",
    "write_allow_1c",
    "write_allow_8c",
    "propose",
    "approve",
    "read",
    "list",
    "list_only",
    "search_only",
    "audit_verify",
    "cold_start",
    "audit_verify_chain",
}


def _bench_schemas() -> set[str]:
    with psycopg.connect(PG_DSN) as conn:
        rows = conn.execute(
            "SELECT nspname FROM pg_namespace WHERE nspname LIKE 'bench\\_%'"
            " OR nspname LIKE 'floor\\_%'"
        ).fetchall()
    return {str(r[0]) for r in rows}


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory) -> tuple[dict[str, Any], set[str], set[str]]:
    """The run's JSON, and the benchmark's schemas on the server before and after it."""
    out = tmp_path_factory.mktemp("bench") / "postgresql.json"
    before = _bench_schemas()
    done = subprocess.run(
        [sys.executable, *COMMAND.split(), "--json", str(out)],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=110,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(out.read_text()), before, _bench_schemas()


@pytest.fixture(scope="module")
def result(run: tuple[dict[str, Any], set[str], set[str]]) -> dict[str, Any]:
    return run[0]


def test_the_command_shown_in_the_performance_page_is_the_one_run() -> None:
    page = (REPO / "docs" / "performance.md").read_text()
    assert f".venv/bin/python {COMMAND}\n" in page


def test_every_sqlite_scenario_and_two_daemons_run_on_postgresql(result: dict[str, Any]) -> None:
    assert result["backend"] == "postgresql" and result["machine"]["postgresql"]
    # Planned on statistics of the filled store, whatever the server's autovacuum.
    assert any(note.startswith("analyze:") for note in result["notes"])
    assert set(result["scenarios"]) == SCENARIOS | {"two_daemons"}
    for name, figures in result["scenarios"].items():
        assert 0 < figures["p50_us"] <= figures["p99_us"], name
        assert figures["ops_per_s"] > 0, name


def test_postgresql_floors_are_measured_in_the_run_and_the_ratios_use_them(
    result: dict[str, Any],
) -> None:
    f, s, r = result["floors"], result["scenarios"], result["ratios"]
    for key in ("commit_p50_us", "commit_nolock_p50_us", "echo_p50_us", "fts_p99_us"):
        assert f[key] > 0, key
    assert f["head_lock_cost_us"] == round(f["commit_p50_us"] - f["commit_nolock_p50_us"], 1)
    assert r["write_allow_1c_vs_floor"] == round(
        s["write_allow_1c"]["p50_us"] / (f["commit_p50_us"] + f["echo_p50_us"]), 3
    )
    assert r["write_8c_vs_1c"] == round(
        s["write_allow_8c"]["ops_per_s"] / s["write_allow_1c"]["ops_per_s"], 3
    )
    assert r["context_vs_fts"] == round(s["context"]["p99_us"] / f["fts_p99_us"], 3)
    # Each recall scenario against the floor of its own queries.
    recall = result["recall"]["200"]
    assert recall["fts_p99_us"] > 0 and recall["fts_search_p99_us"] > 0
    assert r["search_vs_fts_200"] == round(
        s["search_200"]["p99_us"] / recall["fts_search_p99_us"], 3
    )
    assert r["two_daemons_vs_1c"] == round(
        s["two_daemons"]["ops_per_s"] / s["write_allow_1c"]["ops_per_s"], 3
    )
    assert any(note.startswith("fts floor:") for note in result["notes"])


def test_two_daemons_count_every_write_and_verify_one_chain_from_both_homes(
    result: dict[str, Any],
) -> None:
    t = result["two_daemons"]
    assert t["writes_per_daemon"] > 0 and t["expected"] == 2 * t["writes_per_daemon"]
    assert t["acknowledged"] == t["stored"] == t["expected"]
    assert t["chain_verified"] is True
    first, second = t["checked_events"]
    assert first == second >= t["expected"]


def test_sqlite_only_measures_are_skipped_with_a_note_and_storage_is_measured(
    result: dict[str, Any],
) -> None:
    assert "schema_floor" not in result and "instructions" not in result
    assert "schema_floor_p50_us" not in result["floors"]
    notes = " ".join(result["notes"])
    assert "schema_floor skipped" in notes and "instructions skipped" in notes
    assert "hybrid skipped" in notes
    storage = result["storage"]
    assert storage["backend"] == "postgresql" and storage["notes"] > 0
    assert {"entries", "audit", "search_index"} <= set(storage["tables"])
    assert storage["bytes_per_entry"] > storage["bytes_per_entry_added"] > 0
    assert storage["audit_events"] >= 2 * storage["notes"]


def test_every_schema_the_run_made_is_dropped(
    run: tuple[dict[str, Any], set[str], set[str]],
) -> None:
    _, before, after = run
    assert after <= before


def test_the_side_by_side_table_reads_both_backends(
    run: tuple[dict[str, Any], set[str], set[str]], tmp_path: Path
) -> None:
    """bench/postgresql.py puts a SQLite and a PostgreSQL run in one table."""
    pg = run[0]
    sqlite = {
        **pg,
        "backend": "sqlite",
        "scenarios": {"read": pg["scenarios"]["read"]},
        "floors": {"commit_p50_us": 1.0},
        "ratios": {"write_8c_vs_1c": 1.5},
    }
    files = []
    for name, data in (("sqlite", sqlite), ("postgresql", pg)):
        files.append(tmp_path / f"{name}.json")
        files[-1].write_text(json.dumps(data))
    done = subprocess.run(
        [sys.executable, "bench/postgresql.py", "--from", *map(str, files)],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    rows = {line.split(" | ")[0]: line for line in done.stdout.splitlines()}
    assert "| sqlite p50 µs |" in done.stdout and "| postgresql p50 µs |" in done.stdout
    assert rows["| `two_daemons`"].count("—") == 3
    assert "| floor `head_lock_cost_us`" in rows
    assert rows["| ratio `write_8c_vs_1c`"].startswith("| ratio `write_8c_vs_1c` | 1.50 |")
