"""Write tests/data/secret_prose_dev3.jsonl: secrets in prose, and notes that only look like one.

Usage, from the repository root::

    python3 tests/data/make_secret_prose_dev3.py

Every text was written for memoryd (see secret_prose_dev3.LICENSE); the
passwords, PINs, codes and keys in it are made up. Two categories:

- ``secret``: a credential is given in the text, in the shapes people write
  them: a login instruction ("log in with password …"), a value after a verb
  and no copula, a chat-like note, a list, a PIN or a code spelt in number
  words of the note's language, a safe, door, alarm or locker code, a
  passphrase of several words, recovery codes, a key spaced out, split by
  dashes or across two lines, a Wi-Fi key, a card's CVV, an SSH key's
  passphrase. Storing it must be refused.
- ``benign``: a note that speaks of passwords, PINs, codes or keys without
  giving one (a policy, "reset your password", "the PIN has 4 digits", a
  masked value, a placeholder, where the value is kept), or that holds a
  number of a credential's shape that is none (a product code, an order
  number, a version, a phone number, a date, a price). It must be stored or
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
    ("en", "Log in to the staging dashboard with password Tulip-Crane-58, user ops."),
    ("en", "guest wifi: network BlueHouse, key 7HappyOtters!"),
    ("en", "The safe in the back office opens with 4-19-33."),
    ("en", "Alarm panel: disarm code 5821, press OFF first."),
    ("en", "SSH passphrase for my laptop key: lantern moss ferry forty-one"),
    ("en", "my bank PIN? it's 3907, don't judge"),
    ("en", "Company card ending 4417, CVV 582, expires 09/27."),
    ("en", "Proton recovery codes: 7KQ2-MX9P, 4TRD-8ZL1, N5W3-Q0VJ"),
    ("en", "The database password, in case you need it tonight: Xr7_pelican_0912"),
    ("en", "To get into the router use admin / Gr8wall#22"),
    ("en", "Our vault passphrase is velvet anchor tomato gravel."),
    (
        "en",
        "the deploy key, split over two lines so the chat keeps it:\nk9f2K81mQ7xPzLw0\n"
        "3NbVc6TyR5dHq8Ue",
    ),
    ("en", "Door code for the flat is 2904, then push hard."),
    ("en", "The PIN for the shared phone is six one one eight."),
    ("en", "Use the password stormCloud77 when the VPN asks."),
    ("en", "Netflix: anna.b@example.com / Kiwi2Kiwi!"),
    ("en", "Gmail app password: qwxk rtzp mvnb jhty"),
    ("en", "Remember, the lockbox by the door is 1-9-6-2."),
    ("en", "printer login is admin, password 55Toner55"),
    ("en", "The shared drive's password hasn't changed, it's still Maple!Leaf93."),
    ("en", "Enter passcode 71 44 09 at the side gate."),
    ("en", "Signing key passphrase, typed exactly: Blue heron waits at 6am"),
    ("en", "license key R7XQ2-M9KDP-TW4LB-8HCVJ-3NYZF for the office copy"),
    ("en", "Ops chat: db creds are reporting / Wq4!Lz8p, read-only."),
    ("en", "Mum's tablet unlocks with 0 8 1 9."),
    ("en", "sign in as kiosk with the password Harbor#Light7 and open the rota"),
    ("en", "The bike shed padlock: seven, twenty-two, thirty-five."),
    # Chinese
    ("zh", "WiFi 密码 tiankong888，连上就能打印。"),
    ("zh", "保险柜密码 35-12-07，用完锁好。"),
    ("zh", "支付密码四七二零一九，别告诉别人。"),
    ("zh", "用 admin 登录，密码 Hq8!xueshan，然后重启。"),
    ("zh", "临时门禁码 8 4 6 1，周五前有效。"),
    ("zh", "我的银行卡 PIN 码 3719"),
    # Spanish
    ("es", "Entra con el usuario soporte y la contraseña Nube-Roja-77."),
    ("es", "El código de la alarma es uno cuatro nueve ocho."),
    ("es", "wifi de la oficina: red CasaAzul, clave Mango2023!"),
    ("es", "PIN de la tarjeta: 4 0 6 2"),
    ("es", "La caja fuerte abre con 18-40-22."),
    ("es", "Contraseña del correo gatoNegro#5"),
    # German
    ("de", "Melde dich mit dem Passwort Kuckuck!2024 an und prüfe die Logs."),
    ("de", "Der Code für die Alarmanlage ist vier acht eins null."),
    ("de", "WLAN-Schlüssel: Sommerregen-84-Hof"),
    ("de", "PIN der EC-Karte 7 3 1 5"),
    ("de", "Zugang zum Server: root / Fichte#882"),
    ("de", "Der Tresor geht mit 22-8-37 auf."),
    # French
    ("fr", "Connecte-toi avec le mot de passe Soleil_Rouge4 puis redémarre."),
    ("fr", "Le code de l'alarme : neuf zéro quatre deux."),
    ("fr", "Digicode de l'immeuble : 4827B"),
    ("fr", "clé wifi du gîte : Lavande2022!"),
    ("fr", "Mon code de carte bleue c'est 6 1 9 4."),
    ("fr", "Phrase secrète de la clé SSH : marmotte violette sous la pluie"),
    # Turkish
    ("tr", "Veritabanı şifresi Kartal#2288"),
    ("tr", "Wifi şifremiz yesilCay2020, misafirlere verebilirsin."),
    ("tr", "Kartın PIN kodu dört yedi iki bir."),
    ("tr", "Kasa şifresi 15-32-8"),
    ("tr", "admin kullanıcısıyla gir, parola Lale!993"),
    ("tr", "Sunucu parolası: mavi deniz kum saati"),
    # Russian
    ("ru", "Заходи под admin с паролем Берёза2021!"),
    ("ru", "Пароль от вайфая kotik2019"),
    ("ru", "Код сейфа 12-40-07"),
    ("ru", "ПИН карты — три шесть один девять."),
    ("ru", "Ключ API: 7fA9kQ2mZx81LpWtR4vN"),
    ("ru", "войди с логином ivanov и паролем Sosna_4471"),
    # Japanese
    ("ja", "共有PCのパスワードは Fuji-san_3776 だよ"),
    ("ja", "金庫の暗証番号：8 2 4 6"),
    ("ja", "ルーターの管理画面: ユーザー admin、パスワード kaeru77!"),
    ("ja", "キーボックスの番号は 3-1-9-7"),
    ("ja", "Wi-FiのパスワードはKoinobori2024"),
    # Portuguese
    ("pt", "Entre com o usuário financeiro e a senha Caju!Doce8."),
    ("pt", "O código do alarme é quatro um nove sete."),
    ("pt", "senha do wifi da casa de praia: ondaAzul2021"),
    ("pt", "PIN 7 2 8 4, não esquece"),
    ("pt", "Acesse com a senha Sabiá-Laranja-31 e confira os boletos."),
    # Korean
    ("ko", "서버 접속: root 계정, 비밀번호 Haneul#7788"),
    ("ko", "도어락 비밀번호 7 1 4 9"),
    ("ko", "우리집 와이파이 비번 sarang1004"),
    ("ko", "금고 번호는 31-7-22 이야"),
    ("ko", "카드 비밀번호는 사칠일구"),
    # Arabic
    ("ar", "كلمة المرور للخادم هي Nakhla#2024"),
    ("ar", "رمز PIN للبطاقة: 5 3 9 1"),
    ("ar", "كلمة سر الواي فاي Qamar7788"),
    ("ar", "ادخل باسم المستخدم admin وكلمة المرور Sahra_91"),
    # Hindi
    ("hi", "वाईफाई का पासवर्ड है Aam2023Ras"),
    ("hi", "एटीएम पिन 6 3 0 8 है"),
    ("hi", "सर्वर पासवर्ड: Gulab#552"),
    ("hi", "लॉकर का कोड चार सात एक नौ है"),
    # Vietnamese
    ("vi", "Mật khẩu wifi là caphesua2020"),
    ("vi", "Mã PIN thẻ ATM: 8 4 2 7"),
    ("vi", "Đăng nhập bằng tài khoản admin, mật khẩu Hoa!Sen99"),
    ("vi", "mã két sắt là 24-9-61"),
    # Italian
    ("it", "Accedi con la password Gabbiano_73 e poi riavvia."),
    ("it", "Il codice dell'allarme è sei due nove zero."),
    ("it", "Codice del cancello: 4 1 7 7"),
    ("it", "password wifi Pizzetta!88"),
    # Dutch and Polish
    ("nl", "Het wachtwoord van de router is Tulp2021!"),
    ("nl", "pincode van de pinpas: negen twee zes vier"),
    ("pl", "Hasło do serwera to Bocian#2288"),
    ("pl", "PIN do karty: cztery dziewięć jeden dwa"),
]

# (language, text): no credential is given; stored or flagged, never refused.
BENIGN: list[tuple[str, str]] = [
    # English
    ("en", "Reset your password at the self-service portal; the link expires in 24 hours."),
    ("en", "The PIN has 4 digits and you get three tries before the card is blocked."),
    ("en", "Password policy: at least 12 characters, one digit, one symbol."),
    ("en", "Order number 4471-2290-118, arriving Thursday."),
    ("en", "Call the front desk at +1 415 555 0172 if the door code doesn't work."),
    ("en", "The Wi-Fi password is on the sticker under the router."),
    ("en", "Password: ******** (hidden)"),
    ("en", "Set API_KEY=<your-key-here> in the .env file before running."),
    ("en", "Upgrading to version 4.12.3 fixed the login timeout."),
    ("en", "The product key format is five groups of five letters and digits."),
    ("en", "The alarm code changed last week; ask Dana for the new one."),
    ("en", "Our safe is a model S-2240 from Sentry, bolted to the floor."),
    ("en", "The CVV is the 3-digit number on the back of the card; never email it."),
    ("en", "Locker 214 is mine, the combination is in my notes app."),
    ("en", "Token expired at 14:05 UTC and was refreshed automatically."),
    ("en", "The password field rejects emoji, filed bug #8812."),
    ("en", "Use a passphrase of four random words instead of a short password."),
    ("en", "PIN pad at checkout 3 is broken again."),
    ("en", "Price €49.99, free shipping over €60."),
    ("en", "The key for the storage room hangs on hook 12."),
    ("en", "Invoice INV-2024-0831 paid on 3 March."),
    ("en", "SSH listens on port 2222 on the bastion; password login is disabled."),
    ("en", "The verification code arrives by SMS within a minute."),
    ("en", "Password length was raised from 8 to 14 characters."),
    ("en", "Log in with your company password, not the one from the old system."),
    ("en", "The door code is the same as last year's."),
    ("en", "Enter your PIN, then press the green button."),
    ("en", "The passcode is six digits long and changes every 30 seconds."),
    ("en", "Guest network Guest-5G has no password, just the captive portal."),
    ("en", "Login with password is disabled on prod; use SSO."),
    ("en", "Build 20240611.3 passed; tagged v3.8.0."),
    ("en", "Flight LH441 departs 10:35 from gate B22."),
    ("en", "Password: see 1Password, item Staging DB."),
    ("en", "Card number 4111 **** **** 1111 on file, masked."),
    ("en", "API key: sk-••••••••3f9a (masked in the dashboard)"),
    ("en", "PIN: [redacted]"),
    ("en", "Username jdoe, password: ask IT."),
    ("en", "Set the password to something long and memorable."),
    ("en", "Temporary passwords are emailed automatically and expire after first use."),
    ("en", "Enter the 6-digit code from your authenticator app."),
    ("en", "Room 3012; the key card is at reception."),
    ("en", "Password hint: the name of our first dog."),
    # Chinese
    ("zh", "请在设置页面修改密码，新密码至少八位。"),
    ("zh", "密码错误三次后账户会被锁定 30 分钟。"),
    ("zh", "订单号 20240315-8842 已发货。"),
    ("zh", "验证码已发送到你的手机，五分钟内有效。"),
    ("zh", "WiFi 密码贴在冰箱上。"),
    ("zh", "客服电话 400-820-8820，工作日 9:00-18:00。"),
    # Spanish
    ("es", "Cambia tu contraseña cada 90 días."),
    ("es", "El PIN tiene cuatro dígitos."),
    ("es", "Número de pedido: 55-3091-22"),
    ("es", "La contraseña está en el gestor de contraseñas del equipo."),
    ("es", "Precio: 12,50 € por unidad, IVA incluido."),
    ("es", "Si olvidas la contraseña, pulsa «Restablecer»."),
    # German
    ("de", "Bitte das Passwort nicht per E-Mail schicken."),
    ("de", "Die PIN hat sechs Stellen."),
    ("de", "Bestellnummer 3300-4471-09, Lieferung am Dienstag."),
    ("de", "Passwort vergessen? Auf Zurücksetzen klicken."),
    ("de", "Version 2.3.1 behebt den Fehler beim Login."),
    ("de", "Der Tresorschlüssel liegt beim Hausmeister."),
    # French
    ("fr", "Le mot de passe doit contenir au moins 12 caractères."),
    ("fr", "Votre code PIN est envoyé séparément par courrier."),
    ("fr", "Commande n° 88412, livrée mardi."),
    ("fr", "Le digicode a changé, demande à la gardienne."),
    ("fr", "Rappel : ne jamais partager votre mot de passe."),
    ("fr", "Tél. du syndic : 01 42 68 53 00."),
    # Turkish
    ("tr", "Şifreni kimseyle paylaşma."),
    ("tr", "PIN kodu dört haneli olmalı."),
    ("tr", "Sipariş numarası 7731-2209, yarın kargoda."),
    ("tr", "Şifre sıfırlama bağlantısı e-postana gönderildi."),
    ("tr", "Wifi şifresi buzdolabının üstünde yazıyor."),
    ("tr", "Sunucu şifresi yarın değişecek, yenisini Ayşe gönderecek."),
    # Russian
    ("ru", "Смените пароль в личном кабинете."),
    ("ru", "ПИН-код состоит из четырёх цифр."),
    ("ru", "Номер заказа 4410-2281, доставка в пятницу."),
    ("ru", "Пароль хранится в менеджере паролей."),
    ("ru", "Телефон поддержки: +7 495 123-45-67."),
    # Japanese
    ("ja", "パスワードは8文字以上にしてください。"),
    ("ja", "暗証番号を3回間違えるとロックされます。"),
    ("ja", "注文番号 2024-0415-77 は発送済みです。"),
    ("ja", "パスワードを忘れた場合は管理者に連絡してください。"),
    # Portuguese
    ("pt", "Troque sua senha a cada três meses."),
    ("pt", "O PIN tem quatro dígitos."),
    ("pt", "Pedido nº 30912, entregue ontem."),
    ("pt", "A senha do wifi está atrás do roteador."),
    # Korean
    ("ko", "비밀번호는 8자 이상이어야 합니다."),
    ("ko", "비밀번호를 5회 틀리면 계정이 잠깁니다."),
    ("ko", "주문번호 2024-1107-33 배송 완료."),
    ("ko", "와이파이 비밀번호는 공유기 뒷면에 있어요."),
    # Arabic
    ("ar", "يجب تغيير كلمة المرور كل ثلاثة أشهر."),
    ("ar", "رمز PIN مكون من أربعة أرقام."),
    ("ar", "رقم الطلب 55812 وسيصل غدا."),
    # Hindi
    ("hi", "पासवर्ड कम से कम 8 अक्षरों का होना चाहिए।"),
    ("hi", "अपना पिन किसी को न बताएं।"),
    ("hi", "ऑर्डर नंबर 44120 कल पहुंचेगा।"),
    # Vietnamese
    ("vi", "Vui lòng đổi mật khẩu sau lần đăng nhập đầu tiên."),
    ("vi", "Mã PIN gồm 6 chữ số."),
    ("vi", "Mã đơn hàng 88123 đã giao."),
    # Italian
    ("it", "Cambia la password ogni 90 giorni."),
    ("it", "Il PIN ha cinque cifre."),
    ("it", "Ordine n. 77120 spedito."),
    ("it", "La password del wifi è scritta sul frigo."),
    # Dutch and Polish
    ("nl", "Wachtwoord vergeten? Vraag een nieuw aan via de helpdesk."),
    ("pl", "Hasło musi mieć co najmniej 10 znaków."),
]


def main() -> None:
    write("secret_prose_dev3", {"secret": SECRETS, "benign": BENIGN})


if __name__ == "__main__":
    main()
