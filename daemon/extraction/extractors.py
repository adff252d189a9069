"""Extractors: from a finished task's turns to candidate memories.

Owns: the ``Extractor`` Protocol every extractor meets, the ``Candidate`` it
proposes, and the built-in extractor (``Builtin``), which runs offline with
no model.

The built-in extractor reads the **user's** turns only. It proposes verbatim
sentences that state something durable, judged by the sentence's structure
rather than by fixed phrases alone: a lesson (a cause found, a past failure
with its cause: "last time X broke because Y", "上回…结果…"), a procedure
(steps, or what to do when something happens: "whenever X, check Y", a turn
that tells several steps "first…then…", "先…然后…"), a preference, or a fact
(the team's conventions "we squash-merge…", "我们组要求…", copular facts about
named systems "the CI runners are arm64", who the user is), or a rule (an
obligation or a quantified imperative "never apply…", "一定要…"); weaker signs
("we…", "our…", "every…", a contrast "…, not Y") count when two meet.
Left out: questions, one-off requests, acknowledgements, guesses, the
state of the moment ("for now", "现在"), past events told without a lesson,
symptoms being reported, the assistant's words quoted back, code, and
sentences too short or too long to stand alone. Each candidate is typed,
titled and keeps the turn and character span it was cut from; repeats within
the transcript are dropped.

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
_INLINE_CODE = re.compile(r"`[^`\n]{1,80}`")
# Sentence ends: Latin terminators followed by a space or the end (so
# "3.12", "settings.py" and "5.x" stay inside their sentence), CJK
# terminators anywhere, and line breaks.
_SENTENCE = re.compile(
    r"(?:[^.!?。！？；\n]|[.!?](?![.!?]*(?:\s|$)))+(?:[.!?]+(?=\s|$)|[。！？；]|(?=\n)|$)")
_CJK = re.compile(r"[\u3400-\u9fff]")
_WORD = re.compile(r"[A-Za-z0-9_'-]+")


def _cues(*patterns: str) -> re.Pattern[str]:
    """One pattern for a list of cues: Latin ones match whole words, CJK ones
    anywhere."""
    parts = [p if _CJK.search(p) else rf"(?<![\w']){p}(?![\w'])" for p in patterns]
    return re.compile("|".join(parts))


# What makes a sentence durable, by the kind of statement it is; ``_classify``
# weighs them, with the cues against, in the order it states.
_LESSON = _cues(
    # a cause found, a past failure and what it taught
    "lessons?", "learned the hard way", "turns out", "turned out", "root cause",
    "the problem was", "the fix was", "bit us", "caused the outage", "we learned",
    "mistake was", "never again", "last time", "seen this before", "got burned",
    "got bitten", "burned us",
    "otherwise", "which is why", "that's why", "for exactly this reason",
    "教训", "原来是", "根本原因", "根因", "踩过坑", "踩坑", "问题出在", "上次", "上回",
    "结果", "否则", "就会", "问题是")
_PROCEDURE = _cues(
    # steps, and what to do when something happens
    "before merging", "before you merge", "before deploying", "before you deploy",
    "before releasing", "before a release", "to deploy", "to release", "to roll back",
    "to rollback", "the way to", "the steps are", "step one", "first run", "first, run",
    "make sure to", "make sure you", "remember to", "always run", "next time",
    "whenever", r"(?:when|if|before|after|every time|each time) (?:a|an|any|we|"
    r"you(?! (?:need|want|like|prefer|can|could|have time)\b))",
    r"^to [a-z]+ [^,]{3,60},",
    "部署前", "发布前", "上线前", "合并前", "步骤", "先运行", "先跑", "记得", "流程",
    "回滚时", "重启前", "下次", "每当", "每次", "之前", "是这样做的", "手册")
_PREFERENCE = _cues(
    # how the user wants things done
    "i prefer", "i'd prefer", "i would prefer", "i'd rather", "i would rather",
    "i like", "i don't like", "i do not like", "i hate", "i love", "please always",
    "please never", "always use", "never use", "don't ever", "do not ever",
    "from now on", "going forward", "in the future", "by default", "i want you to",
    "don't use", "do not use", "use tabs", "use spaces", "generally", "in general",
    "as a rule", "i care", "i'd like", "i would like", "i don't want",
    "我喜欢", "我更喜欢", "我偏好", "我习惯", "我不喜欢", "不太喜欢", "请总是", "请始终",
    "以后", "永远不要", "不要再", "别再", "默认", "一律", "总是用", "统一", "最好", "一般")
_FACT = _cues(
    # the user's world: the team's conventions, the systems and who the user is
    "we use", "we're using", "we are using", "we deploy", "we run", "we host",
    "our team", "our service", "our services", "our cluster", "our database",
    "our api", "our repo", "our project", "our on-call", "our oncall", "our ci",
    "our staging", "our production", "the team", "my team", "convention", "agreed",
    "heads up", "for context", "background", "fyi", "note that", "keep in mind",
    "for the record", "my name is", "i work on",
    r"i(?:'m| am) (?:the|a|an|on the|responsible)", "i maintain", "i own",
    "the project uses", "this project uses", "this repo uses", "the repo uses",
    "is hosted on", "is deployed to", "runs on", "lives in", "is built with",
    "usually", "typically", "normally",
    "我们用", "我们使用", "我们的", "团队", "约定", "规矩", "规范", "要求", "遵循", "注意",
    "我叫", "我负责", "负责", "平时", "通常", "项目使用", "项目用", "部署在", "运行在",
    "仓库用")
# A rule: an obligation, or an imperative that holds always ("never apply…",
# "any table over…has to…", "一定要…").
_RULE = re.compile(
    r"(?<![\w'])(?:must|has to|have to|is required|are required|by hand)(?![\w'])"
    r"|^(?:(?:also|and|so|but)[ ,]+)?(?:please\s+)?(?:always|never|don't|do not|avoid)\s"
    r"|必须|一定要|只能|不要|不能|禁止|永远|都要|都得")
# A fact about a named thing: "the CI runners are arm64", "…的数据库是…",
# "staging uses local-path".
_COPULAR = re.compile(
    r"^(?:(?:also|and|so|but|quick background|note)[ ,:]+)?(?:the|all)\s"
    r"(?:[\w.'-]+\s){1,4}?(?:is|are|runs?|uses?|lives?|has|have|rotates?|"
    r"shares?|stores?|belongs?|points?|needs?|requires?|expects?|sits?)\s"
    r"(?!(?:now|still|currently|green|red|down|up|broken|done|ready|fine|"
    r"healthy|slow|stuck|failing|back|empty|full|at|not|too|on|in|for|gone|fixed|"
    r"resolved|working)\b)"
    r"|^[^，,]{2,20}的[^，,]{1,12}是")
_USES = re.compile(r"(?<![\w'])(?!(?:it|this|that)\b)[a-z][\w.-]* uses(?![\w'])"
                   r"|(?<![\w'])[a-z][\w.-]*[a-z]s use(?![\w'])")
# Weaker signs of a lasting statement; two different ones make one keep it.
_WEAK: tuple[re.Pattern[str], ...] = (
    # the team speaks: "we squash-merge…", "our …", "我们…"
    re.compile(r"(?<![\w'])we(?: don't| do not| always| never| only| all)? "
               r"(?!(?:were|was|had|have|did|got|just|also|then|still|can|could|might|"
               r"may|will|won't|'ll|'re|are|'d|would|need|needs|want|\w+ed)\b)[a-z-]+"
               r"|(?<![\w'])our(?![\w'])|我们"),
    # a quantifier over all cases
    re.compile(r"(?<![\w'])(?:every|each|any|anything|anyone|everyone|everything|"
               r"everywhere|all|per)(?![\w'])|所有|任何|每|都|一律"),
    re.compile(r"(?:^|(?<!\band)(?<!\bbut)(?<!\bor) |, )(?:always|never)(?![\w'])"),
    # how often, habitually: "…refreshed weekly", "on fridays"
    re.compile(r"(?<![\w'])(?:hourly|daily|nightly|weekly|monthly|on (?:mondays|tuesdays|"
               r"wednesdays|thursdays|fridays|saturdays|sundays|weekends|weekdays))(?![\w'])"
               r"|工作日|周末"),
    # a team or a quantifier over no one: "the frontend team owns…", "nothing goes…"
    re.compile(r"(?<![\w'])(?:team|nothing|nobody|no one)(?![\w'])"),
    # a contrast with what is not done: "…, not pip-tools", "…，不在应用里配"
    re.compile(r", (?:not|never|rather than|instead of|no) |而不是|，不[在是用]"),
    # a subject that is no particular thing: "memory limits should…", "secrets live…"
    re.compile(r"^(?!(?:the|this|that|it|these|those|we|i|you|both|all|some)\b)"
               r"[a-z][\w-]*(?:\s[a-z][\w-]*){0,3}\s(?:should|are|go|live|come|need)\b"),
)
# A past failure told with its cause is a lesson.
_FAILURE = re.compile(r"(?<![\w'])(?:outage|broke|broken|failed|fails|crashed|down|lost|"
                      r"burned|leaked|corrupted|double[- ]wrote)(?![\w'])|故障|挂|丢|双写")
_CAUSE = re.compile(r"(?<![\w'])(?:because|caused by|due to|so we|which meant)(?![\w'])"
                    r"|因为|由于|导致|所以")
# What reports an event or the state of the moment rather than how things
# are: a past event, a measurement, a fault being diagnosed, a fix asked for.
# A lesson may tell of a past event; nothing else kept does.
_EVENT = re.compile(
    r"\b(?:we|i|it|they|he|she|someone)\s+(?:just\s+|already\s+)?"
    r"(?!(?:agreed|decided|need|used)\b)\w+ed\b"
    r"|\b(?:went|broke|lost|got|saw|came|fell|took|forgot)\b"
    r"|\d\s?%|\b(?:is|are|am)\s+(?!using\b|running\b)\w+ing\b|'(?:re|m)\s+(?!using\b)\w+ing\b"
    r"|\b(?:wrong|misleading|flaky|broken|confusing|incorrect|not working|doesn't work)\b"
    r"|\b(?:after|during|since) (?:the|your|my|our|this|that) (?:deploy|restart|change|"
    r"release|migration|upgrade|incident|outage|rollout|fix)\b"
    r"|^(?:the|this|that) (?:error|issue|problem|bug|failure|crash|exception)s? (?:is|are)\b"
    r"|\b(?:fix|rename|change|revert|remove|delete|update|merge|check|try|move|do)\s+"
    r"(?:it|that|this|them)\b"
    r"|^(?:it|that)\b|^(?:always|never) (?:the|seen|been|had|a|an)\b"
    r"|\bon my (?:machine|laptop|side)\b|\blocally\b|must have (?:been|\w+ed)"
    r"|^the (?:new|latest|current|last|old|previous)\b"
    r"|[,;:]\s*(?:and\s+|so\s+)?(?:please\s+)?[a-z]+\s+(?:it|that|this|them)(?: up)?[.!]?$"
    r"|\bwhile (?:we|i)\b|\b(?:today|yesterday|this morning|this afternoon)\b"
    r"|\b(?:failing|crashed|crashing|spiking|twice|gaps|is down|are down|keeps \w+ing|"
    r"backed up|piling up|never (?:finishes|completes|returns|works|ends|starts|loads))\b"
    r"|\b(?:this|next|by|before|until|on) (?:monday|tuesday|wednesday|thursday|friday|"
    r"saturday|sunday|week|sprint)\b"
    r"|了(?:[，。！,.!]|$)|(?:这|下|上)(?:周|星期)|(?:周|星期)[一二三四五六日天末]之前"
    r"|不对|有问题|快满|有点高|涨得|报错|挂了|昨天|今天")
# A step of a procedure told over several sentences: counted when the turn
# opens at least two of its sentences so and tells a way of doing something
# (a procedure's cue in the turn, or steps said of anyone: "first you…"),
# not the steps of today's task ("first rebase. then push.").
_SEQUENCE = re.compile(r"^(?:first|then|next|after that|finally|second|third|step \d)\b"
                       r"|^(?:先|然后|接着|最后|再)")
_ANYONE = re.compile(r"(?<![\w'])(?:you|we|one)(?![\w'])|我们|一般|通常")
# Cues against, whatever else the sentence holds: a guess, a remark of the
# moment, the assistant's words quoted back, thanks, an aside offered for the
# task at hand.
_AGAINST = _cues(
    "maybe", "might", "perhaps", "probably", "i think", "i guess", "not sure",
    "at some point", "i wonder",
    "now", "for now", "right now", "at the moment", "currently", "yet", "tonight",
    "tomorrow", "again", "this one", "later",
    "you said", "you mentioned", "you suggested", "as you said", "you wrote",
    "thanks", "thank you", r"if you (?:need|want) (?:it|them|that|one)",
    "可能", "也许", "大概", "或许", "不确定", "还没定", "现在", "目前", "暂时", "刚才",
    "一下", "吧", "谢谢", "你说", "你刚才", "你提到", "刚刚", "马上", "快看", "我觉得",
    "我感觉", "好像", "似乎")
_LASTING = re.compile(r"from now on|never again|以后|下次")
# A change of a lasting practice says how things are from now on: "we
# switched to…", "I now prefer…", "我们改用…". Its "now" is not of the
# moment and its past tense tells no event.
_CHANGE = _cues(
    r"(?:we|i)(?:'ve| have)? (?:now |just )?(?:switched|moved|migrated|changed) (?:over )?to",
    r"(?:we|i) now (?:use|prefer|run|deploy|host|want|like)", r"(?:we|i) no longer",
    # a lasting verb after "now": "the database now listens on…"
    r"now (?:listens|uses|runs|lives|points|requires|needs|serves|deploys|builds|ships|"
    r"stores|goes|belongs)",
    r"^we (?:use|run|deploy|host|build|ship)\b.*\bnow",
    "改用", "换成", "不再", "现在更喜欢", "现在喜欢", "现在用", "现在统一")
# Openings of a one-off request, a question or an acknowledgement.
_ONE_OFF = re.compile(
    r"^(?:can you|could you|would you|will you|please (?:fix|run|add|check|look|do)|let's|"
    r"lets|ok|okay|thanks|thank you|what|why|how|where|when (?:is|are|do|does|did|will)|"
    r"which|who|is there|are there|do you|does|did|hmm|now|try|never mind|good|great|"
    r"nice|right|ugh|yes|no,|sure|sorry)\b"
    r"|^(?:帮我|请帮|能不能|可以帮|为什么|怎么|什么|谢谢|好的|不错|嗯|那)")
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
    prose = _INLINE_CODE.sub("code", sentence)
    return ("`" in prose or prose.count("(") > 2 or prose.count("=") > 1
            or prose.count("/") > 4 or prose.lstrip().startswith(("$", "#!", "{")))


def _classify(sentence: str, in_sequence: bool = False) -> str | None:
    """The type of a durable statement, or None for anything else: left out
    on a question, a one-off opening, code, a length out of bounds or a cue
    against; a lesson; left out on an event of the moment; a procedure,
    preference or fact by its cue, a step of a told procedure; a copular
    fact, a rule, or two weaker signs.
    ``in_sequence``: the sentence is a step of several its turn tells."""
    low = sentence.casefold()
    if "?" in low or "？" in low or _ONE_OFF.match(low) or _looks_like_code(sentence):
        return None
    if len(sentence) > _MAX_CHARS:
        return None
    cjk = len(_CJK.findall(sentence))
    if cjk < _MIN_CJK and len(_WORD.findall(_INLINE_CODE.sub("", sentence))) < _MIN_WORDS:
        return None
    changed = _CHANGE.search(low) is not None
    if _AGAINST.search(_CHANGE.sub("", _LASTING.sub("", low))):
        return None
    if _LESSON.search(low) or (_FAILURE.search(low) and _CAUSE.search(low)):
        return "lesson"
    if not changed and _EVENT.search(low):
        return None
    for kind, cue in (("procedure", _PROCEDURE), ("preference", _PREFERENCE),
                      ("fact", _FACT)):
        if cue.search(low):
            return kind
    if in_sequence and _SEQUENCE.match(low):
        return "procedure"
    if _COPULAR.search(low) or _USES.search(low):
        return "fact"
    weak = sum(1 for cue in _WEAK if cue.search(low))
    if _RULE.search(low) or weak >= 2:
        # A rule with a subject of its own is a fact about that subject;
        # one without (an imperative) is how the user wants things done.
        return "fact" if weak and not _RULE.match(low) else "preference"
    if changed:
        return "preference" if re.match(r"i\b|我(?!们)", low) else "fact"
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
            spans = _sentences(turn.content)
            sentences = [turn.content[a:b].casefold() for a, b in spans]
            steps = [s for s in sentences if _SEQUENCE.match(s)]
            in_sequence = len(steps) >= 2 and (
                any(_PROCEDURE.search(s) for s in sentences)
                or any(_ANYONE.search(s) for s in steps))
            for start, end in spans:
                body = turn.content[start:end]
                kind = _classify(body, in_sequence=in_sequence)
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
