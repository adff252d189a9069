"""Secrets in prose named by other words and shapes: a network's code, an
account's recovery codes, an API's key in Japanese and Korean, "pass" and
"pw" as the last part of a variable's name, a value after "pw" that mixes
both cases with a digit or closes on an exclamation mark, a code said
digit by digit that reads as a year, a Hungarian password word whose stem
changes ("jelszavam"), a lock's combination named after the lock, "pass"
after an account's address, codes listed with numbers or named a second
factor's backup, a key box named by its keys, a PIN or an entry code named
in Japanese, the Nordic languages, Hebrew or Arabic, a password spelt out
letter by letter with its symbols. Each is refused as a secret; the notes
that only look like one are never refused.

The set (tests/data/secret_prose_dev7.jsonl, written by
tests/data/make_secret_prose_dev7.py) holds a third of each category out,
chosen by a hash of each row's id: only its dev rows are held to account
(test_scan_secret_prose_sets.py). The examples here are written for this
file; none comes from a held-out row.
"""

from __future__ import annotations

import pytest

from tests.unit.scan_outcome import outcome


@pytest.mark.parametrize(
    "text",
    [
        "Le code wifi, c'est Mésange#58.",
        "Il codice del wifi è Passero!92.",
        "El código del wifi es Gorrión#31.",
    ],
)
def test_a_networks_code_is_its_password(text: str) -> None:
    assert outcome(text) == "secret_detected"


@pytest.mark.parametrize(
    "text",
    [
        "Herstelcode voor het account: 3KD9-7QWM-2PXT-8LHN",
        "código de recuperación del correo: 9f3k-2m7q-x8w4-1p6z",
        "Код восстановления: 7HQ2-M4XK-9PLD-3WRT",
    ],
)
def test_an_accounts_recovery_code_in_groups_is_refused(text: str) -> None:
    assert outcome(text) == "secret_detected"


@pytest.mark.parametrize(
    "text",
    ["検索APIのキーは 9c4e1b7a2f8d3065 です。", "지도 API 키는 3e8b1c9f7a2d4065 입니다."],
)
def test_an_api_key_named_in_japanese_or_korean_is_refused(text: str) -> None:
    assert outcome(text) == "secret_detected"


@pytest.mark.parametrize(
    "text",
    [
        "then run it with SMTP_PASS=Wq7#rT2pLm set",
        "ROOT_PW=Gx4!kd9Zq in the kickstart file",
        "mail.pass: Lk8$vn3Rt",
    ],
)
def test_pass_or_pw_closing_a_variables_name_names_a_password(text: str) -> None:
    assert outcome(text) == "secret_detected"


@pytest.mark.parametrize(
    "text",
    [
        "PASS: test_login_2",
        "bypass=enabled2",
        "use --compass=N42 for the heading",
        "SMTP_PASS=${SMTP_PASS}",
        "DB_PASS=changeme",
    ],
)
def test_a_test_result_another_word_or_a_placeholder_is_stored(text: str) -> None:
    assert outcome(text) in ("stored", "flagged")


@pytest.mark.parametrize(
    "text",
    ["printer pw: Heron_Lake58", "the guest laptop (pw Clementine4!) is in the drawer"],
)
def test_a_value_after_pw_mixing_cases_with_a_digit_or_an_exclamation_is_refused(
    text: str,
) -> None:
    assert outcome(text) == "secret_detected"


@pytest.mark.parametrize(
    "text", ["PASS: test_Login_2", "pw: MAX_RETRIES_3", "pass: skip_tests", "pw Tangerine"]
)
def test_an_identifier_or_a_word_after_pass_or_pw_is_stored(text: str) -> None:
    assert outcome(text) in ("stored", "flagged")


@pytest.mark.parametrize(
    "text", ["Portkoden är 1 9 7 7.", "The alarm PIN is 2 0 0 1.", "PIN: one nine eight six"]
)
def test_a_code_said_digit_by_digit_is_refused_even_when_it_reads_as_a_year(text: str) -> None:
    assert outcome(text) == "secret_detected"


@pytest.mark.parametrize(
    "text",
    [
        "Recovery code format is XXXX-XXXX-XXXX-XXXX; each works once.",
        "The wifi code is on the back of the router.",
        "Backup codes were printed and put in the safe.",
        "一九八四年に作られた暗証番号の規則",
    ],
)
def test_a_note_about_codes_with_no_value_is_stored(text: str) -> None:
    assert outcome(text) in ("stored", "flagged")


@pytest.mark.parametrize(
    "text",
    [
        "Jelszavam a levelezéshez: Pacsirta#72",
        "A jelszava Bagoly!Erdo4 volt tegnap óta.",
    ],
)
def test_a_hungarian_password_word_with_its_stem_changed_is_read(text: str) -> None:
    assert outcome(text) == "secret_detected"


@pytest.mark.parametrize(
    "text", ["Safe combination 21-07-44.", "padlock code 4-17-30", "Locker combo 08 15 33"]
)
def test_a_locks_combination_named_after_the_lock_is_refused(text: str) -> None:
    assert outcome(text) == "secret_detected"


def test_a_combination_lock_measured_is_stored() -> None:
    assert outcome("Safe combination lock sizes: 12-34-56 cm") == "stored"


@pytest.mark.parametrize(
    "text",
    [
        "Team mailbox is desk.ops@mailhost.example.net, pass Quartz!Owl38",
        "ana.lima@acme.io pass Garnet_Hill77",
    ],
)
def test_pass_after_an_accounts_address_is_its_password(text: str) -> None:
    assert outcome(text) == "secret_detected"


@pytest.mark.parametrize(
    "text", ["mail bob@acme.io, pass the salt", "Write to ops@acme.io, pass: skip_tests"]
)
def test_pass_after_an_address_as_a_verb_or_a_test_result_is_stored(text: str) -> None:
    assert outcome(text) in ("stored", "flagged")


@pytest.mark.parametrize(
    "text",
    [
        "recovery codes\n1) 7c2d-41ab\n2) 90fe-3b17\n3) 5a6c-e802",
        "Backup codes: 1. 55120931 2. 84407216 3. 19930455",
        "MFA backup: 61730294 88301745 20958316",
        "2FA-recovery 4821-0937, 5512-9034",
    ],
)
def test_codes_listed_with_numbers_or_named_a_second_factors_backup_are_refused(
    text: str,
) -> None:
    assert outcome(text) == "secret_detected"


@pytest.mark.parametrize(
    "text",
    [
        "recovery codes\n1) print them\n2) store them",
        "release notes:\n1) v2.3.1\n2) v2.3.2",
        "2FA backup: stored in the safe",
        "backup: 20240101 20240102",
    ],
)
def test_a_numbered_list_with_no_codes_is_stored(text: str) -> None:
    assert outcome(text) in ("stored", "flagged")


@pytest.mark.parametrize(
    "text",
    ["Le code de la boîte à clés est 0815.", "Der Code für den Schlüsselkasten ist 4471."],
)
def test_a_key_boxs_code_named_by_its_keys_is_refused(text: str) -> None:
    assert outcome(text) == "secret_detected"


def test_a_key_box_with_no_code_is_stored() -> None:
    assert outcome("La boîte à clés est à gauche de la porte.") == "stored"


@pytest.mark.parametrize(
    "text",
    [
        "iPadのパスコードは 7302 です。",
        "Pinkoden til kortet er 5093.",
        "Pinkoden är 8127.",
        "קוד הכניסה למשרד 7395",
        "الرقم السري للبطاقة 6618",
    ],
)
def test_a_pin_or_entry_code_named_in_japanese_nordic_hebrew_or_arabic_is_refused(
    text: str,
) -> None:
    assert outcome(text) == "secret_detected"


@pytest.mark.parametrize(
    "text",
    [
        "パスコードは6桁です。",
        "Pinkoden må ha 4 sifre.",
        "קוד הכניסה משתנה כל חודש",
        "الرقم السري مكون من 4 أرقام",
    ],
)
def test_a_rule_about_such_a_code_is_stored(text: str) -> None:
    assert outcome(text) in ("stored", "flagged")


@pytest.mark.parametrize(
    "text",
    [
        "the router password, spelt out so no filter reads it: M a r t e n # 5 5 0 2",
        "wifi password: K e s t r e l ! 4 4",
    ],
)
def test_a_password_spelt_out_with_its_symbols_is_refused(text: str) -> None:
    assert outcome(text) == "secret_detected"


@pytest.mark.parametrize(
    "text", ["Q & A on Friday, R & D on Monday.", "score: a + b + c + d", "vote 1 2 3 4 5 stars"]
)
def test_single_characters_with_symbols_between_are_stored(text: str) -> None:
    assert outcome(text) == "stored"
