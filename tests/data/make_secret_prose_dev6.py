"""Write tests/data/secret_prose_dev6.jsonl: secrets in prose, and notes that only look like one.

Usage, from the repository root::

    python3 tests/data/make_secret_prose_dev6.py

Every text was written for memoryd (see secret_prose_dev6.LICENSE); the
passwords, PINs, codes, phrases and keys in it are made up. The set holds
the languages and shapes the earlier sets' dev rows hold few of. Two
categories:

- ``secret``: a credential is given in the text: in Swedish, Danish,
  Norwegian, Finnish, Czech, Polish, Hungarian, Romanian, Greek,
  Ukrainian, Hebrew, Persian, Thai, Indonesian, Malay, Vietnamese,
  Turkish, Hindi and Arabic as well as the larger languages; a value
  reported set or changed ("changed it to …", "auf … geändert",
  "поменял на …", "改成了 …"); a value given in a parenthesis or after a
  dash beside its name; a value on a command line (``docker login -p``,
  ``redis-cli -a``, ``zip -P``, ``openssl -passin pass:``, ``smbclient
  -U user%pass``, ``net use … /user:``); an account and its password
  joined by a colon or a slash in a sentence; a value in a markdown
  label; a security question's answer; a value spelled letter by letter.
  Storing it must be refused.
- ``benign``: a note that looks like one and gives no credential: password
  and PIN rules and lengths, rotation notes with a date and no value, where
  a value is kept (a vault path, a sticker on the router), key ids and
  fingerprints, user names and network names alone, hints that give no
  value, promotion and order codes, ports, versions and extensions, in the
  same languages. It must be stored or flagged for review, never refused.

The split is fixed: within each category, every third row (the 3rd, 6th,
...) is ``held_out`` and is not looked at while rules are tuned; the rest
is ``dev``.
"""

from __future__ import annotations

from prose_set import write

# (language, text): a credential is given; storing it must be refused.
SECRETS: list[tuple[str, str]] = [
    # Languages the earlier sets hold few of.
    ("sv", "Lösenordet till routern är Blåbär!2291, användare admin."),
    ("da", "Adgangskoden til kontorets wifi er Rugbrød#74."),
    ("no", "Passordet til NAS-en er Fjellrev_58, ikke del det."),
    ("fi", "Salasana palvelimelle on Kuusi!Metsä42."),
    ("cs", "Heslo k routeru je Jezevec#903."),
    ("pl", "Moje hasło do banku: Sikorka!4471"),
    ("hu", "A jelszó a szerverhez: Pipacs_2288"),
    ("ro", "Parola de la wifi este Brad!Verde19."),
    ("el", "Ο κωδικός του wifi είναι Elia#2024."),
    ("uk", "Пароль від пошти: Соняшник_77!"),
    ("he", "הסיסמה לשרת היא Tamar#5521"),
    ("fa", "رمز عبور وای‌فای: Anar#1402"),
    ("th", "รหัสผ่านเซิร์ฟเวอร์คือ Mali#8842"),
    ("id", "Kata sandi akun email saya: Melati!2290"),
    ("ms", "Kata laluan wifi rumah ialah Durian#88."),
    ("vi", "Mật khẩu wifi nhà mình là Sen!Hong2024."),
    ("tr", "E-posta şifrem Martı!4419, kimseye söyleme."),
    ("hi", "ईमेल का पासवर्ड Kamal#7788 है।"),
    ("ar", "كلمة السر للراوتر Zaytun!2291"),
    ("sv", "PIN-koden till kortet är 7 3 0 4."),
    ("fi", "Pankkikortin PIN-koodi on 5192."),
    ("uk", "ПІН-код картки: 8 2 6 4."),
    # A value reported set or changed.
    ("en", "I changed the NAS password to Heron!Bay27 this morning."),
    ("en", "Reset the printer's admin password; it's now Quill#5502."),
    ("de", "Ich habe das WLAN-Passwort auf Kastanie!81 geändert."),
    ("fr", "J'ai changé le mot de passe du serveur en Ortie#4410."),
    ("es", "Cambié la contraseña del correo a Almendro!63."),
    ("ru", "Пароль от роутера поменял на Клён#2290."),
    ("zh", "我把路由器密码改成了 Songshu#66。"),
    ("ja", "ルーターのパスワードを Tsubame#31 に変えました。"),
    ("ko", "공유기 비밀번호를 Gaeguri#55 로 바꿨어요."),
    ("pt", "Troquei a senha do wifi para Caju!Doce8."),
    # A value beside its name, in a parenthesis or after a dash.
    ("en", "Logged into the router (password Otter#Falls9) and opened port 443."),
    ("en", "NAS admin — pw Cinder!Gate47 — don't write it on the whiteboard."),
    ("de", "Server neu gestartet (Kennwort: Holunder#36), läuft wieder."),
    ("it", "Ho configurato il NAS (password: Rondine#58) e funziona."),
    # Command lines.
    ("en", "docker login -u ci-bot -p Marten!Road88 registry.internal"),
    ("en", "redis-cli -h cache01 -a Plover#3391 ping"),
    ("en", "zip -P Fennel!22 backup.zip notes/*.txt"),
    ("en", "openssl pkcs12 -in cert.p12 -passin pass:Juniper#74 -nodes"),
    ("en", "smbclient //fileserver/share -U dana%Lark!Wood56"),
    ("en", "net use Z: \\\\files\\team /user:CORP\\dana Wren#Hill33"),
    ("en", "htpasswd -b /etc/nginx/.htpasswd admin Sorrel!48"),
    ("en", "PGPASSWORD=Thistle#62 psql -h db01 -U reporting sales"),
    # An account and its password joined in a sentence.
    ("en", "Staging DB is reachable as reporting:Mallow!Pier5 from the VPN."),
    ("en", "For the kiosk use kiosk / Amber#Road19 and lock the screen after."),
    ("de", "Für den Drucker gilt admin:Birke#7703, bitte nicht weitergeben."),
    ("es", "El usuario del NAS es admin y su contraseña, Tomillo#45."),
    ("pt", "Usuário suporte, senha Ipê!Amarelo3, só para o plantão."),
    # A markdown label.
    ("en", "**Password:** Gannet!Crest71"),
    ("en", "- **VPN PSK**: Osprey#Ridge40"),
    ("de", "**Passwort:** Lärche!3390"),
    # A security question's answer.
    ("en", "Security question for the bank (mother's maiden name): Kowalczyk."),
    ("en", "Answer to 'first pet's name' on the insurance site is Pickles1998."),
    ("fr", "Question secrète du compte (ville de naissance) : réponse Quimper."),
    # Spelled letter by letter, or in parts.
    ("en", "The wifi password is capital K, then e-s-t-r-e-l, then 4, 4, exclamation mark."),
    ("en", "Router pw, in two halves: Falcon# and then 6610."),
    ("de", "Das Passwort buchstabiert: großes M, a, r, d, e, r, dann 7 7."),
    # Other shapes, other words.
    ("en", "Our family vault master password stays Cedar&Moth&1962 until further notice."),
    ("en", "If the alarm beeps, the disarm code you want is 6 6 1 8."),
    ("en", "The admin pass I gave the contractor: Ferrous!Bell8"),
    ("en", "Bike lock's combo, if you borrow it: 3 9 1 7"),
    ("nl", "Het wachtwoord van de NAS heb ik veranderd in Reiger#2291."),
    ("sv", "Jag bytte lösenordet till Lingon!4477 i går."),
    ("pl", "Zmieniłem hasło do routera na Borsuk#6612."),
    ("tr", "Modem şifresini Papatya#58 olarak değiştirdim."),
]

# (language, text): looks like a credential but gives none; never refused.
BENIGN: list[tuple[str, str]] = [
    # Rules and lengths.
    ("en", "Passwords must be at least 14 characters and include a symbol."),
    ("en", "PINs are four to six digits; 0000 and 1234 are rejected."),
    ("de", "Das Passwort muss mindestens 12 Zeichen lang sein."),
    ("fr", "Le mot de passe doit contenir 12 caractères dont un chiffre."),
    ("es", "La contraseña debe tener al menos 10 caracteres."),
    ("sv", "Lösenordet måste vara minst 12 tecken långt."),
    ("da", "Adgangskoden skal have mindst 12 tegn."),
    ("no", "Passordet må ha minst 12 tegn og ett tall."),
    ("fi", "Salasanan on oltava vähintään 12 merkkiä pitkä."),
    ("cs", "Heslo musí mít alespoň 12 znaků."),
    ("hu", "A jelszónak legalább 12 karakterből kell állnia."),
    ("ro", "Parola trebuie să aibă cel puțin 12 caractere."),
    ("el", "Ο κωδικός πρέπει να έχει τουλάχιστον 12 χαρακτήρες."),
    ("uk", "Пароль має містити щонайменше 12 символів."),
    ("he", "הסיסמה חייבת להכיל לפחות 12 תווים."),
    ("th", "รหัสผ่านต้องมีอย่างน้อย 12 ตัวอักษร"),
    ("id", "Kata sandi minimal 12 karakter dan wajib ada angka."),
    ("vi", "Mật khẩu phải có ít nhất 12 ký tự."),
    ("tr", "Şifre en az 12 karakter olmalı."),
    ("ar", "يجب أن تتكون كلمة المرور من 12 حرفًا على الأقل."),
    # Rotation notes with no value.
    ("en", "Rotated the NAS password on 2026-03-14; the new one is in the vault."),
    ("en", "Changed the router password yesterday, ask Dana for it in person."),
    ("de", "WLAN-Passwort am 3. März geändert, steht im Passwortmanager."),
    ("fr", "Mot de passe du serveur changé le 12 mai, voir le coffre."),
    ("ru", "Пароль от роутера поменял вчера, он в менеджере паролей."),
    ("zh", "路由器密码昨天改了，新密码在密码管理器里。"),
    ("ja", "ルーターのパスワードは昨日変えました。新しいものは金庫の紙にあります。"),
    ("ko", "공유기 비밀번호는 어제 바꿨어요. 관리자에게 물어보세요."),
    ("pl", "Zmieniłem hasło do routera, nowe jest w menedżerze haseł."),
    ("sv", "Jag bytte lösenordet i går; det nya finns i valvet."),
    # Where a value is kept.
    ("en", "The wifi password is printed on the sticker under the router."),
    ("en", "Password: see vault path secret/ops/nas (ask for access)."),
    ("de", "Passwort: siehe Tresor, Eintrag 'NAS Büro'."),
    ("es", "La contraseña está en el gestor, carpeta 'Oficina'."),
    ("pt", "A senha fica no cofre da equipe, item 'Roteador'."),
    ("it", "La password è nel gestore, voce 'Server di casa'."),
    # Key ids, fingerprints, names alone.
    ("en", "GPG key id 0x3AA5C34371567BD2, used to sign the releases."),
    ("en", "SSH host key fingerprint SHA256:nThbg6kXUpJWGl7E1IGOCspRomTxdCARLviKw6E5SY8"),
    ("en", "KMS key alias alias/backup-2026, key id 1f3c9a7e-52b4-4d1e-8c0a-7e9b3f2d6a41."),
    ("en", "Access key id for the CI user is listed in IAM; the secret never leaves the vault."),
    ("en", "Wifi network name: Harbour_Guest (open, no password)."),
    ("de", "Benutzername für den Drucker: admin, das Passwort kennt die IT."),
    ("fr", "Identifiant du NAS : admin ; le mot de passe est chez l'informaticien."),
    ("uk", "Логін до пошти: o.koval, пароль у менеджері паролів."),
    # Hints and questions with no value.
    ("en", "Password hint: the name of the first street we lived on."),
    ("en", "Security question set: 'first pet's name'; answer kept offline."),
    ("es", "Pista de la contraseña: el nombre del perro, con el año."),
    # Codes that open nothing.
    ("en", "Use promo code SPRING25 at checkout for a quarter off."),
    ("en", "Order 7781-2234-90 shipped; tracking number 1Z999AA10123456784."),
    ("en", "The service listens on port 5432 and the admin UI on 8443."),
    ("en", "Upgrade to version 4.12.3 before rotating any password."),
    ("en", "Dial extension 4471 for the help desk, 9 for an outside line."),
    ("de", "Gutscheincode HERBST20 gilt bis Sonntag."),
    ("fr", "Le code postal du bureau est 69003."),
    ("es", "El código de error 0x80070005 significa acceso denegado."),
    ("ru", "Индекс офиса 190000, Санкт-Петербург."),
    ("zh", "订单号 20260314-8831，快递单号 SF1234567890。"),
    ("ja", "郵便番号は 150-0002 です。"),
    ("ko", "내선 번호는 4471 이고 외부 전화는 9번을 누르세요."),
    ("tr", "Sipariş numarası 7781-2234, kargo yolda."),
    ("hi", "पिन कोड 110001 है, यह दिल्ली का डाक कोड है।"),
    # Command lines that prompt, and placeholders.
    ("en", "docker login -u ci-bot --password-stdin < token.txt (the token comes from CI)"),
    ("en", 'redis-cli -h cache01 -a "$REDIS_PASSWORD" ping'),
    ("en", "zip -e backup.zip notes/*.txt asks for the password twice."),
    ("en", "**Password:** (ask the on-call engineer)"),
    ("en", "smbclient //fileserver/share -U dana (it prompts for the password)"),
    ("de", "Das Passwort habe ich geändert, aber noch nicht aufgeschrieben."),
]


def main() -> None:
    write("secret_prose_dev6", {"secret": SECRETS, "benign": BENIGN})


if __name__ == "__main__":
    main()
