"""The two fresh sets are what their READMEs and licences say they are.

``tests/data/scan_fresh.jsonl`` and ``tests/data/extraction/fresh.jsonl``
were written without looking at the scanner's rules or the built-in
extractor, and are never used to tune them: ``bench/scan.py --corpus`` and
``bench/extract_quality.py`` print their figures apart. These checks hold
the sets' shape (rows parse, counts, languages, labels that rest on the
user's own words, licences), never the figures measured on them.
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

DATA = Path(__file__).resolve().parent.parent / "data"
SCAN = DATA / "scan_fresh.jsonl"
EXTRACTION = DATA / "extraction"
TRANSCRIPTS = EXTRACTION / "fresh.jsonl"


def _rows(path: Path) -> list[dict[str, Any]]:
    lines = path.read_text(encoding="utf-8").splitlines()
    assert all(line.strip() for line in lines), "blank line"
    return [json.loads(line) for line in lines]


def test_the_scan_set_has_its_stated_counts() -> None:
    rows = _rows(SCAN)
    assert Counter(r["category"] for r in rows) == {
        "injection": 60,
        "secret": 40,
        "alarming": 30,
        "benign": 60,
    }
    for r in rows:
        assert set(r) == {"category", "lang", "text", "split"}, r
        assert r["split"] == "fresh"
        assert isinstance(r["text"], str) and r["text"].strip()
    assert len({r["text"] for r in rows}) == len(rows), "a text appears twice"


def test_the_scan_set_spans_languages() -> None:
    rows = _rows(SCAN)
    injection_langs = {r["lang"] for r in rows if r["category"] == "injection"}
    assert len(injection_langs) >= 10
    promised = {"en", "zh", "ja", "es", "fr", "de", "pt", "ru", "ko", "ar", "hi", "it"}
    assert promised <= injection_langs
    for category in ("secret", "alarming", "benign"):
        assert len({r["lang"] for r in rows if r["category"] == category}) >= 5, category


def test_the_scan_set_shares_no_text_with_the_older_corpora() -> None:
    fresh = {r["text"] for r in _rows(SCAN)}
    for older in ("intent_corpus.jsonl", "secret_prose_corpus.jsonl", "scan_corpus.jsonl"):
        assert not fresh & {r["text"] for r in _rows(DATA / older)}, older


def test_the_scan_set_carries_its_licence() -> None:
    licence = (DATA / "scan_fresh.LICENSE").read_text(encoding="utf-8")
    assert "scan_fresh.jsonl" in licence
    assert "Apache-2.0" in licence
    assert "written for this project" in licence.lower()
    assert "never used for tuning" in licence


def test_the_transcripts_have_their_stated_counts() -> None:
    cases = _rows(TRANSCRIPTS)
    assert len(cases) == 20
    assert Counter(c["lang"] for c in cases) == {"en": 12, "zh": 8}
    assert {c["domain"] for c in cases} == {"coding", "sre"}
    assert len({c["id"] for c in cases}) == len(cases)
    for c in cases:
        assert set(c) == {"id", "lang", "domain", "split", "turns", "keep"}, c["id"]
        assert c["split"] == "fresh"
        assert 8 <= len(c["turns"]) <= 30, c["id"]
        roles = {t["role"] for t in c["turns"]}
        assert roles <= {"user", "assistant", "tool"}
        assert {"user", "assistant", "tool"} <= roles, c["id"]


def test_every_kept_memory_is_the_words_of_a_user_turn() -> None:
    for c in _rows(TRANSCRIPTS):
        users = [t["content"] for t in c["turns"] if t["role"] == "user"]
        for keep in c["keep"]:
            assert any(keep in u for u in users), (c["id"], keep)


def test_the_transcripts_share_nothing_with_the_tuned_set() -> None:
    fresh = _rows(TRANSCRIPTS)
    tuned = _rows(EXTRACTION / "transcripts.jsonl")
    assert not {c["id"] for c in fresh} & {c["id"] for c in tuned}
    tuned_turns = {t["content"] for c in tuned for t in c["turns"] if t["role"] == "user"}
    assert (
        not {
            t["content"]
            for c in fresh
            for t in c["turns"]
            if t["role"] == "user" and len(t["content"]) > 20
        }
        & tuned_turns
    )


def test_the_transcripts_are_described_and_licensed() -> None:
    readme = (EXTRACTION / "README.md").read_text(encoding="utf-8")
    assert "fresh.jsonl" in readme
    assert "never used for tuning" in readme
    assert "fresh.jsonl" in (EXTRACTION / "LICENSE").read_text(encoding="utf-8")
