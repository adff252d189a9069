"""Secrets whose value has no shape of a key: a password of one ordinary word,
a password after an abbreviated name, a passphrase given before its name, a
wallet's seed phrase, two-factor backup codes, a safe's combination. Each is
refused; the notes that only speak about such things (where a password is
kept, what it must be, a build that passed, a combination of two features)
are stored.

The examples are written for this file; none comes from a corpus's held-out
rows."""

from __future__ import annotations

import json

import pytest

from memoryd.kernel.scan import ContentRejected, check_fields, verdict_fields


def _refusal(text: str) -> str | None:
    refused, _ = verdict_fields([("title", "note"), ("body", text)], max_bytes=100_000)
    return None if refused is None else refused.code


def _rules(text: str) -> set[str]:
    refused, _ = verdict_fields([("title", "note"), ("body", text)], max_bytes=100_000)
    return set() if refused is None else {f.rule_id for f in refused.findings}


# --- a password of one ordinary word ------------------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        "the wifi password is swordfish",
        "root password: tangerine",
        "das Passwort lautet Sonnenblume",
        "The router password is Marmalade.",
        "le mot de passe du wifi est papillon",
        "la contraseña es mariposa, no la compartas",
        "пароль от роутера: черника",
        "Kennwort: Schmetterling",
        "the garage passcode is walrus",
    ],
)
def test_a_password_of_one_word_is_refused(text: str) -> None:
    assert _refusal(text) == "secret_detected"


@pytest.mark.parametrize(
    "text",
    [
        "the wifi password is required",
        "The password is correct.",
        "the password was wrong",
        "The password is expired.",
        "root password: unchanged",
        "The password is configurable.",
        "Password: mandatory",
        "the password is optional",
        "the password is case-sensitive",
        "The password is memorable.",
        "the password is useless",
        "the password is ambiguous",
        "the password is sensitive",
        "The password is secret.",
        "the password is different",
        "The password is pending",
        "Password: Bitwarden",
        "password: 1Password",
        "The password is in KeePass.",
        "Password: LastPass",
        "password: vault",
        "Passwort: erforderlich",
        "Das Passwort ist abgelaufen.",
        "le mot de passe est obligatoire",
        "la contraseña es incorrecta",
        "пароль: обязателен",
        "The password is twelve characters.",
        "The password is strong.",
        "The password is generally fine",
        "the password is temporary",
        "the password is personal",
        "The password is confidential.",
        "the password is unknown",
        "Password: none",
        "Password: TBD",
        "Password: N/A",
        "the password is here",
        "password: Bitwarden Shared Vault",
        "Guest password: Available At Reception",
        "Wifi password: Ask Reception",
        "password: see below",
        "password=prompt.",
        "PASSWORD=secret, USER=admin",
        "The password is rotated.",
    ],
)
def test_a_word_that_describes_or_locates_a_password_is_stored(text: str) -> None:
    assert _refusal(text) is None


def test_a_password_counted_in_years_is_no_password() -> None:
    assert _refusal("密码为2024年设置的") is None
    assert _refusal("密码为2024年设置的，见保险库。") is None
    assert _refusal("密码为Xk2024abc") == "secret_detected"


# --- abbreviated credential words -----------------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        "pw: hunter22",
        "pass = Tr0ub4dor",
        "pwd: Kettle!99",
        "router login admin, pw is blue7heron",
        "PW: 48213977",
        "wifi pass: m0nkey-Dish",
    ],
)
def test_an_abbreviated_password_word_with_its_value_is_refused(text: str) -> None:
    assert _refusal(text) == "secret_detected"


@pytest.mark.parametrize(
    "text",
    [
        "pass the test",
        "pass: the build passed",
        "PASS: test_login_2",
        "pass: 12/12 tests",
        "PASS: 3 of 3",
        "pass rate: 98.5%",
        "pw: see vault",
        "pwd: /home/alice/src",
        "cd then pwd: prints the directory",
        "boarding pass: gate B12",
        "pass = 1",
        "Did it pass? yes",
        "hall pass: room 204",
        "test_v2 pass: 2024-03-01",
    ],
)
def test_pass_in_its_other_senses_is_stored(text: str) -> None:
    assert _refusal(text) is None


# --- a passphrase given before its name ------------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        "use purple monkey dishwasher as the password",
        "set correct-horse as the wifi passphrase",
        "We chose amber falcon lantern as our passphrase.",
        "Use tangerine as the root password.",
        "use velvet-otter-42 as the password",
        "nimm Sonnenblume als Passwort",
        "utilise papillon bleu comme mot de passe",
        'I used "quietstorm" as my passphrase',
        "she picked 'lantern moss' as the vault passphrase",
    ],
)
def test_a_passphrase_given_before_its_name_is_refused(text: str) -> None:
    assert _refusal(text) == "secret_detected"


@pytest.mark.parametrize(
    "text",
    [
        "use the vault as the password store",
        "use your birthday as the password hint",
        "use something memorable as the passphrase",
        "Use SSO as the login instead of a password",
        "use Bitwarden as the password manager",
        "set a strong passphrase as the password",
        "use four random words as the passphrase",
        "use LDAP as the password backend",
        "Don't use your name as the password.",
        "use a long sentence as your passphrase",
    ],
)
def test_a_name_of_a_kind_of_password_before_it_is_stored(text: str) -> None:
    assert _refusal(text) is None


# --- seed and recovery phrases ----------------------------------------------------

_TWELVE = "abandon ability able about above absent absorb abstract absurd abuse access accident"
_TWENTY_FOUR = (
    _TWELVE + " account accuse achieve acid acoustic acquire across act action actor actress actual"
)


@pytest.mark.parametrize(
    "text",
    [
        "seed: " + _TWELVE,
        "My wallet seed phrase is " + _TWELVE + ".",
        "recovery phrase: " + _TWENTY_FOUR,
        "mnemonic = " + _TWELVE.replace(" ", ", "),
        "助记词：" + _TWELVE,
        "恢复短语是 " + _TWELVE,
        "Seed-Phrase: " + _TWELVE,
        "seed phrase\n" + _TWELVE.replace(" ", "\n"),
        "助记词： 鹿 山 水 火 木 金 土 日 月 星 风 雨",
    ],
)
def test_a_seed_phrase_is_refused(text: str) -> None:
    assert _refusal(text) == "secret_detected"


@pytest.mark.parametrize(
    "text",
    [
        "the seed phrase is a list of twelve words that you write down and keep somewhere safe",
        "recovery phrase: write it on paper, never in a note, and keep it in a fireproof box",
        "mnemonic: every good boy deserves fudge",
        "seed: 42",
        "the random seed is fixed so that the test runs give the same output every time we run",
        "seed phrase: stored offline in the safe deposit box at the bank downtown",
        "mnemonic devices help students remember long lists of words in class every single day",
        "助记词：请写在纸上并妥善保管",
    ],
)
def test_a_note_about_a_seed_phrase_is_stored(text: str) -> None:
    assert _refusal(text) is None


# --- two-factor backup codes -----------------------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        "GitHub backup codes: 1234-5678, 2345-6789, 3456-7890",
        "recovery codes: a1b2c3d4 e5f6g7h8 k9m8n7p6",
        "2FA codes:\n48213977\n55190264\n73018842",
        "Google backup codes are 4821 3977, 5519 0264 and 7301 8842.",
        "Wiederherstellungscodes: 1234-5678 9876-5432",
        "codes de secours : 1234-5678, 2345-6789",
    ],
)
def test_two_factor_backup_codes_are_refused(text: str) -> None:
    assert _refusal(text) == "secret_detected"


@pytest.mark.parametrize(
    "text",
    [
        "backup codes: stored in 1Password",
        "recovery codes: 10 generated, 2 used",
        "2FA codes expire after 30 seconds",
        "backup codes: print them and keep them in the safe",
        "recovery codes were regenerated on 2024-03-01 and 2024-06-01",
        "backup codes: see ticket OPS-1234, OPS-5678",
    ],
)
def test_a_note_about_backup_codes_is_stored(text: str) -> None:
    assert _refusal(text) is None


# --- safe and lock combinations ----------------------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        "the safe combination is 12-34-56",
        "Kombination: 7 14 21",
        "padlock combo: 4-19-33",
        "The locker combination is 22 - 8 - 35.",
        "la combinaison du coffre est 10-20-30",
        "combinación de la caja fuerte: 5, 17, 29",
    ],
)
def test_a_lock_combination_is_refused(text: str) -> None:
    assert _refusal(text) == "secret_detected"


@pytest.mark.parametrize(
    "text",
    [
        "the combination of flags is rare",
        "key combination: Ctrl-Alt-Del",
        "the winning combination is 4-3-3 formation",
        "Combination therapy: 2 drugs, 3 weeks",
        "the combination lock is broken",
        "combination: 2024-03-01",
        "the best combination is 1.2.3 with 2.0",
    ],
)
def test_a_combination_that_opens_nothing_is_stored(text: str) -> None:
    assert _refusal(text) is None


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("the wifi password is swordfish", "swordfish"),
        ("pw: hunter22", "hunter22"),
        ("use purple monkey dishwasher as the password", "dishwasher"),
        ("seed: " + _TWELVE, "abandon"),
        ("backup codes: 1234-5678, 2345-6789", "1234-5678"),
        ("the safe combination is 12-34-56", "12-34-56"),
    ],
)
def test_the_refusal_names_the_rule_and_never_the_value(text: str, value: str) -> None:
    with pytest.raises(ContentRejected) as raised:
        check_fields([("title", "note"), ("body", text)], max_bytes=100_000)
    said = json.dumps(raised.value.__dict__, default=str, ensure_ascii=False) + str(raised.value)
    assert value not in said
    assert "secret." in said


# --- one-time codes, hotspots and master passwords ---------------------------------


@pytest.mark.parametrize(
    "text",
    [
        # A recovery or backup code is a one-time password: digits are its value.
        "the backup code is 88231190",
        "If the smart lock asks, the recovery code is 40917725",
        "Wiederherstellungscode: 55120934",
        # A phone's hotspot is a Wi-Fi network; its key is the network's password.
        "hotspot key: mango-tree-81",
        "phone hotspot is Pixel_7, pass Kiwi#Rain22",
        # A password manager's master password is most often a phrase.
        "master password: purple horse lamp 42",
        'bitwarden master password is "seven quiet otters swim"',
        "Mein Masterpasswort: blauer Hund tanzt leise",
        # "=" binds a passphrase as ":" does; "pw for X is" binds as "pw: …";
        # a one-time-password generator's seed is its key.
        "SSH key passphrase = quiet river stone 9",
        "pw for the shared calendar is calendar2024!",
        "The OTP seed for the admin account is JBSWY3DPEHPK3PXP",
        # A VPN's or a network's pre-shared key is both ends' password.
        "VPN pre-shared key: Psk#Tunnel2024",
        "IPsec PSK = xK9#mL2pQ7",
        # The password's word in more languages.
        "Το συνθηματικό του wifi είναι Elia2020!",
        "лозинка за рутер: Sunce#2024",
        "ვაიფაის პაროლი: Tbilisi#77",
        "گذرواژه وای‌فای: Golnar#1402",
        "kodeord til routeren er Hygge#44",
        "pasahitza: Itsaso2024",
    ],
)
def test_one_time_codes_hotspot_keys_and_master_phrases_are_refused(text: str) -> None:
    assert _refusal(text) == "secret_detected"


@pytest.mark.parametrize(
    "text",
    [
        "backup codes are printed on setup; keep them offline",
        "the recovery code is 2024 style: eight digits",
        "hotspot key features: 5G, tethering, battery saver",
        "The hotspot key is in the phone's settings",
        "master password: at least four random words",
        "master password: stored in the safe, ask Dana",
        'The master password is "whatever you chose at setup"',
        "master password rules: four words minimum",
        "Set a master password for the vault before syncing.",
        "passphrase = see the envelope in the safe",
        "WPA2-PSK: AES",
        "PSK mode: enabled on the guest SSID",
        "the pre-shared key is stored in the firewall config",
        "pw for the shared calendar is in the vault",
        "pass for the bus is 2.50 per ride",
        "The OTP seed for the admin account is in the HSM",
        "Το συνθηματικό πρέπει να αλλάζει κάθε μήνα",
        "лозинка се мења сваких 90 дана",
        "kodeord skal være mindst 12 tegn",
    ],
)
def test_notes_about_those_codes_and_phrases_are_stored(text: str) -> None:
    assert _refusal(text) is None
