"""Whether ``memory.read`` of another owner's id can be told from a missing id by its time.

Usage, from the repository root::

    .venv/bin/python bench/read_timing.py [--rounds 1000] [--dsn DSN] [--json FILE]

It starts a ``memoryd`` on a new temporary home (on PostgreSQL in a schema of
its own when ``--dsn`` is given), writes one entry as owner B, and then, as
owner A over ``control.sock``, reads by id in interleaved rounds: each round
reads B's existing id ("foreign"), an id that was never issued ("absent") and
a second never-issued id ("absent2"), in a random order. Both answers are
``not_found``. It prints the median time of each, the median of the per-round
differences foreign - absent, and, as the noise it must be read against, the
median of absent2 - absent and a 95% interval (bootstrap) of both medians.
A difference whose interval overlaps the noise's is within noise.

Nothing is asserted: this is a measurement (docs/performance.md's rule).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from memoryd.rpc.client import Client, RpcError  # noqa: E402


def _start(home: Path, dsn: str | None) -> tuple[subprocess.Popen[bytes], str | None]:
    home.mkdir(mode=0o700, parents=True)
    schema = None
    config = '[recall]\nranker = "lexical"\n'
    if dsn is not None:
        schema = "b_" + uuid.uuid4().hex[:16]
        config += f'\n[store]\nbackend = "postgresql"\ndsn = "{dsn}"\nschema = "{schema}"\n'
    (home / "memoryd.toml").write_text(config)
    (home / "memoryd.toml").chmod(0o600)
    env = {k: v for k, v in os.environ.items() if not k.startswith("MEMORYD_")}
    env["PYTHONPATH"] = str(REPO)
    log = open(home.parent / "memoryd.log", "ab")
    proc = subprocess.Popen(  # noqa: S603 (our own interpreter and module)
        [sys.executable, "-m", "memoryd.daemon.cli", "serve", "--home", str(home)],
        stdout=log,
        stderr=log,
        env=env,
        cwd=REPO,
    )
    log.close()
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise SystemExit("bench: memoryd exited at start")
        try:
            with Client(home / "run" / "control.sock", timeout=5) as c:
                c.call("memory.status", {})
            return proc, schema
        except (OSError, RpcError):
            time.sleep(0.05)
    proc.kill()
    raise SystemExit("bench: memoryd did not become ready")


def _not_found_us(c: Client, who: dict[str, str], entry_id: str) -> float:
    t0 = time.perf_counter_ns()
    try:
        c.call("memory.read", {"identity": who, "ids": [entry_id]})
    except RpcError as exc:
        elapsed = (time.perf_counter_ns() - t0) / 1000
        if exc.data_code != "not_found":
            raise SystemExit(f"bench: expected not_found, got {exc.data_code}") from None
        return elapsed
    raise SystemExit("bench: a read of an id the caller may not see answered")


def _interval(values: list[float], rng: random.Random, draws: int = 2000) -> tuple[float, float]:
    medians = sorted(statistics.median(rng.choices(values, k=len(values))) for _ in range(draws))
    return medians[int(draws * 0.025)], medians[int(draws * 0.975)]


def measure(rounds: int, dsn: str | None, seed: int = 11) -> dict[str, Any]:
    root = Path(tempfile.mkdtemp(prefix="mdrt", dir="/tmp"))
    proc, schema = _start(root / "h", dsn)
    rng = random.Random(seed)
    try:
        a = {"kind": "local", "subject": "reader-" + uuid.uuid4().hex}
        b = {"kind": "local", "subject": "owner-" + uuid.uuid4().hex}
        with Client(root / "h" / "run" / "control.sock", timeout=30) as c:
            for who in (a, b):
                version = c.call("consent.get", {"identity": who})["version"]
                c.call(
                    "consent.set",
                    {"identity": who, "read": True, "contribute": True, "version": version},
                )
            out = c.call(
                "memory.write",
                {
                    "identity": b,
                    "action": "add",
                    "entry": {
                        "type": "fact",
                        "title": "Owner B's note",
                        "body": "A note of owner B with a body of ordinary length. " * 8,
                    },
                },
            )
            foreign = out["entries"][0]["id"]
            absent = foreign[:-6] + "000000"
            absent2 = foreign[:-6] + "111111"
            kinds = {"foreign": foreign, "absent": absent, "absent2": absent2}
            for _ in range(100):  # warm-up, not recorded
                for entry_id in kinds.values():
                    _not_found_us(c, a, entry_id)
            samples: dict[str, list[float]] = {k: [] for k in kinds}
            for _ in range(rounds):
                order = list(kinds)
                rng.shuffle(order)
                for kind in order:
                    samples[kind].append(_not_found_us(c, a, kinds[kind]))
    finally:
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(30)
        except subprocess.TimeoutExpired:
            proc.kill()
        shutil.rmtree(root, ignore_errors=True)
        if dsn is not None and schema is not None:
            import psycopg

            with psycopg.connect(dsn, autocommit=True) as conn:
                conn.execute(f'DROP SCHEMA IF EXISTS "{schema}" CASCADE')
    diff = [f - x for f, x in zip(samples["foreign"], samples["absent"], strict=True)]
    noise = [y - x for y, x in zip(samples["absent2"], samples["absent"], strict=True)]
    return {
        "backend": "postgresql" if dsn else "sqlite",
        "rounds": rounds,
        "median_us": {k: round(statistics.median(v), 1) for k, v in samples.items()},
        "foreign_minus_absent_us": round(statistics.median(diff), 2),
        "foreign_minus_absent_ci95_us": [round(x, 2) for x in _interval(diff, rng)],
        "noise_absent2_minus_absent_us": round(statistics.median(noise), 2),
        "noise_ci95_us": [round(x, 2) for x in _interval(noise, rng)],
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=1000)
    parser.add_argument(
        "--dsn",
        default=None,
        help="run on PostgreSQL at this DSN (a schema of its own, dropped after)",
    )
    parser.add_argument("--json", type=Path, default=None)
    args = parser.parse_args()
    result = measure(args.rounds, args.dsn)
    text = json.dumps(result, indent=2)
    print(text)
    if args.json is not None:
        args.json.write_text(text + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
