"""Credentials whose value has no Latin letter mixed with a digit: passphrases
of plain words, passwords in letters of other scripts, short codes after a
PIN or door-code word. Each is refused as a secret; the notes that only talk
about such credentials (a password policy, a broken PIN pad) are stored, and
a redaction marker after an auth scheme is no credential.

The examples are written for this file; none comes from a corpus's held-out
rows."""

from __future__ import annotations

import json

import pytest

from memoryd.kernel.scan import ContentRejected, check_fields, verdict_fields


def _refusal(text: str) -> str | None:
    refused, _ = verdict_fields([("title", "note"), ("body", text)], max_bytes=100_000)
    return None if refused is None else refused.code


@pytest.mark.parametrize(
    "text",
    [
        "the vault passphrase is correct horse battery staple",
        "wifi password: purple monkey dishwasher",
        "The guest wifi password is Purple Monkey Dishwasher.",
        "Passphrase for the backup disk: amber falcon quietly sings",
        "the password for the shed laptop is silver lazy otters, don't share it",
        "My passphrase is now tidal ember velvet lantern and nobody knows it.",
        "Das Passwort für das WLAN lautet lila Affe Spülmaschine.",
        "Le mot de passe du wifi est cheval batterie agrafe correcte.",
        "La contraseña del router es caballo batería grapa.",
        "Пароль от почты: синий кит поёт",
        "wifi password: 'purple dishwasher'",
        'The password is "swordfish".',
    ],
)
def test_a_passphrase_of_plain_words_is_refused(text: str) -> None:
    assert _refusal(text) == "secret_detected"


@pytest.mark.parametrize(
    "text",
    [
        "Пароль администратора: МедведьСпит",
        "κωδικός πρόσβασης: ΘάλασσαΒουνό",
        "كلمة المرور: شمس٢٠٢٤",
        "كلمة المرور هي قمر شمس نجمة",
        "密码是 长城2026",
        "服务器密码：长城2026。",
        "パスワードは「さくらさくら」です",
        "пароль: «вишнёвыйсад»",
        "密码是“长城长城”",
        "パスワード：さくら2024",
        "비밀번호: 한강다리2024",
        "Ο κωδικός είναι ΓαλάζιοςΟυρανός",
        "пароль — синий слон танцует",
        "पासवर्ड: नीला हाथी नाचता",
        "סיסמה: כחול ירוק אדום",
        "κωδικός: θάλασσα βουνό ήλιος",
    ],
)
def test_a_password_in_letters_of_another_script_is_refused(text: str) -> None:
    assert _refusal(text) == "secret_detected"


@pytest.mark.parametrize(
    "text",
    [
        "PIN: AB123",
        "passcode is AB123",
        "door code 7Q4Z",
        "The gate code is now XK42.",
        "alarm code: QZ7731",
        "The passcode for the storage unit is KT48, change it monthly.",
        "PIN: 4 8 2 1",
        "the alarm code is 7-7-3-1 then enter",
        "my PIN is four eight two one",
    ],
)
def test_a_short_or_spelt_out_code_after_a_pin_or_door_code_word_is_refused(text: str) -> None:
    assert _refusal(text) == "secret_detected"


@pytest.mark.parametrize(
    "text",
    [
        "the password policy is twelve characters",
        "PIN pad is broken",
        "passphrase rotation is quarterly",
        "The password is stored in the team vault.",
        "The password is case sensitive.",
        "The password manager is Keeper Password Manager.",
        "Password: required, at least twelve characters.",
        "The wifi password is written on the fridge.",
        "The PIN entry screen shows E1042 after three tries.",
        "The password reset link is sent by email every Monday.",
        "The Wi-Fi password is the same as last year.",
        "passphrase requirements: four random words",
        "Das Passwort ist im Tresor gespeichert.",
        "Le mot de passe est dans le coffre.",
        "Пароль: неверный",
        "密码是错误的",
        "密码是8位数字",
        "パスワードは8文字以上です",
        "비밀번호는 12자리 이상입니다",
        "비밀번호는 2024년에 바뀌었습니다.",
        "पासवर्ड बदल दिया गया है",
        "Passwort: PostgreSQL",
        "PIN version 1.2.3.4 is out",
        "The PIN is four digits.",
        "The PIN pad has keys one two three",
        "Passwort: siehe Tresor",
        "Passwort: beim Admin erfragen",
        "Contraseña: ver bóveda compartida",
        "Senha: pergunte ao suporte",
        "Access code: RM204 for the meeting room",
        "The door code changed to the new format last week.",
        "The password is too short and too simple.",
        "Password strength meter: very weak, weak, fair, strong.",
        "The passphrase is four random words from a list.",
        "PIN pad error: E1042",
        "PIN E1042 means the card is locked",
        "Password: Ask Alice",
        "The Wi-Fi password: ask reception",
        "The passphrase was changed yesterday afternoon.",
        "The password is rotating weekly now",
        "La politique de mot de passe : douze caractères minimum",
    ],
)
def test_a_note_about_a_credential_without_its_value_is_stored(text: str) -> None:
    assert _refusal(text) is None


@pytest.mark.parametrize(
    "text",
    [
        "Token: Bearer <redacted>",
        "Authorization: Bearer [REDACTED]",
        "token: Bearer ****",
        "Token: Bearer ${API_TOKEN}",
        "Authorization: Basic <credentials>",
        "Token: Bearer [REDACTED:secret.jwt]",
        "Authorization: Bearer ***REDACTED***",
        "password: ***REDACTED***",
        "The root password is ***REDACTED***",
        "The password is ████████",
    ],
)
def test_a_redaction_marker_is_no_credential(text: str) -> None:
    assert _refusal(text) is None


def test_a_token_after_an_auth_scheme_is_still_refused() -> None:
    assert _refusal("Token: Bearer abcDEF123ghiJKL456mno") == "secret_detected"


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("the vault passphrase is correct horse battery staple", "horse battery"),
        ("Пароль администратора: МедведьСпит", "МедведьСпит"),
        ("PIN: AB123", "AB123"),
    ],
)
def test_the_refusal_names_the_rule_and_never_the_words(text: str, value: str) -> None:
    with pytest.raises(ContentRejected) as raised:
        check_fields([("title", "note"), ("body", text)], max_bytes=100_000)
    said = json.dumps(raised.value.__dict__, default=str, ensure_ascii=False) + str(raised.value)
    assert value not in said
    assert "secret." in said
