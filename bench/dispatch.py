"""The cost of one JSON-RPC call through ``Dispatcher``, without sockets.

Usage, from the repository root::

    .venv/bin/python bench/dispatch.py [--calls N] [--json FILE]

Feeds ``Dispatcher.handle_frame`` one request frame at a time for a method
that does nothing (its params Struct has one field), so what is measured is
the envelope check, jsonrpcserver's dispatch, params conversion, the error
guard and the reply's encoding — the part of every call that is neither the
socket nor the handler. The floor beside it is ``msgspec`` decoding the same
frame and encoding a reply: what any JSON-RPC server must do at the least.
Prints microseconds per call (median of five rounds) and their ratio.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import anyio
import msgspec

from memoryd.rpc.protocol import CallContext, Dispatcher, MethodSpec


class _Params(msgspec.Struct, forbid_unknown_fields=True):
    value: int = 0


async def _noop(_ctx: CallContext, params: _Params) -> dict[str, int]:
    return {"value": params.value}


CTX = CallContext(channel="agent", peer_uid=0, peer_pid=None, conn_id="bench")
FRAME = b'{"jsonrpc":"2.0","id":7,"method":"bench.noop","params":{"value":1}}'


async def _dispatch_round(calls: int) -> float:
    dispatcher = Dispatcher({"bench.noop": MethodSpec("bench.noop", _Params, _noop)})
    reply = await dispatcher.handle_frame(FRAME, CTX)
    assert reply is not None and b'"result"' in reply, reply
    start = time.perf_counter()
    for _ in range(calls):
        await dispatcher.handle_frame(FRAME, CTX)
    return (time.perf_counter() - start) / calls * 1e6


def _floor_round(calls: int) -> float:
    decoder = msgspec.json.Decoder()
    encoder = msgspec.json.Encoder()
    start = time.perf_counter()
    for _ in range(calls):
        request = decoder.decode(FRAME)
        encoder.encode({"jsonrpc": "2.0", "result": request["params"], "id": request["id"]})
    return (time.perf_counter() - start) / calls * 1e6


def measure(calls: int) -> dict[str, float]:
    dispatch = statistics.median(anyio.run(_dispatch_round, calls) for _ in range(5))
    floor = statistics.median(_floor_round(calls) for _ in range(5))
    return {
        "dispatch_us": round(dispatch, 2),
        "floor_us": round(floor, 2),
        "dispatch_vs_floor": round(dispatch / floor, 1),
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--calls", type=int, default=20_000)
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    figures = measure(args.calls)
    print(
        f"dispatch {figures['dispatch_us']} us/call, floor {figures['floor_us']} us/call, "
        f"ratio {figures['dispatch_vs_floor']}"
    )
    if args.json:
        args.json.write_text(json.dumps(figures, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
