"""Measure audit chain verification speed: build 200k events, verify them.

Prints events/s; asserts nothing (timings depend on the machine). Run from
the repository root: ``.venv/bin/python bench/audit_verify.py [N]``.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

# The script lives outside the packages; make the repository importable.
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from memoryd.audit import (  # after the path is set above
    EMPTY_HEAD,
    ChainBuilder,
    EventSubject,
    StoredEvent,
    verify_chain,
)


def build(count: int) -> list[StoredEvent]:
    builder = ChainBuilder(EMPTY_HEAD)
    subject = EventSubject(
        channel="agent",
        role="main",
        owner="own_" + "5c" * 16,
        task_id="tsk_01JC8Z3Q4R5S6T7V8W9X0Y1Z2A",
    )
    rows = []
    for i in range(count):
        entry = f"ent_01JC8Z3Q4R5S6T7V8W{i:08d}"
        digest = "b3k:" + f"{i:064x}"
        rows.append(
            builder.append(
                "operation",
                f"2026-11-01T12:{(i // 60) % 60:02d}:{i % 60:02d}.{i % 1_000_000:06d}Z",
                subject=subject,
                capability="MemoryWrite",
                resource=f"memory/memory/project:acme:replace:{entry}@3:{digest}",
                decision_id=f"dec_{i:020d}",
                effect="allow",
                rule_ids=["agent-writes-need-approval"],
                entry_ids=[entry],
                revisions=[3],
                content_hashes=[digest],
                details={"operation_id": f"op_{i:020d}", "policy_hash": "b3:" + "ab" * 32},
            )
        )
    return rows


def main() -> None:
    count = int(sys.argv[1]) if len(sys.argv) > 1 else 200_000
    started = time.perf_counter()
    rows = build(count)
    built = time.perf_counter() - started
    mean_body = sum(len(r.body) for r in rows) / len(rows)
    print(
        f"built {count} events in {built:.2f} s ({count / built:,.0f} events/s), "
        f"mean body {mean_body:.0f} bytes"
    )
    best = 0.0
    for _ in range(3):
        started = time.perf_counter()
        result = verify_chain(iter(rows))
        elapsed = time.perf_counter() - started
        best = max(best, count / elapsed)
        print(
            f"verify ok={result.ok} checked={result.checked} in {elapsed:.3f} s "
            f"({count / elapsed:,.0f} events/s)"
        )
    print(f"best {best:,.0f} events/s")
    # What a database cursor yields: plain (seq, body, hash) tuples.
    plain = [tuple(r) for r in rows]
    started = time.perf_counter()
    result = verify_chain(iter(plain))  # type: ignore[arg-type]
    elapsed = time.perf_counter() - started
    print(f"verify plain tuples ok={result.ok} ({count / elapsed:,.0f} events/s)")


if __name__ == "__main__":
    main()
