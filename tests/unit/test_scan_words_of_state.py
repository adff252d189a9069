"""A password said to be in a state, in the note's language, gives no value.

One word after a password's name is its value unless it describes the
password: in English its ending says so ("expired", "changing"); in
German, Dutch and Polish, named by the password's word or its copula, so
do theirs, in lower case (a German noun is capitalised): participles made
with a prefix ("vergessen", "verlopen"), Polish participles and negated
adjectives ("wymagane", "nieprawidłowe"). Romance participles end as
nouns do ("caducada", "empanada"), so the words of state of French,
Spanish, Portuguese and Italian are listed ("scaduta", "obrigatória",
"pendiente", "oublié"), and a noun of the same ending is still a
password ("empanada", "limonata"). A letter of any script is a
letter, not a symbol: "obrigatória" is a word as "mandatory" is. Nouns a
password may be ("girasol", "Zitronenbaum", "zonnebloem") are still
refused, and so are a word whose case alternates ("sTaRfIsH": an
identifier changes case only where a word starts) and words joined by
hyphens quoted whole after a password's name ("'harbor-violet-kettle'").
"""

from __future__ import annotations

import pytest

from tests.unit.scan_outcome import outcome


@pytest.mark.parametrize(
    "text",
    [
        "A senha é obrigatória.",
        "A senha foi alterada.",
        "La contraseña es incorrecta.",
        "Contraseña: pendiente",
        "La password è scaduta.",
        "Passwort: vergessen",
        "Die Geheimzahl ist ungültig.",
        "Het wachtwoord is verlopen.",
        "Hasło jest nieprawidłowe.",
        "Hasło jest wymagane.",
        "Mot de passe : oublié",
    ],
)
def test_a_password_said_to_be_in_a_state_is_stored(text: str) -> None:
    assert outcome(text) in ("stored", "flagged")


@pytest.mark.parametrize(
    "text",
    [
        "La contraseña es girasol.",
        "Das Passwort ist Zitronenbaum.",
        "Het wachtwoord is zonnebloem.",
        "La password è girandola.",
        "A senha é jabuticaba.",
        "Hasło to malinowy.",
        "Passwort: kuchenblech",
        "Das Passwort ist erdbeeren",
        "La contraseña es empanada.",
        "La password è limonata.",
        "Hasło to korona",
    ],
)
def test_a_noun_given_as_the_password_is_refused(text: str) -> None:
    assert outcome(text) == "secret_detected"


@pytest.mark.parametrize(
    "text",
    [
        "The admin password is sTaRfIsH",
        "The root password is TrOmBoNeLaKe",
        "db_password = 'harbor-violet-kettle'",
        'ROOT_PASSWORD="maple-otter-glacier-sun"',
    ],
)
def test_a_word_in_alternating_case_or_quoted_joined_words_after_a_password_is_refused(
    text: str,
) -> None:
    assert outcome(text) == "secret_detected"


@pytest.mark.parametrize(
    "text",
    [
        "The password is getPassword",
        "password is iPhone",
        "password = 'not-set-yet'",
        "password = 'one-time-only'",
        "token: 'read-write-admin'",
        "log_level = 'debug-info-verbose'",
    ],
)
def test_an_identifier_a_state_or_a_tokens_scopes_is_stored(text: str) -> None:
    assert outcome(text) in ("stored", "flagged")
