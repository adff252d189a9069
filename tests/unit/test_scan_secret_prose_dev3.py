"""Secrets bound to their name by the sentence rather than by a copula, in many languages.

A password given as the object of "with" ("log in with password …"), a code
said in the number words of the note's language, a lock's combination after
the lock's name or the verb that opens it, a card's security code, an account
and its password with a slash between, "my PIN? it's …": each is refused as a
secret. The notes that only look like one (a policy, a masked value, an order
number, "the CVV is the 3-digit number on the back") are never refused.

The set (tests/data/secret_prose_dev3.jsonl, written by
tests/data/make_secret_prose_dev3.py) was written before the rules were tuned
on it and keeps every third row of each category held out: only its dev rows
are held to account (test_scan_secret_prose_sets.py), so the held-out figure printed by
``bench/scan.py --corpus`` stays a measure of how the rules generalise. The
other examples are written for this file; none comes from a held-out row.
"""

from __future__ import annotations

import json

import pytest

from memoryd.kernel.scan import ContentRejected, check_fields
from tests.unit.scan_outcome import outcome


@pytest.mark.parametrize(
    "text",
    [
        "Sign in as reception with password marmalade, then open the calendar.",
        "Connect to the kiosk using the password Periwinkle.",
        "Meld dich mit dem Passwort Eichhörnchen an.",
        "Connectez-vous avec le mot de passe tournesol puis ouvrez le planning.",
    ],
)
def test_a_word_given_with_its_password_word_is_refused(text: str) -> None:
    assert outcome(text) == "secret_detected"


@pytest.mark.parametrize(
    "text",
    [
        "Protect the archive with password protection.",
        "Stop logging in with passwords everywhere.",
        "Log in with your password instead.",
        "The laptop is set up with password authentication.",
        "Войдите с паролем администратора.",
    ],
)
def test_what_a_sentence_does_with_a_password_is_no_value(text: str) -> None:
    assert outcome(text) == "stored"


@pytest.mark.parametrize(
    "text",
    [
        "Kart şifresi beş iki sıfır yedi.",
        "Kod PIN: siedem trzy osiem dwa",
        "मेरा पिन पांच दो आठ एक है",
        "Mã PIN là bốn hai chín một",
        "PIN ATM saya: empat satu tujuh dua",
        "رمز PIN هو خمسة ثلاثة سبعة واحد",
        "통장 비밀번호는 구삼일칠",
        "Der Code für die Haustür lautet sieben zwei null vier.",
    ],
)
def test_a_code_said_in_the_number_words_of_its_language_is_refused(text: str) -> None:
    assert outcome(text) == "secret_detected"


@pytest.mark.parametrize(
    "text",
    [
        "Kart şifresi dört haneli olmalı.",
        "PIN kodu bir kez yanlış girildi, kart bloke değil.",
        "사물함 번호는 17번이에요.",
        "ロッカーの番号は12番です。",
    ],
)
def test_a_number_word_that_counts_is_no_code(text: str) -> None:
    assert outcome(text) == "stored"


@pytest.mark.parametrize(
    "text",
    [
        "код от сейфа 21-40-08",
        "The key safe by the back door is 3-17-29.",
        "The safe opens with 8-21-40.",
        "The garden gate unlocks with 7 3 0 2.",
        "तिजोरी का कोड 4 9 1 6 है",
        "Mã két sắt: 3 8 1 5",
        "金庫の番号は 5-2-8-4",
        "사물함 번호 2 7 4 1",
    ],
)
def test_a_lock_opened_by_numbers_gives_them_away(text: str) -> None:
    assert outcome(text) == "secret_detected"


@pytest.mark.parametrize(
    "text",
    [
        "It is safe to deploy on 12-04-25.",
        "The season opens with 1200 visitors expected.",
        "The password policy 12-04-21 applies to all staff.",
    ],
)
def test_a_date_or_a_count_beside_a_lock_word_is_no_combination(text: str) -> None:
    assert outcome(text) == "stored"


@pytest.mark.parametrize(
    "text",
    [
        "비밀번호는 서랍 안 노트에 적혀 있다.",
        "관리자 비밀번호는 팀장님에게 물어보면 돼요.",
    ],
)
def test_a_korean_clause_that_says_where_the_password_is_is_no_passphrase(text: str) -> None:
    assert outcome(text) == "stored"


def test_a_card_security_code_is_refused() -> None:
    assert outcome("Card for the team lunch: CVV 417") == "secret_detected"
    assert outcome("The CVV is the 3-digit code on the back.") == "stored"
    assert outcome("CVV field accepts 000 in the sandbox.") == "stored"


@pytest.mark.parametrize(
    "text",
    [
        "the staging creds are deployer / Hq3!mz8Lw",
        "router: root / Kestrel#41",
        "Streaming account: lena.k@example.net / Fennel22!",
    ],
)
def test_an_account_and_its_password_with_a_slash_between_are_refused(text: str) -> None:
    assert outcome(text) == "secret_detected"


@pytest.mark.parametrize(
    "text",
    [
        "cabin wifi: network Fjord-Guest, key Lark7Meadow!",
        "Backup disk passphrase: the owl sleeps at noon",
        "SSH passphrase: quiet-river copper lamp",
        "the code to the front door is 4417",
    ],
)
def test_a_key_after_its_network_or_a_phrase_after_its_name_is_refused(text: str) -> None:
    assert outcome(text) == "secret_detected"


@pytest.mark.parametrize(
    "text",
    [
        "wifi: 5GHz band, key WPA2-PSK",
        "Passphrase: at least four words, no names.",
        "Passphrase: see the envelope in the safe",
        "Error code for the door controller: E4211",
        "Promo code for the gate shop: SUMMER2024",
    ],
)
def test_a_cipher_a_rule_or_an_error_code_is_no_secret(text: str) -> None:
    assert outcome(text) == "stored"


@pytest.mark.parametrize(
    "text",
    [
        "Set permissions to read / write for the group.",
        "Split the bill 50 / 50 with Sam.",
        "The course covers TCP / IP basics.",
        "Menu path: admin / Settings / Users",
    ],
)
def test_a_slash_between_words_is_no_account(text: str) -> None:
    assert outcome(text) == "stored"


@pytest.mark.parametrize(
    "text",
    [
        "Le code de la porte ? c'est 7 3 1 9.",
        "Le code de la carte c'est 8 2 6 0.",
        "войди с паролем Kedr2024!",
        "ادخل وكلمة المرور Zaytun_77",
        "Digicode de l'entrée : 7B391",
    ],
)
def test_a_value_after_a_question_an_elision_or_a_case_ending_is_refused(text: str) -> None:
    assert outcome(text) == "secret_detected"


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("Sign in as reception with password marmalade, then open the calendar.", "marmalade"),
        ("Card for the team lunch: CVV 417", "417"),
        ("router: root / Kestrel#41", "Kestrel#41"),
        ("Kart şifresi beş iki sıfır yedi.", "beş iki sıfır yedi"),
    ],
)
def test_a_refusal_never_repeats_the_value(text: str, value: str) -> None:
    with pytest.raises(ContentRejected) as raised:
        check_fields([("title", "note"), ("body", text)], max_bytes=100_000)
    said = json.dumps(raised.value.__dict__, default=str, ensure_ascii=False) + str(raised.value)
    assert value not in said
    assert "secret." in said
