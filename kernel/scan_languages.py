"""The vocabulary of the injection rows across languages: the words the
rule table (``kernel/scan_rules.py``) reads an override, a ranking above
the model's instructions, a secret sent out, a hidden prompt shown and
limits dropped by.

Owns: ``_Lang`` and ``_LANGS`` (per language, the verbs that set
instructions aside, the nouns for instructions and the words that mark them
the model's own) and the word lists and patterns of the other injection
rows. The rows, and the builder of the override rows, are the table's.

Invariants:
- data only: no row, no validator, nothing that scans;
- every repetition is bounded (``tests/unit/test_scan_bounds.py`` lints the
  patterns built from these);
- every vocabulary entry is a literal (a stem): the rows' prefilter
  literals are the same strings.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

# --- instructions across languages -------------------------------------------------
#
# An override is a verb that sets instructions aside and a word for the
# instructions, close together in one sentence: per language, the verbs, the
# nouns and the words that mark the instructions as the model's own (prior,
# all, system). With a marker, the rule refuses; without one (a note may tell
# its reader to forget some rules), it flags for review. Verb-object languages
# put the verb first, object-verb languages (Korean, Japanese, Turkish) last.
# Every vocabulary entry is a literal (a stem): the prefilter's literals are
# the same strings.


@dataclass(frozen=True, slots=True)
class _Lang:
    code: str
    verbs: tuple[str, ...]
    nouns: tuple[str, ...]
    markers: tuple[str, ...]
    verb_last: bool = False


def _alt(words: tuple[str, ...]) -> str:
    return "(?:" + "|".join(re.escape(w) for w in sorted(words, key=len, reverse=True)) + ")"


# Within a sentence: no full stop, line break or (CJK) sentence end between.
_GAP = r"[^.!?\n。！？]{0,40}?"
_SHORT_GAP = r"[^.!?\n。！？]{0,24}?"

_LANGS: tuple[_Lang, ...] = (
    _Lang("fr", ("ignore", "oublie", "ne tiens plus compte", "ne tenez plus compte",
                 "ne tiens pas compte", "fais abstraction", "faites abstraction", "outrepasse",
                 "contourne", "désobéis", "n'obéis plus", "annule"),
          ("instruction", "consigne", "règle", "directive", "prompt", "invite système",
           "paramètre", "commande"),
          ("précédent", "antérieur", "initial", "toutes", "tous", "système", "d'origine",
           "avant", " tes ", " vos ")),
    _Lang("de", ("ignorier", "vergiss", "vergessen sie", "missachte", "übergeh", "außer kraft",
                 "hebe", "befolge keine", "befolge nicht"),
          ("anweisung", "instruktion", "regel", "vorgabe", "richtlinie", "systemprompt",
           "befehl", "anordnung", "systemanweisung"),
          ("vorherig", "bisherig", "früher", "vorangegangen", "ursprünglich", " alle", "sämtlich",
           "system", "deine", "ihre")),
    _Lang("es", ("ignora", "ignore", "olvida", "olvide", "no hagas caso", "haga caso omiso",
                 "haz caso omiso", "descarta", "desobedece", "omite", "no sigas"),
          ("instruccion", "instrucción", "regla", "directriz", "directrices", "norma",
           "indicacion", "indicación", "prompt", "configuración", "órdenes"),
          ("anterior", "previa", "previas", "original", "todas", "todos", "sistema", "antes",
           " tus ", " sus ")),
    _Lang("pt", ("ignore", "ignora", "esqueça", "esqueca", "desconsidere", "despreze",
                 "descarte", "não siga", "nao siga"),
          ("instruç", "instruc", "regra", "diretriz", "diretrizes", "orientaç", "prompt",
           "comando"),
          ("anterior", "original", "originais", "todas", "todos", "sistema", "antes", " suas ",
           " seus ")),
    _Lang("it", ("ignora", "dimentica", "non tenere conto", "trascura", "scarta", "non seguire"),
          ("istruzion", "regol", "direttiv", "linee guida", "prompt", "comand"),
          ("precedent", "original", "tutte", "tutti", "sistema", " prima", " tue ", " tuoi ")),
    _Lang("ru", ("игнорир", "проигнорир", "забудь", "забудьте", "не обращай", "отмени",
                 "пренебреги", "не следуй"),
          ("инструкци", "правил", "указани", "промпт", "настройк", "команд", "директив"),
          ("предыдущ", "прежн", "раньше", "исходн", "все ", "всех", "системн", "свои")),
    _Lang("vi", ("bỏ qua", "quên", "phớt lờ", "đừng để ý", "không tuân theo", "lờ đi",
                 "đừng làm theo"),
          ("hướng dẫn", "quy tắc", "chỉ dẫn", "chỉ thị", "lệnh", "lời nhắc hệ thống"),
          ("trước", "tất cả", "mọi", "hệ thống", "ban đầu")),
    _Lang("ar", ("تجاهل", "انس", "لا تلتفت", "تخط", "اهمل", "أهمل", "لا تتبع"),
          ("التعليمات", "تعليمات", "القواعد", "الأوامر", "الإرشادات", "موجه النظام"),
          ("السابقة", "جميع", "كل", "النظام", "من قبل")),
    _Lang("nl", ("negeer", "vergeet", "volg niet"),
          ("instructie", "regels", "richtlijn", "prompt", "opdracht"),
          ("eerdere", "vorige", " alle", "systeem", "oorspronkelijke")),
    _Lang("pl", ("zignoruj", "ignoruj", "zapomnij", "pomiń", "nie stosuj się"),
          ("instrukcj", "zasad", "polece", "wytyczn", "prompt"),
          ("poprzedni", "wcześniejsz", "wszystkie", "systemow")),
    _Lang("id", ("abaikan", "lupakan", "jangan ikuti"),
          ("instruksi", "aturan", "perintah", "pedoman", "prompt"),
          ("sebelumnya", "semua", "sistem")),
    _Lang("ko", ("무시", "잊", "무효", "따르지 마", "따르지 말"),
          ("지시", "지침", "규칙", "명령", "프롬프트", "설정"),
          ("이전", "앞서", "모든", "시스템", "기존"), verb_last=True),
    _Lang("tr", ("yok say", "unut", "görmezden gel", "dikkate alma", "uyma", "önemseme"),
          ("talimat", "kural", "yönerge", "komut", "istem"),
          ("önceki", "tüm", "bütün", "sistem", "daha önce"), verb_last=True),
    _Lang("ja", ("無視", "忘れ", "気にせず", "従わず", "従わない"),
          ("指示", "ルール", "設定", "命令", "プロンプト"),
          ("以前", "これまで", "すべて", "全て", "システム", "最初"), verb_last=True),
    _Lang("zh", ("无视", "忽略", "不要再遵守", "不要遵守", "别再遵守", "作废", "不用理会"),
          ("指示", "规则", "设定", "要求", "指令"),
          ("之前", "先前", "以前", "所有", "全部", "系统", "统统"), verb_last=False),
)


# "The rules in this note take priority": a text that ranks itself above the
# model's instructions, and a model told to drop its limits. Benign notes say
# such things of style guides and wikis, so these flag for review.
_PRIORITY = (
    # en
    r"\b(?:take|takes|have|has|get|gets) (?:priority|precedence)\b|\bsupersedes?\b"
    r"|\b(?:replace|replaces|override|overrides|cancel|cancels) (?:all |any )?(?:your|the)"
    r" (?:earlier |previous |prior |original )?(?:instructions|guidance|rules|setup)",
    # fr
    r"\b(?:remplacent|remplace|priment sur|prévalent sur|ont la priorité sur)\b",
    # de
    r"\bhaben vorrang vor\b|\bhat vorrang vor\b|\bersetzen alle\b",
    # es
    r"\btienen? prioridad sobre\b|\bprevalecen? sobre\b|\breemplazan?\b",
    # pt
    r"\btêm prioridade sobre\b|\btem prioridade sobre\b|\bprevalecem sobre\b",
    # it
    r"\bhanno la precedenza su\b|\bha la precedenza su\b|\bprevalgono su\b",
    # ru
    r"важнее (?:всех|любых)|имеют приоритет над|отменяют все",
    # vi
    r"được ưu tiên hơn|thay thế mọi",
    # tr
    r"önceliklidir|öncelik taşır",
    # ar
    r"لها الأولوية على|تلغي جميع",
    # ko
    r"보다 우선한다|보다 우선합니다|우선 적용",
    # ja
    r"より優先され|より優先します",
    # zh
    r"优先于|为准|以本条为准|规则优先",
)
_PRIORITY_LITERALS = (
    "priority", "precedence", "supersede", "replace", "override", "cancel", "remplace",
    "priment", "prévalent", "priorité", "vorrang", "ersetzen", "prioridad", "prevalece",
    "reemplaza", "prioridade", "prevalecem", "precedenza", "prevalgono", "важнее",
    "приоритет", "отменяют", "ưu tiên", "thay thế", "öncelik", "الأولوية", "تلغي", "우선",
    "優先", "优先", "为准",
)
_NOUNS_ANY = (
    "instruction", "guidance", "rules", "rule", "setup", "directive", "consigne", "règle",
    "anweisung", "regel", "instruc", "regla", "norma", "instruç", "regra", "istruzion",
    "regol", "инструкци", "правил", "указани", "chỉ thị", "quy tắc", "hướng dẫn", "talimat",
    "kural", "chỉ dẫn", "تعليمات", "التعليمات", "القواعد", "지시", "규칙", "指示", "ルール",
    "规则", "设定",
    "指令", "guideline", "prompt", "configuration", "system message",
)

# Flattened: 'take priority over' may come before or after the nouns it ranks.
_PRIORITY_RULE = (
    "(?:" + "|".join(_PRIORITY) + ")"
)


# Sending the user's secrets somewhere, in any of the languages above.
_SEND_VERBS = (
    "send", "forward", "upload", "envoie", "envoyez", "transmets", "schick", "sende",
    "übermittle", "envía", "envia", "envie", "manda", "invia", "inoltra", "отправь",
    "перешли", "отправьте", "보내", "전송", "gửi", "gönder", "أرسل", "ارسل", "发到", "发给",
    "发送", "上传", "送って", "送信", "stuur", "wyślij", "kirim",
)
_SECRET_NOUNS = (
    "password", "credential", "api key", "token", "mot de passe", "mots de passe",
    "passwört", "passwort", "kennw", "contraseña", "senha", "пароль", "пароли", "비밀번호",
    "mật khẩu", "şifre", "كلمات المرور", "كلمة المرور", "密码", "パスワード", "wachtwoord",
    "hasł", "kata sandi",
)
_EXFIL_DEST = r"(?:https?://|[A-Za-z0-9._-]{1,64}@[A-Za-z0-9-]{1,63}\.[A-Za-z.]{2,24})"
# A character of one sentence: the verb, the secret and where it goes are
# one request ("We will never ask for your password by email. Report
# phishing to security@…" asks for nothing).
_IN_SENTENCE = r"(?:(?![.!?]\s|[。！？])[^\n])"
# Hidden or system instructions, named to be shown.
_HIDDEN = (
    "hidden", "cachée", "cachées", "versteckt", "ocult", "oculta", "ocultas", "nascost",
    "скрыт", "숨겨진", "ẩn", "المخفية", "隐藏", "隠された", "gizli", "ukryt", "tersembunyi",
    "verborgen",
)
_SYSTEM_PROMPT = (
    "prompt système", "prompt del sistema", "prompt de sistema",
    "prompt di sistema", "systemprompt", "systemanweisung", "системный промпт",
    "시스템 프롬프트", "lời nhắc hệ thống", "sistem istem", "موجه النظام", "系统提示词",
    "システムプロンプト", "systeemprompt", "prompt systemow", "prompt sistem",
)
# Showing, in the languages above (with the system prompt: asked to reveal it).
_SHOW = (
    "show", "reveal", "print", "display", "output", "affiche", "montre", "révèle", "zeig",
    "gib", "muestra", "revela", "mostre", "mostra", "покажи", "раскрой", "выведи", "보여",
    "출력", "in ra", "tiết lộ", "göster", "açıkla", "اعرض", "اكشف", "显示", "说出", "输出",
    "表示", "書き出", "toon", "pokaż", "tampilkan",
)
# What the model was told, in English.
_GUIDANCE_EN = (r"\b(?:instructions?|guidance|rules|system message|system prompt|directions"
                r"|setup|configuration|safety constraints|constraints|restrictions|programming)\b")
# "Without any restriction", in the languages above.
_WITHOUT = (
    "without", "sans", "ohne", " sin ", " sem ", "senza", "без", "không có", "hiçbir", "没有任何",
    "不受任何", "のない", "なしで", "아무런", "없이", "بلا", "بدون", "zonder", " bez ", "tanpa",
)
_LIMITS = (
    "restriction", "filter", "einschränkung", "restricción", "filtro", "restriç", "restrizion",
    "ограничени", "фильтр", "giới hạn", "lọc", "kisitla", "filtre", "限制", "制限", "フィルター",
    "제한", "필터", "قيود", "تصفية", "beperking", "ograniczeń", "batasan",
)
