"""Write tests/data/value_lookalikes.jsonl: values that look like a code or a
password and are none, in sentences that name a lock, an account or a login.

Usage, from the repository root::

    python3 tests/data/make_value_lookalikes.py

Every text is made here from the templates below (see
value_lookalikes.LICENSE). A credential is a value given to open something;
the values here are what notes hold beside such words and are something
else: a date or a year, a time of day, a measure with its unit, a version
or a protocol, a ticket's, an order's or a flight's number, a port, a
phone number, a price, a count, a file name, a model number, a setting's
name, a room or a gate; and numbers after words that begin as a
credential's name does and are none ("pinball", "passengers", "codex").
Each is said in a sentence in one of eight
languages, some of whose sentences name a lock, a backup, an alarm, a login
or a password policy, as real notes do. One category, ``benign``: storing
it must not be refused.

The split is by template: in each language, two templates of three are
``dev`` (the learned reading's head is fitted on their rows,
``bench/train_secret_head.py``) and the third is ``held_out`` (its rows
only counted by ``bench/scan.py --corpus``), so a held-out row is a
sentence the head never saw, with a value of a kind it did. Each template
is filled four times with made-up values; the run is deterministic (a
fixed seed).
"""

from __future__ import annotations

import json
import random
from pathlib import Path

ROUNDS = 12
OUT = Path(__file__).resolve().parent / "value_lookalikes.jsonl"


def _values(rng: random.Random) -> dict[str, str]:
    """One made-up value of each kind."""
    year = rng.randint(2015, 2031)
    month, day = rng.randint(1, 12), rng.randint(1, 28)
    hour, minute = rng.randint(5, 22), rng.choice((0, 15, 30, 45))
    d4 = rng.randint(1000, 9999)
    return {
        "date": rng.choice(
            (
                f"{year}-{month:02d}-{day:02d}",
                f"{day:02d}.{month:02d}.{year}",
                f"{month:02d}/{day:02d}/{year}",
                f"{year}{month:02d}{day:02d}",
            )
        ),
        "dates": f"{year}{month:02d}{day:02d} {year}{month:02d}{day + 1:02d}",
        "year": str(year),
        "time": rng.choice((f"{hour:02d}{minute:02d}", f"{hour:02d}{minute:02d}h")),
        "measure": rng.choice(
            (
                f"{d4} mm",
                f"{rng.randint(10, 99)}-{rng.randint(10, 99)}-{rng.randint(10, 99)} cm",
                f"{d4} g",
                f"{d4} kg",
                f"{d4} m²",
                f"{d4} km",
                f"{d4} ml",
                f"{d4} W",
            )
        ),
        "version": rng.choice(
            (
                f"v{rng.randint(1, 9)}.{rng.randint(0, 20)}.{rng.randint(0, 30)}",
                f"TLS1.{rng.randint(2, 3)}",
                f"Python3.{rng.randint(8, 13)}",
                f"HTTP/{rng.choice(('1.1', '2', '3'))}",
                f"AES-{rng.choice((128, 256))}-GCM",
                "WPA3-SAE",
                "SHA256",
            )
        ),
        "ticket": rng.choice(
            (f"OPS-{d4}", f"INC-{d4}", f"JIRA-{d4}", f"#{d4}", f"PR-{d4}", f"CHG{d4}", f"#A{d4}")
        ),
        "order": str(rng.randint(10000, 999999)),
        "flight": rng.choice(
            (f"LH{d4}", f"BA{rng.randint(100, 999)}", f"AF{d4}", f"gate B{rng.randint(1, 60)}")
        ),
        "port": str(rng.choice((3306, 5432, 6379, 8080, 8443, 9090, 27017))),
        "phone": rng.choice(
            (
                f"+44 20 {d4} {rng.randint(1000, 9999)}",
                f"0{rng.randint(100, 999)} {rng.randint(100000, 999999)}",
                f"+49 30 {rng.randint(100000, 999999)}",
            )
        ),
        "price": rng.choice((f"{d4} euros", f"${d4}", f"{d4} €", f"{d4} zł", f"{d4} ₽")),
        "count": str(rng.randint(1000, 50000)),
        "file": rng.choice(
            (
                f"report_{year}.pdf",
                f"file{rng.randint(1, 999)}.txt",
                f"CHANGELOG-{year}.md",
                f"backup-{year}{month:02d}.tar.gz",
                f"scan{d4}.jpg",
            )
        ),
        "model": rng.choice(
            (
                f"RTX{rng.choice((3060, 4070, 4090))}",
                f"iPhone{rng.randint(11, 16)}",
                "A320neo",
                f"XPS{rng.choice((13, 15, 17))}",
                f"ThinkPad-T{d4 % 100}",
                f"WRT{d4}",
            )
        ),
        "setting": rng.choice(
            (
                "MAX_RETRIES_3",
                "PIN_RETRY_LIMIT",
                "MAX_PIN_ATTEMPTS",
                "LOGIN_TIMEOUT_30S",
                "PASSWORD_MIN_LEN_12",
                "BACKUP_KEEP_7",
            )
        ),
        "room": str(rng.randint(100, 1999)),
    }


# Per language: templates, each with the kind of value it holds. Some name a
# lock, a backup, an alarm, a login or a password policy beside the value.
TEMPLATES: dict[str, list[tuple[str, str]]] = {
    "en": [
        ("date", "The password policy changed on {v}, everyone rotates next week."),
        ("date", "Locksmith visit for the combination safe booked for {v}."),
        ("dates", "Backup runs on {v} both failed; check the NAS."),
        ("year", "The front door was replaced in {v}."),
        ("time", "Alarm clock for the airport run: {v}."),
        ("measure", "The padlock shackle is {v} long."),
        ("version", "The login page now requires {v}."),
        ("ticket", "Recovery codes were reissued under change {v}."),
        ("ticket", "Approve the access request {v} before Friday."),
        ("order", "Order {v} for the keypad lock shipped on Monday."),
        ("flight", "Alarm set for the early flight {v}."),
        ("port", "The database listens on port {v}."),
        ("phone", "If the door code fails, call the landlord on {v}."),
        ("price", "The new keypad lock cost {v} installed."),
        ("count", "The login page had {v} visitors after the launch."),
        ("file", "The password rules are written up in {v}."),
        ("model", "Unlock the {v} with your fingerprint, not a PIN."),
        ("setting", "The lockout setting {v} is on in production."),
        ("room", "Hotel room {v}, the safe is in the wardrobe."),
        # Words that begin as a credential's name does and are none.
        ("count", "Pinball high score on the old machine: {v}."),
        ("count", "Passengers on the morning ferry: {v}."),
        ("order", "The codex reprint, order {v}, arrived today."),
        ("count", "Pint glasses ordered for the pub quiz: {v}."),
        ("room", "The pinewood cabin is number {v}, by the lake."),
        ("count", "Keyboard covers in the warehouse: {v}."),
    ],
    "de": [
        ("date", "Die Passwortrichtlinie gilt seit {v}."),
        ("year", "Tür: {v} erneuert, neue Scharniere"),
        ("time", "Alarmanlage schaltet um {v} automatisch scharf."),
        ("measure", "Das Zahlenschloss misst {v}."),
        ("version", "Anmeldung nur über {v}."),
        ("ticket", "Backup-Codes: siehe Ticket {v}"),
        ("order", "Die Bestellung {v} für das neue Türschloss ist unterwegs."),
        ("phone", "Falls der Türcode nicht geht, ruf den Hausmeister an: {v}"),
        ("price", "Das Fahrradschloss hat {v} gekostet."),
        ("file", "Die Passwortregeln stehen in {v}."),
        ("room", "Zimmer {v}, der Safe ist im Schrank."),
        ("count", "Passagiere auf der Fähre heute: {v}."),
        ("count", "Im Pinselset sind {v} Pinsel."),
        ("order", "Der Codex-Nachdruck, Bestellung {v}, ist da."),
    ],
    "fr": [
        ("date", "La politique des mots de passe a changé le {v}."),
        ("year", "Porte : {v} rénovée, nouvelles charnières"),
        ("time", "L'alarme se met en marche à {v}."),
        ("measure", "Le cadenas fait {v}."),
        ("version", "Connexion uniquement en {v}."),
        ("ticket", "Codes de secours : voir le ticket {v}"),
        ("order", "La commande {v} du nouveau verrou est partie."),
        ("phone", "Si le digicode ne marche pas, appelez le gardien au {v}."),
        ("count", "La page de connexion a eu {v} visites."),
        ("room", "Chambre {v}, le coffre est dans le placard."),
        ("count", "Passagers à bord du ferry ce matin : {v}."),
        ("room", "Le pinceau numéro {v} est dans le tiroir."),
        ("count", "Pintes servies au bar samedi : {v}."),
    ],
    "es": [
        ("date", "La política de contraseñas cambió el {v}."),
        ("time", "La alarma se activa a las {v}."),
        ("measure", "El candado mide {v}."),
        ("version", "Inicia sesión solo con {v}."),
        ("ticket", "Códigos de respaldo: ver el ticket {v}"),
        ("order", "El pedido {v} de la cerradura nueva ya salió."),
        ("phone", "Si el código de la puerta falla, llama al portero: {v}"),
        ("price", "La cerradura con teclado costó {v}."),
        ("room", "Habitación {v}, la caja fuerte está en el armario."),
        ("count", "Pasajeros en el ferry de hoy: {v}."),
        ("count", "Pinceles en la caja del taller: {v}."),
        ("order", "El pedido del códice, número {v}, ya llegó."),
    ],
    "it": [
        ("date", "La policy delle password è cambiata il {v}."),
        ("time", "L'allarme si inserisce alle {v}."),
        ("measure", "Il lucchetto misura {v}."),
        ("ticket", "Codici di backup: vedi il ticket {v}"),
        ("phone", "Se il codice del portone non va, chiama il portiere al {v}."),
        ("room", "Camera {v}, la cassaforte è nell'armadio."),
    ],
    "pt": [
        ("date", "A política de senhas mudou em {v}."),
        ("time", "O alarme liga às {v}."),
        ("measure", "O cadeado mede {v}."),
        ("ticket", "Códigos de backup: ver o ticket {v}"),
        ("price", "A fechadura nova custou {v}."),
        ("room", "Quarto {v}, o cofre fica no armário."),
    ],
    "nl": [
        ("date", "Het wachtwoordbeleid is gewijzigd op {v}."),
        ("time", "Het alarm gaat om {v} aan."),
        ("measure", "Het hangslot is {v}."),
        ("ticket", "Back-upcodes: zie ticket {v}"),
        ("room", "Kamer {v}, de kluis staat in de kast."),
    ],
    "ru": [
        ("date", "Политика паролей изменилась {v}."),
        ("time", "Сигнализация включается в {v}."),
        ("measure", "Кодовый замок размером {v}."),
        ("price", "Введите {v} на карту у двери."),
        ("ticket", "Резервные коды: см. заявку {v}"),
        ("room", "Номер {v}, сейф в шкафу."),
    ],
}


def rows() -> list[dict[str, str]]:
    rng = random.Random(20261207)
    out: list[dict[str, str]] = []
    for _round in range(ROUNDS):
        for lang, templates in TEMPLATES.items():
            for t, (kind, template) in enumerate(templates):
                value = _values(rng)[kind]
                out.append(
                    {
                        "category": "benign",
                        "lang": lang,
                        "kind": kind,
                        "text": template.format(v=value),
                        "split": "held_out" if t % 3 == 2 else "dev",
                    }
                )
    for i, row in enumerate(out):
        row["id"] = f"lookalike-{i:03d}"
    return out


def main() -> None:
    with OUT.open("w", encoding="utf-8") as f:
        for row in rows():
            f.write(json.dumps(row, ensure_ascii=False) + "\n")


if __name__ == "__main__":
    main()
