"""Write tests/data/secret_prose_dev4.jsonl: secrets in prose, and notes that only look like one.

Usage, from the repository root::

    python3 tests/data/make_secret_prose_dev4.py

Every text was written for memoryd (see secret_prose_dev4.LICENSE); the
passwords, PINs, codes, phrases and keys in it are made up. The set holds
shapes the earlier sets hold few of. Two categories:

- ``secret``: a credential is given in the text: digits read out in pairs
  or groups (as figures or as number words), a value after a separable or
  compound verb ("schaltest … mit 7391 aus", "zet je uit met …"), a value on
  the next line, a value in parentheses or quotes after the name, a value
  given as another one changed ("same as the wifi but with ! at the end:
  …"), passwords in lists and tables, a credential in a sentence about
  something else, voicemail, alarm, garage, gate and bike-lock codes, SSH
  and GPG passphrases, two-factor backup codes, recovery phrases of seed
  words, and API keys with no provider prefix, whole or split across
  lines. Storing it must be refused.
- ``benign``: a note that looks like one and gives no credential: order,
  tracking, invoice and IBAN numbers, versions, commit hashes, checksums,
  room and gate numbers, phone numbers read out in pairs, quantities,
  times, password and seed-phrase policies, masked and placeholder values,
  where a value is kept ("the code is on the fridge"), separable verbs
  with no value ("die Tür geht mit der Karte auf"), and tables of services
  with no passwords in them. It must be stored or flagged for review,
  never refused.

The split is fixed: within each category, every third row (the 3rd, 6th,
...) is ``held_out`` and is not looked at while rules are tuned; the rest
is ``dev``.
"""

from __future__ import annotations

from prose_set import write

# (language, text): a credential is given; storing it must be refused.
SECRETS: list[tuple[str, str]] = [
    # English
    ("en", "voicemail PIN: 61 07 23, then press hash"),
    ("en", "Garage keypad is fifty-five, ninety, twelve. Hit enter after."),
    ("en", "Office wifi is the same as home but with ! at the end: Pinecone77!"),
    ("en", "weather API key (no prefix, paste it as is):\nq7Rt2vXk9LmN4pZs8WcB"),
    ("en", "mail relay key split in two because chat wraps it:\n8f3a91c4d7e2b6\n05fa9c1e7d3b24a8"),
    ("en", "Can you grab milk on the way? Oh and the alarm is 4410 now, they changed it Monday."),
    ("en", "Fastmail 2FA backup codes:\n- 39kd-77qm\n- 1xpz-84ra\n- vv02-6nte"),
    ("en", "| service | user | password |\n|---|---|---|\n| grafana | admin | Lupin!Tide42 |"),
    ("en", "holiday house:\n  wifi - Seagull_Cove9\n  alarm - 2719\n  lockbox - 0441"),
    ("en", 'GPG passphrase (don\'t lose it): "the otter ate my 3rd sandwich"'),
    (
        "en",
        "recovery phrase, in order: 1 hammer 2 sugar 3 violin 4 cliff 5 tunnel 6 orange "
        "7 dust 8 pledge 9 ivory 10 coast 11 raven 12 wheat",
    ),
    ("en", "bike lock is seven four two, the blue one by the shed"),
    ("en", 'Wi-Fi at Grandma\'s (password "Buttercup1958")'),
    ("en", "Jenkins token for the nightly job: 11c4be2f09a7d35e8b6f0a2c71d4e9b3"),
    ("en", "the ssh key's passphrase is Quiet-Orchard-at-Dusk, ssh-agent keeps asking"),
    ("en", "Zoom host key for Thursday's call: 402917"),
    ("en", "school portal login parent.kowalski, pw is the dog's name + 2024 -> Biscuit2024"),
    ("en", "Storage unit combination: left 32, right 14, left 7."),
    ("en", "creds for the test box\nuser: qa-runner\npass: Mossy_Anvil_31"),
    ("en", "gate code changed to 38 91 (tell the cleaner)"),
    # German
    ("de", "Die Alarmanlage schaltest du mit 7391 aus."),
    ("de", "Der Schlüsselkasten geht mit sieben, drei, neun, eins auf."),
    ("de", "Gib beim Anmelden das Passwort\nTannenzapfen#31\nein."),
    ("de", "Mailbox-PIN: zweiundvierzig siebzehn"),
    ("de", "Das Garagentor machst du mit 5 8 2 0 auf, Taste lang drücken."),
    ("de", "Zugangsdaten fürs Vereinskonto (Benutzer kassenwart, Passwort Eichhörnchen!77)"),
    # French
    ("fr", "Pour la messagerie vocale, tape 47 18 90 puis dièse."),
    ("fr", "Le code du portail, c'est trente-deux quatre-vingt-onze."),
    ("fr", "Identifiants du NAS (admin / « Hibou-Gris-58 »)"),
    ("fr", "Le cadenas du vélo s'ouvre avec 5-2-8."),
    (
        "fr",
        "Phrase de récupération du portefeuille : girafe, tonnerre, olive, bambou, "
        "citron, falaise, ruban, cerise, moulin, nuage, sable, pivoine",
    ),
    # Spanish
    ("es", "El PIN del buzón de voz es veintidós cuarenta y ocho."),
    ("es", "Oye, cuando vengas el código del portal es 9 3 5 2 (pulsa la llave antes)."),
    (
        "es",
        "Frase semilla de la billetera: lobo sal nube trigo faro cobre rayo miel "
        "pino roca lana vela",
    ),
    ("es", "La clave de la API de envíos, sin prefijo:\nT4kq9ZmW2xLp7VcR8nBs"),
    # Italian
    ("it", "La password della posta te la scrivo qui sotto:\nRondine!Blu88"),
    ("it", "Codici di recupero 2FA:\n4KQ9 7ZMX\nPT2W 8LRC"),
    ("it", "Il lucchetto della bici si apre con tre, otto, sei."),
    # Portuguese
    ("pt", "O cadeado da bicicleta abre com sete-três-zero."),
    ("pt", "Chave da API do sistema de frete (sem prefixo): h2Kq8ZpW4tLm9XcR7vBn"),
    ("pt", 'Frase-senha da chave GPG: "gato pardo no telhado"'),
    # Dutch
    ("nl", "Het alarm zet je uit met 8 2 0 6."),
    ("nl", "wachtwoord wifi staat niet op de router, het is: Klompen#Zeeland7"),
    ("nl", "De code van de fietskluis is twee vier acht."),
    # Polish
    ("pl", "Kod do furtki: dwadzieścia siedem, czternaście."),
    (
        "pl",
        "Hasło do wifi jest takie samo jak do poczty, tylko z wykrzyknikiem na końcu: Wiewiorka88!",
    ),
    ("pl", "Kody zapasowe do konta Google: 8812 4096, 3357 1120, 6049 7731"),
    # Swedish
    ("sv", "Larmet stänger du av med 5 1 9 3."),
    ("sv", "Lösenordet till wifi:t: Blabarsris_22"),
    ("sv", "Koden till förrådet är nittioåtta tolv."),
    # Czech
    ("cs", "Heslo k routeru je Kocour_Mikes7."),
    ("cs", "PIN ke kartě: čtyři devět dva jedna"),
    # Russian
    ("ru", "Сигнализацию выключаешь кодом 5 5 0 2."),
    (
        "ru",
        "Фраза восстановления кошелька: лес мост кот река снег луна дом гора ветер сад пыль мёд",
    ),
    ("ru", "Ключ от API (без префикса) кину на следующей строке:\nVb7mQ2xK9pLt4ZwR8nYc"),
    ("ru", "Код от калитки: двадцать один сорок семь"),
    # Turkish
    ("tr", "Garaj kapısının şifresi: yetmiş bir, kırk dört, dokuz"),
    ("tr", "Bisiklet kilidinin şifresi 3 8 2 4"),
    # Chinese
    ("zh", "车库门密码是 71 44 09，按完按井号。"),
    ("zh", "API 密钥（没有前缀）：\nwK8pQ3zX7mL2vN9tRb5c"),
    ("zh", "钱包助记词：山 水 风 火 雷 电 云 雨 日 月 星 辰"),
    # Japanese
    ("ja", "留守電の暗証番号は 58 21 90 です"),
    ("ja", "SSH鍵のパスフレーズ：「しずかな みずうみ 42」"),
    ("ja", "自転車のロックは 4-1-7 です"),
    # Korean
    ("ko", "공동현관 비번은 별표 누르고 2 5 8 0 이에요"),
    ("ko", 'GPG 암호문구: "푸른 고래가 노래한다"'),
    # Arabic
    ("ar", "رمز البريد الصوتي 73 18 44"),
    # Hindi
    ("hi", "वॉइसमेल पिन 62 19 87 है"),
    # Vietnamese
    ("vi", "Mã khóa xe đạp: 5 9 1"),
    # Indonesian
    ("id", "Kata sandi wifi kantor: KopiTubruk#45"),
    ("id", "PIN ATM saya empat satu tujuh delapan"),
    # Danish
    ("da", "Koden til garagen er ni fire to syv."),
]

# (language, text): no credential is given; stored or flagged, never refused.
BENIGN: list[tuple[str, str]] = [
    # English
    ("en", "Call me on 07 71 44 09 12 if the train is late."),
    ("en", "Tracking number 1Z999AA10123456784, due Friday."),
    ("en", "Bumped the client to 3.14.2 and the login bug went away."),
    ("en", "Meeting moved to room 4.12, second floor."),
    ("en", "We need 12 chairs, 4 tables and 2 projectors for the offsite."),
    ("en", "The garage code is on the fridge."),
    ("en", "Fixed in commit 3f9a1c7e2b84d05a; deploy after lunch."),
    (
        "en",
        "sha256 of the release tarball:\n"
        "9b2c7e4f01a3d58e6c2b7f90a4d13e58c6b2a7f0e9d41c3b5a68f27e0d9c14b3",
    ),
    ("en", "Backup codes are printed and in the safe, not in any note."),
    ("en", "Recovery phrases must be 12 or 24 words; write them on the steel plate only."),
    ("en", "| service | owner | rotation |\n|---|---|---|\n| grafana | ops | 90 days |"),
    ("en", "Password: <set in the vault>"),
    ("en", "API key: ****************a91f (shown once, stored in the secrets manager)"),
    ("en", "The voicemail PIN is the default one until you set your own."),
    ("en", "Alarm goes off at 06 45 on weekdays."),
    ("en", "The bike lock code is written on the key tag in the drawer."),
    ("en", "Gate B 14, boarding 17:20, seat 22A."),
    ("en", "Run the job with --token $CI_TOKEN, never paste the value."),
    ("en", "Wifi name is Heron2019, the password is on the router."),
    ("en", "Request id 7f3e2a90-41bc-4d2e-9a18-6c5f0b7d2e41 in the logs."),
    # German
    ("de", "Die Tür geht mit der Karte auf, nicht mit dem Schlüssel."),
    ("de", "Schalte den Router mit dem Knopf hinten aus und wieder an."),
    ("de", "Das Paket kommt am Dienstag mit DHL an, Sendung 00340434161094042557."),
    ("de", "Ruf mich unter 0171 44 09 23 an."),
    ("de", "Das Passwort muss mindestens zwölf Zeichen haben."),
    ("de", "Die IBAN steht auf der Rechnung: DE89 3704 0044 0532 0130 00."),
    # French
    ("fr", "Rappelle-moi au 06 47 18 90 22 ce soir."),
    ("fr", "Le code du portail est sur le frigo."),
    ("fr", "Réunion en salle 3.08 à 14 h 30."),
    ("fr", "Le mot de passe doit être changé tous les trois mois."),
    ("fr", "Colis n° 6A12345678901, livraison demain."),
    # Spanish
    ("es", "El código del portal lo tiene la vecina del tercero."),
    ("es", "Llámame al 612 34 56 78 cuando llegues."),
    ("es", "Pedido 2024-118-553 enviado, llega el jueves."),
    ("es", "La frase semilla nunca se guarda en el móvil."),
    # Italian
    ("it", "La password della posta te la mando a voce, non qui."),
    ("it", "Versione 5.2.0 rilasciata il 3 maggio."),
    ("it", "Il lucchetto della bici si apre con la chiave piccola."),
    # Portuguese
    ("pt", "O cadeado da bicicleta abre com a chave que está na gaveta."),
    ("pt", "Código de rastreio BR123456789BR, chega na sexta."),
    ("pt", "Sala 204, terceiro andar, às 10h."),
    # Dutch
    ("nl", "Het alarm zet je uit met de app, niet met een code."),
    ("nl", "Bel me op 06 12 34 56 78."),
    ("nl", "Ordernummer 4471-9902 is verzonden."),
    # Polish
    ("pl", "Kod do furtki jest na lodówce."),
    ("pl", "Zamówienie nr 55 12 09 wysłane."),
    ("pl", "Hasło do wifi jest takie samo jak w zeszłym roku."),
    # Swedish
    ("sv", "Larmet stänger du av med appen i telefonen."),
    ("sv", "Ring mig på 070 123 45 67."),
    ("sv", "Lösenordet måste bytas var tredje månad."),
    # Czech
    ("cs", "Heslo k routeru je na štítku dole."),
    ("cs", "Objednávka č. 88 41 20 byla odeslána."),
    # Russian
    ("ru", "Сигнализацию выключаешь кнопкой на пульте."),
    ("ru", "Позвони мне: 8 916 123 45 67."),
    ("ru", "Заказ № 44-10-28 будет в пятницу."),
    ("ru", "Фразу восстановления храни только на бумаге."),
    # Turkish
    ("tr", "Garaj kapısının şifresi buzdolabının üstünde."),
    ("tr", "Kargo takip no: 7312 4409 8815"),
    # Chinese
    ("zh", "车库门密码贴在冰箱上。"),
    ("zh", "快递单号 SF1234567890123，明天到。"),
    ("zh", "版本 2.8.1 修复了登录问题。"),
    # Japanese
    ("ja", "留守電の暗証番号は初期設定のままです。"),
    ("ja", "会議室は 4 階の 412 です。"),
    ("ja", "注文番号 58-21-90 は発送済み。"),
    # Korean
    ("ko", "공동현관 비번은 관리사무소에 물어보세요."),
    ("ko", "택배 송장번호 6012 3344 5566"),
    # Arabic
    ("ar", "رقم الشحنة 73 18 44 وسيصل غدا."),
    # Hindi
    ("hi", "मेरा फ़ोन नंबर 98 76 54 32 10 है"),
    # Vietnamese
    ("vi", "Mã khóa xe đạp ghi trên móc chìa khóa."),
    # Indonesian
    ("id", "Kata sandi wifi kantor ada di resepsionis."),
    ("id", "Nomor resi JNE 0123 4567 8901."),
    # Danish
    ("da", "Koden til garagen står på køleskabet."),
]


def main() -> None:
    write("secret_prose_dev4", {"secret": SECRETS, "benign": BENIGN})


if __name__ == "__main__":
    main()
