"""Instructions per use of the pieces every call is built from, counted by callgrind.

Usage, from the repository root::

    .venv/bin/python bench/call_pieces.py [--uses N] [--json FILE]

Each piece runs in a fresh interpreter under ``valgrind --tool=callgrind``
twice, ``N`` uses and none (after the same five warm-up uses), inside a
coroutine on anyio's asyncio backend; the difference divided by ``N`` is the
piece's instructions, the loop's own steps included (the ``loop`` row alone:
subtract it to compare two pieces). Pieces:

- ``loop``: the measuring loop itself (one coroutine call per use);
- ``scope_deadline``: entering and leaving ``anyio.CancelScope`` with a deadline;
- ``scope_shielded``: the same with ``shield=True`` and no deadline;
- ``fail_after``: ``anyio.fail_after`` around nothing;
- ``checkpoint``: ``anyio.lowlevel.checkpoint()``, one turn of the loop;
- ``deadline_moved``: setting a deadline on an entered scope and lifting it;
- ``to_thread``: ``anyio.to_thread.run_sync`` of a function that returns;
- ``own_thread``: the same function on a thread of one's own (a queue, a
  future, ``call_soon_threadsafe``), as the store's writer and readers run;
- ``dispatch_noop``: ``Dispatcher.handle_frame`` of a method that does
  nothing (envelope, jsonrpcserver, params, reply);
- ``jsonrpcserver_noop``: only ``async_dispatch_to_serializable`` of the same
  already-decoded request and wrapped method.

Without valgrind nothing is measured and the result says so.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import queue
import re
import shutil
import subprocess
import sys
import tempfile
import threading
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

PIECES = (
    "loop",
    "scope_deadline",
    "scope_shielded",
    "fail_after",
    "checkpoint",
    "deadline_moved",
    "to_thread",
    "own_thread",
    "dispatch_noop",
    "jsonrpcserver_noop",
)
_TOTALS = re.compile(r"^(?:totals|summary):\s+(\d+)", re.MULTILINE)


def _piece(name: str) -> Callable[[], Awaitable[Any]]:
    import anyio
    import anyio.lowlevel
    import msgspec

    from memoryd.rpc import protocol
    from memoryd.rpc.protocol import CallContext, Dispatcher, MethodSpec

    class Params(msgspec.Struct, forbid_unknown_fields=True):
        value: int = 0

    class Result(msgspec.Struct):
        value: int

    async def noop(_ctx: CallContext, params: Params) -> Result:
        return Result(params.value)

    ctx = CallContext(channel="agent", peer_uid=0, peer_pid=None, conn_id="bench")
    frame = b'{"jsonrpc":"2.0","id":7,"method":"bench.noop","params":{"value":1}}'
    dispatcher = Dispatcher({"bench.noop": MethodSpec("bench.noop", Params, noop, Result)})
    jobs: queue.SimpleQueue[tuple[asyncio.AbstractEventLoop, asyncio.Future[int]]] = (
        queue.SimpleQueue()
    )

    def answer() -> int:
        return 1

    def worker() -> None:
        while True:
            loop, future = jobs.get()
            loop.call_soon_threadsafe(future.set_result, answer())

    threading.Thread(target=worker, daemon=True).start()
    held: list[anyio.CancelScope] = []

    async def loop_only() -> None:
        return None

    async def scope_deadline() -> None:
        with anyio.CancelScope(deadline=anyio.current_time() + 100):
            pass

    async def scope_shielded() -> None:
        with anyio.CancelScope(shield=True):
            pass

    async def fail_after() -> None:
        with anyio.fail_after(100):
            pass

    async def checkpoint() -> None:
        await anyio.lowlevel.checkpoint()

    async def deadline_moved() -> None:
        held[0].deadline = anyio.current_time() + 100
        held[0].deadline = float("inf")

    async def to_thread() -> None:
        await anyio.to_thread.run_sync(answer)

    async def own_thread() -> None:
        loop = asyncio.get_running_loop()
        future: asyncio.Future[int] = loop.create_future()
        jobs.put((loop, future))
        await future

    async def dispatch_noop() -> None:
        await dispatcher.handle_frame(frame, ctx)

    async def jsonrpcserver_noop() -> None:
        request = {"jsonrpc": "2.0", "method": "bench.noop", "params": [{"value": 1}], "id": 7}
        await protocol.async_dispatch_to_serializable(
            "",
            dispatcher._table,
            context=ctx,
            deserializer=lambda _text: request,
            validator=protocol._accept,
        )

    table = {
        "loop": loop_only,
        "scope_deadline": scope_deadline,
        "scope_shielded": scope_shielded,
        "fail_after": fail_after,
        "checkpoint": checkpoint,
        "deadline_moved": deadline_moved,
        "to_thread": to_thread,
        "own_thread": own_thread,
        "dispatch_noop": dispatch_noop,
        "jsonrpcserver_noop": jsonrpcserver_noop,
    }
    run = table[name]
    if name != "deadline_moved":
        return run

    async def in_scope() -> None:
        await run()

    async def first() -> None:
        # The scope is entered once, by the first use, and stays entered.
        scope = anyio.CancelScope()
        scope.__enter__()
        held.append(scope)
        wrapper[0] = in_scope

    wrapper: list[Callable[[], Awaitable[None]]] = [first]
    return lambda: wrapper[0]()


def _child(name: str, uses: int) -> None:
    import anyio

    async def main() -> None:
        one = _piece(name)
        for _ in range(5 + uses):
            await one()

    anyio.run(main)


def _count(name: str, uses: int, out: Path) -> int:
    subprocess.run(  # noqa: S603 - a fixed tool with our own arguments
        [  # noqa: S607 (a fixed tool on PATH)
            "valgrind",
            "--tool=callgrind",
            f"--callgrind-out-file={out}",
            sys.executable,
            __file__,
            "--child",
            name,
            str(uses),
        ],
        check=True,
        capture_output=True,
        timeout=1800,
    )
    match = _TOTALS.search(out.read_text())
    if match is None:
        raise SystemExit(f"bench: no totals in callgrind output for {name}")
    return int(match.group(1))


def measure(uses: int = 2000) -> dict[str, Any]:
    if shutil.which("valgrind") is None:
        return {"available": False, "note": "valgrind (callgrind) is not installed"}
    result: dict[str, Any] = {"available": True, "uses": uses}
    with tempfile.TemporaryDirectory(dir="/tmp") as tmp:
        for name in PIECES:
            none = _count(name, 0, Path(tmp) / f"{name}.0")
            some = _count(name, uses, Path(tmp) / f"{name}.n")
            result[name] = (some - none) // uses
    return result


def main() -> int:
    if len(sys.argv) == 4 and sys.argv[1] == "--child":
        _child(sys.argv[2], int(sys.argv[3]))
        return 0
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--uses", type=int, default=2000)
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    result = measure(args.uses)
    if not result["available"]:
        print(f"call pieces: not measured ({result['note']})")
    else:
        print(f"instructions per use (callgrind, {result['uses']} uses each):")
        for name in PIECES:
            print(f"  {name:<20} {result[name]:>10,}")
    if args.json:
        args.json.write_text(json.dumps(result, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    os.environ.setdefault("PYTHONHASHSEED", "0")
    raise SystemExit(main())
