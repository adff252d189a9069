"""A text dense with a rule's start words is flagged for review, not read word by word.

The prose rules (a credential named, then its value a few words on) are
tried at every place their prefilter's words occur, and each try walks the
words that may stand between name and value: a constant of the pattern, but
a large one. A text that repeats such a word thousands of times ("pin pin
pin …", a transcript of half a megabyte) made one scan take seconds, every
one of them inside the regular-expression engine, holding the interpreter
for every other call. Past ``DENSE_STARTS`` places in one text a rule is not
run there: the text is flagged for review under that rule (a person reads
it; text that leaves the host is withheld), never passed as clean.
"""

from __future__ import annotations

from memoryd.kernel.scan import scan, scan_with_stats, verdict_fields
from memoryd.kernel.scan_index import DENSE_STARTS

_DENSE = "pin " * 2_000


def test_a_text_dense_with_credential_words_is_flagged_not_refused() -> None:
    findings, stats = scan_with_stats(_DENSE)
    assert findings, "a dense text must never pass as clean"
    assert all(f.review for f in findings)
    assert {"secret.code_spelt_out", "secret.code_spelt_in_pairs"} <= {f.rule_id for f in findings}
    assert stats.dense >= 2
    refused, flagged = verdict_fields([("body", _DENSE)], max_bytes=100_000)
    assert refused is None and flagged


def test_a_secret_hidden_among_many_credential_words_is_not_stored_unread() -> None:
    text = "pin " * 1_000 + "The alarm PIN is 4 7 1 9. " + "pin " * 1_000
    findings = scan(text)
    assert findings and any(f.category == "secret" for f in findings)


def test_below_the_bound_every_place_is_read_as_before() -> None:
    # A note that names a PIN fewer times than the bound is read in full:
    # its secret refuses, and no rule is set aside.
    text = "pin " * (DENSE_STARTS // 2) + "The alarm PIN is 4 7 1 9."
    findings, stats = scan_with_stats(text)
    assert stats.dense == 0
    assert any(f.category == "secret" and not f.review for f in findings)


def test_an_ordinary_long_note_sets_no_rule_aside() -> None:
    text = "The deploy runbook says restart the api pods after the config map changes. " * 50
    _findings, stats = scan_with_stats(text)
    assert stats.dense == 0
