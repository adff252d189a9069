"""Load: many concurrent clients mixing reads and writes, bounded by count.

No call may fail, and every acknowledged write must be readable afterwards
with its audit event. The measured rate is printed (``-s``) for the
benchmark notes; it is never asserted, since machines are noisy.
"""

from __future__ import annotations

import threading
import time
from typing import Any

from memoryd.rpc.client import Client
from tests.harness import Daemon, entry, running

CLIENTS = 16
CALLS_PER_CLIENT = 40


def _client(d: Daemon, n: int, acked: list[tuple[str, str]], errors: list[BaseException]) -> None:
    try:
        with Client(d.control_path, timeout=60) as c:
            for i in range(CALLS_PER_CLIENT):
                if i % 2 == 0:
                    result = c.call(
                        "memory.write",
                        {
                            "target": "memory",
                            "scope": f"load:c{n}",
                            "action": "add",
                            "entry": entry(f"client {n} note {i}", f"observation {i} from {n}"),
                        },
                    )
                    acked.append((result["entries"][0]["id"], result["operation_id"]))
                elif i % 4 == 1:
                    c.call("memory.list", {"scope": f"load:c{n}"})
                else:
                    c.call("memory.status", {})
    except BaseException as exc:  # noqa: BLE001 (handed to the test thread)
        errors.append(exc)


def _operations(c: Client) -> set[str]:
    ops: set[str] = set()
    after = 0
    while True:
        page = c.call("audit.export", {"after_seq": after, "limit": 5000})
        ops.update(e["details"]["operation_id"] for e in page["events"] if e["kind"] == "operation")
        if page["next_after_seq"] is None:
            return ops
        after = page["next_after_seq"]


def test_concurrent_clients_lose_no_write_and_see_no_error() -> None:
    with running() as d:
        acked: list[tuple[str, str]] = []
        errors: list[BaseException] = []
        threads = [
            threading.Thread(target=_client, args=(d, n, acked, errors)) for n in range(CLIENTS)
        ]
        started = time.monotonic()
        for t in threads:
            t.start()
        for t in threads:
            t.join(120)
        elapsed = time.monotonic() - started
        assert errors == []
        assert len(acked) == CLIENTS * CALLS_PER_CLIENT // 2
        print(
            f"\nload: {CLIENTS * CALLS_PER_CLIENT} calls ({len(acked)} writes) "
            f"in {elapsed:.2f} s = {CLIENTS * CALLS_PER_CLIENT / elapsed:.0f} calls/s"
        )
        with d.control() as c:
            ids = [i for i, _ in acked]
            found: list[Any] = []
            for k in range(0, len(ids), 10):
                found += c.call("memory.read", {"ids": ids[k : k + 10]})["entries"]
            assert sorted(e["id"] for e in found) == sorted(ids)
            assert {op for _, op in acked} <= _operations(c)
            assert c.call("audit.verify", {})["ok"] is True
