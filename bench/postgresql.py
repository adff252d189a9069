"""SQLite and PostgreSQL side by side: bench/run.py on each backend, one table.

Usage, from the repository root::

    .venv/bin/python bench/postgresql.py [--quick | --tiny] [--json FILE]
    .venv/bin/python bench/postgresql.py --from SQLITE.json POSTGRESQL.json

Runs ``bench/run.py``'s whole measurement on SQLite, then on PostgreSQL (the
server of ``MEMORYD_TEST_PG_DSN``, a fresh schema dropped after), one after
the other on the same machine; or reads two saved ``bench/run.py --json``
outputs. Prints one Markdown table: each scenario's p50, p99 and ops/s on
both backends, each backend's floors (PostgreSQL's commit floor with and
without the head's row lock, and the lock's cost, ``head_lock_cost_us``),
and the ratios, each taken against its own backend's floors. ``--json``
writes ``{sqlite: RUN, postgresql: RUN}``. All the measuring is
``bench/run.py``'s; this only puts the two runs side by side.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.run import BACKENDS, FLOOR_KEYS, PROFILES, measure


def _us(value: float | None) -> str:
    return "—" if value is None else f"{value:,.0f}"


def _rate(value: float | None) -> str:
    return "—" if value is None else f"{value:,.1f}"


def side_by_side(runs: dict[str, dict[str, Any]]) -> str:
    """One Markdown table of two ``bench/run.py`` results, keyed by backend."""
    names = list(dict.fromkeys(name for run in runs.values() for name in run["scenarios"]))
    heads = " | ".join(f"{b} p50 µs | {b} p99 µs | {b} ops/s" for b in runs)
    lines = [f"| scenario | {heads} |", "| --- |" + " ---: |" * (3 * len(runs))]
    for name in names:
        cells = []
        for run in runs.values():
            s = run["scenarios"].get(name)
            cells += [_us(s["p50_us"]), _us(s["p99_us"]), _rate(s["ops_per_s"])] if s else ["—"] * 3
        lines.append(f"| `{name}` | " + " | ".join(cells) + " |")
    for key in FLOOR_KEYS:
        if any(run["floors"].get(key) is not None for run in runs.values()):
            cells = []
            for run in runs.values():
                cells += [_us(run["floors"].get(key)), "", ""]
            lines.append(f"| floor `{key}` | " + " | ".join(cells) + " |")
    ratios = list(dict.fromkeys(name for run in runs.values() for name in run["ratios"]))
    for name in ratios:
        cells = []
        for run in runs.values():
            value = run["ratios"].get(name)
            cells += ["—" if value is None else f"{value:.2f}", "", ""]
        lines.append(f"| ratio `{name}` | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    size = parser.add_mutually_exclusive_group()
    size.add_argument("--quick", action="store_true", help="bench/run.py --quick on each")
    size.add_argument("--tiny", action="store_true", help="bench/run.py --tiny on each")
    size.add_argument(
        "--from",
        dest="saved",
        nargs=2,
        metavar=("SQLITE", "POSTGRESQL"),
        type=Path,
        help="two saved bench/run.py --json outputs",
    )
    parser.add_argument("--json", metavar="FILE", help="also write both runs as JSON")
    args = parser.parse_args(argv)
    if args.saved:
        runs = {
            b: json.loads(path.read_text()) for b, path in zip(BACKENDS, args.saved, strict=True)
        }
        for backend, run in runs.items():
            if run.get("backend", "sqlite") != backend:
                parser.error(f"{backend}: that file holds a run on {run.get('backend')}")
    else:
        profile = PROFILES["tiny" if args.tiny else "quick" if args.quick else "full"]
        runs = {b: measure(profile, b) for b in BACKENDS}
    print(side_by_side(runs))
    if args.json:
        Path(args.json).write_text(json.dumps(runs, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
