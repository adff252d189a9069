"""Search through MCP: memoryd's ``memory_search`` beside a peer that ranks with FTS5 alone.

Usage, from the repository root::

    .venv/bin/python bench/mcp_search.py [--sizes 1000,20000] [--calls N] [--json FILE]

For each size, the same notes (the benchmark's corpus: a title and one to
three sentences) are put in two places:

- ``memoryd``: a daemon on a temporary home, filled on its control socket
  into the scope ``memctl mcp --scope bench:fast`` serves; the call is the
  bridge's ``memory_search`` tool (a page of 20, the query two corpus words),
  which goes bridge → agent socket → gate → per-owner ranking → audit;
- ``peer``: a stdio MCP server with one ``search`` tool over one SQLite file,
  an FTS5 table of title and body, answering the 20 best by FTS5's own
  ``bm25()`` with a snippet — what a memory server does when it keeps no
  owners, no policy and no audit. Its source is ``PEER`` below;
- ``socket``: the same search on memoryd's agent socket, without MCP (what
  the bridge adds is ``memoryd`` minus ``socket``).

Both are driven by the MCP SDK's client, call by call alternating, the same
queries in the same order, so both see the same machine load. Reports p50
and p99 of each, memoryd's over the peer's, and each one's growth from the
smallest size to the largest. Nothing is asserted: figures depend on the
machine (docs/performance.md, "Search through MCP"). Temporary homes and
files are gone when the script exits.
"""

from __future__ import annotations

import argparse
import json
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

from bench.daemon import Daemon, enable_consent, short_tempdir
from bench.mcp_calls import bridge_params
from bench.mcp_startup import report
from bench.run import ALLOWED, CONFIG, POLICY, Corpus, pct

# The peer: notes from a JSON-lines file into an FTS5 table on disk, one tool.
PEER = r"""
import json, sqlite3, sys
import anyio
import mcp_types as types
from mcp.server.lowlevel import Server
from mcp.server.stdio import stdio_server

db = sqlite3.connect(sys.argv[2])
db.execute("CREATE VIRTUAL TABLE IF NOT EXISTS notes USING fts5(title, body)")
with open(sys.argv[1], encoding="utf-8") as f:
    db.executemany("INSERT INTO notes(title, body) VALUES (?, ?)",
                   ((n["title"], n["body"]) for n in map(json.loads, f)))
db.commit()
SEARCH = ("SELECT rowid, title, snippet(notes, 1, '', '', ' ... ', 12), bm25(notes) "
          "FROM notes WHERE notes MATCH ? ORDER BY bm25(notes) LIMIT ?")
TOOL = types.Tool(name="search", description="Search notes",
                  input_schema={"type": "object", "properties": {
                      "query": {"type": "string"}, "limit": {"type": "integer"}},
                      "required": ["query"]})

async def on_list_tools(_ctx, _params):
    return types.ListToolsResult(tools=[TOOL])

async def on_call_tool(_ctx, params):
    args = params.arguments or {}
    terms = " OR ".join('"' + w.replace('"', '""') + '"' for w in args["query"].split())
    rows = db.execute(SEARCH, (terms, int(args.get("limit", 20)))).fetchall()
    lines = [f"{len(rows)} notes."] + [f"- {r[0]} {r[1]} ({r[3]:.3f}): {r[2]}" for r in rows]
    return types.CallToolResult(content=[types.TextContent(type="text", text="\n".join(lines))])

server = Server("fts5-peer", on_list_tools=on_list_tools, on_call_tool=on_call_tool)

async def main():
    async with stdio_server() as (r, w):
        await server.run(r, w, server.create_initialization_options())

anyio.run(main)
"""


def fill(daemon: Daemon, corpus: Corpus, notes: list[dict[str, Any]], upto: int) -> None:
    """Bring both stores to ``upto`` notes: 50 adds per control call to memoryd."""
    with daemon.control(timeout=120) as control:
        while len(notes) < upto:
            batch = [corpus.entry() for _ in range(min(50, upto - len(notes)))]
            control.call(
                "memory.write",
                {
                    "action": "batch",
                    "ops": [{"action": "add", "scope": ALLOWED, "entry": e} for e in batch],
                },
            )
            notes.extend(batch)


async def measure(
    daemon: Daemon, peer: StdioServerParameters, calls: int, corpus: Corpus
) -> dict[str, list[float]]:
    samples: dict[str, list[float]] = {"memoryd": [], "peer": [], "socket": []}
    with daemon.agent() as agent, open(os.devnull, "w") as errlog:
        task = agent.call("task.begin", {"scopes": [ALLOWED]})["task_id"]
        async with (
            stdio_client(bridge_params(daemon), errlog=errlog) as (r1, w1),
            ClientSession(r1, w1) as ours,
            stdio_client(peer, errlog=errlog) as (r2, w2),
            ClientSession(r2, w2) as theirs,
        ):
            await ours.initialize()
            await theirs.initialize()

            async def both(query: str, keep: bool) -> None:
                t0 = time.perf_counter()
                a = await ours.call_tool("memory_search", {"query": query, "page_size": 20})
                t1 = time.perf_counter()
                b = await theirs.call_tool("search", {"query": query, "limit": 20})
                t2 = time.perf_counter()
                agent.call(
                    "memory.list",
                    {"task_id": task, "mode": "search", "query": query, "page_size": 20},
                )
                t3 = time.perf_counter()
                if a.is_error or b.is_error:
                    raise RuntimeError("bench: a search failed over MCP")
                if keep:
                    samples["memoryd"].append(t1 - t0)
                    samples["peer"].append(t2 - t1)
                    samples["socket"].append(t3 - t2)

            for _ in range(10):  # warm-up: imports, prepared statements, page cache
                await both(corpus.text(2), keep=False)
            for _ in range(calls):
                await both(corpus.text(2), keep=True)
    return samples


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--sizes",
        default="1000,20000",
        help="store sizes, comma-separated, ascending (default 1000,20000)",
    )
    parser.add_argument("--calls", type=int, default=300)
    parser.add_argument("--json", metavar="FILE")
    args = parser.parse_args()
    sizes = sorted(int(s) for s in args.sizes.split(","))
    root = short_tempdir()
    daemon = Daemon(root / "h", config=CONFIG, policy=POLICY)
    out: dict[str, Any] = {"calls": args.calls}
    notes: list[dict[str, Any]] = []
    corpus, queries = Corpus(seed=3), Corpus(seed=5)
    try:
        daemon.start()
        with daemon.control() as c:
            enable_consent(c)
        for size in sizes:
            fill(daemon, corpus, notes, size)
            source, db = root / f"notes{size}.jsonl", root / f"peer{size}.db"
            source.write_text("".join(json.dumps(n) + "\n" for n in notes), encoding="utf-8")
            peer = StdioServerParameters(
                command=sys.executable,
                args=["-c", PEER, str(source), str(db)],
                env={"PATH": os.environ.get("PATH", "")},
            )
            samples = anyio.run(measure, daemon, peer, args.calls, queries)
            for name, values in samples.items():
                out[f"{name}_{size}_p50_ms"] = round(statistics.median(values) * 1000, 3)
                out[f"{name}_{size}_p99_ms"] = round(pct(values, 0.99) * 1000, 3)
            out[f"ratio_{size}_p50"] = round(
                out[f"memoryd_{size}_p50_ms"] / out[f"peer_{size}_p50_ms"], 2
            )
            out[f"ratio_{size}_p99"] = round(
                out[f"memoryd_{size}_p99_ms"] / out[f"peer_{size}_p99_ms"], 2
            )
        if len(sizes) > 1:
            low, high = sizes[0], sizes[-1]
            for name in ("memoryd", "peer", "socket"):
                out[f"{name}_growth_p50"] = round(
                    out[f"{name}_{high}_p50_ms"] / out[f"{name}_{low}_p50_ms"], 2
                )
    finally:
        try:
            daemon.stop()
        finally:
            shutil.rmtree(root, ignore_errors=True)
    report(out, args.json)
    return 0


if __name__ == "__main__":
    sys.exit(main())
