"""What the MCP bridge adds to one call, next to the same call on the agent socket.

Usage, from the repository root::

    .venv/bin/python bench/mcp_calls.py [--calls N] [--json FILE]

Starts a daemon on a temporary home (the benchmark's policy: agent writes to
``bench:fast`` are allowed), then, in one process and alternating call by
call so both see the same machine load:

- ``mcp``: the MCP SDK's own client (``ClientSession`` over ``stdio_client``)
  driving ``memctl mcp --scope bench:fast``, as an agent client does, calling
  the ``memory_status`` and ``memory_write`` tools;
- ``socket``: the same two calls (``memory.status``, ``memory.write``) with
  the project's client on ``agent.sock``, on a task of the same scope.

Reports p50 of each and the bridge's overhead per call (mcp p50 - socket
p50; the goal: at most 1 ms). Nothing is asserted: wall-clock figures depend
on the machine. The daemon and its home are gone when the script exits.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import sys
import time
from pathlib import Path
from typing import Any

# The script lives outside the packages; make the repository importable.
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import anyio
from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client

from bench.mcp_startup import report
from bench.run import ALLOWED, CONFIG, POLICY, Corpus
from tests.harness import REPO, Daemon, enable_consent, short_tempdir

SCENARIOS = ("status", "write")


async def measure(daemon: Daemon, calls: int) -> dict[str, list[float]]:
    corpus = Corpus()
    samples: dict[str, list[float]] = {f"{kind}_{name}": [] for kind in ("mcp", "socket")
                                       for name in SCENARIOS}
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "memoryd.memctl", "--home", str(daemon.home), "mcp", "--scope", ALLOWED],
        env={"PYTHONPATH": str(REPO), "PATH": os.environ.get("PATH", "")}, cwd=str(REPO))
    with daemon.agent() as agent, open(os.devnull, "w") as errlog:
        task = agent.call("task.begin", {"scopes": [ALLOWED]})["task_id"]
        async with stdio_client(params, errlog=errlog) as (read, write), \
                ClientSession(read, write) as session:
            await session.initialize()

            async def over_mcp(name: str) -> None:
                if name == "status":
                    result = await session.call_tool("memory_status", {})
                else:
                    result = await session.call_tool(
                        "memory_write", {"action": "add", "entry": corpus.entry()})
                if result.is_error:
                    raise RuntimeError(f"bench: memory_{name} failed over MCP")

            def on_socket(name: str) -> None:
                if name == "status":
                    agent.call("memory.status", {"task_id": task})
                else:
                    agent.call("memory.write", {"task_id": task, "action": "add",
                                                "scope": ALLOWED, "entry": corpus.entry()})

            for name in SCENARIOS:  # warm-up: imports, prepared statements, caches
                for _ in range(5):
                    await over_mcp(name)
                    on_socket(name)
            for _ in range(calls):
                for name in SCENARIOS:
                    t0 = time.perf_counter()
                    await over_mcp(name)
                    t1 = time.perf_counter()
                    on_socket(name)
                    t2 = time.perf_counter()
                    samples[f"mcp_{name}"].append(t1 - t0)
                    samples[f"socket_{name}"].append(t2 - t1)
    return samples


def summarise(samples: dict[str, list[float]], calls: int) -> dict[str, Any]:
    out: dict[str, Any] = {"calls": calls}
    for key, values in samples.items():
        out[f"{key}_p50_ms"] = round(statistics.median(values) * 1000, 3)
    for name in SCENARIOS:
        out[f"{name}_overhead_ms"] = round(out[f"mcp_{name}_p50_ms"] - out[f"socket_{name}_p50_ms"],
                                           3)
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--calls", type=int, default=200)
    parser.add_argument("--json", metavar="FILE")
    args = parser.parse_args()
    root = short_tempdir()
    daemon = Daemon(root / "h", config=CONFIG, policy=POLICY)
    try:
        daemon.start()
        with daemon.control() as c:
            enable_consent(c)
        samples = anyio.run(measure, daemon, args.calls)
    finally:
        try:
            daemon.stop()
        finally:
            shutil.rmtree(root, ignore_errors=True)
    report(summarise(samples, args.calls), args.json)
    return 0


if __name__ == "__main__":
    sys.exit(main())
