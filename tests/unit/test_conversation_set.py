"""The conversation set (tests/data/conversations/) is what its README says it is.

bench/recall_quality.py --set conversations measures recall on it, and others
tune on its dev split; these checks keep it honest: enough conversations,
sessions, turns and questions in both languages and every category, every
evidence id a real turn, multi-hop evidence from more than one session, every
``paraphrase`` question sharing no content word with its evidence, the JSON
the same as its source builds, and the held-out split exactly as declared.

A content word is, in English, a word without one common ending (-ing,
-ed, -s, ...) cut to its first five letters, once stop words and the two
speakers' names are dropped (stricter than a stemmer: "wanted" and "wants"
are the same word here, so are "deploy" and "deployment");
in Chinese, a two-character sequence (the unit the lexical index matches
Chinese by) not made of stop characters only and not part of a speaker's name.
"""

from __future__ import annotations

import importlib.util
import json
import re
from collections import Counter
from datetime import datetime
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

HERE = Path(__file__).resolve().parent.parent / "data" / "conversations"
SETS: list[dict[str, Any]] = [
    json.loads(p.read_text(encoding="utf-8")) for p in sorted(HERE.glob("conv-*.json"))
]
QUESTIONS = [(c, q) for c in SETS for q in c["questions"]]
CATEGORIES = {"single-hop", "multi-hop", "temporal", "open-domain", "paraphrase"}

STOP_WORDS = frozenset(
    """
a an the and or but if then than so of to in on at by for with from into onto about
over under after before up down out off again very just also too not no yes nor
i me my mine we us our you your yours he him his she her hers it its they them their
this that these those there here who whom whose which what when where why how
is am are was were be been being do does did doing done have has had having
will would shall should can could may might must s t d ll re ve m
as all any some each every both either neither other such own same only
""".split()
)
STOP_CJK = frozenset("的了是在我你他她它们这那有和也都就不吗呢吧啊呀么个一上下")


def _load_builder() -> ModuleType:
    spec = importlib.util.spec_from_file_location(
        "make_conversations", HERE / "make_conversations.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def stem(word: str) -> str:
    """The word without one common ending (and a final e), cut to five letters."""
    if word.endswith("ies") and len(word) > 4:
        word = word[:-3] + "y"
    else:
        for ending in ("ing", "est", "ed", "er", "ly", "es", "s"):
            if (
                word.endswith(ending)
                and len(word) - len(ending) >= 3
                and not (ending == "s" and word.endswith("ss"))
            ):
                word = word[: -len(ending)]
                break
    if word.endswith("e") and len(word) > 3:
        word = word[:-1]
    return word[:5]


def content_words(text: str, speakers: list[str]) -> set[str]:
    names = {w for s in speakers for w in re.findall(r"[a-z0-9]+", s.lower())}
    words = {
        stem(w)
        for w in re.findall(r"[a-z0-9]+", text.lower())
        if w not in STOP_WORDS and w not in names
    }
    name_grams = {s[i : i + 2] for s in speakers for i in range(len(s) - 1)}
    for run in re.findall(r"[\u4e00-\u9fff]+", text):
        for i in range(len(run) - 1):
            gram = run[i : i + 2]
            if gram not in name_grams and not all(ch in STOP_CJK for ch in gram):
                words.add(gram)
    return words


def turns_of(conversation: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {
        t["id"]: {**t, "session": s["id"]} for s in conversation["sessions"] for t in s["turns"]
    }


def test_the_set_is_large_enough_in_both_languages_and_every_category() -> None:
    assert len(SETS) >= 6
    languages = Counter(c["language"] for c in SETS)
    assert languages["en"] >= 3 and languages["zh"] >= 2
    assert len(QUESTIONS) >= 320
    per_category = Counter(q["category"] for _, q in QUESTIONS)
    assert set(per_category) == CATEGORIES
    assert min(per_category.values()) >= 30, per_category


@pytest.mark.parametrize("conversation", SETS, ids=lambda c: c["id"])
def test_a_conversation_is_two_people_over_dated_sessions(conversation: dict[str, Any]) -> None:
    assert len(conversation["speakers"]) == 2
    sessions = conversation["sessions"]
    assert len(sessions) >= 4
    dates = [datetime.fromisoformat(s["date"]) for s in sessions]
    assert all(d.tzinfo is not None for d in dates)
    assert dates == sorted(dates) and len(set(dates)) == len(dates)
    turns = [t for s in sessions for t in s["turns"]]
    assert 80 <= len(turns) <= 200
    assert {t["speaker"] for t in turns} == set(conversation["speakers"])
    ids = [t["id"] for t in turns]
    assert len(set(ids)) == len(ids)
    for s in sessions:
        for n, t in enumerate(s["turns"], 1):
            assert t["id"] == f"{conversation['id']}:{s['id']}:t{n}"
            assert t["text"].strip()
    qids = [q["id"] for q in conversation["questions"]]
    assert len(set(qids)) == len(qids)


@pytest.mark.parametrize("item", QUESTIONS, ids=lambda cq: cq[1]["id"])
def test_a_question_cites_real_turns_of_its_conversation(
    item: tuple[dict[str, Any], dict[str, Any]],
) -> None:
    conversation, question = item
    turns = turns_of(conversation)
    assert question["category"] in CATEGORIES
    assert question["question"].strip() and question["answer"].strip()
    assert question["evidence"] and all(e in turns for e in question["evidence"])
    assert len(set(question["evidence"])) == len(question["evidence"])
    if question["category"] == "multi-hop":
        assert len({turns[e]["session"] for e in question["evidence"]}) >= 2


@pytest.mark.parametrize(
    "item",
    [cq for cq in QUESTIONS if cq[1]["category"] == "paraphrase"],
    ids=lambda cq: cq[1]["id"],
)
def test_a_paraphrase_shares_no_content_word_with_its_evidence(
    item: tuple[dict[str, Any], dict[str, Any]],
) -> None:
    conversation, question = item
    turns = turns_of(conversation)
    speakers = conversation["speakers"]
    asked = content_words(question["question"], speakers)
    assert asked
    for e in question["evidence"]:
        assert not asked & content_words(turns[e]["text"], speakers), e


def test_the_content_words_rule_sees_stems_and_bigrams() -> None:
    assert content_words("She painted it", ["Ana", "Ben"]) == {"paint"}
    assert content_words("painting with Ana", ["Ana", "Ben"]) == {"paint"}
    assert {stem(w) for w in ("want", "wanted", "wants")} == {"want"}
    assert {stem(w) for w in ("glaze", "glazes", "glazing", "glazed")} == {"glaz"}
    assert {stem(w) for w in ("class", "classes")} == {"class"}
    assert {stem(w) for w in ("story", "stories")} == {"story"}
    grams = content_words("我们去了杭州", ["李明", "王芳"])
    assert "杭州" in grams and "我们" not in grams
    assert "李明" not in content_words("李明去杭州", ["李明", "王芳"])


def test_the_held_out_split_is_the_declared_rule() -> None:
    builder = _load_builder()
    held = {c["language"] for c in SETS if c["split"] == "heldout"}
    assert held >= {"en", "zh"}
    for conversation in SETS:
        for q in conversation["questions"]:
            assert q["split"] == builder.question_split(conversation["split"], q["id"])
    heldout = sum(1 for _, q in QUESTIONS if q["split"] == "heldout")
    assert 0.25 <= heldout / len(QUESTIONS) <= 0.45
    dev = Counter(q["category"] for _, q in QUESTIONS if q["split"] == "dev")
    assert set(dev) == CATEGORIES


def test_the_json_is_what_its_source_builds() -> None:
    builder = _load_builder()
    for conversation in SETS:
        assert builder.build(HERE / "src" / f"{conversation['id']}.txt") == conversation


def test_the_licence_is_recorded_beside_the_set() -> None:
    readme = (HERE / "README.md").read_text(encoding="utf-8")
    assert "Apache-2.0" in readme
    assert "heldout" in readme
