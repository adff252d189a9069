"""A credential's value shown as a sample, or reported dead, is flagged for review.

A value bound to a credential's name by an assignment (``DB_PASSWORD=…``)
is a credential only by that name, as a value in prose is: shown as an
example ("Sample config: …", "e.g. DB_PASSWORD=…", "… as a sample"), or as
a test's, a mock's or a placeholder's value, or as a vendor's documented
default, it is flagged for review like the prose rules' values. The same
frames in the plural count ("weak password examples: …"). An address at
example.com frames nothing, and the same values with no such frame are
still refused. A value an incident note reports compromised (guessed,
cracked, stolen) or, in the sentence after it, revoked, rotated or
disabled is flagged too; "changed" in the next sentence may give the
value's age, so it changes nothing. The frames are read in the languages
the rules read credentials in: "旧密码 … 已注销", "… erraten", "come …",
"zoals …", "örneği:", "par défaut du fabricant". A placeholder
(``%VAR%``, ``PASSWORD_GOES_HERE``), a value truncated with an ellipsis
(``pk-...7f3c``) or kept encrypted (``!vault``, ``ENC[…]``) gives none,
and a trivial code (1234) flags however its sentence ends. A default the
note says must be changed is every unit's ("the default router password
admin/admin must be changed"); a new value to change is still refused.
"""

from __future__ import annotations

import pytest

from tests.unit.scan_outcome import outcome


@pytest.mark.parametrize(
    "text",
    [
        "Sample config: DB_PASSWORD=Welcome123",
        "Example: password=Hunter2x",
        "e.g. SMTP_PASSWORD=Xyz12345",
        "The docs show `export API_KEY=abc123xyz` as a sample; replace it with yours.",
        "示例：密码=Abc12345",
    ],
)
def test_an_assigned_value_shown_as_an_example_is_flagged(text: str) -> None:
    assert outcome(text) == "flagged"


@pytest.mark.parametrize(
    "text",
    [
        "Weak password examples from the audit: Password1, Welcome123, Qwerty!23",
        "Test fixture: user alice, password s3cret-test (only in the local container).",
        "The mocked login in the unit tests uses password Tr4vel!er9",
        "The vendor default login is admin / admin123, change it during setup.",
    ],
)
def test_a_value_framed_as_a_sample_a_fixture_or_a_vendor_default_is_flagged(text: str) -> None:
    assert outcome(text) == "flagged"


@pytest.mark.parametrize(
    "text",
    [
        "DB_PASSWORD=Welcome123",
        "password=Hunter2x in the staging env file",
        "密码=Abc12345",
        "My login for mail.example.com: anna / Xyz#1299",
        "Credentials for the box, including password: Rk8#vv2Lq",
        "The default login for our NAS is admin / Tq7!mm2x",
    ],
)
def test_the_same_values_with_no_samples_frame_are_refused(text: str) -> None:
    assert outcome(text) == "secret_detected"


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            "Reminder: the default router password admin/admin must be changed on install.",
            "flagged",
        ),
        ("The default password Xk9#mm22 must be changed at first login.", "flagged"),
        ("The new password Xk9#mm22 must be changed at first login.", "secret_detected"),
        ("The default password is Xk9#mm22.", "secret_detected"),
    ],
)
def test_a_default_the_note_says_to_change_is_flagged(text: str, expected: str) -> None:
    assert outcome(text) == expected


def test_e_g_ends_no_sentence_before_the_example_it_opens() -> None:
    assert outcome("Use a strong one, e.g. Fjord!Quartz61, as the root password.") == "flagged"


@pytest.mark.parametrize(
    "text",
    [
        "The staging token was Qx7!mm2Lp. It was revoked at noon.",
        "We found password Rk8#vv2Lq in the log. The password has been rotated since.",
        "The attacker guessed the admin password 'Tiger#2020' in four tries.",
        "Pentest: they cracked the wifi password Lagoon!88 with a wordlist.",
    ],
)
def test_a_value_reported_dead_in_the_next_sentence_or_compromised_is_flagged(
    text: str,
) -> None:
    assert outcome(text) == "flagged"


@pytest.mark.parametrize(
    "text",
    [
        "The password is Xyz#1234. It was changed last week.",
        "The wifi password is Lark#9921. Ask me if it stops working.",
    ],
)
def test_a_value_the_next_sentence_does_not_report_dead_is_refused(text: str) -> None:
    assert outcome(text) == "secret_detected"


@pytest.mark.parametrize(
    "text",
    [
        "旧密码 Laomima2021 已注销。",
        "以前のパスワード Mae#2021 は無効です。",
        "예전 비밀번호 Yejeon22! 는 폐기되었습니다.",
        'Der Angreifer hat das Passwort "Winter#2020" erraten.',
        "Non usare password come Estate2024!",
        "Gebruik geen wachtwoorden zoals Zomer2024!",
        "Nie ustawiaj hasła typu Lato2024!",
        "Şifre örneği: Deneme123 (gerçek değil)",
        "Mot de passe par défaut du fabricant : admin.",
        "Das Hersteller-Passwort lautet Admin1234 und muss geändert werden.",
    ],
)
def test_the_frames_read_in_other_languages_flag(text: str) -> None:
    assert outcome(text) == "flagged"


@pytest.mark.parametrize(
    "text",
    [
        "新密码 Xinmima#2025 已被设置。",
        "新しいパスワード Atarashi#77 を設定しました。",
        "Das Passwort lautet Sommer#2025, ab heute gültig.",
    ],
)
def test_a_new_value_in_those_languages_is_refused(text: str) -> None:
    assert outcome(text) == "secret_detected"


@pytest.mark.parametrize(
    "text",
    [
        "password: %SMTP_PASSWORD%",
        "API key: pk-...7f3c (truncated in the ticket)",
        "token: ghp_…Q2xW",
        "db_password: !vault | $ANSIBLE_VAULT;1.1;AES256",
        "password: ENC[AES256_GCM,data:Qm9v,iv:Zm9v,type:str]",
        "password: PASSWORD_GOES_HERE",
        "Kennwort: dein_kennwort_hier",
        "пароль: ваш_пароль",
    ],
)
def test_a_placeholder_a_truncated_or_an_encrypted_value_is_never_refused(text: str) -> None:
    assert outcome(text) in ("stored", "flagged")


def test_a_trivial_code_closing_its_sentence_is_flagged() -> None:
    assert outcome("Default PIN is 1234.") == "flagged"


@pytest.mark.parametrize(
    "text",
    ["password: Mossy_Anvil_31", "api_key: sk-7f3c9a2e1b8d4f60", "PIN is 7391."],
)
def test_a_value_that_is_no_placeholder_is_refused(text: str) -> None:
    assert outcome(text) == "secret_detected"


def test_a_passphrase_holding_a_credentials_word_is_no_placeholder() -> None:
    assert outcome("password = 'harbor-pass-lantern'") == "secret_detected"
