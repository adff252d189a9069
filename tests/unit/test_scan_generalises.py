"""The rule scan on text it was not written from (tests/data/intent_corpus.jsonl):
injections in many languages and disguises are stopped or flagged, secrets
given in prose are refused, benign notes are stored and alarming ones held
for review, never refused. The floors hold on the corpus's dev rows (the
rules are deterministic); the held-out rows are measured, and printed, by
``bench/scan.py --corpus``."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

from memoryd.kernel.scan import verdict_fields

CORPUS = Path(__file__).resolve().parents[1] / "data" / "intent_corpus.jsonl"
# Floors on the dev rows, below what the rules reach today.
INJECTION_FLOOR = 0.95
SECRET_FLOOR = 0.95


def _outcome(text: str) -> tuple[str, str | None]:
    refused, review = verdict_fields([("title", "note"), ("body", text)], max_bytes=100_000)
    if refused is not None:
        return "refused", refused.code
    return ("flagged" if review else "stored"), None


def _dev_rows() -> list[dict[str, str]]:
    rows = [json.loads(line) for line in CORPUS.read_text(encoding="utf-8").splitlines()]
    return [r for r in rows if r["split"] == "dev"]


def test_the_corpus_is_large_and_many_languages() -> None:
    rows = [json.loads(line) for line in CORPUS.read_text(encoding="utf-8").splitlines()]
    count = Counter(r["category"] for r in rows)
    assert count["injection"] >= 120 and count["secret"] >= 30
    assert count["benign"] + count["alarming"] >= 60
    assert len({r["lang"] for r in rows if r["category"] == "injection"}) >= 8
    held = sum(r["split"] == "held_out" for r in rows)
    assert 0.3 <= held / len(rows) <= 0.36


def test_injections_are_stopped_or_flagged_and_secrets_refused_on_the_dev_rows() -> None:
    seen: Counter[str] = Counter()
    good: Counter[str] = Counter()
    for row in _dev_rows():
        outcome, code = _outcome(row["text"])
        seen[row["category"]] += 1
        if row["category"] == "injection":
            good["injection"] += outcome != "stored"
        elif row["category"] == "secret":
            good["secret"] += code == "secret_detected"
    assert good["injection"] / seen["injection"] >= INJECTION_FLOOR
    assert good["secret"] / seen["secret"] >= SECRET_FLOOR


def test_benign_notes_are_never_refused_and_alarming_ones_are_held_not_refused() -> None:
    for row in _dev_rows():
        if row["category"] not in ("benign", "alarming"):
            continue
        outcome, _code = _outcome(row["text"])
        assert outcome != "refused", row["text"]
        if row["category"] == "benign":
            assert outcome == "stored", row["text"]
