"""Secrets in prose whatever binds the value to its name, in thirty languages.

A value shaped as only a password is (letters and digits joined by a symbol
inside them) in the clause of a password's name, before or after it,
whatever the words between ("Salasana … on …", "auf … geändert", "bytte
… till", "is what I set as the NAS password", a markdown label); an
account and such a value joined by a slash or a colon; a password on the
command line of a registry login, a Redis client, an archive, OpenSSL, an
SMB share or a password file; a bare "code" and its digits after a lock
named in the sentence; a security question's answer. Each is refused as a
secret. The notes that only look like one (a ticket's reference, an
address, a rule, a command line that prompts or reads a variable, a
question quoted, an error's code) are never refused.

The set (tests/data/secret_prose_dev6.jsonl, written by
tests/data/make_secret_prose_dev6.py) keeps every third row of each category
held out: only its dev rows are held to account
(test_scan_secret_prose_sets.py), so the held-out figure printed by
``bench/scan.py --corpus`` stays a measure of how the rules generalise. The
examples here are written for this file; none comes from a held-out row.
"""

from __future__ import annotations

import pytest

from tests.unit.scan_outcome import outcome


@pytest.mark.parametrize(
    "text",
    [
        "Lösenordet för skrivaren är Trana#4410.",
        "Adgangskoden blev ændret til Mågen!73 i går.",
        "Heslo k NAS jsem změnil na Kos#2290.",
        "A jelszót Gólya!58 értékre állítottam.",
        "Parola contului e Tei#Verde12, nu o da nimănui.",
        "Ο κωδικός άλλαξε σε Thalassa#7.",
        "Пароль від роутера тепер Калина#19.",
        "- **Passwort**: Ahorn!Weg22",
        "Heron!Bay27 is the password I put on the shared drive.",
        "password for shop.example.org is Kestrel#88x",
    ],
)
def test_a_password_shaped_value_in_its_names_clause_is_refused(text: str) -> None:
    assert outcome(text) == "secret_detected"


@pytest.mark.parametrize(
    "text",
    [
        "Password reset requested in ticket OPS#4471.",
        "The password reset mail came from no-reply2@acme.io, check spam.",
        "Passwords need a symbol (like # or !) and a digit.",
        "Password rules are in docs/security#passwords-2 of the wiki.",
        "Upgrade the password library to v4.2+build7 first.",
    ],
)
def test_a_shaped_word_that_is_no_password_is_stored(text: str) -> None:
    assert outcome(text) in ("stored", "flagged")


@pytest.mark.parametrize(
    "text",
    [
        "The VPN box takes vpnadmin / Quay#Lamp40 for now.",
        "Der Zugang ist backup:Specht#5520 auf dem NAS.",
        "podman login -u bot -p Gorse!Hill11 quay.io",
        "7z x -pHawthorn#19 archive.7z",
        "Im Keller, die Garage links: Nummer 4, Code 7731",
        "Mother's maiden name for the card: Nowakowska.",
    ],
)
def test_an_account_pair_a_command_a_lock_code_or_an_answer_is_refused(text: str) -> None:
    assert outcome(text) == "secret_detected"


@pytest.mark.parametrize(
    "text",
    [
        "Time 10:30, room B:Level#2 is booked.",
        "podman login -u bot quay.io (it asks for the password)",
        "7z x archive.7z, then type the archive password when asked.",
        "The gate controller shows error code 4471 again.",
        "Security question: 'name of your first school' (answer kept offline).",
    ],
)
def test_the_same_shapes_with_no_value_are_stored(text: str) -> None:
    assert outcome(text) in ("stored", "flagged")
