"""Instructions the daemon spends per operation, counted by callgrind.

Usage, from the repository root::

    .venv/bin/python bench/instructions.py [--entries N] [--calls N] [--json FILE]

Wall-clock figures on a shared 2-core machine move with whatever else runs;
instruction counts do not (valgrind's callgrind counts them on a simulated
CPU). This fills a store through a normally running daemon, restarts the
daemon on the same home under ``valgrind --tool=callgrind`` with collection
off, and for each operation warms it up, zeroes the counters, makes a fixed
number of calls over the real socket, and dumps the counters: the daemon's
instructions for those calls, divided by their number.

Operations (the same as ``bench/run.py``'s scenarios):

- ``write``: one governed single-entry agent write, allowed by policy;
- ``read``: ``memory.read`` of five ids;
- ``search``: ``memory.list`` in search mode, a page of 20, a two-word query;
- ``context``: ``memory.context`` on a new task (the freezing call), with the
  store holding ``--entries`` entries (task begin/end are not counted).

Only the daemon process is measured; the client runs natively. Without
valgrind (``callgrind_control`` is part of it), nothing is measured and the
result says so.
"""

from __future__ import annotations

import argparse
import json
import random
import re
import shutil
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.daemon import Daemon, short_tempdir
from bench.run import ALLOWED, CONFIG, FILL, POLICY, Bench

_TOTALS = re.compile(r"^(?:totals|summary):\s+(\d+)", re.MULTILINE)


def available() -> bool:
    return shutil.which("valgrind") is not None and shutil.which("callgrind_control") is not None


class _Counter:
    """Drives callgrind inside one running daemon (``callgrind_control``)."""

    def __init__(self, pid: int, out: Path) -> None:
        self.pid = pid
        self.out = out
        self.dumps = 0

    def _control(self, *args: str) -> None:
        # A fixed tool on PATH with our own arguments, never client input.
        subprocess.run(  # noqa: S603 (a fixed tool on PATH, our own arguments)
            ["callgrind_control", *args, str(self.pid)],  # noqa: S607
            check=True,
            capture_output=True,
            timeout=300,
        )

    def count(self, calls: Callable[[], None]) -> int:
        """Instructions the daemon executed while ``calls`` ran."""
        self.start()
        calls()
        return self.collect()

    def start(self) -> None:
        """Collection on, counters at zero."""
        self._control("--instr=on")
        self._control("--zero")

    def collect(self) -> int:
        """Instructions since ``start``; collection off again."""
        self._control("--dump")
        self._control("--instr=off")
        self.dumps += 1
        dump = self.out.with_name(f"{self.out.name}.{self.dumps}")
        deadline = time.monotonic() + 60
        while not dump.exists() and time.monotonic() < deadline:
            time.sleep(0.05)
        match = _TOTALS.search(dump.read_text())
        if match is None:
            raise SystemExit(f"bench: no totals in callgrind dump {dump.name}")
        return int(match.group(1))


def measure(entries: int = 10_000, calls: int = 20) -> dict[str, Any]:
    """Instructions per call for write, read, search and context, and how they were measured."""
    if not available():
        return {"available": False, "note": "valgrind (callgrind) is not installed"}
    root = short_tempdir()
    d = Daemon(root / "h", config=CONFIG, policy=POLICY)
    try:
        d.start()
        b = Bench(d, budget_s=8.0)
        try:
            b.fill(entries)
            ids = list(b.ids)
        finally:
            b.close()
        d.stop()
        out = root / "callgrind.out"
        d.prefix = (
            "valgrind",
            "--tool=callgrind",
            "--instr-atstart=no",
            f"--callgrind-out-file={out}",
            "--trace-children=no",
        )
        d.start(timeout=600)
        assert d.proc is not None
        counter = _Counter(d.proc.pid, out)
        b = Bench(d, budget_s=8.0)
        b.control.timeout = b.agent.timeout = 600
        rnd = random.Random(5)
        try:
            write_task = b.begin(b.agent, ALLOWED)
            read_task = b.begin(b.agent, FILL)
            params = [b.write_params(write_task, ALLOWED) for _ in range(calls + 3)]
            intents = [b.corpus.intent() for _ in range(calls + 3)]
            queries = [b.corpus.text(2) for _ in range(calls + 3)]

            def writes(n: int) -> Callable[[], None]:
                return lambda: [b.agent.call("memory.write", params.pop()) for _ in range(n)]

            def reads(n: int) -> Callable[[], None]:
                return lambda: [
                    b.agent.call("memory.read", {"task_id": read_task, "ids": rnd.sample(ids, 5)})
                    for _ in range(n)
                ]

            def searches(n: int) -> Callable[[], None]:
                return lambda: [
                    b.agent.call(
                        "memory.list",
                        {
                            "task_id": read_task,
                            "mode": "search",
                            "query": queries.pop(),
                            "page_size": 20,
                        },
                    )
                    for _ in range(n)
                ]

            # Tasks for context are begun outside the counted window.
            context_tasks = [b.begin(b.agent, FILL) for _ in range(calls + 3)]

            def contexts(n: int) -> Callable[[], None]:
                return lambda: [
                    b.agent.call(
                        "memory.context", {"task_id": context_tasks.pop(), "intent": intents.pop()}
                    )
                    for _ in range(n)
                ]

            result: dict[str, Any] = {"available": True, "entries": entries, "calls": calls}
            for name, make in (
                ("write", writes),
                ("read", reads),
                ("search", searches),
                ("context", contexts),
            ):
                make(3)()  # warm-up: caches, first-use imports, prepared statements
                result[f"{name}_instructions"] = counter.count(make(calls)) // calls
            return result
        finally:
            b.close()
    finally:
        try:
            d.stop()
        finally:
            shutil.rmtree(root, ignore_errors=True)


def print_table(result: dict[str, Any]) -> None:
    if not result.get("available"):
        print(f"instructions: not measured ({result.get('note')})")
        return
    print(
        f"\ninstructions per call (callgrind, daemon process, {result['entries']} entries, "
        f"{result['calls']} calls each):"
    )
    for name in ("write", "read", "search", "context"):
        print(f"  {name:<10} {result[f'{name}_instructions']:>14,}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--entries", type=int, default=10_000)
    parser.add_argument("--calls", type=int, default=20)
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    result = measure(args.entries, args.calls)
    print_table(result)
    if args.json:
        args.json.write_text(json.dumps(result, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
