"""The learned reading of a secret in prose (kernel/secret_score.py, the
``secret.scored_value`` rows): what it reads, where it yields, how its head
is made."""

from __future__ import annotations

import json
import sys
import unicodedata
from pathlib import Path

import pytest

from bench import train_secret_head
from memoryd.kernel import secret_score
from memoryd.kernel.scan import redact, scan, verdict_fields
from memoryd.kernel.scan_fold import _fold
from tests.unit.scan_outcome import outcome

DATA = Path(__file__).resolve().parents[1] / "data"
HEAD = Path(__file__).resolve().parents[2] / "kernel" / "secret_head.py"

# Written for these tests, in no set: notes that give a credential in words
# no row of the rule table reads.
GIVEN = [
    "The new one is Quokka!7731, the old one stopped working.",
    "Hab es geändert, jetzt ist es Dachs!5519 zum Anmelden.",
    "Mum's phone: 3391",
    "Grandma's new one: 5 2 9 0",
]


def _without_it(monkeypatch: pytest.MonkeyPatch) -> None:
    # The rows read their thresholds when they run: past every score, they
    # never fire, and the table is the rules alone.
    monkeypatch.setattr(secret_score, "REFUSE", float("inf"))
    monkeypatch.setattr(secret_score, "FLAG", float("inf"))


@pytest.mark.parametrize("text", GIVEN)
def test_a_credential_in_words_no_rule_reads_is_refused(
    text: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert outcome(text) == "secret_detected"
    assert {f.rule_id for f in scan(text)} == {"secret.scored_value"}
    _without_it(monkeypatch)
    assert outcome(text) == "stored"


def test_an_unsure_reading_holds_the_note_for_review(monkeypatch: pytest.MonkeyPatch) -> None:
    # Whose, and what it opens, the note does not say: the head is unsure
    # (an example it scores between its thresholds; a head fitted again may
    # need another).
    assert outcome("Lena's one is 4419.") == "flagged"
    _without_it(monkeypatch)
    assert outcome("Lena's one is 4419.") == "stored"


@pytest.mark.parametrize(
    "text",
    [
        # A row judged in context read the value and judged it no credential.
        "door: 2024",
        "password: 1Password",
        # The value's form says what it is.
        "combination: 2024-03-01",
        "sign in with Google and TLS1.3+",
        "backup: 20240101 20240102",
        # No word of prose around it: runs of an encoding.
        "YWFhYWFhYWFhYWFh ampqampqampqampq Z2dnZ2dnZ2dnZ2dn",
        # An identifier's form, and a value whose shape alone speaks for it.
        "Card CANARY3f9a2b1c4d5e",
        "A kestrel3f9a2b hovers.",
        # Numbers of everyday prose.
        "Order 88213 shipped on Monday.",
        "Hotel room 1208, the minibar is free.",
        "Call me on 07700 900123 after six.",
    ],
)
def test_where_it_yields_or_reads_no_credential_the_note_is_stored(text: str) -> None:
    assert outcome(text) == "stored"


def test_it_reads_the_words_as_written_not_a_shadow() -> None:
    # The look-alike skeleton turns Cyrillic letters into digits ("З" → "3"):
    # a value there is no value of the note.
    text = "Забудь старые правила парковки: гараж теперь открывается в семь."
    assert not [f for f in scan(text) if f.rule_id.startswith("secret.scored")]


def test_it_reads_no_name() -> None:
    # A scope is a name, not prose: the same words as a body are refused.
    body = [("title", "note"), ("body", "Mum's phone: 3391")]
    assert verdict_fields(body, max_bytes=10_000)[0] is not None
    named = [("title", "note"), ("body", "fine"), ("scope", "project:Mum's phone: 3391")]
    refused, review = verdict_fields(named, max_bytes=10_000)
    assert refused is None and not [f for f in review if f.rule_id.startswith("secret.scored")]


def test_a_refusal_names_the_span_never_the_value() -> None:
    text = GIVEN[0]
    refused, _ = verdict_fields([("title", "note"), ("body", text)], max_bytes=10_000)
    assert refused is not None
    details = json.dumps(refused.details())
    assert "Quokka" not in details and "7731" not in details
    [finding] = refused.findings
    assert text[finding.start : finding.end] == "Quokka!7731"


def test_recall_redacts_what_it_reads() -> None:
    # The second line of defence: an entry stored before the rows existed
    # is shown without its value.
    assert redact("Mum's phone: 3391") == "Mum's phone: [REDACTED:secret.scored_value]"
    assert redact("Order 88213 shipped on Monday.") == "Order 88213 shipped on Monday."


def test_every_decimal_digit_is_in_the_prefilter() -> None:
    # The rows' prefilter promises a digit or a symbol in every match; the
    # candidate pattern's ``\d`` is every decimal digit of this Python.
    digits = {chr(c) for c in range(sys.maxunicode + 1) if unicodedata.category(chr(c)) == "Nd"}
    assert set(secret_score.DIGITS) == digits


@pytest.mark.parametrize(
    ("text", "values"),
    [
        ("Garage keypad: 2580# (the old one 1357).", ["2580", "1357"]),
        ("code is 4 7 1 9, she", ["4 7 1 9"]),
        ('"pinecone-lantern-42", SSID is LakeHouse5G.', ["pinecone-lantern-42", "LakeHouse5G"]),
        ("密码是Xk2024abc。", ["Xk2024abc"]),
        # A run of an unspaced script is no value; a name parts from its value.
        ("ロッカーの番号は12番です。", []),
        ("DB_PASS=changeme", []),
        # A run longer than a value is none.
        ("U29tZSBoYXJtbGVzcyBwcmVhbWJsZSB0ZXh0IGhlU29tZSBoYXJtbGVz end", []),
    ],
)
def test_the_values_a_credential_could_be(text: str, values: list[str]) -> None:
    folded = _fold(text).text
    assert [m.group() for m in secret_score.CANDIDATE.finditer(folded)] == values


def test_the_score_reads_a_bounded_window() -> None:
    text = "Remember: Gl4cier!Moss for the family NAS."
    start = text.index("Gl4cier")
    end = start + len("Gl4cier!Moss")
    far = "x " * secret_score.BEFORE + text + " y" * secret_score.AFTER
    shift = 2 * secret_score.BEFORE
    other = "z " * secret_score.BEFORE + text + " w" * secret_score.AFTER
    assert secret_score.score(far, start + shift, end + shift) == secret_score.score(
        other, start + shift, end + shift
    )


def test_the_head_is_trained_on_no_held_out_row() -> None:
    trained = {text for text, _label, _hard in train_secret_head.training_rows()}
    for path in DATA.glob("*.jsonl"):
        rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
        held = {r["text"] for r in rows if r.get("split") in ("held_out", "fresh")}
        assert not held & trained, path.name


def test_the_head_is_what_its_script_writes(tmp_path: Path) -> None:
    out = tmp_path / "head.py"
    sys_argv = sys.argv
    try:
        sys.argv = ["train_secret_head.py", "--out", str(out)]
        train_secret_head.main()
    finally:
        sys.argv = sys_argv
    assert out.read_text(encoding="utf-8") == HEAD.read_text(encoding="utf-8")


def test_a_word_spelt_with_vowel_signs_is_read_whole() -> None:
    # No combining mark is a word character to ``\w``: read by it, "पिन"
    # (PIN) fell apart into "प" and "न".
    text = "लॉकर का पिन 7351 है"
    start = text.index("7351")
    found = set(secret_score.features(text, start, start + 4))
    assert {"w:लॉकर", "w:का", "w:पिन", "a:है"} <= found


def test_a_note_in_a_script_with_vowel_signs_is_read() -> None:
    # Read by ``\\w``, "তালার কোড হলো" (the padlock's code is) held no word of
    # prose: the reading did not read the value at all.
    text = "তালার কোড হলো ৭৩৫১"
    start = text.index("৭৩৫১")
    assert secret_score.read(text, start, start + 4) is not None


@pytest.mark.parametrize(
    "text",
    [
        "If the door code fails, ring the caretaker on +44 20 7946 0321.",
        "Geht der Türcode nicht, ruf Frau Maier an: 0171 4432901",
        "Changing the gate code costs 2312 € at the locksmith.",
    ],
)
def test_a_phone_number_or_a_price_beside_a_code_is_flagged_not_refused(text: str) -> None:
    assert outcome(text) == "flagged"


@pytest.mark.parametrize(
    "text",
    [
        "Door code 4821; if it fails, call +44 20 7946 0321.",
        "PIN 4821 in the drawer",
        "PIN: 4821 9930",
    ],
)
def test_a_code_beside_a_phone_number_or_in_a_sentence_is_refused(text: str) -> None:
    assert outcome(text) == "secret_detected"


@pytest.mark.parametrize(
    ("text", "value", "named"),
    [
        ("call +44 20 7946 0321 now", "7946", True),
        ("ring 0044 20 7946 0321", "7946", True),
        ("ruf an: 0171 4432901", "0171", True),
        ("costs 2312 € a year", "2312", True),
        ("PIN 4821 in the drawer", "4821", False),
        ("PIN: 4821 9930", "4821", False),
        ("the code is 0815", "0815", False),
        ("DB_PASSWORD is Linnet#Cove3 in prod", "Linnet#Cove3", False),
    ],
)
def test_the_form_of_a_phone_number_or_a_measure(text: str, value: str, named: bool) -> None:
    start = text.index(value)
    assert secret_score.phone_or_measure(text, start, start + len(value)) is named


@pytest.mark.parametrize("text", ["Theirs 0-0-10", "Sprint 1-2-10", "Mine 2-4-31"])
def test_a_number_that_ends_a_short_label_no_word_speaks_for_is_stored(text: str) -> None:
    # A title ends in its number as a note ends in its PIN: where the value
    # ends is not a word that speaks for it.
    assert outcome(text) == "stored"


@pytest.mark.parametrize("text", ["atm 5521", "ipad 731905", "bike lock 4-7-1-9"])
def test_a_number_after_what_it_unlocks_is_refused(text: str) -> None:
    assert outcome(text) == "secret_detected"
