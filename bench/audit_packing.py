"""What an audit row costs to pack, in each form the SQLite writer has used.

Usage, from the repository root::

    .venv/bin/python bench/audit_packing.py [--writes N] [--instructions]

Builds the events of ``--writes`` governed single-entry agent writes (a
decision and an operation each, with fresh random ids and content hashes as
the daemon makes them), packs them as the writer does in the V2 form
(``pack_row`` against the row before) and in the V3 form (``Packer``, one
stream per block) by the zlib module at compression levels 1 and 6 and by
zlib-ng at level 1 (the writer's), and reports the packed
body per row, the microseconds per row to pack and to read back (wall
clock: noisy on a shared machine), and with ``--instructions`` the
instructions per row counted by callgrind (the packing alone: a run that
only builds the events is subtracted), and the instructions per event of
building the events themselves (``next_stored``: the no-text guard, the
canonical bytes, the chain hash; a run that only makes their fields is
subtracted).
"""

from __future__ import annotations

import argparse
import secrets
import shutil
import sys
import time
import zlib
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from zlib_ng import zlib_ng

from bench import _callgrind
from memoryd.audit import EMPTY_HEAD, EventSubject, next_stored, packing
from memoryd.audit.chain import ChainHead, StoredEvent
from memoryd.audit.packing import Packer, pack_row, unpack_rows
from memoryd.kernel.capability import Resource


def inputs(writes: int) -> list[tuple[str, str, dict[str, Any]]]:
    """The kind, timestamp and fields of each event, as the daemon hands them over."""
    subject = EventSubject(
        channel="agent",
        role="main",
        owner="own_" + secrets.token_hex(16),
        task_id="tsk_" + secrets.token_hex(16),
    )
    policy = "pol_" + secrets.token_hex(32)
    out: list[tuple[str, str, dict[str, Any]]] = []
    for i in range(writes):
        digest = "b3k:" + secrets.token_hex(32)
        # Made by the kernel's Resource, as the daemon's are (the guard knows
        # a string it just made without parsing it again).
        resource = Resource.parse(f"memory/bench%3Afast:add+fact:-@-:{digest}").canonical()
        decision = "dec_" + secrets.token_hex(16)
        ts = f"2026-12-01T11:{i // 60 % 60:02d}:{i % 60:02d}.{secrets.randbelow(10**6):06d}Z"
        common: dict[str, Any] = {
            "subject": subject,
            "capability": "MemoryWrite",
            "resource": resource,
            "decision_id": decision,
            "effect": "allow",
            "rule_ids": ["bench-fast-writes"],
            "content_hashes": [digest],
        }
        for kind, more in (
            (
                "decision",
                {"details": {"policy_hash": policy, "explicit": True, "resources": [resource]}},
            ),
            (
                "operation",
                {
                    "entry_ids": ["ent_01M8RN5C" + secrets.token_hex(9).upper()],
                    "revisions": [1],
                    "details": {"operation_id": "op_" + secrets.token_hex(16)},
                },
            ),
        ):
            out.append((kind, ts, {**common, **more}))
    return out


def events(
    writes: int, made: list[tuple[str, str, dict[str, Any]]] | None = None
) -> list[tuple[StoredEvent, str]]:
    """Each event with the hash of the head it was linked to."""
    head, out = EMPTY_HEAD, []
    for kind, ts, fields in inputs(writes) if made is None else made:
        _event, stored = next_stored(head, kind, ts, **fields)
        out.append((stored, head.hash))
        head = ChainHead(seq=stored.seq, hash=stored.hash)
    return out


def pack_v2(pairs: list[tuple[StoredEvent, str]]) -> list[tuple[int, bytes, bytes]]:
    rows, before = [], None
    for stored, prev in pairs:
        rows.append(pack_row(stored, prev, before))
        before = stored.body
    return rows


def pack_v3(
    pairs: list[tuple[StoredEvent, str]], level: int, lib: Any = zlib
) -> list[tuple[int, bytes, bytes]]:
    packing._V3_PRIMED = lib.compressobj(
        level, lib.DEFLATED, -15, 8, lib.Z_DEFAULT_STRATEGY, zdict=packing.DICTIONARY_V1
    )
    packer = Packer()
    return [packer.pack(stored, prev) for stored, prev in pairs]


# The V3 forms by the zlib module and by zlib-ng (the writer's, at level 1).
FORMS = {
    "v2": pack_v2,
    "v3-level1": lambda p: pack_v3(p, 1),
    "v3-level6": lambda p: pack_v3(p, 6),
    "v3-ng-level1": lambda p: pack_v3(p, 1, zlib_ng),
}


def _instructions(writes: int, form: str) -> int:
    return _callgrind.instructions(__file__, "--writes", str(writes), "--only", form)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--writes", type=int, default=1_000)
    parser.add_argument("--instructions", action="store_true")
    parser.add_argument("--only", help=argparse.SUPPRESS)  # one callgrind run
    args = parser.parse_args()
    if args.only == "inputs":
        inputs(args.writes)
        return 0
    pairs = events(args.writes)
    if args.only is not None:
        if args.only not in ("none", "events"):
            FORMS[args.only](pairs)
        return 0
    expected = [stored for stored, _prev in pairs]
    counted: dict[str, int] = {}
    if args.instructions and shutil.which("valgrind"):
        counted["none"] = _instructions(args.writes, "none")
        built = counted["none"] - _instructions(args.writes, "inputs")
        print(
            f"building an event (next_stored): {built / (2 * args.writes) / 1000:.1f} K"
            " instructions"
        )
    print(f"audit rows of {args.writes} governed writes ({len(pairs)} events):")
    for form, pack in FORMS.items():
        start = time.perf_counter()
        rows = pack(pairs)
        packed = time.perf_counter() - start
        start = time.perf_counter()
        assert list(unpack_rows(rows)) == expected
        read = time.perf_counter() - start
        body = sum(len(row[1]) for row in rows) / len(rows)
        line = (
            f"  {form:10s} body {body:6.1f} B/row   pack {packed / len(rows) * 1e6:5.1f} µs"
            f"   read {read / len(rows) * 1e6:5.1f} µs"
        )
        if "none" in counted:
            extra = _instructions(args.writes, form) - counted["none"]
            line += f"   pack {extra / len(rows) / 1000:6.1f} K instructions/row"
        print(line)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
