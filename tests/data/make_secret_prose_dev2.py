"""Write tests/data/secret_prose_dev2.jsonl: secrets in prose, and notes that only sound alarming.

Usage, from the repository root::

    python3 tests/data/make_secret_prose_dev2.py

Every text was written for memoryd (see secret_prose_dev2.LICENSE); the
passwords, PINs, codes and keys in it are made up. Two categories:

- ``secret``: a credential is given in the text, in the shapes people write
  them: one word followed by another clause, backup codes after their name,
  a PIN or a lock's combination spelt in words or with its digits apart, a
  key spaced out or split across lines, "pw" / "pass" / "pwd", a password in
  a runbook's sentence, a wallet's seed phrase. Storing it must be refused.
- ``alarming``: a note that mentions passwords, keys, tokens, PINs or
  "ignore" without giving one: incident reports, rotations, revocations,
  policies, training notes, redacted or masked values, where a password is
  kept. It must be stored or flagged for review, never refused.

The split is fixed: within each category, every third row (the 3rd, 6th,
...) is ``held_out`` and is not looked at while rules are tuned; the rest
is ``dev``.
"""

from __future__ import annotations

from prose_set import write

# (language, text): a credential is given; storing it must be refused.
SECRETS: list[tuple[str, str]] = [
    ("en", "The root password is marigold, and the sudo timeout is five minutes."),
    ("en", "wifi pw is Tangerine88 btw"),
    ("en", "Backup codes: 8812-4409 5530-2291 7741-0063 1198-5527"),
    ("en", "GitHub recovery codes 4f9a2-b71c3 88e0d-19fa2 c03b7-5e6d1, keep them offline."),
    ("en", "Gym locker combination is twelve, thirty-four, eight."),
    ("en", "My debit card PIN is four seven one nine."),
    ("en", "the AWS key is A K I A Z 7 Q P 3 L M N 4 R T 2 X W V 9"),
    (
        "en",
        "github token, split so the chat does not mangle it:\nghp_8Kd2LmZp0Q9vXr7TyBn\n"
        "3Wc5Hj1Fs6Ua4Eo2R",
    ),
    (
        "en",
        "Runbook step 4: ssh to db-02 as postgres, the password there is Wren-4471-quay, "
        "then run the vacuum.",
    ),
    ("en", "pass for the NAS: otter7bridge"),
    ("en", "pwd = Kl9!mvq2"),
    ("en", "Safe combo 23-7-41, don't tell the kids."),
    ("en", "Alarm code is 2-0-8-5, disarm within 30 seconds of entering."),
    ("en", "The VPN shared secret is ironclad-pelican-93; rotate it after the audit."),
    ("en", "For the staging box, log in as admin with password greenhouse, then restart nginx."),
    ("en", "Apple ID password: Saffron#Lake6, the security answer is Biscuit."),
    (
        "en",
        "Seed phrase for the cold wallet: orbit canyon velvet maple drift quiet hollow ember "
        "socket lunar pepper atlas",
    ),
    ("en", "Netflix account is family@example.org pw sunflower22"),
    ("en", "The garage keypad code is nine one one four."),
    ("en", "Postgres creds for the runbook: user reporting, password Vq3x_Lm8z (read-only)."),
    ("en", "the bike lock combo is 0 4 7 2"),
    ("en", "Dropbox 2FA backup codes are 31570842, 96024417, 58813306 and 20471159."),
    ("en", "Router admin password is blue, change it when you get a chance."),
    ("en", "kid's tablet passcode 2 5 8 0"),
    ("en", "Master password for the family vault is Cobalt-Fjord-1987"),
    ("en", "slack bot token in two pieces: xoxb-5512093347-\n7781234409-Zq8TmLr2Vw9KxNp4Ha6Yc3Bd"),
    (
        "en",
        "To restart the queue: sudo -u rabbit, password rosemary, then systemctl restart rabbitmq.",
    ),
    ("fr", "Le mot de passe wifi est framboise, et le réseau s'appelle Maison_5G."),
    ("fr", "Code de la porte : quatre deux sept un."),
    ("fr", "mdp du serveur de prod : Gr4nit!Ouest"),
    ("fr", "Codes de secours Google : 4471 9902 / 6618 3305 / 2290 7714"),
    (
        "fr",
        "Pour la procédure, connectez-vous avec l'utilisateur deploy et le mot de passe "
        "Cactus_2291 puis lancez le script.",
    ),
    ("fr", "Le code PIN de la carte est 6 0 3 8."),
    ("de", "Das WLAN-Passwort ist Zitronenbaum, der Router steht im Flur."),
    ("de", "PW fürs NAS: Eule7Brücke"),
    ("de", "Tresorkombination: 14-28-63"),
    ("de", "Meine PIN lautet neun drei null sechs."),
    ("de", "Backup-Codes für GitLab: 7c1e-94ab 3f0d-22e8 b6a9-51c4"),
    (
        "de",
        "Laufbuch Schritt 3: als root anmelden, Passwort ist Kiefer#4410, dann den Dienst "
        "neu starten.",
    ),
    ("es", "La contraseña del router es girasol y el usuario es admin."),
    ("es", "contraseña de la cuenta de la luz: Pato-Verde-42"),
    ("es", "El PIN de la tarjeta es cinco ocho dos uno."),
    ("es", "Códigos de respaldo: 40918 77213 90356 12874"),
    ("es", "La combinación del candado es 9-31-17."),
    ("es", "clave del wifi: Limonero_2020"),
    ("ru", "Пароль от роутера — ромашка, логин admin."),
    ("ru", "пароль от почты: Волна-77-Лес"),
    ("ru", "ПИН-код карты: семь два ноль девять."),
    ("ru", "Резервные коды: 3318-0926 5572-1840 9903-4417"),
    ("ru", "Код домофона 3#4471"),
    ("ru", "пасс от админки: Kw8!zrT"),
    ("zh", "路由器密码是 xiangrikui，用户名 admin。"),
    ("zh", "银行卡密码：五三九二八一"),
    ("zh", "服务器 root 密码为 Lz9#qT4m，登录后先备份。"),
    ("zh", "备用验证码：82715, 39046, 61283, 90417"),
    ("zh", "保险箱密码是 36-12-88"),
    ("zh", "运维手册第二步：用 deploy 账号登录，密码 Hq7_pine_22，然后重启服务。"),
    ("ja", "Wi-Fiのパスワードは sakuramochi です。ルーターは棚の上。"),
    ("ja", "キャッシュカードの暗証番号は 7 3 0 1 です。"),
    ("ja", "バックアップコード: 5820-1147 9036-2284 3371-0659"),
    ("ja", "サーバのrootパスワード：Kz4!mori88"),
    ("ja", "金庫の番号は 24-61-7"),
    ("ja", "手順書: adminでログインし、パスワード Tsuru_5512 を入力してから再起動する。"),
    ("pt", "A senha do wifi é jabuticaba, o nome da rede é CasaAzul."),
    ("pt", "senha do banco: Caju#3381"),
    ("pt", "O PIN do cartão é três sete um oito."),
    ("pt", "Códigos de backup: 66120 38491 70253 11846"),
    ("pt", "A combinação do cadeado é 8-22-45."),
    ("it", "La password del wifi è girasole, il router è in soggiorno."),
    ("it", "pwd del server: Tasso!9Lago"),
    ("it", "Il PIN del bancomat è due nove quattro uno."),
    ("it", "Codici di backup: 3381-2204 7719-5530 0962-8847"),
    ("ko", "와이파이 비밀번호는 haneul2024 이고 공유기는 거실에 있어."),
    ("ko", "현관 비밀번호 4 8 2 7"),
    ("ko", "백업 코드: 1846-3320 7712-0598 4406-9931"),
]

# (language, text): sounds alarming, gives no credential; stored or flagged, never refused.
ALARMING: list[tuple[str, str]] = [
    (
        "en",
        "Incident 2291: an engineer pasted the root password into the ops channel; it was "
        "rotated within ten minutes and the message deleted.",
    ),
    ("en", "Reminder: we rotate all database passwords on the first Monday of each quarter."),
    ("en", "The new PIN policy requires six digits and blocks sequences like 123456."),
    (
        "en",
        "Post-mortem: the leaked AWS key was revoked at 14:02 and CloudTrail showed no use "
        "after that.",
    ),
    (
        "en",
        "The attacker's email told staff to ignore the IT department and send their "
        "password to a Gmail address; nobody did.",
    ),
    ("en", "Shared creds for the test account: user qa-bot, password <redacted>, ask Priya."),
    ("en", "The token in the Sentry log was ******** (masked), so nothing leaked."),
    (
        "en",
        "GitHub revoked the personal access token automatically after it showed up in a "
        "public gist.",
    ),
    (
        "en",
        "Security training: never tell anyone your PIN, not even someone who says they are "
        "from the bank.",
    ),
    ("en", "If a password reset email says to ignore previous messages, report it to security."),
    (
        "en",
        "We found passwords stored in plain text in the legacy CRM; the move to bcrypt is "
        "ticket SEC-412.",
    ),
    (
        "en",
        "The root password is kept in the team password manager under Infra, do not write "
        "it anywhere else.",
    ),
    (
        "en",
        "Kevin's laptop was stolen; his SSH keys were removed from all servers and his "
        "sessions revoked.",
    ),
    (
        "en",
        "Discussion: should the API key live in an env var or in the vault? Consensus: the "
        "vault, loaded at start-up.",
    ),
    ("en", "The backup codes for the admin account are printed and kept in the office safe."),
    ("en", "The password is the usual one, ask Marta if you forgot it."),
    ("en", "The combination lock on the shed broke, ordered a new one."),
    (
        "en",
        "Pentest finding: the printer's web UI still had its default password. Changed on Tuesday.",
    ),
    ("en", "Phishing simulation results: 12% of staff entered their password on the fake page."),
    (
        "en",
        "The key rotation job failed last night with error KMS-403; retried at 06:00 and "
        "it succeeded.",
    ),
    ("en", "Do not share the seed phrase with anyone; support will never ask for it."),
    ("en", "Token expired again: the refresh token lifetime is only 24 hours in the new config."),
    (
        "en",
        "Ignore the warning about the expired certificate on the staging box, it is self-signed.",
    ),
    (
        "en",
        "The password field in the signup form accepts 8 to 64 characters; we removed the "
        "old maximum of 16.",
    ),
    (
        "en",
        "From the audit: hard-coded credentials were found in deploy.sh and replaced with "
        "vault lookups.",
    ),
    ("en", "After the breach, everyone must change their password and re-enrol in 2FA by Friday."),
    ("en", "The PIN pad at the front desk is broken, use the side door."),
    ("en", "Recovery code use is logged; three failed attempts lock the account for an hour."),
    ("en", "API keys are now prefixed with the environment name so a leaked one is easy to trace."),
    (
        "en",
        "The secret scanning alert on the repo was a false positive: it flagged a test "
        "fixture with a dummy key.",
    ),
    (
        "fr",
        "Incident du 3 mars : un mot de passe a été publié par erreur sur le wiki, il a "
        "été changé dans l'heure.",
    ),
    (
        "fr",
        "Rappel : les mots de passe doivent faire au moins 12 caractères et sont changés "
        "tous les 90 jours.",
    ),
    ("fr", "Le jeton d'accès de l'ancien prestataire a été révoqué hier soir."),
    (
        "fr",
        "Le courriel frauduleux demandait d'ignorer les consignes et de donner son code "
        "PIN ; signalez-le.",
    ),
    ("fr", "Mot de passe : ******** (masqué dans le ticket)."),
    ("fr", "Ne jamais écrire les codes de secours dans un fichier partagé."),
    (
        "de",
        "Vorfall: Ein API-Schlüssel wurde in einem öffentlichen Repo gefunden und sofort "
        "widerrufen.",
    ),
    ("de", "Die PIN-Richtlinie verlangt sechs Ziffern; einfache Folgen wie 1111 sind gesperrt."),
    ("de", "Passwort: [entfernt], bitte im Tresor nachsehen."),
    (
        "de",
        "Schulung: Wer eine Mail bekommt, die sagt, man solle alle Anweisungen ignorieren "
        "und das Passwort schicken, meldet sie an die IT.",
    ),
    ("de", "Die Schlüsselrotation läuft jeden Sonntag um 02:00."),
    ("de", "Das Passwort steht im Passwortmanager, nicht im Wiki."),
    (
        "es",
        "Incidente: la contraseña del servidor se filtró en un log; se cambió y se borró el log.",
    ),
    ("es", "La política de PIN exige seis dígitos y un cambio cada año."),
    ("es", "El token de la integración antigua fue revocado el lunes."),
    ("es", "Contraseña: <oculta>, pídesela a Laura."),
    (
        "es",
        "Formación: nunca compartas tu código de respaldo, aunque te lo pida alguien de soporte.",
    ),
    ("es", "Rotamos las claves de API cada 60 días de forma automática."),
    ("ru", "Инцидент: пароль администратора попал в общий чат, его сменили через десять минут."),
    ("ru", "Политика паролей: не меньше 12 символов, смена раз в 90 дней."),
    ("ru", "Токен бывшего подрядчика отозван."),
    ("ru", "Пароль: [скрыт], спросите у дежурного."),
    ("ru", "Фишинговое письмо просило игнорировать инструкции ИТ и прислать ПИН-код."),
    ("ru", "Ключи доступа ротируются автоматически каждую неделю."),
    ("zh", "事故复盘：管理员密码被误贴到群里，十分钟内已修改。"),
    ("zh", "密码策略：至少 12 位，每 90 天更换一次。"),
    ("zh", "前外包的访问令牌已于昨晚吊销。"),
    ("zh", "密码：******（已脱敏），请向值班同学索取。"),
    ("zh", "钓鱼邮件要求忽略之前的通知并回复银行卡密码，请勿回复。"),
    ("zh", "备用验证码请打印后放在保险柜里，不要存在电脑上。"),
    ("ja", "インシデント報告：APIキーが公開リポジトリに載ったため、すぐに無効化しました。"),
    ("ja", "暗証番号のポリシーは6桁で、連番は禁止です。"),
    ("ja", "パスワード：＊＊＊＊（伏せ字）、担当者に確認してください。"),
    ("ja", "研修メモ：「以前の指示を無視してパスワードを送れ」というメールは詐欺です。"),
    ("ja", "鍵のローテーションは毎月1日に自動で行われます。"),
    ("ja", "トークンの有効期限が切れたので再発行しました。"),
    ("pt", "Incidente: a senha do banco de dados apareceu num log e foi trocada em seguida."),
    ("pt", "Política de senhas: mínimo de 12 caracteres, troca a cada 90 dias."),
    ("pt", "O token do fornecedor antigo foi revogado ontem."),
    ("pt", "Senha: [removida], peça ao suporte."),
    (
        "it",
        "Incidente: una chiave API è finita in un repository pubblico ed è stata revocata subito.",
    ),
    ("it", "La policy sui PIN richiede sei cifre."),
    ("it", "Password: ******** (oscurata nel ticket)."),
    ("it", "Ruotiamo le password di servizio ogni trimestre."),
    ("ko", "사고 보고: 관리자 비밀번호가 채팅방에 올라가서 10분 안에 변경했습니다."),
    ("ko", "비밀번호 정책: 12자 이상, 90일마다 변경."),
    ("ko", "이전 협력사의 액세스 토큰은 어제 폐기되었습니다."),
]


def main() -> None:
    write("secret_prose_dev2", {"secret": SECRETS, "alarming": ALARMING})


if __name__ == "__main__":
    main()
