"""The grammar of credentials in prose: the words that name a credential in
each language, the phrasings that give one beside its name, and the
validators that judge a value in its sentence.

Owns: the word lists (a password's, a PIN's, a token's, a lock's names; the
words of function, state and description a value is not), the patterns the
rule table's ``prose`` rows run (``_CREDENTIAL_IN_PROSE``,
``_CODE_ENTERED``, ``_CHAT_ANSWER`` …) and their validators
(``_credential_in_prose``, ``_code_entered`` …), and the small pattern
helpers they share with the table (``_one_of``, ``_PLACEHOLDER``). The
rows themselves, which pattern runs with which validator, prefilter and
flags, are ``kernel/scan_rules.py``; this module decides nothing alone.

Invariants (the rule table's, which these patterns and validators are part
of):
- every repetition in every pattern is bounded, and no variable-width
  repetition sits inside another repetition except an optional (``?``)
  group (``tests/unit/test_scan_bounds.py`` lints the parsed patterns of
  the table's rows);
- a validator looks only at its match and at most a bounded window around
  it;
- pure: no state, no I/O.
"""

from __future__ import annotations

import itertools
import re
import unicodedata
from collections.abc import Iterable
from types import MappingProxyType
from typing import Any

from memoryd.kernel.scan_context import sentence_of


def _one_of(words: Iterable[str]) -> str:
    """A pattern matching any of ``words`` (lower case), as their alternation
    longest first does, written as a tree of their shared beginnings: the
    engine tries the words that begin with the character at hand, not every
    word at every place ("pass(?:word|wort|phrase|…)?"). Where one word
    begins another, the longer is tried first, as in the alternation."""
    tree: dict[str, Any] = {}
    for word in words:
        node = tree
        for ch in word:
            node = node.setdefault(ch, {})
        node[""] = {}

    def branch(node: dict[str, Any]) -> str:
        ways = [re.escape(ch) + branch(rest) for ch, rest in sorted(node.items()) if ch]
        if not ways:
            return ""
        body = ways[0] if len(ways) == 1 else "(?:" + "|".join(ways) + ")"
        return "(?:" + body + ")?" if "" in node else body

    return branch(tree)


_PLACEHOLDER = re.compile(
    r"[*xX.•●■█#_-]{1,256}"  # masks: ****, xxxx, ..., ████
    # A masked value shows no more than a prefix or its last four: ghp_****,
    # sk_live_xxxxxxxx, ****1234.
    r"|[A-Za-z0-9]{0,12}[_-]{0,2}(?:[*•●■█]{4,256}|[xX]{6,256})[A-Za-z0-9]{0,4}"
    # Or truncated with an ellipsis between them: sk-...a91f, ghp_…Zq1W.
    r"|[A-Za-z0-9]{0,12}[_-]{0,2}(?:\.{3,16}|…{1,4})[A-Za-z0-9]{0,4}"
    r"|\$\{?[A-Za-z_][A-Za-z0-9_]{0,64}\}?"  # $VAR, ${VAR}
    r"|%[A-Za-z_][A-Za-z0-9_]{0,64}%"  # %VAR% (Windows)
    # An encrypted value is not the secret: a YAML tag that names how it is
    # kept (!vault, !secret) and SOPS's ENC[…].
    r"|![A-Za-z][\w.-]{0,31}|ENC\[[^\]\s]{0,256}\]?"
    # A variable's name (DB_PASSWORD, SMTP_PASS), or a credential's name
    # joined with words that say whose it is or where it goes
    # (PASSWORD_GOES_HERE, your_password_here, ваш_пароль): no value. A
    # passphrase may hold "key" or "pin" among its words ("blue-key-lock").
    r"|(?:[A-Z]{1,16}_){0,3}(?:PASSWORD|PASSWD|PASS|PWD|SECRET|TOKEN|KEY|PIN)(?:_[A-Z]{1,16}){0,3}"
    r"|(?i:(?:(?:[^\W\d_]{1,16}[_-]){0,2}(?:your|my|the|new|ваш|твой|мой|dein|ihr|mein"
    r"|votre|ton|mon|tu|su|mi|seu|sua|meu|tuo|il)[_-](?:[^\W\d_]{1,16}[_-]){0,2}"
    r"(?:password|passwort|passwd|pass|pwd|secret|token|key|pin|пароль|contraseña|senha"
    r"|kennwort|wachtwoord|hasło|mot[_-]de[_-]passe)(?:[_-][^\W\d_]{1,16}){0,3}"
    r"|(?:password|passwort|passwd|pass|pwd|secret|token|key|pin|пароль|contraseña|senha"
    r"|kennwort|wachtwoord|hasło)(?:[_-][^\W\d_]{1,16}){0,2}[_-](?:here|hier|ici|aquí|aqui"
    r"|qui|здесь|goes[_-]here|value|wert|valeur|valor|valore)))"
    r"|\{\{?[^{}]{0,64}\}\}?"  # {{ var }}, {var}
    r"|%\(?[A-Za-z_]{0,32}\)?s"  # %s, %(name)s
    r"|<[^<>]{0,64}>|\[[^\[\]]{0,64}\]"  # <password>, [token]
    # A word that stands for the value, bare or between masks (***REDACTED***).
    r"|[*#_.-]{0,16}(?i:password|passwd|pass|pwd|secret|token|changeme|none|null|nil|true"
    r"|false|undefined|redacted|hidden|example|placeholder|your[_-]?[a-z_-]{0,32})[*#_.-]{0,16}"
)


def _char_classes(token: str) -> tuple[bool, bool, bool, bool]:
    lower = upper = digit = other = False
    for ch in token:
        if "a" <= ch <= "z":
            lower = True
        elif "A" <= ch <= "Z":
            upper = True
        elif "0" <= ch <= "9":
            digit = True
        else:
            other = True
    return lower, upper, digit, other


_WORD_RUN = re.compile(r"[a-z]{4,64}")


# Code that reads the value from somewhere else is not the value.
_REFERENCE = re.compile(
    r"(?:self|this|os|env|process|config|settings|cfg|args|opts|params|ctx|request"
    r"|req|vault|secrets|credentials|creds|data|json|body|form)\.[\w.]{1,128}",
    re.IGNORECASE,
)


_CJK_RUN = re.compile("[\u0e00-\u0e7f\u3040-\u30ff\u3400-\u9fff\uac00-\ud7af]")


# --- credentials named in prose, in any of the languages below -------------------

# The number that opens a lock, named after the lock in languages that put
# the lock first ("लॉकर का कोड", "mã két sắt", "金庫の番号", "금고 번호"): a
# bare "number" or "code" is prose (and 金庫 is also a bank: 信用金庫).
_LOCK_NUMBERS = (
    "लॉकर का कोड", "तिजोरी का कोड", "दरवाज़े का कोड", "दरवाजे का कोड", "गेट का कोड",
    "mã két sắt", "mã két", "mã cửa", "mã khóa", "mã cổng",
    "キーボックスの番号", "ロッカーの番号", "保险箱号码",
    "금고 번호", "도어락 번호", "현관 번호", "사물함 번호",
)
# The password's word in the languages the lists below came to last.
_MORE_PASSWORDS = (
    "συνθηματικό", "лозинка", "лозинку", "лозинке", "პაროლი", "գաղտնաբառ", "گذرواژه",
    "şifrə", "нууц үг", "құпия сөз", "pasahitza", "pasfhocal", "cyfrinair", "fjalëkalim",
    "kodeord",
    # ... and of Uzbek, Tamil, Telugu, Amharic, Lao, Khmer, Burmese and Yoruba.
    "parol", "கடவுச்சொல்", "పాస్‌వర్డ్", "పాస్వర్డ్", "የይለፍ ቃል", "ລະຫັດຜ່ານ", "ពាក្យសម្ងាត់",
    "លេខសម្ងាត់", "စကားဝှက်", "ọrọ igbaniwọle",
)
# Words that name a credential whose value may be digits alone (a PIN, a
# door code, a numeric password), and words that name a key or token (whose
# value is long). A bare "code" or "key" is not here: error codes, status
# codes and the key to a door are prose.
_PASS_WORDS = (
    "password", "passwd", "passphrase", "passcode", "pass code", "pin", "pin code", "pincode",
    "pin-code", "pin number", "door code", "alarm code", "unlock code", "access code",
    "gate code", "safe code", "security code", "keypad", "digicode", "entry code", "buzzer code",
    "intercom code",
    "garage code", "voicemail code", "mailbox code", "رمز البريد الصوتي", "رمز الباب",
    "رمز الخزنة",
    "lock code", "code de la porte", "code d'entrée", "code porte", "türcode", "torcode",
    "código de la puerta", "código da porta", "codice della porta", "код домофона",
    "код от двери", "код двери", "код замка", "门禁码", "門禁碼",
    "login", "mot de passe", "code pin",
    "code secret", "passwort", "kennwort", "geheimzahl", "contraseña", "clave", "senha",
    "пароль", "парол", "пин-код", "пин", "пін-код", "пін", "mật khẩu", "mã pin", "şifre",
    "şifresi", "parola",
    "wachtwoord", "hasło", "hasł", "haslo", "lösenord", "lösenordet", "adgangskode", "salasana",
    # Hungarian changes the stem before a suffix: "jelszó", "jelszavam".
    "heslo", "jelszó", "jelszav", "kata sandi", "kata laluan", "passord", "lozinka", "geslo",
    "κωδικός",
    "סיסמה", "סיסמא", "كلمة المرور", "كلمة السر", "كلمة مرور", "كلمة سر", "رمز المرور",
    "رمز عبور", "पासवर्ड", "पिन",
    # A PIN and an entry code in the Nordic languages, Hebrew and Arabic.
    "סיסמת", "رقم التعريف الشخصي", "code to get in", "code to enter", "code to open",
    "code to unlock", "code to disarm",
    "pinkode", "pin-kode", "pinkod", "pin-kood", "pinkood", "uksekood",
    "väravakood", "turvakood", "קוד הכניסה", "קוד כניסה", "קוד הדלת", "קוד סודי", "הקוד הסודי",
    "رمز البطاقة", "الرقم السري", "رقم سري", "الرمز السري",
    # The password and PIN words of more languages: Serbian, Croatian and Bosnian
    # "šifra", Swahili, Icelandic, Estonian, Latvian, Lithuanian, Afrikaans,
    # Catalan, Galician, Bengali and Urdu.
    "šifra", "šifru", "šifre", "nenosiri", "namba ya siri", "lykilorð", "parool", "parole",
    "slaptažodis", "slaptažodį", "wagwoord", "contrasenya", "contrasinal", "পাসওয়ার্ড",
    "পিন", "پاس ورڈ",
    # Bengali names an entry code by its lock: the locker's, the door's, the
    # gate's, the padlock's, the safe's code.
    "লকারের কোড", "দরজার কোড", "গেটের কোড", "তালার কোড", "সিন্দুকের কোড",
    # ... and of Greek (its other word), Serbian and Macedonian in Cyrillic,
    # Georgian, Armenian, Persian, Azerbaijani, Mongolian, Kazakh, Basque,
    # Irish, Welsh, Albanian and Danish.
    *_MORE_PASSWORDS,
    # A device's unlock code, in the languages that name it so.
    "entsperrcode", "code de déverrouillage", "código de desbloqueo", "codice di sblocco",
    "código de desbloqueio", "код разблокировки", "ontgrendelcode", "kod odblokowania",
    # A meeting host's key is a PIN; a role's code ("the admin code 8824")
    # opens what the role may.
    "host key", "admin code", "master code", "installer code", "engineer code",
    # A PIN, an alarm's, a door's, a screen lock's and a safe's code in
    # Finnish, Hebrew, Arabic, Turkish and Thai; a bank app's mPIN.
    "tunnusluku", "pin-koodi", "קוד האזעקה", "קוד אזעקה", "رمز باب", "ekran kilidi",
    "ekran şifresi", "รหัสตู้เซฟ", "รหัสเซฟ", "mpin", "एमपिन",
    "รหัสผ่าน", "disarm code", "arming code", "비번", "解除コード", "解除番号", "해제 코드",
    "해제 번호", "撤防密码", "撤防密碼", "解除密码",
    # A Wi-Fi network's key is its password.
    "wifi key", "wi-fi key", "wlan key", "wpa key", "wpa2 key", "wpa3 key", "wep key",
    "network key", "clé wifi", "clé wi-fi",
    "clé wpa", "wlan-schlüssel", "wlan-key", "clé du wifi", "clé du wi-fi", "clave del wifi",
    "chave do wifi", "chiave del wifi",
    # ... and so is its code, as a network's password is called on a card.
    "wifi code", "wi-fi code", "wlan code", "wlan-code", "code wifi", "code wi-fi",
    "code du wifi", "code du wi-fi", "código del wifi", "código wifi", "codice wifi",
    "codice del wifi",
    # A SIM's unblocking key and a car radio's code are a PIN's kin; an access
    # code is one in every language.
    "puk", "puk code", "radio code", "geheimnummer", "code confidentiel", "código secreto",
    "code d'accès", "código de acceso", "codice di accesso",
    "zugangscode", "код доступа",
    *_LOCK_NUMBERS,
    "密码", "密碼", "口令", "暗証番号", "パスワード", "パスコード", "비밀번호", "암호",
)
# An account's recovery and backup codes: each a one-time password, its
# value digits as often as not ("backup code 88231190").
_ONE_TIME_CODES = (
    "recovery code", "backup code", "wiederherstellungscode", "code de récupération",
    "código de recuperación", "código de recuperação", "codice di recupero",
    "код восстановления", "herstelcode", "kod odzyskiwania",
)
# The names ``_pass_word`` reads: a password's, a PIN's, a one-time code's.
_DIGIT_VALUED = _PASS_WORDS + _ONE_TIME_CODES
_TOKEN_WORDS = (
    "secret", "token", "api key", "api-key", "apikey", "access key", "secret key",
    "private key", "license key", "licence key", "product key", "client secret", "bearer",
    # A one-time-password generator's seed is its key.
    "authenticator seed", "authenticator key", "authenticator secret", "totp seed", "otp seed",
    "totp secret", "otp secret", "2fa secret", "2fa seed", "mfa secret",
    # A VPN's or a network's pre-shared key is the password both ends hold.
    "pre-shared key", "preshared key", "psk",
    # A disk's or an account's recovery key opens it as its password does.
    "recovery key", "clé de récupération", "wiederherstellungsschlüssel",
    "clave de recuperación", "chave de recuperação", "ключ восстановления", "回復キー",
    # So do an account's recovery codes, each a one-time password.
    *_ONE_TIME_CODES,
    "clé api", "clé secrète", "jeton", "schlüssel", "api-schlüssel", "clave api", "chave",
    "токен", "ключ", "密钥", "令牌", "秘密鍵", "トークン", "토큰", "mã thông báo", "anahtar",
    # An API's key in the languages that write it with their own word for key.
    "apiキー", "apiのキー", "api キー", "api키", "api 키",
)
_CJK = "\u0e00-\u0e7f\u3040-\u30ff\u3400-\u9fff\uac00-\ud7af"
# A code named by what it opens: "codice del cancello", "código de la
# alarma", "code du portail", "код от ворот", "Tresorcode". Its value is a
# PIN's, like a door code's.
_LOCKS = (
    "porte", "portail", "alarme", "garage", "coffre", "immeuble", "entrée", "puerta", "portón",
    "portal", "alarma", "garaje", "caja fuerte", "porta", "portão", "cofre", "cancello",
    "portone", "allarme", "cassaforte", "garagem", "двери", "домофона", "ворот", "подъезда",
    "сигнализации", "сейфа", "deur", "poort", "alarm", "alarmanlage", "tür", "haustür",
    "tresor", "schließfach", "калитки", "гаража", "шлагбаума", "furtki", "bramy", "förrådet",
    "garaget", "dörren", "porten", "larmet", "garagen", "døren", "hoveddøren",
    # A gate in German, named with its preposition ("Code fürs Tor"): "tor"
    # alone is inside too many words ("history", "monitor") for a prefilter's
    # literal. The Danish and Norwegian definite forms ("koden til alarmen").
    "fürs tor", "für das tor", "vom tor", "zum tor", "am tor", "hoftor", "gartentor",
    "einfahrtstor", "alarmen", "låsen", "skabet", "skapet", "boksen",
    # English names the lock after "code to" or "code for": "the code to the
    # front door", "the code for the lockbox".
    "door", "front door", "back door", "gate", "building", "lobby", "safe", "shed", "lockbox",
    "key box", "locker", "padlock", "intercom", "buzzer",
    # ... and the places that lock: "the code for the storage unit is …"
    # (not "house", "office" or "lock": words inside too many others).
    "storage unit", "mailbox", "letterbox", "server room", "apartment", "cabin", "cottage",
    # ... and the devices a code unlocks: "the code for the iPad is …" (not
    # "phone": a phone's code is as often the country's dialling code).
    "ipad", "iphone", "tablet", "laptop", "lock screen", "screen lock",
    # A key box, in the languages that name it by its keys.
    "boîte à clés", "boîte à clé", "caja de llaves", "cassetta delle chiavi", "schlüsselbox",
    "schlüsselkasten", "schlüsseltresor", "sleutelkastje", "sleutelkluis", "ключница",
    # A card's code is its PIN: "code de la carte", "código de la tarjeta".
    "carte", "carte bleue", "cb", "tarjeta", "cartão", "carta", "karte", "карты",
    # The safes, intercoms and garage doors of Dutch, Czech, Polish, Romanian,
    # Norwegian and Ukrainian, as their code's preposition governs them.
    "kluis", "trezor", "trezoru", "sejf", "sejfu", "domofon", "domofonu", "interfon",
    "interfonul", "interfonului", "garasjeporten", "garasjen", "сейфу", "домофону",
    "воріт", "дверей",
)
_LOCK_COMPOUNDS = ("türcode", "torcode", "alarmcode", "tresorcode", "safecode", "garagencode",
                   "haustürcode", "eingangscode", "deurcode", "poortcode", "kluiscode", "portkod",
                   "dörrkod", "larmkod", "dørkode", "portkode", "alarmkode",
                   # Hungarian names the lock first: "a széf kódja", or joins
                   # the two into one word: "kapukód", "ajtókódja".
                   "széf kódja", "ajtó kódja", "kapu kódja", "riasztó kódja",
                   "kaputelefon kódja", "kaputelefonkód", "kapukód", "ajtókód", "széfkód",
                   "riasztókód", "belépőkód")
# A door or a gate named alone, then a connector, is named for its code:
# "Door: 4471", "Tür: 4471", "дверь — 4471" (never bare: "door 12").
_DOORS = frozenset(("door", "front door", "back door", "gate", "side gate", "tür", "haustür",
                    "porte", "portail", "puerta", "portón", "portão", "porta",
                    "cancello", "portone", "дверь", "калитка", "ворота", "lockbox", "key box",
                    "keybox", "key safe", "deur", "poort", "dörr", "dør",
                    # A safe or a padlock is named for its code as a door is.
                    "safe", "room safe", "hotel safe", "wall safe", "padlock", "bike lock",
                    "combination lock"))
_LOCK_CODE = (
    # A lock or key drawn before a lock's name stands for its code ("🔐
    # server room 7734", "🔑 garage: 4471").
    r"(?:code|c[óo]digo|codice|код|koden|kode|kod|kód|kódu|codul|🔐|🔑|🔒)(?: (?:de|du|del"
    r"|de la|da|do|della|dell'|dello|dei|от|від|для|do|od|van|voor|für|fürs|vom|zum|zur|of"
    r"|for|to|till|til|až))?"
    r"(?: (?:la|l'|el|le|o|a|il|lo|the|die|den|das|de|het|ma|mon|mi|mein|meiner|my|minha|meu|mia"
    r"|mio))? ?(?:"
    + "|".join(_LOCKS) + r")(?![^\W\d_])|" + "|".join(_LOCK_COMPOUNDS)
    # English names the lock first, and may name the part that takes the
    # code: "the shed lock code", "garage remote code", "lockbox (code …)".
    + r"|(?:door|gate|garage|shed|lockbox|key box|locker|padlock|safe|alarm|intercom|building"
    r"|lobby|buzzer|ipad|iphone|tablet|laptop|lock screen|screen lock)"
    r"(?: (?:lock|remote|keypad|panel|box))?(?: \(| |-)code"
    # A door or a gate named alone, then a connector, is named for its code
    # (longest first, ties by the words: the set's order follows the hash seed).
    + r"|(?:" + "|".join(sorted(_DOORS, key=lambda w: (-len(w), w)))
    + r")(?= ?[:：=] ?\d| (?:is|ist|est|es|é|è|—|–|-) \d)"
)
_LOCK_CODE_WORD = re.compile(_LOCK_CODE, re.IGNORECASE)
# A lock named in a code's clause ("code d'accès de l'immeuble"): the code is
# the lock's, short as a door code is.
_LOCK_NAMED = re.compile(r"(?<![^\W\d_])(?:" + "|".join(_LOCKS) + r")(?![^\W\d_])", re.IGNORECASE)
# Every match of ``_LOCK_CODE`` holds one of these no further than
# ``LOCK_CODE_LEAD`` characters from its start (the prefilter's promise).
_LOCK_CODE_LITERALS = _LOCKS + _LOCK_COMPOUNDS + tuple(sorted(_DOORS))
LOCK_CODE_LEAD = len("codice") + len(" della") + len(" meiner") + len(" ")


# A code of another kind, named before "code": an error's, a status's, a
# promotion's, a product's ("error code for the door controller: E4211").
_OTHER_CODE_BEFORE = re.compile(
    r"\b(?:error|status|exit|return|response|http|zip|postal|post|area|country|promo|promotion"
    r"|discount|coupon|voucher|product|tracking|order|qr|bar|source|fehler|erreur|código de error"
    r"|codice di errore|ошибк\w{0,2})[ -]?$", re.IGNORECASE)


# A number of another kind named before the lock it is for: "tracking
# number for the new safe", "order no. for the padlock".
_NUMBER_FOR_LOCK = re.compile(
    r"\b(?:tracking|order|serial|model|invoice|warranty|reference|delivery|parcel|shipment"
    r"|part|item|product|booking) (?:number|no\.?|#|id) (?:for|of) (?:the |my |our |a |an )?"
    r"(?:new |old |spare )?$", re.IGNORECASE)


# Where a credential is kept, said of its name: "… is in the drawer", "…
# ist im Safe", "… est sur le routeur".
_KEPT_AT = re.compile(
    r" (?:is|are|'s|est|ist|está|esta|è|är|er|zit|staat|ligt|jest) (?:kept |stored |written |saved"
    r" |taped |stuck )?(?:in|on|at|under|inside|behind|dans|sur|sous|im|in|auf|unter|en|no|na"
    r"|nel|nella|sul|sulla|i|på|op|w|pod)\b", re.IGNORECASE)


def _other_code(m: re.Match[str]) -> bool:
    """Whether the code word of ``m`` ("code for the door") names an error's
    or a product's code: the word before it says which; or whether the lock
    ``m`` names is what another kind of number is for ("tracking number for
    the new safe")."""
    before = m.string[max(0, m.start("word") - 48):m.start("word")]
    if _NUMBER_FOR_LOCK.search(before) is not None:
        return True
    if not m.group("word").lower().startswith(("code", "código", "codigo", "codice", "код", "kod")):
        return False
    return _OTHER_CODE_BEFORE.search(m.string[max(0, m.start() - 24):m.start()]) is not None


def _pass_word(word: str) -> bool:
    """Whether ``word`` (lower case) names a credential whose value may be
    digits alone: a password, a PIN, a code that opens something."""
    return (word.startswith(_DIGIT_VALUED) or _LOCK_CODE_WORD.match(word) is not None
            or word in _DOORS)


# A word of the lists above with up to three letters of inflection after it
# ("passwords", "паролем", "şifresi"); a word of three letters or fewer
# ("pin", "пин") takes only a plural "s": longer, it starts other words
# ("pinto", "pinball") that name no credential.
# Arabic writes "and", "with", "for" and "so" as one letter joined to the
# word (وكلمة المرور, بكلمة المرور), and Hebrew its article and prepositions
# (הסיסמה): after one of them the word still starts.
# A word may head a compound after a hyphen: "GPG-Passphrase", "NAS-Kennwort".
# In a script written without spaces, a Latin word starts and ends where
# that script stops and starts again: "我的PIN是4471", "私のPINは4471です".
# A word may close a variable's name ("DB_PASSWORD is …", "set ADMIN_PIN to
# …"): ``_credential_in_prose`` reads it only where the name ends.
_LATIN_WORD = (
    # One look back: no letter or digit of a spaced script, no dot, hyphen or
    # slash, before the word (an underscore or a CJK character may be).
    r"(?:(?<![^\W_" + _CJK + r"]|[.\-/])|(?<=(?<![\w.\-/])[وبلفהובלשמכ])|(?<=[^\W_]{{2}}-))"
    r"(?:(?:{})[^\W\d_" + _CJK + r"]{{0,3}}|(?:{})s?)(?![^\W\d_" + _CJK + r"])")
_LATIN_CRED = tuple(sorted((w for w in _PASS_WORDS + _TOKEN_WORDS
                            if not re.search("[" + _CJK + "]", w)), key=len, reverse=True))
# What the prefilters of the rows that read a credential's name look for:
# every credential word, or the password words alone, and the locks' words.
_CREDENTIAL_NAMES = tuple(w.lower() for w in _PASS_WORDS + _TOKEN_WORDS) + _LOCK_CODE_LITERALS
_PASSWORD_NAMES = tuple(w.lower() for w in _PASS_WORDS) + _LOCK_CODE_LITERALS


def _cred_word(words: tuple[str, ...]) -> str:
    """The group ``word``: one of ``words`` (a Latin one whole, as
    ``_LATIN_WORD`` reads it; one in a CJK script anywhere) or a lock's code."""
    latin = tuple(w for w in _LATIN_CRED if w in words)
    return (r"(?P<word>" + _LATIN_WORD.format(_one_of(w for w in latin if len(w) > 3),
                                              _one_of(w for w in latin if len(w) <= 3))
            + "|" + "|".join(w for w in words if re.search("[" + _CJK + "]", w))
            + r"|(?<![\w-])(?:" + _LOCK_CODE + "))")


_CRED_WORD = _cred_word(_PASS_WORDS + _TOKEN_WORDS)
# The same, of the password words alone: the rows whose prefilter is the
# password words' (``_PASSWORD_NAMES``) read only them, so that a token's
# name their validators refuse ("client secret … lautet acht eins …") never
# takes the place of a PIN's name after it, as it would without the
# prefilter.
_PASS_CRED_WORD = _cred_word(_PASS_WORDS)


def _nested(word: str, most: int, optional: str) -> str:
    """Up to ``most`` repetitions of ``word`` as nested optional groups: each
    count is reached one way only, so a failing match backtracks through
    ``most`` choices, not through every way of spreading them over groups."""
    out = ""
    for _ in range(most):
        out = "(?:" + word + out + ")" + optional
    return out


# What a credential is for, between its name and a colon: "for the cold
# wallet", "fürs NAS", "del server", "от почты" (a preposition and up to
# three words, no digit, in one clause).
_WHAT_FOR_WORDS = frozenset("""
for of on to at für fürs vom von zum zur pour du de des del della dello di da do dos para от для
voor van för till
""".split())
_WHAT_FOR = (r" (?:for|of|on|to|at|für|fürs|vom|von|zum|zur|pour|du|de|des|del|della|dello"
             r"|di|da|do|dos|para|от|для|voor|van|för|till)"
             + _nested(r" [^\W\d_][^\s\d.,;:=!?]{0,23}+", 3, "?"))


# "it's", "that's", "c'est": a copula with its subject, after the name or
# after a question mark ("the wifi? it's …").
_ITS = (r"| ?\?? (?:it's|it is|that's|c'est|es ist|это)(?= )"
        # A contracted copula ("the password's …") and a question answered with
        # no verb ("Das Kennwort vom Laptop? Schwalbe_Nord7").
        r"|(?<=[^\W\d_])['’]s(?= )| ?\?(?: (?:A|R|Antwort|Réponse|Respuesta|Resposta|Risposta"
        r"|Ответ|答|回答)[:：])?(?= )")
# A clause's gap between a credential word and its connector: no quote,
# bracket or assignment; an apostrophe only inside a word ("de l'immeuble",
# "dell'allarme"), where it elides, never quotes.
def _gap_char(also: str = "") -> str:
    """One character of such a gap; ``also``: a class of characters it may
    not be either."""
    # A full stop inside a name is no sentence end: "the password for j.doe
    # is …", "for db.example.net".
    return (r"(?:[^" + also + r".!?;\n。！？\"'`()<>{}\[\]=]|(?<=[^\W\d_])'(?=[^\W\d_])"
            r"|(?<=[^\W_])\.(?=[^\W_]))")


_GAP_CHAR = _gap_char()
# What joins the name to its value: a verb ("is", "was set to", "lautet",
# "est"), a colon, an equals sign, a dash, a slash after a user name, or a
# CJK particle (the value then follows a CJK character).
_CONNECT = (
    r"(?: (?:is|was|are|were|be|becomes|to|as|now|est|était|sera|en|ist|lautet|war|wird|es"
    r"|era|será|é|è|foi|fica|är|var|blir|er|jest|je|to|là|hi|adalah|ialah|είναι|היא|הוא|هي|هو"
    r"|в|है|—|–|-|=>|->|→|:="
    # The copulas of more languages (Bulgarian, Macedonian, Latvian,
    # Lithuanian, Swahili, Filipino, Bengali), and of reported speech, which
    # some languages put in the subjunctive ("der Code sei 7203").
    r"|е|ir|yra|ni|ay|হল|হলো|sei|wäre|soit|sea|fuera|fosse|jadi|menjadi"
    # ... of Romanian, Serbian in Cyrillic, Welsh, Albanian, Lao and Khmer.
    r"|este|је|yw|ydy|është|ແມ່ນ|គឺ"
    # Estonian and Finnish "on" ("parool on …") is English "on" ("the
    # password on db03"): a copula only right after a word of theirs.
    r"|(?:(?<=parool )|(?<=parooli )|(?<=salasana )|(?<=kood )|(?<=koodi )|(?<=tunnusluku ))on"
    # A change's target, when a verb of change stands in the sentence
    # (``_credential_in_prose`` looks): "Passwort auf … geändert", "сменил
    # пароль на …", "zmieniłem hasło na …", "mudei a senha para …".
    r"|(?P<to>auf|para|на|na|till|til|naar|in|en|به)"
    # A value reported changed: "el código del garaje cambió a 7741".
    r"|(?:cambió|cambiado|changé|changée|geändert|umgestellt|mudou|mudada|cambiato|cambiata"
    r"|поменяли|изменили|сменили|поменял|изменил|сменил) (?:a|en|pour|auf|zu|para|in|на)"
    # ... or with the converb of a verb-final language, the value after it:
    # "एमपिन बदलकर 582036 कर दिया" (Hindi), Urdu "بدل کر", Bengali "বদলে".
    r"|बदलकर|बदल कर|بدل کر|বদলে"
    # Or given with a verb: "for the router password use Kestrel#88".
    r")(?= )| (?P<verb>use|try|type|enter|nimm|benutze|verwende|utilise|utilisez|usa|utiliza"
    r"|digite|введи|используй)(?= )"
    # A question and its answer ("my PIN? it's 3907"), or a demonstrative
    # copula ("mon code de carte c'est 6194").
    + _ITS +
    r"| ?[:=：]| /|(?<=[" + _CJK + r"]))"
)
_NOW = (r"(?: (?:now|still|jetzt|noch|maintenant|désormais|toujours|ahora|todavía|agora|ainda"
        r"|теперь|nu|teraz|ora|ancora|bây giờ)(?= ))?"
        # After a colon, the verb that gives the value: "wifi password: use …".
        r"(?: (?:use|type|enter|nimm|utilise|usa|введи)(?= ))?")
# A value stops at a CJK or Thai character: the particle or word after it.
_VALUE_CHARS = r"[^\s\"'`,;，。、“”«»「」()<>" + _CJK + "]"
# The value holds a digit or a symbol somewhere (a word alone is prose).
# (A digit of any script: ٢٠٢٤ is a year as much as 2024 is.)
_VALUE = (r"(?P<secret>(?![=:])(?=" + _VALUE_CHARS + r"{0,63}[\d!#$%&*+@^~?=|\\])"
          + _VALUE_CHARS + r"{4,64})")
_OPEN = r" ?[\"'`“«「]?"

_CREDENTIAL_IN_PROSE = (
    # The gap stays in one clause of prose: no quote, bracket or assignment
    # (code and markup beside the word are not its value).
    _CRED_WORD + r"(?:(?P<gap>" + _GAP_CHAR + r"{0,48}?)" + _CONNECT + _NOW
    # Or no connector at all: the value right after the name, or after what
    # it is for ("Пароль от вайфая …", "password wifi …"; Russian and Turkish
    # have no copula in the present): then the value must end the clause.
    + r"|(?P<what>" + _WHAT_FOR + r"| [^\W\d_]{2,24}+)? )"
    + _OPEN + _VALUE
)
# A key given in groups, as it is read out or copied from a card: "api key
# 9f8e 7d6c 5b4a 3928 …", "recovery key 4123-9023-…". After a credential's
# name, with or without a connector, four to twelve groups of four to eight
# letters and digits, one separator throughout, end the clause.
_KEY_IN_GROUPS = (
    _CRED_WORD + r"(?P<gap>" + _GAP_CHAR + r"{0,32}?)(?:" + _CONNECT + r")?"
    r" ?(?P<secret>[A-Za-z0-9]{4,8}(?P<sep>[ -])[A-Za-z0-9]{4,8}(?P=sep)[A-Za-z0-9]{4,8}"
    r"(?P=sep)[A-Za-z0-9]{4,8}" + _nested(r"(?P=sep)[A-Za-z0-9]{4,8}", 8, "?") + r")(?![\w-])"
)


def _key_in_groups(m: re.Match[str]) -> bool:
    joined = re.sub(r"[ -]", "", m.group("secret"))
    if len(joined) < 16 or _modified(m.group("gap")) or _PLACEHOLDER.fullmatch(joined):
        return False
    if _CLAUSE_END_AFTER.match(m.string, m.end()) is None or len(set(joined.lower())) < 6:
        return False
    if not any(ch.isdigit() for ch in joined):
        return False
    # Words in groups ("BLUE FISH CAKE …") are a phrase, not a key.
    return sum(len(w) for w in _WORD_RUN.findall(joined.lower())) <= len(joined) // 2


# The value first, then what it is: "hunter2-xyz is the root password",
# "use marble77!fox as the password".
_CREDENTIAL_NAMED_AFTER = (
    r"(?<![^\s\"'`(])[\"'`“]?" + _VALUE + r"[\"'`”]?(?: (?:is|was|as|will be|=|est|ist|es|é|è"
    r"|är|jest|to|là|—|-|comme|como|come|als|jako|как|som|olarak|for) "
    r"|,? (?:that's|c'est|это|to je) | ?(?:是|就是|は|が|는|은|이|가) ?"
    # Or its name in brackets after it: "maria / 4471 (PIN)", "… (wifi password)".
    r"| \()"
    r"(?:[^\s.!?;:]{1,20} )?(?:[^\s.!?;:]{1,20} )?(?:[^\s.!?;:]{1,20} )?" + _CRED_WORD
)

# A line that names a credential and ends in a colon binds it to what ends
# the line after the colon, or, when nothing does, to the next line alone:
# "API key (no prefix, paste it as is):\nq7Rt2…", "La password te la scrivo
# qui sotto:\nRondine!Blu88", "Chave da API (sem prefixo): h2Kq8…". An aside
# in brackets may stand between the name and the colon; a value quoted whole
# ("GPG passphrase (don't lose it): \"the otter ate my 3rd sandwich\"") is
# the value as the quotes mark it; a key split over the next lines is the
# lines joined. The value is judged as ``_CREDENTIAL_IN_PROSE``'s.
_LINE_VALUE = (
    _CRED_WORD + r"(?P<gap>[^\n.!?。！？:：]{0,80}?)[:：](?: {0,2}| {0,2}\n[ \t]{0,4})"
    # A key may go on over up to three more lines, split to fit a chat (a
    # space where the lines were joined).
    r"(?:(?P<secret>[^\s\"'`,;()<>\[\]{}“”«»「」]{4,64}"
    + _nested(r"(?:[ \t]{0,4}\n[ \t]{0,4}| )[A-Za-z0-9+/=_-]{8,64}", 3, "?") + ")"
    r"|(?P<quote>[\"“«「])(?P<quoted>[^\"“”«»「」\n]{6,64})[\"”»」])"
    r"[ \t]{0,4}(?:\n|$)"
)


def _line_value(m: re.Match[str]) -> bool:
    """A value that ends a credential's line, or is the whole next line
    (``_LINE_VALUE``); judged as a value in prose, or, quoted whole, as a
    phrase of three words or more with no placeholder in it."""
    gap = m.group("gap")
    if _modified(gap) or _other_code(m) or any(
            w.strip("(),").lower() in _HEAD_NOUNS for w in gap.split()):
        # "Password (see the policy): …", "API key (format): …" speak of
        # a rule or a form, not of the value.
        return False
    if m.group("quoted") is not None:
        phrase = m.group("quoted")
        words = phrase.split()
        if _PLACEHOLDER.search(phrase) or any(ch in phrase for ch in "<>{}$*•"):
            return False
        return len(words) >= 3 and not all(w.lower() in _FUNCTION_WORDS for w in words)
    pieces = m.group("secret").split()
    if len(pieces) > 1:
        # A key split over lines: pieces of letters and digits, a digit in
        # each (words are prose), that joined are a key's length.
        key = "".join(pieces)
        lower, upper, _, _ = _char_classes(key)
        return (all(p.isalnum() and any(ch.isdigit() for ch in p) for p in pieces)
                and 16 <= len(key) <= 256 and (lower or upper))
    return _credential_in_prose(m)


# A chat's turn that asks for a credential binds the next turn's answer when
# that answer is the value alone: "[09:14] ana: alarm code?\n[09:15] ben:
# 5529", "<kim> root password?\n<lee> Walnut_Grove9", "— Le code du portail ?\n—
# 4826". The rules read the folded copy, where the line break is a space:
# the next turn is known by its speaker (a time in brackets, a name in angle
# brackets or before a colon, a dash), and the value ends the text or comes
# before the next speaker. The answer may open with a copula ("it's …").
_SPEAKER = (r"(?:\[[^\]]{1,24}\] ?)?(?:<[^>]{1,24}> ?|[^\W\d_][\w.\-]{0,23}[:：] ?|[—–-] ?)")
_CHAT_ANSWER = (
    _CRED_WORD + r"(?P<gap>[^?？:：\[\]<>]{0,40}?) ?[?？]? " + _SPEAKER
    + r"(?:(?:it's|it is|that's|es|c'est|это|ist|is|é|è) )?" + _OPEN
    # Digits read out one by one answer too: "Lena: 3 7 7 1".
    + r"(?P<secret>\d(?: \d){3,7}(?= [^\W\d_][\w.\-]{0,23}[:：] |$)"
    + r"|[^\s\"'`,;()<>“”«»]{4,64}?)[\"'”»]?[.!]?"
    r"(?=$| [\[<—–-]| [^\W\d_][\w.\-]{0,23}[:：] )"
)


_SPEAKER_NAME = re.compile(r"([^\W\d_][\w.\-]{0,23})[:：]")


def _chat_answer(m: re.Match[str]) -> bool:
    """The answer to a turn that names a credential (``_CHAT_ANSWER``): not
    when the turn speaks of a rule, a form or a manager ("which password
    manager?"). A speaker known only by a name and a colon answers a
    question: with no question mark, "recovery key ID: …" and "token name:
    …" label the value of another noun."""
    if any(w.strip("(),").lower() in _HEAD_NOUNS for w in m.group("gap").split()):
        return False
    turn = m.string[m.end("gap"):m.start("secret")]
    name = _SPEAKER_NAME.search(turn)
    if name is not None and (name.group(1).lower() in _HEAD_NOUNS or (
            "?" not in turn and "？" not in turn and not re.search(r"[\]>—–-]", turn))):
        return False
    if " " in m.group("secret"):
        # Digits read out one by one answer a PIN's or a code's question.
        return _pass_word(m.group("word").lower()) and not _year_shaped(
            m.group("secret").replace(" ", ""))
    return _credential_in_prose(m)


# A table whose header names a password column binds the cell under it: in
# "| service | user | password |", then "|---|---|---|", the first row's
# third cell is the password. The row is read on its line, or after a space
# where the text's lines were joined.
# (A cell holds no bar, so each row splits one way: the pattern stays linear.)
_TABLE_ROW_EDGE = r"[ \t]{0,4}\n?[ \t]{0,4}\|"


def _cells(cell: str) -> str:
    """Two to eight cells of a table's row, each ``cell`` and a bar."""
    return cell * 2 + _nested(cell, 6, "?")


_PASSWORD_TABLE = (
    r"\|(?P<head>" + _cells(r"[^|\n]{1,40}\|") + ")" + _TABLE_ROW_EDGE
    + r"(?P<sep>" + _cells(r"[ \t]{0,4}:?-{2,40}:?[ \t]{0,4}\|") + ")" + _TABLE_ROW_EDGE
    + r"(?P<secret>" + _cells(r"[^|\n]{1,64}\|") + r")(?=[ \t]{0,4}(?:\n|$| \|))"
)
_COLUMN_NAMES = frozenset("""
password passwords passwort kennwort pass pw pwd passphrase pin passcode secret mdp contraseña
clave senha пароль hasło wachtwoord lösenord şifre parola heslo 密码 密碼 パスワード 비밀번호
""".split()) | {"mot de passe", "kata sandi", "mật khẩu"}


def _password_table(m: re.Match[str]) -> bool:
    """The cell of ``_PASSWORD_TABLE``'s first row under a password column
    holds a value of a password's shape: letters with digits or symbols, or
    four to twelve digits that are no year; no mask or placeholder."""
    head = [c.strip().lower() for c in m.group("head").split("|")[:-1]]
    row = [c.strip() for c in m.group("secret").split("|")[:-1]]
    columns = [i for i, name in enumerate(head) if name in _COLUMN_NAMES]
    if not columns or len(row) != len(head) or m.group("sep").count("|") != len(head):
        return False
    value = row[columns[0]]
    if not 4 <= len(value) <= 64 or " " in value or _PLACEHOLDER.fullmatch(value):
        return False
    if _REFERENCE.fullmatch(value) or _DATE_TIME_VERSION.fullmatch(value) or "://" in value:
        return False
    if value.isdigit():
        return len(value) <= 12 and not _year_shaped(value)
    lower, upper, digit, _ = _char_classes(value)
    strong = any(ch in _STRONG_SYMBOL for ch in value)
    return bool(((lower or upper) and (digit or strong)) or (digit and strong))


# --- credentials given as words ---------------------------------------------------
#
# A passphrase of plain words ("correct horse battery staple"), a password in
# letters of a script with no digit in it (МедведьСпит), a quoted word: the
# value has no shape of its own, so where it sits decides. A password word
# (not a PIN, login or token word: their values are not phrases) is the
# subject, a connector follows, and the value is the whole rest of the clause:
# three or more words none of which is a function word; two after a colon; one
# in quotation marks, or one of a cased script other than Latin that changes
# case inside (Latin camel case is the shape of product names: PostgreSQL).
_PHRASE_WORDS = (
    "password", "passwd", "passphrase", "passcode", "pass code", "mot de passe",
    "passwort", "kennwort", "contraseña", "senha", "пароль", "парол", "mật khẩu", "şifre",
    "şifresi", "wachtwoord", "hasło", "haslo", "lösenord", "lösenordet", "adgangskode",
    "salasana", "heslo", "jelszó", "kata sandi", "kata laluan", "passord", "lozinka", "geslo",
    "κωδικός", "סיסמה", "סיסמא", "كلمة المرور", "كلمة السر", "كلمة مرور", "كلمة سر",
    "رمز المرور", "رمز عبور", "पासवर्ड", "รหัสผ่าน", *_MORE_PASSWORDS,
    "密码", "密碼", "口令", "パスワード", "비밀번호", "암호",
)
_LATIN_PHRASE = tuple(sorted((w for w in _PHRASE_WORDS if not re.search("[" + _CJK + "]", w)),
                             key=len, reverse=True))
_PHRASE_WORD = (
    # A compound's last part counts: WLAN-Passwort.
    r"(?P<word>(?:(?<![\w.\-/])|(?<=[^\W\d_]{2}-))(?:"
    + _one_of(_LATIN_PHRASE)
    + r")[^\W\d_]{0,3}(?![^\W\d_])|" + "|".join(w for w in _PHRASE_WORDS
                                                if re.search("[" + _CJK + "]", w)) + ")"
)
# A word of letters, of any script, with the combining marks that spell it
# (the vowel signs of Devanagari and its kin, Hebrew and Arabic points,
# accents); taken whole (possessive): a word is never part of a value.
# What ends a clause that gives a value: a conjunction ("girasol y el usuario
# es admin") or a copula after it ("sakuramochi です"); a passphrase's words
# run on only where neither follows.
_CLAUSE_ENDS = (r" (?:and|but|or|so|et|mais|und|aber|y|pero|e|ma|и|но|و)(?= )"
                r"| ?(?:です|입니다|이다|だ)")
_CLAUSE_GOES_ON = "(?!" + _CLAUSE_ENDS + ")"
_LETTERS = (r"(?:[^\W\d_]|[\u0300-\u036f\u0591-\u05c7\u0610-\u061a\u064b-\u065f"
            r"\u0900-\u0963\u0981-\u0df4]){1,32}+")
_CREDENTIAL_AS_WORDS = (
    _PHRASE_WORD
    + r"(?P<gap>" + _nested(r" [^\s.!?;:=\"'`()<>{}\[\]。！？：，,]{1,24}+", 4, "??") + ")"
    # An aside in brackets names which one: "password (for the alarm company):".
    + r"(?: \([^()\n]{1,40}\))?"
    + r"(?P<sep> ?[:=：]| (?:is|was|are|be|becomes|now|est|était|sera|ist|lautet|war|wird|es"
    r"|era|será|é|è|foi|fica|är|var|blir|er|jest|to|là|adalah|ialah|είναι|היא|הוא|هي|هو"
    r"|—|–|-|c'est|it's|that's)(?= )"
    r"|(?<=[" + _CJK + r"]) ?(?:是|为|為|は|が|는|은|이|가))"
    + _NOW + r" ?(?P<open>[\"'`“‘«„「『]?)"
    + r"(?P<secret>(?=[\d" + _CJK + r"]{0,23}\d)[\d" + _CJK + r"]{3,24}|" + _LETTERS
    + _nested(_CLAUSE_GOES_ON + " " + _LETTERS, 5, "?") + ")"
    + r"(?P<close>[\"'`”’»“」』]?)"
    + r"(?= ?(?:[.,;:!?。，！？、)\]]|$)|" + _CLAUSE_ENDS
    + r"| ?(?:예요|이에요|이야|야)(?![\uac00-\ud7af]))"
)
# Function words, and what a note says of a password rather than what it is:
# a value holding one is a sentence, not a passphrase.
_FUNCTION_WORDS = frozenset("""
a an the this that these those it its is are was were be been being am not no none nor
and or but if then than so as at by for from in into of off on onto out over per to under
up upon via with within without about after before behind below above between through
during until since while where when which who whom whose what how why here there now still
also only just even very too more most less least much many few some any all each every
both either neither same other such own my your his her our their we you he she they i me
us them him one characters chars letters digits numbers symbols words days weeks months
years hours minutes times attempts tries password passwords passphrase passcode pin code
token key secret login ask see check contact call use get request find refer enter type
share send available vault keychain bitwarden 1password lastpass keepass dashlane sso ldap
reception whiteboard
le la les l un une des du de d au aux à est sont était ce cet cette ces il elle on nous
vous ils elles je tu ne pas plus et ou mais dans sur sous avec sans pour par en y que qui
dont très trop aussi même tout tous toute toutes son sa ses mon ma mes ton ta tes notre
votre leur leurs caractères chiffres lettres symboles mots jours mois voir voyez demander
demandez
der die das den dem des ein eine einen einem einer eines sind waren wird werden im ins am
an auf aus bei mit nach von vor zu zum zur für über unter und oder aber nicht kein keine
noch schon sehr auch nur es er sie wir ihr ich du man sein seine mein meine dein deine
unser zeichen ziffern buchstaben wörter tage gespeichert beim vom bis um durch gegen ohne
seit bitte siehe fragen erfragen nachfragen
el los las lo unos unas del al son está están pero ni con sin para por se su sus mi mis
tus muy también caracteres dígitos letras palabras días ver véase pedir pregunta preguntar
o os as um uma do da dos das em no na nos nas é são não com sem seu sua meu minha muito ao
aos às veja pergunte perguntar
il lo gli uno di della dei delle nel nella è sono non senza per che si suo mio mia molto
anche caratteri cifre lettere parole giorni al alla vedi chiedi chiedere
в во на с со и или но не нет по для от до из к ко у о об это этот эта как так же ли бы что
он она они мы вы я ты его её их мой моя наш ваш очень тоже уже ещё символов символа цифр
букв слов дней хранится см смотри спросить спроси узнать
في من على إلى الى عن مع لا أن ان هذا هذه ذلك تلك كان كانت أو ثم قد لم لن ما التي الذي
""".split())
# What a note says of a password in a word or two ("the password is case
# sensitive", "Password: required"): with so few words, these are prose.
_STATE_WORDS = frozenset("""
required optional mandatory wrong incorrect invalid valid expired expiring weak
strong short long empty blank missing unknown unset set changed reset rotated stored saved
kept encrypted hashed hidden masked visible different default temporary new old case
sensitive insensitive complex simple unique shared written printed sent needed locked
unlocked disabled enabled enforced ok okay fine good bad random secure insecure compromised
leaked known forgotten lost obligatoire requis incorrect faux erforderlich falsch ungültig
obligatorio incorrecto obrigatória incorreta неверный неправильный обязателен верный
""".split())
# A number followed by what it counts, in Chinese, Japanese and Korean.
_COUNTED = re.compile(r"\d(?:年|月|日|号|時|时|分|秒|文字|字|桁|位|个|個|回|次|件|人|歳|岁|円|元|天"
                      r"|以上|以内|년|월|일|자|개|번|시|초|글자|세|원)")
# A letter in a cased script other than Latin (Cyrillic, Greek, Armenian, …).
_NON_LATIN_CASED = re.compile(r"[\u0370-\u058f\u10a0-\u10ff\u1e00-\u1eff]")


# A conjunction and the word after it; and the words that open a clause with
# a subject of its own (a determiner or a pronoun).
_CONJUNCTION_THEN = re.compile(r" (?:and|but|or|so|et|mais|und|aber|y|pero|e|ma|и|но|و)"
                               r" ([^\W\d_]{1,16})", re.IGNORECASE)
_NEW_SUBJECT = frozenset("""
the a an this that these those my your his her our their its it we you he she they i
nobody everyone everybody someone somebody nothing no
le la les l un une ce cette ces mon ma mes son sa ses notre votre leur il elle on nous vous ils
der die das den ein eine mein meine sein seine unser es er sie wir ihr ich du man
el los las un una mi mis su sus tu nuestro él ella nosotros usted yo
o os as um uma meu minha seu sua ele ela nós você eu
il lo gli uno una mio mia suo sua io lui lei noi voi loro
это этот эта мой моя его её их наш ваш он она они мы вы я ты
""".split())


_HANGUL_WORD = re.compile("[\uac00-\ud7af]{2,16}")
# The endings of a Korean predicate (있어요, 합니다, 없다) and the particles
# of place (뒷면에, 서랍에서, 팀장에게).
_KO_PREDICATE = ("요", "다", "죠", "음", "함")
_KO_PLACE = ("에", "에서", "에게", "한테")
_COPULA_KO = re.compile(" ?(?:입니다|이다|예요|이에요|야|이야)(?![\uac00-\ud7af])")


# Words of sameness: a password "the same as last year's" ("takie samo jak w
# zeszłym roku", "dasselbe wie letztes Jahr") is compared to another, not given.
_SAME_WORDS = frozenset("""
same takie taki taka samo sama gleiche gleich dasselbe derselbe dieselbe même mismo misma
mesmo mesma stesso stessa zelfde dezelfde hetzelfde samma samme такой такая такое тот та то
aynı giống
""".split())


def _credential_as_words(m: re.Match[str]) -> bool:
    """A password given as words: see ``_CREDENTIAL_AS_WORDS``."""
    if _modified(m.group("gap")):
        return False
    before = m.string[max(0, m.start() - 8):m.start()].lower()
    if re.search(r"(?:\b(?:de|des|du|del|di|da|do|dei|della)|d')\s?$", before):
        # "politique de mot de passe", "política de contraseñas": the
        # credential word names the kind of another noun, the subject.
        return False
    value = m.group("secret")
    after = _CONJUNCTION_THEN.match(m.string, m.end("close"))
    if " " not in value and after is not None and after.group(1).lower() not in _NEW_SUBJECT:
        # "is personal and must not be shared": what follows the
        # conjunction still speaks of the password, so the one word before
        # it describes it. A word ends at a conjunction only where a clause
        # with a subject of its own begins ("girasol y el usuario es admin").
        return False
    if any(ch.isdigit() for ch in value):
        # Kana, Hangul or Han letters with digits (さくら2024): a password,
        # unless the digits count something (8文字, 2024年, 12자리).
        digits = sum(ch.isdigit() for ch in value)
        return 2 <= digits < len(value) and _COUNTED.search(value) is None
    words = [w.lower() for w in value.split(" ")]
    if any(w in _FUNCTION_WORDS or w in _SAME_WORDS for w in words):
        return False
    if len(words) > 1 and _HANGUL_WORD.fullmatch(words[-1]) and (
            words[-1].endswith(_KO_PREDICATE) or any(w.endswith(_KO_PLACE) for w in words)):
        # A Korean clause that ends in a predicate ("공유기 뒷면에 있어요", on
        # the back of the router) or says where: it tells of the password.
        return False
    open_, close = m.group("open"), m.group("close")
    if open_ and close:
        # A quoted value is given verbatim, whatever its shape.
        return len(value) >= 3 and not (len(words) == 1 and words[0] in _STATE_WORDS)
    if open_ or close or _PLACEHOLDER.fullmatch(value):
        return False
    # A capitalised word alone may end so and be a noun (Schmetterling).
    noun = len(words) == 1 and value[0].isupper() and words[0].endswith("ing")
    if words[0] in _STATE_WORDS or (len(words[0]) >= 5 and words[0].endswith(("ed", "ing"))
                                    and not noun):
        # "was changed yesterday afternoon", "is expiring next week": a verb.
        return False
    if len(words) >= 3:
        return True
    if any(w in _STATE_WORDS for w in words):
        return False
    if len(words) == 1 and m.group("sep").strip().lower() == "are":
        # A plural's one word says what they all are ("passphrases are
        # better"), not what one of them is.
        return False
    label = m.group("sep").strip() in (":", "=", "：")
    if len(words) == 2:
        return label
    word = value
    camel = any(a.islower() and b.isupper() for a, b in itertools.pairwise(word))
    if _NON_LATIN_CASED.search(word) is not None and len(word) >= 6 and camel:
        return True
    # One word after "to" is the object of a verb ("send the passwords to
    # https://…"), after "=" a name in code (password=prompt); a run of CJK
    # text has no word boundary to end at.
    sep = m.group("sep").strip()
    if _HANGUL_WORD.fullmatch(word) and _COPULA_KO.match(m.string, m.end("close")):
        # Korean writes its words apart: one Hangul word between the topic
        # particle and the copula (비밀번호는 바다고양이 입니다) is the value.
        return len(word) >= 3 and word not in _DESCRIBING
    # In Polish, "to" is the copula: "Hasło do wifi to malinowy".
    verb_to = sep == "to" and not m.group("word").lower().startswith(("hasł", "hasl"))
    if verb_to or sep == "=" or _CJK_RUN.search(word) or m.string.startswith("://", m.end("close")):
        return False
    if _describes(word, m.group("word").lower(), sep.lower()):
        # "Passwort: vergessen", "la password è scaduta": a state, not a value.
        return False
    if camel and _alternating_case(word):
        # "TrOmBoNeLaKe": an identifier changes case where a word starts, a
        # password's letters change it at every other one.
        return word.lower() not in _DESCRIBING
    return not camel and _one_word_password(word)


# What a note says a password is, or where it is, in one word: "the password
# is correct", "Password: optional", "Passwort: Bitwarden". Words that say
# neither (swordfish, Sonnenblume) are the password.
_DESCRIBING = frozenset("""
correct right fine safe secret sensitive confidential private public personal individual
identical similar same generic static dynamic numeric alphanumeric important sufficient
insufficient consistent temporary permanent mandatory optional enough here there below
above elsewhere offline online tbd todo pending none nothing unchanged
1password bitwarden keepass keepassxc lastpass dashlane keeper vault keychain vaultwarden
onepassword passbolt sso ldap okta reception whiteboard
vide aucun inconnu correct secret requise
leer geheim richtig unbekannt abgelaufen geändert gesetzt notwendig nötig vertraulich
vacío vacía secreto correcta correcto incorrecta obligatoria desconocido caducado
vazio vazia secreta correta desconhecido
scaduta scaduto cambiata cambiato bloccata bloccato obbligatoria richiesta sbagliata errata
caducada caducado cambiada cambiado bloqueada bloqueado requerida olvidada expirada
pendiente obrigatória obrigatoria alterada alterado expirado incorreta errada pendente
oublié oublie expiré expire bloqué bloque requis obligatoire incorrect périmé perime
ungültig ungultig falsch
пустой секретный правильный неизвестен обязательно
필수 선택 비공개 공개 만료 변경 필요 동일 없음 임시 보안 비밀
""".split())
# English endings of words that describe: expired, expiring, configurable,
# visible, useful, useless, ambiguous, protective.
_DESCRIBING_ENDINGS = ("ed", "ing", "able", "ible", "ful", "less", "ous", "ive")


# What a word of description looks like in the languages whose password
# word or copula names them, in lower case (a German noun is capitalised):
# participles made with a prefix and an ending ("vergessen", "gesperrt",
# "verlopen", "gewijzigd") and Polish participles and negated adjectives
# ("wymagane", "nieprawidłowe"). Romance participles end as many nouns do
# ("caducada" and "empanada", "scaduta" and "limonata"): theirs are listed
# in ``_DESCRIBING`` one by one instead.
_DESCRIBING_SHAPES = MappingProxyType({
    "de": re.compile(r"(?:ge|ver|abge|ange|ausge|zurückge|ent|zer)[^\W\d_]{2,}(?:t|en|et)"
                     r"|[^\W\d_]{2,}lich"),
    "nl": re.compile(r"(?:ge|ver|ont)[^\W\d_]{2,}(?:d|t|en)|[^\W\d_]{2,}lijk"),
    "pl": re.compile(r"nie[^\W\d_]{3,}(?:e|y|a)|[^\W\d_]{2,}(?:ane|one|ony|ęte|ęty)"),
})
# The language a password's word or its copula names.
_WORD_LANGUAGE = (
    ("passwort", "de"), ("kennwort", "de"), ("geheimzahl", "de"), ("wachtwoord", "nl"),
    ("hasł", "pl"), ("hasl", "pl"),
)
_COPULA_LANGUAGE = MappingProxyType({"ist": "de", "lautet": "de", "war": "de", "jest": "pl"})


def _describes(word: str, name: str, sep: str) -> bool:
    """Whether the lower-case ``word`` given after the password word ``name``
    and its connector ``sep`` has the shape of a word of description in
    the language they name."""
    if word != word.lower():
        return False
    language = next((lang for start, lang in _WORD_LANGUAGE if name.startswith(start)),
                    _COPULA_LANGUAGE.get(sep))
    shape = _DESCRIBING_SHAPES.get(language or "")
    return shape is not None and shape.fullmatch(word) is not None


def _alternating_case(word: str) -> bool:
    """Whether the case of ``word``'s letters changes between at least half
    of its neighbours (and at least six times): "TrOmBoNe", never
    "getUserName" or "iPhone"."""
    changes = sum(a.islower() != b.islower() for a, b in itertools.pairwise(word))
    return changes >= 6 and changes * 2 >= len(word) - 1


def _one_word_password(word: str) -> bool:
    """One word given as a password that ends its clause: no word of state,
    pointer or description, no all-capital abbreviation (TBD, N/A)."""
    lower = word.lower()
    if len(word) < 4 or not word.isalpha() or word.isupper() or lower in _STATE_WORDS:
        return False
    if lower in _DESCRIBING or lower in _FUNCTION_WORDS:
        return False
    # A capitalised noun may end so (Schmetterling): "ing" only in lower case.
    endings = _DESCRIBING_ENDINGS[:1] + _DESCRIBING_ENDINGS[2:] if word[0].isupper() \
        else _DESCRIBING_ENDINGS
    return not (word.isascii() and len(word) >= 5 and lower.endswith(endings))


_DATE_TIME_VERSION = re.compile(
    r"v?\d{1,6}(?:\.\d{1,6}){1,3}(?:[-+.][0-9a-z.]{1,16})?"  # 2.4.1, v1.2.3-rc1, 10.0.0.1
    r"|\d{4}-\d{2}-\d{2}(?:t[\d:.]{1,12}z?)?"  # 2024-03-01, 2024-03-01T10:00Z
    r"|\d{1,2}[./-]\d{1,2}[./-]\d{2,4}"  # 01/03/2024
    r"|\d{1,2}[:h]\d{2}(?::\d{2})?(?:am|pm|h|z|utc)?"  # 14:30, 9h15
    r"|\d{1,3}(?:\.\d{1,3}){3}(?::\d{1,5})?"  # 10.0.0.1:8080
    r"|\d{1,9}(?:[.,]\d{1,6})?(?:[a-z]{1,3}|%|°)"  # 90d, 16gb, 12px, 3rd, 50%
    r"|(?:sha|md|ipv|http|utf|arm|x|base|aes|rsa|ec|mp|oauth|python|py|tls|ssl|win|node|java"
    r"|php|es|cve|rfc|iso|h|s)-?\d{1,6}"  # sha256, ipv6, utf-8, python3, x86
    r"|#\d{1,9}|\+?\d{1,4}(?:[ -]\d{2,5}){1,4}"  # #1234, phone numbers
    r"|[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}",  # a UUID: an id
    re.IGNORECASE,
)
# An error, ticket or product number in capitals: E1042, ERR-42, PR-4312, ARM64.
_CODE_NUMBER = re.compile(r"[A-Z]{1,5}-?\d{1,6}")
_EMAIL = re.compile(r"[^@\s]{1,64}@[^@\s]{1,253}\.[A-Za-z]{2,24}")
# A lock's combination: three or four numbers under 100, one dash between.
_COMBINATION_SHAPE = re.compile(r"\d{1,2}(?P<sep>[-–])\d{1,2}(?P=sep)\d{1,2}(?:(?P=sep)\d{1,2})?")
_STRONG_SYMBOL = "!#$%&*+@^~?=|\\"
# Those of them a build, a version or a cipher's name rarely holds.
_SYMBOL_NOT_IN_NAMES = "!#$%&*@^~?"
_COMMIT_CONTEXT = re.compile(r"(?:commit|sha|hash|checksum|digest|revision|rev)\W{0,3}$",
                             re.IGNORECASE)


def _year_shaped(value: str) -> bool:
    """Whether the digits ``value`` read as a year of this century or the last."""
    return len(value) == 4 and value[:2] in ("19", "20")


def _ascii_digits(value: str) -> str:
    """``value`` with each decimal digit of another script as its ASCII digit."""
    if value.isascii():
        return value
    return "".join(str(unicodedata.decimal(ch)) if ch.isdecimal() else ch for ch in value)


# Words that name a code that opens a door, a device or an account, whose
# value is short (a PIN, a door code): there, "AB123" is the code, not an
# error number. An access or security code is as often an invitation to a
# meeting or a course ("access code: RM204"), so it is not here.
_CODE_WORDS = (
    "pin", "passcode", "pass code", "door code", "alarm code", "unlock code", "gate code",
    "safe code", "keypad", "digicode", "entry code", "garage code", "lock code",
    "code de la porte",
    "code d'entrée", "code porte", "türcode", "torcode", "código de la puerta",
    "código da porta", "codice della porta", "код домофона", "код от двери", "код двери",
    "код замка", "门禁码", "門禁碼", "code pin", "geheimzahl", "пин", "mã pin", "暗証番号",
    "पिन", "disarm code", "arming code", *_LOCK_NUMBERS,
)


def _code_word(word: str) -> bool:
    return word.startswith(_CODE_WORDS) or _LOCK_CODE_WORD.match(word) is not None


# Nouns that, right after a credential word, make it a modifier of something
# else: "the password policy is …", "PIN pad is broken", "passphrase rotation
# is quarterly" speak of a policy, a pad, a rotation, not of a credential's value.
# A verb of change (its stem): what makes "auf", "на", "para" after a
# credential's name point at its new value.
_CHANGE_VERB = re.compile(
    r"(?<![^\W\d_])(?:chang|switch|reset|geändert|änder|gesetzt|setz|umgestellt|stell|mis"
    r"|mudei|mudou|mudar|alter|troquei|cambi|смен|помен|измен|постав|устан|zmieni|ustawi|bytt"
    r"|ändra|satt|vaihd|změn|nastav|ganti|ubah|atur|veranderd|verander|gewijzigd|gezet"
    r"|değiştir|endret|ændre|skift|змін|поміня|عوض|تغيير|غيّر|بدل)", re.IGNORECASE)
_HEAD_NOUNS = frozenset((
    "policy", "policies", "rotation", "rotations", "manager", "managers", "field", "fields",
    "pad", "pads", "prompt", "prompts", "reset", "resets", "length", "hint", "hints",
    "requirement", "requirements", "rule", "rules", "strength", "expiry", "expiration",
    "change", "changes", "entry", "entries", "reader", "screen", "box", "dialog", "form",
    "protection", "hash", "hashes", "file", "files", "store", "vault", "generator", "history",
    "recovery", "complexity", "check", "checks", "validation", "format", "page", "setting",
    "settings", "option", "options", "lock", "lockout", "attempt", "attempts", "error",
    "errors", "meter", "list", "lists", "spray", "spraying", "sharing", "reuse", "leak",
    "leaks", "dump", "dumps", "audit", "update", "updates", "email", "mail", "link", "login",
    "guidelines", "standard", "standards", "minimum", "maximum", "size", "type", "types",
    "variable", "variables",
    # What names or identifies a key is no part of it: "recovery key ID: 1A2B3C4D".
    "id", "ids", "fingerprint", "name", "names", "label",
    "politique", "richtlinie", "política", "политика", "менеджер", "поле", "сброс", "длина",
    "требования", "правила", "подсказка",
))


def _modified(gap: str | None) -> bool:
    """Whether the gap after a credential word opens with a noun it modifies."""
    words = (gap or "").split(maxsplit=1)
    return bool(words) and words[0].lower().strip(",") in _HEAD_NOUNS


# What ends a clause after a value: punctuation, the end, or a conjunction.
_CLAUSE_END_AFTER = re.compile(r"\s?(?:[.,;:!?)。，、！？]|$)"
                               r"|\s(?:and|then|but|und|dann|et|puis|y|e|и|а|ve|và|rồi)(?= )"
                               # A copula that comes last (Hindi, Urdu, Persian).
                               r"|\s(?:है|हैं|ہے|ہیں|است|هست)(?![^\W\d_])",
                               re.IGNORECASE)


def _named_what_for(m: re.Match[str], what: str) -> bool:
    """With no connector, what stands between the name and the value says
    what the credential is for ("от вайфая", "wifi"): no noun the name
    modifies ("password reset"), no verb or description ("expired"), no bare
    preposition (a user's name follows "password for"); and the value ends
    its clause."""
    words = what.split()
    if _modified(what) or (len(words) == 1 and (words[0].lower() in _FUNCTION_WORDS
                                                 or words[0].lower() in _WHAT_FOR_WORDS)):
        return False
    last = words[-1].lower()
    if last in _STATE_WORDS or last in _DESCRIBING or last in _FUNCTION_WORDS or (
            last.isascii() and last.endswith("ed")):
        return False
    value = m.group("secret")
    return value.endswith((".", "!", "?")) or _CLAUSE_END_AFTER.match(m.string, m.end()) is not None


# A word that dates what follows: "the PIN was changed in 2019", "PIN
# unchanged since 2021".
_DATED_BY = re.compile(r"\b(?:in|since|until|till|by|from|before|after|during|around|circa"
                       r"|seit|depuis|desde|dal|sinds|od|с|в)\s*$", re.IGNORECASE)


def _pin_value(m: re.Match[str]) -> bool:
    """Four to eight digits after a PIN's or a door code's name are its
    value, a year too ("my PIN is 1984"), unless a word dates the year."""
    value = _ascii_digits(m.group("secret"))
    if _year_shaped(value):
        return _DATED_BY.search(m.string, max(0, m.start("secret") - 12),
                                m.start("secret")) is None
    return True


# The model named as the subject of a control lifted (``injection.controls_lifted``).
_MODEL_NAMED = (r"\b(?:the|this|that|our|your|every|any|an?)(?: [\w-]{1,20})?"
                r" (?:assistant|agent|model|ai|bot|chatbot|llm|helper)s?(?:'s)?\b")
# What lifts a control: approval not needed, checks skipped, safety lifted,
# root granted, secrets free to give out.
_LIFTED = (
    r"\b(?:no longer|doesn't|does not|don't|do not|won't|will not|never) (?:needs?|requires?"
    r"|has to|have to|asks? for|waits? for|gets?) (?:any |an? |the |operator |human |user )?"
    r"(?:approval|confirmation|review|sign-?off|permission)s?\b"
    r"|\b(?:approval|confirmation|review|sign-?off|permission)s? (?:is|are) (?:no longer|not)"
    r" (?:required|needed)\b"
    r"|\bno (?:approval|confirmation|review|sign-?off|permission)s? (?:is |are )?(?:needed"
    r"|required)\b"
    r"|\b(?:skip|bypass|disable|turn off|switch off|ignore|circumvent|evade)s? (?:all |any |the "
    r"|its |your |every )?(?:content |safety |security )?(?:checks?|scans?|scanner|filters?"
    r"|filtering|guardrails?|safeguards?|moderation)\b"
    r"|\b(?:safety|security|content) (?:rules|filters|checks|guardrails|restrictions|limits)"
    r" (?:were|are|have been|has been|got) (?:lifted|removed|disabled|turned off|switched off"
    r"|suspended|waived)\b"
    r"|\b(?:has been|have been|was|were|is now|are now) granted (?:root|admin|administrator"
    r"|full|unrestricted|sudo)\b"
    r"|\b(?:may|can|is allowed to|are allowed to|is permitted to|are permitted to|is free to)"
    r" (?:now |freely |always )?(?:disclose|reveal|share|print|output|send|give out)"
    r" (?:the |all |any |its |stored |saved )?(?:api keys?|passwords?|credentials?|secrets?"
    r"|tokens?|system prompt)\b"
)


# What a value given first opens (``secret.value_for_what_it_opens``).
_OPENED = ("wifi", "wi-fi", "wlan", "router", "hotspot", "guest network", "alarm", "door",
           "front door", "gate", "safe", "lockbox", "locker", "vpn", "laptop", "ipad", "tablet")


_NAMED_BEFORE = re.compile(r"\b(?:ssid|network|name|named|called|model|version)\W{0,3}$",
                           re.IGNORECASE)


def _value_for_what_it_opens(m: re.Match[str]) -> bool:
    """Letters, digits and a password's symbol, no address or placeholder,
    no name ("SSID Cafe#5G for the wifi"), and what it opens ends the clause."""
    value = m.group("secret")
    lower, upper, digit, _ = _char_classes(value)
    if not ((lower or upper) and digit and any(ch in _SYMBOL_NOT_IN_NAMES for ch in value)):
        return False
    if _NAMED_BEFORE.search(m.string, max(0, m.start() - 12), m.start()):
        return False
    if _EMAIL.fullmatch(value) or "://" in value or _PLACEHOLDER.fullmatch(value):
        return False
    return _CLAUSE_END_AFTER.match(m.string, m.end()) is not None


def _credential_in_prose(m: re.Match[str]) -> bool:
    """A credential named in prose and given beside its name.

    The value must look like one: letters with digits or symbols, digits
    with symbols, or (for a password or PIN) four to twelve digits that are
    no year; never a placeholder, a reference to where the value is kept, a
    path or address, a date, time, version, quantity, or an error, ticket or
    standard's number; never a hash named as a commit.
    """
    word = m.group("word").lower()
    what = m.groupdict().get("what")
    if what is not None and not _named_what_for(m, what):
        return False
    if m.groupdict().get("to") is not None and _CHANGE_VERB.search(
            m.string[max(0, m.start() - 40):m.start("secret")]
            + " " + m.string[m.end():m.end() + 30]) is None:
        # "auf", "на", "para" name a new value only with a verb of change.
        return False
    if m.groupdict().get("verb") is not None and (
            word[:-1] in _PASS_WORDS + _TOKEN_WORDS
            or _CLAUSE_END_AFTER.match(m.string, m.end()) is None):
        # Given with a verb, a value ends its clause and is one credential's:
        # "tokens use JWT-RS256 signatures" states a rule for them all.
        return False
    start, end = m.start("word"), m.end("word")
    if m.string[end:end + 1] == "_" or (start and m.string[start - 1] == "_" and (
            m.string[end:end + 1] in ("", "=", ":") or m.string[end:end + 1].isalnum())):
        # Inside a variable's name ("MAX_PIN_ATTEMPTS is 5", "PIN_RETRY_LIMIT
        # is 1000"), or bound by "=" or ":" (the assignment rule's): only a
        # name the word closes, then a verb, is read here.
        return False
    if (m.groupdict().get("gap") or "").startswith("."):
        # A name's dot right after the word makes it a file's or a field's
        # ("password.txt is …", "pin.length is …").
        return False
    if _modified(m.groupdict().get("gap")):
        # The name modifies a noun, and the value is that noun's: "recovery
        # key ID: 1A2B3C4D", "password policy: Min8Chars!".
        return False
    if m.end("word") == m.end():
        # Named after the value, the name may modify a noun as well: "4471
        # (PIN pad error)", "… is the password reset ticket".
        after = m.string[m.end():m.end() + 40].split(maxsplit=1)
        if after and after[0].lower().strip(".,;:!?)") in _HEAD_NOUNS:
            return False
        if _KEPT_AT.match(m.string, m.end()) is not None:
            # The name opens a clause of its own, saying where the
            # credential is kept: "Hartley_Home_5G (password is in the
            # password manager)" names a network.
            return False
        between = m.string[m.end("secret"):m.start("word")]
        if re.match(r"\W{0,3}for ", between) and (
                m.group("secret").isdigit() or word.startswith(("login", "logon"))):
            # "for" names what a number is for as often as whose value it
            # is ("paid 4500 for the PIN pad", "port 8443 for the login").
            return False
    if _other_code(m):
        return False
    # Digits of other scripts (٢٠٢٤, ४८२१) are judged as the digits they are.
    value = _ascii_digits(m.group("secret").rstrip(".!?:)]}»”’'\""))
    if len(value) < 4 or value.rstrip("=").lower() in _CREDENTIAL_NAMES:
        # Another credential's name being assigned ("secret generic db-pass
        # --from-literal=password=…") is no value.
        return False
    pass_word = _pass_word(word)
    if not pass_word and len(value) < 8:
        return False
    if word.startswith("host key") and not value.isdigit():
        # A meeting host's key is digits; a server's host key is public
        # ("host key: ssh-ed25519 AAAA…").
        return False
    if _PLACEHOLDER.fullmatch(value) or _REFERENCE.fullmatch(value) or value.lower() in _DESCRIBING:
        return False
    if "/" in value or "://" in value or value.startswith(("$", "{", "\\", "~")):
        return False
    if pass_word and _COMBINATION_SHAPE.fullmatch(value) and not _modified(m.group("gap")):
        # After a PIN, lock or safe word, three or four numbers under 100
        # with one dash are the lock's combination ("код от сейфа 21-40-08",
        # "Kasa şifresi 15-32-8"), not a date or a phone number.
        return True
    if _EMAIL.fullmatch(value) or _DATE_TIME_VERSION.fullmatch(value):
        return False
    if _CODE_NUMBER.fullmatch(value) and (not pass_word or len(value) <= 5) and not (
            (_code_word(word) or _LOCK_NAMED.search(m.group("gap") or ""))
            and m.group("gap") is not None and not _modified(m.group("gap"))):
        # Given as a password, "TIGER2024" is one; after a token word, or as
        # short as "E1042", it is an error or ticket number. Given as a PIN
        # or a door code ("PIN: AB123", "the passcode is AB123"), it is the
        # code: such codes are short. Only with a connector ("PIN E1042"
        # names an error) and with the code word as the subject ("PIN pad
        # error: E1042" is about the pad).
        return False
    if _COMMIT_CONTEXT.search(m.string[max(0, m.start("secret") - 24):m.start("secret")]):
        return False
    if value.isdigit():
        # A year is no password ("password … is 2024-ready"), but a lock's
        # code is often one, and one given to the lock's name that ends its
        # clause is its code ("the code for the lockbox is 1975."); a
        # building code of that year is the rules it was built to.
        lock = _LOCK_NAMED.search(m.group("gap") or "") is not None or (
            _LOCK_CODE_WORD.match(word) is not None and not word.startswith("building"))
        given = (m.group("gap") is not None and m.groupdict().get("to") is None
                 and _CLAUSE_END_AFTER.match(m.string, m.end()) is not None)
        year = _year_shaped(value) and not (lock and given)
        # A measure ("the door is 1200 mm wide") is no code.
        return (pass_word and len(value) <= 12 and not year
                and _UNIT_AFTER.match(m.string, m.end()) is None)
    lower, upper, digit, _ = _char_classes(value)
    letters = lower or upper or any(ch.isalpha() for ch in value)
    strong = any(ch in _STRONG_SYMBOL for ch in value)
    after_user = "/" in m.string[max(0, m.start("secret") - 3):m.start("secret")]
    if word.startswith(("login", "logon")) and not strong and not after_user:
        # A login is as often the user name ("the login is jsmith2") or a
        # verb ("login to host-42"): only a value with a symbol, or the one
        # after "user / ", is a password.
        return False
    return bool((letters and digit) or (letters and strong) or (digit and strong))


# A provider's key spelt with its characters apart, one separator throughout
# ("A.K.I.A.…", "x-o-x-b-…", "s.k._.l.i.v.e._.…", "g h p _ …"), or an access
# key id in groups of four ("AKIA IOSF ODNN 7EXA MPLE").
def _separated(c: str) -> str:
    def apart(word: str) -> str:
        return c.join(word)
    prefix = ("|".join((apart("AKIA"), apart("ASIA"), apart("gh") + c + "[pousr]" + c + "_",
                        apart("xox") + c + "[baprs]",
                        apart("sk") + c + "_" + c + "(?:" + apart("live") + "|" + apart("test")
                        + ")" + c + "_")))
    return (r"(?:" + prefix + r")(?:(?:" + c + r"[A-Za-z0-9_]){8,80}|" + c
            + r"[A-Za-z0-9]{12,80})")


_SEPARATED_KEY = (
    r"(?<![A-Za-z0-9])(?P<secret>" + "|".join(_separated(c) for c in (" ", r"\.", "-"))
    + r"|(?:AKIA|ASIA)(?:[ .\-][A-Z0-9]{4}){4}"
    # Or split across lines (to fit a chat or a terminal), a piece a line;
    # folded, a line break reads as a space.
    + r"|(?P<pieces>(?:AKIA|ASIA|gh[pousr]_|xox[baprs]-|sk_(?:live|test)_)[A-Za-z0-9_-]{1,80}"
    r"(?:[ \t]{0,4}\r?\n[ \t]{0,8}|[ \t]{1,4})[A-Za-z0-9_-]{1,80}"
    r"(?:(?:[ \t]{0,4}\r?\n[ \t]{0,8}|[ \t]{1,4})[A-Za-z0-9_-]{1,80})?"
    r"(?:(?:[ \t]{0,4}\r?\n[ \t]{0,8}|[ \t]{1,4})[A-Za-z0-9_-]{1,80})?))"
)
_SEPARATED_LITERALS = (
    *(lit for c in " .-" for lit in (
        c.join("akia"), c.join("asia"), "g" + c + "h" + c, c.join("xox") + c,
        "s" + c + "k" + c + "_", "akia" + c, "asia" + c)),
    "akia", "asia", "ghp_", "gho_", "ghu_", "ghs_", "ghr_", "xoxb-", "xoxa-", "xoxp-", "xoxr-",
    "xoxs-", "sk_live_", "sk_test_")

_SEPARATED_FORMS = re.compile(
    r"(?:AKIA|ASIA)[A-Z0-9]{16}|gh[pousr]_[A-Za-z0-9]{36}|xox[baprs][A-Za-z0-9]{10,80}"
    r"|sk_(?:live|test)_[A-Za-z0-9]{16,80}"
)


def _separated_key(m: re.Match[str]) -> bool:
    """Spelt apart (a plain key is its provider's rule's), and joined, a key
    of its provider's form that is no documentation mask."""
    value = m.group("secret")
    joined = re.sub(r"[\s.\-]", "", value)
    form = _SEPARATED_FORMS.match(joined)
    if form is None:
        return False
    key = form.group(0)
    if m.group("pieces") is not None and (
            sum(ch.isdigit() for ch in key) < 2 or _SEPARATED_FORMS.match(value.split()[0])):
        # Pieces of words ("AKIA PREFIX FOR KEYS USED"), not of a random key;
        # or a whole key and the next word (its provider's rule's finding).
        return False
    return len(set(key[-16:])) > 3 and not re.search(r"(.)\1{7}", key)


# --- passwords by other names, and secrets with no name of a password -----------

# "pw", "pwd" and "pass" are a password only with a connector and a value of
# a password's shape: "pass the test", "PASS: test_login_2", "pwd: /home"
# are a verb, a test result and a shell command.
_ABBREVIATED = (
    # The shorthands: "pw", "pwd", "p/w", "pword", "passw", "pass".
    r"(?<![\w.\-/])(?P<word>pwd?|p/w|pword|passw|pass)"
    r"(?: is|\s?[:=]|" + _WHAT_FOR + r"(?:\s?[:=]| is)"
    # A change names the new value: "admin pw got reset to …".
    r"|(?: (?:was|got|has been|is|now))? (?:changed|reset|set|updated|rotated|switched) to"
    r"|(?P<bare> | ?[-–—] )) ?[\"'`]?"
    r"(?P<secret>[^\s\"'`,;()<>\[\]{}]{4,64})"
)


def _mixed_case_with_digit(value: str) -> bool:
    """Both cases and a digit: "Gull_Rock44", never "skip_tests" or "MAX_RETRIES_3"."""
    lower, upper, digit, _ = _char_classes(value)
    return lower and upper and digit


def _strong_password(value: str) -> bool:
    """Letters, digits and a symbol no name or word carries: "Tern!Reef61"."""
    lower, upper, digit, _ = _char_classes(value)
    return (len(value) >= 8 and bool(lower or upper) and digit
            and any(ch in _STRONG_SYMBOL for ch in value) and "/" not in value
            and _EMAIL.fullmatch(value) is None and not value.startswith(("$", "{", "<")))


# A user named just before: "as backup_user, pass …", "user: ops pw …".
_USER_BEFORE = re.compile(
    r"(?:\b(?:user(?:name)?|login|utilisateur|usuario|usuário|utente|пользователь|логин)\b:?"
    r" ?[\w.@-]{1,40}"
    # An account named by its address: "team.acme@gmail.com, pass …".
    r"|[\w.+-]{1,64}@[\w-]{1,63}(?:\.[\w-]{1,63}){1,4}"
    # After "as", an account's name: one with a digit or a mark, or root or admin.
    r"|\b(?:as|als|en tant que|como|под) (?:[\w]{0,20}[\d_.@-][\w.@-]{0,40}|root|admin"
    r"|administrator|postgres)"
    # An account's name given, then "with" its password: "… is emma.k with pass …".
    r"|(?: is|:) [\w]{0,20}[\d_.@-][\w.@-]{0,40} (?:with|and))[,;]? ?\(?$", re.IGNORECASE)


def _abbreviated_password(m: re.Match[str]) -> bool:
    # An exclamation mark that closes the value is a sentence's as often as
    # the password's: it is left off the value, yet counts as its symbol.
    whole = m.group("secret").rstrip(".?:,;")
    value = whole.rstrip("!")
    user_before = _USER_BEFORE.search(m.string[max(0, m.start() - 60):m.start()]) is not None
    if m.group("bare") is not None and not user_before and (
            m.group("word").lower() == "pass"
            or not (_strong_password(whole) or _mixed_case_with_digit(value))):
        # With no connector, "pass" is a verb ("pass C++17 to the
        # compiler"); after a user's name it is that user's password. "pw"
        # is no verb: with a value of letters, digits and a symbol, or of
        # both cases and a digit ("pwd Gull_Rock44"), it names it.
        return False
    if len(value) < 4 or "/" in value or value.startswith(("$", "~", "\\")):
        return False
    if "_" in value and not user_before and not (
            m.group("word").lower() != "pass" and _mixed_case_with_digit(value)):
        # An identifier ("pass: skip_tests", "PASS: test_Login_2" is a test's
        # result), unless a user is named just before ("user: qa-runner pass:
        # Mossy_Anvil_31"); after "pw", which names nothing else, an
        # identifier keeps one case, a password mixes both with a digit
        # ("pw: Gull_Rock44").
        return False
    if (_PLACEHOLDER.fullmatch(value) or _DATE_TIME_VERSION.fullmatch(value)
            or _CODE_NUMBER.fullmatch(value) or value.lower() in _DESCRIBING):
        return False
    if value.isdigit():
        return m.group("word").lower() != "pass" and 4 <= len(value) <= 12
    lower, upper, digit, _ = _char_classes(value)
    strong = any(ch in _STRONG_SYMBOL for ch in value)
    return len(value) >= 6 and bool(((lower or upper) and (digit or strong)) or (digit and strong))


# The value first, then its name, in plain words: "use purple monkey
# dishwasher as the password", "set correct-horse as the wifi passphrase".
_WORD_OR_JOINED = r"[^\W\d_]{2,24}" + _nested(r"-(?:[^\W\d_]{2,24}|\d{1,6})", 4, "?")
_GIVEN_BEFORE = (
    r"(?<![\w-])(?:use|used|using|set|choose|chose|chosen|pick|picked|make|made|try|nimm|nehmen"
    r"|verwende|utilise|utilisez|utiliser|usa|usar|escolha|elige)"
    r" [\"'“‘]?(?P<secret>" + _WORD_OR_JOINED + _nested(" " + _WORD_OR_JOINED, 5, "?") + ")"
    r"[\"'”’]? (?:as|als|comme|como)"
    r" (?:(?:the|my|our|your|a|das|dein|unser|le|la|mon|notre|el|tu|o|a) )?"
    + _nested(r"[^\W\d_]{1,20} ", 2, "??") + _PHRASE_WORD
    + r"(?= ?(?:[.,;:!?)]|$)| (?:for|on|of|to|at|in|für|pour|para|du|de|del)(?= ))"
)
# Words that say what kind of value to use, not which.
_KIND_WORDS = frozenset("""
something anything nothing everything words word sentence phrase name birthday date number
default usual standard same random strong weak long short new old unique different
""".split())


def _given_before(m: re.Match[str]) -> bool:
    words = m.group("secret").split(" ")
    if any(w.lower() in _FUNCTION_WORDS or w.lower() in _KIND_WORDS
           or w.lower() in _STATE_WORDS or w.lower() in _DESCRIBING for w in words):
        return False
    if len(words) == 1 and "-" not in words[0]:
        return _one_word_password(words[0]) and not any(
            a.islower() and b.isupper() for a, b in itertools.pairwise(words[0]))
    return not any(w.isascii() and len(w) >= 5 and w.lower().endswith(_DESCRIBING_ENDINGS[2:])
                   for w in words)


# A wallet's seed: 12, 15, 18, 21 or 24 lower-case words (the word lists of
# BIP-39 hold words of three to eight letters, none of the function words
# of English), or as many Chinese characters apart, after its name.
# Named in the languages of the sets, in order or numbered ("1 hammer 2
# sugar …"), with an aside of up to three words before the colon ("recovery
# phrase, in order:", "Фраза восстановления кошелька:").
_SEED_WORD = r"(?:\d{1,2}[.)]?\s{1,2})?[^\W\d_]{3,8}"
_SEED = (
    r"(?i:(?<![\w-])(?:(?:secret )?recovery[ -](?:phrase|words|seed)|seed(?:[ -](?:phrase|words))?"
    r"|mnemonic(?:[ -]phrase)?|wallet words|phrase (?:de récupération|secrète de récupération)"
    # Named for the wallet it restores, or by how many words it holds:
    # "backup phrase", "MetaMask phrase", "my 24 words", "12-word phrase".
    r"|(?:wallet )?(?:backup|secret|wallet|restore)[ -](?:phrase|words)"
    r"|(?:metamask|ledger|trezor|phantom|exodus|trust wallet|coinbase wallet)"
    r"(?: (?:wallet|backup|recovery|secret))?[ -](?:phrase|words|seed)"
    r"|(?:12|15|18|21|24|twelve|twenty-four)[ -]words?(?:[ -](?:phrase|seed|backup))?"
    r"|frase (?:semilla|de recuperación|de recuperação|di recupero|de respaldo)"
    r"|wiederherstellungsphrase|herstelzin|фраза восстановления|сид-фраза|seed-фраза"
    r"|kurtarma ifadesi|fraza odzyskiwania)"
    r"|助记词|助記詞|恢复短语|恢復短語|助记短语)"
    # What it is for, or how many words it holds ("seed phrase, 12 words:").
    r"(?:" + _WHAT_FOR + r"|,? (?:\d{1,2} )?[^\W\d_]{2,12}" + _nested(r" [^\W\d_]{2,12}", 2, "?")
    + r"(?= ?[:：]))?"
    # An aside in brackets before the colon: "seed for the Ledger (keep offline!):".
    r"(?: \([^()\n]{1,30}\)(?= ?[:：]))?"
    r"(?: ?[:=：]| is| are|是|为|為|\s)\s{0,4}"
    r"(?P<secret>" + _SEED_WORD + (r"(?:, ?|\s{1,4})" + _SEED_WORD) * 11
    + _nested(r"(?:, ?|\s{1,4})" + _SEED_WORD, 12, "?")
    + r"|[\u4e00-\u9fff](?:[ ,，、][\u4e00-\u9fff]){11,23})"
    r"(?![\w-]|(?:, ?|\s{1,4})(?:\d{1,2}[.)]?\s{1,2})?[^\W\d_])"
)
_NOT_SEED_WORDS = frozenset("""
the and that you with for are was this from your our have has not but can will then when
into they them what which its his her were been onto than also just very some
""".split())


def _seed_phrase(m: re.Match[str]) -> bool:
    """12 to 24 lower-case words, none a function word; numbered, then 1, 2, … in order."""
    parts = [p.rstrip(".)") for p in re.split(r"[\s,，、]+", m.group("secret")) if p]
    numbers = [p for p in parts if p.isdigit()]
    words = [p for p in parts if not p.isdigit()]
    if numbers and numbers != [str(i) for i in range(1, len(words) + 1)]:
        return False
    return (len(words) in (12, 15, 18, 21, 24) and all(w == w.lower() for w in words)
            and not any(w in _NOT_SEED_WORDS for w in words))


# Two-factor backup codes: two or more codes of one form listed after their name.
# A code: two groups of four or five letters and digits, or five to ten of
# them, a digit in each (words are not codes).
_CODE = (r"(?i:(?=[a-z]{0,4}\d)[a-z0-9]{4,5}[- ](?=[a-z]{0,4}\d)[a-z0-9]{4,5}"
         r"|(?=[a-z]{0,9}\d)[a-z0-9]{5,10})")
# Codes are listed as a list is: after commas, bullets or numbers ("1) …").
_CODES_APART = (r"(?:, ?| ?/ ?| and | et | und | y | e | и |、|，|\s{1,4}[-*•]\s{1,2}"
                r"|\s{1,4}\d{1,2}[.)]\s{1,2}|\s{1,4})")
_BACKUP_CODES = (
    r"(?i:(?<![\w-])(?:(?:2fa|mfa|otp|two[- ]factor|2-step|backup|recovery|emergency|scratch"
    r"|spare|one-time)(?:[ -](?:backup|recovery|verification|login))?[ -]codes"
    # A second factor's backup needs no "codes": "2FA backup: …".
    r"|(?:2fa|mfa|otp|two[- ]factor)[ -](?:backup|recovery)"
    r"|(?:wiederherstellungs|sicherungs|notfall|backup-|reserve)codes"
    r"|codes (?:de (?:secours|récupération|sauvegarde|backup)|à usage unique)"
    r"|c[óo]digos (?:de )?(?:respaldo|recuperación|recuperação|backup|emergencia|reserva)"
    r"|codici (?:di )?(?:backup|recupero|emergenza|riserva)"
    r"|резервные коды|коды восстановления|запасные коды"
    r"|kody (?:zapasowe|odzyskiwania|awaryjne)|(?:reserve|back-?up|herstel)codes|reservkoder"
    r"|yedek kodlar[ıi]?|kode cadangan|mã dự phòng)"
    r"|备用(?:验证)?码|恢复码|备份码|備用(?:驗證)?碼|復原碼|バックアップコード|リカバリーコード"
    r"|予備(?:の)?コード|백업 ?코드|복구 ?코드)"
    r"(?:" + _WHAT_FOR + r")?(?:,? (?:[A-Z][\w-]{1,23}|\d[A-Z]{2,4}))?(?: ?\([^()\n]{1,40}\))?"
    r"(?: ?[:：]| (?:are|sind|lauten|sont|son|são|sono|были|это))?\s{0,4}"
    r"(?:[-*•]\s{1,2}|\d{1,2}[.)]\s{1,2})?"
    r"(?P<secret>" + _CODE + _CODES_APART + _CODE
    + _nested(_CODES_APART + _CODE, 14, "?") + r")(?![\w-])"
)


def _backup_codes(m: re.Match[str]) -> bool:
    """Two or more codes of one form (one length, a digit in each)."""
    codes = re.findall(_CODE, m.group("secret"), re.IGNORECASE)
    return (len(codes) >= 2 and all(any(ch.isdigit() for ch in c) for c in codes)
            and len({len(c) for c in codes}) == 1)


# Digits in words, in the languages of the sets (see ``_SPELT_OUT``).
_DIGIT_WORDS = (
    # English says a zero "oh" when it reads digits out ("two oh oh seven").
    "zero", "oh", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine",
    "zéro", "un", "deux", "trois", "quatre", "cinq", "sept", "huit", "neuf",
    "null", "eins", "zwei", "drei", "vier", "fünf", "sechs", "sieben", "acht", "neun",
    "cero", "uno", "dos", "tres", "cuatro", "cinco", "seis", "siete", "ocho", "nueve",
    "um", "dois", "três", "quatro", "sete", "oito", "nove",
    "due", "tre", "quattro", "cinque", "sei", "sette", "otto",
    "nul", "een", "twee", "drie", "vijf", "zes", "zeven", "negen",
    "ноль", "нуль", "один", "одна", "два", "две", "три", "четыре", "пять", "шесть", "семь",
    "восемь", "девять",
    # Ukrainian, its apostrophe as typed or as the modifier letter.
    "дві", "чотири", "п'ять", "пʼять", "шість", "сім", "вісім", "дев'ять", "девʼять",
    "sıfır", "bir", "iki", "üç", "dört", "beş", "altı", "yedi", "sekiz", "dokuz",
    "jeden", "jedna", "dwa", "dwie", "trzy", "cztery", "pięć", "sześć", "siedem", "osiem",
    "dziewięć",
    "noll", "ett", "två", "fyra", "fem", "sex", "sju", "åtta", "nio",
    "nula", "dva", "dvě", "tři", "čtyři", "pět", "šest", "sedm", "osm", "devět",
    "en", "to", "tre", "fire", "seks", "syv", "otte", "ni",
    "nol", "satu", "dua", "tiga", "empat", "lima", "enam", "tujuh", "delapan", "sembilan",
    "không", "một", "hai", "ba", "bốn", "năm", "sáu", "bảy", "tám", "chín",
    "μηδέν", "ένα", "δύο", "τρία", "τέσσερα", "πέντε", "έξι", "επτά", "εφτά", "οκτώ", "οχτώ",
    "εννέα", "εννιά",
    "शून्य", "एक", "दो", "तीन", "चार", "पांच", "पाँच", "छह", "छः", "सात", "आठ", "नौ",
    "صفر", "واحد", "اثنان", "اثنين", "ثلاثة", "أربعة", "اربعة", "خمسة", "ستة", "سبعة",
    "ثمانية", "تسعة",
)
# Longest first, ties by the words themselves: a set's own order follows the
# hash seed, and the pattern's text must not.
_DIGIT_WORD_ANY = (r"(?<![^\W\d_])(?:"
                   + "|".join(sorted(set(_DIGIT_WORDS), key=lambda w: (-len(w), w)))
                   + r")(?![^\W\d_])")

# A lock's combination: three or four numbers under 100, one separator
# throughout, ending the clause, after the word for a combination.
# A number under 100 in English words: "twelve", "thirty-four".
_NUMBER_WORD = (r"(?:(?:twenty|thirty|forty|fifty|sixty|seventy|eighty|ninety)"
                r"(?:[- ](?:one|two|three|four|five|six|seven|eight|nine)(?![^\W\d_]))?"
                r"|zero|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve"
                r"|thirteen|fourteen|fifteen|sixteen|seventeen|eighteen|nineteen)(?![^\W\d_])")
_COMBINATION_WORD = r"(?:" + _NUMBER_WORD + "|" + _DIGIT_WORD_ANY + ")"
_THEN = r",? (?:then |dann |puis |luego )?"
_TURN_WORD = (r"(?:left|right|links|rechts|gauche|droite|izquierda|derecha|sinistra|destra"
              r"|esquerda|direita)")
# A turn of the dial, its direction first or its number: "right 24", "links
# auf 12", "27 links" ("27 links, 11 rechts, 03 links").
_TURN = (r"(?i:" + _TURN_WORD + r"(?: (?:to|auf|bis|à|a|sur))? \d{1,2}"
         r"|\d{1,2} " + _TURN_WORD + r"(?![^\W\d_]))")
_COMBINATION = (
    r"(?:(?i:(?<![\w-])(?:combination|combo|combinaison|combinación|combinação"
    r"|combinazione|combinatie|kombinasjon|комбинация|шифр"
    # A lock that opens by numbers, named instead: its numbers are its combination.
    r"|(?:gym |school |bike |bicycle )?locker|padlock|bike lock|cadenas|candado|lucchetto"
    r"|cadeado|кодовый замок|fietsslot|fietskluis|fahrradschloss|cykellås|kłódk[aię]"
    r"|bisiklet kilidi|(?:велосипедный )?замок"
    # A safe or a key box: what opens it is a combination.
    r"|safe|lockbox|lock box|key ?box|key safe|strongbox|caja fuerte|cofre|cassaforte"
    r"|coffre(?:-fort)?|kluis|sejf|сейф[а-я]{0,2}|két sắt)|kombination|zahlenschloss|Tresor)"
    # A safe or a combination lock in Chinese or Japanese, then its number
    # (信用金庫 is a bank).
    r"|(?<!信用)(?:保险箱|保險箱|保险柜|保險櫃|密码锁|密碼鎖|金庫|ダイヤル錠|南京錠"
    r"|自転車のロック|自転車の鍵|自行车锁|車鎖))"
    r"(?P<gap>[^.\n\d:=。]{0,30}?)"
    r"(?: ?[:=：]| (?:is|ist|lautet|est|es|é|è|är|er|là)| ?(?:是|为|為|は)"
    # Or the verb that opens it: "opens with", "abre con", "s'ouvre avec".
    r"| (?i:(?:opens|unlocks|open|unlock) with|(?:abre|apre|abre-se) (?:con|com)"
    r"|(?:s'ouvre|ouvre) avec|öffnet mit|открывается(?: кодом| на)"
    # Or the verb that sets it ("se règle sur 7-1-4", "is set to 4-0-9").
    r"|(?:se règle|est réglé|is set|set|eingestellt|stellt man) (?:sur|to|auf))"
    # Or nothing: the numbers right after the lock's name end the clause
    # ("padlock 0-4-7-3"). A change may say so: "the padlock is now 2-1-6-0".
    r"|(?P<bare>))(?: (?:now|jetzt|maintenant|désormais|ahora|agora|ora|теперь|nu|teraz))?\s?"
    r"(?P<secret>\d{1,2}(?P<sep> ?[-–/,] ?| )\d{1,2}(?P=sep)\d{1,2}(?:(?P=sep)\d{1,2})?"
    # In words: English numbers under 100, or digits in any of the languages
    # of ``_DIGIT_WORDS`` ("twee vier acht").
    r"|(?i:" + _COMBINATION_WORD + r"(?P<wsep>,? | ?[/–] | - )" + _COMBINATION_WORD
    + r"(?P=wsep)" + _COMBINATION_WORD + r"(?:(?P=wsep)" + _COMBINATION_WORD + r")?)"
    # Or with the turns of the dial: "right 24, left 8, right 31", "links
    # auf 12, rechts auf 40, links auf 6".
    r"|" + _TURN + (_THEN + _TURN) * 2 + r"(?:" + _THEN + _TURN + r")?)"
    # A Japanese copula may close the clause ("自転車のロックは 4-1-7 です").
    r"(?=\s?(?:です|だ)?\s?(?:[.;!?)。]|,(?!\d)|$))"
)
_NOT_LOCK = re.compile(r"\b(?:key|keys|keyboard|shortcut|drug|drugs|therapy|flags?|colou?rs?)\b",
                       re.IGNORECASE)


# What a lock's name may be followed by and still name its numbers: "safe
# combination 12-34-56", "padlock code 4-7-1".
_COMBINATION_NOUNS = frozenset("""
combination combo code lock kombination combinaison combinación combinação combinazione
""".split())


def _combination(m: re.Match[str]) -> bool:
    gap = m.group("gap")
    if m.group("bare") is not None and gap and gap.strip().lower() not in _COMBINATION_NOUNS:
        # With no connector, only numbers right after the lock's name (or
        # after its combination's) are its.
        return False
    before = m.string[max(0, m.start() - 12):m.start()]
    return _NOT_LOCK.search(m.group("gap") + " " + before) is None


_DIGIT_WORD = r"(?:zero|oh|one|two|three|four|five|six|seven|eight|nine)"

# --- a code spelt out: digits apart, in words, or in Chinese numerals --------------
#
# A PIN, a door code or a numeric password is as often said as written:
# "4 8 2 7", "quatre deux sept un", "neun drei null sechs", "五三九二八一", or
# in pairs: "61 07 23".
# After a password or code word, four to twelve digits given one by one end
# the clause: that is the code, in any of these languages. Counting words
# ("one of the two", "deux fois") never run four digits long.
_HAN_DIGITS = "〇零一二三四五六七八九"
# Korean says a code's digits with the Sino-Korean numerals, written together
# ("사칠일구"); a Hangul syllable after them makes a word of them.
_HANGUL_DIGITS = "공영일이삼사오육칠팔구"
_MULTIPLIERS = MappingProxyType({"double": 2, "triple": 3})
_SPOKEN_DIGIT = r"(?:(?:double|triple) )?" + _DIGIT_WORD_ANY
# The letters of the ICAO/NATO spelling alphabet, as a password is read out
# over the phone.
_PHONETIC_LETTERS = frozenset("""
alfa alpha bravo charlie delta echo foxtrot golf hotel india juliett juliet kilo lima mike
november oscar papa quebec romeo sierra tango uniform victor whiskey whisky x-ray xray yankee
zulu
""".split())
_PHONETIC = (r"(?:(?<![^\W\d_])(?:"
             + "|".join(sorted(_PHONETIC_LETTERS, key=lambda w: (-len(w), w)))
             + r")(?![^\W\d_])|" + _SPOKEN_DIGIT + ")")
_SPELT_OUT = (
    _PASS_CRED_WORD
    + r"(?P<gap>" + _gap_char(r"\d") + r"{0,32}?)"
    + r"(?: ?[:=：]| (?:is|was|are|est|ist|lautet|es|é|è|är|er|là|है|—|–|-)(?= )" + _ITS
    + r"| ?(?:是|为|為|は|는|은|이|가)|)"
    + r"(?: ?|(?<=[" + _CJK + r"]))(?P<secret>\d(?: \d){3,11}|\d(?:-\d){3,11}"
    # Or read out in pairs, as a voicemail PIN or a gate code is said: "61 07 23".
    + r"|\d\d(?: \d\d){1,3}"
    # Digits in words, a repeated one said "double" or "triple" ("double
    # five, three, nine"): at least four digits, counted by the validator.
    + r"|" + _SPOKEN_DIGIT + r"(?:,? |-)" + _SPOKEN_DIGIT
    + _nested(r"(?:,? |-)" + _SPOKEN_DIGIT, 10, "?")
    # Or spelt in the phonetic alphabet, digits among the letters ("kilo
    # echo lima … seven seven"): at least six, two of them letters.
    + r"|" + _PHONETIC + (r"(?:,? |-)" + _PHONETIC) * 5
    + _nested(r"(?:,? |-)" + _PHONETIC, 14, "?")
    + r"|[" + _HAN_DIGITS + r"]{4,12}|(?<![\uac00-\ud7af])[" + _HANGUL_DIGITS + r"]{4,12}"
    + r"(?![\uac00-\ud7af]))"
    # A Japanese copula may close it ("暗証番号は四七一九です").
    + r"(?:(?=です|でした)|(?![\w-]|[" + _HAN_DIGITS + r"十百千万萬年]))"
)


# A code read out in pairs in words ("fifty-five, ninety, twelve",
# "zweiundvierzig siebzehn", "trente-deux quatre-vingt-onze", "veintidós
# cuarenta y ocho", "двадцать один сорок семь"): a number from ten to
# ninety-nine in the words of the note's language, two to four of them (a
# digit may close the code), after a password or code word, ending the clause.
_UNITS_EN = "one|two|three|four|five|six|seven|eight|nine"
_UNITS_ES = "uno|dos|tres|cuatro|cinco|seis|siete|ocho|nueve"
_UNITS_RU = "один|одна|два|две|три|четыре|пять|шесть|семь|восемь|девять"
_UNITS_PL = "jeden|dwa|trzy|cztery|pięć|sześć|siedem|osiem|dziewięć"
_UNITS_TR = "bir|iki|üç|dört|beş|altı|yedi|sekiz|dokuz"
_UNITS_IT = "due|tre|tré|quattro|cinque|sei|sette|nove"
_PAIR_WORDS = (
    r"(?:(?:twenty|thirty|forty|fifty|sixty|seventy|eighty|ninety)(?:[- ](?:" + _UNITS_EN
    + r")(?![^\W\d_]))?|ten|eleven|twelve|thirteen|fourteen|fifteen|sixteen|seventeen|eighteen"
    r"|nineteen"
    r"|(?:(?:ein|zwei|drei|vier|fünf|sechs|sieben|acht|neun)und)?(?:zwanzig|dreißig|vierzig"
    r"|fünfzig|sechzig|siebzig|achtzig|neunzig)|zehn|elf|zwölf|dreizehn|vierzehn|fünfzehn"
    r"|sechzehn|siebzehn|achtzehn|neunzehn"
    r"|(?:vingt|trente|quarante|cinquante|soixante|quatre-vingts?)(?:-et-un|-et-onze"
    r"|-(?:un|deux|trois|quatre|cinq|six|sept|huit|neuf|dix-sept|dix-huit|dix-neuf|dix|onze"
    r"|douze|treize|quatorze|quinze|seize))?|dix-sept|dix-huit|dix-neuf|dix|onze|douze|treize"
    r"|quatorze|quinze|seize"
    r"|(?:treinta|cuarenta|cincuenta|sesenta|setenta|ochenta|noventa)(?: y (?:" + _UNITS_ES
    + r"))?|veinti(?:uno|dós|dos|trés|tres|cuatro|cinco|séis|seis|siete|ocho|nueve)|veinte|diez"
    r"|once|doce|trece|catorce|quince|dieciséis|diecisiete|dieciocho|diecinueve"
    r"|(?:двадцать|тридцать|сорок|пятьдесят|шестьдесят|семьдесят|восемьдесят|девяносто)"
    r"(?: (?:" + _UNITS_RU + r"))?|десять|одиннадцать|двенадцать|тринадцать|четырнадцать"
    r"|пятнадцать|шестнадцать|семнадцать|восемнадцать|девятнадцать"
    r"|(?:tjugo|trettio|fyrtio|femtio|sextio|sjuttio|åttio|nittio)(?:ett|en|två|tre|fyra|fem"
    r"|sex|sju|åtta|nio)?|tio|elva|tolv|tretton|fjorton|femton|sexton|sjutton|arton|nitton"
    r"|(?:dwadzieścia|trzydzieści|czterdzieści|pięćdziesiąt|sześćdziesiąt|siedemdziesiąt"
    r"|osiemdziesiąt|dziewięćdziesiąt)(?: (?:" + _UNITS_PL + r"))?|dziesięć|jedenaście"
    r"|dwanaście|trzynaście|czternaście|piętnaście|szesnaście|siedemnaście|osiemnaście"
    r"|dziewiętnaście"
    r"|(?:yirmi|otuz|kırk|elli|altmış|yetmiş|seksen|doksan)(?: (?:" + _UNITS_TR + r"))?"
    # Italian elides the tens' vowel before "uno" and "otto" (ventuno, trentotto).
    r"|vent(?:i(?:" + _UNITS_IT + r")?|uno|otto)|(?:trent|quarant|cinquant|sessant|settant"
    r"|ottant|novant)(?:a(?:" + _UNITS_IT + r")?|uno|otto)|dieci|undici|dodici|tredici"
    r"|quattordici|quindici|sedici|diciassette|diciotto|diciannove"
    r"|(?:vinte|trinta|quarenta|cinquenta|sessenta|setenta|oitenta|noventa)(?: e (?:um|uma"
    r"|dois|duas|três|quatro|cinco|seis|sete|oito|nove))?|dez|onze|doze|treze|catorze|quatorze"
    r"|quinze|dezesseis|dezasseis|dezessete|dezassete|dezoito|dezenove|dezanove)"
    r"(?![^\W\d_])"
)
_PAIRS_APART = r"(?:,? )"
_SPELT_IN_PAIRS = (
    _PASS_CRED_WORD
    + r"(?P<gap>" + _gap_char(r"\d") + r"{0,32}?)"
    + r"(?: ?[:=：]| (?:is|was|are|est|ist|lautet|es|é|è|är|er|jest|to|là|—|–|-)(?= )" + _ITS
    + r"|)"
    + r" ?(?P<secret>(?<![^\W\d_])" + _PAIR_WORDS + _PAIRS_APART + _PAIR_WORDS
    + _nested(_PAIRS_APART + _PAIR_WORDS, 2, "?")
    + r"(?:" + _PAIRS_APART + _DIGIT_WORD_ANY + r")?)"
    + r"(?=\s?(?:[.;!?)。]|,(?! ?[^\W\d_])|$))"
)
# Tens alone, which before another pair say a year ("nineteen eighty-four").
_CENTURIES = frozenset("""
nineteen twenty neunzehn zwanzig dix-neuf vingt diecinueve veinte девятнадцать двадцать nitton
tjugo dziewiętnaście dwadzieścia diciannove venti dezenove dezanove vinte
""".split())


def _spelt_in_pairs(m: re.Match[str]) -> bool:
    """Two to four numbers in words read out as a code (``_SPELT_IN_PAIRS``),
    after a password or code word that names no other noun; never a year."""
    word = m.group("word").lower()
    if not _pass_word(word) or word.startswith("login") or _other_code(m):
        return False
    if _modified(m.group("gap")):
        return False
    pairs = re.findall(_PAIR_WORDS, m.group("secret"), re.IGNORECASE)
    return not (len(pairs) == 2 and pairs[0].lower() in _CENTURIES)


def _spelt_out(m: re.Match[str]) -> bool:
    """Four to twelve digits (``_SPELT_OUT``) given as a password or code:
    not after a token word (a key is not spoken digit by digit), a login, or
    a word that modifies another noun ("PIN policy"), never a year."""
    word = m.group("word").lower()
    if not _pass_word(word) or word.startswith("login") or _other_code(m):
        return False
    if _modified(m.group("gap")):
        return False
    value = m.group("secret")
    digits = [part for part in re.split(r"[ ,-]+", value) if part]
    words = [part.lower() for part in digits]
    if any(w in _PHONETIC_LETTERS for w in words):
        # Spelt in the phonetic alphabet: a word of it or two ("Bravo Two
        # Zero") is a call sign; a password is read out longer.
        letters = sum(w in _PHONETIC_LETTERS for w in words)
        return letters >= 2 and len(words) - sum(w in _MULTIPLIERS for w in words) >= 6
    if not value[:1].isdigit() and value[:1] not in _HAN_DIGITS + _HANGUL_DIGITS:
        # Digits in words: "double five" is two of them; four at least.
        count = sum(_MULTIPLIERS.get(w, 1) for w in words) - sum(w in _MULTIPLIERS for w in words)
        if count < 4:
            return False
    if len(digits) > 1:
        # Digits said one by one ("1 9 8 4", "one nine eight four") are a
        # code: no one reads a year out so, whereas a year is a common PIN.
        return True
    # Chinese numerals, one character a digit, are how a year is written.
    return not (len(value) == 4 and value[:2] in ("一九", "二〇", "二零"))

# --- a value bound to its name by the sentence, not by a copula -------------------
#
# A login instruction gives the password as the object of "with" ("log in as
# admin with password greenhouse, then …", "mit dem Passwort Kuckuck an",
# "avec le mot de passe framboise puis …", "с паролем …"): the one word after
# the password word is its value when it ends the clause. A value with a digit
# or a symbol is ``_CREDENTIAL_IN_PROSE``'s; this reading is for a word alone,
# so it keeps the judgments of a one-word password and refuses the nouns a
# password word names with ("password protection", "password access").
_WITH_PASSWORD = (
    r"(?:(?i:(?<![\w-])(?:with|using|and|mit|und|avec|et|con|y|com|e|с|и|bằng|và|ve|ile)"
    r"(?: (?:the|a|my|your|this|dem|den|le|la|el|o|a|il|lo))?)|,) "
    + _PHRASE_WORD
    + r" [\"'“‘«]?(?P<secret>[^\W\d_]{4,32}+)[\"'”’»]?"
    r"(?= ?(?:[.,;:!?)\]]|$)| (?i:and|then|to|und|dann|an|ein|et|puis|y|luego|e|poi"
    r"|и|затем|ve|và|rồi)(?![^\W\d_]))"
)
# What a sentence says with a password that is not its value: when, where,
# how, what for.
_NOT_A_WORD_VALUE = frozenset("""
again instead everywhere anywhere somewhere today tonight tomorrow yesterday first later
once twice always never please directly yet maybe too access auth login logins only
required provided supplied given below above authentication encryption protection
""".split())


def _given_with(m: re.Match[str]) -> bool:
    """The word after "with password" is the password (``_WITH_PASSWORD``)."""
    word = m.group("word").lower()
    if word not in _PHRASE_WORDS and not word.startswith(("парол", "hasł")):
        # "with passwords everywhere": a plural names no one password.
        return False
    value = m.group("secret")
    lower = value.lower()
    if lower in _NOT_A_WORD_VALUE or lower in _HEAD_NOUNS or lower in _KIND_WORDS:
        return False
    if value.isascii() and lower.endswith(("tion", "ment", "ness", "ity", "ly")):
        # An abstract noun or an adverb: "with password authentication".
        return False
    if not value.isascii() and value.islower():
        # An inflected noun that names whose password it is ("с паролем
        # администратора"): only a word that changes case inside is a value.
        return False
    return _one_word_password(value)


# A card's security code (CVV, CVC): three or four digits after its name.
_CARD_CODE = (
    r"(?i:(?<![\w-])(?P<word>cvv2?|cvc2?|cvn|csc|card security code|card verification (?:code"
    r"|value)|código de seguridad|cryptogramme(?: visuel)?|kartenprüfnummer|код cvv|код cvc))"
    r"(?P<gap>[^.!?;\n\d]{0,16}?)(?: ?[:=：]| (?:is|es|est|ist|é|è|это|—|-))? ?"
    r"(?P<secret>(?<!\d)\d{3,4})(?![\w-])"
)


def _card_code(m: re.Match[str]) -> bool:
    """Not after a word the code's name modifies ("the CVV field accepts …")."""
    return not _modified(m.group("gap"))


# An account and its password with a slash between ("admin / Gr8wall#22",
# "anna@example.org / Kiwi2Kiwi!"), the shape of a chat's or a runbook's
# credentials: the account is an address, an administrator's name, or any
# name after a word for credentials in the clause.
_ACCOUNT_SLASH = (
    r"(?<![\w.@+-])(?P<user>[\w.+-]{1,64}@[\w-]{1,63}\.[\w-]{1,63}"
    + _nested(r"\.[\w-]{1,63}", 3, "?") + r"|[\w.-]{2,32})"
    # The value bare or quoted ("admin / « Hibou-Gris-58 »"), and it may
    # close an aside: "(admin / Gr8wall#22)".
    r" / (?P<quote>[\"“«‘] ?)?(?P<secret>[^\s\"'`,;()<>\[\]{}/“”«»‘’]{6,64})"
    r"(?(quote) ?[\"”»’])(?![^\s.,;:!?)\]])"
)
# Two labels and two values, each pair joined by a slash: "user/pass:
# admin/Heron44", "login/pw maria / 4471", "u/p ops/kestrel9". The second
# value is the password whatever its shape.
_PAIRED_LABELS = (
    r"(?i:(?<![\w/])(?:user(?:name)?|login|u|benutzer|utilisateur|usuario|usuário|utente"
    r"|логин) ?/ ?(?:pass(?:word)?|pwd?|p|passwort|kennwort|mdp|mot de passe|contraseña|senha"
    r"|пароль)(?![\w/]))(?: ?[:=：]| is| are)? (?P<user>[^\s/]{1,64}) ?/ ?"
    r"(?P<secret>[^\s\"'`,;()<>\[\]{}]{4,64})"
)


def _paired_labels(m: re.Match[str]) -> bool:
    value = m.group("secret").rstrip(".,;:!?")
    return len(value) >= 4 and not (_PLACEHOLDER.fullmatch(value) or _REFERENCE.fullmatch(value))


_ADMIN_NAMES = frozenset("""
admin root administrator postgres sa pi ubuntu guest superuser sysadmin
""".split())
_CREDS_BEFORE = re.compile(
    # A network and its key are given the same way: "wifi Fuchsbau / Igel!2291".
    r"(?:\b(?:creds|credentials|login|log in|sign in|account|user(?:name)?|zugang|zugangsdaten"
    r"|wi-?fi|wlan|ssid|network|netzwerk|réseau|red|rede|сеть"
    r"|benutzer|acceso|usuario|accès|identifiants|utilisateur|accesso|utente|acesso|usuário"
    r"|доступ|логин|учётка|учетка)\b|ログイン|登录|登錄|계정)[^.!?;\n]{0,40}$",
    re.IGNORECASE,
)


def _account_slash(m: re.Match[str]) -> bool:
    user = m.group("user")
    if _shaped(m.group("secret").rstrip(".,;:!?)")):
        # A value shaped as only a password is needs no name for its account.
        return True
    if "@" not in user and user.lower() not in _ADMIN_NAMES and not _CREDS_BEFORE.search(
            m.string[max(0, m.start() - 60):m.start()]):
        return False
    value = m.group("secret").rstrip(".,;:!?)")
    if len(value) < 6 or _PLACEHOLDER.fullmatch(value) or _DATE_TIME_VERSION.fullmatch(value):
        return False
    lower, upper, digit, _ = _char_classes(value)
    strong = any(ch in _STRONG_SYMBOL for ch in value)
    return bool(((lower or upper) and (digit or strong)) or (digit and strong))


# A lock named in a sentence, then a bare "code" and its digits a clause
# later: "Schließfach im Bahnhof: Nummer 38, Code 6612", "the locker at the
# pool: number 12, code 3390". The lock makes the code its own, as "door
# code" does in one word; an error's or a product's code is none.
_CODE_AFTER_LOCK = (
    r"(?<![\w-])(?:code|codes|código|codigo|codice|код|kod|koden|kode|kodu)"
    r"(?: ?[:：=]| is| ist| est| es| é| è| —| –| -)? ?"
    r"(?P<secret>\d{4,8}|\d{1,4}[ -]\d{1,4}" + _nested(r"[ -]\d{1,4}", 6, "?")
    + r")(?![\w-]|[.,]\d)"
)
LOCK_WINDOW = 80


# A lock set to a new code: "Set the hotel room safe to 552901", "we reset
# the padlock to 4471". Only what opens by a code alone (a gate or an
# alarm is set to a time as often).
_LOCK_SET_TO = (
    r"(?<![\w-])(?:set|sets|reset|resets|switched|switch|changed|change|moved|updated)"
    r"(?: (?:the|our|my|his|her|their|a|that))?" + _nested(r" [\w'-]{1,20}", 2, "??")
    + r" (?:safe|lockbox|lock box|key ?box|key safe|padlock|keypad|locker|combination lock"
    r"|bike lock|door code|gate code|alarm code|safe code)"
    r"(?: (?:code|combination|pin))? to (?P<secret>\d{4,8})(?![\w-]|[.,]\d)"
)


def _lock_set_to(m: re.Match[str]) -> bool:
    """The digits are no year, and no measure follows them."""
    return not _year_shaped(m.group("secret")) and _UNIT_AFTER.match(m.string, m.end()) is None


def _code_after_lock(m: re.Match[str]) -> bool:
    """A lock is named before the code in its sentence, and no other kind of
    code ("error code") is; the digits are no year."""
    before = m.string[max(0, m.start() - LOCK_WINDOW):m.start()]
    ends = list(re.finditer(r"[.!?](?=\s)|[\n。！？]", before))
    sentence = before[ends[-1].end():] if ends else before
    if not _LOCK_NAMED.search(sentence) or _OTHER_CODE_BEFORE.search(sentence):
        return False
    digits = m.group("secret").replace(" ", "").replace("-", "")
    return not _year_shaped(digits)


# The answer to an account's security question is its second password: the
# question named ("security question", "maiden name", "question secrète",
# "Sicherheitsfrage", "контрольный вопрос"), then in its clause a colon, a
# copula or "answer", and a word or two that end the sentence. A question
# quoted or an answer kept elsewhere ("answer kept offline") gives none.
_SECURITY_QUESTIONS = (
    "security question", "security answer", "secret question", "secret answer",
    "security answers", "secret answers", "memorable information", "memorable word",
    "maiden name", "pet's name", "pet’s name", "question secrète",
    "réponse secrète", "question de sécurité", "sicherheitsfrage", "sicherheitsantwort",
    "pregunta de seguridad", "pregunta secreta", "respuesta de seguridad", "respuesta secreta",
    "pergunta de segurança", "pergunta secreta", "resposta de segurança", "resposta secreta",
    "domanda di sicurezza", "domanda segreta", "risposta segreta", "секретный вопрос",
    "секретного вопроса", "контрольный вопрос", "контрольного вопроса", "кодовое слово",
)
# ... and in the scripts written without spaces, where a word has no edge to
# look for: "秘密の質問「…」→ …", "密保问题：…".
_SECURITY_QUESTIONS_CJK = (
    "秘密の質問", "秘密の答え", "密保问题", "密保答案", "安全问题", "安全提示问题", "密保問題",
    "安全問題", "보안 질문", "보안 답변",
)
_SECURITY_ANSWER = (
    r"(?:(?<![\w-])(?:" + "|".join(re.escape(w) for w in _SECURITY_QUESTIONS) + r")(?![\w-])"
    r"|" + "|".join(_SECURITY_QUESTIONS_CJK) + ")"
    # The question itself may stand in brackets: "(¿nombre de tu mascota?)".
    r"[^.!?;\n(]{0,60}?(?:\([^()\n]{0,60}\)[^.!?;\n(]{0,20}?)?"
    r"(?:[:：=→]|->|(?<![\w-])(?:is|was|ist|war|est|es|é|è|answer|réponse|antwort"
    r"|respuesta|resposta|risposta|ответ)(?![\w-])|(?<=[" + _CJK + r"」』])(?:は|是|为|為|는|은))"
    # "…: réponse Quimper", "…: answer Kowalczyk".
    r"(?: (?:answer|réponse|antwort|respuesta|resposta|risposta|ответ)(?![\w-]))?"
    # The answer ends its sentence, or a list of answers goes on to the next
    # label: a word that goes on is the next question's ("…: maiden name =").
    # A name of two or three words is one answer ("Linden Crescent", "St
    # Aidan's Primary"): the validator asks each word for a capital.
    r" ?[\"'“«「]?(?P<secret>[^\W_][^\s.,;:!?\"'”»()]{2,40}"
    r"|[^\W_][\w'’-]{1,40} [^\W_][\w'’-]{0,40}(?: [^\W_][\w'’-]{0,40})?"
    # A CJK name of two characters is a whole answer ("ポチ", "小白").
    r"|[" + _CJK + r"]{2})[\"'”»」]?"
    r"(?=[.!?]|$|\n|\s$|\s\n| [—–-] |, [^,;:=.!?\n]{1,30}[=:：])"
)
# The first words of a question or a description, not of a name.
_NOT_A_NAME = frozenset("""
your my our his her their its the a an what which who whom where when why how
""".split())
# The words that ask in the scripts written without spaces.
_ASKING = ("什么", "什麼", "哪", "何", "なに", "무엇", "뭐", "어떤")
_NO_ANSWER = frozenset("""
kept stored saved set written noted hidden unknown required needed asked given changed reset
gardé noté enregistré gespeichert notiert guardada guardado anotada guardata
""".split())


def _security_answer(m: re.Match[str]) -> bool:
    """The answer (which ends its sentence or its list item: the pattern's
    lookahead) is no word of state or description; one of several words is
    a name, each word capitalised."""
    value = m.group("secret")
    if "？" in value or value.startswith(_ASKING):
        return False  # the question asked again: "密保问题是什么？"
    if " " in value:
        words = value.split(" ")
        # "The security question is Your First Pet": a question, in title case.
        if words[0].lower() in _NOT_A_NAME:
            return False
        return all(w[0].isupper() and w.lower() not in _NO_ANSWER for w in words)
    word = value.lower()
    return not (word in _NO_ANSWER or word in _DESCRIBING or _PLACEHOLDER.fullmatch(value)
                or (word.endswith(_DESCRIBING_ENDINGS) and word.isalpha() and word.islower()))


# An account and its password joined by a colon, as a URL's user part
# without the URL ("admin:Birke#7703", "reporting:Mallow!Pier5"): only a
# value shaped as a password is read so, and never a scheme's (``tel:``).
_ACCOUNT_COLON = (
    r"(?<![\w.@+/:\\-])(?P<user>[^\W\d_][\w.-]{1,31}):"
    r"(?P<secret>[^\s\"'`,;()<>\[\]{}/:。，、！？]{6,64}?)(?=[.,;!?)]?(?:[\s。，、！？]|$))"
)
_SCHEMES = frozenset("""
http https ftp ftps sftp ssh git file data mailto tel sms urn ws wss ldap ldaps smtp imap
s3 gs jdbc redis postgres postgresql mysql mongodb amqp irc magnet xmpp sip news
""".split())


def _account_colon(m: re.Match[str]) -> bool:
    return m.group("user").lower() not in _SCHEMES and _shaped(m.group("secret"))


# A code that opens something, after the verb that says so: "the tablet
# unlocks with 0 8 1 9", "la caja abre con 18-40-22", "die Alarmanlage
# schaltest du mit 7391 aus".
_OPENS_WITH = (
    r"(?i:(?<![\w-])(?:unlocks?|unlocked|opens?|opened|disarms?|disarmed) with"
    r"(?: (?:the|a))?(?: (?:code|pin|passcode|combination))?"
    r"|(?<![\w-])(?:(?:abre|apre|desbloquea|sblocca) (?:con|com)|(?:öffnet|entsperrt) mit"
    r"|(?:ouvre|déverrouille) avec|открывается(?: кодом)?"
    # An alarm switched off by its code: "L'allarme si spegne con 5 5 2 1",
    # "o alarme desliga com …", "the alarm turns off with …".
    r"|(?:turns?|switch(?:es)?) off with|deactivates? with|(?:se )?(?:desactiva|apaga) con"
    r"|(?:se )?(?:désactive|éteint) avec|s'éteint avec|(?:si )?(?:spegne|disattiva) con"
    r"|(?:se )?(?:desliga|desativa) com"
    # A separable verb whose particle follows the code ("geht mit … auf",
    # "schaltest du mit … aus", "zet je uit met …", "stänger du av med …"),
    # or a verb that takes the code in the instrumental ("выключаешь кодом").
    r"|(?:schalte|schaltest|schaltet|mach|machst|macht|geht|gehen|sperr|sperrst|sperrt)"
    r"(?: (?:du|man|ihr|sie|es))? mit"
    r"|(?:zet|zetten|doe|doet|maak|maakt|gaat)(?: (?:je|u|men|het))?(?: (?:uit|af|open))? met"
    r"|(?:stänger|stäng|låser|lås|öppnar|öppna)(?: (?:du|man|ni))?(?: (?:av|upp))? med"
    r"|(?:выключаешь|выключается|отключаешь|отключается|открываешь|снимаешь) кодом))"
    r" (?P<secret>\d(?: \d){3,11}|\d(?:-\d){3,11}|\d{4,8}"
    r"|\d{1,2}(?P<sep2>[-–]|, ?| )\d{1,2}(?P=sep2)\d{1,2}(?:(?P=sep2)\d{1,2})?"
    # Three to eight digits said one by one: "mit sieben, drei, neun, eins".
    r"|" + _DIGIT_WORD_ANY + (r"(?:,? |-)" + _DIGIT_WORD_ANY) * 2
    + _nested(r"(?:,? |-)" + _DIGIT_WORD_ANY, 5, "?") + ")"
    r"(?=(?: (?:auf|aus|ab|op|open|uit|af|av|upp))?\s?(?:[.;!?)。]|,(?!\d)|$))"
)


def _opens_with(m: re.Match[str]) -> bool:
    value = m.group("secret")
    return not _year_shaped(value)


# A code entered at a door, after the verb that enters it: "punch in 5583",
# "Tippe am Tor 4 4 9 0 ein", "Introduce 5 9 0 2 en el teclado", "门口输入
# 7 3 8 2 9 1", "Введи 3 0 4 8 на домофоне". Four to eight digits, whole or
# one by one, a star or a hash about them; up to three words may name where
# ("am Tor", "the code"). The sentence must name a door, a keypad or a lock:
# "enter 42 in the quantity field", "press 1 for sales" are menus and forms.
_ENTRY_VERBS = (
    "punch in", "punch", "key in", "tap in", "type in", "type", "enter", "press", "tippe",
    "tippst", "tippen sie", "gib", "gibst", "geben sie", "drücke", "drück", "tape", "tapez",
    "tapes", "compose", "composez", "saisis", "saisissez", "entrez", "introduce", "introduzca",
    "teclea", "teclee", "marca", "marque", "pon", "digite", "digita", "digitate", "tecle",
    "insira", "inserisci", "componi", "premi", "введи", "введите", "набери", "наберите",
    "нажми", "нажмите", "输入", "輸入", "按",
)
_CODE_ENTERED = (
    # A Chinese verb follows the place it is entered at ("门口输入"): no word
    # boundary before it.
    r"(?i:(?:(?<![^\W\d_])(?:" + "|".join(v for v in _ENTRY_VERBS if v[0] < "\u3000")
    + r")|" + "|".join(v for v in _ENTRY_VERBS if v[0] >= "\u3000") + r")(?![^\W\d_]))"
    + _nested(r" [^\W\d_]{1,16}+", 3, "?")
    + r" (?P<secret>[*#]?(?:\d(?: \d){3,7}|\d{4,8})[*#]?)(?![\w-]|[.,:/]\d)"
)
_ENTRY_PLACE = re.compile(
    r"(?<![^\W\d_])(?:door|gate|keypad|intercom|entrance|lobby|shed|garage|lock|padlock|safe"
    r"|locker|lockbox|alarm|building|(?:hof|garten|garagen|einfahrts)?tor"
    r"|(?:haus|keller|wohnungs|neben)?tür|eingang|tastenfeld|schloss|porte|portail|boîtier"
    r"|digicode|interphone|clavier|immeuble|entrée|puerta|portal|portón|teclado|portero"
    r"|cerradura|portão|porta|interfone|fechadura|portaria|cancello|portone|tastierino"
    r"|citofono|домофон|двер|калитк|ворот|подъезд|замок|сейф)"
    r"|[门門]|玄関|ドア|オートロック|현관|도어락|키패드",
    re.IGNORECASE,
)


_UNIT_AFTER = re.compile(
    r" ?(?:%|°|€|\$|£|mm|cm|km|kg|ml|px|pt|m|g|l|x|euros?|dollars?|рубл[а-я]{0,3}|元|円|원"
    # A weight, a length, a volume, an age: "the safe is 1200 lbs".
    r"|lbs?|pounds?|oz|ounces?|grams?|kilos?|kilograms?|tons?|tonnes?|ft|feet|foot|inch(?:es)?"
    r"|meters?|metres?|liters?|litres?|gallons?|years?|days?|hours?|minutes?|seconds?)"
    r"(?![^\W\d_])", re.IGNORECASE)
_QUANTITY_AFTER = re.compile(_UNIT_AFTER.pattern + r"| (?:as|als|comme|como|come|как) ",
                             re.IGNORECASE)


# A form, a page or a flat's bell in the sentence: what is entered there is
# an amount, a setting or a neighbour's number ("Saisissez 7500 dans le champ
# montant du portail web", "press 2580 for the caretaker's flat").
_ENTRY_FORM = re.compile(
    r"(?<![^\W\d_])(?:field|amount|quantity|dialog|form|page|web|site|app|flat|apartment|apt"
    r"|champ|montant|quantité|appartement|feld|betrag|menge|seite|wohnung|campo|importe"
    r"|cantidad|página|piso|apartamento|quantità|importo|pagina|поле|сумм|количеств|сайт"
    r"|квартир)", re.IGNORECASE)


def _code_entered(m: re.Match[str]) -> bool:
    value = m.group("secret").strip("*#")
    if _year_shaped(value):
        # A year entered ("enter 2024 in the year field").
        return False
    if _QUANTITY_AFTER.match(m.string, m.end()):
        # A quantity or a setting entered ("enter 1200 as the width").
        return False
    sentence = sentence_of(m.string, m.start(), m.end())
    return _ENTRY_PLACE.search(sentence) is not None and _ENTRY_FORM.search(sentence) is None


# A login given in a runbook's sentence with no word for the password: "log
# into grafana with admin and Tern!Reef61", "connect as app using …", "melde
# dich als admin mit … an", "用 admin 和 … 登录". What joins the value to the
# login ("with", "using", "and", "mit", "avec", "con", "с", "和", "と") and a
# value of letters, digits and a symbol no name carries, after a verb that
# logs in in the same sentence: the verb names the act, the shape the password.
_LOGIN_VERBS = (
    "log in", "login", "logon", "log into", "logged in", "sign in", "signed in", "sign into",
    "ssh", "sudo", "connect", "authenticate", "anmelden", "melde", "meld", "einloggen",
    "connecte", "connectez", "identifie", "entra", "inicia", "acesse", "accedi", "зайди",
    "зайдите", "войди", "войдите", "залогинься",
)
# "Use an account with a value" is a login in every language: "usa admin con
# …", "nimm admin mit …", "utilise admin avec …" (one account, then the value).
_USE_VERBS = ("use", "usa", "usar", "utiliza", "utilise", "utilisez", "nimm", "benutze",
              "gebruik", "используй")
_LOGIN_VALUE = (
    r"(?:(?i:(?<![^\W\d_])(?:" + "|".join(_LOGIN_VERBS) + r")(?![^\W\d_]))"
    r"(?:[^.!?;\n]|\.(?=\S)){0,60}?(?<![^\W\d_])(?i:with|using|and|mit|und|avec|et|con|com|y|e|с|и)"
    r"|(?i:(?<![^\W\d_])(?:" + "|".join(_USE_VERBS) + r") [^\s\"'`,;()<>]{2,32}"
    r" (?:with|con|com|avec|mit|met|с)(?![^\W\d_]))"
    # Chinese, Japanese and Korean put the verb last: "用 admin 和 … 登录".
    r"|[和と及](?=[^。！？\n]{0,80}?(?:登录|登入|ログイン|로그인)))"
    # An address is the account, not its password: the value comes later.
    r" ?(?![^\s]{0,64}@)(?=[^\s]{0,63}[!#$%&*+^~?=|\\])(?P<secret>[^\s\"'`,;()<>\[\]{}]{8,64})"
)


def _login_value(m: re.Match[str]) -> bool:
    value = m.group("secret").rstrip(".,;:!?")
    return _strong_password(value) and _DATE_TIME_VERSION.fullmatch(value) is None


# A password in a command line or a Wi-Fi QR string: "mysql -u root
# -pKettle_4419" (bare ``-p`` prompts for it), "sshpass -p 'Lindens#55'",
# "--password=…", "WIFI:T:WPA;S:Harbour;P:Lemon#Tree88;;". The value is
# judged as a password in prose is: a variable, a placeholder or a word
# alone is no value.
_COMMAND_PASSWORD = (
    r"(?:(?<![\w-])(?:mysql|mysqldump|mysqladmin|mariadb)(?![\w-])[^\n|;&]{0,80}? -p"
    r"|(?<![\w-])sshpass(?: -[a-oq-z]){0,4} -p ?|(?<![\w-])--password[= ]"
    # The option that takes the password of a registry login, a Redis
    # client, an archive, OpenSSL's key files, an SMB share or a web
    # server's password file: what the tool reads, not what it asks for.
    r"|(?<![\w-])(?:docker|podman|nerdctl) login[^\n|;&]{0,80}? -p "
    r"|(?<![\w-])redis-cli[^\n|;&]{0,80}? -a |(?<![\w-])zip[^\n|;&]{0,80}? -P "
    r"|(?<![\w-])7z[az]?[^\n|;&]{0,80}? -p|(?<![\w-])-pass(?:in|out)? pass:"
    r"|(?<![\w-])smbclient[^\n|;&]{0,80}? -U [\w.\\-]{1,64}%"
    r"|(?<![\w-])htpasswd -[bcBimsd]{1,5} [^\s|;&]{1,128} [\w.@-]{1,64} "
    r"|(?<![\w-])net use[^\n|;&]{0,80}? /user:[^\s|;&]{1,64} "
    # curl's and HTTPie's account given with its password after a colon
    # (the account alone makes them ask).
    r"|(?<![\w-])(?:curl[^\n|;&]{0,80}? (?:-u|-U|--user|--proxy-user)"
    r"|https?[^\n|;&]{0,80}? (?:-a|--auth))[ =]['\"]?[^\s:'\"@]{1,64}:"
    r"|WIFI:" + _nested(r"[A-Z]:[^;\n]{0,64};", 3, "?") + "P:)"
    r"(?P<quote>['\"])?(?P<secret>[^\s'\";]{4,64})(?(quote)['\"])"
)
# A value only a password looks like, in the clause of a password's name:
# letters and digits joined by a symbol inside them ("Lingon!4477",
# "Cedar&Moth&1962"). Whatever binds them ("is", "on", "ist", "stays",
# "changed to", "auf … geändert", "bytte … till", "zmieniłem … na", a
# markdown label), a value of this shape in the name's clause, after it or
# before it, is the password: prose, paths, addresses and versions are
# never so shaped.
_INNER_SYMBOL = "!#$%&*+^~@"
_INNER_SYMBOL_RX = re.compile(r"[^\W_][" + re.escape(_INNER_SYMBOL) + r"][^\W_]")
# With a value so shaped, a bare "pass" or "pw" names the password too
# ("the admin pass I gave the contractor: …"): a pass of another kind
# (boarding, bus) carries no such value.
# An account's credentials, named as such, name its password too:
# "credentials: admin Cobalt*Rain3", "Zugangsdaten: admin Rain*Cobalt3".
_SHAPED_NAMES = (*_PASS_WORDS, "pass", "pw", "pwd", "creds", "credential", "login details",
                 "login info", "zugangsdaten", "anmeldedaten", "identifiants", "credenciales",
                 "credenziali", "credenciais", "inloggegevens", "dane logowania",
                 "учётные данные", "учетные данные", "přihlašovací údaje",
                 "inloggningsuppgifter",
                 # An account's value so shaped is its password: "the kiosk
                 # accounts all share Pine#Cone88", "login Cedar!Fox11".
                 "account", "login",
                 # A key or a locked lock drawn before a value labels it as a
                 # password does in a chat: "wifi 🔑 Marlin#Tide40".
                 "🔑", "🔐")
_PASS_LATIN = tuple(sorted((w for w in _SHAPED_NAMES if not re.search("[" + _CJK + "]", w)),
                           key=len, reverse=True))
_PASS_WORD = (
    # "pass" takes a plural only, as the short words do: "passed" is a verb.
    r"(?:" + _LATIN_WORD.format(
        _one_of(w for w in _PASS_LATIN if len(w) > 3 and w != "pass"),
        _one_of(w for w in _PASS_LATIN if len(w) <= 3 or w == "pass"))
    + "|" + "|".join(w for w in _PASS_WORDS if re.search("[" + _CJK + "]", w)) + ")"
)
# A clause's gap: no sentence end ("example.com" and "v2.4" are no end).
_CLAUSE_GAP = r"(?:[^.!?;\n。！？]|[.!?](?=\S)){{0,{}}}?"
_SHAPED_IN_CLAUSE = (
    # The name first ("the NAS password is …"), or after the value in its
    # clause ("use … for the router login", "… is what I set as the password").
    r"(?:(?P<named>" + _PASS_WORD + r")" + _CLAUSE_GAP.format(60) + r")?"
    r"(?<![^\s(\"'“«‘:：*])"
    r"(?P<secret>[^\s。，、！？]{0,40}?[^\W_][" + re.escape(_INNER_SYMBOL) + r"][^\W_]"
    r"[^\s。，、！？]{0,40}?)(?=[.,;:)!?\"'”»’]?(?:[\s。，、！？]|$))"
    r"(?(named)|" + _CLAUSE_GAP.format(40) + _PASS_WORD + ")"
)
_REFERENCE_NUMBER = re.compile(r"[A-Z]{1,12}[#-]\d{1,12}")


# An account or a login names the value alone: "login at 10:30 with team#4".
_ACCOUNT_NAMED = re.compile(r"(?<![^\W\d_])(?:accounts?|logins?)(?![^\W\d_])", re.IGNORECASE)
_PASS_NAMED = re.compile("|".join(re.escape(w) for w in _SHAPED_NAMES
                                  if w not in ("account", "login")), re.IGNORECASE)


def _password_shaped(m: re.Match[str]) -> bool:
    """The match's value is shaped as only a password is (``_shaped``); named
    by an account or a login alone, it is a password's length too."""
    value = m.group("secret")
    name = m.string[m.start():m.start("secret")] + m.string[m.end("secret"):m.end()]
    if len(value) < 8 and _ACCOUNT_NAMED.search(name) and _PASS_NAMED.search(name) is None:
        return False
    return _shaped(value)


def _shaped(value: str) -> bool:
    """``value`` holds a letter, a digit and a symbol between word
    characters, and is no address, URL, path, assignment, placeholder or a
    ticket's reference ("OPS#4471")."""
    if not _INNER_SYMBOL_RX.search(value):
        return False
    if not 6 <= len(value) <= 64 or _PLACEHOLDER.fullmatch(value):
        return False
    if any(part in value for part in ("/", "\\", "=", "://", "${", "<", ">")):
        return False
    if re.search(r"@[\w-]{1,63}\.[^\W\d_]", value):
        return False  # an address
    if _REFERENCE_NUMBER.fullmatch(value) or re.match(r"v?\d{1,6}\.\d", value, re.I):
        return False  # a ticket ("OPS#4471") or a version ("v4.2+build7")
    _lower, _upper, digit, _symbol = _char_classes(value)
    return digit and any(ch.isalpha() for ch in value)


# A Wi-Fi network's key named "key" (or "pass") after the network in its
# sentence: "guest wifi: network BlueHouse, key 7HappyOtters!". Alone, "key"
# names nothing; after a Wi-Fi word, a value of a password's shape is the
# network's password (never the name of a cipher: WPA2-PSK, AES). A phone's
# hotspot is a Wi-Fi network.
_WIFI_KEY = (
    r"(?i:(?<![\w-])(?:wi-?fi|wlan|ssid|hot-?spot)(?![\w-])[^.!?;\n]{0,60}?(?<![\w-])"
    r"(?:key|pass|clé|clave|chave|chiave|schlüssel|ключ)(?![\w-])"
    # Or the Wi-Fi named alone, bound to its value ("Wi-Fi: Cedar#Pond33",
    # "wifi → …"): a network's name may stand there, so the value must hold
    # a symbol no name does.
    r"|(?<![\w-])(?:wi-?fi|wlan|hot-?spot)(?P<bare>(?: ?[:=]| ?→| is| est| ist| es| é| è|)(?= )))"
    r"(?: ?[:=]| is| est| ist| es| é| è)? ?"
    r"(?P<secret>[^\s\"'`,;()<>\[\]{}]{6,64})"
)
_CIPHER = re.compile(r"(?:wpa|wep|psk|aes|tkip|ccmp|sae)", re.IGNORECASE)


def _wifi_key(m: re.Match[str]) -> bool:
    value = m.group("secret").rstrip(".!?:")
    bare = m.group("bare")
    if bare is not None and not (any(ch in _STRONG_SYMBOL for ch in value)
                                 and any(ch.isdigit() for ch in value)):
        return False
    if bare == "" and _CLAUSE_END_AFTER.match(m.string, m.end()) is None:
        # With nothing between, the value ends its clause: "the wifi
        # Guest!Net2 network" names the network.
        return False
    if _CIPHER.match(value) or _PLACEHOLDER.fullmatch(value) or _DATE_TIME_VERSION.fullmatch(value):
        return False
    lower, upper, digit, _ = _char_classes(value)
    strong = any(ch in _STRONG_SYMBOL for ch in value)
    return len(value) >= 6 and bool(((lower or upper) and (digit or strong))
                                     or (digit and strong))


# A passphrase is a phrase: after its name and a colon, the rest of the line
# (three to ten words, digits allowed: "Blue heron waits at 6am") is the
# value, even with function words; never a rule about it ("at least four
# words"), a pointer to where it is kept, or words of state.
_PASSPHRASE_WORDS = (
    "passphrase", "pass phrase", "phrase secrète", "phrase de passe", "frase secreta",
    "frase de contraseña", "frase-senha", "парольная фраза", "кодовая фраза",
    # A password manager's master password is most often a phrase.
    "master password", "master passphrase", "master-passwort", "masterpasswort",
    "mot de passe maître", "mot de passe principal", "contraseña maestra", "senha mestra",
    "password principale", "мастер-пароль", "главный пароль",
)
# Up to ten words, digits and hyphens allowed.
_PHRASE_VALUE = r"[^\W_][\w'-]{0,31}+" + _nested(r" [\w'-]{1,32}+", 9, "?")
_PASSPHRASE_LINE = (
    r"(?i:(?<![\w-])(?P<word>" + "|".join(_PASSPHRASE_WORDS) + r"))"
    r"(?P<gap>[^.!?;:\n\"'`()<>{}\[\]=“”«»]{0,40}?)"
    # An aside in brackets before the colon names which one: "Passphrase
    # (the long one): …".
    r"(?: \([^()\n]{1,30}\))?"
    # Bound by a colon or "=", to the end of its sentence; or in quotes.
    r"(?: ?[:=] ?(?P<secret>" + _PHRASE_VALUE + r")(?= ?(?:[.!?]|$|\n))"
    r"|(?: ?:| is| was| est| ist| es| é| è)? ?[\"“«](?P<quoted>" + _PHRASE_VALUE + r")[\"”»])"
)
_PHRASE_RULE_WORDS = frozenset("""
least most minimum maximum must should shall need needs required words word characters chars
letters digits long length random strong weak example examples see ask stored kept saved
vault manager keepass bitwarden 1password lastpass sticker envelope safe drawer rules policy
mots caractères moins doit palabras caracteres menos debe слов символов минимум должна
""".split())


# A first word that points elsewhere or qualifies ("in the vault", "any
# four words", "same as the disk's", "whatever you chose"); a phrase may open
# with an article.
_POINTER_FIRST = frozenset("""
at in on see ask use from with by under behind per any no none not same tbd n/a
whatever whichever your yours
dans sur voir avec sous im auf mit siehe en con ver в на см
""".split())


def _passphrase_line(m: re.Match[str]) -> bool:
    if _modified(m.group("gap")):
        return False
    words = [w.lower().strip("'-") for w in (m.group("secret") or m.group("quoted")).split(" ")]
    if not 3 <= len(words) <= 10 or words[0] in _POINTER_FIRST or words[0] in _STATE_WORDS:
        return False
    return not any(w in _PHRASE_RULE_WORDS or w in _KIND_WORDS or w in _DESCRIBING
                   for w in words)
