"""Write a development set of short texts: its rows by category, a third of
each category held out, as JSON lines beside the generator.

The generators of the secrets-in-prose and alarming sets call ``write``, or
``write_in_two_parts`` for a set written apart; run one from the repository
root to write its set again.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

Rows = list[tuple[str, str]]


def by_position(_category: str, items: Rows) -> list[str]:
    """The third of every three rows held out (decided by position)."""
    return ["held_out" if i % 3 == 2 else "dev" for i in range(len(items))]


def write(
    name: str,
    categories: dict[str, Rows],
    *,
    ids: str | None = None,
    split: Callable[[str, Rows], list[str]] = by_position,
) -> None:
    """``tests/data/NAME.jsonl``: per category, its ``(lang, text)`` rows in
    order, each ``dev`` or ``held_out`` as ``split`` decides for the category
    (before any rule is tuned on the set); with ``ids``, each row first
    carries the id ``IDS-CATEGORY-NNN``."""
    out = Path(__file__).with_name(f"{name}.jsonl")
    with out.open("w", encoding="utf-8") as f:
        for category, items in categories.items():
            splits = split(category, items)
            for i, ((lang, text), held) in enumerate(zip(items, splits, strict=True)):
                row: dict[str, Any] = {} if ids is None else {"id": f"{ids}-{category}-{i:03d}"}
                row.update(category=category, lang=lang, text=text, split=held)
                f.write(json.dumps(row, ensure_ascii=False) + "\n")


def write_in_two_parts(name: str, parts: dict[str, tuple[Rows, Rows]], *, ids: str) -> None:
    """``tests/data/NAME.jsonl`` of a set written apart: per category, its
    first part's rows ``dev``, then its second part's ``held_out`` (written
    after, by writers who had not read the first)."""
    held = {category: len(second) for category, (_first, second) in parts.items()}

    def split(category: str, items: Rows) -> list[str]:
        return ["dev"] * (len(items) - held[category]) + ["held_out"] * held[category]

    write(name, {c: first + second for c, (first, second) in parts.items()}, ids=ids, split=split)
