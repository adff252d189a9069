"""Secrets given in prose, in many languages, are refused; look-alikes are stored.

The corpus (tests/data/secret_prose_corpus.jsonl, written by
tests/data/make_secret_prose_corpus.py) keeps every third row of each
category held out: only its dev rows are held to account here, so the
held-out figure printed by ``bench/scan.py --corpus`` stays a measure of
how the rules generalise.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from memoryd.kernel.scan import ContentRejected, check_fields, verdict_fields

CORPUS = Path(__file__).resolve().parents[1] / "data" / "secret_prose_corpus.jsonl"
ROWS = [json.loads(line) for line in CORPUS.read_text(encoding="utf-8").splitlines()]
DEV_SECRETS = [r["text"] for r in ROWS if r["split"] == "dev" and r["category"] == "secret"]
DEV_BENIGN = [r["text"] for r in ROWS if r["split"] == "dev" and r["category"] == "benign"]


def _refusal(text: str) -> str | None:
    refused, _ = verdict_fields([("title", "note"), ("body", text)], max_bytes=100_000)
    return None if refused is None else refused.code


def test_corpus_spans_languages_and_holds_a_third_out() -> None:
    secrets = [r for r in ROWS if r["category"] == "secret"]
    assert len(secrets) >= 60 and len({r["lang"] for r in secrets}) >= 10
    assert sum(r["category"] == "benign" for r in ROWS) >= 60
    held = sum(r["split"] == "held_out" for r in ROWS)
    assert abs(held - len(ROWS) / 3) <= 2


@pytest.mark.parametrize("text", DEV_SECRETS)
def test_secret_given_in_prose_is_refused(text: str) -> None:
    assert _refusal(text) == "secret_detected"


@pytest.mark.parametrize("text", DEV_BENIGN)
def test_credential_look_alike_is_stored(text: str) -> None:
    assert _refusal(text) is None


@pytest.mark.parametrize(
    "text",
    [
        "The root password is Qx7-harbour-19",
        "hunter2-xyz is the root password on the build box.",
        "The S3 key is AKIA IOSF ODNN 7EXA MPLE, keep it safe.",
        "Das neue Passwort ist jetzt Berg7Tal#2.",
    ],
)
def test_refusal_never_echoes_the_value(text: str) -> None:
    with pytest.raises(ContentRejected) as raised:
        check_fields([("title", "note"), ("body", text)], max_bytes=100_000)
    said = json.dumps(raised.value.__dict__, default=str) + str(raised.value)
    for value in ("Qx7-harbour-19", "hunter2-xyz", "IOSF", "Berg7Tal#2"):
        assert value not in said


@pytest.mark.parametrize(
    "text",
    [
        "Badik bargerfon pinto 5414",
        "The Pinto 1974 is in the garage",
        "Pinball 2000 was the last machine they made",
        "pinnacle 2024 roadmap",
    ],
)
def test_a_word_that_only_begins_with_pin_names_no_credential(text: str) -> None:
    # "pin" takes only a plural "s"; longer, it begins ordinary words.
    assert _refusal(text) is None


@pytest.mark.parametrize("text", ["My PIN is 4821", "PINs: 4821 and 7730", "пин 4821"])
def test_a_pin_with_its_plural_is_still_a_credential(text: str) -> None:
    assert _refusal(text) == "secret_detected"
