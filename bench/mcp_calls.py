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
p50; the goal: at most 1 ms), and beside it the CPU the MCP path adds per
call, which a loaded machine stretches far less than wall time: the bridge
process's CPU per call (its user and system time over the run, by clock
tick, divided by the calls) plus the client's extra CPU for the call over
MCP against the call on the socket (p50 of each); the pipes' and the
scheduler's latency is not in it. Nothing is asserted: wall-clock figures depend
on the machine. The daemon and its home are gone when the script exits.

``--instructions`` counts instead of timing: the bridge runs under
``valgrind --tool=callgrind`` with collection off (the daemon and the client
run natively), and for each tool, after a warm-up, the counters are zeroed,
``--calls`` calls are made and the counters dumped: the bridge process's
instructions per call, which a busy machine does not move. ``--profile FILE``
runs the bridge under ``cProfile`` and leaves its statistics in ``FILE``.
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

from bench.daemon import REPO, Daemon, enable_consent, short_tempdir
from bench.instructions import _Counter
from bench.instructions import available as callgrind_available
from bench.mcp_startup import report
from bench.run import ALLOWED, CONFIG, POLICY, Corpus

SCENARIOS = ("status", "write")


def bridge_params(
    daemon: Daemon, prefix: tuple[str, ...] = (), extra: tuple[str, ...] = ()
) -> StdioServerParameters:
    """``memctl mcp`` on the daemon's home, started through ``prefix`` (a
    profiler or valgrind), if any, with ``extra`` arguments."""
    command = [*prefix, sys.executable]
    if any("cProfile" in part for part in prefix):
        command = [sys.executable, *prefix]
    return StdioServerParameters(
        command=command[0],
        args=[
            *command[1:],
            "-m",
            "memoryd.memctl",
            "--home",
            str(daemon.home),
            "mcp",
            "--scope",
            ALLOWED,
            *extra,
        ],
        env={"PYTHONPATH": str(REPO), "PATH": os.environ.get("PATH", "")},
        cwd=str(REPO),
    )


def _bridge_pid() -> int:
    """The pid of the bridge this process started (stdio_client does not say)."""
    me = str(os.getpid())
    children = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
            command = (entry / "cmdline").read_bytes().split(b"\0")
        except OSError:
            continue
        if stat.rsplit(")", 1)[1].split()[1] == me and b"memoryd.memctl" in command:
            children.append(int(entry.name))
    if len(children) != 1:
        raise SystemExit(f"bench: expected one bridge process, found {len(children)}")
    return children[0]


async def count_instructions(daemon: Daemon, calls: int, out: Path) -> dict[str, Any]:
    """The bridge's instructions per call of each tool, under callgrind."""
    corpus = Corpus()
    prefix = (
        "valgrind",
        "--tool=callgrind",
        "--instr-atstart=no",
        f"--callgrind-out-file={out}",
        "--trace-children=no",
    )
    result: dict[str, Any] = {"calls": calls}
    with open(os.devnull, "w") as errlog:
        # The grants watcher's checks (every 2 s by default) would be counted
        # with the calls; under valgrind they would fall into every window.
        params = bridge_params(daemon, prefix, ("--watch", "3600"))
        async with (
            stdio_client(params, errlog=errlog) as (read, write),
            ClientSession(read, write, read_timeout_seconds=600) as session,
        ):
            await session.initialize()
            counter = _Counter(_bridge_pid(), out)

            async def call(name: str) -> None:
                if name == "status":
                    answer = await session.call_tool("memory_status", {})
                else:
                    answer = await session.call_tool(
                        "memory_write", {"action": "add", "entry": corpus.entry()}
                    )
                if answer.is_error:
                    raise RuntimeError(f"bench: memory_{name} failed over MCP")

            for name in SCENARIOS:
                for _ in range(5):  # warm-up: imports, caches, the tool list
                    await call(name)

                async def many(name: str = name) -> None:
                    for _ in range(calls):
                        await call(name)

                # callgrind_control blocks; the calls run on this loop in between.
                await anyio.to_thread.run_sync(counter.start)
                await many()
                total = await anyio.to_thread.run_sync(counter.collect)
                result[f"{name}_instructions"] = total // calls
    return result


def _cpu_seconds(pid: int) -> float:
    """User and system CPU time ``pid`` has used so far (clock-tick resolution)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


async def measure(
    daemon: Daemon, calls: int, prefix: tuple[str, ...] = ()
) -> dict[str, list[float]]:
    corpus = Corpus()
    samples: dict[str, list[float]] = {
        f"{measure}{kind}_{name}": []
        for measure in ("", "cpu_")
        for kind in ("mcp", "socket")
        for name in SCENARIOS
    }
    params = bridge_params(daemon, prefix)
    with daemon.agent() as agent, open(os.devnull, "w") as errlog:
        task = agent.call("task.begin", {"scopes": [ALLOWED]})["task_id"]
        async with (
            stdio_client(params, errlog=errlog) as (read, write),
            ClientSession(read, write) as session,
        ):
            await session.initialize()

            async def over_mcp(name: str) -> None:
                if name == "status":
                    result = await session.call_tool("memory_status", {})
                else:
                    result = await session.call_tool(
                        "memory_write", {"action": "add", "entry": corpus.entry()}
                    )
                if result.is_error:
                    raise RuntimeError(f"bench: memory_{name} failed over MCP")

            def on_socket(name: str) -> None:
                if name == "status":
                    agent.call("memory.status", {"task_id": task})
                else:
                    agent.call(
                        "memory.write",
                        {
                            "task_id": task,
                            "action": "add",
                            "scope": ALLOWED,
                            "entry": corpus.entry(),
                        },
                    )

            for name in SCENARIOS:  # warm-up: imports, prepared statements, caches
                for _ in range(5):
                    await over_mcp(name)
                    on_socket(name)
            bridge = _bridge_pid()
            bridge_cpu = _cpu_seconds(bridge)
            for _ in range(calls):
                for name in SCENARIOS:
                    c0, t0 = time.process_time(), time.perf_counter()
                    await over_mcp(name)
                    c1, t1 = time.process_time(), time.perf_counter()
                    on_socket(name)
                    c2, t2 = time.process_time(), time.perf_counter()
                    samples[f"mcp_{name}"].append(t1 - t0)
                    samples[f"socket_{name}"].append(t2 - t1)
                    samples[f"cpu_mcp_{name}"].append(c1 - c0)
                    samples[f"cpu_socket_{name}"].append(c2 - c1)
            samples["bridge_cpu"] = [(_cpu_seconds(bridge) - bridge_cpu) / (calls * len(SCENARIOS))]
    return samples


def summarise(samples: dict[str, list[float]], calls: int) -> dict[str, Any]:
    out: dict[str, Any] = {"calls": calls}
    ms = {key: statistics.median(values) * 1000 for key, values in samples.items()}
    for name in SCENARIOS:
        for kind in ("mcp", "socket"):
            out[f"{kind}_{name}_p50_ms"] = round(ms[f"{kind}_{name}"], 3)
    for name in SCENARIOS:
        out[f"{name}_overhead_ms"] = round(ms[f"mcp_{name}"] - ms[f"socket_{name}"], 3)
    # CPU, which a loaded machine stretches far less than wall time: the
    # client's extra CPU for the call over MCP (p50 of each), and the
    # bridge's CPU per call (the mean over the run, both tools).
    out["bridge_cpu_per_call_ms"] = round(ms["bridge_cpu"], 3)
    for name in SCENARIOS:
        extra = ms[f"cpu_mcp_{name}"] - ms[f"cpu_socket_{name}"]
        out[f"{name}_client_cpu_extra_ms"] = round(extra, 3)
    out["cpu_overhead_ms"] = round(
        ms["bridge_cpu"]
        + statistics.mean(ms[f"cpu_mcp_{name}"] - ms[f"cpu_socket_{name}"] for name in SCENARIOS),
        3,
    )
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--calls", type=int, default=200)
    parser.add_argument("--json", metavar="FILE")
    mode = parser.add_mutually_exclusive_group()
    mode.add_argument(
        "--instructions",
        action="store_true",
        help="count the bridge's instructions per call under callgrind",
    )
    mode.add_argument(
        "--profile", metavar="FILE", help="run the bridge under cProfile, its statistics to FILE"
    )
    args = parser.parse_args()
    if args.instructions and not callgrind_available():
        raise SystemExit("bench: --instructions needs valgrind (callgrind_control)")
    root = short_tempdir()
    daemon = Daemon(root / "h", config=CONFIG, policy=POLICY)
    try:
        daemon.start()
        with daemon.control() as c:
            enable_consent(c)
        if args.instructions:
            out: dict[str, Any] = anyio.run(
                count_instructions, daemon, args.calls, root / "callgrind.out"
            )
        else:
            prefix = (
                ("-m", "cProfile", "-o", str(Path(args.profile).resolve())) if args.profile else ()
            )
            out = summarise(anyio.run(measure, daemon, args.calls, prefix), args.calls)
    finally:
        try:
            daemon.stop()
        finally:
            shutil.rmtree(root, ignore_errors=True)
    report(out, args.json)
    return 0


if __name__ == "__main__":
    sys.exit(main())
