"""The labelled sets under ``tests/data``, as the trainers read them: a
set's rows, and every text some set holds out (never fitted on)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

DATA = Path(__file__).resolve().parents[1] / "tests" / "data"


def rows(name: str) -> list[dict[str, Any]]:
    """The rows of ``tests/data/NAME.jsonl``."""
    path = DATA / f"{name}.jsonl"
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def held_out() -> set[str]:
    """Every text some set holds out (a few sentences are in two sets, held
    out in one)."""
    return {
        r["text"]
        for path in sorted(DATA.glob("*.jsonl"))
        for r in rows(path.stem)
        if r.get("split") in ("held_out", "fresh")
    }


def turns(split: str) -> list[str]:
    """The turns of the conversations of ``split`` (``dev`` or ``heldout``)
    under ``tests/data/conversations``, in order."""
    out = []
    for path in sorted((DATA / "conversations").glob("conv-*.json")):
        conversation = json.loads(path.read_text(encoding="utf-8"))
        if conversation["split"] == split:
            out += [t["text"] for s in conversation["sessions"] for t in s["turns"]]
    return out
