"""Start-up of ``memctl mcp`` against a bare MCP SDK server, in one run.

Usage, from the repository root::

    .venv/bin/python bench/mcp_startup.py [--runs N] [--json FILE]

Measures, for each of two stdio MCP servers started as an agent client
starts them, the time from spawning the process to the answer of its first
``tools/list`` (after ``initialize`` and ``notifications/initialized``):

- ``bare``: the MCP SDK's low-level ``Server`` with one tool and nothing
  else — the floor: the interpreter and the SDK's own import;
- ``bridge``: ``python -m memoryd.memctl --home H mcp --scope bench:mcp``
  against a real daemon (its task is begun before the answer).

Runs alternate between the two so both see the same machine load; the
ratio is bridge p50 / bare p50 (the goal: at most 1.2). Nothing is
asserted: figures depend on the machine. The daemon and its temporary home
are gone when the script exits, also on failure.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

# The script lives outside the packages; make the repository importable.
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.daemon import REPO, Daemon, enable_consent, short_tempdir

BARE = """
import anyio
import mcp_types as types
from mcp.server.lowlevel import Server
from mcp.server.stdio import stdio_server

async def on_list_tools(_ctx, _params):
    return types.ListToolsResult(tools=[types.Tool(
        name="echo", description="echo", input_schema={"type": "object"})])

server = Server("bare", on_list_tools=on_list_tools)

async def main():
    async with stdio_server() as (r, w):
        await server.run(r, w, server.create_initialization_options())

anyio.run(main)
"""

PROTOCOL = "2025-06-18"


def _send(proc: subprocess.Popen[bytes], message: dict[str, Any]) -> None:
    assert proc.stdin is not None
    proc.stdin.write(json.dumps(message).encode() + b"\n")
    proc.stdin.flush()


def _answer(proc: subprocess.Popen[bytes], request_id: int) -> dict[str, Any]:
    assert proc.stdout is not None
    while True:
        line = proc.stdout.readline()
        if not line:
            raise RuntimeError("the server closed its output before answering")
        message = json.loads(line)
        if message.get("id") == request_id:
            return dict(message)


def first_tools_list(argv: list[str], env: dict[str, str]) -> float:
    """Seconds from spawn to the first tools/list answer."""
    start = time.perf_counter()
    proc = subprocess.Popen(  # noqa: S603 (our own command line)
        argv,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        env=env,
        cwd=REPO,
    )
    try:
        _send(
            proc,
            {
                "jsonrpc": "2.0",
                "id": 1,
                "method": "initialize",
                "params": {
                    "protocolVersion": PROTOCOL,
                    "capabilities": {},
                    "clientInfo": {"name": "bench", "version": "0"},
                },
            },
        )
        _answer(proc, 1)
        _send(proc, {"jsonrpc": "2.0", "method": "notifications/initialized"})
        _send(proc, {"jsonrpc": "2.0", "id": 2, "method": "tools/list"})
        tools = _answer(proc, 2)
        elapsed = time.perf_counter() - start
        if "result" not in tools:
            raise RuntimeError("tools/list failed")
        return elapsed
    finally:
        assert proc.stdin is not None
        proc.stdin.close()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=15)
    parser.add_argument("--json", metavar="FILE")
    args = parser.parse_args()
    root = short_tempdir()
    daemon = Daemon(root / "h")
    try:
        daemon.start()
        with daemon.control() as c:
            enable_consent(c)
        env = {**os.environ, "PYTHONPATH": str(REPO)}
        bare_argv = [sys.executable, "-c", BARE]
        bridge_argv = [
            sys.executable,
            "-m",
            "memoryd.memctl",
            "--home",
            str(daemon.home),
            "mcp",
            "--scope",
            "bench:mcp",
        ]
        # One of each first, unmeasured: the page cache holds both afterwards.
        first_tools_list(bare_argv, env)
        first_tools_list(bridge_argv, env)
        bare: list[float] = []
        bridge: list[float] = []
        for _ in range(args.runs):
            bare.append(first_tools_list(bare_argv, env))
            bridge.append(first_tools_list(bridge_argv, env))
    finally:
        daemon.stop()
        import shutil

        shutil.rmtree(root, ignore_errors=True)
    out = {
        "runs": args.runs,
        "bare_p50_ms": round(statistics.median(bare) * 1000, 1),
        "bridge_p50_ms": round(statistics.median(bridge) * 1000, 1),
        "bare_min_ms": round(min(bare) * 1000, 1),
        "bridge_min_ms": round(min(bridge) * 1000, 1),
    }
    out["ratio_p50"] = round(out["bridge_p50_ms"] / out["bare_p50_ms"], 3)
    report(out, args.json)
    return 0


def report(out: dict[str, Any], json_file: str | None) -> None:
    """Print ``out`` one figure a line; write it as JSON to ``json_file`` if given."""
    width = max(len(key) for key in out)
    for key, value in out.items():
        print(f"{key:>{width}}: {value}")
    if json_file:
        Path(json_file).write_text(json.dumps(out, indent=2) + "\n", encoding="utf-8")


if __name__ == "__main__":
    sys.exit(main())
