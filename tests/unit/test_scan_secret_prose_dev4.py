"""Secrets in prose in shapes the earlier sets hold few of, in many languages.

Digits read out in pairs, as figures ("61 07 23") or as number words
("zweiundvierzig siebzehn"); a code after a separable verb ("schaltest du mit
… aus"); a value at the end of its name's line or alone on the next line; a
password under a table's password column; a recovery phrase named in another
language or numbered; backup codes in a list; a password after a user's name
on the line before; an account and its quoted password. Each is refused as a
secret. The notes that only look like one (a phone number or an order read
out in pairs, a separable verb with no code, "the same as last year", a table
with no password, a policy, a placeholder) are never refused.

The set (tests/data/secret_prose_dev4.jsonl, written by
tests/data/make_secret_prose_dev4.py) was written before the rules were tuned
on it and keeps every third row of each category held out: only its dev rows
are held to account (test_scan_secret_prose_sets.py), so the held-out figure printed by
``bench/scan.py --corpus`` stays a measure of how the rules generalise. The
other examples are written for this file; none comes from a held-out row.
"""

from __future__ import annotations

import pytest

from tests.unit.scan_outcome import outcome


@pytest.mark.parametrize(
    "text",
    [
        "Mailbox PIN is 83 27 16.",
        "门禁密码 45 90 12",
        "Torcode: 27 64",
        "Voicemail PIN: thirty-one, sixty-two",
        "Der Code für die Haustür lautet dreiundvierzig elf.",
        "Код от ворот: сорок два семнадцать",
        "La clave de la alarma es treinta y uno doce.",
    ],
)
def test_digits_read_out_in_pairs_are_refused(text: str) -> None:
    assert outcome(text) == "secret_detected"


@pytest.mark.parametrize(
    "text",
    [
        "Call the desk on 07 83 27 16 44.",
        "The PIN is nineteen eighty.",
        "PIN policy: twenty, thirty or forty attempts",
        "Bestellung 83 27 16 kommt morgen.",
    ],
)
def test_a_number_read_out_in_pairs_with_no_code_word_is_stored(text: str) -> None:
    assert outcome(text) == "stored"


@pytest.mark.parametrize(
    "text",
    [
        "Das Hoftor machst du mit 3 9 1 4 auf.",
        "Die Alarmanlage schaltet man mit 8203 ab.",
        "De kluis gaat open met 6 1 7 3.",
        "Larmet stäng av med 2 8 4 6.",
        "Сигнализацию отключаешь кодом 7 7 3 1.",
        "Der Schuppen geht mit vier, neun, zwei, acht auf.",
    ],
)
def test_a_code_after_a_separable_verb_is_refused(text: str) -> None:
    assert outcome(text) == "secret_detected"


@pytest.mark.parametrize(
    "text",
    [
        "Die Tür geht mit dem Chip auf.",
        "Das Licht schaltest du mit dem Schalter links aus.",
        "Het alarm zet je uit met de afstandsbediening.",
    ],
)
def test_a_separable_verb_with_no_code_is_stored(text: str) -> None:
    assert outcome(text) == "stored"


@pytest.mark.parametrize(
    "text",
    [
        "API key (no prefix, paste it whole):\nZk4mT9qW2xLp7VcR8nBd",
        "Passwort fürs Archiv, zur Sicherheit in der nächsten Zeile:\nKranich#Moor58",
        "Clé API du service météo (sans préfixe) : Qp7Lw2Zx9Km4Rt8Vn3Bc",
        'Signing key passphrase (typed exactly): "seven pale moths at dawn"',
        "webhook secret (two lines):\nb81f0c2a9e\n4d7f3a6c15",
    ],
)
def test_a_value_at_the_end_of_its_line_or_on_the_next_is_refused(text: str) -> None:
    assert outcome(text) == "secret_detected"


@pytest.mark.parametrize(
    "text",
    [
        "Password (see the policy): min12chars",
        "API key:\n<your-key-here>",
        "Password reset link:\nhttps://example.com/reset",
        "sha256 of the build:\n9b2c7e4f01a3d58e6c2b7f90a4d13e58",
        "Token:\nabc\nrotated weekly",
    ],
)
def test_a_rule_a_placeholder_a_link_or_a_hash_on_the_next_line_is_stored(text: str) -> None:
    assert outcome(text) in ("stored", "flagged")


def test_a_password_under_its_column_is_refused() -> None:
    table = "| app | login | password |\n|---|---|---|\n| wiki | editor | Quill#Lake29 |"
    assert outcome(table) == "secret_detected"
    assert outcome("| app | owner | password |\n|---|---|---|\n| wiki | ops | ******** |") in (
        "stored",
        "flagged",
    )
    assert outcome("| app | rotation |\n|---|---|\n| wiki | 90 days |") == "stored"


@pytest.mark.parametrize(
    "text",
    [
        "Seed phrase: 1 maple 2 rocket 3 velvet 4 island 5 copper 6 lemon 7 frost 8 canyon "
        "9 pepper 10 orbit 11 walnut 12 harbor",
        "Frase de recuperación de la cartera: gato pino mar sol luna río flor nube roca sal "
        "trigo lago",
        "Сид-фраза: волк лиса ель снег море поле луч дождь камень рожь сова липа",
    ],
)
def test_a_recovery_phrase_numbered_or_named_in_another_language_is_refused(text: str) -> None:
    assert outcome(text) == "secret_detected"


@pytest.mark.parametrize(
    "text",
    [
        "Backup codes:\n- 71ka-9p2m\n- 3vq8-k41z\n- m2x7-0rd5",
        "Kody zapasowe: 5521 0934, 7730 1168",
        "Codici di recupero 2FA: 8K2L 4MQX, Z7P3 9RTW",
    ],
)
def test_backup_codes_in_a_list_or_named_in_another_language_are_refused(text: str) -> None:
    assert outcome(text) == "secret_detected"


@pytest.mark.parametrize(
    "text",
    [
        "login for the kiosk\nuser: shift-lead\npass: Amber_Fox_62",
        "Zugang zum Router (admin / « Kiefer-Hang-44 »)",
        "Le vélo : le cadenas s'ouvre avec quatre, deux, neuf.",
        "De code van het fietsslot is drie een zes.",
        "南京錠は 7-3-0 です",
        "Koden till garaget är 5 1 8 2.",
        "PIN ke kartě: sedm nula dva pět",
    ],
)
def test_a_password_after_its_user_a_quoted_one_and_a_lock_in_words_are_refused(text: str) -> None:
    assert outcome(text) == "secret_detected"


@pytest.mark.parametrize(
    "text",
    [
        "Hasło do serwera jest takie samo jak w banku.",
        "Lösenordet är samma som förra året.",
        "pass: skip_tests",
    ],
)
def test_a_password_compared_to_another_or_an_identifier_is_stored(text: str) -> None:
    assert outcome(text) in ("stored", "flagged")


@pytest.mark.parametrize(
    "text",
    [
        "The NAS password -> Heron#Cove81",
        "voicemail code is 6 2 0 9",
        "رمز الباب 4 7 1 9",
        "mailbox code: 81 37 20",
    ],
)
def test_a_value_after_an_arrow_or_a_voicemail_or_door_code_is_refused(text: str) -> None:
    assert outcome(text) == "secret_detected"


@pytest.mark.parametrize("text", ["Build -> 4.12.3", "password → see vault"])
def test_a_version_or_a_pointer_after_an_arrow_is_stored(text: str) -> None:
    assert outcome(text) == "stored"
