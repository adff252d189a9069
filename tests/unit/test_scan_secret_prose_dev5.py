"""Secrets in prose in words and shapes no earlier set uses, in many languages.

A code entered with a verb at a door or a keypad ("punch in 5583", "Tippe am
Tor 4 4 9 0 ein", "门口输入 7 3 8 2 9 1"); a value given with a verb after
its name ("for the router password use …") or reported changed ("cambió a
7741"); a contracted copula ("the password's …") or a bare question ("Das
Kennwort vom Laptop? …"); the value before its name with "c'est" or
"that's"; a lock named before "code" ("the shed lock (code 4471)"); a
lock's numbers right after its name or after the verb that sets it; a key
in groups after its name; a password in a command line or a Wi-Fi QR string;
pairs of numbers in Italian and Portuguese words. Each is refused as a
secret. The notes that only look like one (a menu choice, an amount entered
in a form, a command line that prompts for the password, a postal code, a
key's ID, a rule stated for all tokens) are never refused.

The set (tests/data/secret_prose_dev5.jsonl, written by
tests/data/make_secret_prose_dev5.py) was written before the rules were tuned
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
        "Enter 4471 into the keypad by the door.",
        "punch in 9921 at the lockbox",
        "Gib am Hoftor 7 3 1 8 ein.",
        "Tapez 5 5 0 2 sur le digicode.",
        "Marca 8 1 4 4 en el portero y empuja.",
        "Набери 6 6 0 1 на домофоне.",
        "大门输入 4 4 0 2 1 9",
    ],
)
def test_a_code_entered_at_a_door_is_refused(text: str) -> None:
    assert outcome(text) == "secret_detected"


@pytest.mark.parametrize(
    "text",
    [
        "Press 1234 to hear the menu again.",
        "Type 2024 at the gate sign-in sheet.",
        "The door is 2.5 m wide; enter 1200 as the width.",
        "Type 1000 in the amount box.",
        "Saisissez 7500 dans le champ montant du portail web.",
        "Введите 5000 рублей на карту у двери.",
        "Enter the building and press 4 for the lift.",
    ],
)
def test_a_number_entered_elsewhere_is_stored(text: str) -> None:
    assert outcome(text) == "stored"


@pytest.mark.parametrize(
    "text",
    [
        "for the router password use Kestrel#88",
        "el código del garaje cambió a 7741",
        "Le code du garage a été changé pour 8812",
        "my mail login is j.doe and the password's Heron&Bay2021",
        "Das Kennwort vom Tablet? Amsel_Süd4",
        "Sturmvogel-22, c'est la clé du wifi du chalet.",
    ],
)
def test_a_value_given_with_a_verb_or_a_question_is_refused(text: str) -> None:
    assert outcome(text) == "secret_detected"


@pytest.mark.parametrize(
    "text",
    [
        "tokens use JWT-RS256 signatures",
        "the passwords use Kestrel#88 as the example in the docs, never in production",
        "Forgot your password? Call 0800 4471",
        "the password's in the vault",
        "PIN? ask Anna",
    ],
)
def test_a_verb_or_a_question_with_no_value_is_stored(text: str) -> None:
    assert outcome(text) in ("stored", "flagged")


@pytest.mark.parametrize(
    "text",
    [
        "the shed lock (code 4471)",
        "garage remote code 3-9-1-7",
        "the front door keypad code is 8821",
        "padlock 12-30-45",
        "Le cadenas du vélo se règle sur 3-8-2.",
        "Замок на калитке открывается на 5-1-7",
    ],
)
def test_a_lock_named_before_its_code_or_its_numbers_is_refused(text: str) -> None:
    assert outcome(text) == "secret_detected"


@pytest.mark.parametrize(
    "text",
    ["door error code: E4211", "the padlock 3-pack costs 12", "Locker 4-5-6 are free"],
)
def test_a_lock_with_no_code_is_stored(text: str) -> None:
    assert outcome(text) == "stored"


@pytest.mark.parametrize(
    "text",
    [
        "api key 9f8e 7d6c 5b4a 3928 1706 f5e4 d3c2 b1a0",
        "recovery key: 412390-238811-509276-118404-663201-090947-271115-385530",
        "Wiederherstellungsschlüssel 550132-118420-907733-261145-003318-774420-129904-668812",
    ],
)
def test_a_key_in_groups_after_its_name_is_refused(text: str) -> None:
    assert outcome(text) == "secret_detected"


@pytest.mark.parametrize(
    "text",
    [
        "recovery key ID: 1A2B3C4D",
        "token name: ci-deploy-2024",
        "Bestellnummer 4471 9902 3381 2290",
        "product key XXXXX-XXXXX-XXXXX-XXXXX",
    ],
)
def test_a_number_in_groups_that_is_no_key_is_stored(text: str) -> None:
    assert outcome(text) in ("stored", "flagged")


@pytest.mark.parametrize(
    "text",
    [
        "mysql -u app -pWillow_2290 -h db.internal",
        "sshpass -p 'Cobalt#71' scp dump.sql backup@nas:",
        "pg_dumpall --password=Quince!4471",
        "WIFI:T:WPA;S:Cabin;P:Juniper#Ridge6;;",
    ],
)
def test_a_password_in_a_command_line_is_refused(text: str) -> None:
    assert outcome(text) == "secret_detected"


@pytest.mark.parametrize(
    "text",
    [
        "mysql -h db -P 3306 -u app -p",
        "mysql -u root -p$DB_PASS",
        'sshpass -p "$PASS" ssh host',
        "WIFI:T:WPA;S:Cafe;P:<password>;;",
        "curl --password-file ./pw.txt",
    ],
)
def test_a_command_line_with_no_password_in_it_is_stored(text: str) -> None:
    assert outcome(text) == "stored"


@pytest.mark.parametrize(
    "text",
    [
        "Il codice dell'allarme è quarantadue diciassette.",
        "O código do portão é quarenta e dois dezessete.",
        "O PIN é vinte e um, trinta e dois.",
    ],
)
def test_pairs_in_italian_and_portuguese_words_are_refused(text: str) -> None:
    assert outcome(text) == "secret_detected"


@pytest.mark.parametrize("text", ["Il PIN è diciannove venti.", "Ci vediamo alle venti trenta."])
def test_a_year_or_a_time_in_italian_words_is_stored(text: str) -> None:
    assert outcome(text) == "stored"


@pytest.mark.parametrize(
    "text",
    [
        "log into grafana with admin and Quill#Harbor52, then add the datasource",
        "connect to the db as app using Quill#Harbor52 and run the migration",
        "melde dich als admin mit Quill#Harbor52 an",
        "entra como admin con Quill#Harbor52 y reinicia",
        "用 admin 和 Quill#Harbor52 登录后重启",
        "ssh into the box as deploy (pw Quill#Harbor52) and restart nginx",
    ],
)
def test_a_login_given_in_a_runbook_sentence_is_refused(text: str) -> None:
    assert outcome(text) == "secret_detected"


@pytest.mark.parametrize(
    "text",
    [
        "sign in with Google and TLS1.3+",
        "connect using AES-256-GCM!",
        "log in with SSO and approve request #A4471!",
        "ssh into prod with your YubiKey and run deploy.sh",
        "run pwd then ls",
    ],
)
def test_a_login_with_no_password_in_it_is_stored(text: str) -> None:
    assert outcome(text) == "stored"


@pytest.mark.parametrize(
    "text",
    [
        'GPG-Passphrase: "der Otter aß mein drittes Brot"',
        "הסיסמה לוויפי היא Tamar#88",
        "Heslo k wifi je Lipa#2024",
        "portkoden är 4471",
        "Wi-Fi: Cedar#Pond33",
        "L'allarme si spegne con 5 5 2 1",
        "le mot de passe c'est tournesol, ne le dis à personne",
    ],
)
def test_a_name_the_rules_read_in_other_words_is_refused(text: str) -> None:
    assert outcome(text) == "secret_detected"


@pytest.mark.parametrize(
    "text",
    [
        "WiFi: CasaLopez_5G",
        "Wi-Fi: Cafe@Home",
        "heslo je povinné",
        "The lamp turns off with 2 clicks.",
    ],
)
def test_a_network_name_or_a_rule_is_stored(text: str) -> None:
    assert outcome(text) == "stored"


@pytest.mark.parametrize(
    "text",
    [
        "wifi Fuchsbau / Igel!2291",
        "wifi Igel!2291",
        "Geheimnummer 4471",
        "votre code confidentiel est 4471",
        "le code de ma CB 4471",
    ],
)
def test_a_network_and_its_key_or_a_card_code_by_its_name_is_refused(text: str) -> None:
    assert outcome(text) == "secret_detected"


@pytest.mark.parametrize(
    "text",
    ["wifi Harbour_Guest5 in the lobby", "use the wifi Guest!Net2 network", "network / storage"],
)
def test_a_network_named_with_no_key_is_stored(text: str) -> None:
    assert outcome(text) == "stored"


@pytest.mark.parametrize(
    "text",
    ["Door: 4471", "Tür: 4471", "дверь: 4471", "the back door is 4471", "暗証番号は四七一九です"],
)
def test_a_door_bound_to_a_code_or_han_digits_before_a_copula_are_refused(text: str) -> None:
    assert outcome(text) == "secret_detected"


@pytest.mark.parametrize(
    "text",
    ["the door is 1200 mm wide", "Door: 12", "door: 2024", "Gate: B12", "door: open"],
)
def test_a_door_with_a_measure_a_year_or_a_number_is_stored(text: str) -> None:
    assert outcome(text) == "stored"
