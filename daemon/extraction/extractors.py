"""Extractors: from a finished task's turns to candidate memories.

Owns: the ``Extractor`` Protocol every extractor meets, the ``Candidate`` it
proposes, and the built-in extractor (``Builtin``), which runs offline with
no model.

The built-in extractor reads the **user's** turns only. It proposes verbatim
sentences that state something durable: a preference ("I prefer…",
"我更喜欢…"), a fact about the user's world ("we deploy with…", "我们用…"),
a procedure ("before merging, run…", "部署前先…") or a lesson ("turns out…",
"教训是…"). Questions, code, one-off requests and sentences too short or too
long to stand alone are left out. Each candidate is typed, titled and keeps
the turn and character span it was cut from; repeats within the transcript
are dropped.

Invariants:
- a candidate's body is exactly ``turns[turn].content[start:end]``, a user
  turn's own words (the worker checks it again before proposing);
- an extractor never stores or logs what it read; it returns candidates and
  counts only.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Protocol

from memoryd.daemon.extraction.transcripts import Turn

__all__ = ["Builtin", "Candidate", "Extracted", "Extractor", "normalised"]


@dataclass(frozen=True, slots=True)
class Candidate:
    type: str  # preference | fact | procedure | lesson
    title: str
    body: str
    turn: int  # the turn's index in the submitted transcript
    start: int  # character span in that turn's content
    end: int


@dataclass
class Extracted:
    candidates: list[Candidate] = field(default_factory=list)
    # Candidates dropped by the extractor, by reason (counts only).
    dropped: dict[str, int] = field(default_factory=dict)


class Extractor(Protocol):
    name: str

    def extract(self, turns: Sequence[Turn], max_candidates: int) -> Extracted: ...


def normalised(text: str) -> str:
    """Text as compared for repeats: case, width, spaces and punctuation folded."""
    folded = unicodedata.normalize("NFKC", text).casefold()
    return "".join(ch for ch in folded if ch.isalnum())


# --- the built-in extractor ----------------------------------------------------

_CODE_FENCE = re.compile(r"```.*?(?:```|\Z)", re.S)
# Sentence ends: Latin terminators followed by a space or the end, CJK
# terminators anywhere, and line breaks.
# A Latin terminator inside a word ("3.12", "e.g") ends no sentence.
_SENTENCE = re.compile(r"(?:[^.!?。！？；\n]|[.!?](?=[^\s.!?]))+"
                       r"(?:[.!?](?=\s|$)|[。！？；]|(?=\n)|$)")
_CJK = re.compile(r"[\u3400-\u9fff]")
_WORD = re.compile(r"[A-Za-z0-9_'-]+")

# Markers per type, most specific first: the first type whose marker a
# sentence holds is its type.
_MARKERS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("lesson", (
        "lesson", "learned the hard way", "turns out", "turned out", "the root cause",
        "root cause was", "the problem was", "next time", "the fix was", "bit us",
        "caused the outage", "we learned", "mistake was", "never again",
        "教训", "原来是", "根本原因", "根因", "下次", "踩过坑", "踩坑", "问题出在",
    )),
    ("procedure", (
        "before merging", "before you merge", "before deploying", "before you deploy",
        "before releasing", "before a release", "to deploy", "to release", "to roll back",
        "to rollback", "the way to", "the steps are", "step one", "first run", "first, run",
        "make sure to", "make sure you", "remember to", "always run", "run the",
        "部署前", "发布前", "上线前", "合并前", "步骤", "先运行", "先跑", "记得", "流程是",
        "回滚时", "重启前",
    )),
    ("preference", (
        "i prefer", "i'd prefer", "i would prefer", "i'd rather", "i would rather",
        "i like", "i don't like", "i do not like", "i hate", "i love", "please always",
        "please never", "always use", "never use", "don't ever", "do not ever",
        "from now on", "going forward", "in the future", "by default", "i want you to",
        "i now prefer", "i no longer like", "i no longer want",
        "don't use", "do not use", "use tabs", "use spaces",
        "我喜欢", "我更喜欢", "我现在更喜欢", "我现在喜欢", "我偏好", "我习惯", "我不喜欢",
        "请总是", "请始终", "以后",
        "永远不要", "不要再", "别再", "默认用", "默认使用", "一律", "总是用", "统一用",
    )),
    ("fact", (
        "we use", "we're using", "we are using", "we deploy", "we run", "we host",
        "our team", "our service", "our services", "our cluster", "our database",
        "our api", "our repo", "our project", "our on-call", "our oncall", "our ci",
        "our staging", "our production", "my name is", "i work on", "i'm on the",
        "i am on the", "we switched to", "we moved to", "we migrated to", "we now use",
        "we no longer use", "we've switched", "we've moved", "the project uses",
        "this project uses", "this repo uses",
        "the repo uses", "is hosted on", "is deployed to", "runs on", "lives in",
        "我们用", "我们使用", "我们改用", "我们现在用", "我们换成", "我们不再用", "我们的",
        "我叫", "项目使用", "项目用", "部署在", "运行在",
        "我负责", "团队用", "仓库用",
    )),
)
# Openings of a one-off request or question rather than a durable statement.
_ONE_OFF = (
    "can you", "could you", "would you", "will you", "please fix", "please run",
    "please add", "please check", "please look", "let's", "lets ", "ok", "okay", "thanks",
    "thank you", "what", "why", "how", "where", "when", "which", "who", "is there",
    "are there", "do you", "does ", "did ", "hmm", "now ", "try ",
    "帮我", "请帮", "能不能", "可以帮", "为什么", "怎么", "什么", "谢谢", "好的",
)
_MIN_WORDS = 5
_MIN_CJK = 6
_MAX_CHARS = 300
_TITLE_WORDS = 8
_TITLE_CJK = 16


def _sentences(text: str) -> list[tuple[int, int]]:
    """(start, end) spans of the sentences of ``text`` outside code fences,
    trimmed of surrounding spaces and list markers."""
    blocked = [(m.start(), m.end()) for m in _CODE_FENCE.finditer(text)]
    spans = []
    for m in _SENTENCE.finditer(text):
        start, end = m.start(), m.end()
        if any(b0 <= start < b1 or b0 < end <= b1 for b0, b1 in blocked):
            continue
        while start < end and (text[start].isspace() or text[start] in "-*•>#"):
            start += 1
        while end > start and text[end - 1].isspace():
            end -= 1
        if end > start:
            spans.append((start, end))
    return spans


def _looks_like_code(sentence: str) -> bool:
    return ("`" in sentence or sentence.count("(") > 2 or sentence.count("=") > 1
            or sentence.count("/") > 4 or sentence.lstrip().startswith(("$", "#!", "{")))


def _classify(sentence: str) -> str | None:
    low = sentence.casefold()
    if low.endswith(("?", "？")) or "?" in low or "？" in low:
        return None
    if low.startswith(_ONE_OFF) or _looks_like_code(sentence):
        return None
    if len(sentence) > _MAX_CHARS:
        return None
    cjk = len(_CJK.findall(sentence))
    if cjk < _MIN_CJK and len(_WORD.findall(sentence)) < _MIN_WORDS:
        return None
    for kind, markers in _MARKERS:
        if any(marker in low for marker in markers):
            return kind
    return None


def title_of(sentence: str) -> str:
    """A short title cut from the sentence's own words."""
    text = sentence.strip().rstrip(".!。！；;")
    if len(_CJK.findall(text)) >= _MIN_CJK:
        return text if len(text) <= _TITLE_CJK else text[:_TITLE_CJK] + "…"
    words = text.split()
    title = " ".join(words[:_TITLE_WORDS])
    if len(words) > _TITLE_WORDS:
        title += "…"
    return title[:1].upper() + title[1:]


class Builtin:
    """The offline extractor: durable statements in the user's own words."""

    name = "builtin"

    def extract(self, turns: Sequence[Turn], max_candidates: int) -> Extracted:
        out = Extracted()
        seen: list[str] = []
        for turn in turns:
            if turn.role != "user":
                continue
            for start, end in _sentences(turn.content):
                body = turn.content[start:end]
                kind = _classify(body)
                if kind is None:
                    continue
                key = normalised(body)
                if not key or any(key in s or s in key for s in seen):
                    out.dropped["repeated"] = out.dropped.get("repeated", 0) + 1
                    continue
                if len(out.candidates) >= max_candidates:
                    out.dropped["over_cap"] = out.dropped.get("over_cap", 0) + 1
                    continue
                seen.append(key)
                out.candidates.append(Candidate(kind, title_of(body), body, turn.index,
                                                start, end))
        return out
