"""Shown text is redacted with the secret rules alone: the same output as every rule.

``daemon.pipeline.entries.redact_secrets`` runs only the scanner's secret rules,
because redaction keeps only secret findings. This holds the two equal over
the labelled scan corpus (every secret family, injections, clean text), so a
rule change that made non-secret rules matter to redaction would show here.
"""

from __future__ import annotations

import json
from pathlib import Path

from memoryd.daemon.pipeline.entries import redact_secrets
from memoryd.kernel.scan import redact

CORPUS = Path(__file__).parents[1] / "data" / "scan_corpus.jsonl"


def test_secret_only_redaction_equals_full_redaction_on_the_corpus() -> None:
    texts = [json.loads(line)["text"] for line in CORPUS.read_text().splitlines() if line]
    changed = 0
    for text in texts:
        expected = redact(text)
        assert redact_secrets(text) == expected
        changed += expected != text
    assert changed > 0  # the corpus really holds secrets that get redacted
