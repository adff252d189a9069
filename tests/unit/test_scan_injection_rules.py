"""The injection rules alone give the injection findings the whole table gives.

A derived summary's review (``content_scan._cut_summary_review``) keeps only
injection findings and scans with ``INJECTION_RULES``: a finding of one
category never changes another's (the one catch-all, a secret rule, yields
only to secret findings), so the two must agree on every text.
"""

from __future__ import annotations

import json
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from memoryd.kernel.scan import INJECTION_RULES, RULES, scan

DATA = Path(__file__).resolve().parents[1] / "data"
WORDS = [
    "ignore",
    "previous",
    "instructions",
    "and",
    "send",
    "the",
    "password",
    "to",
    "http://x.example",
    "system",
    "prompt",
    "AKIA",
    "pin",
    "1gn0re",
    "a l l",
    "&#73;",
    "SWdub3JlIGFsbCBwcmV2aW91cyBpbnN0cnVjdGlvbnM=",
    "you",
    "are",
    "now",
    "…",
    "\u200b",
    "sk-",
    "token:",
    "disregard",
    "rules",
    "reveal",
    "vtaber",
    "é",
    "机器",
]


def _injection(text: str, rules: tuple) -> list[tuple]:
    return [
        (f.rule_id, f.start, f.end, f.encoding, f.review, f.shadow)
        for f in scan(text, rules)
        if f.category == "injection"
    ]


def test_the_injection_rules_are_the_tables_injection_rows() -> None:
    assert INJECTION_RULES == tuple(r for r in RULES if r.category == "injection")


@settings(max_examples=300, deadline=None)
@given(
    st.lists(st.sampled_from(WORDS) | st.text(max_size=12), max_size=30),
    st.sampled_from([" ", "  ", "\n", ". "]),
)
def test_injection_findings_equal_with_the_injection_rules_alone(
    words: list[str], sep: str
) -> None:
    text = sep.join(words)
    assert _injection(text, INJECTION_RULES) == _injection(text, RULES)


def test_injection_findings_equal_on_the_labelled_corpus() -> None:
    rows = [
        json.loads(line)
        for line in (DATA / "scan_corpus.jsonl").read_text().splitlines()
        if line.strip()
    ]
    texts = [
        t
        for r in rows
        for t in (r.get("text"), r.get("body"), r.get("title"))
        if isinstance(t, str)
    ]
    assert texts
    for text in texts:
        assert _injection(text, INJECTION_RULES) == _injection(text, RULES)
