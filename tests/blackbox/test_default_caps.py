"""The default caps hold a busy agent's month (docs/configuration.md).

With the old default scope budget (64 KiB) a scope refused its ~500th note of
realistic length. Realistic here is measured: the clean notes of
``tests/data/scan_corpus.jsonl`` (2,400 short memory notes, English and
Chinese) average 136 UTF-8 bytes. A thousand of them must fit one scope
under the defaults (tests/unit/test_config.py checks that the page documents
the daemon's own defaults).
"""

from __future__ import annotations

import json
from pathlib import Path

from tests.harness import Daemon

NOTES = Path(__file__).resolve().parents[1] / "data" / "scan_corpus.jsonl"


# Every cap at its default. The ranker is not a cap: lexical ranking
# spares embedding a thousand notes (~14 ms of CPU each) nobody recalls.
# How this module's daemon starts (the ``d`` fixture, tests/blackbox/conftest.py).
DAEMON = {"config": '[recall]\nranker = "lexical"\n'}


def clean_notes() -> list[str]:
    rows = [json.loads(line) for line in NOTES.read_text(encoding="utf-8").splitlines()]
    return [r["text"] for r in rows if r["category"] == "clean"]


def test_a_thousand_realistic_notes_fit_one_scope_under_the_defaults(d: Daemon) -> None:
    notes = clean_notes()[:1_000]
    assert len(notes) == 1_000
    assert sum(len(n.encode()) for n in notes) > 2 * 65_536  # far past the old budget
    with d.control() as c:
        for start in range(0, len(notes), 50):
            ops = [
                {
                    "action": "add",
                    "entry": {"type": "fact", "title": f"note {start + i}", "body": body},
                }
                for i, body in enumerate(notes[start : start + 50])
            ]
            out = c.call("memory.write", {"action": "batch", "scope": "busy", "ops": ops})
            assert out["outcome"] == "applied"
        listed = c.call("memory.list", {"scope": "busy", "page_size": 1})
    assert listed["items"]
