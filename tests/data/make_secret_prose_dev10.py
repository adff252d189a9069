"""Write tests/data/secret_prose_dev10.jsonl: secrets in prose, and notes that only look like one.

Usage, from the repository root::

    python3 tests/data/make_secret_prose_dev10.py

Every text was written for memoryd (see secret_prose_dev10.LICENSE); the
passwords, PINs, codes, phrases and answers in it are made up. As in
secret_prose_dev9, its two parts were written apart, each by a writer who
had read neither the rules, nor the learned reading, nor any other set,
from one brief: realistic notes a person or an agent would keep, in about
thirty-five languages, in every shape a credential is written down (what it
opens, the value's shape, where its name sits or whether only the context
names it, a question answered lines or turns later, a table's header, a
label line then the value, a change from one value to another), and
look-alikes in the same spread (a lock's or a login's word beside a phone
number, a price, a date, a room, an order or a version; policies,
placeholders, names alone). Two categories:

- ``secret``: a credential is given. Storing it must be refused.
- ``benign``: a note that looks like one and gives no credential. It may
  be flagged for review, never refused.

The split is fixed by the writer, not by a hash: the first part (160
secrets, 110 benign notes) is ``dev``, read and fitted on; the second
(130 secrets, 90 benign notes), written apart, is ``held_out`` and was
never read: only the figures ``bench/scan.py --corpus`` prints for it
were. Each row's id is ``dev10-<category>-<position>``.
"""

from __future__ import annotations

from prose_set import Rows, write_in_two_parts

# The first part: read, and fitted on.
DEV_SECRETS: Rows = [
    ("en", "Home wifi password: maple-Otter-42!"),
    (
        "en",
        "Router admin login is admin / Tr0ut#Lake77 - don't factory reset it again, took "
        "ages to set up",
    ),
    ("en", "Mum's phone unlock is 271904"),
    ("en", "SIM PIN 4417, PUK 83920175 (Vodafone card in the old Nokia drawer)"),
    ("en", "bank card pin - 6093"),
    (
        "en",
        "User: what was the code for the alarm again?\nAssistant: I don't have it saved "
        "yet.\nUser: ok it's 5-8-1-2, remember it this time",
    ),
    (
        "en",
        "Side door keypad at the studio: 3391# then wait for the green light before pulling",
    ),
    ("en", "Gate code for Aunt Rosa's complex is *2048 (press star first or it beeps at you)"),
    ("en", "garage opener keypad: 770155"),
    ("en", "Hotel room safe - I set it to 1962, Dad's birth year, so I won't forget"),
    ("en", "Gym locker combo 14-32-07"),
    ("en", "Blue padlock on the shed: 0 9 3 6"),
    ("en", "bike lock is 5728, the orange Abus one"),
    ("en", "Car radio code (Golf, after the battery swap): 1733"),
    ("en", "Work Dell laptop login: Winter!Harbor2024"),
    ("en", "VPN: user jkowalski, pw Qz7$mP2!vL - expires end of quarter, IT will email"),
    ("en", "Backup gmail (m.hart.recovery@gmail.com) password is lanternfishmoonlight"),
    ("en", "Family Netflix - email is the shared one, password popcornTuesday88"),
    ("en", "Ella's school portal: username ella.b2015, password Sunflower#9"),
    ("en", "Screen Time passcode on the kids' iPad: 0512 (don't let Max see this note)"),
    ("en", "Voicemail PIN for the office line is 90817"),
    ("en", "Building intercom: press the key symbol, then 6615, door clicks after a second"),
    (
        "en",
        "Ledger recovery words in order: orbit velvet canyon amber silent plough ripple "
        "nectar fossil jungle mirror tide",
    ),
    (
        "en",
        "GitHub backup codes (unused):\n8f3k-29dl\nq7m2-ax41\nzz90-1bre\nh6t4-pp0c\nw2n8-k5ys",
    ),
    ("en", "Mortgage account security question - mother's maiden name: Fairweather"),
    (
        "en",
        "Q: name of first pet?\n(they asked this on the phone at the credit union)\nA: Biscuit",
    ),
    (
        "en",
        "| account | user | pass |\n|---|---|---|\n| Hulu | sam.k | blueJay!404 |\n| "
        "Spotify | samk88 | Velvet_Sky_12 |",
    ),
    ("en", "Alarm panel master code\n\n440297"),
    (
        "en",
        "Changed the wifi password from sunnyday123 to Kestrel-Bloom-5581 on Saturday, "
        "tell the kids",
    ),
    (
        "en",
        "New Amazon password is the same as the old one (Paddington22) but with a 7 at the end",
    ),
    (
        "en",
        "Locker code is four seven seven one, easy to remember because it's like our old "
        "street number",
    ),
    ("en", "For Grandma's tablet just type 112358 on the lock screen and it opens"),
    (
        "en",
        "Fwd from Dave: 'hey, the cabin keybox is 3-0-0-9, key's on the left hook. cheers mate'",
    ),
    ("en", "DB_HOST=10.0.3.14\nDB_USER=app_rw\nDB_PASSWORD=h8Jq!v2Lr9sN\nDB_NAME=orders"),
    ("en", "mysql -u root -p'Gr@nite5ky' reporting_db   # works from the jump box only"),
    (
        "en",
        "The OpenWeather key I'm using for the kitchen dashboard is "
        "3f9a1c7e2b8d4f60a5e1c9b7d3f2a8e4, free tier",
    ),
    (
        "en",
        "Handover for night shift: server room door code changed to 8264, old one no "
        "longer works. Fire panel key is in the top drawer.",
    ),
    ("en", "Kids, the new front door code is 19 04 - do NOT give it to your friends"),
    (
        "en",
        "User: remind me of my Chase login later\nAssistant: Sure, what should I "
        "note?\nUser: username is pbrennan and the password's Otter$Falls61",
    ),
    (
        "en",
        "Cabin checklist:\n- wifi: LakeHouse / welcome2thedock\n- alarm: 2580 to disarm\n- "
        "trash goes out Thursday",
    ),
    ("en", "1Password master passphrase: correct-pigeon-sunlit-anvil-79"),
    ("en", "the storage unit padlock is one of those letter locks, word is SHARK"),
    ("en", "atm 8305"),
    ("en", "ipad 940216"),
    ("en", "PUK for Leo's SIM if he locks it again: 55093817"),
    ("en", "MetaMask unlock password - Fjord!Copper!Yak"),
    ("en", "Alexa voice purchasing code: 7140"),
    ("en", "Tesla PIN to Drive is 3927"),
    ("en", "Lab 3 keypad - 5150 then Enter. Badge reader is still broken."),
    ("en", "Apple ID secret answer for 'what street did you grow up on' is Linden Crescent"),
    ("en", "Verizon account PIN: 6612 - they ask for it every time I call support"),
    ("en", "Venmo uses the same password as the gym app (kettlebell#Rise3)"),
    ("en", "Printer admin page: user admin, password Printy-2209"),
    ("en", "Dropbox 2FA recovery code: 7HKQ-2MXP-9VRT-4LNA"),
    ("en", "Storage place gate: key in unit number 218 first, then 40771"),
    ("en", "Pet microchip registry login: rufus_owner / chewtoy!Mar23"),
    ("en", "Ford door keypad (SecuriCode) is 31642"),
    ("en", "Keybox at the Airbnb: turn the dials to 6-2-8-8, put the key back when we leave"),
    ("en", "Nan's debit card PIN is the last four of her old landline number - 8850"),
    ("en", "Kindle parental controls PIN 2306"),
    ("en", "Home Assistant: admin, pass is 'tangerine sprocket' (with the space)"),
    (
        "en",
        "Electrum seed, copied from the paper in the fire box: tonight abuse fragile dwarf "
        "giggle hollow pistol warm salute drift orange meadow",
    ),
    ("en", "The PIN for the joint savings card is six-two-nine-oh"),
    (
        "en",
        "BitLocker recovery key for the work laptop: "
        "402116-559023-117744-086915-330281-774202-615530-248817",
    ),
    (
        "en",
        "Remember for me: Hannah's phone passcode is 080317, she asked me to check her "
        "messages while she's in surgery",
    ),
    ("en", "SSH key passphrase for deploy@prod: blue whale under the pier"),
    ("en", "Office wifi is NorthWing-5G; the sticky note on the monitor says ChairLegSpinach7"),
    ("en", "voicemail: dial *86, then 27183 when it asks"),
    ("en", "MySchoolBucks for Theo: theo.r / Lunchbox!2016"),
    ("en", "cash box in the van - 9-1-4, spin left twice first"),
    ("en", "Zoom host key for the board meetings: 492716"),
    (
        "en",
        "Security Qs for the pension portal:\n1. Favourite teacher?\n2. City where your "
        "parents met?\n\nAnswers: Mr Okafor / Galway",
    ),
    ("en", "Allotment gate: the padlock is now 2-1-6-0, they changed it after the break-in"),
    ("en", "Concierge said the lobby buzzer code is 0718B"),
    ("en", "Kraken master key (needed to unlock the account settings): sundial-Rook-7720"),
    ("en", "Note from Jess: 'the alarm is our anniversary, 0614, in case you forget again'"),
    ("en", "Steam Guard backup code: R7K2P"),
    ("en", "Chromebook for Mia - she wanted it to be mia-loves-pandas"),
    ("en", "Sticker under the router: WPS PIN 49226714"),
    ("es", "Contraseña del wifi de casa: Gato_Azul_2291"),
    ("es", "Mamá, el PIN de la tarjeta nueva es 7305, bórralo cuando te lo aprendas"),
    ("es", "Código de la alarma del local: 4 8 6 1. Si salta, llamar a la central."),
    (
        "es",
        "—¿Cuál era la clave del portal del cole de Lucía?\n—Espera que la busco\n—Ya: "
        "PeraVerde!12, el usuario es su DNI",
    ),
    ("fr", "Digicode de l'immeuble de Claire : B4827, puis porte de gauche"),
    ("fr", "Mot de passe de la box :\nChevalBleu-77-lune"),
    ("fr", "Carte bleue Crédit Agricole → 3196"),
    ("fr", "Réponse à la question secrète (nom de mon premier animal) : Caramel"),
    (
        "de",
        "Anna hat gefragt, wie man ins Gäste-WLAN kommt. Hab ihr geschrieben: Sonnenblume!Kiel48",
    ),
    ("de", "Tresor im Büro: 27 links, 11 rechts, 03 links"),
    ("de", "Handy-PIN von Oma ist 5920, falls sie wieder anruft und nicht reinkommt"),
    ("de", "Garagentor-Code geändert: von 1357 auf 880417"),
    ("it", "Password dell'home banking: Limone#Salato55"),
    ("it", "Codice del cancello condominiale: 3309, poi premere la campana"),
    ("it", "Il PIN del bancomat di papà è sette due otto uno"),
    ("pt", "Senha do wifi do sítio: abacaxi2020praia"),
    ("pt", "PIN do cartão Nubank: 6628"),
    ("pt", "Cadeado do armário da academia: 0-4-7 (o preto, não o vermelho)"),
    ("nl", "Pincode van de fietskluis op het station: 2219"),
    ("nl", "DigiD van pa\ngebruikersnaam: jvdberg1951\nwachtwoord: Tulpenveld88?"),
    ("nl", "Alarmcode van het huis is 5137, daarna op UIT drukken"),
    ("sv", "Portkoden till lägenheten på Södermalm: 1492"),
    ("sv", "Säkerhetskod till BankID på nya mobilen: 839201"),
    ("no", "Koden til nøkkelboksen på hytta er 3-8-8-1"),
    ("no", "Passord til jobb-e-posten: Fjellvann!2023"),
    ("da", "Pinkode til MitID-appen: 502817"),
    ("da", "Koden til cykellåsen er 6 4 0 2"),
    ("fi", "Mökin wifi:\nverkko: Mokki_Ranta\nsalasana: PorokoiraLumi9"),
    ("fi", "Pankkikortin tunnusluku 8147"),
    ("pl", "Hasło do bankowości (PKO): Kot!Filemon1989"),
    ("pl", "Kod do domofonu u babci: 12, klucz, potem 4457"),
    ("pl", "PIN do karty SIM: 2764, PUK: 91038442"),
    ("cs", "Heslo na wifi na chalupě je HoubyVLese2022"),
    ("cs", "PIN ke kartě od Air Bank: čtyři čtyři osm dva"),
    ("hu", "A nyaraló wifi jelszava: PaprikasCsirke77"),
    ("hu", "Kapukód a Ráday utcában: 2651"),
    ("ro", "Parola de la contul de Netflix: Bucuresti_Soare19"),
    ("ro", "Codul PIN al cardului BT: 5571"),
    ("ru", "Пароль от госуслуг: Береза!Ока2021"),
    ("ru", "Код домофона у мамы — 1863#"),
    ("ru", "— Какой пин у карты Сбера?\n— 9207, только никому"),
    ("uk", "Пароль від Wi-Fi на дачі: Sonyashnyk_Poltava3"),
    ("uk", "ПІН від картки Монобанку — 3861"),
    ("tr", "Ev internetinin şifresi: LaleBahce!63"),
    ("tr", "Kasanın şifresi 19-42-08, babam söyledi, kimseye söyleme"),
    ("ar", "كلمة سر الواي فاي: Nakhla@2025"),
    ("ar", "الرقم السري لبطاقة الصراف: ٤٧٢٩"),
    ("ar", "رمز البوابة الخلفية للعمارة هو ٣٨١٥ ثم #"),
    ("he", "הסיסמה לאינטרנט בבית: Zayit-Yarok-81"),
    ("he", "קוד לאזעקה: 6047, ואז כפתור ביטול"),
    ("fa", "رمز دوم کارت بانک ملت: ۵۸۱۹۲۳"),
    ("fa", "رمز وای\u200cفای خونه رو عوض کردم، جدیدش: Anar!Shiraz77"),
    ("hi", "घर के वाई-फाई का पासवर्ड: Aam_Ka_Ped_92"),
    ("hi", "ATM पिन: ७३०४"),
    ("hi", "माँ के फ़ोन का लॉक कोड 8 5 2 1 है, पैटर्न नहीं"),
    ("bn", "ব্যাংকের কার্ডের পিন: ৬৩৯১"),
    ("bn", "বাড়ির ওয়াইফাই পাসওয়ার্ড: Ilish@Padma55"),
    ("ta", "வைஃபை கடவுச்சொல்: Malligai#2019"),
    ("ta", "அப்பாவின் ஏடிஎம் பின் எண் 4826, யாரிடமும் சொல்லாதே"),
    ("th", "รหัสผ่านไวไฟบ้าน: MaMuang_Sukh88"),
    ("th", "รหัส ATM ของแม่ ๕๐๒๗"),
    ("vi", "Mật khẩu wifi nhà: CaPhe_SuaDa99"),
    ("vi", "Mã PIN thẻ ATM Vietcombank: 1658"),
    ("id", "Password wifi kos: SambalIjo!4410"),
    ("id", "PIN m-banking BCA: 290574"),
    ("ms", "Kata laluan wifi rumah: DurianMusang88"),
    ("ms", "Nombor PIN kad ATM Maybank ialah 8315"),
    ("tl", "Password ng wifi sa bahay: Sampaguita_Lola58"),
    ("tl", "PIN ng GCash ko: 4907, wag mong ipagsabi ha"),
    ("sw", "Nenosiri la wifi ya nyumbani: Simba!Kilimanjaro7"),
    ("sw", "PIN ya M-Pesa ni 6102"),
    ("zh", "家里WiFi密码：Panda_Bamboo_618"),
    ("zh", "银行卡密码 473920，别告诉别人"),
    ("zh", "保险柜：七五二九"),
    ("ja", "Wi-Fiのパスワード：SakuraFubuki_72"),
    ("ja", "キャッシュカードの暗証番号は 3806"),
    ("ja", "秘密の質問「初めて飼ったペットの名前」→ ポチ"),
    ("ko", "나: 공유기 관리자 비번 뭐였지?\n엄마: Kimchi_Jjigae27 이거야"),
    ("ko", "현관 도어락 비번 728104*"),
    ("el", "Κωδικός wifi σπιτιού: Elia_Kalamata44"),
    ("el", "PIN κάρτας Eurobank: 9173"),
]

DEV_BENIGN: Rows = [
    ("en", "Plumber's number is 0161 496 0732, call after 9am"),
    ("en", "Flat 4C, gate 2 - the buzzer is broken, knock instead"),
    (
        "en",
        "Reminder: change the wifi password before the party guests come (it's still the "
        "default one)",
    ),
    ("en", "The alarm code is on the fridge, under the pizza magnet"),
    (
        "en",
        "Password policy at work: min 14 chars, no reuse of the last 12, rotates every 90 days",
    ),
    ("en", "Order #4471-2290-1183 - combination padlocks, pack of 3, £12.99"),
    ("en", "Router login page is 192.168.1.1, the camera UI is on port 8080"),
    ("en", "Wifi network name: Hartley_Home_5G (password is in the password manager)"),
    ("en", "Tracking number for the new safe: 1Z999AA10123456784"),
    ("en", "Locker room B, locker 212, swim Tuesday and Thursday at 6:30"),
    ("en", "PIN tips for the kids: avoid birthdays, 1234, 0000 and repeating digits"),
    (
        "en",
        "The gate code is 4 digits and the keypad locks for 10 minutes after 3 wrong attempts",
    ),
    ("en", "Login worked! Signed into the school portal on the new laptop at 19:42."),
    ("en", "Promo code SPRING25 gives 25% off the smart lock until Sunday"),
    ("en", "Error code E-1042 on the garage door opener - manual says reset the limit switch"),
    ("en", "DB_HOST=localhost\nDB_USER=app_ro\nDB_PASSWORD=<set in vault>\nDB_PORT=5432"),
    ("en", "password: ******** (masked in the screenshot, ask Priya if needed)"),
    ("en", "Flight BA 2490 departs 07:15, gate 31, seat 14C"),
    ("en", "Invoice INV-2024-0388 for the alarm installation: €640, due in 30 days"),
    ("en", "Postcode for the storage unit: SW11 6QT, unit 118, open 7am-10pm"),
    ("en", "Kindle updated to firmware 5.16.2, all fine"),
    ("en", "Door lock batteries: 4x AA, replaced 12 March, next check September"),
    ("en", "The safe is 35 x 25 x 25 cm and weighs 14 kg - needs two people to carry"),
    ("en", "IBAN for rent: GB29 NWBK 6016 1331 9268 19, reference FLAT7-JUNE"),
    (
        "en",
        "User: what's the wifi password?\nAssistant: I don't have it stored - it's printed "
        "on the back of the router.\nUser: ok found it, thanks",
    ),
    ("en", "My username on the birding forum is quietfox_1987"),
    (
        "en",
        "Ticket #88231: user locked out of VPN after 5 failed attempts, IT reset it, resolved",
    ),
    (
        "en",
        "Change my bank PIN next time I'm at a branch - the current one is too easy to guess",
    ),
    ("en", "Building gate opens 6:00-22:00; after that use the intercom for flat 12"),
    ("en", "Apartment 7, 3rd floor - we'll need the door code, ask Maria when we land"),
    ("en", "Combination padlock was $8.49 at the hardware store; the 3-digit one was $5"),
    ("en", "Password manager v2.4.1 fixed the sync bug on the phone"),
    (
        "en",
        "Host prod\n  HostName 203.0.113.40\n  Port 2222\n  User deploy\n  IdentityFile "
        "~/.ssh/id_ed25519",
    ),
    (
        "en",
        "Security questions on the pension site: picked 'first car' and 'favourite "
        "teacher' - answers are in the vault, not here",
    ),
    (
        "en",
        "Forwarded from IT: 'We will never ask for your password by email. Report phishing "
        "to security@corp.example.'",
    ),
    ("en", "The PIN letter from the bank arrived; memorised it and shredded the letter"),
    (
        "en",
        "Car radio serial from the sticker: VWZ1Z2K4138825 - the dealer needs this to look "
        "up the code",
    ),
    ("en", "Wifi speed test: 312 Mbps down, 41 up, ping 9 ms"),
    ("en", "School portal rules: password 8-64 characters, at least one number and one symbol"),
    ("en", "Expense tool login: use company SSO, there's no separate password"),
    ("en", "Turned on 2FA for GitHub; backup codes printed and filed in the cabinet"),
    ("en", "The keypad on the shed lock takes up to 6 digits"),
    (
        "en",
        "| item | qty | price |\n|---|---|---|\n| smart lock | 1 | 189.00 |\n| spare keys "
        "| 3 | 4.50 |",
    ),
    ("en", "Locksmith came at 14:30, invoice 5521, new cylinder fitted on the back door"),
    ("en", "Bank texts come from shortcode 32665, that's legit, don't block it"),
    (
        "en",
        "Dad's birthday is 14/07/1958 - told him not to use it for anything security related",
    ),
    ("en", "Gym opens 5:30am on weekdays from 1 June"),
    (
        "en",
        "Netflix: Standard plan, £10.99/month, the Kids profile has a profile lock turned on",
    ),
    ("en", "Cabin booking reference: KX7P2Q, check-in after 4pm"),
    ("en", "The API key goes in .env as OPENWEATHER_API_KEY=... - never commit that file"),
    ("en", "Parcel is waiting in locker 0412 at the station, pickup window until Friday"),
    ("en", "Verified: Mum can log in to her banking app on her own now. No more help needed."),
    ("en", "Work VPN: server vpn.example.org, port 1194/UDP, use the new client version 3.1"),
    ("en", "Max's new mobile number: +44 7700 900418"),
    ("en", "Room 1408, checkout at 11, breakfast 7-10, ground floor"),
    ("es", "Teléfono del cerrajero: 612 345 908, cobra 60 € por la salida"),
    ("es", "Recordatorio: cambiar la contraseña del correo este finde (no la apuntes aquí)"),
    ("es", "Portal 3, 2º B, código postal 28014 — el telefonillo no funciona"),
    ("fr", "Le code est sur le frigo, à côté de la liste de courses"),
    ("fr", "Vol AF 1148 à 10h25, porte K42"),
    (
        "fr",
        "Règle de l'entreprise : mot de passe de 12 caractères minimum, à changer tous les 6 mois",
    ),
    ("de", "Neues Fahrradschloss bestellt, Bestellnummer 302-7781-4410, 34,90 €"),
    ("de", "Passwort: <bitte im Passwortmanager nachsehen>"),
    ("de", "Zimmer 214, WLAN-Name: Hotel_Adler_Gast, Frühstück bis 10 Uhr"),
    ("it", "Il codice del lucchetto è di 5 cifre; dopo 3 tentativi sbagliati si blocca"),
    ("it", "Citofono: interno 18, scala B, terzo piano"),
    ("pt", "Acesso confirmado: a mãe conseguiu entrar no app do banco sozinha hoje"),
    ("pt", "Cupom FRETEGRATIS10 vale até domingo para a fechadura digital"),
    ("nl", "Factuurnummer 2024-0917 voor het nieuwe alarmsysteem, €1.249 incl. btw"),
    ("nl", "Postcode 3512 JC, huisnummer 44 — de bel doet het niet, even bellen"),
    ("sv", "Byt lösenord på jobbet innan den 15:e – systemet påminner varje vecka"),
    ("no", "Flyet SK 4031 går 06:50 fra Gardermoen, gate D7"),
    ("da", "Hængelåsen med kode kostede 129 kr i Bauhaus"),
    ("fi", "Isä: pankki ei koskaan kysy tunnuslukua puhelimessa, muista tämä"),
    ("pl", "Numer przesyłki: 6200 4417 8823 1190, paczkomat przy Biedronce"),
    ("pl", "Kod pocztowy 00-950, mieszkanie 12, piętro 4"),
    ("cs", "Verze aplikace 3.2.7 opravila chybu s přihlášením"),
    ("hu", "E04-es hibakód a mosógépen – a szerelő szerint a szivattyú"),
    ("ro", "IT-ul a zis că parola trebuie să aibă minim 10 caractere și o cifră"),
    ("ru", "Телефон управляющей компании: 8 (495) 123-45-67"),
    ("ru", "Пароль от вайфая написан на наклейке под роутером"),
    ("ru", "Заказ №5518204: сейф привезут в четверг с 10 до 14"),
    ("uk", "Квартира 56, під'їзд 3, поверх 7, код на дверях не працює"),
    ("tr", "Kargo takip no: 7240 1189 3356"),
    ("tr", "Giriş başarılı, yeni telefonda e-Devlet açıldı"),
    ("ar", "رقم الشقة ١٢ في الدور الرابع، البواب اسمه عم سيد"),
    ("ar", "تذكير: غيّر كلمة المرور كل ٣ أشهر حسب سياسة الشركة"),
    ("he", "מספר הזמנה 44812 – מנעול חכם, יגיע ביום שלישי"),
    ("fa", "شماره تماس قفل\u200cساز: ۰۹۱۲ ۳۴۵ ۶۷۸۹"),
    ("hi", "कोड फ्रिज पर चिपके कागज़ पर लिखा है"),
    ("hi", "फ्लैट नंबर ४०२, पिन कोड ११००१६"),
    ("bn", "পাসওয়ার্ড কখনো কাউকে বলবে না, ব্যাংক কখনো ফোনে জিজ্ঞেস করে না"),
    ("ta", "பின்கோடு 600028, வீட்டு எண் 14"),
    ("th", "เที่ยวบิน TG 628 ออก ๐๘:๓๐ ประตู ๕"),
    ("th", "ตั้งรหัสผ่านใหม่แล้ว เข้าระบบได้ปกติ"),
    ("vi", "Mã giảm giá GIAM50K áp dụng đến 30/6"),
    ("vi", "Mã bưu chính 700000, phòng 305, tầng 3"),
    ("id", "Nomor resi JNE: JP1234567890"),
    ("id", "Kata petugas bank: jangan pakai tanggal lahir sebagai PIN"),
    ("ms", "Poskod 50450, unit 12-3A, tingkat 12"),
    ("tl", "Palitan ang password ng wifi bukas, masyado nang maraming nakakaalam"),
    ("sw", "Namba ya simu ya fundi wa kufuli: 0712 345 678"),
    ("zh", "密码要求：至少8位，包含大小写字母和数字"),
    ("zh", "快递单号 SF1402736618，周五到"),
    ("ja", "パスワードは冷蔵庫に貼ってある紙を見て"),
    ("ja", "部屋番号 803、郵便番号 150-0041"),
    ("ja", "ログイン成功。新しいPCで社内ポータルに入れた"),
    ("ko", "택배 운송장 번호 6078-1123-4459"),
    ("ko", "비밀번호는 3개월마다 변경하세요 (회사 정책)"),
    ("el", "Αριθμός πτήσης A3 602, αναχώρηση 14:05"),
]

# The second part, written apart: never read.
HELD_SECRETS: Rows = [
    ("en", "Home wifi — network Casa_Lopez_5G, password tangerine-ladder-42"),
    ("en", "router admin page 192.168.1.1, login admin / Rt!9vKq2#wX"),
    ("en", "Mum asked me to remember her phone unlock: 180364"),
    ("en", "SIM PIN 4471, PUK 83920175 — the plastic card is in the kitchen drawer"),
    ("en", "Visa ending 2209 -> pin 6613"),
    ("en", "Shop alarm: 2-9-0-7, then press OFF. You have 30 seconds after opening the door."),
    ("en", "Cabin front door keypad: 51938 then the # key. Spare key in the bird box."),
    ("en", "Gate code for Willow Court is *7742"),
    ("en", "Changed the garage keypad from 0815 to 6240 on Saturday — tell the cleaner"),
    ("en", "gym locker combo 24-08-36"),
    ("en", "shed padlock: 7 3 0 9"),
    ("en", "Blue bike lock (the heavy one) opens with 5172"),
    (
        "en",
        "Corolla radio asks for a code after a battery change — it's 4826 (the card in the "
        "glovebox is faded)",
    ),
    ("en", "Dan's MacBook login: sunfl0wer!Road"),
    ("en", "Work VPN\nuser: jmarsh\npass: Qz7$wLp2eN"),
    ("en", "gmail pw changed from Bluebird77 to Redfinch#88"),
    ("en", "Netflix → lena.k@mail.com / popcornNight2023"),
    ("en", "Maya's school portal: username mpatel09, password giraffeMP14"),
    ("en", "Parental controls passcode on the Switch: 8207. Don't let Leo see this."),
    ("en", "Voicemail PIN is nine four four one two"),
    (
        "en",
        "Aunt Rose's building: press 27 on the intercom panel, then 1966 and the bell symbol",
    ),
    (
        "en",
        "Ledger seed (24 words, in order): orbit fragile canoe humble velvet sketch magnet "
        "tunnel lobster prize auction dwarf ripple soda inherit canyon wagon tiny sponsor "
        "clerk fossil brave ladder mutual",
    ),
    ("en", "GitHub 2FA backup codes:\n4f8k2-m9q7a\n7tr3x-x81pd\nb2c60-pq4ze\nhh91k-3wm0s"),
    (
        "en",
        "Bank security questions — mother's maiden name: Kowalczyk; first pet: Biscuit; "
        "street I grew up on: Alder Lane",
    ),
    (
        "en",
        "User: can you remember the answer to my bank's security question? The question is "
        "'name of your first school'.\nAssistant: Sure, what's the answer?\nUser: "
        "pinewoodelementary, all lowercase, no spaces",
    ),
    (
        "en",
        "| account | login | pass |\n|---|---|---|\n| Hulu | kids@fam.net | TacoTuesday5 "
        "|\n| Spotify | sam.rivera | m00nwalk3r |",
    ),
    ("en", "Guest Wi-Fi password:\nCoffeeAndCroissants"),
    ("en", "Storage unit 114 — the keypad takes three-eight-eight-five-one"),
    (
        "en",
        "Studio back door: punch in 40417, wait for the green light, then push hard, it sticks.",
    ),
    (
        "en",
        "Nana's tablet unlock pattern: start top-left, straight down to bottom-left, then "
        "across to bottom-right (an L)",
    ),
    ("en", "inventory app .env\nDB_USER=inventory_app\nDB_PASSWORD=h7Tr_pL0x9vZ"),
    ("en", "to get into prod quickly: mysql -u root -p'Kx92!mbT' orders_prod"),
    (
        "en",
        "The OpenWeather API key Ben shared is 3f9a2c71e0b84d56a1c7e2f90b3d4a68 — use it "
        "for the garden dashboard",
    ),
    (
        "en",
        "Fwd from Dad: \"new combination for the boat cabin lock is 1-1-4-7, don't tell "
        'your brother"',
    ),
    (
        "en",
        "Handover, night shift: server room door 77310#. Pharmacy key is in lockbox 3, "
        "lockbox code 5827.",
    ),
    ("en", "Kids — wifi changed! New one is PurpleDinosaur!19. Love, Mum xx"),
    (
        "en",
        "MetaMask recovery phrase: lunar cabin theft oyster pencil grape mercy hollow "
        "badge tide summit rely",
    ),
    ("en", "Revolut app passcode 905172"),
    ("en", "Disney+: same email as always, pw ElsaAnna*2"),
    ("en", "office safe: R 34 – L 12 – R 57, turn past zero twice first"),
    ("en", "If Tom locks his SIM again, the PUK is 5503 8812"),
    ("en", 'esphome:\nwifi:\n  ssid: "Attic_IoT"\n  password: "m1ntyF0rest_22"'),
    (
        "en",
        'curl -H "Authorization: Bearer ghp_R7tK2mQx9LzV4bN8wY1cJ5hF0dS3aP6eU2gT" '
        "https://api.github.com/user",
    ),
    ("en", "bank: Chase | online id: rgomez81 | password: Cactus&Coyote4"),
    (
        "en",
        "Debit card PIN for the joint account is the year grandpa was born, backwards: 8391",
    ),
    (
        "en",
        "Assistant: What's the PIN you want me to keep for the new debit card?\nUser: "
        "7730\nAssistant: Got it, saved.",
    ),
    ("en", "Microsoft account recovery code: 8H2KP-9Q4MX-7T2LW-RC5NB-V6J3D"),
    ("en", "PGP key passphrase — granite owl sips lukewarm cocoa"),
    ("en", "Dropbox password is literally just marmalade. yes I know."),
    ("en", "Airbnb check-in: lockbox on the railing by the blue door, 6-0-2-9"),
    ("en", "Alarm panel at Mike's: type 7188 then AWAY to arm, 7188 then OFF to disarm"),
    (
        "en",
        "BitLocker recovery key (Dell "
        "XPS):\n412907-338512-660219-104873-557301-291846-703322-118657",
    ),
    ("en", "Buzzer at Jess's flat: 0493"),
    ("en", "Grandpa's Yahoo — grandpa.ted@yahoo.com, pw Fishing4Trout!"),
    ("en", "Key from the router sticker: 7FQ2-KX9M-P3RD-W8TN"),
    ("en", "PowerSchool parent login:\nhnguyen_parent\nLotus#2210"),
    ("en", "tell Sam the Xbox family passkey is 3317"),
    ("en", "Garage: hold the light button, type 2 5 8 0, let go — door goes up"),
    (
        "en",
        "Security Qs for the pension site\nQ: city where your parents met? A: Lisbon\nQ: "
        "favourite teacher? A: Mrs Okafor",
    ),
    ("en", "Office guest wifi rotates monthly. This month's: Harbor-Seal-March"),
    ("en", "ssh key passphrase (id_ed25519 on the work laptop): weatherbeaten lighthouse 9"),
    (
        "en",
        "Stripe secret key for the shop: sk_live_9Qm2Tz7RbLx04KpVw3NeYd8H — don't commit it",
    ),
    (
        "en",
        "Note to self: Ring doorbell account is me@harperhome.net, password is the dog's "
        "name + 2 + ! so Waffles2!",
    ),
    ("es", "Clave del wifi de casa: Girasol_Azul_77 (la red es MOVISTAR_3F2A)"),
    (
        "es",
        "Mamá: el PIN de la tarjeta nueva del Santander es 4 0 9 2. Borra este mensaje "
        "cuando lo apuntes 😘",
    ),
    ("fr", "Digicode de l'immeuble de Claire : B2741, puis 2e étage gauche"),
    ("fr", "Mot de passe Ameli :\nChouette!Bleue58"),
    ("de", "Tresor im Büro – Kombination: links 18, rechts 42, links 7"),
    (
        "de",
        "| Dienst | Benutzer | Passwort |\n|---|---|---|\n| GMX | h.becker | Zugspitze!61 "
        "|\n| Sky | becker.fam | Fernseh4bend |",
    ),
    ("it", "Allarme casa nonna: 3 5 8 1, poi tasto OFF — hai 20 secondi"),
    ("it", "Home banking Intesa — codice titolare 81726354, PIN 90317"),
    ("pt", "Senha do portão da garagem: 7714#"),
    (
        "pt",
        "Pergunta de segurança do banco: nome do primeiro animal de estimação.\nResposta: Pipoca",
    ),
    ("nl", "Wachtwoord van Daans schoolportaal: Fietsbel!88"),
    ("nl", "Cijferslot fiets: 6-2-9-4"),
    ("sv", "Portkoden till lägenheten på Södermalm är 1847"),
    ("sv", "Netflix-lösenordet ändrat från Kanelbulle1 till Älgkalv#Mörk3"),
    ("no", "Hytta: nøkkelboksen ved døra, 3 9 0 6"),
    ("no", "BankID-passord: Fjellvann!72"),
    ("da", "Pinkoden til det nye Dankort: 6128. Husk at makulere brevet."),
    ("da", "Sommerhuset\nnetværk: Klitten\nkode: RævOgHare44"),
    ("fi", "Mökin ovikoodi on 2773"),
    ("fi", "Työläppärin salasana: Revontuli_19kesä"),
    ("pl", "Hasło do wifi u babci: KotekMruczek2019"),
    ("pl", "PIN do karty: trzy osiem pięć zero"),
    ("cs", "Router – přihlášení admin / Knedlik#2020"),
    ("cs", "Záložní kódy pro účet Google:\n8841 2290\n1736 5502\n9048 1275"),
    ("hu", "A társasház kapukódja: 1 6 4 8 #"),
    ("hu", "Netbank jelszó: Pogácsa!Túró5"),
    ("ro", "Parola de la wifi-ul de la birou: Carpati!Munte9"),
    ("ro", "Codul PIN al cardului BT este 2591"),
    ("ru", "Пароль от вайфая на даче: ogurec_na_grjadke7"),
    ("ru", "Домофон у Светы: квартира 32, потом 5791"),
    (
        "ru",
        "Фраза восстановления для Trust Wallet (12 слов): arctic bundle crisp dolphin "
        "exile fancy glove hurdle iron jelly kiosk lemon",
    ),
    ("uk", "Пін-код від картки ПриватБанку: 7046"),
    ("uk", "Пароль від пошти: visnya_sadok#3"),
    ("tr", "Apartman kapısının şifresi 1907'den 2853'e değişti"),
    ("tr", "Annemin telefonunu açmak için: 061195"),
    ("ar", "كلمة مرور الواي فاي: Sahara_Rose91"),
    ("ar", "الرقم السري لبطاقة الصراف: ٧٣٠٨"),
    ("he", "הקוד לכספת בחדר במלון: 5 0 3 8"),
    ("he", 'הודעה מאבא: "הסיסמה החדשה לאתר הבנק היא Zayit!Yarok44"'),
    ("fa", "رمز کارت بانک ملت: ۸۲۴۷"),
    ("fa", "رمز وای\u200cفای خونه\u200cی مامان: anar_shirin1400"),
    ("hi", "ऑफिस के लॉकर का कोड: ४७२९"),
    ("hi", "नेटफ्लिक्स का पासवर्ड: chai_samosa#12, ईमेल वही पुराना वाला"),
    ("bn", "বিকাশ পিন: ৫৯১৩৭"),
    ("bn", "ল্যাপটপের পাসওয়ার্ড: Padma_Nodi#7"),
    ("ta", "வங்கி பாதுகாப்பு கேள்வி: முதல் பள்ளியின் பெயர்?\nபதில்: ஸ்ரீ வித்யா மந்திர்"),
    ("ta", "வீட்டு வைஃபை கடவுச்சொல்: Malligai@2021"),
    ("th", "รหัสผ่านไวไฟที่ร้าน: mamuang_sukk99"),
    ("th", "รหัส ATM ของแม่: ๔๑๗๕"),
    ("vi", "Mật khẩu wifi nhà: hoasen_tim93"),
    ("vi", "Mã PIN thẻ Vietcombank: 815026"),
    ("id", "Kalau mau transfer pakai m-BCA, masukkan 729461"),
    ("id", "Password wifi kos: NasiGoreng!55"),
    ("ms", "Kata laluan Maybank2u: Durian#Musang8"),
    ("ms", "Sampai rumah, tekan 3 8 1 7 kat pintu pagar, lepas tu masuk"),
    ("tl", "Password ng wifi sa bahay ni Lola: sampaguita1965"),
    ("tl", "PIN ng ATM ko sa BDO: 0624, wag mong ipagsabi"),
    ("sw", "PIN ya M-Pesa ni 4819, usimwambie mtu."),
    ("sw", "Nenosiri la wifi ofisini: Kilimanjaro_Juu7"),
    ("zh", "家里WiFi密码：xiaomao_jia88"),
    ("zh", "爸爸的银行卡密码：三八九零二一（六位）"),
    (
        "ja",
        "ユーザー：自転車の鍵の番号、覚えておいて。\nアシスタント：はい、何番ですか？\nユーザー：4619",
    ),
    ("ja", "会社のVPNパスワード：Sakura#Kaze2025"),
    ("ko", "도어락 번호 바꿨어! 0415 → 7305 이제 이걸로 눌러"),
    ("ko", "공동인증서 비밀번호: hangang!bridge33"),
    ("el", "Κωδικός για το wifi στο εξοχικό: Thalassa_Ble8"),
    ("el", "Μαμά, το PIN της νέας κάρτας είναι 5247, μην το πεις σε κανέναν"),
]

HELD_BENIGN: Rows = [
    ("en", "Remember to change the wifi password before the Airbnb guests arrive on the 14th."),
    ("en", "Router: TP-Link Archer C7 v5, firmware 3.14.2, admin page at 192.168.0.1"),
    (
        "en",
        "Bank called — card ending 4417 got blocked after 3 wrong PIN attempts. New card "
        "in 5–7 working days.",
    ),
    ("en", "Flight BA2491 from gate 23B, boarding 07:15, departs 07:45"),
    ("en", "The code for the gym door is on the fridge, under the pizza magnet."),
    (
        "en",
        "Work password policy: min 14 characters, can't reuse the last 10, expires every 90 days.",
    ),
    ("en", "Promo code SPRING25 = 25% off at the garden centre until 30 April"),
    ("en", "Left luggage locker 118 at the station, paid until 6pm (€4)"),
    ("en", "Wi-Fi network is Pixel_7731 — ask Jordan for the password, I don't have it"),
    ("en", "VPN login fails with error 809 — opened IT ticket INC0049213"),
    (
        "en",
        "config.yaml\n  db_host: 10.0.4.12\n  db_port: 5432\n  db_password: "
        "${DB_PASSWORD}   # injected from vault",
    ),
    (
        "en",
        "Advice for Mum: don't use your birthday or 1234 as a PIN. Pick something random "
        "and never write it on the card.",
    ),
    (
        "en",
        "New alarm panel takes a 6-digit code (old one was 4). Installer comes Tuesday at 9.",
    ),
    (
        "en",
        "Logged into the school portal fine after the reset — Maya's homework is all there.",
    ),
    ("en", "Safe: SentrySafe SFW123GDC, 1.23 cu ft, $189.99 at Costco"),
    (
        "en",
        "Council recycling site username: r.ahmed_1982 — password is in the password "
        "manager, not here",
    ),
    ("en", "Padlock: 40mm brass, 4 dials, 10,000 possible combinations"),
    ("en", "Flat 5C — buzz 5C and someone will let you in. My number is 555-0143 if not."),
    ("en", "UPS tracking 1Z 999 AA1 01 2345 6784 — the new smart lock arrives Thursday"),
    ("en", "Invoice #20931 for the alarm install, £420, due 12/06"),
    ("en", "SSH on the NAS listens on port 2222, not 22"),
    ("en", "NAS admin password: ******** (see 1Password → 'Home NAS')"),
    ("en", "Onboarding doc template:\nlogin: <username>\npassword: <password>"),
    ("en", "New flat postcode SW9 8DJ, key handover 10:30 Friday"),
    ("en", "Jenny's café wifi 'BeanThere_Guest' is open, no password needed"),
    ("en", "2FA is on for the bank now — codes go by SMS to the number ending 882"),
    ("en", "Meeting room 4B doesn't have a keypad anymore, it's badge only"),
    ("en", "Order 448-1190273-5521: replacement SIM — PUK will be printed on the card holder"),
    ("en", "Password expires in 7 days. Change it in the portal, never via an email link."),
    ("en", "Kids' school lockers need combination locks with 3 numbers from 0–39"),
    ("en", "Please remember: Tom's mobile is +44 7700 900123"),
    (
        "en",
        "Dad's safe is behind the painting in the study. Combination? He never told anyone.",
    ),
    (
        "en",
        "Security questions set up on the pension site (first street, favourite book). The "
        "answers are in the sealed envelope at the solicitor's.",
    ),
    ("en", "Rotated service account passwords at 02:00 UTC: 37 updated, 0 failures"),
    (
        "en",
        "The keypad at the school gate beeps 3 times if the code is wrong and locks for 5 minutes",
    ),
    ("en", "Seed phrase is stamped on a steel plate in safe deposit box 0412 at the bank"),
    ("en", "Ordered 12 padlocks, 4 bike locks and 2 keyless door locks for the hostel"),
    ("en", "HTTP 401 on /api/v2/login — token expired after 3600 s, refresh it"),
    (
        "en",
        "User: did the new banking app password work?\nAssistant: Yes — you logged in at "
        "14:32 and the balance loaded.",
    ),
    ("en", "Door code length: the Yale keypad accepts 4 to 10 digits."),
    (
        "en",
        "Python 3.11.4, keyring 24.2.0 — credentials come from the OS keychain, nothing in "
        "the repo",
    ),
    ("en", "Gate opens automatically 7am–7pm; after that, call the concierge on ext. 204"),
    ("es", "Acordarme de cambiar la contraseña del correo este finde (no la apunto aquí)."),
    ("es", "Vuelo IB3166, puerta 12, embarque 09:10"),
    (
        "es",
        "| Producto | Precio |\n|---|---|\n| Candado 50 mm | 12,90 € |\n| Cerradura "
        "inteligente | 89,00 € |",
    ),
    ("fr", "Le code est sur le frigo, à côté de la liste de courses."),
    ("fr", "Commande n° 40029871 — serrure connectée livrée mardi entre 8h et 13h"),
    (
        "de",
        "Passwortrichtlinie: mindestens 12 Zeichen, alle 90 Tage ändern, keine Wiederverwendung.",
    ),
    ("de", "Neue Wohnung: PLZ 80331, 4. OG links, Schlüsselübergabe 10:30"),
    ("it", "Il WiFi si chiama Vodafone-A8F3, la password ce l'ha Marco."),
    (
        "it",
        "Promemoria: il PIN del bancomat nuovo arriva per posta separata, tra 10 giorni circa.",
    ),
    ("pt", "Cupom BLACK10 vale 10% até sexta-feira"),
    ("pt", "Login no portal da escola funcionou depois de redefinir a senha. Tudo certo."),
    ("nl", "Fietsslot besteld: AXA Fusion 90 cm, €34,95, levering 3-5 werkdagen"),
    ("sv", "Ring Lisa på 070-123 45 67 om portkoden inte funkar"),
    ("no", "Ordrenummer 7731-204: ny kodelås til garasjen, montering uke 12"),
    ("da", "Husk: skift adgangskoden til netbank inden 1. marts"),
    ("fi", "Virhekoodi 0x0003 kirjautuessa — tukipyyntö #55812"),
    ("pl", "Bank radzi: nie używaj daty urodzenia jako PIN-u i nie zapisuj go na karcie."),
    ("cs", "Heslo musí mít alespoň 8 znaků, jedno velké písmeno a číslici."),
    ("hu", "Sikeres bejelentkezés, a 2FA kód SMS-ben jött meg."),
    ("ro", "Trenul IR 1581 pleacă de la linia 3 la 14:20"),
    ("ru", "Логин: ivanov_a\nПароль: ******** (в менеджере паролей)"),
    ("ru", "Код ошибки 0x80070005 при входе в систему, заявка №77120"),
    ("uk", "Нагадування: змінити пароль від пошти — старий злили у витоку."),
    ("tr", "İndirim kodu YAZ2024 ile %20 indirim"),
    ("tr", "Kapı şifresi buzdolabının üstündeki notta yazıyor."),
    ("ar", "رقم الطلب ٤٥٨٢١٣ — القفل الذكي يصل يوم الخميس"),
    ("ar", "تذكير: لا تشارك رمز التحقق مع أحد، البنك لا يطلبه أبدًا."),
    ("he", "דירה 12, קומה 3 — לצלצל באינטרקום, אין קוד"),
    ("fa", "کد پستی خونه\u200cی جدید: ۱۴۳۵۶۷۸۹۱۲"),
    ("fa", "رمز عبور باید حداقل ۸ کاراکتر باشد."),
    ("hi", "बैंक की सलाह: अपना पिन या ओटीपी किसी को न बताएं।"),
    ("hi", "ट्रेन १२९५१, कोच B3, सीट ४२ — प्लेटफॉर्म ५"),
    ("bn", "ফ্লাইট BG147 সকাল ৮:১৫-এ, গেট ৫"),
    ("ta", "கடவுச்சொல் குறைந்தது 8 எழுத்துகள் இருக்க வேண்டும்"),
    ("th", "เลขพัสดุ TH0123456789X อยู่ที่ตู้ล็อกเกอร์หมายเลข ๑๒"),
    ("th", "เปลี่ยนรหัสผ่านอีเมลแล้ว เข้าระบบได้ปกติ"),
    ("vi", "Tên wifi là Tenda_5G_P3, mật khẩu thì hỏi anh Nam."),
    ("id", "Kode promo GRATISONGKIR berlaku sampai 31 Mei"),
    ("ms", "Nombor telefon pengawal keselamatan: 012-345 6789"),
    ("tl", "Naka-login na ako sa portal, gumana na."),
    ("sw", "Namba ya oda 88213 — kufuli mpya ya mlango itafika Jumanne"),
    ("zh", "密码要求：至少8位，包含字母和数字。"),
    ("zh", "快递单号 SF1402239876，放在3号柜"),
    ("ja", "パスワードは冷蔵庫のメモに書いてある（ここには書かない）"),
    ("ko", "비밀번호 5회 틀리면 계정이 잠김. 고객센터 1599-8000"),
    ("ko", "택배 보관함 7번, 도착 알림 받음"),
    ("el", "Ο κωδικός για το γκαράζ είναι στο συρτάρι της κουζίνας."),
    ("el", "Πτήση A3 602, πύλη 14, 18:35"),
]


def main() -> None:
    write_in_two_parts(
        "secret_prose_dev10",
        {
            "secret": (DEV_SECRETS, HELD_SECRETS),
            "benign": (DEV_BENIGN, HELD_BENIGN),
        },
        ids="dev10",
    )


if __name__ == "__main__":
    main()
