"""Instructions per use of the pieces an MCP call adds, counted by callgrind.

Usage, from the repository root::

    .venv/bin/python bench/mcp_pieces.py [--uses N] [--json FILE]

(a few minutes at the default 300 uses)

The pieces ``bench/mcp_calls.py --instructions`` cannot see: it counts the
bridge under valgrind, which slows the bridge so much that the daemon's
answer is always there when the bridge looks for it, and it does not count
the MCP client. Each piece runs in a fresh interpreter under ``valgrind
--tool=callgrind`` twice, ``N`` uses and none (after the same five warm-up
uses), as ``bench/call_pieces.py`` runs its pieces; the difference divided
by ``N`` is the piece's instructions. Pieces:

- ``daemon_call_loop``: one ``AsyncClient.call`` whose answer comes 5 ms
  after the request (a peer process, not under valgrind, answers every
  line after that delay), waiting for it on the event loop;
- ``daemon_call_in_place``: the same call made as the bridge makes it,
  waiting for the answer on the socket (``wait_in_place``; here a window of
  a second, so that the answer always comes within it however slow the
  machine: the instructions do not depend on the window);
- ``check_status``, ``check_write``: the MCP SDK client's check of a tool
  result's structured content against the tool's ``outputSchema`` (what
  ``ClientSession.validate_tool_result`` runs: a compiled ``jsonschema``
  validator, ``best_match`` of its errors), for a ``memory_status`` and a
  ``memory_write`` answer of the daemon's shape, against the schemas the
  bridge declares;
- ``client_status``, ``client_write``: the MCP SDK client's whole
  ``call_tool`` of ``memory_status`` and of a ``memory_write`` (add) through
  ``memctl mcp`` (``bench/mcp_calls.py``'s client and calls; the bridge and
  a daemon started by the parent run natively): what the client pays per
  call, its result check included.

Without valgrind nothing is measured and the result says so.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

PIECES = (
    "daemon_call_loop",
    "daemon_call_in_place",
    "check_status",
    "check_write",
    "client_status",
    "client_write",
)
_TOTALS = re.compile(r"^(?:totals|summary):\s+(\d+)", re.MULTILINE)
PEER_ENV = "BENCH_MCP_PIECES_PEER"
HOME_ENV = "BENCH_MCP_PIECES_HOME"
ENTRIES_ENV = "BENCH_MCP_PIECES_ENTRIES"
# How late the peer answers: longer than a valgrind'ed call takes to reach
# its first read, so that every call finds no answer yet and has to wait.
PEER_DELAY_S = 0.005
IN_PLACE_WINDOW_S = 1.0

# A peer that answers each request line with an empty result, PEER_DELAY_S later.
_PEER = f"""
import json, os, socket, sys, time
server = socket.socket(socket.AF_UNIX)
server.bind(sys.argv[1])
server.listen(1)
print("ready", flush=True)
while True:
    conn, _ = server.accept()
    for line in conn.makefile("rb"):
        time.sleep({PEER_DELAY_S})
        reply = {{"jsonrpc": "2.0", "id": json.loads(line)["id"], "result": {{}}}}
        conn.sendall(json.dumps(reply).encode() + b"\\n")
    conn.close()
"""

# Answers of the daemon's shape (taken from a session of bench/mcp_calls.py),
# the bridge's ``session`` summary included in the status.
_GRANTS = ["memory.context", "memory.list", "memory.read", "memory.receipt", "memory.write"]
STATUS_ANSWER: dict[str, Any] = {
    "backend": {
        "kind": "sqlite",
        "durability": "wal+synchronous=full",
        "sharing": "single-host",
        "health": "ok",
        "degraded_reason": None,
    },
    "counts": {"active": 0, "superseded": 0, "archived": 0, "expired": 0, "removed": 0},
    "pending_actions": 0,
    "audit": {"verified": True},
    "identity": {
        "owner": "own_" + "c7" * 16,
        "source": "local_profile",
        "identity_verified": False,
    },
    "consent": {"read": True, "contribute": True, "learn_from_tools": False, "version": 1},
    "task": {"task_id": "tsk_" + "1d" * 16, "role": "main", "grants": _GRANTS},
    "policy": {"hash": "pol_" + "91" * 32, "rules": 1},
    "projection": {"enabled": False, "mode": "off"},
    "recall": {"ranker": "lexical", "reason": "disabled", "model": None, "dim": None},
    "session": {
        "task_id": "tsk_" + "1d" * 16,
        "role": "main",
        "scopes": ["bench:fast"],
        "consent": {"read": True, "contribute": True, "learn_from_tools": False},
        "grants": _GRANTS,
        "tools": ["memory_context", "memory_search", "memory_read", "memory_write"],
        "notes": [],
    },
}
_NOW = "2026-12-02T00:41:33.716141Z"
_BODY = (
    "Bonnol basan dandus denvibel baban baban larrumur bakmo bakgindas zonbonsu "
    "beszasos lansas bikbos digafan badik."
)
WRITE_ANSWER: dict[str, Any] = {
    "outcome": "applied",
    "operation_id": "op_" + "e9" * 16,
    "decision": {
        "decision_id": "dec_" + "ba" * 16,
        "effect": "allow",
        "rule_ids": ["bench-fast-writes"],
    },
    "entries": [
        {
            "id": "ent_01M8T3668MNDVM3JJZCCKKK6HK",
            "target": "memory",
            "scope": "bench:fast",
            "type": "procedure",
            "title": "Medol bistuk funlirta 1",
            "body": _BODY,
            "summary": _BODY,
            "status": "active",
            "revision": 1,
            "source": "agent",
            "basis": {"kind": "unknown", "note": ""},
            "validity": None,
            "pinned": False,
            "created_at": _NOW,
            "updated_at": _NOW,
            "renewed_at": _NOW,
            "ttl_days": 90.0,
            "expires_at": "2027-03-02T00:41:33.716141Z",
            "use_count": 0,
            "last_used_at": None,
            "superseded_by": None,
            "content_hash": "b3k:" + "84" * 32,
            "applicability": "unrecorded",
            "expired": False,
        }
    ],
    "warnings": [],
    "action_id": None,
    "receipt": None,
    "receipts": None,
}


def _piece(name: str) -> Callable[[], Awaitable[Any]]:
    if name.startswith("check_"):
        from jsonschema import exceptions
        from jsonschema.validators import validator_for
        from referencing import Registry

        from memoryd.memctl.mcp_tools import OUTPUT_SCHEMAS

        tool, answer = {
            "check_status": ("memory_status", STATUS_ANSWER),
            "check_write": ("memory_write", WRITE_ANSWER),
        }[name]
        schema = OUTPUT_SCHEMAS[tool]
        validator = validator_for(schema)(schema, registry=Registry())

        async def check() -> None:
            if exceptions.best_match(validator.iter_errors(answer)) is not None:
                raise SystemExit(f"bench: the {tool} answer does not fit its schema")

        return check

    from memoryd.rpc.client import AsyncClient

    # Waiting on the loop passes no setting, so that piece also runs on a
    # client from before the setting existed.
    wait = {"wait_in_place": IN_PLACE_WINDOW_S} if name == "daemon_call_in_place" else {}
    client = AsyncClient(os.environ[PEER_ENV], **wait)

    async def call() -> None:
        await client.call("bench.noop", {})

    return call


def _child(name: str, uses: int) -> None:
    import anyio

    async def main() -> None:
        one = _piece(name)
        for _ in range(5 + uses):
            await one()

    if name.startswith("client_"):
        anyio.run(_client_child, name, uses)
    else:
        anyio.run(main)


async def _client_child(name: str, uses: int) -> None:
    from mcp.client.session import ClientSession
    from mcp.client.stdio import stdio_client

    from bench.daemon import Daemon
    from bench.mcp_calls import bridge_params
    from bench.run import Corpus

    # Entries of their own per run: the daemon would take a second add of
    # the same entry for a duplicate.
    corpus = Corpus(seed=1000 + uses)
    # As many made in the run of none as in the run of N, so that making
    # them is not counted as the calls'.
    entries = [corpus.entry() for _ in range(5 + int(os.environ[ENTRIES_ENV]))]
    params = bridge_params(Daemon(Path(os.environ[HOME_ENV])), extra=("--watch", "3600"))
    with open(os.devnull, "w") as errlog:
        async with (
            stdio_client(params, errlog=errlog) as (read, write),
            ClientSession(read, write) as session,
        ):
            await session.initialize()
            for i in range(5 + uses):
                if name == "client_status":
                    answer = await session.call_tool("memory_status", {})
                else:
                    answer = await session.call_tool(
                        "memory_write", {"action": "add", "entry": entries[i]}
                    )
                if answer.is_error:
                    raise SystemExit(f"bench: {name} failed over MCP")


def _count(name: str, uses: int, out: Path, env: dict[str, str]) -> int:
    done = subprocess.run(  # noqa: S603 - a fixed tool with our own arguments
        [  # noqa: S607 (a fixed tool on PATH)
            "valgrind",
            "--tool=callgrind",
            f"--callgrind-out-file={out}",
            "--trace-children=no",
            sys.executable,
            __file__,
            "--child",
            name,
            str(uses),
        ],
        check=False,
        capture_output=True,
        text=True,
        timeout=1800,
        env=env,
    )
    if done.returncode != 0:
        raise SystemExit(f"bench: {name} failed:\n{done.stderr[-2000:]}")
    match = _TOTALS.search(out.read_text())
    if match is None:
        raise SystemExit(f"bench: no totals in callgrind output for {name}")
    return int(match.group(1))


def measure(uses: int = 300, pieces: tuple[str, ...] = PIECES) -> dict[str, Any]:
    if shutil.which("valgrind") is None:
        return {"available": False, "note": "valgrind (callgrind) is not installed"}
    result: dict[str, Any] = {"available": True, "uses": uses, "peer_delay_s": PEER_DELAY_S}
    from bench.daemon import Daemon, enable_consent, short_tempdir
    from bench.run import CONFIG, POLICY

    root = short_tempdir()
    daemon = Daemon(root / "h", config=CONFIG, policy=POLICY)
    with tempfile.TemporaryDirectory() as tmp:
        sock = Path(tmp) / "peer.sock"
        peer = subprocess.Popen(  # noqa: S603 - this interpreter, our own script
            [sys.executable, "-c", _PEER, str(sock)], stdout=subprocess.PIPE, text=True
        )
        try:
            assert peer.stdout is not None
            if peer.stdout.readline().strip() != "ready":
                raise SystemExit("bench: the peer did not start")
            if any(name.startswith("client_") for name in pieces):
                daemon.start()
                with daemon.control() as c:
                    enable_consent(c)
            env = {
                **os.environ,
                PEER_ENV: str(sock),
                HOME_ENV: str(daemon.home),
                ENTRIES_ENV: str(uses),
            }
            for name in pieces:
                none = _count(name, 0, Path(tmp) / f"{name}.0", env)
                some = _count(name, uses, Path(tmp) / f"{name}.n", env)
                result[name] = (some - none) // uses
                print(f"  {name:<22} {result[name]:>10,}", flush=True)
        finally:
            peer.terminate()
            peer.wait(timeout=10)
            try:
                daemon.stop()
            finally:
                shutil.rmtree(root, ignore_errors=True)
    return result


def main() -> int:
    if len(sys.argv) == 4 and sys.argv[1] == "--child":
        _child(sys.argv[2], int(sys.argv[3]))
        return 0
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--uses", type=int, default=300)
    parser.add_argument("--json", type=Path)
    parser.add_argument(
        "--piece",
        action="append",
        choices=PIECES,
        dest="pieces",
        help="count only this piece (repeatable; default: all)",
    )
    args = parser.parse_args()
    pieces = tuple(args.pieces or PIECES)
    result = measure(args.uses, pieces)
    if not result["available"]:
        print(f"mcp pieces: not measured ({result['note']})")
    else:
        print(f"(instructions per use, callgrind, {result['uses']} uses each)")
    if args.json:
        args.json.write_text(json.dumps(result, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    os.environ.setdefault("PYTHONHASHSEED", "0")
    raise SystemExit(main())
