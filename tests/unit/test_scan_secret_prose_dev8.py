"""Secrets in prose bound to their name by the grammar, not by one phrasing:
the copulas of more languages and of reported speech ("der Code sei …"), the
password and PIN words of more languages, a device's unlock code, a meeting
host's key, a role's code, a lock named with its German preposition or a
Nordic definite ending, digits read out with "oh", "double" and "triple", a
password spelt in the phonetic alphabet, a combination given by the dial's
turns, "use an account with a value" in other languages, a value followed by
its name in brackets, a question answered with a label, a copula that comes
last, a Latin word inside CJK text, two labels and two values joined by
slashes, a chat's turn that asks and the next that answers, a name with a
dot in it, a variable's name closed by the word and bound by a verb, and the
shorthands "p/w", "pwd", "pword", "passw", and a key or lock emoji before a
value of a password's shape, a value named "as" the credential or given as
its new value after a verb of change. Each is refused as a secret; the
notes that only look like one are never refused.

The set (tests/data/secret_prose_dev8.jsonl, written by
tests/data/make_secret_prose_dev8.py) holds a third of each category out,
chosen by a hash of each row's text: only its dev rows are held to account
(test_scan_secret_prose_sets.py). The examples here are written for this
file; none comes from a held-out row.
"""

from __future__ import annotations

import pytest

from tests.unit.scan_outcome import outcome


@pytest.mark.parametrize(
    "text",
    [
        "Паролата за принтера е ЧервенаЛисица3",
        "Wifi parole ir Stirna#Meza8.",
        "Slaptažodis yra Ruonis!Jura5.",
        "Nenosiri la barua pepe ni Tembo#Ziwa2.",
        "Ang password ng email ay Bangus#Dagat6.",
        "Der Verwalter sagt, das Passwort sei Dachs!Tal27.",
        "Parool on Hirv#Mets44.",
    ],
)
def test_a_copula_of_more_languages_or_of_reported_speech_binds_the_value(text: str) -> None:
    assert outcome(text) == "secret_detected"


@pytest.mark.parametrize(
    "text",
    [
        "Reset the password on db03 tonight.",
        "the password on host42 expired",
        "Salasana on vaihdettava 90 päivän välein.",
    ],
)
def test_on_after_an_english_word_is_no_copula(text: str) -> None:
    assert outcome(text) in ("stored", "flagged")


@pytest.mark.parametrize(
    "text",
    [
        "Šifra za e-poštu je Sova#Grad14.",
        "Lykilorð tölvunnar er Hrafn!Fjall8.",
        "Die wagwoord vir die rekenaar is Fynbos#Berg2.",
        "La contrasenya del correu és Teixo!Riu53.",
        "আমার পাসওয়ার্ড Kadam#Phul31",
        "Uksekood on 5930.",
        "Entsperrcode vom Tablet: 306118",
        "El código de desbloqueo del portátil es 772041.",
        "Host key for the board call: 604117",
        "The projector's admin code is 3390.",
        "Der Code zum Tor ist 8802.",
        "Koden til alarmen er 5127.",
    ],
)
def test_the_credential_words_of_more_languages_and_devices_are_read(text: str) -> None:
    assert outcome(text) == "secret_detected"


@pytest.mark.parametrize(
    "text",
    [
        "host key: ssh-ed25519 fingerprint in the wiki",
        "Host key fingerprints are in the wiki.",
        "The admin code review is at 14:30.",
        "La parole est à 14h30, puis à 16h00.",
        "Das Tor schließt um 22 Uhr.",
    ],
)
def test_the_same_words_with_no_value_are_stored(text: str) -> None:
    assert outcome(text) in ("stored", "flagged")


@pytest.mark.parametrize(
    "text",
    [
        "The safe code is one oh oh four.",
        "PIN: double two, eight, one.",
        "Alarm code triple three six.",
        "The router password is golf uniform lima lima three three.",
    ],
)
def test_digits_and_letters_read_out_are_refused(text: str) -> None:
    assert outcome(text) == "secret_detected"


@pytest.mark.parametrize(
    "text",
    [
        "PIN: double one.",
        "PIN: one two three.",
        "Call sign is Bravo Two Zero.",
        "Spell the name for the courier: Kilo Oscar Lima Alpha.",
        "Double five, triple seven: the dice game scores.",
    ],
)
def test_too_few_digits_or_a_call_sign_is_stored(text: str) -> None:
    assert outcome(text) in ("stored", "flagged")


@pytest.mark.parametrize(
    "text",
    [
        "Bike locker combination: left 14, right 27, left 3.",
        "The safe opens with right to 40, left to 12, right to 8.",
        "Kombination vom Spind: links 9, rechts 31, links 17.",
    ],
)
def test_a_combination_given_by_the_dials_turns_is_refused(text: str) -> None:
    assert outcome(text) == "secret_detected"


def test_turns_on_a_road_are_stored() -> None:
    assert outcome("Right 24, left 8 at the roundabout, then the second exit.") == "stored"


@pytest.mark.parametrize(
    "text",
    [
        "Per il router usa admin con Ghiro!Noce47.",
        "Für den Drucker nimm admin mit Kauz#Wald55.",
        "Pour le NAS, utilise admin avec Loutre!Lac62.",
    ],
)
def test_use_an_account_with_a_value_is_a_login(text: str) -> None:
    assert outcome(text) == "secret_detected"


@pytest.mark.parametrize(
    "text",
    ["use docker with --privileged=true", "use Python with C++17 flags"],
)
def test_use_with_an_option_is_stored(text: str) -> None:
    assert outcome(text) in ("stored", "flagged")


@pytest.mark.parametrize(
    "text",
    [
        "lena / 8817 (PIN)",
        "the code is 6093 (card PIN)",
        "Sorrel#Hill42 (wifi password)",
        "Q: root password? A: Vetch8Moor",
        "सर्वर का पासवर्ड vetch82 है",
        "我的PIN是5831",
        "私のPINは5831です",
    ],
)
def test_a_value_named_in_brackets_answered_or_closed_by_a_copula_is_refused(text: str) -> None:
    assert outcome(text) == "secret_detected"


@pytest.mark.parametrize(
    "text",
    ["4471 (PIN pad error)", "see 4471 (password reset ticket)", "我的PIN码有4位"],
)
def test_a_name_that_modifies_another_noun_gives_no_value(text: str) -> None:
    assert outcome(text) in ("stored", "flagged")


@pytest.mark.parametrize(
    "text",
    [
        "user/pass: admin/heron44",
        "login/pw maria / 7302",
        "[10:01] ana: alarm code?\n[10:02] ben: 5529",
        "<kim> root password?\n<lee> Alder_Grove9",
        "ana: PIN for the card?\nben: it's 7302",
        "The password for j.doe is sorrel82",
        "DB_PASSWORD is Linnet#Cove3 in prod",
        "set ADMIN_PIN to 4471",
        "p/w Gull_Rock44",
        "pwd Gull_Rock44",
        "pword: Gull_Rock44",
    ],
)
def test_labels_turns_dotted_names_variables_and_shorthands_bind_the_value(text: str) -> None:
    assert outcome(text) == "secret_detected"


@pytest.mark.parametrize(
    "text",
    [
        "user/pass: admin/<password>",
        "ana: which password manager?\nben: 1Password",
        "ana: where is the wifi password?\nben: fridge",
        "recovery key ID: 1A2B3C4D",
        "the password.txt is file123",
        "MAX_PIN_ATTEMPTS is 5000",
        "PIN_RETRY_LIMIT is 1000",
        "the DB_PASSWORD variable is set2",
        "run pwd then ls",
        "pw Tangerine",
    ],
)
def test_the_same_shapes_with_no_value_are_stored(text: str) -> None:
    assert outcome(text) in ("stored", "flagged")


@pytest.mark.parametrize(
    "text", ["printer 🔑 Wren#Hedge58", "🔐 NAS: Plover!Dune3", "Gast-WLAN 🔑 Zeisig!41"]
)
def test_a_password_shaped_value_after_a_key_or_lock_emoji_is_refused(text: str) -> None:
    assert outcome(text) == "secret_detected"


@pytest.mark.parametrize(
    "text",
    [
        "🔑 Takeaway: TLS1.3 everywhere",
        "🔑 Key result: Q3-2024 revenue up 12%",
        "🔐 Lock your screen when you leave the desk.",
    ],
)
def test_a_key_emoji_before_a_bullet_gives_no_value(text: str) -> None:
    assert outcome(text) in ("stored", "flagged")


@pytest.mark.parametrize(
    "text",
    [
        "Ich habe das Kennwort auf herbst2025 geändert.",
        "Я поменял пароль на lisa2025.",
        "Zmieniłam hasło na jezyk2025.",
        "Troquei a senha para caju2025.",
        "J'ai mis hibou2025 comme mot de passe.",
        "Puse 5820 como PIN.",
        "Kata sandinya sudah diganti jadi rusa2025.",
        "I use heron2025 for the wifi password.",
    ],
)
def test_a_value_named_as_or_changed_to_is_refused(text: str) -> None:
    assert outcome(text) == "secret_detected"


@pytest.mark.parametrize(
    "text",
    [
        "Das Passwort auf db03 läuft ab.",
        "пароль на db03 истёк",
        "I paid 4500 for the PIN pad.",
        "Port 8443 for the login.",
        "Dial 4471 for the PIN helpline",
    ],
)
def test_a_preposition_with_no_change_or_a_number_for_a_thing_is_stored(text: str) -> None:
    assert outcome(text) in ("stored", "flagged")
