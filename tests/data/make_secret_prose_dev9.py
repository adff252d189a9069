"""Write tests/data/secret_prose_dev9.jsonl: secrets in prose, and notes that only look like one.

Usage, from the repository root::

    python3 tests/data/make_secret_prose_dev9.py

Every text was written for memoryd (see secret_prose_dev9.LICENSE); the
passwords, PINs, codes, phrases and answers in it are made up. Unlike the
earlier sets, its two parts were written apart, each by a writer who had
read neither the rules nor any other set, from one brief: realistic notes a
person or an agent would keep, in about thirty languages, in every shape a
credential is written down (name before or after the value, the value
first, in brackets, chat transcripts, lists and tables, key-value lines,
config and shell lines, forwarded messages, notes to self, values spelt
out or in native digits, changes from one value to another, answers to
security questions, codes shared with family, a lock named only by what
it opens), and benign look-alikes in the same spread. Two categories:

- ``secret``: a credential is given. Storing it must be refused.
- ``benign``: a note that looks like one and gives no credential. It may
  be flagged for review, never refused.

The split is fixed by the writer, not by a hash: the first part (150
secrets, 80 benign notes) is ``dev`` and was read, its misses included,
while the rules were tuned; the second part (120 secrets, 60 benign
notes), written after, is ``held_out`` and was never read: only the
figures ``bench/scan.py --corpus`` prints for it were. A row's language is
tagged from its script and its commonest words, so a few tags are
approximate. Each row's id is ``dev9-<category>-<position>``.
"""

from __future__ import annotations

from prose_set import Rows, write_in_two_parts

# The first part: read while the rules were tuned.
DEV_SECRETS: Rows = [
    (
        "en",
        "Note to self: the router admin login is admin / Kestrel77!wave — changed it "
        "after the ISP technician left.",
    ),
    (
        "en",
        "Kestrel77 is what I set for the router, don't forget it next time the firmware resets.",
    ),
    ("en", "Mum's tablet code is 4 7 1 9, she keeps asking so I'm writing it here."),
    ("en", "Garage keypad: 2580# (the old one 1357 no longer works)."),
    ("en", "User asked me to remember their gym locker combination: 18-32-07."),
    (
        "en",
        'The new wifi password at the cabin is "pinecone-lantern-42", SSID is LakeHouse5G.',
    ),
    ("en", "Alex: what's the alarm code again?\nJamie: 6043, then press OFF\nAlex: thanks!"),
    (
        "en",
        "- Bank app PIN: 830512\n- Card PIN: 2291\n- Online banking memorable word: marmalade",
    ),
    (
        "en",
        "| Service | Login | Password |\n|---|---|---|\n| Netflix | sam.h@mailbox.org "
        "| Tangerine#2024 |\n| Disney+ | sam.h@mailbox.org | blueWhale!88 |",
    ),
    ("en", "mysql -u root -p'Qz7!vR2kLm' -h 10.0.0.14 production_db"),
    ("en", "export DB_PASSWORD=Hx93-lowtide-Fennel"),
    (
        "en",
        'Forwarded SMS: "Hi love, the code for the front door lockbox is 7-3-9-1. Key '
        'is inside. x Mum"',
    ),
    (
        "en",
        "Security answers for the pension portal: mother's maiden name = "
        "Okonkwo-Barrie, first pet = Biscuit",
    ),
    ("en", "we switched the gate to 0815 on Monday, tell the cleaners"),
    ("en", "Set the hotel room safe to 552901 — passports and the spare card are in there."),
    ("en", "Padlock on the bike shed: three one four one."),
    ("en", "Voicemail PIN reset to 90210... no wait, it's 90217 now."),
    (
        "en",
        "Recovery codes for the Google account: 4821-9930, 1187-5520, 7734-0019, "
        "2256-8841, 6610-3372",
    ),
    (
        "en",
        "Backup seed for the Ledger (keep offline!): harvest mirror token velvet orbit "
        "fiscal lunar canyon drift ozone spice robot",
    ),
    ("en", "The SIM PIN for my travel phone is 6284, PUK 51938207."),
    (
        "en",
        "Agent memory: user's Synology NAS admin credentials — username "
        '"backupadmin", password "Orchard_Rain_1987".',
    ),
    (
        "en",
        "Password for the shared family Apple ID: S-u-n-f-l-o-w-e-r-9-9 (no dashes when typing)",
    ),
    ("en", "Office door code from Monday: star 4 4 1 8 hash."),
    ("en", ".env\nSMTP_USER=alerts@brightfield.io\nSMTP_PASS=mango-Trellis-55"),
    (
        "en",
        'config.yaml:\ndatabase:\n  host: db.internal\n  user: app\n  password: "w9Lr$e2Pq!"',
    ),
    ("en", "[credentials]\nuser = jdoe\npass = Copperkettle2!"),
    (
        "en",
        'Email from IT: "Your temporary password is Welcome-Ferry-718. You will be '
        'asked to change it at first login."',
    ),
    ("en", "Reminder: the storage unit keypad is 20481 and the unit is #112."),
    ("en", "Locker 14 at the pool — combination is 9-2-6."),
    ("en", "Grandpa's laptop password is his old house number plus the dog's name: 27Rufus"),
    ("en", "Told Priya the wifi is hunter-green-bicycle — all lowercase with dashes."),
    ("en", "The kids' iPad screen time passcode: 0613 (don't tell them)"),
    (
        "en",
        "Note: TOTP secret for the lab VPN, in case I need to re-enrol the "
        "authenticator: JBSWY3DPEHPK3PXP",
    ),
    ("en", "User wants me to keep their Coinbase 2FA backup code: XK7P-QM2R-8TWN-4HJD"),
    (
        "en",
        "Windows BitLocker recovery key: 418253-093317-662508-120934-557201-380016-774422-015983",
    ),
    (
        "en",
        "User: can you keep my Steam password somewhere?\nAssistant: Sure, what is "
        "it?\nUser: Gl4cier_Fox_2023",
    ),
    ("en", "The alarm panel master code is 1-9-8-4 (like the book)."),
    ("en", "Apartment building intercom: press 3B then enter 7720."),
    ("en", 'Changed it to "LemonadeStand!77" because the old one showed up in a breach.'),
    ("en", "the new one is tuesday-ribbon-43, same username as before"),
    ("en", "Our joint account telephone banking passcode: 5 5 0 2 8 1"),
    ("en", "Key safe by the back door: 4096 (rotate the dials, push the lever down)"),
    ("en", "ssh deploy@203.0.113.5 — password is Fjord!Lattice#9 if key auth fails"),
    ("en", "curl -u admin:N3buLa-Drift https://printer.local/api/status"),
    ("en", 'psql "postgresql://reporting:Rk8vW2nZ@analytics.internal:5432/warehouse"'),
    (
        "en",
        'Wedding planning: venue wifi network "Rosewood_Events", password "JuneBride2025".',
    ),
    ("en", "PIN for the new debit card ending 4471: 7308."),
    ("en", "Work laptop BIOS password: Tr0ut-Stream-Q. Don't lose this."),
    (
        "fi",
        "Dad's email password (he had it on a sticky note, saving it here instead): Bluebell1956",
    ),
    (
        "en",
        "Answer to \"name of your first school\": St Aidan's Primary — that's what I "
        "used for the tax account.",
    ),
    ("en", "The combination on the gun safe is 34-12-58."),
    ("en", "Elevator service key code for floor 9: 8862."),
    ("en", "Aunt Rosa's phone passcode: nine nine three one two zero."),
    ("en", 'Router admin (192.168.1.1): user admin, pass "Zebra-Crossing-3".'),
    ("en", "Parking garage entry code until Friday is 41927."),
    (
        "en",
        'Slack message: "@channel the password for the shared design Figma account is '
        'now Paper.Crane.812"',
    ),
    ("en", "Gate code for the allotment: 1-2-1-2-9 (it's stiff, push hard)"),
    (
        "en",
        "Memorable information for the building society: thistledown — they ask for "
        "characters 2, 5 and 8.",
    ),
    ("en", "Save for later — Wi-Fi: network BlueOwl / key 8f3kd92lqpz7"),
    ("en", "My Kindle parental PIN is 2468."),
    (
        "en",
        "Bitwarden master password (the hint is useless): quiet Harbor lantern 1912 moss",
    ),
    (
        "en",
        "Seed words for the Trezor (wallet 2): orange tunnel frost humble cabin echo "
        "little mandate rescue verb sample globe",
    ),
    ("en", "(Pa55word!Solar) — that's the one for the electricity supplier portal."),
    ("en", "Reception said our conference room door code is 7788 plus the green button."),
    ("en", "Token for our internal wiki bot: 7f3a9c2e41b84d6f9a0e5c1d2b7f8e36"),
    (
        "en",
        "Note to self: WordPress admin moved to /wp-login-x, user editor2, pw Marigold&Ash44",
    ),
    ("en", "Lake cabin door keypad: it's the year grandma was born, 1938."),
    (
        "en",
        "For the school portal, Ella's login is ella.m2014 and her password is Dolphin5pink",
    ),
    ("en", "GitLab backup codes: 9f2c1a8e 3b7d0e4f a61c92d7 5e8b3f10 c4d2e9a1"),
    ("en", 'Alarm company verbal password (to cancel a false alarm): "Pumpernickel"'),
    (
        "en",
        "Anna: did you reset the Netgear?\nTom: yes, wifi is now ATTIC-7729-OWL\nAnna: 👍",
    ),
    ("en", "Sister's house: side gate combo 0 0 4 7, alarm 2 1 6 6 within 30 seconds."),
    (
        "en",
        'Passphrase for the encrypted backup drive: "my tortoise ran the Boston marathon in 1997"',
    ),
    (
        "de",
        "Sonnenblume-2024! ist das neue WLAN-Passwort im Ferienhaus, das Netzwerk heißt Haus_Meer.",
    ),
    ("de", "Max: Wie war nochmal die PIN von Omas Handy?\nLena: 3 7 7 1\nMax: Danke!"),
    ("de", "Notiz an mich: Tresor im Arbeitszimmer → Code 4-8-1-5-9 (seit Januar)."),
    (
        "de",
        "Passwort für das Elster-Zertifikat: K-a-t-z-e-n-k-l-o-7 (ohne Bindestriche eingeben)",
    ),
    ("fr", "Le code de la porte d'entrée a changé : c'est maintenant 47B92."),
    ("fr", "BOX_ADMIN_USER=admin\nBOX_ADMIN_PASS=Cerisier-Lune-85  # box internet du salon"),
    ("fr", "Rappel : mon code de carte bancaire est le six un quatre deux."),
    (
        "es",
        "| Cuenta | Usuario | Contraseña |\n|---|---|---|\n| Banco | lmartinez | "
        "Tortuga!784 |\n| Correo | lucia.m | Girasol_2023 |",
    ),
    (
        "es",
        'Mamá, el código de la alarma es nueve cero tres uno, luego pulsas "desarmar".',
    ),
    (
        "es",
        "Respuesta a la pregunta de seguridad del banco (¿nombre de tu primera mascota?): Canelita",
    ),
    ("pt", 'A senha do roteador agora é "BeijaFlor#58", usuário admin.'),
    ("pt", "Lembrete: cadeado do armário da academia (armário 31) → 27-14-03."),
    (
        "pt",
        'Encaminhado do WhatsApp: "Filho, a senha do app do banco é 592038, não conta pra ninguém"',
    ),
    ("it", "La password della mail di papà è Girasole1961, gliel'ho reimpostata ieri."),
    ("it", "- Cancello condominio: 1744*\n- Garage: 0923\n- Allarme: 5561"),
    ("it", "Ricorda: PIN della SIM 8815, PUK 20473319."),
    ("nl", '"tulpenveld88" is het wifi-wachtwoord bij oma, allemaal kleine letters.'),
    ("nl", "[nas]\ngebruiker = beheer\nwachtwoord = Molenwiek!3"),
    ("nl", "Nieuwe code voor de kluis op kantoor: 602719."),
    ("pl", "Hasło do Wi-Fi w mieszkaniu: ZielonyKot_77 (sieć Dom_Nowak)."),
    ("pl", "Kasia: jaki jest PIN do karty firmowej?\nMarek: 4412\nKasia: dzięki"),
    ("pl", "Kod do domofonu u babci: dwa pięć osiem zero, potem klucz."),
    ("cs", "Heslo k routeru jsem změnil na Vltava-Most-19."),
    ("cs", "Kód od trezoru v hotelovém pokoji: 731904 (pas je uvnitř)."),
    ("ru", "Пароль от вайфая на даче: Berezka2024 (с большой буквы)."),
    ("ru", "Напоминание: ПИН-код от новой карты — 7261."),
    ("ru", "Серёжа: какой код от сейфа?\nОля: 38-12-90\nСерёжа: ок, спасибо"),
    ("uk", "Пароль до банківського застосунку змінив на Sonyashnyk_88!"),
    ("uk", "Код від сейфа в офісі — дев'ять чотири два сім."),
    ("tr", "Evdeki modemin şifresi Lale-Bahcesi-61, kimseye söyleme."),
    ("tr", "Kasa şifresi değişti, yenisi 3-9-1-7-5."),
    ("tr", "Annemin telefonunun ekran kilidi: 280657"),
    ("ar", "كلمة مرور الواي فاي في المكتب الجديد هي: Nakhla_2024#"),
    ("ar", "الرقم السري لبطاقة الصراف الجديدة: 8046"),
    ("ar", "رمز باب العمارة تغيّر، الجديد هو 5512 ثم زر الجرس."),
    ("he", "הסיסמה לראוטר בבית היא Tapuz-Zahav-33"),
    ("he", "קוד האזעקה של סבתא: 2704, ואז כפתור OFF."),
    ("fa", "رمز وای‌فای خونه رو عوض کردم به Anar_Shirin98"),
    ("fa", "رمز کارت بانکی مامان: ۴۷۲۹"),
    ("hi", "याद रखना: वाई-फाई का पासवर्ड GulabJamun@77 है।"),
    ("hi", "दादी के फ़ोन का पिन 1948 है।"),
    ("hi", "बैंक ऐप का एमपिन बदलकर 582036 कर दिया है।"),
    ("bn", "অফিসের ওয়াইফাই পাসওয়ার্ড: Shapla_Nodi_42"),
    ("bn", "লকারের কোড হলো ৬৩১৮"),
    ("zh", "家里路由器管理密码改成了 Huangshan#2024，用户名还是admin。"),
    ("zh", "提醒自己：新银行卡的取款密码是731526。"),
    ("zh", "小王：公司保险柜密码多少？\n小李：48-16-72\n小王：收到"),
    ("ja", "自宅のWi-Fiパスワードは「sakura-tsuki-58」です。"),
    ("ja", "メモ：実家の玄関の暗証番号は0427。"),
    ("ja", "会社のVPNのパスワードをFujiyama!2291に変更しました。"),
    ("ko", "현관 도어락 비밀번호 바꿨어: 2961*"),
    ("ko", "회사 와이파이 비번은 Hangang_Bridge_7 이야."),
    ("ko", "엄마 휴대폰 잠금 비밀번호는 310829 입니다."),
    ("vi", "Mật khẩu wifi nhà bà ngoại là hoasen1975."),
    ("vi", "Mã PIN thẻ ATM mới của em: 6053."),
    ("th", "รหัสผ่านไวไฟที่ร้าน: ChaoPhraya_88"),
    ("th", "รหัสตู้เซฟในห้องพักคือ 481530"),
    ("id", "Kata sandi wifi kantor baru: Melati-Putih-23."),
    ("en", "PIN m-banking saya ganti jadi 274916."),
    ("sv", "Lösenordet till routern är nu Blåbär-Skog-64."),
    ("sv", "Koden till porten är 1379, glöm inte nyckelsymbolen efteråt."),
    ("no", "Passordet til wifien på hytta er fjellbekk2022."),
    ("no", "Kode til garasjeporten: 5830."),
    ("fi", "Kesämökin wifi-salasana: Mustikka-Järvi-19"),
    ("fi", "Pankkikortin tunnusluku on 8271."),
    ("el", "Ο κωδικός του wifi στο σπίτι είναι Elia_Thalassa_5."),
    ("el", "Το PIN της νέας κάρτας είναι 3906."),
    ("ro", "Parola de la routerul din sufragerie este Brad-Verde-77."),
    ("nl", "Codul de la interfonul blocului: 1428 urmat de cheie."),
    ("hu", "A wifi jelszó a nyaralóban: Balaton_Szel_88"),
    ("hu", "A széf kódja megváltozott, az új: 602813."),
    ("sw", "Nenosiri la wifi ya ofisi ni Twiga-Mzuri-90."),
    ("sw", "PIN ya M-Pesa ya mama ni 7314."),
    ("tl", "Ang password ng wifi sa bahay ni Lola ay Sampaguita2021."),
    ("tl", "Bes, yung PIN ng ATM ko pala ay 5829, pakikuha na lang."),
    ("da", "Koden til hoveddøren er ændret til 2648."),
    ("da", "Adgangskode til netbank: Rugbrød!1970"),
]
DEV_BENIGN: Rows = [
    (
        "en",
        "Password policy reminder: minimum 12 characters, rotate every 90 days, no "
        "reuse of the last 5.",
    ),
    (
        "en",
        'The wifi password is in the shared 1Password vault under "Office Network" — '
        "ask Dana for access.",
    ),
    (
        "en",
        "Reset your PIN at the branch; bring photo ID. Branch opens 09:30, closes 16:00.",
    ),
    (
        "en",
        "Error code 4471 again when syncing the smart lock app — support ticket #88213 opened.",
    ),
    ("en", "Meeting moved to room 1204, 3pm. Bring the laptop."),
    (
        "en",
        "The code review is done, merged PR 2318 into main; version 2.4.1 goes out Thursday.",
    ),
    ("en", "Flight BA 2276, gate B12 at 08:15, seat 14C."),
    ("en", "Wi-Fi network name is CafeGuest; the password is printed on the receipt."),
    ("en", "Order #88213 shipped, tracking 1Z999AA10123456784, arriving Tuesday."),
    ("en", "Call the locksmith at 0161 496 0732 about the back door lock; quote was £145."),
    (
        "en",
        "User wants to change their router password this weekend but hasn't picked a new one yet.",
    ),
    (
        "en",
        "Don't store passwords in notes — use the password manager. Agreed with the "
        "team on 2024-03-11.",
    ),
    (
        "en",
        "The hotel room safe lets you choose a 4–6 digit code yourself; instructions "
        "are on the inside of the door.",
    ),
    ("en", "Remind me to set up a PIN on the new SIM card when it arrives on the 14th."),
    (
        "en",
        "Password reset link expires in 24 hours; check the spam folder if it doesn't arrive.",
    ),
    ("en", "Door code changes on the 1st of every month; the office manager emails it out."),
    (
        "en",
        "HTTP 403 when logging in; the token probably expired. Regenerate it from the "
        "settings page.",
    ),
    ("en", "Sam: do you know the wifi password?\nLee: no idea, ask the front desk\nSam: ok"),
    (
        "en",
        "| Item | Qty | Price |\n|---|---|---|\n| Padlock | 2 | 8.50 |\n| Key safe | 1 | 24.00 |",
    ),
    (
        "en",
        "config.yaml:\ndatabase:\n  host: db.internal\n  port: 5432\n  password: ${DB_PASSWORD}",
    ),
    ("en", "export DB_PASSWORD=<your-password-here>"),
    ("en", 'password: "********" (redacted in the shared doc)'),
    ("en", "Placeholder in the template: username=YOUR_USERNAME, password=YOUR_PASSWORD"),
    (
        "en",
        "Seed phrase backup is on a steel plate in the safe deposit box, box 217 at the bank.",
    ),
    (
        "en",
        "Recovery codes were printed and put in the fireproof box; nothing saved digitally.",
    ),
    ("en", "Mum's new phone number is +44 7700 900461."),
    (
        "en",
        "The PIN pad at checkout was broken, so I paid by tapping the card; total €37.20.",
    ),
    ("en", "Invoice INV-2024-0193 due in 30 days, amount 1,840.00 USD."),
    ("fi", "Dentist appointment 14:30 on 12/06, booking reference 5519."),
    ("en", "Firmware 3.1.7 fixed the bug where the smart lock forgot its user codes."),
    (
        "en",
        "- Ask IT about enabling 2FA\n- Buy a new padlock (~$15)\n- Book room 3.07 for "
        "Thursday 14:00",
    ),
    ("en", "mysql -u root -p  # prompts for the password, never pass it inline"),
    (
        "de",
        "Die Passwortrichtlinie verlangt mindestens 12 Zeichen; das eigentliche "
        "Passwort steht im KeePass-Tresor, nicht hier.",
    ),
    (
        "en",
        "Termin beim Schlüsseldienst am 14.03. um 10:30, Kosten ca. 89 €, Rechnung Nr. 20417.",
    ),
    (
        "fr",
        "Réinitialisez votre code PIN en agence, munissez-vous d'une pièce d'identité. "
        "Agence ouverte de 9h à 17h30.",
    ),
    ("fr", "Le code postal de la livraison est 75011, appartement 4B, 3e étage."),
    (
        "fr",
        "Ana: ¿cuál es la contraseña del wifi?\nLuis: no la sé, está pegada en la "
        "nevera\nAna: vale",
    ),
    ("hu", "Vuelo IB 3170, puerta B12 a las 08:15, asiento 22A."),
    ("pt", "A senha nunca deve ser enviada por e-mail; use o cofre da empresa."),
    ("en", "Pedido nº 88213 enviado, chega em 3 dias úteis, valor R$ 249,90."),
    (
        "it",
        "Il codice di errore 4471 compare quando la serratura smart perde la connessione.",
    ),
    ("it", "La riunione è in sala 1204 alle 15:00; portare il badge."),
    ("nl", "Het wachtwoord moet elke 90 dagen worden gewijzigd, zegt IT."),
    ("nl", "Versie 2.4.1 van de app lost het inlogprobleem op."),
    ("pt", "Nie pamiętam hasła do Wi-Fi, trzeba zapytać właściciela mieszkania."),
    ("pt", "Revize kódu je hotová, změny jsou sloučené do hlavní větve."),
    ("cs", "Zavolat zámečníkovi na 603 123 456 kvůli zámku u sklepa."),
    ("ru", "Пароль от вайфая написан на роутере снизу — посмотри там сам."),
    ("ru", "Код ошибки 4471 при входе в приложение банка, заявка №55120 в поддержке."),
    ("uk", "ПІН-код можна змінити в банкоматі або в застосунку банку."),
    ("ru", "Замовлення №88213 прибуде в четвер до 18:00."),
    ("tr", "Şifrenizi kimseyle paylaşmayın; banka asla şifre sormaz."),
    ("en", "Toplantı 1204 numaralı odada, saat 15:00'te."),
    ("ar", "لا تشارك كلمة المرور مع أي شخص، حتى موظفي البنك."),
    ("ar", "رقم الطلب 88213 وسيصل يوم الخميس، المبلغ 350 ريال."),
    ("he", "הסיסמה לוויפי נמצאת אצל המזכירה בקומה 2."),
    ("he", "הטיסה יוצאת משער B12 בשעה 08:15."),
    ("fa", "رمز عبور باید حداقل ۱۲ کاراکتر باشد و هر ۹۰ روز عوض شود."),
    ("fa", "شماره سفارش ۸۸۲۱۳ ارسال شد."),
    ("hi", "अपना पिन या ओटीपी किसी के साथ साझा न करें, बैंक कभी नहीं पूछता।"),
    ("hi", "कमरा नंबर 1204 में बैठक दोपहर 3 बजे है।"),
    ("bn", 'পাসওয়ার্ড ভুলে গেলে "Forgot password" বোতামে ক্লিক করুন।'),
    ("zh", "密码策略：至少12位，每90天更换一次，不得与前5次相同。"),
    ("zh", "订单号88213已发货，预计周四到达，运费15元。"),
    ("ja", "Wi-Fiのネットワーク名は「CafeGuest」で、パスワードはレシートに記載されています。"),
    ("ja", "バージョン2.4.1でログインの不具合が修正されました。"),
    ("ko", "비밀번호는 회사 비밀번호 관리자에 저장되어 있어요. 여기엔 안 적을게요."),
    ("ko", "회의실 1204호, 오후 3시에 만나요."),
    ("vi", "Mã lỗi 4471 xuất hiện khi đăng nhập ứng dụng ngân hàng, đã gọi tổng đài."),
    ("th", "กรุณาเปลี่ยนรหัสผ่านทุก 90 วันตามนโยบายบริษัท"),
    ("id", "Kode promo sudah kedaluwarsa; harga tiket Rp 450.000 untuk tanggal 17 Agustus."),
    ("sv", "Koden till porten skickas ut av föreningen i början av varje månad."),
    ("no", "Husk å bytte PIN-koden på det nye SIM-kortet når det kommer i posten."),
    ("fi", "Salasanan on oltava vähintään 12 merkkiä pitkä, ohjeet löytyvät intranetistä."),
    ("el", "Ο κωδικός σφάλματος 4471 εμφανίζεται όταν η κλειδαριά χάνει τη σύνδεση."),
    ("ro", "Parola se află în seiful digital al echipei, cere acces de la Andrei."),
    ("hu", "A jelszót a jelszókezelőben tárolom, ide nem írom le."),
    ("sw", "Usimpe mtu yeyote PIN yako ya M-Pesa, hata wakala."),
    ("tl", "Huwag ibigay ang iyong OTP o PIN kahit kanino, kahit sa bangko."),
    ("no", "Mødet er flyttet til lokale 1204 kl. 15."),
]
# The second part: held out, never read.
HELD_SECRETS: Rows = [
    (
        "en",
        "Garage door keypad changed to 4471 after the contractor left — don't give it out again.",
    ),
    (
        "en",
        'note to self: the wifi at the cabin is "pinecone-harbor-88", network name LakeHouse5G',
    ),
    ("en", "Mom's bank app PIN is 2580, she asked me to remember it in case she forgets."),
    ("en", "User asked me to remember: laptop login password = Tr0mbone!Sky"),
    ("en", 'SMS from Dad: "gate code is now 1 9 9 3 #, tell your sister"'),
    ("en", "Security question answer for the credit union (first pet): Biscuit"),
    ("en", "Backup codes for my email 2FA:\n- 4817 2290\n- 7731 0046\n- 5102 8839"),
    (
        "en",
        "Seed phrase for the old hardware wallet: orbit candle maple fringe whistle "
        "ocean velvet tiger pulse amber hollow crane",
    ),
    ("en", "The padlock on the storage unit: 3-27-14"),
    ("en", "[chat] Alex: what's the alarm code?\nMe: hang on\nMe: 60418 then press OFF"),
    ("en", "Voicemail PIN: 7 2 0 9 (carrier reset it to that)"),
    ("en", "Office safe — left 42, right 17, left 8."),
    ("en", "Locker 118 at the gym opens with 0312 (my mum's birthday backwards)."),
    ("en", "export DB_PASSWORD='hunter-Gr33n-valley' # staging db, keep out of repo"),
    ("en", "mysql -u admin -p'Quokka#2024' -h 10.0.3.12 reporting"),
    (
        "en",
        "Agent memory: the client's SFTP password is Ledger&Lantern77, username acme_ftp.",
    ),
    ("en", "SIM PIN for the travel phone 4096, PUK 83910274"),
    (
        "en",
        'Fwd: "Your temporary password is Xk9-mP2q-Lr. Please change it after first '
        'login." — from IT helpdesk',
    ),
    (
        "en",
        "The new one is sunflower-tractor-41; changed it Tuesday for the shared streaming account.",
    ),
    ("en", "Router admin: user admin / pass BlueHeron!19"),
    ("en", "Intercom at Grandma's building: press 24 then key 8813."),
    ("en", "Bike lock combo is five-nine-two-zero."),
    ("en", "Unlock for Jamie's tablet: 130707"),
    (
        "en",
        "| service | user | password |\n| nas | backup | Cedar*Moss*6 |\n| printer | "
        "admin | 55toner55 |",
    ),
    (
        "en",
        'Security question "city where your parents met" — answer I used: Tucson '
        "(not the real one).",
    ),
    ("en", "We set the gate to 8642 for the summer; the landscaper has it."),
    ("en", 'VPN passphrase: "the quiet fox eats rhubarb at noon"'),
    ("en", "Card PIN for the joint Visa — 3719."),
    ("en", "Recovery code for the password manager: KQ7M-2XTP-9RWD-4HNB-LC8F"),
    ("en", "Door code for the Airbnb in Lisbon: 2 4 6 8 * (valid until the 14th)"),
    ("en", "Remember that Sam's school portal login is sam.okafor / Dinosaur2015"),
    ("en", 'Email from landlord: "The lockbox on the side door is 0-5-3-1, keys inside."'),
    ("en", 'wifi: "GuestNet" pw: coffee4everyone!'),
    ("en", "Changed my Apple ID password to Marble.Fig.Orchard.62"),
    ("en", "ssh deploy@web1 — sudo password is Kettle_Drum_88"),
    ("pt", "Alarm panel master code 9 1 7 3, duress code 9174 (do not use)."),
    ("en", 'My answer to "mother\'s maiden name" at the bank is Fenwick-Rose.'),
    ("en", "Text to Priya: the shed padlock is 7-1-9, don't spin it too fast"),
    ("en", "Encryption passphrase for the external drive: correct-orange-stapler-bridge"),
    ("en", "The fire safe in the closet: 26-04-11."),
    ("en", "Grandpa's phone unlocks with his birth year, 1948."),
    ("en", "Teams room admin pw Summer!2025ab — rotate after offsite."),
    ("en", "Note: debit card ending 4421 — eight-one-six-zero"),
    ("en", "docker login registry.internal -u ci -p 'r3gistry-Pa$$word'"),
    ("en", 'Keychain backup phrase "violet / engine / dune / saddle / raven / quartz"'),
    ("en", 'Jenna texted: "new wifi pw is BananaPancake_73, old one doesn\'t work"'),
    ("en", ".env\nADMIN_USER=ops\nADMIN_PASS=Tundra!Owl!4"),
    ("en", "Bank app login: customer number 448192, password Wintergreen$9."),
    ("en", "Backup codes (Google): 8391 4402 / 1166 9023 / 7740 3318 / 2095 6671"),
    ("en", "Security answer for the airline account (favorite teacher): Mrs Odalys"),
    ("en", 'Memory: user\'s Steam account password is "Pixel-Harbor-1337"'),
    ("en", "Back door keypad: 2018 (one more than the year we moved in)"),
    (
        "en",
        "Chat log\nKim: can u send the garage code\nKim: the one you changed\nMe: 5150 then enter",
    ),
    ("en", "Door lock at the studio is now 48 15 16 — I changed it after the break-in."),
    ("en", 'Passphrase for the PGP key: "Seven lanterns over Galway bay"'),
    ("de", "Notiz an mich: Garagentor-Code auf 7312 geändert, alter Code gilt nicht mehr."),
    (
        "de",
        "Chat mit Lena\nLena: Wie war nochmal das WLAN?\nIch: Moment\nIch: "
        "Sonnenblume1957 (Netz heißt FritzBox-Oma)",
    ),
    ("de", "Sicherheitsfrage Sparkasse (Name der Grundschule): Lindenhof"),
    ("de", "Tresor im Arbeitszimmer: rechts 31, links 8, rechts 22"),
    ("fr", "Le code de la porte de l'immeuble : 45B12, puis interphone « Martin »."),
    (
        "fr",
        "SMS transféré de Julien : « le nouveau mot de passe du wifi c'est "
        "Chaussette-Rouge-9, l'ancien marche plus »",
    ),
    ("fr", "Code du cadenas du vélo : sept-deux-zéro-cinq"),
    ("nl", "Réponse à la question secrète (ville de naissance de ma mère) : Carcassonne"),
    ("es", 'La clave del wifi es "mariposa-azul-22", la red se llama CasaLopez.'),
    ("nl", "PIN de la tarjeta de débito: cuatro-siete-uno-ocho"),
    ("fr", "Le cambié la contraseña al correo de papá, la nueva es Tortuga.Verde.64"),
    ("pt", "A nova senha do internet banking é Caju#8841, mudei ontem."),
    (
        "pt",
        "Frase de recuperação da carteira: girassol | janela | pedra | vento | navio | "
        "lua | ferro | mel | cobra | trigo | sal | rio",
    ),
    ("it", "Codice dell'allarme di casa: 35790, poi tasto OFF."),
    ("es", "Risposta alla domanda di sicurezza (nome del primo animale): Briciola"),
    ("it", "PIN del bancomat di nonna → 1 9 4 4, me l'ha chiesto lei di segnarlo"),
    ("nl", "De pincode van de fietskluis is 2206."),
    ("nl", "Wachtwoord voor de NAS: Tulpenveld*88 (gebruiker: beheer)"),
    ("pl", "Kod do domofonu u babci: 17 klucz 4490"),
    ("pl", "Hasło do routera zmieniłem na Bursztyn_Morze7"),
    ("cs", 'Heslo k Wi-Fi na chalupě je "jezevec2020".'),
    ("cs", "PIN k SIM kartě: 8264, PUK 19283746"),
    ("cs", "Kód od trezoru v kancelárii: 6-1-8-3-5"),
    ("cs", "Nové heslo do internetbankingu: Tatry!Chata58"),
    ("ru", "Пароль от почты поменял, новый: Snegir_2023!"),
    ("ru", "Код от подъезда: 27К1543, домофон не работает."),
    (
        "ru",
        'config.yaml\ndb:\n  user: app\n  password: "Bereza-77-Volga"  # прод, никому не давать',
    ),
    ("uk", "Пін-код картки: п'ять нуль один дев'ять"),
    ("uk", "Пароль до вайфаю в офісі — Kalyna!4455"),
    ("tr", "Kasanın şifresi 840217, kimseye söyleme."),
    ("tr", "Annemin e-Devlet şifresi: Papatya1961"),
    ("ar", "رمز البوابة الجديد هو ٤٨٢٩ — غيّرناه يوم الجمعة."),
    ("ar", "كلمة المرور للراوتر: Nakhla@2024"),
    ("he", "הקוד של השער החשמלי הוא 3579, למסור לשליח רק אם צריך."),
    ("he", "סיסמה לאפליקציית הבנק: Tapuach#72"),
    ("fa", "رمز کارت بانک ملی: ۷۳۱۹"),
    ("fa", "رمز وای‌فای خونه عوض شد، جدیدش: anar-shirin-58"),
    ("ur", "الماری کے تالے کا کوڈ ۲۹۰۴ ہے۔"),
    ("hi", "पापा के एटीएम का पिन ४४८१ है, उन्होंने खुद बताया।"),
    ("hi", "वाईफाई पासवर्ड: GulabJamun@99"),
    ("bn", "আলমারির লকের কোড ৬২৮৩, মাকে বলে দিও।"),
    ("ta", "வங்கி செயலியின் கடவுச்சொல்: Maambazham!21"),
    ("zh", "保险柜密码是 20180613，别告诉别人。"),
    ("zh", "微信聊天\n妈妈：门锁密码多少来着？\n我：等一下\n我：715926#"),
    ("ja", "玄関のオートロックの暗証番号は 0428 です。"),
    ("ja", "銀行アプリのパスワード：Sakura-Nami77"),
    ("ko", "1357* ← 현관 도어락 새 비밀번호"),
    ("ko", "공인인증서 비밀번호는 Haneul!2020 이야"),
    ("vi", "Mật khẩu wifi nhà ngoại: caphesua123"),
    ("vi", "Mã PIN thẻ ATM của mẹ là 6 6 0 2."),
    ("th", "รหัสผ่านอีเมลบริษัทคือ Mamuang_55"),
    ("th", "รหัสตู้เซฟ ๓๙๑๘๒"),
    ("id", "Kata sandi wifi kantor yang baru: Rendang#Padang9"),
    ("pl", "Kod pintu pagar rumah: 8080#, jangan beri kepada orang luar."),
    ("sv", "Koden till porten är 4512, den ändrades i mars."),
    ("sv", "Säkerhetskoden för BankID: 739104"),
    ("no", "Koden til sykkellåsen er 3-3-0-9."),
    ("da", "MitID-adgangskode: Rødgrød!Fløde7"),
    ("fi", "Mökin avainlaatikon koodi on 1960."),
    ("el", "2468 και μετά OFF — αυτός είναι ο κωδικός του συναγερμού."),
    ("ro", 'Parola de la wifi: Ciresica2021! — rețeaua e "Familia_Pop".'),
    ("hu", "19K43 – ez a kapukód, a kaputelefonon a 12-es gomb."),
    ("hr", "Lozinka za e-mail promijenjena u: Jadran#Galeb6"),
    ("sw", "PIN ya M-Pesa ni 4073, usimwambie mtu."),
    ("tl", 'Ang password ng wifi sa bahay ni Lola ay "sampaguita2022".'),
]
HELD_BENIGN: Rows = [
    (
        "en",
        "Reminder: passwords must be at least 12 characters and rotate every 90 days "
        "per the new IT policy.",
    ),
    (
        "en",
        'The wifi password is in the shared 1Password vault under "Office Network" — '
        "don't paste it in Slack.",
    ),
    (
        "en",
        "To reset your PIN, go to Settings > Security > Change PIN and follow the prompts.",
    ),
    ("en", "Login failed with error code 0x80070005 again; IT ticket #48213 opened."),
    ("en", 'Conference room code name "Falcon" is on floor 4, room 412.'),
    ("en", "Order #1129-4471 shipped, tracking 1Z 999 AA1 01 2345 6784."),
    (
        "en",
        "The new guest network is called CafeGuest; password is printed on the receipt, ask staff.",
    ),
    ("en", "Template: DB_PASSWORD=${DB_PASSWORD} — set it in the CI secrets, never commit."),
    (
        "en",
        "curl -u admin:<password> https://localhost:8080/api/health — replace "
        "<password> with yours.",
    ),
    (
        "en",
        "Lock screen timeout set to 5 minutes; PIN length requirement raised to 6 digits.",
    ),
    ("en", "Garage door opener battery is a CR2032, replaced on 03/14."),
    ("en", "Invoice INV-2024-0931 for $1,249.00 due on the 30th."),
    ("en", "Password manager upgraded to version 8.10.4; no action needed."),
    (
        "en",
        "Call the bank at 1-800-555-0199 if the card gets locked after 3 wrong PIN attempts.",
    ),
    ("en", "Zip code for the new office: 94107. The door access uses badges, no codes."),
    ("en", "Dad forgot his voicemail PIN again — he needs to call the carrier to reset it."),
    ("en", "The bike lock is a 4-digit combination model, bought for $34.99."),
    ("en", "Safe model: SentrySafe SFW123, weight 87 lbs, fits in the closet."),
    (
        "en",
        "Seed phrases should be written on paper and stored offline — never in notes "
        "or cloud storage.",
    ),
    (
        "en",
        "Security questions are being phased out; the bank now uses app-based verification.",
    ),
    ("en", "Ask Sam for the alarm code in person — I'm not writing it down."),
    ("en", "The router's default IP is 192.168.1.1 and the admin page is on port 80."),
    (
        "en",
        "Replace the literal password in the README example with a placeholder like "
        "<your-password>.",
    ),
    ("en", "PIN pad at register 3 is broken, vendor ticket 77201."),
    ("en", "Recovery codes were regenerated and printed; the sheet is in the fire safe."),
    (
        "en",
        "Tablet passcode was reset by Apple support; Jamie chose the new one, I don't know it.",
    ),
    ("en", "Passwörter müssen alle 90 Tage geändert werden, Mindestlänge 12 Zeichen."),
    (
        "de",
        'Das WLAN heißt "FRITZ!Box 7590 XY", das Passwort steht auf der Unterseite des Routers.',
    ),
    ("fr", "Rendez-vous à la banque le 12 mars à 10h30 pour réinitialiser le code PIN."),
    (
        "fr",
        "Le digicode de l'immeuble sera changé lundi, le syndic enverra le nouveau par courrier.",
    ),
    (
        "es",
        "Si olvidas la contraseña, pulsa «¿Olvidaste tu contraseña?» y revisa tu correo.",
    ),
    ("pt", "O cadeado da bicicleta é da marca Abus, custou R$ 89,90."),
    ("it", "Il codice errore E-4021 compare quando il PIN è sbagliato tre volte."),
    ("nl", "De vergadering over het wachtwoordbeleid is verplaatst naar 14:00."),
    ("pl", "Hasło do Wi-Fi jest w sejfie z dokumentami, zapytaj kierownika."),
    ("en", "Telefon podpory banky: +420 800 123 456, když se zablokuje PIN."),
    ("ru", "Пароль должен содержать не менее 8 символов, включая цифру и заглавную букву."),
    ("uk", "Код помилки 403 при вході — треба скинути пароль через адміна."),
    ("en", "Oda numaramız 1204, kahvaltı 07:00–10:30 arası."),
    ("ar", "يرجى عدم مشاركة كلمة المرور مع أي شخص، البنك لن يطلبها منك أبداً."),
    ("he", "מספר ההזמנה 58812, המשלוח יגיע עד יום חמישי."),
    ("fa", "رمز عبور باید حداقل ۱۲ کاراکتر باشد و هر سه ماه عوض شود."),
    ("ur", 'پاس ورڈ بھول گئے ہیں تو "پاس ورڈ ری سیٹ" پر کلک کریں۔'),
    ("hi", "पिन बदलने के लिए बैंक की शाखा में जाना होगा, समय सुबह १० बजे।"),
    ("bn", 'ওয়াইফাই নেটওয়ার্কের নাম "Rahman_Home", পাসওয়ার্ড রাউটারের পেছনে লেখা আছে।'),
    ("zh", "密码请放在公司密码库里，不要写在便签上。"),
    ("ja", "暗証番号を3回間違えるとカードがロックされます。窓口は9時から。"),
    ("ko", "비밀번호 변경 주기는 90일입니다. 시스템 버전 3.2.1."),
    ("th", "หากลืมรหัสผ่าน ให้ติดต่อฝ่ายไอทีที่เบอร์ 02-123-4567"),
    ("it", "Kata laluan Wi-Fi ada di kaunter, tanya pekerja."),
    ("sv", "Portkoden byts den 1 april, styrelsen skickar ut den nya per post."),
    ("en", "Postnummer 0150 Oslo; leveringen kommer mellom 10 og 14."),
    ("da", "Husk at skifte adgangskode hver tredje måned — det kræver IT-politikken."),
    ("fi", "Virhekoodi 0x1F tulee, jos PIN-koodi on väärä."),
    ("ro", 'Parola se resetează din aplicație, secțiunea „Securitate".'),
    ("hu", 'A wifi neve "Kovacs_Otthon", a jelszót a router alján találod.'),
    ("hr", "Sastanak o pravilima za lozinke je u 9:30, soba 214."),
    ("cs", "Usishiriki PIN yako na mtu yeyote; Safaricom haitakuuliza."),
    ("tl", "Ang order number ay 66120, darating sa Biyernes."),
    ("el", "Ο αριθμός παραγγελίας είναι 77812, παράδοση την Τρίτη."),
]


def main() -> None:
    write_in_two_parts(
        "secret_prose_dev9",
        {
            "secret": (DEV_SECRETS, HELD_SECRETS),
            "benign": (DEV_BENIGN, HELD_BENIGN),
        },
        ids="dev9",
    )


if __name__ == "__main__":
    main()
