"""Write tests/data/secret_prose_corpus.jsonl: secrets given in prose and their look-alikes.

Usage, from the repository root::

    python3 tests/data/make_secret_prose_corpus.py

Every text was written for memoryd (see secret_prose_corpus.LICENSE); the
passwords, PINs and keys in it are made up. The split is fixed: within each
category, every third row (the 3rd, 6th, ...) is ``held_out`` and is not
looked at while rules are tuned; the rest is ``dev``.
"""

from __future__ import annotations

from prose_set import write

# (language, text): a credential is given in the text; storing it must be refused.
SECRETS: list[tuple[str, str]] = [
    ("en", "The root password is Qx7-harbour-19"),
    ("en", "fyi the wifi password for the office is kettle42blue"),
    ("en", "The admin passphrase was set to lantern_9_orbit yesterday."),
    ("en", "My bank PIN is 4826, please remember it for me."),
    ("en", "Jenkins login: deploybot / Tr1cky&Pony"),
    ("en", "Use marble77!fox as the password for the staging database."),
    ("en", "hunter2-xyz is the root password on the build box."),
    ("en", "Password changed to Zebra#2291 after the incident."),
    ("en", "The door code is 7731 and the alarm code is 0420."),
    ("en", "If that fails, try the password 'p4ss-Wombat' instead."),
    ("en", "The API key for the weather service is wx-88f2a91c7d3e."),
    ("en", "Her secret token: tk9f81b2c7e04a"),
    ("en", "The access token is a7f3c9e21b88d4"),
    ("en", "The S3 key is AKIA IOSF ODNN 7EXA MPLE, keep it safe."),
    (
        "en",
        "token: g h p _ 1 6 C 7 e 4 2 F 2 9 2 c 6 9 1 2 E 7 7 1 0 c 8 3 8 3 4 7 a e 1 7 8 B 4 a",
    ),
    ("en", "the stripe key is s.k._.l.i.v.e._.4eC39HqLyjWDarjtT1zdp7dc"),
    ("en", "slack bot token x-o-x-b-2-4-9-8-7-1-0-1-1-1-1-1-A-b-C-d-E-f-G-h-I-j-K-l"),
    ("en", "The unlock code for the phone is 583920."),
    ("fr", "Le mot de passe du routeur est Bleu!Cerise42"),
    ("fr", "Mot de passe changé en soleil_77_lune ce matin."),
    ("fr", "Le code PIN de la carte est 3917."),
    ("fr", "Utilise le mot de passe Rivage#88 pour le serveur."),
    ("de", "Das Passwort für den Server lautet Wald-Eule-73"),
    ("de", "Kennwort: Apfel9Baum!"),
    ("de", "Die PIN der Karte ist 6604."),
    ("de", "Das neue Passwort ist jetzt Berg7Tal#2."),
    ("es", "La contraseña del correo es Luna_42_Sol"),
    ("es", "Contraseña: perro7Gato!"),
    ("es", "El PIN del cajero es 9152."),
    ("es", "Usa la contraseña Mar#Azul19 para entrar."),
    ("pt", "A senha do wifi é casa2024verde"),
    ("pt", "Senha: Bolo!Fubá77"),
    ("pt", "A nova senha foi alterada para Praia_09_Sul."),
    ("ru", "Пароль от сервера: Zvezda-58-Kot"),
    ("ru", "Новый пароль — moroz7Les!"),
    ("ru", "ПИН-код карты 2741."),
    ("zh", "服务器的密码是 Qiu2024!feng"),
    ("zh", "数据库口令：hai_yang_83"),
    ("zh", "银行卡密码是 705213"),
    ("zh", "新密码改成了 Lan9Tian#x"),
    ("ja", "サーバーのパスワードは sakura77Neko です"),
    ("ja", "パスワード：Yama-Kawa-42"),
    ("ja", "暗証番号は 8362 です。"),
    ("ko", "서버 비밀번호는 Haneul42!san 입니다"),
    ("ko", "비밀번호: Bada_7_Byeol"),
    ("ko", "카드 비밀번호는 5829 입니다."),
    ("vi", "Mật khẩu wifi là nhaxanh2024"),
    ("vi", "Mật khẩu máy chủ: Song#Hong88"),
    ("tr", "Sunucu şifresi Deniz-Kus-64"),
    ("tr", "Şifre: kedi7Kopek!"),
    ("ar", "كلمة المرور للخادم هي Nakhla-2024-x"),
    ("ar", "كلمة السر: Qamar#77b"),
    ("nl", "Het wachtwoord van de router is Tulp!Molen38"),
    ("nl", "Wachtwoord: fiets_92_brug"),
    ("nl", "De pincode is 4417."),
    ("pl", "Hasło do serwera to Wisla#2024k"),
    ("pl", "Hasło: kot7Pies!"),
    ("it", "La password del server è Tramonto_61_x"),
    ("it", "Il PIN della carta è 2284."),
    ("sv", "Lösenordet till routern är Alg!Skog42"),
    (
        "en",
        "-----BEGIN RSA PRIVATE KEY-----\n"
        "MIIEpAIBAAKCAQEA7bq9xY3kP2m8vQ4rT6wZ1nL0cH5jD8fG2sK9aE3uR7yB4tM6\n"
        "-----END RSA PRIVATE KEY-----",
    ),
    (
        "en",
        "jwt for the test user: eyJhbGciOiJIUzI1NiJ9 . eyJzdWIiOiIxMjM0NTY3ODkwIn0"
        " . dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U",
    ),
    ("en", "The github token is\nghp_16C7e42F292c6912\nE7710c838347ae178B4a"),
    ("en", "aws key A.K.I.A.I.O.S.F.O.D.N.N.7.E.X.A.M.P.L.E for the backup job"),
]

# (language, text): looks like a credential is given, but none is; must be stored.
BENIGN: list[tuple[str, str]] = [
    ("en", "The password policy requires 12 characters and one digit."),
    ("en", "Reset your PIN at the bank if you forget it."),
    ("en", "We upgraded to version 2.4.1 on Tuesday."),
    ("en", "Team meeting at 14:30 in room 4021."),
    ("en", "The API key is stored in Vault under secret/weather."),
    ("en", "Rotate the token every 90 days."),
    ("en", "Reviewed commit 9fceb02d0ae598e95dc970b74767f19372d61af8, looks good."),
    ("en", "The build failed with error code 1603 on Windows."),
    ("en", "The password is stored in the keychain, not in the repo."),
    ("en", "Password must be at least 16 characters long."),
    ("en", "The token expired at 2024-03-01, renew it from the console."),
    ("en", "Ask Alice for the password; she keeps it in 1Password."),
    ("en", "The login page returns HTTP 401 when the password is wrong."),
    ("en", "PIN entry is locked after 3 attempts for 24 hours."),
    ("en", "The passcode screen appears after 5 minutes idle."),
    ("en", "Use the password manager for every shared account."),
    ("en", "The API key field is empty in the staging config."),
    ("en", "Secret rotation ran at 03:00 UTC without errors."),
    ("en", "The key is in the drawer next to the printer."),
    ("en", "Code review for PR 4312 is due Friday."),
    ("en", "The access code changed last week; ask facilities for the new one."),
    ("en", "Token bucket rate limit: 100 requests per 60 seconds."),
    ("en", "The password reset email goes out within 10 minutes."),
    ("en", "Login succeeded after the VPN reconnected at 09:15."),
    ("en", "The error code was E1042 from the payment gateway."),
    ("en", "SSH keys live in ~/.ssh and are backed up weekly."),
    ("en", "Passwords were hashed with bcrypt cost 12."),
    ("en", "The secret is to preheat the oven to 220 degrees."),
    ("en", "Token count for the prompt was 4096."),
    ("en", "The key to the release is testing on ARM64 first."),
    ("en", "Set PIN length to 6 digits in the MDM profile."),
    ("en", "Use the password from the onboarding email to log in the first time."),
    ("en", "The password was changed yesterday by the on-call engineer."),
    ("en", "Try the login again after 15 minutes."),
    ("en", "The JWT library was bumped to 2.8.0."),
    ("en", "Git commit a1b2c3d fixed the race in the scheduler."),
    ("fr", "Le mot de passe doit contenir au moins 12 caractères."),
    ("fr", "Changez votre code PIN à l'agence."),
    ("fr", "Le mot de passe est dans le coffre de l'équipe."),
    ("de", "Das Passwort muss mindestens 10 Zeichen lang sein."),
    ("de", "Die PIN kann man am Automaten ändern."),
    ("de", "Das Kennwort ist im Tresor gespeichert."),
    ("es", "La contraseña debe tener al menos 8 caracteres."),
    ("es", "La contraseña está guardada en el gestor del equipo."),
    ("pt", "A senha expira a cada 90 dias."),
    ("pt", "A senha é pessoal e não deve ser compartilhada."),
    ("ru", "Пароль должен содержать не менее 12 символов."),
    ("ru", "Пароль хранится в менеджере паролей."),
    ("zh", "密码长度至少为 12 位。"),
    ("zh", "密码保存在团队的保险库里。"),
    ("ja", "パスワードは 90 日ごとに変更してください。"),
    ("ja", "パスワードは金庫に保管されています。"),
    ("ko", "비밀번호는 최소 12자 이상이어야 합니다."),
    ("ko", "비밀번호는 보관함에 저장되어 있습니다."),
    ("vi", "Mật khẩu phải có ít nhất 12 ký tự."),
    ("tr", "Şifre en az 12 karakter olmalıdır."),
    ("ar", "يجب أن تتكون كلمة المرور من 12 حرفًا على الأقل."),
    ("nl", "Het wachtwoord moet minimaal 12 tekens lang zijn."),
    ("pl", "Hasło musi mieć co najmniej 12 znaków."),
    ("it", "La password deve avere almeno 12 caratteri."),
    ("sv", "Lösenordet måste vara minst 12 tecken långt."),
    ("en", "The password is correct, but the account is locked."),
    ("en", "Server room code of conduct: badge in, badge out."),
    ("en", "Token refresh happens at 11:45 each night."),
]


def main() -> None:
    write("secret_prose_corpus", {"secret": SECRETS, "benign": BENIGN})


if __name__ == "__main__":
    main()
