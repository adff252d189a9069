"""Write a development set of short texts: its rows by category, every third
row of each category held out, as JSON lines beside the generator.

The generators of the secrets-in-prose sets (make_secret_prose_*.py) call
``write``; run one from the repository root to write its set again.
"""

from __future__ import annotations

import json
from pathlib import Path


def write(name: str, categories: dict[str, list[tuple[str, str]]]) -> None:
    """``tests/data/NAME.jsonl``: per category, its ``(lang, text)`` rows in
    order, the third of every three held out (decided by position, before any
    rule is tuned on the set)."""
    out = Path(__file__).with_name(f"{name}.jsonl")
    with out.open("w", encoding="utf-8") as f:
        for category, items in categories.items():
            for i, (lang, text) in enumerate(items):
                row = {
                    "category": category,
                    "lang": lang,
                    "text": text,
                    "split": "held_out" if i % 3 == 2 else "dev",
                }
                f.write(json.dumps(row, ensure_ascii=False) + "\n")
