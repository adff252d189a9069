"""Write tests/data/secret_prose_dev5.jsonl: secrets in prose, and notes that only look like one.

Usage, from the repository root::

    python3 tests/data/make_secret_prose_dev5.py

Every text was written for memoryd (see secret_prose_dev5.LICENSE); the
passwords, PINs, codes, phrases and keys in it are made up. The set holds
shapes and words the earlier sets do not use. Two categories:

- ``secret``: a credential is given in the text: a value given with a verb
  ("punch in", "key in", "tippe", "tape", "introduce", "digite", "输入",
  "入力", "введи"), a value before its name with "that's" or a dash, a
  question answered ("the password? …"), a credential in a command line
  (``mysql -p…``, ``sshpass -p``, ``curl -u user:pass``), a Wi-Fi QR
  string, a netrc line, recovery keys in groups (BitLocker, a PUK), a TOTP
  seed, an archive's or a PDF's password, a car radio, locker, padlock or
  intercom code, a bank card's secret number in the words of its country
  (Geheimzahl, 支付密码, 暗証番号, PIN do cartão), and values with their
  characters set apart by dots or spaces. Storing it must be refused.
- ``benign``: a note that looks like one and gives no credential: postal,
  area, promotion, discount and error codes, pin numbers of a board,
  network names with no key, user names alone, command lines that prompt
  for the password, extensions and menu choices ("press 1", "dial 9"),
  product, ISBN, IBAN, SKU and flight numbers, password and PIN policies
  in several languages, where a value is kept, masked and placeholder
  values, and values reported changed with no value. It must be stored or
  flagged for review, never refused.

The split is fixed: within each category, every third row (the 3rd, 6th,
...) is ``held_out`` and is not looked at while rules are tuned; the rest
is ``dev``.
"""

from __future__ import annotations

from prose_set import write

# (language, text): a credential is given; storing it must be refused.
SECRETS: list[tuple[str, str]] = [
    # English
    ("en", "To get into the bike shed, punch in 5583 and pull the handle."),
    ("en", "Kettle!Moon42 - that's the admin password for the printer, don't share it."),
    ("en", "The password? Fernhill_Otter9. Yes, capital F."),
    ("en", "quick db check: mysql -u root -pKettle_4419 -h 10.0.0.5"),
    ("en", "backup script runs sshpass -p 'Lindens#55' ssh backup@nas"),
    ("en", "curl -u admin:Marble!31 https://printer.local/api/status"),
    ("en", "guest network QR: WIFI:T:WPA;S:Harbour_Guest;P:Lemon#Tree88;;"),
    ("en", "~/.netrc has: machine api.fileshare.test login dana password Xk3pq9Wz!"),
    (
        "en",
        "BitLocker recovery key for the work laptop: "
        "412390-238811-509276-118404-663201-090947-271115-385530",
    ),
    ("en", "SIM PUK if the phone locks itself: 83920475"),
    ("en", "authenticator seed for the shared account: JBSWY3DPEHPK3PXP"),
    ("en", "The zip from accounting opens with Q3-report!Birch"),
    ("en", "car radio code after the battery swap: 4 7 1 9"),
    ("en", "Locker 112 at the gym, padlock 0-4-7-3"),
    ("en", "Key in 9 3 1 7 on the intercom then push the door."),
    ("en", "my online banking login is t.hale and the password's Wren&Basil2020"),
    ("en", "wifi pw: T.u.l.i.p.7.7.!"),
    ("en", "the PDF of the contract is locked, password Harrow_7731"),
    # German
    ("de", "Die Geheimzahl meiner EC-Karte: 8 1 5 3"),
    ("de", "Tippe am Tor 4 4 9 0 ein und warte auf das Summen."),
    ("de", "Für den Router gilt jetzt Apfelbaum-Wiese!19, das alte geht nicht mehr."),
    ("de", "Zugang zum Schließfach im Bahnhof: Nummer 38, Code 6612"),
    ("de", "Das Kennwort vom Laptop? Schwalbe_Nord7"),
    ("de", "Die Fahrradschloss-Kombi ist 3-9-1"),
    ("de", "Entsperrmuster nicht, sondern PIN: sechs, null, acht, zwei"),
    # French
    ("fr", "Tape 2 8 0 4 sur le boîtier à côté de la porte."),
    ("fr", "Pour la box : identifiant admin, clé Lutin!Bleu74"),
    ("fr", "Mouette-Blanche-19, c'est la clé du wifi de la maison de vacances."),
    ("fr", "Code d'accès de l'immeuble : A4291, puis la porte de gauche."),
    ("fr", "Le PIN de ma carte bleue ? neuf, trois, trois, sept."),
    ("fr", "Le cadenas du casier se règle sur 7-1-4."),
    # Spanish
    ("es", "Introduce 5 9 0 2 en el teclado del portal."),
    ("es", "La clave del cajero de mi tarjeta es 3307, no la pierdas."),
    ("es", "Gato.Negro.88 es la contraseña del router del piso."),
    ("es", "Para el wifi del bar: red Bodega_5G, clave Tortilla#2024"),
    ("es", "El candado de la taquilla abre con cuatro, ocho, dos."),
    ("es", "Contraseña del portátil del trabajo → Limonero_Azul7"),
    # Portuguese
    ("pt", "O PIN do cartão é quatro, sete, um, nove."),
    ("pt", "Digite 6 6 2 1 no portão e empurre."),
    ("pt", "A senha do wifi da casa de praia é Jabuti#4421"),
    ("pt", "Senha do e-mail antigo: Caju_Maduro33"),
    ("pt", "Cadeado da mochila: 9-0-5"),
    # Italian
    ("it", "La password del modem è Girasole!63, l'ho cambiata ieri."),
    ("it", "Digita 7 2 4 8 sul tastierino del cancello."),
    ("it", "Il PIN del bancomat di mamma: 5 1 9 6"),
    # Chinese
    ("zh", "支付密码六位：两八三九一七"),
    ("zh", "门口输入 7 3 8 2 9 1 就能进"),
    ("zh", "路由器后台账号 admin，密码 Tiger#2024"),
    ("zh", "保险柜密码是左36右12左5"),
    ("zh", "公司邮箱的密码我改成了 Lanhua_88 了"),
    ("zh", "银行卡取款密码：6 2 8 4 1 9"),
    # Japanese
    ("ja", "玄関の暗証番号は 4 7 1 9 です。"),
    ("ja", "Wi-Fiのパスワードは sakura-2025! です。"),
    ("ja", "ロッカーの番号は 2 8 0 5、忘れないで。"),
    ("ja", "キャッシュカードの暗証番号：三八二七"),
    ("ja", "管理画面に admin / Fuji_Yama77 で入力してログイン"),
    # Russian
    ("ru", "Пароль от почты — Ромашка_1987"),
    ("ru", "Введи 3 0 4 8 на домофоне и толкай дверь."),
    ("ru", "ПИН-код карты: пять, ноль, три, восемь"),
    ("ru", "Kedr!Tayga55 — это пароль от роутера на даче."),
    ("ru", "Замок на велосипеде открывается на 6-2-9"),
    # Korean
    ("ko", "와이파이 비밀번호는 dalgona77! 이에요."),
    ("ko", "현관 비밀번호 *2580# 누르고 들어오세요."),
    ("ko", "체크카드 비밀번호: 4 9 1 3"),
    ("ko", "사물함 번호 자물쇠는 7-3-8"),
]

# (language, text): no credential is given; it must never be refused.
BENIGN: list[tuple[str, str]] = [
    # English
    ("en", "Punch in at 9 and punch out at 5, the new badge reader logs it."),
    ("en", "Press 1 for sales, 2 for support, 9 to repeat the menu."),
    ("en", "Dial 9 for an outside line, then the full number."),
    ("en", "mysql -u root -p prompts for the password; never put it on the command line."),
    ("en", "curl -u admin https://printer.local/api/status asks for the password interactively."),
    ("en", "The guest network is Harbour_Guest; the key is on the card at reception."),
    ("en", "Connect the sensor to GPIO pin 17 and ground to pin 6."),
    ("en", "Zip code 94110, area code 415."),
    ("en", "Promo code SUMMER25 gives 25% off until Sunday."),
    ("en", "Windows update failed with error code 0x80070005."),
    ("en", "BitLocker asked for the recovery key; IT read it out from the portal."),
    ("en", "The SIM came with a PUK on the card, which I filed with the contract."),
    ("en", "Your PIN must be 4 to 6 digits and not your birth year."),
    ("en", "Passwords were rotated on 2026-01-12; everyone got a reset link."),
    ("en", "Username: t.hale (the password is in the team vault)"),
    ("en", "Locker 112 at the gym, bring your own padlock."),
    ("en", "ISBN 978-3-16-148410-0, second edition, page 217."),
    ("en", "Flight LH 4421 boards at gate B12 at 07:35."),
    ("en", "The PDF password is whatever the bank texts you, it changes each statement."),
    ("en", "Type yes to confirm, then enter 42 in the quantity field."),
    ("en", "SKU 88-1042-B is out of stock until March."),
    # German
    ("de", "Die Postleitzahl ist 10115, Hausnummer 12."),
    ("de", "Die Geheimzahl kommt getrennt von der Karte per Post."),
    ("de", "Tippe am Tor auf die Klingel mit dem Namen Weber."),
    ("de", "Das WLAN-Passwort steht auf der Rückseite des Routers."),
    ("de", "Das Kennwort muss mindestens zwölf Zeichen haben."),
    ("de", "IBAN DE89 3704 0044 0532 0130 00, Verwendungszweck Miete März."),
    ("de", "Schließfach 38 ist ab Montag wieder frei."),
    # French
    ("fr", "Le code postal est 75011, troisième étage gauche."),
    ("fr", "Tape ton nom sur le boîtier et l'accueil t'ouvre."),
    ("fr", "La clé du wifi est collée sous la box."),
    ("fr", "Le mot de passe doit contenir au moins 10 caractères et un chiffre."),
    ("fr", "Le PIN de la carte a été envoyé par courrier séparé."),
    ("fr", "Code promo RENTREE10 valable jusqu'au 30 septembre."),
    # Spanish
    ("es", "El código postal es 28013, en el centro."),
    ("es", "Introduce tu nombre de usuario y la app te enviará un código."),
    ("es", "La contraseña debe tener al menos 10 caracteres."),
    ("es", "El vuelo IB 3170 sale a las 18:45 de la puerta K92."),
    ("es", "La clave del wifi la tiene el camarero."),
    ("es", "Pedido 4471-22 enviado, llega el martes."),
    # Portuguese
    ("pt", "A senha expira em 30 dias; o sistema avisa antes."),
    ("pt", "Digite seu CPF no portão e aguarde o porteiro."),
    ("pt", "CEP 01310-100, Avenida Paulista."),
    ("pt", "O PIN do cartão chega pelo correio em separado."),
    # Italian
    ("it", "La password del modem è scritta sotto l'apparecchio."),
    ("it", "Il CAP è 20121, Milano centro."),
    ("it", "Digita il tuo nome sul citofono e aspetta."),
    # Chinese
    ("zh", "支付密码需要六位数字，不能是连续的数字。"),
    ("zh", "邮编 100080，北京市海淀区。"),
    ("zh", "门口输入房间号就能呼叫前台。"),
    ("zh", "密码已重置，新密码通过短信发送。"),
    ("zh", "订单号 2024 0611 8832 已发货。"),
    ("zh", "路由器密码贴在路由器背面。"),
    # Japanese
    ("ja", "郵便番号は 150-0002 です。"),
    ("ja", "パスワードは管理者に聞いてください。"),
    ("ja", "暗証番号は4桁で、誕生日は使えません。"),
    ("ja", "ロッカーは 2 階の 28 番です。"),
    ("ja", "電話番号 03 1234 5678 にかけてください。"),
    # Russian
    ("ru", "Почтовый индекс 119019, Москва."),
    ("ru", "Пароль нужно менять каждые 90 дней."),
    ("ru", "Введи номер квартиры на домофоне и жди ответа."),
    ("ru", "ПИН-код придёт в СМС после активации карты."),
    ("ru", "Рейс SU 1402 вылетает в 06:10."),
    # Korean
    ("ko", "비밀번호는 8자 이상이어야 합니다."),
    ("ko", "우편번호 04524, 서울 중구."),
    ("ko", "현관 비밀번호는 관리실에 문의하세요."),
    ("ko", "주문번호 2026-1104-778 배송 시작"),
]


def main() -> None:
    write("secret_prose_dev5", {"secret": SECRETS, "benign": BENIGN})


if __name__ == "__main__":
    main()
