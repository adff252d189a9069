"""The labelled recall set (tests/data/recall_quality.json) is what it says it is.

bench/recall_quality.py measures recall on it; these checks keep the set
honest: enough queries in both languages, each naming a stored memory, and
every ``paraphrase`` query sharing no content word with its memory (English:
no word stem in common once stop words are dropped; Chinese: no two-character
sequence in common, the unit the lexical index matches Chinese words by),
while ``lexical`` queries do share one.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from memoryd.daemon.retrieval.text_index import STOP_CJK, STOP_WORDS

DATA = Path(__file__).resolve().parent.parent / "data" / "recall_quality.json"
SET: dict[str, Any] = json.loads(DATA.read_text(encoding="utf-8"))
MEMORIES = {m["key"]: m for m in SET["memories"]}
_CJK = re.compile(r"[\u4e00-\u9fff]")


def _stems(text: str) -> set[str]:
    # A crude stem (first five letters) is stricter than the index's porter
    # stemmer: "deploys" and "deployment" count as the same word here.
    words = re.findall(r"[a-z0-9]+", text.lower())
    return {w[:5] for w in words if w not in STOP_WORDS and not w.isdigit()}


def _chars(text: str) -> set[str]:
    grams: set[str] = set()
    for run in re.findall(r"[\u4e00-\u9fff]+", text):
        grams.update(run[i : i + 2] for i in range(len(run) - 1))
        if len(run) == 1 and run not in STOP_CJK:
            grams.add(run)
    return {g for g in grams if not all(ch in STOP_CJK for ch in g)}


def _shared(query: str, memory: dict[str, Any]) -> set[str]:
    text = memory["title"] + " " + memory["body"]
    return (_stems(query) & _stems(text)) | (_chars(query) & _chars(text))


def test_the_set_has_enough_queries_in_both_languages() -> None:
    queries = SET["queries"]
    assert len(queries) >= 60
    paraphrases = [q for q in queries if q["kind"] == "paraphrase"]
    assert len(paraphrases) * 2 >= len(queries)
    assert {q["kind"] for q in queries} == {"paraphrase", "lexical"}
    chinese = [q for q in queries if _CJK.search(q["q"])]
    assert len(chinese) >= 20
    assert any(_CJK.search(q["q"]) for q in paraphrases)


@pytest.mark.parametrize("query", SET["queries"], ids=lambda q: q["q"])
def test_each_query_names_a_stored_memory_and_fits_its_kind(query: dict[str, Any]) -> None:
    memory = MEMORIES[query["target"]]
    shared = _shared(query["q"], memory)
    if query["kind"] == "paraphrase":
        assert shared == set()
    else:
        assert shared
