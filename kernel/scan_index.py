"""The scanner's rule-table indexes and prefilter, and its work counters.

Part of the content scanner (``kernel/scan.py``): each rule's prefilter
literals are grouped into a plan, the table's literals into one automaton a
side (raw and folded text), so a text is looked at once for the literals it
holds and only the rules those leave are run, at the positions they suggest
(``_matches``); ``ScanStats`` counts the work. Prefilters change the cost,
never the findings. Pure: no I/O, no clock, no state beyond the module's
constant tables.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from types import MappingProxyType

import ahocorasick_rs

from memoryd.kernel.scan_rules import RULES, ScanRule
from memoryd.kernel.textnorm import RUN_WORD_MIN


@dataclass(slots=True)
class ScanStats:
    """Deterministic work counters for one scan (no clocks involved).

    ``rules_run`` counts the rules the scan went through, ``prefiltered``
    those of them whose prefilter showed they cannot match. ``chars_fed`` is
    the number of start positions patterns were tried at (the whole text's
    length for a rule run over all of it); with every pattern's per-position
    work bounded, it is the measure that must grow linearly with the input.
    """

    rules_run: int = 0
    prefiltered: int = 0
    chars_fed: int = 0
    folded_chars: int = 0
    matches: int = 0
    validator_calls: int = 0
    validator_chars: int = 0
    shadow_chars: int = 0
    decoded_chars: int = 0
    # Rules set aside over a text that held more than ``DENSE_STARTS`` of
    # their start positions (``too_dense``).
    dense: int = 0


# Characters other than ASCII letters that ``re.IGNORECASE`` matches against
# ASCII letters (the Turkish i's, long s, Kelvin sign). The prefilter view maps
# them to the letter before lower-casing, so a literal the pattern matches
# case-insensitively is also found in the view; with ``İ`` mapped, lower-casing
# keeps every offset too. ``tests/unit/test_scan_prefilter.py`` checks this set
# against the running ``re`` and Unicode tables.
CASE_ALIASES: Mapping[str, str] = MappingProxyType(
    {"\u0130": "i", "\u0131": "i", "\u017f": "s", "\u212a": "k"})
_ALIAS_TABLE: Mapping[int, str] = MappingProxyType(str.maketrans(dict(CASE_ALIASES)))

# A rule whose suggested start positions outnumber this share of the text is
# run over the whole text instead: one pass inside the regex engine is cheaper
# than many separate tries. Either way the findings are the same.
_WINDOW_SHARE = 4


@dataclass(frozen=True, slots=True)
class _Group:
    """One prefilter group: its literals, lower-cased."""

    every: tuple[str, ...]


def _group(literals: tuple[str, ...]) -> _Group:
    # Lower-cased here too: an upper-case literal would never be found in the
    # lower-cased view and would hide its rule; and mapped as the view is, so
    # a literal with a Turkish dotless i ("kullanıcı") is found in it.
    return _Group(tuple(literal.translate(_ALIAS_TABLE).lower() for literal in literals))


@dataclass(frozen=True, slots=True)
class _Plan:
    """A rule's prefilter, ready to check: the other groups first, the anchor group last."""

    checks: tuple[_Group, ...]
    anchor: _Group | None


def _plan(rule: ScanRule) -> _Plan | None:
    # Fail closed on a malformed row: an empty group or an empty literal
    # promises nothing, so it is dropped rather than read as "never matches".
    groups = [_group(g) if g and "" not in g else None for g in rule.prefilter or ()]
    checks = tuple(g for g in groups[1:] + groups[:1] if g is not None)
    if not checks:
        return None
    return _Plan(checks, groups[0])


@dataclass(frozen=True, slots=True)
class _Finder:
    """Finds which of a set of lower-cased literals a text holds, in one pass each.

    The literals go into one Aho-Corasick automaton (ahocorasick_rs), which
    reports every occurrence, overlapping ones included. ASCII literals are
    compiled to a DFA (a table lookup per byte: ASCII text, the common case,
    is searched for those alone). A set that holds other scripts' literals
    is kept as a contiguous NFA: its many multi-byte UTF-8 states made the
    DFA about 15 MiB per table (a third of an idle daemon's memory and a
    tenth of its start-up), for a few microseconds more per non-ASCII text.
    A side with a few hundred one-character literals (control, invisible and
    look-alike characters) keeps those as a set, met by each character of the
    text in turn: as automaton states they would only make the table large,
    and as one ``re`` character class (it holds characters past U+FFFF, so
    ``re`` tests them one by one) they cost tens of microseconds a character.
    """

    singles: frozenset[str] | None
    automaton: ahocorasick_rs.AhoCorasick | None
    # The automaton's literals (it does not list them itself).
    automaton_literals: tuple[str, ...] = ()

    def found(self, low: str) -> set[str]:
        out: set[str] = set()
        if self.singles is not None:
            out.update(self.singles.intersection(low))
        if self.automaton is not None:
            out.update(self.automaton.find_matches_as_strings(low, overlapping=True))
        return out


# A side with at most this many one-character literals keeps them in its
# automaton (no second pass over the text for them).
_SINGLES_IN_AUTOMATON = 64


def _finder(literals: list[str]) -> _Finder:
    singles = sorted(literal for literal in literals if len(literal) == 1)
    longer = [literal for literal in literals if len(literal) > 1]
    if len(singles) <= _SINGLES_IN_AUTOMATON:
        longer += singles
        singles = []
    automaton = None
    longer.sort()
    if longer:
        implementation = (ahocorasick_rs.Implementation.DFA
                          if all(literal.isascii() for literal in longer)
                          else ahocorasick_rs.Implementation.ContiguousNFA)
        automaton = ahocorasick_rs.AhoCorasick(
            longer, matchkind=ahocorasick_rs.MatchKind.Standard, implementation=implementation)
    return _Finder(frozenset(singles) if singles else None, automaton, tuple(longer))


@dataclass(frozen=True, slots=True)
class _Index:
    """Every prefilter literal of one side of a rule table (raw or folded), indexed.

    ``found`` gives every literal a text holds (overlapping ones included) in
    one pass over it; ``holds`` says which (rule, check) pairs each literal
    satisfies, and ``needs`` how many checks each rule has. A rule may match a
    text when every one of its checks holds a literal that occurs in it: the
    same answer as walking each rule's plan, in one pass over the text instead
    of one search per literal and rule. An ASCII text can hold only the ASCII
    literals, so it is searched for those alone (``ascii``), a much smaller
    set than ``every`` (the invisible and look-alike characters are not ASCII).
    """

    every: _Finder
    ascii: _Finder
    holds: Mapping[str, tuple[tuple[int, int], ...]]
    needs: Mapping[int, int]
    # The rules of this side (positions in the table), and those with no plan.
    side: tuple[int, ...]
    unplanned: frozenset[int]
    # No rule of this side can run on printable ASCII text: every rule has a
    # prefilter and no ASCII literal of theirs is printable (the raw side's
    # control characters). Such a text is not looked at for literals at all.
    skips_printable_ascii: bool = False
    # The literals that alone hold every check of some rule: a text holding
    # one literal lets a rule run exactly when it is one of these.
    completes: frozenset[str] = frozenset()

    def found(self, low: str) -> set[str]:
        """The literals ``low`` holds."""
        return (self.ascii if low.isascii() else self.every).found(low)


def _index(plans: tuple[_Plan | None, ...], rules: tuple[ScanRule, ...], raw: bool) -> _Index:
    holds: dict[str, set[tuple[int, int]]] = {}
    needs: dict[int, int] = {}
    side = tuple(i for i, rule in enumerate(rules) if rule.raw == raw)
    for i in side:
        plan = plans[i]
        if plan is None:
            continue
        needs[i] = len(plan.checks)
        for c, group in enumerate(plan.checks):
            for literal in group.every:
                holds.setdefault(literal, set()).add((i, c))
    unplanned = frozenset(i for i in side if plans[i] is None)
    printable = any(lit.isascii() and any(ch.isprintable() for ch in lit) for lit in holds)
    completes = frozenset(literal for i in side if (plan := plans[i]) is not None
                          for literal in plan.checks[0].every
                          if all(literal in group.every for group in plan.checks))
    return _Index(_finder(list(holds)), _finder([lit for lit in holds if lit.isascii()]),
                  MappingProxyType({lit: tuple(sorted(pairs)) for lit, pairs in holds.items()}),
                  MappingProxyType(needs), side, unplanned, not unplanned and not printable,
                  completes)


@dataclass(frozen=True, slots=True)
class _Table:
    """What the engine derives once from a rule table: plans and literal indexes."""

    plans: tuple[_Plan | None, ...]
    # By side: ``indexes[False]`` the folded side's, ``indexes[True]`` the raw side's.
    indexes: Mapping[bool, _Index]
    # A printable ASCII text whose longest word is shorter than this, and in
    # which no rule's every check holds a literal, runs no rule (``_clean``):
    # the shortest run a rule without a prefilter needs (0, no such text,
    # when one needs none or the raw side would look at the text).
    plain_below: int = 0
    # Every raw rule is of the invisible category (the joined text's raw
    # side finds only what its reading drops).
    raw_invisible: bool = False
    # ``plain_below`` as a run of word marks (``_PLAIN_MARKS``) to look for,
    # or None when it is ``_NO_RUN`` (no word is too long).
    plain_run: bytes | None = None


# ``_Table.plain_below`` when no rule without a prefilter needs a run: any
# word length is below it.
_NO_RUN = 1 << 62

# An ASCII text byte by byte: a control character (a printable text holds
# none) as 0, the space as a space, every other character as "a". In
# printable ASCII the space is the only whitespace, so a word of ``n`` or more
# characters is a run of ``n`` marks "a".
_PLAIN_MARKS = bytes(0 if c < 0x20 or c == 0x7f else 0x20 if c == 0x20 else 0x61
                     for c in range(128)) + bytes(128)
_RUN_WORD = b"a" * RUN_WORD_MIN

def _table(rules: tuple[ScanRule, ...]) -> _Table:
    """The engine's table for ``rules``: the default table's (and its
    injection rules') built once with the module, any other built anew."""
    if rules is RULES:
        return _RULES_TABLE
    if rules is _RULES_INJECTION:
        return _INJECTION_TABLE
    if rules is SECRET_RULES:
        return _SECRET_TABLE
    return _build_table(rules)


def _in_context(rules: tuple[ScanRule, ...]) -> frozenset[str]:
    """The ids of the rules of ``rules`` judged in context (``shown_as_example``)."""
    if rules is RULES:
        return _RULES_IN_CONTEXT
    return frozenset(rule.id for rule in rules if rule.judged_in_context)


def _by_id(rules: tuple[ScanRule, ...]) -> Mapping[str, ScanRule]:
    """The rules of ``rules`` by id."""
    if rules is RULES:
        return _RULES_BY_ID
    return {rule.id: rule for rule in rules}


def _injection_rules(rules: tuple[ScanRule, ...]) -> tuple[ScanRule, ...]:
    """The injection rules of ``rules`` (what the rot13 and leetspeak shadows run)."""
    if rules is RULES:
        return _RULES_INJECTION
    if rules is _RULES_INJECTION:
        # Its own table is built with the module (``_table``): a copy would
        # be built anew at each call.
        return rules
    return tuple(rule for rule in rules if rule.category == "injection")


def _build_table(rules: tuple[ScanRule, ...]) -> _Table:
    plans = tuple(_plan(rule) for rule in rules)
    indexes = MappingProxyType({raw: _index(plans, rules, raw) for raw in (False, True)})
    runs = [rules[i].min_run for i in indexes[False].unplanned]
    below = 0 if not rules or not indexes[True].skips_printable_ascii or None in runs \
        else min((r for r in runs if r is not None), default=_NO_RUN)
    table = _Table(plans, indexes, below,
                   all(rule.category == "invisible" for rule in rules if rule.raw),
                   None if below == _NO_RUN else b"a" * below)
    return table




def _may(index: _Index, found: set[str]) -> set[int]:
    """Rules (by position in the table) whose every check holds a literal of ``found``."""
    held: dict[int, set[int]] = {}
    for literal in found:
        for rule, check in index.holds[literal]:
            held.setdefault(rule, set()).add(check)
    return {rule for rule, checks in held.items() if len(checks) == index.needs[rule]}


class _View:
    """The lower-cased copy of one scanned text, and the prefilter literals it holds."""

    __slots__ = ("_starts", "aligned", "ascii", "found", "low", "may", "text")

    def __init__(self, text: str, index: _Index) -> None:
        self.text = text
        self.ascii = text.isascii()
        low = text
        if not self.ascii and any(alias in text for alias in CASE_ALIASES):
            low = text.translate(_ALIAS_TABLE)
        self.low = low = low.lower()
        # Offsets in ``low`` are offsets in ``text`` (always, given the alias
        # map; checked rather than assumed).
        self.aligned = len(low) == len(text)
        self.found = found = index.found(low)
        self.may = _may(index, found)
        # Each anchor group's offsets, found once for this text: the density
        # bound and the windows read the same list, and rules share anchors.
        # Keyed by the group's identity: the table holds its groups for as
        # long as a scan of it lasts.
        self._starts: dict[int, list[int]] = {}

    def starts(self, group: _Group) -> list[int]:
        """Every offset where one of the group's literals occurs, sorted, no repeats."""
        held = self._starts.get(id(group))
        if held is not None:
            return held
        out: set[int] = set()
        low = self.low
        for literal in group.every:
            if literal not in self.found:
                continue
            i = low.find(literal)
            while i != -1:
                out.add(i)
                i = low.find(literal, i + 1)
        held = self._starts[id(group)] = sorted(out)
        return held


def _runs(text: str, min_len: int) -> list[tuple[int, int]]:
    """Offsets of the runs of at least ``min_len`` non-whitespace characters."""
    out: list[tuple[int, int]] = []
    cursor = 0
    for word in text.split():
        if len(word) >= min_len:
            # Every run between the cursor and this one is shorter than it,
            # so its first occurrence after the cursor is the run itself.
            start = text.find(word, cursor)
            cursor = start + len(word)
            out.append((start, cursor))
    return out


def _windowed(
    pattern: re.Pattern[str], text: str, starts: list[int], lead: int, stats: ScanStats
) -> Iterator[re.Match[str]]:
    """What ``pattern.finditer(text)`` yields, trying only positions near ``starts``.

    ``finditer`` tries each position in order and, after a match, goes on from
    its end. A match at ``s`` holds a literal starting in ``[s, s + lead]``, so
    only positions up to ``lead`` before a literal can match; they are tried
    in the same order, with the same resumption.
    """
    pos = 0
    i = 0
    while i < len(starts):
        t = starts[i]
        if t < pos:
            i += 1
            continue
        found = None
        for s in range(max(pos, t - lead), t + 1):
            stats.chars_fed += 1
            found = pattern.match(text, s)
            if found is not None:
                break
        if found is None:
            pos = t + 1
            i += 1
            continue
        yield found
        # Patterns never match the empty string (tested), so this moves on.
        pos = max(found.end(), found.start() + 1)


# The most places in one text a rule is tried at (its prefilter's anchor
# words). Each try walks the words that may stand between a credential's
# name and its value: a constant of the pattern, but tens of microseconds in
# the engine for the prose rules. A note names a credential a handful of
# times; a text that names one hundreds of times (a word repeated to make
# the scan slow) is not read rule by rule: it is flagged for review.
DENSE_STARTS = 256


def too_dense(rule: ScanRule, plan: _Plan | None, view: _View | None) -> bool:
    """Whether ``view``'s text holds more than ``DENSE_STARTS`` of the
    places ``rule`` would be tried at."""
    if view is None or plan is None or plan.anchor is None or rule.lead is None:
        return False
    return len(view.starts(plan.anchor)) > DENSE_STARTS


def _matches(
    rule: ScanRule, plan: _Plan | None, subject: str, view: _View | None, stats: ScanStats,
    longest: int | None = None,
) -> Iterator[re.Match[str]]:
    """The matches of ``rule`` over ``subject``, as ``finditer`` gives them.

    ``longest``, when given, is the length of ``subject``'s longest
    whitespace-free word: a rule that needs a longer run has nothing to try.
    """
    if view is not None and rule.min_run is not None:
        if longest is not None and longest < rule.min_run:
            return
        for start, end in _runs(subject, rule.min_run):
            stats.chars_fed += end - start
            yield from rule.pattern.finditer(subject, start, end)
        return
    if (
        view is not None
        and plan is not None
        and plan.anchor is not None
        and rule.lead is not None
        and view.aligned
    ):
        starts = view.starts(plan.anchor)
        if len(starts) * (rule.lead + 1) * _WINDOW_SHARE <= len(subject):
            yield from _windowed(rule.pattern, subject, starts, rule.lead, stats)
            return
    stats.chars_fed += len(subject)
    yield from rule.pattern.finditer(subject)


# The default table's engine tables, built with the module (constants: the
# kernel keeps no cache; a caller's own table is built on each call).
_RULES_INJECTION: tuple[ScanRule, ...] = tuple(r for r in RULES if r.category == "injection")
# The injection rules alone, under a public name: what a caller that keeps
# only injection findings runs (a derived summary's review).
INJECTION_RULES = _RULES_INJECTION
_RULES_IN_CONTEXT = frozenset(r.id for r in RULES if r.judged_in_context)
_RULES_BY_ID: Mapping[str, ScanRule] = MappingProxyType({r.id: r for r in RULES})
_RULES_TABLE = _build_table(RULES)
_INJECTION_TABLE = _build_table(_RULES_INJECTION)
# The secret rules alone: what redacting shown text runs (cards, snippets,
# evidence). Their table is built with the module too: a table built per
# call costs a search of a few hundred texts dozens of times its scanning.
SECRET_RULES: tuple[ScanRule, ...] = tuple(r for r in RULES if r.category == "secret")
_SECRET_TABLE = _build_table(SECRET_RULES)
