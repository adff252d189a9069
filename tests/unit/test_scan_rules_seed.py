"""The rule table's patterns are the same text whatever the string hash seed.

A pattern built by iterating a set takes the set's order, which follows
PYTHONHASHSEED: the regex then differs from one process to the next, and so
do its cost and, where alternatives overlap, which one matches first. Every
pattern of the scanner's tables is built from an ordered source, so two
processes with different seeds compile identical pattern texts.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

# Prints, for every rule, its id, pattern text and prefilter; then every
# module-level compiled pattern of the scanner's modules, by name.
_DUMP = """
import re
from memoryd.kernel import scan, scan_context, scan_fold, scan_index, scan_intent, scan_rules
from memoryd.kernel import textnorm
for rule in scan_rules.RULES:
    print(rule.id, repr(rule.pattern.pattern), repr(rule.prefilter), rule.lead, rule.min_run)
for module in (scan, scan_context, scan_fold, scan_index, scan_intent, scan_rules, textnorm):
    for name, value in sorted(vars(module).items()):
        if isinstance(value, re.Pattern):
            print(module.__name__, name, repr(value.pattern))
"""


def _dump(seed: str) -> str:
    env = {**os.environ, "PYTHONHASHSEED": seed}
    done = subprocess.run(
        [sys.executable, "-c", _DUMP],
        env=env,
        capture_output=True,
        text=True,
        check=True,
        cwd=Path(__file__).resolve().parents[2],
    )
    return done.stdout


def test_rule_patterns_do_not_depend_on_the_hash_seed() -> None:
    first, second = _dump("1"), _dump("2")
    assert first.count("\n") > 100
    assert first == second
