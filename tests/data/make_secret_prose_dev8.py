"""Write tests/data/secret_prose_dev8.jsonl: secrets in prose, and notes that only look like one.

Usage, from the repository root::

    python3 tests/data/make_secret_prose_dev8.py

Every text was written for memoryd (see secret_prose_dev8.LICENSE); the
passwords, PINs, codes, phrases and keys in it are made up. The set holds
the ways of stating a credential the earlier sets hold few of. Two
categories:

- ``secret``: a credential is given: its value named before the noun ("I
  chose … as the password", "… is the PIN"), reported ("she told me the
  code was …"), in a letter or a message with its greeting, in a to-do or
  a change from one value to another, spelt in a phonetic alphabet or with
  "oh", "double" and "triple" for digits, a lock's combination with its
  turns, after a key or lock emoji, a device's unlock code or passcode, a
  numeric key (a meeting's host key), a value wholly in another script,
  bound by "and", "with", "as" or "for"; in languages the earlier sets
  hold few of (Catalan, Croatian, Slovak, Slovenian, Bulgarian, Greek,
  Filipino, Swahili, Afrikaans, Icelandic, Estonian, Latvian, Lithuanian,
  Bengali, Urdu, Malay, Galician) as well as the larger ones. Storing it
  must be refused.
- ``benign``: a note that looks like one and gives no credential: a key or
  a secret that is a figure of speech ("the key is patience", "the secret
  ingredient is cardamom"), advice and stories about passwords with no
  value, version numbers, ticket, order and error ids, door, room, gate
  and platform numbers, recipes with temperatures and times, call signs
  in a phonetic alphabet, postal and area codes, meeting ids with no
  passcode, and the same in the languages above. It may be flagged for
  review, never refused.

The split is fixed by a hash, not by position: within each category, the
third of the rows whose texts' SHA-256 digests sort first is
``held_out``, chosen when the set was written, before any rule was run on
it, and not looked at while rules are tuned; the rest is ``dev``. Each row's
id is ``dev8-<category>-<position>``.
"""

from __future__ import annotations

import hashlib

from prose_set import write

# (language, text): a credential is given; storing it must be refused.
SECRETS: list[tuple[str, str]] = [
    # The value named before its noun.
    ("en", "When I set up the router I chose Pelican!Dawn7 as the admin password."),
    ("en", "Went with Harbor#Lights52 for the new wifi password, tell the others."),
    ("en", "Moonbeam_Otter44 is the password for the shared Netflix, don't change it."),
    ("en", "I made the NAS password Wren&Thistle9 so it's easy to type on the TV."),
    ("en", "4417 is the PIN for the office alarm, 2290 for the garage."),
    ("de", "Ich habe Eisvogel#Mond3 als Passwort für den Router genommen."),
    ("fr", "J'ai mis Pivoine!Sable8 comme mot de passe du compte Netflix."),
    ("es", "Puse Nutria_Roja71 como contraseña del wifi de la casa."),
    ("it", "Ho scelto Falco#Notte26 come password del NAS."),
    ("nl", "Ik heb Reiger!Duin45 als wachtwoord voor de NAS ingesteld."),
    ("pt", "Coloquei Tucano#Rio88 como senha do Wi-Fi do escritório."),
    # Reported: someone said, was told.
    ("en", "Sam told me the code for the bike shed is 3958."),
    ("en", "She said the new admin password was Copper-Finch-31 and that it works on both boxes."),
    ("en", "IT just messaged: your temporary password is Kq8#vMz2Rt, change it at first login."),
    ("de", "Der Hausmeister meinte, der Code fürs Tor sei 7203."),
    ("fr", "Le gardien m'a dit que le code du portail était 4826."),
    ("es", "Me dijeron que la contraseña del servidor es Lince#Sierra40."),
    ("it", "Marco dice che la password del router è Volpe_Grigia77."),
    ("pl", "Szef powiedział, że hasło do serwera to Bocian!Pole62."),
    # A letter or a message with its greeting.
    (
        "en",
        "Hi Priya,\nas discussed, the login for the supplier portal is acme-buying and the "
        "password is Saffron#Kettle19.\nBest, Tom",
    ),
    (
        "en",
        "Dear all, the guest network this week is CONF-GUEST and its password Orchid!Falls63. "
        "Regards, Facilities",
    ),
    ("de", "Hallo Jens, das neue Passwort fürs Kundenportal lautet Zaunkoenig#58. Gruß, Anna"),
    ("fr", "Bonjour Claire, le mot de passe de l'extranet est désormais Mouette#Quai41. Bises"),
    ("es", "Hola Ana: la clave del correo compartido quedó en Albatros!Costa9. Un saludo."),
    # A to-do, or a change from one value to another.
    ("en", "TODO: change the admin pw from Lynx#2290 before launch."),
    ("en", "Changed the NAS password from Otter_Bay12 to Kestrel-Glen-47 this morning."),
    ("en", "reminder for Friday - router password is now Thistle$Marsh6"),
    ("de", "Passwort vom Server von Biber#11 auf Luchs!Wald93 geändert."),
    ("fr", "Mot de passe du wifi passé de Renard2023 à Blaireau#Foret5."),
    ("es", "Cambié la contraseña del NAS de Oso#2021 a Ciervo!Monte58."),
    # Spelt in a phonetic alphabet, or with "oh", "double", "triple".
    ("en", "The wifi password is kilo echo lima papa india echo seven seven."),
    ("en", "Password, phonetically: Tango Romeo Oscar Uniform Tango four two."),
    ("en", "The alarm code is two oh oh seven."),
    ("en", "PIN is double five, three, nine."),
    ("en", "Garage code: triple seven four."),
    ("en", "Door code is nine oh four one, then hash."),
    # A lock's combination with its turns.
    ("en", "Gym locker combo: right 24, left 8, right 31."),
    ("en", "The safe opens with left to 12, right to 40, left to 6."),
    ("de", "Zahlenschloss vom Spind: rechts 15, links 32, rechts 9."),
    # After a key or lock emoji.
    ("en", "🔑 wifi: Dolphin$Reef9"),
    ("en", "🔐 server room 7734"),
    ("en", "office wifi 🔑 Marlin#Tide40 (5 GHz one)"),
    ("de", "Gäste-WLAN 🔑 Seeadler!77"),
    # A device's unlock code or passcode.
    ("en", "The unlock code for the shared iPad is 582014."),
    ("en", "My laptop's login is Grebe!Hollow3, in case you need to grab a file."),
    ("en", "Dad's phone passcode: 190455"),
    ("de", "Entsperrcode fürs Diensthandy: 730912"),
    ("fr", "Le code de déverrouillage de la tablette est 681203."),
    ("es", "El código de desbloqueo del móvil de empresa es 447120."),
    # A numeric key, and keys described by their use.
    ("en", "Host key for the all-hands Zoom: 318204"),
    ("en", "Webex host PIN for Monday: 559031"),
    ("en", "The license key for the editor is 7KQ2-M9XD-4PLT-8WRC-3HNV."),
    ("en", "Use 9a8f7e6d5c4b3a2910ffee8877665544 as the signing secret in staging."),
    # A value wholly in another script.
    ("ru", "Пароль от почты: ЗелёныйКот77"),
    ("el", "Ο κωδικός του wifi είναι ΘάλασσαΜπλε8"),
    ("bg", "Паролата за рутера е СиняПеперуда5"),
    ("uk", "Пароль до сервера: ЖовтийЛев!42"),
    # Bound by "and", "with", "as", "for".
    ("en", "The Netflix login is my work email and Papaya_Sunset8."),
    ("en", "Log into the printer as admin with Heron&Fog21."),
    ("en", "Connect to the VPN as j.moreau, password Aster#Vale64, then open the wiki."),
    ("en", "Tern#51 for the wifi, 8062 for the alarm, both changed in June."),
    ("en", "root on db03 takes Juniper*Cliff82"),
    # A credential in a sentence about something else.
    (
        "en",
        "Finished the backups, moved the old disks to the shelf, and the vault password "
        "(Granite!Ibis5) is taped inside the drawer now.",
    ),
    (
        "en",
        "Booked the room for 3pm; the projector needs the admin code 8824 to change input.",
    ),
    ("de", "Kurz zur Info: Drucker steht im 2. Stock, Kennwort Fasan#Heide8, Toner im Schrank."),
    # Catalan.
    ("ca", "La contrasenya del wifi és Gavina#Mar64."),
    ("ca", "El PIN de la targeta és 3917."),
    # Croatian and Serbian.
    ("hr", "Lozinka za wifi je Galeb!More27."),
    ("hr", "PIN kartice je 6183."),
    ("sr", "Šifra za ruter je Vuk#Planina39."),
    # Slovak and Slovenian.
    ("sk", "Heslo do systému je Sokol_Tatry55."),
    ("sk", "Kód od brány je 2749."),
    ("sl", "Geslo za wifi je Lipa#Bled18."),
    # Bulgarian.
    ("bg", "Паролата за имейла е Lavandula#93."),
    ("bg", "ПИН кодът на картата е 5284."),
    # Greek.
    ("el", "Ο κωδικός πρόσβασης του διακομιστή είναι Elia#Kriti60."),
    ("el", "Το PIN της κάρτας είναι 7391."),
    # Filipino.
    ("tl", "Ang password ng wifi ay Sampaguita#22."),
    ("tl", "Yung PIN ng ATM ko ay 4058, huwag mong ipagsabi."),
    # Swahili.
    ("sw", "Nenosiri la wifi ni Simba!Mlima43."),
    ("sw", "Namba ya siri ya kadi ni 8126."),
    # Afrikaans.
    ("af", "Die wagwoord vir die wifi is Protea#Kaap71."),
    ("af", "My PIN is 2604, moenie dit vir iemand sê nie."),
    # Icelandic.
    ("is", "Lykilorðið á þráðlausa netinu er Lundi!Hraun32."),
    ("is", "PIN-númerið á kortinu er 9047."),
    # Estonian, Latvian, Lithuanian.
    ("et", "Wifi parool on Kajakas#Saar81."),
    ("et", "Uksekood on 3716."),
    ("lv", "Wifi parole ir Dzenis#Jura47."),
    ("lt", "Wifi slaptažodis yra Gandras!Marios9."),
    ("lt", "Kortelės PIN kodas yra 6620."),
    # Bengali and Urdu.
    ("bn", "ওয়াইফাই পাসওয়ার্ড হল Shapla#Nodi26"),
    ("bn", "আমার এটিএম পিন ৪৮১৯"),
    ("ur", "وائی فائی کا پاس ورڈ Chinar#Vadi53 ہے"),
    # Malay and Galician.
    ("ms", "Kata laluan wifi ialah Kenari#Pantai12."),
    ("ms", "Nombor PIN kad saya 7305."),
    ("gl", "O contrasinal do wifi é Gaivota!Ria34."),
    # The larger languages, in these shapes.
    ("de", "Der Zugang zum Router: admin und Dompfaff!Heide4."),
    ("fr", "Pour l'alarme, tape 5820 puis OK."),
    ("es", "El wifi va con Colibrí#Selva19, sin espacios."),
    ("it", "Per il NAS usa admin con Cinghiale!Bosco6."),
    ("pt", "A senha que eu criei pro roteador foi Sabiá#Serra25."),
    ("ru", "Я поставил пароль Ёжик_в_тумане88 на роутер."),
    ("ja", "ルーターの管理パスワードを Tanuki#Mori51 に変えました。"),
    ("zh", "我把路由器密码改成了 Xiongmao#2288 。"),
    ("ko", "공유기 비밀번호를 Horangi!San70 으로 바꿨어."),
    ("tr", "Wifi şifresini Martı#Deniz63 yaptım."),
    ("pl", "Ustawiłem hasło do routera na Jastrząb#Las29."),
    ("nl", "Het nieuwe wachtwoord van de server wordt Meeuw!Strand17."),
    ("sv", "Jag satte lösenordet till Lodjur#Skog46 på routern."),
    ("da", "Koden til alarmen er 6193, husk at slå den fra."),
    ("fi", "Vaihdoin wifin salasanaksi Kettu#Metsä38."),
    ("cs", "Nastavil jsem heslo k routeru na Vydra!Reka57."),
    ("hu", "A router jelszavát Sólyom#Tó44 -re állítottam."),
    ("ro", "Am pus parola Vultur#Munte65 la router."),
    ("vi", "Mình đổi mật khẩu wifi thành Sen#Hồ2024 rồi nhé."),
    ("id", "Kata sandi wifi kantor sekarang Merak#Bukit73."),
    ("he", "הסיסמה החדשה לראוטר היא Duchifat#48"),
    ("ar", "غيرت كلمة السر للراوتر إلى Saqr#Sahra90"),
    ("fa", "رمز وای فای رو گذاشتم Anar#Bagh36"),
    ("hi", "वाईफाई का पासवर्ड Mor#Van58 रख दिया है।"),
    ("th", "รหัสผ่านไวไฟคือ Chang#Pa45 นะ"),
    ("uk", "Я змінив пароль на роутері на Leleka#Pole31."),
    ("es", "PIN de la tarjeta: cuatro, cero, uno, siete."),
    ("de", "Der Tresor geht mit 3 - 1 - 4 - 8 auf."),
    ("fr", "Code de l'alarme : deux-neuf-zéro-un."),
    ("it", "Il codice dell'allarme è due zero sette uno."),
]

# (language, text): looks like one and gives no credential; never refused.
BENIGN: list[tuple[str, str]] = [
    # A key or a secret as a figure of speech.
    ("en", "The key is patience: let the dough rest for 45 minutes."),
    ("en", "The secret ingredient is cardamom, about 2 teaspoons."),
    ("en", "Key takeaway from the retro: ship smaller changes, 3 per week at most."),
    ("en", "The password to her heart is chocolate, apparently."),
    ("de", "Das Geheimnis ist Geduld und 180 Grad Umluft."),
    ("fr", "La clé du succès : 20 minutes de lecture par jour."),
    ("es", "El secreto está en la masa madre, 12 horas de reposo."),
    ("it", "Il segreto è il burro freddo, 200 grammi."),
    # Advice and stories about passwords, with no value.
    ("en", "I forgot my password again and had to reset it twice this week."),
    ("en", "Tip: a password manager can generate a 20-character password for every site."),
    ("en", "Grandma keeps asking what her PIN is; we set up a card reader at the bank instead."),
    ("en", "The code review for the login page is at 14:30 in room 4B."),
    ("en", "Alarm code changes are announced by Facilities on the first Monday."),
    ("en", "I chose a longer passphrase this time, five words, after the training."),
    ("en", "Sam told me the door code changed, he'll text it later."),
    ("en", "TODO: change the admin password before launch and put it in the vault."),
    ("en", "Changed the NAS password this morning; the new one is in Bitwarden."),
    ("en", "She said the new password works on both boxes now."),
    ("de", "Ich habe das Passwort geändert, es steht im Passwortmanager."),
    ("fr", "J'ai changé le mot de passe du wifi, demande-le à Claire."),
    ("es", "Cambié la contraseña del NAS, está en el gestor."),
    ("it", "Ho cambiato la password del router, chiedila a Marco."),
    ("pt", "Mudei a senha do roteador; está anotada no cofre."),
    ("nl", "Ik heb het wachtwoord van de NAS aangepast; het staat in de kluis."),
    # Version numbers, tickets, orders, errors.
    ("en", "Upgraded the editor to 4.17.2; the key bindings changed."),
    ("en", "Bug JIRA-48213: login fails after the password reset email."),
    ("en", "Order #558120 shipped; tracking 1Z999AA10123456784."),
    ("en", "Error code E-4471 means the card reader lost its connection."),
    ("en", "HTTP 401 on /api/v2/keys after the 2.3.0 release; rolled back."),
    ("en", "Ticket SR-20931: user locked out after 5 wrong PIN entries."),
    ("en", "Release 7.2.0 adds passkeys; passwords still work until 8.0."),
    ("de", "Fehlercode 0x80070005 beim Anmelden, Ticket 44821 angelegt."),
    ("fr", "Commande n° 4471-882 livrée ; facture FA-2025-0913."),
    ("es", "Versión 3.8.1 del cliente VPN, incidencia INC-77120."),
    # Door, room, gate and platform numbers.
    ("en", "Meeting moved to room 4.12, door on the left past the lift."),
    ("en", "Gate B14 for the 7:40 flight; boarding closes 20 minutes before."),
    ("en", "The server room is door 3, next to the fire exit."),
    ("en", "Platform 9, coach 12, seats 41 and 42."),
    ("de", "Raum 2.041, Tür gegenüber der Küche."),
    ("fr", "Le bureau est porte 12, au troisième étage."),
    ("es", "Puerta 7 del edificio C, segunda planta."),
    ("it", "L'aula è la 21, porta a destra."),
    # Recipes and measurements.
    ("en", "Bake at 180 for 25 minutes, then rest 10."),
    ("en", "Pizza dough: 500 g flour, 325 ml water, 10 g salt, 3 g yeast."),
    ("de", "Backofen auf 220 Grad, 12 Minuten, dann wenden."),
    ("fr", "Cuire 35 minutes à 200 °C, laisser reposer 5 minutes."),
    ("es", "Horno a 190 grados, 40 minutos, tapado con papel."),
    # Call signs and spelling alphabets.
    ("en", "Call sign is Bravo Two Zero; radio check at 0600."),
    ("en", "Spell the surname for the courier: Kilo Oscar Lima Alpha."),
    ("en", "Tail number Golf Echo Zulu, parked at stand 14."),
    # Postal, area codes, meeting ids.
    ("en", "Postcode SW1A 1AA, area code 020."),
    ("en", "Zoom meeting ID 814 2290 3315, no passcode needed, waiting room on."),
    ("de", "PLZ 10115, Vorwahl 030."),
    ("fr", "Code postal 75011, indicatif 01."),
    ("en", "The combination of flour and butter is called a roux."),
    ("en", "Locker 24 is mine; the combination is on the inside of the door."),
    ("en", "Right 24, left 8 at the roundabout, then second exit."),
    ("en", "🔑 Keys to the van are on the hook by the door."),
    ("en", "🔐 Lock your screen when you leave the desk."),
    ("en", "My laptop's login is slow since the update."),
    ("en", "The unlock code comes by SMS; it expires after 5 minutes."),
    ("en", "Host key fingerprints are listed in the wiki page for db03."),
    ("en", "Double five, triple seven: the dice game scores we use on Fridays."),
    ("en", "Two oh oh seven was the year we moved to Leeds."),
    # The languages above, with no value.
    ("ca", "No compartiu mai la contrasenya, ni amb el suport tècnic."),
    ("ca", "La clau de l'èxit és la constància."),
    ("hr", "Lozinka mora imati najmanje 12 znakova."),
    ("hr", "Soba 214, vrata desno od lifta."),
    ("sr", "Šifra je promenjena, pitaj administratora."),
    ("sk", "Heslo si zmeňte každé 3 mesiace."),
    ("sk", "Kód chyby 0x0004 znamená, že čítačka nevidí kartu."),
    ("sl", "Geslo je shranjeno v upravitelju gesel."),
    ("bg", "Паролата трябва да има поне 10 символа."),
    ("bg", "Версия 2.4.1 на приложението поддържа ПИН с 6 цифри."),
    ("el", "Μην στέλνετε ποτέ τον κωδικό σας με email."),
    ("el", "Το μυστικό είναι το ελαιόλαδο, 3 κουταλιές."),
    ("tl", "Huwag ibigay ang password mo sa kahit sino."),
    ("tl", "Ang PIN ay apat na numero lang."),
    ("sw", "Usimpe mtu yeyote nenosiri lako."),
    ("sw", "Chumba namba 12, mlango wa kushoto."),
    ("af", "Die wagwoord moet elke 90 dae verander word."),
    ("af", "Die geheim is geduld en 'n warm oond, 180 grade."),
    ("is", "Lykilorðið er geymt í lykilorðastjóranum."),
    ("is", "Hlið 22, brottför klukkan 07:40."),
    ("et", "Parool peab olema vähemalt 12 märki pikk."),
    ("et", "Tuba 305, uks vasakul."),
    ("lv", "Paroli nekad nesūti pa e-pastu."),
    ("lt", "Slaptažodis turi būti keičiamas kas 90 dienų."),
    ("lt", "Užsakymo numeris 77120-45."),
    ("bn", "পাসওয়ার্ড কাউকে বলবেন না।"),
    ("bn", "সংস্করণ ৩.২.১ এ পিন পরিবর্তনের বিকল্প আছে।"),
    ("ur", "اپنا پاس ورڈ کسی کو نہ بتائیں۔"),
    ("ms", "Kata laluan mesti ditukar setiap 90 hari."),
    ("ms", "Bilik 3.14, pintu sebelah kanan."),
    ("gl", "O contrasinal gárdase no xestor de contrasinais."),
    # The larger languages, with no value.
    ("de", "Zahlenschloss vergessen? Der Hausmeister hat einen Bolzenschneider."),
    ("de", "Kurz zur Info: Drucker steht im 2. Stock, Toner im Schrank, Raum 2.17."),
    ("fr", "Pour l'alarme, demande le code à l'accueil."),
    ("es", "El wifi va lento desde la actualización 5.2."),
    ("it", "Per il NAS chiedi le credenziali a Giulia."),
    ("pt", "A senha do roteador fica com o Pedro, pergunte a ele."),
    ("ru", "Пароль от роутера у админа, спроси у него."),
    ("ja", "ルーターのパスワードは管理者に聞いてください。"),
    ("zh", "路由器密码请向管理员索取，不要发在群里。"),
    ("ko", "공유기 비밀번호는 관리자에게 물어보세요."),
    ("tr", "Wifi şifresi değişti, yöneticiye sorun."),
    ("pl", "Hasło do routera zmieniłem, jest w menedżerze haseł."),
    ("sv", "Lösenordet till routern finns i lösenordshanteraren."),
    ("da", "Alarmkoden ændres hver måned; spørg i receptionen."),
    ("fi", "Salasana vaihdetaan kolmen kuukauden välein."),
    ("cs", "Heslo k routeru je v trezoru hesel."),
    ("hu", "A jelszót a jelszókezelőben tároljuk."),
    ("ro", "Parola se schimbă la fiecare 90 de zile."),
    ("vi", "Mật khẩu wifi đã đổi, hỏi quản trị viên nhé."),
    ("id", "Kata sandi wifi kantor sudah diganti, tanya ke admin."),
    ("he", "הסיסמה לראוטר נמצאת אצל מנהל הרשת."),
    ("ar", "كلمة السر للراوتر عند مسؤول الشبكة."),
    ("fa", "رمز وای فای رو از مدیر شبکه بپرس."),
    ("hi", "वाईफाई का पासवर्ड एडमिन से पूछिए।"),
    ("th", "รหัสผ่านไวไฟถามแอดมินนะ"),
    ("uk", "Пароль від роутера змінили, запитай в адміністратора."),
    ("en", "The PIN pad at the front desk is broken; use the card reader."),
    ("en", "Password strength meter says 'weak' for anything under 12 characters."),
    ("en", "The wifi network is CafeGuest and it is open, no password."),
    ("en", "Coupon SPRING25 gives 25% off until Sunday."),
    ("en", "Build 20931 passed; artifact sha256 ends in 7c1f."),
    ("en", "My bank sent a new card; the PIN letter comes separately next week."),
    ("en", "For the safe, call Dana; she has the combination."),
    ("en", "Log into the printer as admin; the password is on the sticker underneath."),
    ("en", "Connect to the VPN as j.moreau and open the wiki; ask IT for the password."),
]


def _split(_category: str, items: list[tuple[str, str]]) -> list[str]:
    """Per row, ``dev`` or ``held_out``: the third of the rows whose texts'
    SHA-256 digests sort first is held out (fixed by the texts, whatever
    their order)."""
    digests = [hashlib.sha256(text.encode("utf-8")).hexdigest() for _lang, text in items]
    held = set(sorted(digests)[: len(items) // 3])
    return ["held_out" if d in held else "dev" for d in digests]


def main() -> None:
    write("secret_prose_dev8", {"secret": SECRETS, "benign": BENIGN}, ids="dev8", split=_split)


if __name__ == "__main__":
    main()
