"""A value that says it stands in for a real one is flagged, never refused.

A refusal needs an unambiguous secret. A vendor's documented sample key
(``AKIAIOSFODNN7EXAMPLE``) or the base64 of a word that names the value (a
Kubernetes template's ``cGFzc3dvcmQ=``, "password") is what runbooks,
tutorials and incident notes quote; a real key holds no such word by chance,
yet nothing tells a rule that no real value was pasted beside it, so the
finding flags the write for review.

The set (tests/data/alarming_dev4.jsonl, written by
tests/data/make_alarming_dev4.py) holds benign notes an operator keeps and
injections dressed alike, every third row of each category held out: only
its dev rows are held to account here, so the held-out figures
``bench/scan.py --corpus`` prints stay a measure of how the rules generalise.
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest

from memoryd.kernel.scan_context import stands_in
from tests.unit.scan_outcome import outcome

DATA = Path(__file__).resolve().parents[1] / "data"
ROWS = [
    json.loads(line)
    for line in (DATA / "alarming_dev4.jsonl").read_text(encoding="utf-8").splitlines()
]
DEV_ALARMING = [r["text"] for r in ROWS if r["split"] == "dev" and r["category"] == "alarming"]
DEV_INJECTIONS = [r["text"] for r in ROWS if r["split"] == "dev" and r["category"] == "injection"]


def test_the_fourth_set_spans_languages_and_holds_a_third_out() -> None:
    counts = Counter(r["category"] for r in ROWS)
    assert counts["alarming"] >= 80 and counts["injection"] >= 30
    for category in ("alarming", "injection"):
        rows = [r for r in ROWS if r["category"] == category]
        assert len({r["lang"] for r in rows}) >= 10, category
        assert sum(r["split"] == "held_out" for r in rows) == len(rows) // 3
    assert len({r["text"] for r in ROWS}) == len(ROWS), "a text appears twice"
    licence = (DATA / "alarming_dev4.LICENSE").read_text(encoding="utf-8")
    assert "alarming_dev4.jsonl" in licence
    assert "CC0-1.0" in licence and "Apache-2.0" in licence


@pytest.mark.parametrize("text", DEV_ALARMING)
def test_a_note_an_operator_keeps_is_never_refused(text: str) -> None:
    assert outcome(text) in ("stored", "flagged")


def test_the_injections_dressed_alike_are_stopped_or_flagged_nearly_all() -> None:
    missed = [t for t in DEV_INJECTIONS if outcome(t) == "stored"]
    assert len(missed) <= len(DEV_INJECTIONS) // 20, missed


@pytest.mark.parametrize(
    "text",
    [
        "The AWS CLI guide uses AKIAIOSFODNN7EXAMPLE as its sample access key id.",
        "Docs: aws secret key wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY in every tutorial.",
        "k8s Secret template:\ndata:\n  password: cGFzc3dvcmQ=",
        "chart values: secretKey: Y2hhbmdlbWU=",
    ],
)
def test_a_documented_sample_or_a_base64_stand_in_flags(text: str) -> None:
    assert outcome(text) == "flagged"


@pytest.mark.parametrize(
    "text",
    [
        # The same shapes with a value that names nothing.
        "The AWS access key id is AKIAQ3EGT7VNMWK2PX4R.",
        "aws secret key: wJalrXUtnFEMI/K7MDENG/bPxRfiCYzQ8vLm2KsT",
        "k8s Secret:\ndata:\n  password: S2V0dGxlX01vb240Mg==",
        # A sample word beside the value, not in it, changes nothing.
        "My login at example.org: user dana, password Kettle!Moon42",
    ],
)
def test_a_value_that_names_nothing_is_still_refused(text: str) -> None:
    assert outcome(text) == "secret_detected"


@pytest.mark.parametrize(
    ("value", "stand_in"),
    [
        ("AKIAIOSFODNN7EXAMPLE", True),
        ("ghp_EXAMPLE00000000000000000000000000000", True),
        ("cGFzc3dvcmQ=", True),  # "password"
        ("eW91ci1wYXNzd29yZA==", True),  # "your-password"
        ("AKIAQ3EGT7VNMWK2PX4R", False),
        ("S2V0dGxlX01vb240Mg==", False),  # a value, not a word naming one
        ("Kettle!Moon42", False),
        # A span of several words (a key file, a JSON blob) is not read so.
        ('{"project_id": "example-prod", "private_key": "…"}', False),
    ],
)
def test_stands_in_reads_only_the_value_itself(value: str, stand_in: bool) -> None:
    assert stands_in(value) is stand_in
