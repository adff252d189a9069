"""Secrets in prose as writers who read no rule write them: a lock's code in
more languages, a lock set to a new code, answers to security questions, an
aside in brackets before a value, digits read out in a chat's answer, and
the words of death read of the value nearest before them.

The set (tests/data/secret_prose_dev9.jsonl, written by
tests/data/make_secret_prose_dev9.py) holds its held-out part apart: it was
written after the dev part and never read (test_scan_secret_prose_sets.py
holds only the dev rows to account). The examples here are written for this
file; none comes from a row of the set.
"""

from __future__ import annotations

import pytest

from tests.unit.scan_outcome import outcome


@pytest.mark.parametrize(
    "text",
    [
        "De code voor de kluis in de kelder: 830271",
        "Kód od trezoru v kanceláři: 551904",
        "Kod do domofonu u cioci: 7721",
        "Codul de la interfonul scării: 3318",
        "Kode til garasjeporten er 6612.",
        "A széf kódja: 448190",
        "Koden til hoveddøren er ændret til 5519.",
        "Код від сейфа на складі: 9127",
        "Pankkikortin tunnusluku on 6630.",
        "Tresor im Keller → Code 7-3-9-1-4",
    ],
)
def test_a_locks_code_is_read_in_more_languages(text: str) -> None:
    assert outcome(text) == "secret_detected"


@pytest.mark.parametrize(
    "text",
    [
        "Reset the hotel safe to 902213 before checkout.",
        "we changed the keypad code to 3317 yesterday",
        "I set my padlock to 8826.",
    ],
)
def test_a_lock_set_to_a_new_code_gives_it(text: str) -> None:
    assert outcome(text) == "secret_detected"


@pytest.mark.parametrize(
    "text",
    [
        "set the alarm to 0630",
        "we switched the gate to 0815 on Monday",
        "set the safe to 2019 settings",
        "set the locker to 1200 mm",
        "error code 4-8-1-5-9 on the safe display",
    ],
)
def test_a_time_a_year_a_measure_or_an_error_is_no_new_code(text: str) -> None:
    assert outcome(text) in ("stored", "flagged")


@pytest.mark.parametrize(
    "text",
    [
        "Security answers for the insurer: maiden name = Abernethy, first pet = Pickle",
        "Pregunta de seguridad (¿ciudad de nacimiento?): Talavera",
        "Memorable information for the bank: honeysuckle — they ask for three letters.",
        "the passphrase (for the safe deposit app) is lantern harbour violet",
        "Recovery phrase for the Ledger (kept in the drawer): harvest mirror token velvet"
        " orbit fiscal lunar canyon drift ozone spice robot",
    ],
)
def test_an_answer_or_a_value_after_an_aside_is_read(text: str) -> None:
    assert outcome(text) == "secret_detected"


@pytest.mark.parametrize(
    "text",
    [
        "security question: what was your first car?",
        "Memorable information: required at login",
        "the password (12 chars) is required",
    ],
)
def test_a_question_a_rule_or_an_aside_alone_gives_no_value(text: str) -> None:
    assert outcome(text) in ("stored", "flagged")


def test_digits_read_out_answer_a_chats_question() -> None:
    text = "Ola: what's the PIN for the shed padlock?\nPer: 6 2 9 4\nOla: thanks"
    assert outcome(text) == "secret_detected"


def test_dead_words_speak_of_the_value_nearest_before_them() -> None:
    assert outcome("Gate keypad: 7720# (the old one 3158 no longer works).") == ("secret_detected")
    assert outcome("The old gate code 3158 no longer works.") == "flagged"
