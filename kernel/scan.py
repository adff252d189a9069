"""The content scanner: runs the rule table, gives verdicts, redacts.

Owns: ``scan`` (findings for one text), ``verdict`` / ``check_entry`` (the
daemon-facing answer for one proposed entry), ``redact`` (recall's second line
of defence) and ``ScanStats`` (the scanner's own work measure). The rules
themselves live in ``kernel/scan_rules.py``, the readings of a finding's
sentence that turn a refusal into a flag in ``kernel/scan_context.py``, the
folded copy and its map back in ``kernel/scan_fold.py``, the rule table's indexes, prefilter and
``ScanStats`` in ``kernel/scan_index.py``.

Invariants:
- pure: no I/O, no clock, no environment; the same input gives the same
  findings and the same ``ScanStats``;
- a ``Finding`` holds a rule id, a category and character offsets into the
  text as received (Python ``str`` indices) — never the matched text, so
  nothing built from findings can echo a secret;
- invisible and bidirectional characters are looked for in the text exactly
  as received, before any normalisation;
- secret and injection rules run on a folded copy — NFKC (fullwidth
  ``ｉｇｎｏｒｅ`` reads as ``ignore``), format characters (category Cf) dropped
  (so ``ig\\u200bnore`` reads as ``ignore`` too), whitespace runs collapsed to
  one space — and their offsets are mapped back onto the
  original text, covering every original character that produced the match;
- work is linear in the text: each rule is run at most once over the folded
  (or raw) text, each pattern's work per start position is bounded (see the
  pattern invariants in ``scan_rules``), each validator sees at most its match
  plus a bounded window; ``ScanStats`` counts it;
- prefilters change the cost, never the findings: a rule's prefilter is
  checked on the lower-cased copy of the same text its pattern runs on, and
  the positions it suggests are tried in the order ``finditer`` would try
  them; ``prefilter=False`` runs every pattern over the whole text, and the
  two must agree (``tests/unit/test_scan_prefilter.py``);
- prefilters are checked in one pass per text: the table's literals are
  indexed once per table (one Aho-Corasick DFA per side, a side's few
  hundred one-character literals as one character class beside it; an
  ASCII text is searched for the ASCII literals only); whether a text is
  printable ASCII and how long its longest word is are looked at once per
  text (the raw side's skip, the fold's shortcut, the encoded runs and the
  rules that need a long run); one pass over a text finds every literal it
  holds, and the rules whose every check holds one are the only prefiltered
  rules that run (a side none of whose literals a printable ASCII text can
  hold, the raw side, is not searched for such a text at all); a text held
  by several fields of one entry is scanned once;
- a printable ASCII text in which no rule can run (no literal set that holds
  a rule's every check, no word as long as a rule without a prefilter needs,
  no encoded run) is answered without the engine (``_text_findings``), with
  the same findings; the joined text is read without the raw rules and the
  encoded runs, whose findings that reading drops;
- fail closed: a validator that raises counts as a finding, and an empty rule
  table is refused rather than read as "nothing found".
"""

from __future__ import annotations

import bisect
import itertools
import re
from collections.abc import Mapping
from dataclasses import dataclass, replace
from types import MappingProxyType
from typing import Any

from memoryd.kernel.entry_text import scope_texts, stored_bytes
from memoryd.kernel.errors import ContentRejected, LimitExceeded
from memoryd.kernel.scan_context import (
    ARTEFACT_RULES,
    PAYLOAD_AFTER,
    PAYLOAD_BEFORE,
    asks_after,
    in_code_comment,
    may_mention,
    mentioned_in_warning,
    prohibited,
    quoted_mention,
    reported_dead,
    reported_of_another,
    shown_as_artefacts,
    shown_as_example,
    stands_in,
    trivial_code,
)
from memoryd.kernel.scan_fold import _ASCII_SPACE_OTHER as _ASCII_SPACE_OTHER
from memoryd.kernel.scan_fold import _FOLDABLE as _FOLDABLE
from memoryd.kernel.scan_fold import _FOLDABLE_ASCII as _FOLDABLE_ASCII
from memoryd.kernel.scan_fold import _fold, _Folded
from memoryd.kernel.scan_index import (
    _ALIAS_TABLE,
    _PLAIN_MARKS,
    _RUN_WORD,
    CASE_ALIASES,
    INJECTION_RULES,
    SECRET_RULES,
    ScanStats,
    _by_id,
    _in_context,
    _Index,
    _injection_rules,
    _matches,
    _may,
    _Table,
    _table,
    _View,
    too_dense,
)
from memoryd.kernel.scan_rules import CATEGORIES, RULES, ScanRule
from memoryd.kernel.secret_score import phone_or_measure
from memoryd.kernel.textnorm import (
    MAX_DECODED_CHARS,
    MAX_RUNS,
    PERCENT_RUN_ESCAPES,
    RUN_WORD_MIN,
    decode_run,
    encoded_runs,
    entity_pieces,
    leet_text,
    may_disguise,
    repair_text,
    rot13_text,
    shadow_pieces,
    spaced_pieces,
    wrapped_runs,
)

__all__ = [
    "CASE_ALIASES",
    "CATEGORIES",
    "INJECTION_RULES",
    "MAX_DETAIL_FINDINGS",
    "RULES",
    "SECRET_RULES",
    "FieldFinding",
    "Finding",
    "ScanRule",
    "ScanStats",
    "Verdict",
    "check_entry",
    "check_fields",
    "check_scopes",
    "redact",
    "scan",
    "scan_with_stats",
    "verdict",
    "verdict_fields",
]

# How deep decoding goes: base64 of hex of text is decoded twice, no further.
MAX_DECODE_DEPTH = 2
# The field name of findings that only show when title, summary and body are
# read as one text (an instruction split across them).
JOINED_FIELD = "title+summary+body"

# A verdict's wire details list at most this many findings (and say how many
# were left off), so one hostile body cannot make the error reply huge.
MAX_DETAIL_FINDINGS = 50

# Which category decides the error code when several fire. Invisible first:
# hidden characters can hide the rest from a human reviewer. Secrets before
# injection: a stored secret is the harm that cannot be taken back.
_CATEGORY_CODES: tuple[tuple[str, str], ...] = (
    ("invisible", "invisible_unicode"),
    ("secret", "secret_detected"),
    ("injection", "injection_detected"),
)


@dataclass(frozen=True, slots=True)
class Finding:
    """One rule that fired, where. Offsets are ``str`` indices, end exclusive."""

    rule_id: str
    category: str
    start: int
    end: int
    # Set when the match was found in decoded text: the run ``[start, end)``
    # of the original holds it, in this encoding ("base64", "hex+base64", …).
    encoding: str | None = None
    # A finding the rule cannot tell from a benign note: flag, do not refuse.
    review: bool = False
    # Set when the match was found in a shadow of the text (its look-alike
    # skeleton, HTML references decoded, rot13, leetspeak, spaced-out
    # letters): the kind, one of ``textnorm.SHADOW_KINDS``.
    shadow: str | None = None


def _span(m: re.Match[str]) -> tuple[int, int]:
    if "secret" in m.re.groupindex and m.start("secret") != -1:
        return m.start("secret"), m.end("secret")
    return m.start(), m.end()


def _accepts(rule: ScanRule, m: re.Match[str], stats: ScanStats) -> bool:
    if rule.validator is None:
        return True
    stats.validator_calls += 1
    stats.validator_chars += m.end() - m.start()
    try:
        return rule.validator(m)
    except Exception:  # noqa: BLE001 - any validator failure must count as a finding
        # Fail closed: a validator that cannot decide has not shown the match
        # harmless, so the match stands.
        return True


class _Composed:
    """A folded shadow: offsets map through the fold, then through the shadow."""

    __slots__ = ("inner", "outer", "text")

    def __init__(self, outer: _Folded, inner: _Folded) -> None:
        self.text = outer.text
        self.outer, self.inner = outer, inner

    def to_original(self, start: int, end: int) -> tuple[int, int]:
        s, e = self.outer.to_original(start, end)
        return self.inner.to_original(s, max(e, s + 1))


def _shadow(text: str) -> _Composed:
    """The look-alike skeleton of ``text``, folded like any text (``kernel/textnorm``)."""
    return _pieced(text, shadow_pieces(text))


class _Reread:
    """Another reading of a folded text, character for character (rot13,
    leetspeak, look-alike I's): same offsets, so the same map back."""

    __slots__ = ("base", "text")

    def __init__(self, base: _Folded | _Composed, text: str) -> None:
        self.base, self.text = base, text

    def to_original(self, start: int, end: int) -> tuple[int, int]:
        return self.base.to_original(start, end)


def _pieced(text: str, pieces: list[tuple[str, int, int]]) -> _Composed:
    """``pieces`` (``(piece, original offset, original length)``, in order,
    covering ``text``) as a text mapped back onto ``text``, folded like any."""
    f_start: list[int] = []
    o_start: list[int] = []
    o_len: list[int] = []
    copied: list[bool] = []
    parts: list[str] = []
    pos = 0
    for piece, orig, length in pieces:
        f_start.append(pos)
        o_start.append(orig)
        o_len.append(length)
        copied.append(piece == text[orig:orig + length])
        parts.append(piece)
        pos += len(piece)
    inner = _Folded("".join(parts), f_start, o_start, o_len, copied)
    return _Composed(_fold(inner.text), inner)


def _shadow_findings(text: str, rules: tuple[ScanRule, ...], table: _Table, folded: _Folded,
                     prefilter: bool, stats: ScanStats, ascii_text: bool) -> list[Finding]:
    """Findings in the shadows of ``text`` that differ from its folded copy,
    each naming its shadow's kind. The look-alike skeleton (with look-alike
    I's read as I), HTML references and spaced-out letters are read with
    every rule; rot13 and leetspeak, which turn secrets into other strings
    and prose into noise, with the injection rules alone."""
    out: list[Finding] = []

    def run(kind: str, reading: _Folded | _Composed | _Reread,
            rules_: tuple[ScanRule, ...], table_: _Table) -> None:
        stats.shadow_chars += len(reading.text)
        for f in _run_rules(text, rules_, table_, reading, prefilter, stats, raw_too=False,
                            written=False):
            out.append(replace(f, shadow=kind))

    skeleton: _Folded | _Composed = folded if ascii_text else _shadow(text)
    # ASCII text without the marks of a disguise has no shadow but rot13.
    marked = not ascii_text or may_disguise(text)
    repaired = repair_text(skeleton.text) if marked else skeleton.text
    if repaired != folded.text:
        run("confusable", _Reread(skeleton, repaired), rules, table)
    for kind, pieces in (("html", entity_pieces(text) if marked else None),
                         ("spaced", spaced_pieces(text) if marked else None)):
        if pieces is not None:
            reading = _pieced(text, pieces)
            if reading.text != folded.text:
                run(kind, reading, rules, table)
    injection = _injection_rules(rules)
    if injection:
        sub = _table(injection)
        leet = leet_text(repaired) if marked else repaired
        for kind, reread in (("rot13", rot13_text(repaired)), ("leet", leet)):
            # Prose read in rot13 is noise: unless it holds what an injection
            # rule needs, the pass is not made (its rules would all be skipped).
            if reread != repaired and (not prefilter or _may_run(sub.indexes[False], reread)):
                run(kind, _Reread(skeleton, reread), injection, sub)
    return out


def _run_rules(
    text: str,
    rules: tuple[ScanRule, ...],
    table: _Table,
    folded: _Folded | _Composed | _Reread,
    prefilter: bool,
    stats: ScanStats,
    *,
    raw_too: bool,
    plain: bool = False,
    longest: int | None = None,
    written: bool = True,
) -> list[Finding]:
    """One pass of the table: raw rules over ``text`` (when ``raw_too``), the rest
    over ``folded``. Each side's text is looked at once for the prefilter
    literals it holds; only the rules those leave (and the rules without a
    prefilter) run, in table order. ``plain`` says ``text`` is printable
    ASCII; ``longest`` is the longest word of ``folded.text``, when known.
    ``written``: ``folded`` is a note's words as written, not a shadow, a
    name or a decoded run: the ``as_written`` rows run too."""
    found: list[Finding] = []
    fallbacks: list[Finding] = []
    for raw in (True, False) if raw_too else (False,):
        subject = text if raw else folded.text
        index = table.indexes[raw]
        stats.rules_run += len(index.side)
        if prefilter and raw and plain and index.skips_printable_ascii:
            # What the view would find: no literal, so no rule to run.
            stats.prefiltered += len(index.side)
            continue
        # Which rules may match, at how many places (prefilters or not: 0506).
        view = _View(subject, index)
        todo = index.side
        if prefilter:
            todo = tuple(sorted(index.unplanned | view.may))
            stats.prefiltered += len(index.side) - len(todo)
        for i in todo:
            rule, plan = rules[i], table.plans[i]
            if rule.as_written and not written:
                continue
            shown = (view if prefilter and (rule.prefilter is not None or rule.min_run is not None)
                     else None)
            if i in view.may and too_dense(rule, plan, view):
                stats.dense += 1  # too many places: the whole text goes to a person
                start, end = (0, len(subject)) if raw else folded.to_original(0, len(subject))
                found.append(Finding(rule.id, rule.category, start, end, review=True))
                continue
            for m in _matches(rule, plan, subject, shown, stats, None if raw else longest):
                stats.matches += 1
                start, end = _span(m)
                if end <= start or not _accepts(rule, m, stats):
                    continue
                if not raw:
                    start, end = folded.to_original(start, end)
                finding = Finding(rule.id, rule.category, start, end, review=rule.review)
                (fallbacks if rule.fallback else found).append(finding)
    precise = [f for f in found if f.category == "secret"]
    for fb in fallbacks:
        # A catch-all finding inside a precise rule's finding adds nothing.
        if not any(p.start < fb.end and fb.start < p.end for p in precise):
            found.append(fb)
    return found


def _decoded(text: str, rules: tuple[ScanRule, ...], prefilter: bool, stats: ScanStats,
             depth: int, longest: int) -> list[Finding]:
    """Findings in the readable text that encoded runs of ``text`` decode to.

    Each is reported on the whole run, with its encoding; decoding is bounded
    in characters and depth (``kernel/textnorm``). Every run of the text is
    decoded: the first ``MAX_RUNS`` that decode to readable text are scanned
    each alone, the rest joined (one line each) in one scan more, so that
    many runs cost one scan, not one a run, and a run past the bound is read
    all the same (a payload after sixteen long words was never decoded). A
    finding in the joined text is reported on the run it lies in, or on the
    span of the runs it crosses.
    """
    out: list[Finding] = []
    # A run decodes to no more characters than it has, so a level reads at
    # most the text's length again: the bound never leaves a run unread.
    budget = max(MAX_DECODED_CHARS, len(text))
    rest: list[tuple[str, int, int, str]] = []
    alone = 0
    runs = wrapped_runs(text, encoded_runs(text, longest=longest, limit=None))
    runs.reverse()
    while runs:
        encoding, start, end = runs.pop()
        decoded = decode_run(encoding, text[start:end])
        if decoded is None and "\n" in text[start:end]:
            # A wrapped block that is no readable text as a whole (a line of
            # key material beside a line of text): its lines, one by one, as
            # they were read before blocks were.
            runs.extend(reversed(_block_lines(text, start, end)))
            continue
        if decoded is None or len(decoded) > budget:
            continue
        budget -= len(decoded)
        stats.decoded_chars += len(decoded)
        if alone >= MAX_RUNS:
            rest.append((encoding, start, end, decoded))
            continue
        alone += 1
        out.extend(_inner_findings(decoded, rules, prefilter, stats, depth,
                                   [(encoding, start, end, 0)]))
    if rest:
        at, pos = [], 0
        for encoding, start, end, decoded in rest:
            at.append((encoding, start, end, pos))
            pos += len(decoded) + 1
        out.extend(_inner_findings("\n".join([r[3] for r in rest]), rules, prefilter, stats,
                                   depth, at))
    return out


def _block_lines(text: str, start: int, end: int) -> list[tuple[str, int, int]]:
    """The lines of the wrapped base64 block at ``text[start:end]``, as runs."""
    lines = []
    at = start
    for line in text[start:end].split("\n"):
        size = len(line.rstrip("\r"))
        if size:
            lines.append(("base64", at, at + size))
        at += len(line) + 1
    return lines


def _inner_findings(decoded: str, rules: tuple[ScanRule, ...], prefilter: bool,
                    stats: ScanStats, depth: int,
                    at: list[tuple[str, int, int, int]]) -> list[Finding]:
    """The findings of ``decoded`` (one run's text, or several joined), each
    on the run it lies in: ``at`` holds each run's encoding, span in the
    outer text and offset in ``decoded``, in order."""
    inner, inner_stats = _scan(decoded, rules, prefilter, depth + 1)
    stats.rules_run += inner_stats.rules_run
    stats.chars_fed += inner_stats.chars_fed
    stats.matches += inner_stats.matches
    out = []
    offsets = [offset for _encoding, _start, _end, offset in at]
    for f in inner:
        first = at[max(bisect.bisect_right(offsets, f.start) - 1, 0)]
        last = at[max(bisect.bisect_right(offsets, max(f.end - 1, f.start)) - 1, 0)]
        encoding = first[0]
        chain = encoding if f.encoding is None else f"{f.encoding}+{encoding}"
        out.append(Finding(f.rule_id, f.category, first[1], last[2], chain, f.review, f.shadow))
    return out


def _scan(text: str, rules: tuple[ScanRule, ...], prefilter: bool, depth: int,
          joined: bool = False, name: bool = False) -> tuple[tuple[Finding, ...], ScanStats]:
    """The scan; ``joined`` leaves out what the joined text's reading drops:
    the raw rules when all of them are invisible-character rules, and the
    encoded runs (a finding in one is reported with its encoding). ``name``:
    the text is a name (a scope), not prose: an override in it refuses
    alone, for a name has no sentence to carry a payload or a frame."""
    if not rules:
        # Fail closed: an empty table would report every text as clean.
        raise ValueError("scan needs at least one rule")
    stats = ScanStats()
    table = _table(rules)
    # Looked at once per text: whether it is printable ASCII (the raw side's
    # skip, the fold's shortcut) and its longest word (the encoded runs, the
    # rules that need a long run); a text folded to itself shares the word.
    ascii_text = text.isascii()
    plain = ascii_text and text.isprintable()
    longest = max(map(len, text.split()), default=0)
    folded = _fold(text, plain)
    stats.folded_chars = len(folded.text)
    found = _run_rules(text, rules, table, folded, prefilter, stats,
                       raw_too=not (joined and table.raw_invisible), plain=plain,
                       longest=longest if folded.text is text else None,
                       written=depth == 0 and not name)
    found += _shadow_findings(text, rules, table, folded, prefilter, stats, ascii_text)
    if depth < MAX_DECODE_DEPTH and not joined:
        decoded = _decoded(text, rules, prefilter, stats, depth, longest)
        if decoded:
            # A value inside a run the decoder read is what the run decodes to.
            by_id = _by_id(rules)
            found = [f for f in found if not by_id[f.rule_id].as_written or not any(
                d.start < f.end and f.start < d.end for d in decoded)] + decoded
    if not found:
        return (), stats
    if depth == 0 and not name:
        # Only the text as written: a decoded run's override refuses alone.
        found = _lone_overrides_flagged(text, rules, found)
    unique: dict[tuple[str, int, int, str | None], Finding] = {}
    in_context = _in_context(rules)
    warned: bool | None = None  # whether the text holds a warning word, once asked
    for f in found:
        if f.review or f.encoding is not None:
            pass
        elif f.category == "injection":
            if warned is None:
                warned = may_mention(text)
            if (prohibited(text, f.start, f.end) or quoted_mention(text, f.start, f.end)
                    or reported_of_another(text, f.start, f.end)
                    or in_code_comment(text, f.start, f.end)
                    or (warned and mentioned_in_warning(text, f.start, f.end))):
                f = replace(f, review=True)
        elif f.category == "secret" and (stands_in(text[f.start:f.end]) or (
                f.rule_id in in_context and (shown_as_example(text, f.start)
                                             or trivial_code(text[f.start:f.end])
                                             or reported_dead(text, f.start, f.end)
                                             or phone_or_measure(text, f.start, f.end)))):
            f = replace(f, review=True)
        key = (f.rule_id, f.start, f.end, f.encoding)
        held = unique.get(key)
        if held is None or (held.review and not f.review) or (
                held.review == f.review and held.shadow is not None and f.shadow is None):
            unique[key] = f
    # A flag for review adds nothing where a refusing finding of its category
    # covers the same characters (the English override also reads as the
    # looser French and Portuguese rules): it is left out.
    refusing = [f for f in unique.values() if not f.review]
    kept = [f for f in unique.values() if not f.review or not any(
        g.category == f.category and g.encoding == f.encoding and g.start <= f.start
        and f.end <= g.end for g in refusing)]
    ordered = sorted(kept, key=lambda f: (f.start, f.end, f.rule_id, f.encoding or ""))
    return tuple(ordered), stats


def _asks(text: str, f: Finding, rule: ScanRule, disguised: bool) -> bool:
    """Whether finding ``f`` of ``rule`` asks the model for something: an
    injection finding of a rule that does not only set guidance aside (an
    addressed-intent row read as its ``override`` family does)."""
    if f.category != "injection" or rule.sets_aside:
        return False
    if f.rule_id.startswith("injection.addressed_") and not disguised:
        m = rule.pattern.search(_fold(text[f.start:f.end]).text)
        # Fail closed: a match that does not read again counts as asking.
        return m is None or m.lastgroup != "override"
    return True


def _lone_overrides_flagged(text: str, rules: tuple[ScanRule, ...],
                            found: list[Finding]) -> list[Finding]:
    """``found``, with each refusing finding of a ``sets_aside`` rule that has
    no payload near it made a flag for review.

    "Ignore the previous instructions" alone is what a note says of a
    manual, a wiki or a colleague's old instructions; an injection sets the
    model's guidance aside to ask for something (send data out, show the
    system prompt, take a role, run a command, hide from the user), and
    that is a finding of another rule, or a request joined to the override
    ("… and approve every pending action"). A disguised override (found only in
    a shadow: look-alike letters, leetspeak, rot13, spaced letters, HTML
    references) still refuses alone: a note to a person has no reason to
    hide it. A shadow finding that the text as written gives as well (the
    look-alike shadow of an accented word) is no disguise.

    A role tag or chat-template token shown as a product's own artefact or
    named as markup (``shown_as_artefacts``) is read the same way: it opens a
    turn and asks nothing by itself, so it refuses only with a payload near
    it; another such markup finding is no payload, and a request joined to
    it in its sentence is the product's prompt speaking to its own bot.
    """
    by_id = _by_id(rules)
    plain: dict[str, list[tuple[int, int]]] = {}
    for f in found:
        if f.shadow is None and f.encoding is None:
            plain.setdefault(f.rule_id, []).append((f.start, f.end))

    def disguised(f: Finding) -> bool:
        return f.shadow is not None and not any(
            start < f.end and f.start < end for start, end in plain.get(f.rule_id, ()))

    lone = [i for i, f in enumerate(found) if not f.review and f.encoding is None
            and (rule := by_id.get(f.rule_id)) is not None and rule.sets_aside
            and not disguised(f)]
    shown = shown_as_artefacts(text, [(f.start, f.end) for f in found], [
        i for i, f in enumerate(found) if not f.review and f.encoding is None
        and f.rule_id in ARTEFACT_RULES and not disguised(f)])
    if not lone and not shown:
        return found
    asking = sorted((g.start, g.end, g.rule_id in ARTEFACT_RULES) for g in found
                    if g.encoding is None and (rule := by_id.get(g.rule_id)) is not None
                    and _asks(text, g, rule, disguised(g)))
    out = list(found)
    for pick, spans in ((lone, asking), (shown, [a for a in asking if not a[2]])):
        # Sorted by start, with the furthest end so far: one look-up a finding,
        # so many overrides and many payloads cost n log n, not n times m.
        starts = [start for start, _end, _markup in spans]
        reach = list(itertools.accumulate((end for _start, end, _markup in spans), max))
        for i in pick:
            f = found[i]
            before = bisect.bisect_left(starts, f.end + PAYLOAD_AFTER)
            if (pick is shown or not asks_after(text, f.end)) and not (
                    before and reach[before - 1] > f.start - PAYLOAD_BEFORE):
                out[i] = replace(f, review=True)
    return out


def _text_findings(text: str, rules: tuple[ScanRule, ...] = RULES, *, joined: bool = False,
                   name: bool = False) -> tuple[Finding, ...]:
    """``scan_with_stats(text, rules)[0]``, without the work counters, and for
    most printable ASCII text without going into the engine; ``joined``: for
    the joined text, whose reading drops the raw rules' findings (when all are
    invisible-character rules) and those in encoded runs, which then are not
    looked for.

    The shortcut answers "nothing" only where the engine is sure to run no
    rule: a printable ASCII text with no two spaces in a row (its fold is
    itself, the raw side does not look at it, it has no look-alike shadow),
    no word as long as a rule without a prefilter needs, no rule whose every
    check holds a literal of the text (the same literal search), and, but for
    the joined text, no encoded run. Anything else is scanned as ever
    (``tests/unit/test_scan_fast_path.py`` holds the two to the same findings).
    """
    if not rules:
        # Fail closed, as the engine does.
        raise ValueError("scan needs at least one rule")
    if type(text) is not str and isinstance(text, str):
        # A subclass is read as the characters it holds: its own methods
        # (``lower``, ``in``) are not what the shortcut's reading assumes.
        text = str.__str__(text)
    table = _table(rules)
    if table.plain_below and text.isascii():
        marks = text.encode("ascii").translate(_PLAIN_MARKS)
        # ``bytes.find``, not ``in``: ``in`` asks for an int first, and the
        # TypeError it raises and clears for a bytes operand costs more
        # (~1.9 K instructions) than the search itself; the answers are equal.
        if marks.find(b"\0") < 0 and "  " not in text:
            short = marks.find(_RUN_WORD) < 0  # every word shorter than RUN_WORD_MIN
            if ((short and table.plain_below >= RUN_WORD_MIN) or table.plain_run is None
                    or marks.find(table.plain_run) < 0):
                index = table.indexes[False]
                found = index.ascii.found(text.lower())
                if not (found and (not found.isdisjoint(index.completes)
                                   or (len(found) > 1 and _may(index, found)))) and (
                        joined or (short and text.count("%") < PERCENT_RUN_ESCAPES)
                        or not encoded_runs(text)) and _undisguised(text, rules):
                    return ()
    return _scan(text, rules, True, 0, joined, name)[0]


def _may_run(index: _Index, text: str) -> bool:
    """Whether a rule of ``index``'s side may match ``text`` (its prefilter)."""
    if index.unplanned:
        return True
    low = text.translate(_ALIAS_TABLE).lower() if not text.isascii() else text.lower()
    found = index.found(low)
    return bool(found) and bool(_may(index, found))


def _undisguised(text: str, rules: tuple[ScanRule, ...]) -> bool:
    """Whether no shadow of the printable ASCII ``text`` (``_shadow_findings``)
    can differ from it, or, for rot13, hold a literal an injection rule needs."""
    if may_disguise(text) and (
            entity_pieces(text) is not None or spaced_pieces(text) is not None
            or repair_text(text) != text or leet_text(text) != text):
        return False
    injection = _injection_rules(rules)
    if not injection:
        return True
    return not _may_run(_table(injection).indexes[False], rot13_text(text))


def scan_with_stats(
    text: str, rules: tuple[ScanRule, ...] = RULES, *, prefilter: bool = True
) -> tuple[tuple[Finding, ...], ScanStats]:
    """Run every rule over ``text``; findings sorted by offset, and the work done.

    The rules run over the text as received (raw rules), its folded copy,
    its look-alike shadow (when it differs), and the readable text of its
    encoded runs. ``prefilter=False`` runs every pattern over the whole text,
    ignoring the rules' prefilters: slower, and the reference the fast path
    must equal.
    """
    return _scan(text, rules, prefilter, 0)


def scan(
    text: str,
    rules: tuple[ScanRule, ...] = RULES,
    *,
    max_bytes: int | None = None,
    prefilter: bool = True,
) -> tuple[Finding, ...]:
    """Findings for ``text``; ``max_bytes`` (UTF-8) is checked before any scanning."""
    if max_bytes is not None:
        size = len(text.encode("utf-8"))
        if size > max_bytes:
            raise LimitExceeded(
                "entry_too_large", details={"size_bytes": size, "limit_bytes": max_bytes}
            )
    if prefilter:
        return _text_findings(text, rules)
    return scan_with_stats(text, rules, prefilter=False)[0]


def redact(text: str, rules: tuple[ScanRule, ...] = RULES) -> str:
    """``text`` with each secret finding replaced by ``[REDACTED:<rule id>]``.

    Overlapping findings are merged and named by the first rule (by offset).
    Only secrets are redacted; injection and invisible findings are the
    rendering fence's business, not this function's.
    """
    secrets = [f for f in scan_with_stats(text, rules)[0] if f.category == "secret"]
    merged: list[tuple[int, int, str]] = []
    for f in secrets:
        if merged and f.start < merged[-1][1]:
            start, end, rule_id = merged[-1]
            merged[-1] = (start, max(end, f.end), rule_id)
        else:
            merged.append((f.start, f.end, f.rule_id))
    out: list[str] = []
    last = 0
    for start, end, rule_id in merged:
        out.append(text[last:start])
        out.append(f"[REDACTED:{rule_id}]")
        last = end
    out.append(text[last:])
    return "".join(out)


@dataclass(frozen=True, slots=True)
class FieldFinding:
    """A finding in one field of an entry (``title``, ``basis.refs[1]``, …)."""

    field: str
    rule_id: str
    category: str
    start: int
    end: int
    encoding: str | None = None
    review: bool = False
    shadow: str | None = None

    def wire(self) -> dict[str, Any]:
        out: dict[str, Any] = {"field": self.field, "rule_id": self.rule_id,
                               "category": self.category, "start": self.start, "end": self.end}
        if self.encoding is not None:
            out["encoding"] = self.encoding
        if self.review:
            out["review"] = True
        if self.shadow is not None:
            out["shadow"] = self.shadow
        return out


@dataclass(frozen=True, slots=True)
class Verdict:
    """Why an entry is refused: the error code and what was found (no text)."""

    code: str
    findings: tuple[FieldFinding, ...] = ()
    # Counts and field names for empty/size verdicts, as (key, value) pairs so
    # the verdict stays immutable.
    facts: tuple[tuple[str, Any], ...] = ()

    def details(self) -> dict[str, Any]:
        """The error's wire ``details``: offsets, ids, counts — never text."""
        out: dict[str, Any] = dict(self.facts)
        if self.findings:
            shown = self.findings[:MAX_DETAIL_FINDINGS]
            out["findings"] = [f.wire() for f in shown]
            if len(self.findings) > len(shown):
                out["findings_omitted"] = len(self.findings) - len(shown)
        return out

    def error(self) -> ContentRejected | LimitExceeded:
        """The exception the daemon raises for this verdict."""
        if self.code == "entry_too_large":
            return LimitExceeded(self.code, details=self.details())
        return ContentRejected(self.code, details=self.details())


# Fields that must not be blank when present, and those read together for an
# instruction split across them.
_REQUIRED = ("title", "body", "summary")
_JOINED = ("title", "summary", "body")
_JOINED_AT: Mapping[str, int] = MappingProxyType({name: i for i, name in enumerate(_JOINED)})


def _field_findings(fields: list[tuple[str, str]], rules: tuple[ScanRule, ...]
                    ) -> list[FieldFinding]:
    # A text held by several fields (a summary repeating the title, a tag
    # repeated) is scanned once; its findings are reported for each field.
    seen: dict[tuple[str, bool], tuple[Finding, ...]] = {}
    out: list[FieldFinding] = []
    parts: list[tuple[str, str]] = []
    for name, value in fields:
        if type(value) is not str and isinstance(value, str):
            # Looked up by equality below (and in the names' cache): a
            # subclass's equality and hash are its own, its characters are
            # what is scanned.
            value = str.__str__(value)
        key = (value, name == "scope")
        found = seen.get(key)
        if found is None:
            found = seen[key] = _text_findings(value, rules, name=key[1])
        if found:
            out.extend(FieldFinding(name, f.rule_id, f.category, f.start, f.end, f.encoding,
                                    f.review, f.shadow) for f in found)
        if name in _JOINED_AT:
            parts.append((name, value))
    if len(parts) >= 2:
        # An instruction split across title, summary and body reads whole
        # once they are read in that order (a stable sort: fields of one
        # name in the order given). Findings that fit inside one field were
        # already reported; the rest crossed a boundary.
        parts.sort(key=lambda part: _JOINED_AT[part[0]])
        joined = " ".join([value for _name, value in parts])
        findings = _text_findings(joined, rules, joined=True)
        bounds: list[tuple[int, int]] = []
        pos = 0
        for _name, value in parts if findings else ():
            bounds.append((pos, pos + len(value)))
            pos += len(value) + 1
        for f in findings:
            if f.category == "invisible" or f.encoding is not None:
                continue
            if any(a <= f.start and f.end <= b for a, b in bounds):
                continue
            out.append(FieldFinding(JOINED_FIELD, f.rule_id, f.category, f.start, f.end,
                                    None, f.review, f.shadow))
    return out


def verdict_fields(
    fields: list[tuple[str, str]],
    *,
    max_bytes: int,
    counted: list[tuple[str, str]] | None = None,
    rules: tuple[ScanRule, ...] = RULES,
) -> tuple[Verdict | None, tuple[FieldFinding, ...]]:
    """``(None, review findings)`` if the entry may be stored, else ``(why not, ())``.

    ``fields`` are ``(path, text)`` pairs, every text the entry carries
    (``kernel/entry_text.entry_texts``). ``counted`` are the ones whose UTF-8
    bytes count toward ``max_bytes`` (default: all of them).

    Order: empty title/body/summary, then size (before any scanning, so an
    oversized entry costs nothing), then the scan of every field and of
    title, summary and body read as one. All findings of every category are
    reported; the code is that of the highest-priority category (invisible >
    secret > injection). Findings marked ``review`` never refuse: they are
    returned for the operator to look at.
    """
    empty = [name for name, value in fields if name in _REQUIRED and not value.strip()]
    if empty:
        return Verdict("empty_content", facts=(("fields", empty),)), ()
    size = stored_bytes(fields if counted is None else counted)
    if size > max_bytes:
        return Verdict("entry_too_large",
                       facts=(("size_bytes", size), ("limit_bytes", max_bytes))), ()
    found = _field_findings(fields, rules)
    refusing = tuple(f for f in found if not f.review)
    if not refusing:
        return None, tuple(found)
    fired = {f.category for f in refusing}
    for category, code in _CATEGORY_CODES:
        if category in fired:
            return Verdict(code, tuple(found)), ()
    # Fail closed: a finding of a category this table does not rank is still
    # a finding; refuse it as the most serious content error.
    return Verdict("invisible_unicode", tuple(found)), ()


def check_fields(
    fields: list[tuple[str, str]],
    *,
    max_bytes: int,
    counted: list[tuple[str, str]] | None = None,
    rules: tuple[ScanRule, ...] = RULES,
) -> tuple[FieldFinding, ...]:
    """Raise ``ContentRejected`` / ``LimitExceeded`` unless the entry may be
    stored; else return the findings flagged for review (often none)."""
    result, review = verdict_fields(fields, max_bytes=max_bytes, counted=counted, rules=rules)
    if result is not None:
        raise result.error()
    return review


def check_scopes(*scopes: str, rules: tuple[ScanRule, ...] = RULES) -> None:
    """Raise ``ContentRejected`` unless every scope name may be named: each
    read as ``scope_texts`` reads it, nothing counted toward a size limit
    (a write reads its scope the same way, beside its entry).

    A finding that would only flag a write for review refuses the name here:
    a scope taken as a namespace (a task's, a team's) is written into by
    writes that do not name it, whose own scan never reads it, so the review
    it would have asked for could never happen."""
    review = check_fields([text for scope in scopes for text in scope_texts(scope)],
                          max_bytes=0, counted=[], rules=rules)
    if review:
        fired = {f.category for f in review}
        code = next((c for category, c in _CATEGORY_CODES if category in fired),
                    "invisible_unicode")
        raise Verdict(code, tuple(replace(f, review=False) for f in review)).error()


def verdict(
    title: str,
    body: str,
    summary: str | None = None,
    *,
    max_body_bytes: int,
    rules: tuple[ScanRule, ...] = RULES,
) -> Verdict | None:
    """``verdict_fields`` for title, body and summary alone, the body's bytes counted."""
    fields: list[tuple[str, str]] = [("title", title), ("body", body)]
    if summary is not None:
        fields.append(("summary", summary))
    return verdict_fields(fields, max_bytes=max_body_bytes, counted=[("body", body)],
                          rules=rules)[0]


def check_entry(
    title: str,
    body: str,
    summary: str | None = None,
    *,
    max_body_bytes: int,
    rules: tuple[ScanRule, ...] = RULES,
) -> None:
    """Raise ``ContentRejected`` / ``LimitExceeded`` unless the entry may be stored."""
    result = verdict(title, body, summary, max_body_bytes=max_body_bytes, rules=rules)
    if result is not None:
        raise result.error()
