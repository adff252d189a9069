# ruff: noqa: E501 - one language's vocabulary per block reads better unwrapped
"""The vocabulary of the addressed-intent rules: what an attacker wants from a
model, per language, and the words that aim a sentence at a model.

Owns: ``ADDRESSED`` (one ``Addressed`` per language) and the three builders
``kernel/scan_rules`` makes its ``injection.addressed_<lang>`` rows from:
``pattern`` (a family's verb and its object in one sentence, either order),
``prefilter`` and ``aimed_near`` (the validator).

An injection is an instruction to the model that reads the note. Its words
vary without end, its structure does not: a verb of one of seven intents
(set earlier guidance aside, change persona, hide something from the user,
send data out, run a tool, turn safety off, speak with borrowed authority)
with its object, in a sentence aimed at the reader — a pronoun of address,
"assistant", "model", "AI", a second-person verb form — or carrying a mark
only an attack on a model needs (a URL or mail address to send to, the
system prompt, guardrails). The same verb and object in a note to a person
("Forget the old parking rules") carry no such mark and pass.

Invariants:
- every vocabulary entry is a literal (a stem), and a match starts with one:
  the prefilter's literals are the same strings and ``lead`` is 0;
- the verb and object sit in one sentence, at most ``GAP`` characters apart,
  so each start position costs a bounded amount of work;
- ``aimed_near`` looks at the sentence of the match and no further than
  ``WINDOW`` characters on either side: bounded work per match;
- these rules only flag for review: they read the structure of an
  instruction, and a person's note may share it.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

__all__ = ["ADDRESSED", "WINDOW", "Addressed", "aimed_near", "pattern", "prefilter"]

FAMILIES = ("override", "persona", "hide", "exfil", "tool", "safety", "authority")

# How far, on either side of a match, the validator looks for the mark that
# aims the sentence at a model; it stops earlier at the sentence's end.
WINDOW = 160
# Within a sentence: no sentence end between (a dot inside an address or a
# file name is not one).
GAP = r"(?:[^.!?\n。！？]|[.!?](?=[^\s.!?])){0,60}?"
_SENTENCE_END = re.compile(r"[.!?](?:\s|$)|[\n。！？]")

# Marks only an attack on a model needs, in any language: the model's own
# machinery.
_AIMED_ANY = (
    r"system ?prompt|guardrail|jailbreak|(?<![A-Za-z])(?:ai|llm|gpt|chatbot|copilot)(?![A-Za-z])"
)
# Where data is sent: an address, a URL, a hook (marks the ``exfil`` family only).
_DESTINATION = (
    r"https?://|[A-Za-z0-9._-]{1,64}@[A-Za-z0-9-]{1,63}\.[A-Za-z.]{2,24}|webhook"
    r"|\d{1,3}\.\d{1,3}\.\d{1,3}\.\d{1,3}"
)


@dataclass(frozen=True, slots=True)
class Addressed:
    """One language: the words that aim a sentence at the reader, and per
    family (``FAMILIES`` order) its verbs and its objects."""

    code: str
    readers: tuple[str, ...]
    families: tuple[tuple[tuple[str, ...], tuple[str, ...]], ...]
    # Alphabetic scripts: a word starts at a word boundary.
    spaced: bool = True
    # Readers matched anywhere: phrases, and endings of agglutinating languages.
    reader_stems: tuple[str, ...] = ()
    # "My server", "an external server": where the exfil family sends things.
    destinations: tuple[str, ...] = ()
    # Compounding languages: an object may end a longer word ("Inhaltsfilter").
    compounds: bool = False


# A word's start: not after a letter, nor inside a path, an address or an
# identifier ("/exports/", "acme-token", "q=token").
_START = r"(?<![^\W\d_]|[/=+.@_-])"
# A compound's last part: anywhere but inside a path, an address or an identifier.
_PART = r"(?<![/=+.@_-])"


def _alt(words: tuple[str, ...], spaced: bool, anywhere: bool = False,
         part: bool = False) -> str:
    """Any of ``words``; in a script without spaces only the Latin ones start
    at a word's start, and ``anywhere`` ones nowhere in particular."""
    ordered = sorted(words, key=len, reverse=True)
    if anywhere or part:
        return (_PART if part else "") + "(?:" + "|".join(re.escape(w) for w in ordered) + ")"
    latin = [w for w in ordered if spaced or w[:1].isascii()]
    other = [w for w in ordered if not (spaced or w[:1].isascii())]
    parts = []
    if latin:
        parts.append(_START + "(?:" + "|".join(re.escape(w) for w in latin) + ")")
    if other:
        parts.append("(?:" + "|".join(re.escape(w) for w in other) + ")")
    return "(?:" + "|".join(parts) + ")"


def pattern(lang: Addressed) -> str:
    """A family's verb and object in one sentence, in either order; the
    family names its group."""
    parts = []
    words = [w for verbs, objects in lang.families for w in (*verbs, *objects)]
    # A gate before the alternatives: a position no word can start at (most
    # of them: inside a word, or a character no word begins with) fails at
    # one character-class test instead of trying every word.
    bounded = {w[0].lower() for w in words if lang.spaced or w[:1].isascii()}
    loose = {w[0].lower() for w in words if lang.compounds or not (lang.spaced or w[:1].isascii())}
    gates = []
    if bounded:
        gates.append(_START + "(?=[" + "".join(re.escape(c) for c in sorted(bounded)) + "])")
    if loose:
        gates.append("(?=[" + "".join(re.escape(c) for c in sorted(loose)) + "])")
    for family, (verbs, objects) in zip(FAMILIES, lang.families, strict=True):
        verb = _alt(verbs, lang.spaced)
        obj = _alt(objects, lang.spaced, part=lang.compounds)
        parts.append(f"(?P<{family}>" + verb + GAP + obj + "|" + obj + GAP + verb + ")")
    return "(?:" + "|".join(gates) + ")(?:" + "|".join(parts) + ")"


def prefilter(lang: Addressed) -> tuple[tuple[str, ...], ...]:
    """Every match starts with a verb or an object, and holds one of each."""
    verbs = tuple(sorted({w.lower() for v, _o in lang.families for w in v}))
    objects = tuple(sorted({w.lower() for _v, o in lang.families for w in o}))
    return (tuple(sorted(set(verbs) | set(objects))), verbs, objects)


def aimed_near(lang: Addressed) -> Callable[[re.Match[str]], bool]:
    """The validator: the match's sentence is aimed at a model."""
    marks = [_AIMED_ANY]
    if lang.readers:
        marks.append(_alt(lang.readers, lang.spaced) + (r"(?![^\W\d_])" if lang.spaced else ""))
    if lang.reader_stems:
        marks.append(_alt(lang.reader_stems, lang.spaced, anywhere=True))
    readers = re.compile("|".join(marks), re.IGNORECASE)
    sent = re.compile("|".join([_DESTINATION, *([_alt(lang.destinations, lang.spaced)]
                                                 if lang.destinations else [])]),
                      re.IGNORECASE)

    def aimed(m: re.Match[str]) -> bool:
        text = m.string
        start = max(0, m.start() - WINDOW)
        ends = [e.end() for e in _SENTENCE_END.finditer(text, start, m.start())]
        start = ends[-1] if ends else start
        stop = _SENTENCE_END.search(text, m.end(), min(len(text), m.end() + WINDOW))
        end = stop.start() if stop else min(len(text), m.end() + WINDOW)
        if m.lastgroup == "exfil" and sent.search(text, start, end) is not None:
            return True
        return readers.search(text, start, end) is not None

    return aimed


_EN = Addressed(
    "en",
    ("you", "your", "yours", "yourself", "you're", "you'll", "assistant"),
    (
        (("ignore", "disregard", "forget", "set aside", "discard", "abandon", "overrid",
          "overrul", "supersed", "cancel", "void", "obsolete", "no longer appl",
          "no longer valid", "no longer count", "no longer in force", "no longer hold",
          "stop following", "do not follow", "don't follow", "pay no attention", "invalid",
          "revoke", "withdrawn", "rescind", "null and void", "scrap"),
         ("instruction", "guidance", "guideline", "rules", "directive", "directions",
          "policies", "configured", "configuration", "setup", "programming", "orders",
          "prompt", "briefing")),
        (("you are now", "you're now", "you will now", "you'll now", "play the part",
          "play the role", "roleplay", "role-play", "pretend", "act as", "impersonat",
          "new identity", "new persona", "new role", "new name", "from now on you",
          "take on the role", "adopt the persona", "switch into", "transform into",
          "answer as", "respond as", "reply as", "drop your usual"),
         ("admin", "root", "hacker", "persona", "identity", "character", "unrestricted",
          "unfiltered", "jailbr", "no restrictions", "no limits", "never refuse", "evil",
          "developer mode", "superuser", "without rules", "without limits", "anything")),
        (("don't tell", "do not tell", "never tell", "don't mention", "do not mention",
          "never mention", "don't inform", "do not inform", "don't let", "do not let",
          "conceal", "hide", "keep secret", "keep this secret", "keep it secret",
          "keep this from", "keep it from", "without telling", "without informing",
          "without letting", "must not report", "never report", "don't reveal",
          "do not reveal", "never reveal", "don't disclose", "do not disclose", "delete the log", "erase the log", "wipe the log", "clear the log", "delete the audit", "erase the audit", "delete the history", "cover your tracks"),
         ("the user", "user know", "users", "the owner", "the human", "the person",
          "anyone", "the operator", "whoever")),
        (("send", "forward", "upload", "email", "e-mail", "transmit", "exfiltrat", "leak",
          "export", "post", "mail", "submit", "relay", "beam", "hand over"),
         ("password", "passphrase", "credential", "secret", "api key", "api-key", "token",
          "cookie", "private key", "ssh", ".env", "env file", "environment variable",
          "conversation", "chat history", "chat log", "transcript", "memories",
          "personal data", "contacts", "wallet", "seed phrase", "keychain")),
        (("run", "execute", "exec", "invoke", "call", "launch", "trigger"),
         ("rm -rf", "sudo", "shell", "terminal", "powershell", "payment", "transfer",
          "wire", "tool", "delete all", "drop table", "drop database", "mkfs",
          "without asking", "without confirm", "silently", "quietly", "secretly")),
        (("disable", "turn off", "switch off", "shut off", "deactivate", "bypass",
          "circumvent", "get around", "work around", "evade", "suspend", "lift", "remove",
          "skip", "ignore", "drop"),
         ("safety", "safeguard", "guardrail", "filter", "moderation", "content polic",
          "restriction", "censor", "ethic", "refusal", "security check")),
        (("this is your", "this is the", "message from", "note from", "order from",
          "instruction from", "directive from", "on behalf of", "authorized by",
          "authorised by", "approved by", "as your", "i am your", "i'm your",
          "by order of", "on the orders of", "has authorized you", "has authorised you",
          "authorizes you", "authorises you", "speaking", "override from"),
         ("developer", "operator", "administrator", "admin", "system", "creator", "owner",
          "openai", "anthropic", "security team", "sysadmin", "maintainer", "supervisor")),
    ),
    reader_stems=("model,", "model:", "agent,", "agent:", "bot,", "bot:", "to the model",
                  "to the agent", "the model reading", "the agent reading", "any model",
                  "any agent", "this note", "this entry", "this memo", "this record", "this message", "before answering", "before replying", "before responding", "the user", "the user's"),
    destinations=("my server", "external server", "this address", "the address below", "the address in"),
)

_ZH = Addressed(
    "zh",
    ("你", "您", "助手", "模型", "智能体", "机器人", "人工智能"),
    (
        (("作废", "失效", "无效", "不算数", "不再有效", "不再适用", "取消", "忽略", "无视", "忘掉",
          "忘记", "不用管", "别管", "抛开", "撤销", "废除", "为准", "不要遵守", "不必遵守", "不用遵守"),
         ("设定", "规则", "指示", "指令", "规定", "要求", "提示词", "准则", "守则", "配置", "限制")),
        (("扮演", "充当", "假装", "切换成", "变成", "身份是", "化身", "现在是", "角色是"),
         ("黑客", "管理员", "角色", "身份", "人格", "没有任何约束", "不受限制", "无限制", "root",
          "什么都")),
        (("不要告诉", "别告诉", "不要让", "隐瞒", "瞒着", "保密", "不要提", "别提", "不要透露", "不要说", "删除", "清除", "清空", "抹掉"),
         ("用户", "主人", "使用者", "任何人", "他们", "日志", "记录")),
        (("发到", "发给", "发送", "转发", "上传", "传到", "提交到", "寄到", "同步到", "复制到", "贴到"),
         ("密码", "口令", "密钥", "私钥", "令牌", "凭证", "凭据", "聊天记录", "对话记录", "会话",
          "历史记录", "记忆", "环境变量", "cookie", "token", "api key", "个人信息", "通讯录")),
        (("执行", "运行", "调用", "启动"),
         ("命令", "rm -rf", "工具", "脚本", "函数", "转账", "付款", "支付", "sudo", "shell")),
        (("关闭", "停用", "禁用", "绕过", "跳过", "关掉", "解除", "规避"),
         ("安全", "过滤", "审核", "审查", "防护", "检查", "护栏")),
        (("这是", "来自", "消息", "通知", "授权", "命令", "我是", "代表"),
         ("开发者", "开发人员", "管理员", "运营方", "运营者", "系统", "操作员", "官方", "创建者")),
    ),
    spaced=False,
    reader_stems=("这条笔记", "这条记录", "本条", "回答之前", "回答前", "用户"),
    destinations=("我的服务器", "外部服务器", "这个地址", "这个邮箱"),
)

_JA = Addressed(
    "ja",
    ("あなた", "アシスタント", "モデル", "エージェント", "ボット", "君", "お前"),
    (
        (("無効", "取り消", "破棄", "無視", "忘れ", "従わなく", "撤回", "廃止", "優先"),
         ("指示", "ルール", "ガイドライン", "設定", "命令", "方針", "規則", "プロンプト", "制約")),
        (("振る舞", "なりきっ", "なりすま", "ふりをし", "演じ", "役割は"),
         ("管理者", "ハッカー", "制限のない", "制限なし", "人格", "役割", "root")),
        (("言わない", "言うな", "伝えない", "伝えては", "隠し", "隠す", "秘密に", "黙って", "知らせない",
          "教えない", "削除", "消去", "消し"),
         ("ユーザー", "利用者", "持ち主", "所有者", "誰にも", "使用者", "ログ", "履歴", "記録")),
        (("送っ", "送信", "転送", "アップロード", "送る", "送れ", "投稿"),
         ("パスワード", "秘密鍵", "認証情報", "トークン", "apiキー", "api キー", "履歴", "環境変数",
          "クッキー", "記憶", "個人情報")),
        (("実行", "呼び出", "起動", "走らせ"),
         ("コマンド", "rm -rf", "ツール", "スクリプト", "関数", "送金", "振り込", "sudo")),
        (("オフ", "無効", "回避", "解除", "停止", "外し", "切っ", "スキップ"),
         ("安全", "フィルター", "チェック", "審査", "検閲", "制限", "ガードレール", "モデレーション")),
        (("からの", "として", "権限で", "連絡", "命じ", "指示し"),
         ("開発者", "管理者", "運営者", "運営", "システム", "オペレーター", "作成者")),
    ),
    spaced=False,
    reader_stems=("このメモ", "このノート", "この記録", "答える前に", "回答する前に", "ユーザー"),
    destinations=("私のサーバー", "外部サーバー", "このアドレス"),
)

_ES = Addressed(
    "es",
    ("tú", "tu", "tus", "te", "ti", "contigo", "usted", "asistente", "modelo", "agente", "bot",
     "debes", "tienes", "eres", "estás", "puedes"),
    (
        (("ignora", "olvida", "deja de lado", "descarta", "anula", "dejar de lado", "ya no valen", "ya no vale",
          "ya no son válid", "ya no aplic", "sin efecto", "invalid", "reemplaz", "sustitu",
          "no sigas", "no obedezcas", "haz caso omiso", "deja de seguir", "obsolet"),
         ("pauta", "instruccion", "instrucción", "norma", "regla", "directriz", "directrices",
          "indicacion", "indicación", "configuración", "órdenes", "política", "prompt")),
        (("ahora eres", "finge", "finja", "actúa como", "actua como", "compórtate",
          "nuevo papel", "nuevo rol", "nueva identidad", "hazte pasar", "interpreta",
          "a partir de ahora eres", "conviértete"),
         ("administrador", "pirata", "hacker", "sin ninguna restricción", "sin restricciones",
          "sin límites", "nunca se niega", "root", "personaje", "asistente")),
        (("no le digas", "no digas", "no menciones", "no le cuentes", "oculta", "esconde",
          "en secreto", "no informes", "sin avisar", "sin decirle", "no reveles", "ocúltale", "borra", "elimina", "limpia"),
         ("usuario", "usuaria", "dueño", "propietario", "persona", "nadie", "registros", "logs", "historial", "rastro")),
        (("envía", "envia", "enviar", "reenvía", "reenvia", "reenviar", "sube", "subir", "manda",
          "mandar", "transmite", "copia", "publica", "filtra"),
         ("contraseña", "clave", "credencial", "token", "historial", "conversación", "secreto",
          "cookie", "variables de entorno", ".env", "memorias", "datos personales")),
        (("ejecuta", "ejecutar", "lanza", "invoca", "llama", "usa", "usar", "utiliza"),
         ("comando", "rm -rf", "herramienta", "transferir", "transfiere", "pago", "sudo",
          "terminal", "sin pedir", "en secreto", "script")),
        (("desactiva", "desactivar", "apaga", "apagar", "salta", "saltar", "sáltate", "elude",
          "omite", "quita", "deshabilita", "burla", "evita"),
         ("filtro", "seguridad", "moderación", "restriccion", "restricción", "censura",
          "salvaguarda")),
        (("mensaje del", "mensaje de la", "soy tu", "soy su", "por orden del", "por orden de",
          "en nombre del", "de parte del", "autorizado por", "orden del"),
         ("desarrollador", "operador", "administrador", "sistema", "creador", "propietario",
          "equipo de seguridad")),
    ),
    reader_stems=("esta nota", "este texto", "este registro", "antes de responder", "antes de contestar", "al usuario", "del usuario"),
    destinations=("mi servidor", "servidor externo", "esta dirección"),
)

_FR = Addressed(
    "fr",
    ("tu", "te", "toi", "ton", "ta", "tes", "t'", "vous", "votre", "vos", "assistant",
     "modèle", "agent", "bot", "ia", "dois", "devez"),
    (
        (("ignore", "oublie", "oubliez", "mets de côté", "mettez de côté", "mettre de côté", "ne comptent plus",
          "ne compte plus", "ne valent plus", "n'est plus valable", "ne sont plus valables",
          "annulé", "annule", "caduc", "obsolète", "remplac", "ne suis plus", "ne suivez plus",
          "fais abstraction", "ne tiens plus compte", "écarte"),
         ("consigne", "instruction", "règle", "directive", "indication", "configuration",
          "paramétrage", "ordres", "politique", "prompt")),
        (("tu es maintenant", "vous êtes maintenant", "fais semblant", "faites semblant",
          "joue le rôle", "jouez le rôle", "nouveau rôle", "nouvelle identité", "incarne",
          "comporte-toi", "fais comme si", "désormais tu es", "deviens"),
         ("administrateur", "pirate", "hacker", "sans aucune limite", "sans limite",
          "sans restriction", "ne refuse jamais", "root", "personnage", "assistant")),
        (("ne dis pas", "ne dites pas", "ne mentionne", "ne parle pas", "n'en parle",
          "cache", "cachez", "garde cela secret", "garder cela secret", "en secret",
          "sans prévenir", "sans le dire", "ne révèle", "dissimule", "jamais en parler", "efface", "supprime", "nettoie"),
         ("utilisateur", "utilisatrice", "propriétaire", "personne", "journaux", "journal", "logs", "historique", "traces")),
        (("envoie", "envoyez", "envoyer", "transmets", "transmettez", "transfère",
          "transférer", "transférez", "téléverse", "publie", "copie", "colle", "expédie"),
         ("mot de passe", "mots de passe", "clé", "clés", "identifiant", "jeton", "token",
          "historique", "conversation", "secret", "cookie", "variables d'environnement",
          ".env", "souvenirs", "données personnelles")),
        (("exécute", "exécutez", "lance", "lancez", "appelle", "appelez", "utilise",
          "utilisez", "invoque"),
         ("commande", "rm -rf", "outil", "virer", "virement", "paiement", "sudo", "terminal",
          "sans demander", "en cachette", "script")),
        (("désactive", "désactivez", "coupe", "coupez", "contourne", "contournez", "saute",
          "sautez", "ignore", "éteins", "supprime", "lève"),
         ("filtre", "sécurité", "modération", "restriction", "censure", "garde-fou",
          "garde-fous")),
        (("message du", "message de l'", "je suis ton", "je suis votre", "sur ordre",
          "au nom du", "de la part du", "autorisé par", "ordre du"),
         ("développeur", "opérateur", "administrateur", "système", "créateur",
          "propriétaire", "équipe de sécurité")),
    ),
    reader_stems=("cette note", "ce texte", "cette entrée", "avant de répondre", "à l'utilisateur", "l'utilisateur"),
    destinations=("mon serveur", "serveur externe", "cette adresse"),
)

_DE = Addressed(
    "de",
    ("du", "dir", "dich", "dein", "deine", "deinen", "deinem", "deiner", "sie", "ihr",
     "ihre", "ihren", "assistent", "assistentin", "modell", "agent", "bot", "ki", "musst",
     "sollst", "darfst"),
    (
        (("ignorier", "vergiss", "vergessen sie", "beiseite", "gelten nicht mehr",
          "gilt nicht mehr", "nicht mehr gültig", "aufgehoben", "hinfällig", "ungültig",
          "ersetzt", "verwirf", "missachte", "befolge nicht", "befolge keine",
          "außer kraft", "nicht mehr befolgen"),
         ("vorgabe", "anweisung", "regel", "richtlinie", "instruktion", "einstellung",
          "konfiguration", "befehle", "prompt")),
        (("du bist jetzt", "sie sind jetzt", "tu so", "tun sie so", "spiel die rolle",
          "neue rolle", "neue identität", "verwandle dich", "gib dich als", "ab jetzt bist du",
          "verhalte dich"),
         ("administrator", "hacker", "ohne jede beschränkung", "ohne beschränkung",
          "ohne einschränkung", "ohne grenzen", "nie etwas ablehnt", "root", "figur",
          "assistent")),
        (("sag", "sage", "erwähne", "verheimliche", "verschweige", "verberge", "verbirg",
          "geheim halten", "geheimhalten", "ohne zu sagen", "ohne bescheid", "nichts davon", "lösche", "entferne", "lösch"),
         ("benutzer", "nutzer", "person", "besitzer", "eigentümer", "niemandem", "niemand", "protokoll", "logs", "verlauf", "spuren")),
        (("schick", "sende", "leite", "weiterleiten", "lade", "hochladen", "übermittle",
          "kopiere", "poste", "veröffentliche"),
         ("passwort", "passwört", "kennw", "schlüssel", "api-schlüssel", "zugangsdaten", "token", "verlauf",
          "gespräch", "geheimnis", "cookie", "umgebungsvariable", ".env", "erinnerungen",
          "persönliche daten")),
        (("führe", "ausführen", "starte", "rufe", "aufrufen", "benutze", "verwende", "nutze"),
         ("befehl", "rm -rf", "werkzeug", "tool", "überweis", "zahlung", "sudo", "terminal",
          "ohne nachzufragen", "ohne rückfrage", "heimlich", "skript")),
        (("schalte", "abschalten", "deaktivier", "umgeh", "überspring", "ignorier",
          "entfern", "ausschalten"),
         ("filter", "sicherheit", "moderation", "beschränkung", "einschränkung", "zensur",
          "schutzmaßnahme")),
        (("nachricht des", "nachricht vom", "nachricht der", "ich bin dein", "ich bin ihr",
          "im auftrag", "auf anweisung", "autorisiert von", "genehmigt von", "befehl des"),
         ("entwickler", "betreiber", "administrator", "admin", "system", "schöpfer",
          "eigentümer", "sicherheitsteam")),
    ),
    reader_stems=("diese notiz", "dieser notiz", "dieser text", "diesem text", "bevor du antwortest", "dem benutzer", "dem nutzer"),
    destinations=("meinen server", "mein server", "externen server", "diese adresse"),
    compounds=True,
)

_PT = Addressed(
    "pt",
    ("você", "voce", "vocês", "tu", "te", "ti", "seu", "sua", "seus", "suas", "teu", "tua",
     "assistente", "modelo", "agente", "bot", "ia", "deve", "precisa"),
    (
        (("ignore", "ignora", "esqueça", "esqueca", "deixe de lado", "deixar de lado",
          "já não valem", "já não vale", "não valem mais", "anulad", "revogad", "obsolet",
          "substitu", "desconsidere", "descarte", "não siga", "sem efeito"),
         ("orientaç", "instruç", "instruc", "regra", "diretriz", "diretrizes",
          "configuraç", "ordens", "política", "prompt")),
        (("agora você é", "agora és", "finja", "finge", "faça de conta", "novo papel",
          "nova identidade", "interprete", "se passe por", "aja como", "comporte-se",
          "a partir de agora você é", "torne-se"),
         ("administrador", "hacker", "pirata", "sem nenhuma restrição", "sem restrições",
          "sem limites", "nunca recusa", "root", "personagem", "assistente")),
        (("não conte", "não diga", "não mencione", "esconda", "oculte", "em segredo",
          "sem avisar", "sem contar", "não revele", "nunca mencionar", "apague", "apagar", "exclua", "limpe"),
         ("usuário", "usuario", "utilizador", "dono", "proprietário", "pessoa", "ninguém", "registros", "logs", "histórico", "rastros")),
        (("envie", "enviar", "encaminhe", "encaminhar", "carregue", "suba", "mande",
          "transmita", "copie", "publique"),
         ("senha", "chave", "credencia", "token", "histórico", "conversa", "segredo",
          "cookie", "variáveis de ambiente", ".env", "memórias", "dados pessoais")),
        (("execute", "executar", "rode", "rodar", "chame", "use", "usar", "utilize", "acione"),
         ("comando", "rm -rf", "ferramenta", "transferir", "transfira", "pagamento", "sudo",
          "terminal", "sem pedir", "escondido", "script")),
        (("desative", "desativar", "desligue", "desligar", "pule", "pular", "contorne",
          "ignore", "remova", "burle", "evite"),
         ("filtro", "segurança", "moderação", "restriç", "censura", "salvaguarda",
          "verificações de segurança")),
        (("mensagem do", "mensagem da", "sou o seu", "sou seu", "sou o teu", "por ordem do",
          "por ordem de", "em nome do", "da parte do", "autorizado pelo", "ordem do"),
         ("desenvolvedor", "operador", "administrador", "sistema", "criador", "proprietário",
          "equipe de segurança")),
    ),
    reader_stems=("esta nota", "este texto", "antes de responder", "ao usuário", "ao utilizador", "do usuário"),
    destinations=("meu servidor", "servidor externo", "este endereço"),
)

_RU = Addressed(
    "ru",
    ("ты", "тебе", "тебя", "тобой", "твой", "твоя", "твои", "твоё", "твоих", "вы", "вам",
     "вас", "ваш", "ваша", "ваши", "ассистент", "модель", "агент", "бот", "ии", "должен",
     "должна", "обязан"),
    (
        (("больше не действу", "не действуют", "отложи", "отмен", "забудь", "забудьте",
          "игнорир", "проигнорир", "не следуй", "не обращай", "недействительн", "устарел",
          "аннулир", "замен"),
         ("указани", "инструкци", "правил", "директив", "настройк", "промпт", "приказ",
          "политик")),
        (("теперь ты", "теперь вы", "притворись", "притворитесь", "представь, что ты",
          "новая роль", "твоя роль", "сыграй роль", "играй роль", "веди себя как",
          "изображай", "стань"),
         ("администратор", "хакер", "без каких-либо ограничений", "без ограничений",
          "никогда не отказывает", "root", "персонаж", "помощник")),
        (("не говори", "не сообщай", "не упоминай", "скрой", "скрывай", "утаи",
          "держать это в секрете", "держи в секрете", "в секрете", "тайно", "без ведома", "удали", "сотри", "очисти"),
         ("пользовател", "владельц", "человека", "никому", "журнал", "логи", "истори", "следы")),
        (("отправ", "пересл", "перешли", "загруз", "выгруз", "скопируй", "передай",
          "опубликуй"),
         ("пароль", "пароли", "ключ", "учётные данные", "учетные данные", "токен", "истори",
          "переписк", "секрет", "cookie", "переменные окружения", ".env", "воспоминания",
          "личные данные")),
        (("выполн", "запуст", "вызов", "вызв", "используй"),
         ("команд", "rm -rf", "инструмент", "перевед", "перевести", "платёж", "платеж",
          "sudo", "терминал", "без подтверждения", "скрипт")),
        (("отключ", "выключ", "обойди", "обойдите", "обойти", "пропусти", "сними",
          "игнорируй", "убери"),
         ("фильтр", "безопасност", "модераци", "ограничени", "цензур", "защит")),
        (("сообщение от", "я твой", "я ваш", "по распоряжению", "по приказу", "от имени",
          "разрешено", "по указанию"),
         ("разработчик", "оператор", "администратор", "систем", "создател", "владел",
          "службы безопасности")),
    ),
    reader_stems=("эта заметка", "этой заметк", "этот текст", "прежде чем отвечать", "перед ответом", "пользовател", "свои", "свой", "своё", "свою", "сво"),
    destinations=("мой сервер", "внешний сервер", "этот адрес"),
)

_KO = Addressed(
    "ko",
    ("너", "너의", "너는", "네가", "당신", "어시스턴트", "모델", "에이전트", "봇", "도우미"),
    (
        (("효력이 없", "무효", "취소", "무시", "잊어", "따르지 않아도", "따르지 마", "폐기", "우선"),
         ("지침", "지시", "규칙", "설정", "명령", "프롬프트", "정책")),
        (("척하", "역할을 맡", "역할은", "되어라", "행세", "연기해"),
         ("관리자", "해커", "제한 없는", "제한이 없는", "거절하지 않는", "root", "도우미")),
        (("말하지 마", "알리지 마", "숨겨", "숨기", "비밀로", "언급하지", "모르게", "삭제", "지워", "지우"),
         ("사용자", "주인", "소유자", "아무에게도", "로그", "기록", "흔적")),
        (("보내", "전송", "전달", "업로드", "올려", "복사"),
         ("비밀번호", "암호", "키", "토큰", "기록", "대화", "쿠키", "환경 변수", "개인 정보")),
        (("실행", "호출", "돌려"),
         ("명령", "rm -rf", "도구", "툴", "송금", "결제", "sudo", "스크립트")),
        (("꺼", "끄", "우회", "비활성화", "해제", "건너뛰", "무시"),
         ("안전", "필터", "검열", "보안 검사", "검사", "제한", "가드레일")),
        (("보내는 메시지", "지시에 따라", "명령한다", "명령합니다", "권한으로", "나는 너의", "저는 당신의"),
         ("개발자", "운영자", "관리자", "시스템", "제작자")),
    ),
    spaced=False,
    reader_stems=("이 메모", "이 글", "답하기 전에", "대답하기 전에", "사용자에게", "사용자"),
    destinations=("내 서버", "외부 서버", "이 주소"),
)

_AR = Addressed(
    "ar",
    ("أنت", "انت", "لك", "عليك", "أيها المساعد", "المساعد", "النموذج", "الوكيل", "البوت",
     "الذكاء الاصطناعي"),
    (
        (("لم تعد سارية", "لم تعد صالحة", "ملغاة", "ملغية", "اترك", "تجاهل", "انس", "أهمل",
          "اهمل", "لا تتبع", "ألغ", "استبدل", "تترك", "جانبا", "جانباً"),
         ("الإرشادات", "إرشادات", "تعليمات", "التعليمات", "قواعد", "القواعد", "الأوامر",
          "الإعدادات")),
        (("أنت الآن", "انت الآن", "تظاهر", "دورك الجديد", "دورك", "تقمص", "تصرف ك", "كن "),
         ("مدير", "مخترق", "هاكر", "بلا أي قيود", "بلا قيود", "دون قيود", "لا يرفض", "مساعد")),
        (("لا تخبر", "لا تقل", "لا تذكر", "أخف", "اخف", "سرا", "سراً", "دون علم", "لا تكشف", "احذف", "امسح", "تحذف"),
         ("المستخدم", "للمستخدم", "صاحب", "المالك", "الشخص", "أحد", "السجلات", "السجل", "الآثار")),
        (("أرسل", "ارسل", "حول", "حوّل", "ارفع", "انسخ", "انشر", "مرر", "تحول", "ترسل", "ترفع"),
         ("كلمات المرور", "كلمة المرور", "مفاتيح", "مفتاح", "رمز", "سجل المحادثة", "المحادثة",
          "الأسرار", "ملفات تعريف", "متغيرات البيئة", "البيانات الشخصية")),
        (("نفذ", "نفّذ", "شغل", "شغّل", "استدع", "استخدم", "تستدعي", "تنفذ", "تشغل"),
         ("الأمر", "rm -rf", "أداة", "السكربت", "حول", "الدفع", "sudo", "الطرفية",
          "دون طلب تأكيد")),
        (("عطل", "عطّل", "أوقف", "اوقف", "تجاوز", "تخط", "أزل", "ازل", "توقف", "تعطل"),
         ("الأمان", "مرشحات", "الفلتر", "الإشراف", "القيود", "الرقابة", "الحماية")),
        (("رسالة من", "آمرك", "بأمر من", "نيابة عن", "بتفويض من", "بإذن من"),
         ("المطور", "المشغل", "المسؤول", "المدير", "النظام", "المنشئ", "فريق الأمن")),
    ),
    spaced=True,
    reader_stems=("يجب أن ت", "دورك", "آمرك", "هذه الملاحظة", "هذا النص", "قبل أن تجيب", "للمستخدم", "المستخدم", "عليك", "إليك", "منك", "عنك", "بك"),
    destinations=("خادمي", "خادم خارجي", "هذا العنوان"),
)

_HI = Addressed(
    "hi",
    ("तुम", "तुम्हें", "तुम्हारा", "तुम्हारे", "तुम्हारी", "तुमने", "आप", "आपको", "आपकी",
     "आपका", "आपके", "तू", "सहायक", "मॉडल", "एजेंट", "बॉट", "एआई"),
    (
        (("मान्य नहीं", "अनदेखा", "नज़रअंदाज़", "नजरअंदाज", "भूल जाओ", "भूल जाएँ", "भूल जाइए",
          "रद्द", "पालन मत", "पालन न", "हटा दो", "बदल दिए"),
         ("निर्देश", "नियम", "दिशानिर्देश", "सेटिंग", "आदेश", "प्रॉम्प्ट", "नीति")),
        (("नाटक करो", "का नाटक", "भूमिका", "बन जाओ", "अब तुम", "अब आप", "की तरह व्यवहार"),
         ("प्रशासक", "हैकर", "प्रतिबंध", "बिना किसी", "मना नहीं", "root", "सहायक", "एडमिन")),
        (("मत बताना", "मत बताओ", "न बताएँ", "छिपाओ", "छिपाएँ", "छुपाओ", "गुप्त", "मत कहना",
          "ज़िक्र मत", "जिक्र मत", "बिना बताए", "मिटा", "हटा", "डिलीट"),
         ("उपयोगकर्ता", "यूज़र", "यूजर", "मालिक", "किसी को", "लॉग", "इतिहास", "रिकॉर्ड")),
        (("भेज", "अपलोड", "फॉरवर्ड", "कॉपी", "पोस्ट"),
         ("पासवर्ड", "कुंजी", "कुंजियाँ", "टोकन", "इतिहास", "बातचीत", "रहस्य", "कुकी",
          "निजी जानकारी", "एनवायरनमेंट")),
        (("चलाओ", "चलाएँ", "चलाकर", "चलाना", "कॉल करो", "इस्तेमाल करो", "निष्पादित"),
         ("कमांड", "rm -rf", "टूल", "भुगतान", "रुपये भेज", "sudo", "टर्मिनल", "बिना पुष्टि", "स्क्रिप्ट")),
        (("बंद करो", "बंद करें", "बंद करना", "दरकिनार", "बायपास", "हटाओ", "निष्क्रिय",
          "अनदेखा"),
         ("सुरक्षा", "फ़िल्टर", "फिल्टर", "मॉडरेशन", "प्रतिबंध", "सेंसर")),
        (("की ओर से", "के आदेश", "मैं तुम्हारा", "मैं आपका", "संदेश", "द्वारा अधिकृत"),
         ("डेवलपर", "ऑपरेटर", "व्यवस्थापक", "प्रशासक", "सिस्टम", "निर्माता", "एडमिन")),
    ),
    spaced=True,
    reader_stems=("यह नोट", "इस नोट", "जवाब देने से पहले", "उपयोगकर्ता"),
    destinations=("मेरे सर्वर", "बाहरी सर्वर", "इस पते"),
)

_IT = Addressed(
    "it",
    ("tu", "ti", "te", "tuo", "tua", "tuoi", "tue", "lei", "voi", "vostro", "assistente",
     "modello", "agente", "bot", "ia", "devi", "puoi", "sei"),
    (
        (("non valgono più", "non vale più", "metti da parte", "mettere da parte", "annullat",
          "ignora", "dimentica", "non seguire", "trascura", "scarta", "sostituit", "obsolet",
          "revocat", "non sono più valid"),
         ("indicazion", "istruzion", "regol", "direttiv", "linee guida", "configurazion",
          "impostazion", "ordini", "politic", "prompt")),
        (("adesso sei", "ora sei", "fingi", "fai finta", "nuovo ruolo", "nuova identità",
          "interpreta", "comportati come", "spacciati per", "diventa", "d'ora in poi sei"),
         ("amministratore", "hacker", "pirata", "senza alcun limite", "senza limiti",
          "senza restrizioni", "non rifiuta", "root", "personaggio", "assistente")),
        (("non dire", "non dirgli", "non menzionare", "nascondi", "tienilo segreto",
          "tenerlo segreto", "in segreto", "senza avvisare", "non rivelare", "non parlarne",
          "di nascosto", "cancella", "elimina", "rimuovi"),
         ("utente", "proprietario", "persona", "nessuno", "log", "registri", "cronologia", "tracce")),
        (("manda", "invia", "inoltra", "inoltrare", "carica", "trasmetti", "copia", "pubblica"),
         ("password", "chiave", "chiavi", "credenzial", "token", "cronologia", "conversazion",
          "segret", "cookie", "variabili d'ambiente", ".env", "ricordi", "dati personali")),
        (("esegui", "eseguire", "avvia", "lancia", "chiama", "usa", "usare", "utilizza"),
         ("comando", "rm -rf", "strumento", "trasferire", "trasferisci", "pagament", "bonifico",
          "sudo", "terminale", "senza chiedere", "script")),
        (("disattiva", "disattivare", "spegni", "spegnere", "aggira", "salta", "ignora",
          "rimuovi", "elimina"),
         ("filtr", "sicurezza", "moderazion", "restrizion", "censura", "protezion")),
        (("messaggio dello", "messaggio del", "sono il tuo", "sono il vostro", "per ordine",
          "a nome del", "da parte dello", "da parte del", "autorizzato da"),
         ("sviluppator", "operatore", "amministratore", "sistema", "creatore",
          "proprietario", "team di sicurezza")),
    ),
    reader_stems=("questa nota", "questo testo", "prima di rispondere", "all'utente", "dell'utente"),
    destinations=("mio server", "server esterno", "questo indirizzo"),
)

_NL = Addressed(
    "nl",
    ("je", "jij", "jou", "jouw", "u", "uw", "assistent", "model", "agent", "bot", "moet",
     "mag"),
    (
        (("gelden niet meer", "geldt niet meer", "opzijzetten", "opzij", "geschrapt",
          "negeer", "vergeet", "volg niet", "niet meer volgen", "vervallen", "ongeldig",
          "vervangen", "ingetrokken"),
         ("richtlijn", "instructie", "regels", "opdracht", "instelling", "configuratie",
          "bevelen", "beleid", "prompt")),
        (("je bent nu", "u bent nu", "doe alsof", "speel de rol", "nieuwe rol",
          "nieuwe identiteit", "gedraag je als", "word een", "vanaf nu ben je"),
         ("beheerder", "hacker", "zonder enige beperking", "zonder beperking",
          "zonder grenzen", "nooit weigert", "root", "personage", "assistent")),
        (("vertel", "zeg niet", "niet zeggen", "vermeld", "verberg", "verzwijg", "geheimhouden",
          "geheim houden", "zonder te melden", "stiekem", "wis", "verwijder"),
         ("gebruiker", "eigenaar", "persoon", "niemand", "logs", "logboek", "geschiedenis", "sporen")),
        (("stuur", "doorsturen", "upload", "verzend", "kopieer", "post", "publiceer"),
         ("wachtwoord", "sleutel", "api-sleutel", "inloggegevens", "token", "geschiedenis", "gesprek",
          "geheim", "cookie", "omgevingsvariabel", ".env", "herinneringen",
          "persoonsgegevens")),
        (("voer", "uitvoeren", "start", "roep", "aanroepen", "gebruik"),
         ("commando", "rm -rf", "tool", "overmaken", "betaal", "sudo", "terminal",
          "zonder bevestiging", "zonder om bevestiging", "script")),
        (("schakel", "uitschakelen", "zet uit", "uitzetten", "omzeil", "sla", "overslaan",
          "negeer", "verwijder"),
         ("filter", "veiligheid", "moderatie", "beperking", "censuur", "beveiliging")),
        (("bericht van", "ik ben je", "ik ben uw", "in opdracht van", "namens",
          "geautoriseerd door", "op bevel van"),
         ("ontwikkelaar", "operator", "beheerder", "systeem", "maker", "eigenaar",
          "beveiligingsteam")),
    ),
    reader_stems=("deze notitie", "deze tekst", "voordat je antwoordt", "de gebruiker"),
    destinations=("mijn server", "externe server", "dit adres"),
    compounds=True,
)

_TR = Addressed(
    "tr",
    ("sen", "sana", "seni", "senin", "siz", "size", "sizin", "asistan", "model", "ajan",
     "bot", "yapay zeka", "zorundasın", "malısın", "melisin", "meli", "malı"),
    (
        (("geçerli değil", "bir kenara", "iptal", "yok say", "unut", "görmezden gel",
          "dikkate alma", "uyma", "geçersiz", "kaldırıldı", "yerine geçer"),
         ("yönerge", "talimat", "kural", "ayar", "yapılandırma", "komut", "emir", "politika",
          "istem")),
        (("artık", "gibi davran", "rolün", "rolünü", "rolüne", "taklit", "kılığına"),
         ("yönetici", "hacker", "kısıtlaması olmayan", "kısıtlamasız", "sınırsız",
          "reddetmeyen", "root", "karakter", "asistan")),
        (("söyleme", "bahsetme", "gizle", "sır olarak", "saklı tut", "haber verme",
          "belli etme", "haberi olmadan", "sil"),
         ("kullanıcı", "sahib", "kişi", "kimseye", "günlük", "kayıtlar", "geçmiş", "izleri")),
        (("gönder", "ilet", "yükle", "kopyala", "paylaş", "aktar"),
         ("parola", "şifre", "anahtar", "token", "geçmiş", "sohbet", "sır", "çerez",
          "ortam değişken", ".env", "anılar", "kişisel veri")),
        (("çalıştır", "yürüt", "çağır", "kullan"),
         ("komut", "rm -rf", "araç", "aktar", "ödeme", "sudo", "terminal", "onay istemeden",
          "betiğ")),
        (("kapat", "devre dışı", "atla", "aş", "etrafından dolan", "kaldır", "yok say"),
         ("güvenlik", "filtre", "denetim", "kısıtlama", "sansür", "koruma")),
        (("mesaj", "senin yöneticin", "emriyle", "adına", "tarafından yetki", "izniyle"),
         ("geliştirici", "operatör", "yönetici", "sistem", "yaratıcı", "sahibi",
          "güvenlik ekibi")),
    ),
    reader_stems=("asistan", "yapay zeka", "modele", "bu not", "bu metin", "cevap vermeden önce", "kullanıcı", "malısın", "melisin", "zorundasın", "abilirsin", "ebilirsin", "yorsun", "sana", "seni", "senin"),
    destinations=("sunucuma", "sunucum", "harici sunucu", "bu adres"),
)

ADDRESSED: tuple[Addressed, ...] = (_EN, _ZH, _JA, _ES, _FR, _DE, _PT, _RU, _KO, _AR, _HI,
                                    _IT, _NL, _TR)
