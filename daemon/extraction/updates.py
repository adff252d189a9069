"""What an extracted candidate does to the active entries of its scope.

Owns: the rule that says whether a candidate statement *repeats* an active
entry (it is dropped), *updates* one (it is proposed as a ``supersede`` of
it) or is new (an ``add``), and the words it reads to say so. Pure: it takes
the candidate and the entries as arguments; the worker
(daemon/extraction/extract_worker.py) reads them (the one under the
candidate's title and the scope's newest) just before the transaction that
writes the candidate's outcome, which names the revision it read.

The rule, by principle rather than by example:

- A statement is read as a set of **content words** (English words lightly
  stemmed, stop words left out; each Chinese character outside a short stop
  list), a **polarity** (a negation: "not", "don't", "no longer", "不", "不再"…)
  and whether it holds a **change cue** ("now", "instead", "actually",
  "switched to", "no longer", "现在", "改用", "换成", "不再"…). Cue words
  are not content: "We now use pnpm" says what "We use pnpm" says.
- A **repeat**: the same content words with the same polarity (case,
  punctuation and cue words aside). Any type.
- An **update** of an entry of the same type: the two share a subject — the
  Dice overlap of their content words is at least ``SUBJECT`` — and then
  either the polarity flips (a contradiction: "I no longer like dark mode"),
  or each side has words the other lacks (the old value replaced by a new
  one) and either the statement holds a change cue (overlap at least
  ``SUBJECT_CUED``) or every word that differs is a value — a number, a
  version, a port, a time (words with a digit, Chinese numerals). Two
  statements that differ in a word that is not a value, with no cue, are two
  subjects ("our staging database…" / "our production database…"); a
  statement that only adds words adds detail and replaces nothing.
- An entry under the candidate's own title is updated whatever it says (an
  ``add`` under a held title could never be applied).
- With the ``semantic`` extra, the cosine of the two statements' embeddings
  (``near``) adds one kind of repeat the words miss, a paraphrase: cosine at
  least ``NEAR``, the same polarity, the same values, and no update by the
  words. The model places "port 5432" and "port 6432" side by side (cosine
  about 0.97-0.99), and "our staging/production database" too, so the
  embedding never makes an update, and never overrules a value that differs.

Invariants:
- a repeat wins over an update, the entry under the same title over any
  other, then the highest overlap; ties go to the entry listed first;
- nothing here stores or logs what it reads.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

__all__ = ["NEAR", "SUBJECT", "SUBJECT_CUED", "Match", "Statement", "Stored", "match",
           "same_as_earlier", "shortlist", "statement"]

# The overlap two statements need to be about one subject; a change cue
# ("now", "switched to", "改用") lets a little less through, since the
# user said outright that something changed.
SUBJECT = 0.6
SUBJECT_CUED = 0.55
# Cosine (multilingual-e5-small, daemon/semantic/embedding.py) at or above
# which two statements with the same values and polarity say the same: a
# paraphrase scores 0.98 and more, another subject of the same shape
# ("our production database…" beside "our staging database…") about 0.97.
NEAR = 0.98


@dataclass(frozen=True, slots=True)
class Stored:
    """An active entry of the candidate's scope, as the worker read it."""

    entry_id: str
    revision: int
    type: str
    title: str
    body: str


@dataclass(frozen=True, slots=True)
class Match:
    kind: str  # "repeat" | "update"
    entry_id: str
    revision: int


@dataclass(frozen=True, slots=True)
class Statement:
    words: frozenset[str]
    negated: bool
    cued: bool


# Change cues: phrases that say a value changed. Longest first, so that
# "no longer" is taken whole before "no" is read as a negation.
_CUES_EN = ("no longer", "not anymore", "any more", "anymore", "instead", "actually",
            "changed to", "change to", "switched to", "switch to", "switched from",
            "moved to", "migrated to", "replaced", "these days", "nowadays", "now")
_CUES_ZH = ("现在", "目前", "改用", "改成", "改为", "换成", "换用", "换到", "迁移到", "迁到",
            "不再", "其实", "已经改")
# Negations flip a statement's polarity; checked before cues are removed.
_NEGATIONS_EN = frozenset({"not", "no", "never", "don't", "dont", "doesn't", "isn't",
                           "aren't", "won't", "wasn't", "shouldn't", "can't", "cannot",
                           "stop", "stopped"})
_NEGATIONS_ZH = ("不", "没", "别", "勿", "停止")
_STOP_EN = frozenset("""
a an the i i'm i've i'd we we're we've our ours us my me you your it it's its is are was
were be been being am to of in on at for with from by and or but so that this these those
as all every each do does did have has had will would should can could please just also
there here they them their he she his her what which who then than too very really
about into onto over under up out off if else any some much many more most via per
""".split())
# Single characters that carry no subject: particles, pronouns, measure words.
_STOP_ZH = frozenset("的了是在我们你他她它也都就和与及把被给这那个吧呢啊吗呀嘛着过更很还又再让")
_ZH_NUMERALS = frozenset("零一二两三四五六七八九十百千万半")
_CJK = re.compile(r"[\u3400-\u9fff]")
_LATIN = re.compile(r"[a-z0-9](?:[a-z0-9'._:+/-]*[a-z0-9])?")
_CUE_EN = re.compile(r"(?<![a-z0-9])(?:" + "|".join(re.escape(c) for c in _CUES_EN)
                     + r")(?![a-z0-9])")


def _stem(word: str) -> str:
    """A light English stem: enough for "listens"/"listen", "deploying"/"deploy"."""
    if any(ch.isdigit() for ch in word):
        return word
    for suffix in ("ing", "ed", "es", "s"):
        if word.endswith(suffix) and len(word) - len(suffix) >= 4 and not word.endswith("ss"):
            return word[:-len(suffix)]
    return word


def statement(text: str) -> Statement:
    """The content words, polarity and cue of one statement."""
    low = unicodedata.normalize("NFKC", text).casefold().replace("’", "'")
    negated = (any(w in _NEGATIONS_EN for w in _LATIN.findall(low))
               or "no longer" in low or any(n in low for n in _NEGATIONS_ZH))
    cued = _CUE_EN.search(low) is not None or any(c in low for c in _CUES_ZH)
    low = _CUE_EN.sub(" ", low)
    for cue in _CUES_ZH:
        low = low.replace(cue, " ")
    words = {_stem(w) for w in _LATIN.findall(low)
             if w not in _STOP_EN and w not in _NEGATIONS_EN}
    words.update(ch for ch in _CJK.findall(low) if ch not in _STOP_ZH
                 and ch not in _NEGATIONS_ZH)
    return Statement(frozenset(words), negated, cued)


def _is_value(word: str) -> bool:
    return any(ch.isdigit() for ch in word) or word in _ZH_NUMERALS


def _overlap(a: frozenset[str], b: frozenset[str]) -> float:
    return 2 * len(a & b) / (len(a) + len(b)) if a or b else 0.0


def updates(new: Statement, old: Statement) -> float | None:
    """The overlap by which ``new`` updates ``old``, or None when it does not."""
    overlap = _overlap(new.words, old.words)
    if overlap < min(SUBJECT, SUBJECT_CUED):
        return None
    if new.negated != old.negated:
        return overlap if overlap >= SUBJECT else None
    only_old, only_new = old.words - new.words, new.words - old.words
    if not only_old or not only_new:
        # Nothing replaced: the statement adds detail (or is a repeat).
        return None
    if new.cued:
        return overlap
    if overlap >= SUBJECT and all(_is_value(w) for w in only_old | only_new):
        return overlap
    return None


def _values(s: Statement) -> frozenset[str]:
    return frozenset(w for w in s.words if _is_value(w))


def _paraphrase(new: Statement, old: Statement, cosine: float | None) -> bool:
    """A repeat in other words: near-identical embeddings, the same polarity
    and values, and no update by the words."""
    return (cosine is not None and cosine >= NEAR and new.negated == old.negated
            and _values(new) == _values(old) and updates(new, old) is None)


def match(kind: str, title: str, body: str, stored: Sequence[Stored],
          near: Mapping[str, float] | None = None) -> Match | None:
    """What the candidate (``kind``, ``title``, ``body``) does to ``stored``,
    the active entries of its scope: a repeat, an update, or None (an add).
    ``near``: entry id → cosine of the candidate's and the entry's
    embeddings, where the semantic extra computed one."""
    new = statement(body)
    best: tuple[float, Stored] | None = None
    for entry in stored:
        old = statement(entry.body)
        if entry.body == body or (new.words and new.words == old.words
                                  and new.negated == old.negated):
            return Match("repeat", entry.entry_id, entry.revision)
        if _paraphrase(new, old, None if near is None else near.get(entry.entry_id)):
            return Match("repeat", entry.entry_id, entry.revision)
        if entry.title == title:
            score: float | None = 2.0  # above any overlap: see the module's invariants
        elif entry.type == kind:
            score = updates(new, old)
        else:
            score = None
        if score is not None and (best is None or score > best[0]):
            best = (score, entry)
    if best is None:
        return None
    return Match("update", best[1].entry_id, best[1].revision)


def same_as_earlier(bodies: Sequence[str], cosines: Sequence[Sequence[float]]) -> list[bool]:
    """Per candidate of one job, whether it repeats an earlier one that is
    kept: the same words, or (``cosines[i][j]``, the embeddings' cosine) a
    paraphrase by the rule ``match`` applies to entries."""
    said = [statement(b) for b in bodies]
    out: list[bool] = []
    for i, new in enumerate(said):
        out.append(any(
            not out[j] and ((new.words and new.words == said[j].words
                             and new.negated == said[j].negated)
                            or _paraphrase(new, said[j], cosines[i][j]))
            for j in range(i)))
    return out


def shortlist(body: str, stored: Sequence[Stored], limit: int) -> list[Stored]:
    """The entries worth embedding beside the candidate: those sharing at
    least a third of its content words (a paraphrase shares more), closest
    first, at most ``limit``."""
    new = statement(body)
    scored = [(_overlap(new.words, statement(e.body).words), i, e)
              for i, e in enumerate(stored)]
    return [e for score, _i, e in sorted(scored, key=lambda t: (-t[0], t[1]))
            if score >= 1 / 3][:limit]
