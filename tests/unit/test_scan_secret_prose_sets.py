"""The development sets of secrets in prose, each held to what it was written for.

Each set (tests/data/secret_prose_dev3.jsonl to ..._dev10.jsonl, written by
the generator beside it, with its licence) holds secrets written in prose
and benign look-alikes in many languages, and keeps a third of each
category held out (every third row; in the seventh set, the third chosen
by a hash of each row's id, in the eighth by a hash of each row's text; the
ninth's and the tenth's held-out parts were written apart from their dev
parts):
only the dev rows are held to account here, so the
held-out figures ``bench/scan.py --corpus`` prints stay a measure of how
the rules generalise. What each set's rules read, with examples written for
them, is in its own module (tests/unit/test_scan_secret_prose_devN.py).
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from tests.unit.scan_outcome import outcome

DATA = Path(__file__).resolve().parents[1] / "data"

# Per set: the rows it holds at least per category, the languages at least
# per category, and the share of its dev secrets the rules may still miss
# (a floor, not every row: a set keeps shapes no rule reads yet).
SETS = {
    "secret_prose_dev3": (80, 10, 1 / 10),
    "secret_prose_dev4": (60, 10, 1 / 10),
    "secret_prose_dev5": (60, 6, 1 / 20),
    "secret_prose_dev6": (60, 20, 1 / 20),
    "secret_prose_dev7": (60, 15, 1 / 20),
    "secret_prose_dev8": (120, 30, 1 / 10),
    "secret_prose_dev9": (140, 25, 1 / 5),
    "secret_prose_dev10": (200, 30, 1 / 5),
}
# Sets whose held-out part was written apart rather than chosen as a third:
# how many rows of each category it holds.
WRITTEN_APART = {
    "secret_prose_dev9": {"secret": 120, "benign": 60},
    "secret_prose_dev10": {"secret": 130, "benign": 90},
}


def _rows(name: str) -> list[dict[str, Any]]:
    text = (DATA / f"{name}.jsonl").read_text(encoding="utf-8")
    return [json.loads(line) for line in text.splitlines()]


def _dev(name: str, category: str) -> list[str]:
    return [r["text"] for r in _rows(name) if r["split"] == "dev" and r["category"] == category]


@pytest.mark.parametrize("name", SETS)
def test_the_set_spans_languages_and_holds_a_third_out(name: str) -> None:
    rows = _rows(name)
    least, languages, _missed = SETS[name]
    counts = Counter(r["category"] for r in rows)
    assert counts["secret"] >= least and counts["benign"] >= least
    for category in ("secret", "benign"):
        mine = [r for r in rows if r["category"] == category]
        assert len({r["lang"] for r in mine}) >= languages, category
        held = WRITTEN_APART.get(name, {}).get(category, len(mine) // 3)
        assert sum(r["split"] == "held_out" for r in mine) == held
    assert len({r["text"] for r in rows}) == len(rows), "a text appears twice"


@pytest.mark.parametrize("name", SETS)
def test_the_set_carries_its_licence(name: str) -> None:
    licence = (DATA / f"{name}.LICENSE").read_text(encoding="utf-8")
    assert f"{name}.jsonl" in licence
    assert "CC0-1.0" in licence and "Apache-2.0" in licence


@pytest.mark.parametrize("name", SETS)
def test_the_dev_secrets_are_refused_nearly_all(name: str) -> None:
    secrets = _dev(name, "secret")
    missed = [t for t in secrets if outcome(t) != "secret_detected"]
    assert len(missed) <= int(len(secrets) * SETS[name][2]), missed


@pytest.mark.parametrize(
    "text",
    [
        pytest.param(t, id=f"{name}-{i}")
        for name in SETS
        for i, t in enumerate(_dev(name, "benign"))
    ],
)
def test_a_benign_look_alike_is_never_refused(text: str) -> None:
    assert outcome(text) in ("stored", "flagged")
