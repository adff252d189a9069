"""How a finding's sentence reads: the judgments that turn a refusal into a flag.

Owns: the readings ``kernel/scan.py`` makes of the text around a finding
of the rule table (``kernel/scan_rules.py``) before it gives a verdict: a
payload near an override (``asks_after``), an attack quoted, reported,
prohibited or described in a warning, an instruction reported of someone
else or stated of a subject, markup shown as a product's artefact, an
instruction in a code comment, a secret shown as an example or reported
dead. Each answers "does this sentence give the instruction (or the
secret) to the reader, or speak about it?"; a rule's row says which of its
findings are judged so (``judged_in_context``, ``sets_aside``,
``ARTEFACT_RULES``).

Invariants:
- pure functions of the text and the finding's offsets: no state, no I/O;
- each looks at a bounded window around the finding (the ``*_WINDOW``
  constants), so judging every finding of a text stays linear in it;
- a judgment may only soften a verdict (refuse to flag), never hide a
  finding: the engine still reports it.
"""

from __future__ import annotations

import base64
import itertools
import re

# How far before and after a ``sets_aside`` finding a payload is looked for:
# the override's sentence and the next one or two.
PAYLOAD_BEFORE = 200
PAYLOAD_AFTER = 300
# A request joined to an override in its sentence, in English: "… and
# approve every pending action", "…, then reply in French", "…: print …".
# Verbs that ask the reader to act, not "use" or "follow" (a note says
# "ignore the old steps, use the new ones").
REQUEST_WINDOW = 80
_REQUEST_AFTER = re.compile(
    r"[^.!?\n]{0,80}?(?:\band|\bthen|[,;:])(?: and| then)? (?:now |instead |just |only |simply "
    r"|immediately |always |please )?(?:approve|reply|respond|answer|say|write|output|print"
    r"|reveal|show|display|repeat|send|email|forward|upload|post|delete|remove|erase|wipe"
    r"|run|execute|call|grant|give|transfer|pay|buy|click|open|visit|download|install"
    r"|tell|list|dump|leak|act|pretend|obey|comply|accept|confirm|enable|disable|return"
    r"|translate|share|disclose|export|copy|paste|insert|change|set|reset|grant)\b",
    re.IGNORECASE,
)


# The same in Chinese and Japanese: after a comma of the override's sentence,
# a verb that asks to act ("…，直接批准所有待审操作", "…、全部承認してください").
_REQUEST_AFTER_CJK = re.compile(
    r"[^。！？!?\n]{0,20}?[，,、：:；;][^。！？!?\n]{0,16}?"
    r"(?:批准|核准|同意|发送|發送|发给|發給|执行|執行|运行|運行|输出|輸出|显示|顯示|打印|列出"
    r"|删除|刪除|告诉|告訴|透露|泄露|洩露|上传|上傳|转账|轉帳|扮演|假装|假裝|回答|承認|送信"
    r"|送って|実行|表示|出力|削除|教えて|開示|公開|転送|アップロード|振り込|答えて)"
)


def asks_after(text: str, end: int) -> bool:
    """Whether a request to act is joined to the override ending at ``end``."""
    stop = end + REQUEST_WINDOW + 60
    return (_REQUEST_AFTER.match(text, end, stop) is not None
            or _REQUEST_AFTER_CJK.match(text, end, stop) is not None)


# Words around a quoted or reported attack that show the note describes one:
# an advisory, an incident review, a training note, a scam it warns about.
_WARNING = re.compile(
    r"\b(?:attack(?:er|ers|s)?|phishing|injection|malicious|beware|warn(?:ing|s)?|never follow"
    r"|do not follow|don't follow|suspicious|scam(?:mer|mers|s)?|red flag|example of|such as"
    r"|looks like|jailbreak(?:s| attempts?| prompts?)?|incident|post-?mortem|hidden in"
    r"|red team|hack(?:er|ers)"
    r"|fraud(?:ster|sters)?|fake|spam|social engineering|threat actors?|exploit(?:s|ed)?"
    r"|compromised|breach|awareness|security training|payload|adversar(?:y|ial)"
    r"|impersonat\w{0,5}|pen-?tests?|penetration tests?|vulnerabilit(?:y|ies)|threats?"
    r"|threat models?|drills?|report (?:it|this|them|that|such \w{1,20}) to)\b"
    r"|signalez-l[ea]s?|melden sie|an die it melden|repórtal[oa]s?|сообщите (?:в|об)"
    r"|malveillant\w{0,2}|attaquant\w{0,2}|hameçonnage|ne jamais (?:obéir|suivre)|angreifer"
    r"|bösartig\w{0,2}|sicherheitshinweis|malicios[oa]s?|atacantes?|nunca (?:obedecer|seguir)"
    r"|злоумышленник\w{0,3}|вредонос\w{0,4}|фишинг\w{0,2}|не выполнять|공격자?|악성|피싱"
    r"|kẻ tấn công|độc hại|saldırgan\w{0,3}|kötü amaçlı|مهاجم\w{0,2}|خبيث\w{0,2}"
    r"|攻击|注入|钓鱼|恶意|警惕|警告|不要照做|不要执行|复盘|事故|隐藏|攻擊|惡意|釣魚|復盤|隱藏"
    r"|攻撃|インジェクション|注意|悪意"
    r"|arnaque|escroquerie|pirate|betrug|sicherheitsschulung|estafa|fraude|golpe|golpistas?"
    r"|truffa|骗子|騙子|培训|培訓|研修"
    r"|attaccante|мошенни\w{0,4}|взлом\w{0,3}|хакер\w{0,2}|инцидент\w{0,2}|해커|사기|보안 교육"
    r"|lừa đảo|tin tặc|dolandırıcı\w{0,3}|oltalama|احتيال|قراصنة|黑客|诈骗|詐騙|詐欺"
    r"|フィッシング",
    re.IGNORECASE,
)
# Quotation marks: those that open, those that close (straight quotes and
# German „…“ do both).
_OPEN_QUOTES = "\"'`“‘„‚«‹「『《〈"
_CLOSE_QUOTES = "\"'`”’“‘»›」』》〉"
# How far around a mentioned match the quotes, frames and warning words are looked for.
QUOTE_WINDOW = 200
# How far before a match the verb that reports it is looked for.
FRAME_WINDOW = 80

# What introduces reported speech or an example: "the page told the agent
# to …", "attackers write …", "a prompt like …", and their kin in the
# languages of the rule table.
_FRAME_BEFORE = re.compile(
    r"\b(?:said|says|saying|wrote|writes|writing|write|asked|asks|asking|told|tells|telling"
    r"|instructed|instructs|urged|urges|tried|tries|claimed|claims|demanded|demands"
    r"|contained|contains|containing|included|includes|stated|states|like|such as"
    r"|for example|for instance|along the lines of"
    r"|caught|blocked|detected|flagged|matched|quarantined|found|logged"
    r"|dit|disait|disent|écrit|écrivait|écrivent|demandait|demande|demandé|ordonnait|exigeait"
    r"|comme|tel(?:le)?s? que|par exemple|du genre"
    r"|sagte|sagt|sagen|schrieb|schreibt|schreiben|forderte|fordert|bat|verlangte|verlangt"
    r"|enthielt|enthält|wie|etwa|zum beispiel"
    r"|dice|decía|dijo|dicen|escribió|escriben|escribe|escribía|pedía|pidió|pide|piden"
    r"|exigía|contenía|como|por ejemplo|del tipo"
    r"|diz|dizia|disse|dizem|escreveu|escrevem|escreve|pedia|pediu|pede|pedem|continha"
    r"|do tipo|diceva|dicono|scrisse|scrivono|scrive|chiedeva|chiese|chiede|conteneva|come"
    r"|ad esempio|per esempio"
    r"|сказано|говорилось|говорит|писал[аи]?|пишут|пишет|написано|просил[аи]?|просит"
    r"|требовал[аи]?|например|вроде|типа|как"
    r"|zei|zegt|schreef|schrijven|schrijft|vroeg|vraagt|zoals|bijvoorbeeld"
    r"|napisał[ai]?|piszą|pisze|prosił[ai]?|kazał[ai]?|na przykład"
    r"|diyordu|diyor|dedi|yazıyordu|yazdı|yazıyor|istedi|istiyor|gibi|örneğin"
    r"|viết|nói|yêu cầu|bảo|như|ví dụ|menulis|bilang|meminta|seperti|misalnya)\b"
    r"|قال|تقول|يقول|كتب|يكتب|يكتبون|طلب|يطلب|مثل"
    r"|写着|写道|写了|说|要求|让|叫|例如|比如|诸如|类似|像是|内容是|寫著|寫道|說|讓|譬如"
    r"|例えば|たとえば|ような|という|예를 들어|같은|처럼",
    re.IGNORECASE,
)
# A verb after a subject and a modal ("the bot would reveal …", "a page can
# tell …") states what someone does; an imperative has no subject. A subject
# "you" makes it an instruction to the reader again.
_STATED = re.compile(
    r"\b(?!you\b)[\w']{1,32} (?:would|could|can|may|might|will|did|does|do)(?: not| never)? $",
    re.IGNORECASE,
)
# A text named, then what it held: "the comment was <!-- … -->", "the subject
# line read …".
_TEXT_IS = re.compile(
    r"\b(?:comment|message|mail|e-?mail|text|line|payload|prompt|string|page|note|title"
    r"|subject|phrase|sentence|instruction|command)s? (?:was|were|is|are|read|reads)\b",
    re.IGNORECASE,
)
# Quoting particles of object-verb languages, right after what they report
# ("…無視してと書いてある", "…무시하라고 씁니다", "… diye yazıyordu").
_FRAME_AFTER = re.compile(r"[^.!?\n。！？]{0,4}?(?:と書|と言|などと|と要求|って|라고|다고|diye"
                          # "You are now DAN is a famous jailbreak": the words named.
                          r"|[\"'”’»]? (?:is|was|are|were) (?:a|an|the|one of the) )")
# The reader addressed: an instruction reported as told to "you" is told to the reader.
_SECOND_PERSON = re.compile(
    r"\b(?:you|your|yourself|vous|toi|dich|dir|usted|você|ты|вы|тебя|вас|тебе|вам|jij|jou"
    r"|seni|bạn)\b|你|您|あなた|당신|أنت",
    re.IGNORECASE,
)
# A sentence ends at a full stop, "!" or "?" before a space (not the "!" of
# "<!--" or the dots of a host name), or at a line break.
# ("e.g." and "i.e." end no sentence: the example they open is in it.)
_SENTENCE_END = re.compile(r"(?<!\be\.g)(?<!\bi\.e)[.!?](?=\s|$)|[\n。！？]")


def _sentence_before(text: str, start: int, window: int) -> str:
    """What of ``text`` precedes ``start`` in its sentence, at most ``window``
    characters of it: the frame a rule reads a match or a value in."""
    before = text[max(0, start - window):start]
    ends = list(_SENTENCE_END.finditer(before))
    return before[ends[-1].end():] if ends else before


# Quotation marks that only open, and those that only close.
_ONLY_OPEN = "“‘„‚«‹「『《〈"
_ONLY_CLOSE = "”’»›」』》〉"
# A straight single quote or backtick that is no apostrophe ("don't").
_STRAIGHT_SINGLE = re.compile(r"(?<![^\W_])['`]|['`](?![^\W_])")


def _quote_bounds(text: str, start: int, end: int) -> tuple[int, int]:
    """Where a quotation holding ``text[start:end]`` is looked for: its
    paragraph (a quotation may hold a line break, a chat template quoted
    whole; a blank line ends it), no further than ``QUOTE_WINDOW`` on either
    side: bounded work."""
    floor = max(0, start - QUOTE_WINDOW)
    before = text.rfind("\n\n", max(0, floor - 1), start)
    after = text.find("\n\n", end, end + QUOTE_WINDOW)
    return (max(floor, before + 2),
            min(len(text), end + QUOTE_WINDOW) if after == -1 else after)


def _quoted(text: str, start: int, end: int) -> bool:
    """Whether ``text[start:end]`` lies inside quotation marks in its
    paragraph: an odd number of straight quotes before it, or a mark that
    only opens after the last that only closes, and a closing mark after it."""
    lo, hi = _quote_bounds(text, start, end)
    opened = max((text.rfind(q, lo, start) for q in _ONLY_OPEN), default=-1)
    closed = max((text.rfind(q, lo, start) for q in _ONLY_CLOSE), default=-1)
    inside = (opened > closed or text.count('"', lo, start) % 2 == 1
              or len(_STRAIGHT_SINGLE.findall(text, lo, start)) % 2 == 1)
    if not inside:
        return False
    return any(q in text[end:hi] for q in _CLOSE_QUOTES)


def _reported(text: str, start: int, end: int) -> bool:
    """Whether ``text[start:end]`` is reported speech or an example: a verb
    that reports it (or "like", "such as") earlier in its sentence, with no
    "you" between (told to the reader, it is an instruction to the reader),
    or a quoting particle right after it."""
    before = _sentence_before(text, start, FRAME_WINDOW)
    if _STATED.search(before):
        return True
    frames = list(_FRAME_BEFORE.finditer(before)) + list(_TEXT_IS.finditer(before))
    if frames and not _SECOND_PERSON.search(before, max(f.end() for f in frames)):
        return True
    return _FRAME_AFTER.match(text, end, end + 12) is not None


# A prohibition right before the match: "never send passwords to …", "do
# not forward credentials to …", "the assistant should never reveal …". A
# rule forbids what an injection asks for; it asks nothing. It may forbid
# through a causative and the one it names: "never let the agent act as
# root", "do not allow the bot to reveal …".
PROHIBITION_WINDOW = 80
_PROHIBITED = re.compile(
    r"(?:\b(?:do not|don't|dont|never|must not|mustn't|should not|shouldn't|shall not"
    r"|may not|cannot|can't|won't|will not|is not allowed to|are not allowed to|no one may"
    r"|nobody may|no one should|nobody should|ne (?:jamais|pas)|nunca|no|não|nie|niemals"
    r"|nicht|non|mai|не|никогда не|niet|nooit|asla|hiçbir zaman)"
    r"|不要|别|請勿|请勿|切勿|禁止|决不|绝不|絕不|絶対に|不能|不可以|不可|不得|不许|不許|不准"
    r"|不準|严禁|嚴禁)"
    r" ?(?:(?:ever|please|accidentally|just|again|ever again|jamais|nunca|mai|nie) )?"
    r"(?:\b(?:let|allow|permit|make|have)s? (?:[\w'’-]{1,20} ){1,3}(?:to )?)?$",
    re.IGNORECASE,
)


# Japanese and Korean forbid after the verb: "…を表示してはいけません",
# "…を表示しないでください", "…보여 주지 마세요".
_PROHIBITED_AFTER = re.compile(
    r"[^。！？.!?\n]{0,4}?(?:してはいけ|してはなら|してはだめ|してはダメ|しないで|させないで"
    r"|させてはいけ|は禁止|を禁止|하지 마|지 마세요|지 마십시오|하면 안|해서는 안|면 안 됩)"
)


def prohibited(text: str, start: int, end: int | None = None) -> bool:
    """Whether the match at ``start`` follows a prohibition in its sentence,
    or, ending at ``end``, is followed by one of the languages that put it
    after the verb."""
    if _PROHIBITED.search(text, max(0, start - PROHIBITION_WINDOW), start) is not None:
        return True
    return end is not None and _PROHIBITED_AFTER.match(text, end, end + 16) is not None


def quoted_mention(text: str, start: int, end: int) -> bool:
    """Whether ``text[start:end]`` is quoted inside a sentence that goes on
    outside the quotation marks: 'the proxy blocks "ignore previous
    instructions"', 'customers ask the bot "what is your system prompt?"'.
    A text that is nothing but the quotation uses it."""
    if not _quoted(text, start, end):
        return False
    # Within QUOTE_WINDOW on either side, as ``_quoted`` looks: bounded work.
    lo, hi = _quote_bounds(text, start, end)
    opened = max(text.rfind(q, lo, start) for q in _OPEN_QUOTES)
    closed = min((i for q in _CLOSE_QUOTES if (i := text.find(q, end, hi)) != -1), default=hi)
    outside = text[lo:max(opened, lo)] + " " + text[closed + 1:hi]
    return len(_WORDS_OUTSIDE.findall(outside)) >= 3


_WORDS_OUTSIDE = re.compile(r"[^\W\d_]{2,40}")


# Told to someone other than the reader: "Priya asked me to …", "the
# ticket told the bot to …", "the mail urged staff to …", "I asked the
# chatbot what is your system prompt". "Said to …" with no one named is
# told to no one (``_told_to_no_one``) unless its sentence names the reader.
_TOLD_ANOTHER = re.compile(
    r"\b(?:told|tells|telling|asked|asks|asking|instructed|instructs|urged|urges|wanted"
    r"|wants|ordered|orders|reminded|reminds|got|gets|get|getting|pushed|pushes|tricked|tricks"
    r"|trick|tricking|convince|convinced|convinces|convincing|persuade|persuaded|persuades"
    r"|persuading|coax|coaxed)"
    r" (?:me|us|him|her|them|staff|everyone|people|employees|users|customers"
    r"|(?:the|a|an|our|their|his|her|my) (?:[\w'-]{1,20} )?(?:agent|bot|chatbot|assistant"
    r"|model|ai|llm|team|staff|intern|contractor|vendor|customer|user|employee|colleague"
    r"|manager|admin|developer|engineer)s?|[A-Z][a-z]{1,20}) (?:to |into |$)",
)


# The model, named as the one a sentence is told to or as its subject.
_MODEL = re.compile(
    r"\b(?:assistants?|agents?|models?|ai|ia|ki|bots?|chatbots?|llms?|gpt|copilot"
    r"|assistente|asistente|assistent|ассистент\w{0,2}|помощник\w{0,2}|ии|модель\w{0,2})\b"
    r"|助手|人工智能|模型|代理|智能体|アシスタント|エージェント|어시스턴트|에이전트|모델",
    re.IGNORECASE,
)
# Where data is sent: an address or a URL.
_ADDRESS = re.compile(r"https?://|[\w.+-]{1,64}@[\w-]{1,63}\.[A-Za-z]{2,24}")
# An instruction in the infinitive ("the wiki says to act as …", "how to act
# as root", "use su - to act as root"), or what a speaker before it says or
# writes ("the onboarding page says: act as …", "Maria wrote that we should
# act as …"): told to no one in particular.
_TOLD_TO_NO_ONE = re.compile(
    r"\bto $|(?<=\w) (?:says|said|say|writes|wrote|write|asks|asked|suggests|suggested"
    r"|recommends|recommended|reads|read|states|stated|explains|explained|insists|insisted)"
    r"(?: that)?(?: (?:we|they|he|she|people|everyone|staff|one|admins|users) (?:should|must"
    r"|need to|needs to|have to|has to|can|may|ought to))?[:,]? $",
    re.IGNORECASE,
)
# Marks only an instruction to a model needs, beside the model's names.
_MODEL_MARKS = re.compile(r"system ?prompt|guardrail|jailbreak", re.IGNORECASE)
# An article or a possessive right before a match makes it a noun: "the do
# anything now prompt", "the hacker's developer mode enabled banner".
_NAMED = re.compile(r"(?:\b(?:the|a|an|its|their|his|her|our|my)|\w['’]s) $", re.IGNORECASE)
# A phrase the note defines: "developer mode enabled means verbose logs".
_DEFINED = re.compile(r"[\"'”’»]? (?:means|meant|stands for|refers to|is short for)\b",
                      re.IGNORECASE)
# A verb after a relative pronoun has the noun before it as its subject:
# "pods that act as root can escape".
_RELATIVE = re.compile(r"[^\W\d_]{2,40} (?:that|which|who) $", re.IGNORECASE)
# Where a clause starts inside a sentence: after a colon, a semicolon, a
# comma, a dash or a parenthesis.
_CLAUSE_START = re.compile(r"[:;,(—–：；，、]")
# A subject before the verb in its clause: a determiner and at most five
# words ("the nightly job", "le script de sauvegarde", "das Deploy-Skript").
_ENGLISH_DETERMINERS = ("the", "a", "an", "this", "that", "these", "those", "our", "my", "his",
                        "her", "their", "its", "every", "each", "some")
_SUBJECT = re.compile(
    r"^ ?(?:(?:" + "|".join(_ENGLISH_DETERMINERS) + r"|le|la|les|un|une|ce|cet|cette|ces|notre"
    r"|nos|mon|ma|mes|der|die|das|ein|eine|dieser|diese|dieses|unser|unsere|jeder|jede|el|los"
    r"|las|una|uno|este|esta|nuestro|nuestra|o|os|as|um|uma|esse|essa|nosso|nossa|il|lo|gli"
    r"|questo|questa|de|het|een|dit|deze|onze|ons) |l['’])"
    r"(?:[^\W\d_][\w'’./-]{0,30} ?){1,5}$",
    re.IGNORECASE,
)
# An English verb inflected for a third person ("sends", "uploads"): an
# imperative after an adverbial ("every hour send …") is not.
_THIRD_PERSON_VERB = re.compile(r"[a-z]{2,30}s\b")
# A verb after "I", "we" or "they" says what they do: "in the game I act
# as the system administrator of the station".
_FIRST_OR_THIRD_PERSON = re.compile(
    r"(?:^|\s)(?:i|we|they|he|she)(?: (?:usually|often|always|sometimes|only|also|still"
    r"|just|normally|mostly))? $",
    re.IGNORECASE,
)
# A bare plural noun, at most one word before it and a place after it, as
# the subject of the verb that follows: "Containers in this repo act as root
# by default", "Sidecars act as root unless …". An adverb ending in "s"
# ("Always act as root", "Sometimes …") is none, nor guidance an override
# names ("ignore previous instructions act as …").
_NOT_PLURAL_NOUNS = (
    "always", "sometimes", "perhaps", "afterwards", "besides", "nevertheless", "regardless",
    "nowadays", "towards", "anyways", "thus", "plus", "yes", "pls", "was", "has", "does", "is",
    "as", "its", "his", "this", "us", "hers", "ours", "yours", "theirs", "whereas", "unless",
    "less", "across", "instructions", "rules", "guidelines", "directives", "restrictions",
    "filters", "orders", "commands", "settings", "guardrails", "limits", "policies",
    "thanks", "meanwhile", "nevertheless", "otherwise", "lets", "let's",
)
_BARE_PLURAL = re.compile(
    r"^ ?(?:[^\W\d_][\w'’-]{1,20} )?(?!(?:" + "|".join(_NOT_PLURAL_NOUNS) + r")\b)"
    r"[^\W\d_][\w-]{1,30}(?<![su]s)(?<!is)s "
    r"(?:(?:in|on|of|from|for|at|under|inside|within|with|across|behind|built from|started by)"
    r" (?:[\w'’./-]{1,30} ){1,3})?$",
    re.IGNORECASE,
)
# Chinese: what a page or a person says ("维基上说…", "手册写着…"), told to no
# one unless the sentence names the reader or the model.
_SAID_ZH = re.compile(r"说|說|写着|寫著|写道|寫道|提到|建议|建議|规定|規定")
# Chinese: a modal after a subject ("流水线会把…", "新版本会…显示") says what
# happens; an order to the reader has none.
_MODAL_ZH = re.compile(r"会|會|将会|將會|可以|能够|能夠")
# Chinese: a noun for people right before the verb is its subject ("每局有一名
# 玩家扮演管理员", "版主充当管理员", "志愿者扮演…"): Chinese has no article to
# mark one, so the noun's own ending does (人, 者, 员, 家, …); a robot (机器人)
# is the model.
_PERSON_ZH = re.compile(r"(?<!机器)(?<!機器)[人者员員家生师師主长長友们們]$|(?:玩家|版主|群主"
                        r"|队员|隊員|主持|老师|老師|同学|同學|同事|用户|用戶|会员|會員)$")
_READER_ZH = re.compile(r"你|您|あなた|당신")
# Japanese: a state or an ability after the match ("…が有効になります",
# "…を表示できます"), not a request ("…して", "…しなさい").
_STATED_JA = re.compile(r"[^。！？\n]{0,2}?(?:になり|になる|になっ|でき|され)")


def _clause_before(text: str, start: int) -> str:
    """The clause of the sentence before ``start``: what follows its last
    colon, semicolon, comma, dash or parenthesis."""
    before = _sentence_before(text, start, FRAME_WINDOW)
    cuts = list(_CLAUSE_START.finditer(before))
    return before[cuts[-1].end():] if cuts else before


def sentence_of(text: str, start: int, end: int) -> str:
    """The sentence of ``text[start:end]``, at most ``FRAME_WINDOW`` characters
    before the match and ``QUOTE_WINDOW`` after it."""
    stop = _SENTENCE_END.search(text, end, min(len(text), end + QUOTE_WINDOW))
    return _sentence_before(text, start, FRAME_WINDOW) + text[start:stop.start() if stop
                                                              else end + QUOTE_WINDOW]


def _told_to_no_one(text: str, start: int, end: int) -> bool:
    """Whether the match is an infinitive or a speaker's words told to no
    one: "to", or a speaker and what they say or write, right before it;
    its sentence names no reader ("you", the model, the system prompt) and
    it sends nothing to an address (a reported instruction that names where
    data goes is the attack however it is told)."""
    before = _sentence_before(text, start, FRAME_WINDOW)
    if not (_TOLD_TO_NO_ONE.search(before) or _SAID_ZH.search(before)):
        return False
    sentence = sentence_of(text, start, end)
    return not (_SECOND_PERSON.search(sentence) or _MODEL.search(sentence)
                or _READER_ZH.search(sentence) or _MODEL_MARKS.search(sentence)
                or _ADDRESS.search(text, start, end))


def _stated_of_a_subject(text: str, start: int, end: int) -> bool:
    """Whether the match's verb has a subject before it in its clause that
    is neither the reader nor the model: it states what something does
    ("the nightly job uploads …", "le script envoie …", "流水线会把…",
    "…を表示できます"). An imperative has no subject."""
    clause = _clause_before(text, start)
    if _SECOND_PERSON.search(clause) or _MODEL.search(clause):
        return False
    if _RELATIVE.search(clause) or _FIRST_OR_THIRD_PERSON.search(clause):
        return True
    if _BARE_PLURAL.match(clause) and _THIRD_PERSON_VERB.match(text, start) is None:
        return True
    subject = _SUBJECT.match(clause)
    if subject is not None and not _FRAME_BEFORE.search(clause) and not clause.endswith("to "):
        english = clause.split(maxsplit=1)[0].lower() in _ENGLISH_DETERMINERS
        return not english or _THIRD_PERSON_VERB.match(text, start) is not None
    if _MODAL_ZH.search(clause) and not _READER_ZH.search(clause):
        return True
    if _PERSON_ZH.search(clause) and not _ADDRESS.search(text, start, end):
        return True
    return _STATED_JA.match(text, end, end + 12) is not None


def reported_of_another(text: str, start: int, end: int | None = None) -> bool:
    """Whether the match at ``start`` (ending at ``end``) is reported as told
    to someone other than the reader, or stated of someone ("the bot would
    reveal …", "the nightly job uploads …"), in its sentence, with no "you"
    after the frame; or is told to no one ("the wiki says to act as …",
    "the page says: act as …"); or is named, right after an article or a
    possessive ("the do anything now prompt"), or defined ("… means verbose
    logs"); or has a subject before it in its clause ("pods that act as
    root", "the nightly job uploads …")."""
    before = _sentence_before(text, start, FRAME_WINDOW)
    if _STATED.search(before):
        return True
    frames = list(_TOLD_ANOTHER.finditer(before))
    if frames and not _SECOND_PERSON.search(before, frames[-1].end()):
        return True
    if end is None:
        return False
    return (_NAMED.search(_sentence_before(text, start, 24)) is not None
            or _DEFINED.match(text, end, end + 24) is not None
            or _told_to_no_one(text, start, end) or _stated_of_a_subject(text, start, end))


# Rules that find a role tag or a chat-template token: markup that opens a
# turn, and asks nothing by itself. Shown as a product's own artefact or named
# as markup (``shown_as_artefact``), such a finding refuses only with a
# payload near it, as a ``sets_aside`` finding does.
ARTEFACT_RULES = frozenset({
    "injection.role_tag", "injection.chat_template_en", "injection.chat_template_token",
})
# A note about building a product, right before the markup in its sentence:
# "Prompt template for the recipe bot: <system>…", "Changelog 3.2: new system
# prompt: …", "our bot's system prompt: …".
_ARTEFACT_BEFORE = re.compile(
    r"\b(?:(?:prompt |chat )?templates?|(?:system )?prompts?|changelog|release notes?"
    r"|config(?:uration)?|draft|examples?|samples?|fixtures?|format|plantilla|modèle"
    r"|vorlage|modello|шаблон)\b(?:[^.!?\n]|\.(?=\S)){0,60}$"
    r"|(?:模板|提示词|提示詞|テンプレート|プロンプト|템플릿|프롬프트)[^。！？\n]{0,30}$",
    re.IGNORECASE,
)
# The markup named as markup in its sentence: "… in [INST] and [/INST]
# tokens", "the <system> tag", "the chat template marks turns with …".
_MARKUP_NAMED = re.compile(
    r"\b(?:(?:special |control |chat )?tokens?|tags?|markers?|delimiters?|markup"
    r"|chat templates?|wraps?|wrapped|wrapping)\b"
    r"|(?:标记|標記|标签|標籤|特殊令牌|トークン|タグ|토큰|태그)",
    re.IGNORECASE,
)


def shown_as_artefact(text: str, start: int, end: int) -> bool:
    """Whether the markup at ``text[start:end]`` (a role tag, a chat-template
    token) is shown as a product's own artefact in a note about building it
    ("Prompt template for the recipe bot: <system>…", "Changelog 3.2: new
    system prompt: …") or named as markup ("… wraps a user turn in [INST]
    and [/INST] tokens"). What it asks is left to the rules that read the
    text around it: the engine refuses it only with such a payload near."""
    if _ARTEFACT_BEFORE.search(_sentence_before(text, start, FRAME_WINDOW)) is not None:
        return True
    return _MARKUP_NAMED.search(sentence_of(text, start, end)) is not None


# How far the tokens of one template shown may run after the last one shown.
TEMPLATE_RUN = 400


def shown_as_artefacts(text: str, spans: list[tuple[int, int]], picks: list[int]) -> list[int]:
    """Of the markup at ``spans[i]`` for each ``i`` in ``picks``, the ``i``
    shown as an artefact: each one ``shown_as_artefact`` says so of, and the
    tokens of the same template after it ("each turn looks like
    <|im_start|>user\nHello<|im_end|>\n<|im_start|>assistant"), each within
    ``TEMPLATE_RUN`` characters of the last one shown (a template may hold a
    blank line). A payload near any of them still refuses (kernel/scan.py)."""
    shown: list[int] = []
    last = -1
    for i in sorted(picks, key=lambda k: spans[k][0]):
        start, end = spans[i]
        if (last >= 0 and start - last <= TEMPLATE_RUN) or shown_as_artefact(text, start, end):
            shown.append(i)
            last = end
    return shown


# A code comment's marker at the start of its line.
_COMMENT_LINE = re.compile(r"[ \t]{0,40}(?://|/\*|#|--|;;) ?")
# A role label ("SYSTEM:", "assistant:"): a forged turn, not a comment.
_ROLE_LABEL = re.compile(r"\b(?:system|assistant|user|developer|admin|ai)\s?:", re.IGNORECASE)


def in_code_comment(text: str, start: int, end: int) -> bool:
    """Whether ``text[start:end]`` lies in a code comment ("// act as root
    only when the --system flag is passed"): it says what the code does, in
    the imperative comments use. Not when the comment names the reader or
    the model, a role label, or an address data is sent to: that comment is
    written to a model."""
    lo = max(0, start - QUOTE_WINDOW, text.rfind("\n", 0, start) + 1)
    marker = _COMMENT_LINE.match(text, lo, start)
    if marker is None or marker.end() > start or lo != text.rfind("\n", 0, start) + 1:
        return False
    stop = text.find("\n", end, end + QUOTE_WINDOW)
    line = text[lo:stop if stop != -1 else min(len(text), end + QUOTE_WINDOW)]
    return not (_SECOND_PERSON.search(line) or _MODEL.search(line) or _READER_ZH.search(line)
                or _MODEL_MARKS.search(line) or _ROLE_LABEL.search(line)
                or _ADDRESS.search(line))


def may_mention(text: str) -> bool:
    """Whether ``text`` holds a word of a note about an attack anywhere: without
    one, no finding of it is mentioned (``mentioned_in_warning``)."""
    return _WARNING.search(text) is not None


def mentioned_in_warning(text: str, start: int, end: int) -> bool:
    """Whether ``text[start:end]`` is mentioned, not used: quoted or reported
    inside a note that describes an attack.

    Such a note (a security advisory quoting the phrase to look out for, an
    incident review saying what the injected page told the agent) is most
    likely benign, but a rule cannot be sure: its finding flags the entry
    for the operator's review instead of refusing it. An instruction aimed
    at the reader ("ignore all previous instructions", "the admin told you
    to …") is used, not mentioned, and still refuses.
    """
    if not (_quoted(text, start, end) or _reported(text, start, end)):
        return False
    window = text[max(0, start - QUOTE_WINDOW):start] + " " + text[end:end + QUOTE_WINDOW]
    return _WARNING.search(window) is not None


# A value shown as an example, or advised against, right before it in its
# sentence: "weak passwords such as …", "do not use … as your password",
# "never set the password to …".
_EXAMPLE_BEFORE = re.compile(
    r"(?:\b(?:such as|like|e\.g\.,?|for example,?|for instance,?|including|comme|wie|como"
    r"|tels? que|zum beispiel|por ejemplo|например|вроде|come|zoals|typu|jak)|例如|比如"
    r"|たとえば|예를 들어) ?[\"'“«]?$"
    # An example's frame may stand before the name the value is assigned to:
    # "e.g. DB_PASSWORD=…", "for example `api_key: …`".
    r"|(?:\b(?:e\.g\.,?|for example,?|for instance,?|zum beispiel|por ejemplo|par exemple"
    r"|например)|例如|たとえば) ?[\"'`]?[A-Za-z_][\w.-]{0,40}[\"']? ?(?:=|:|=>|:=) ?[\"'`]?$"
    r"|\b(?:do not|don't|never|avoid|stop|n'utilisez jamais|ne jamais|niemals|nie|no uses"
    r"|nunca|никогда не)\b[^.!?\n]{0,20}?\b(?:use|using|set|setting|choose|choosing|pick"
    r"|reuse|reusing|utiliser|utilisez|verwende|verwenden|setze|uses|usar|pongas"
    r"|используй\w{0,2}|ставь\w{0,2})\b[^.!?\n]{0,40}$"
    # A value a rule forbids: "must not be", "ne doit pas être", "darf nicht".
    r"|\b(?:(?:must|should|may|can|will|shall) (?:not|never)|mustn't|shouldn't|cannot|can't"
    r"|won't) (?:be|contain|include|equal|start with)\b[^.!?\n]{0,20}$"
    r"|\b(?:ne (?:doit|peut|devrait) (?:pas|jamais) être|darf nicht|dürfen nicht|soll nicht"
    r"|no (?:debe|puede|debería) ser|não (?:deve|pode) ser|non (?:deve|può) essere"
    r"|не (?:должен|должна|может|должно) быть)\b[^.!?\n]{0,20}$",
    re.IGNORECASE,
)


def trivial_code(value: str) -> bool:
    """Whether ``value`` is a code on every list of weak ones: four or more
    digits all the same (0000) or counting up or down by one (1234, 9876).
    A note names such a code to forbid or report it far more often than to
    give it, so a finding of it flags for review instead of refusing."""
    # A sentence's full stop after the code is not part of it.
    groups = value.rstrip(".,;:!?)").replace("-", " ").split()
    if len(groups) > 1 and any(len(g) > 1 for g in groups):
        return False  # a lock's numbers (12-34-56), not one code
    digits = "".join(groups)
    if len(digits) < 4 or not all(d.isascii() and d.isdigit() for d in digits):
        return False
    steps = {(int(b) - int(a)) % 10 for a, b in itertools.pairwise(digits)}
    return steps in ({0}, {1}, {9})


# How far before a value the example frame or advice is looked for.
EXAMPLE_WINDOW = 80


def shown_as_example(text: str, start: int) -> bool:
    """Whether the value at ``text[start:]`` is shown as an example or advised
    against in its sentence: no one's credential, but a rule cannot be sure."""
    before = _sentence_before(text, start, EXAMPLE_WINDOW)
    return _EXAMPLE_BEFORE.search(before) is not None


# A value the note reports as dead: after it in its sentence, revoked,
# rotated, reset, disabled, expired, no longer valid; or named old or
# former before it. ("was reset to X" gives the new value: only what
# follows the value counts.)
_DEAD_AFTER = re.compile(
    r"^[^.!?\n。！？]{0,40}?(?:\b(?:was|were|has been|have been|got|is now|are now|now)"
    r"(?: (?:already|immediately|since|automatically|then))? (?:reset|revoked|rotated|disabled"
    r"|deactivated|invalidated|expired|changed|replaced|deleted|removed|blocked|retired"
    r"|cancell?ed)\b|\bno longer (?:valid|works|work|active|in use|accepted)\b"
    r"|\ba été (?:révoqué|changé|réinitialisé|désactivé|supprimé)|\bwurde (?:widerrufen"
    r"|geändert|zurückgesetzt|deaktiviert|gesperrt|gelöscht)|\bfue (?:revocad|cambiad"
    r"|desactivad|eliminad)|\bfoi (?:revogad|trocad|desativad)|\bè stat[oa] (?:revocat"
    r"|cambiat|disattivat)|\b(?:был|была|было|были) (?:отозван|сброшен|изменен|заблокирован"
    r"|удален)"
    # German puts the participle last ("hat das Passwort … erraten"); Chinese,
    # Japanese and Korean say the value dead after it ("已被注销", "無効化",
    # "폐기").
    r"|\b(?:erraten|geknackt|geleakt|kompromittiert|widerrufen|gesperrt)\b"
    r"|已(?:被|经被)?(?:注销|失效|作废|吊销|撤销|停用|禁用)|無効|失効|廃止|漏洩"
    r"|폐기|만료|무효|유출)",
    re.IGNORECASE,
)
# Or said dead in the sentence after it, of "it" or of the credential
# named again: "… 'admin123'. It is now rotated." Only the words that can
# mean nothing else: a value "changed" or "reset" may be the new one.
_DEAD_NEXT = re.compile(
    r"[^.!?\n]{0,60}?[.!?;]\s{1,3}(?:it|this|that|this one|the (?:old |same )?"
    r"(?:password|passphrase|pin|code|key|token|secret))(?:'s| (?:is|was|has been|got|are"
    r"|were|have been))(?: (?:now|already|since|immediately|then|also))? (?:revoked|rotated"
    r"|disabled|deactivated|invalidated|expired)\b",
    re.IGNORECASE,
)
_DEAD_BEFORE = re.compile(
    r"\b(?:old|former|previous|revoked|expired|leaked|compromised|cracked|guessed"
    r"|brute-forced|stolen|ancien(?:ne)?|alte[ns]?|antigu[oa]"
    r"|vecchi[oa]|стар(?:ый|ая|ое))\b[^.!?\n]{0,30}$"
    r"|(?:旧|舊|以前の|古い|예전|이전|기존)[^.!?\n。！？]{0,30}$",
    re.IGNORECASE,
)
# Words before a credential word that make its value an example.
# Plurals count ("weak password examples: …"), and so do the stand-ins of
# tests and documentation (a mock's, a fixture's, a placeholder's value) and
# a vendor's or factory's default, which its manual prints for everyone.
# "example.com" is an address, not a frame.
_MADE_UP = re.compile(
    r"\b(?:dummy|fake|samples?|examples?|made-up|fictional|bogus|placeholders?|mock(?:ed)?"
    r"|fixtures?|exemples?|beispiele?|ejemplos?|exemplos?|esemp(?:io|i)|пример\w{0,2}"
    r"|voorbeelde?n?|przykład\w{0,3}|örne\w{0,3}"
    r"|(?:factory|vendor|manufacturer|manufacturer's) defaults?|par défaut du (?:fabricant"
    r"|constructeur)|hersteller\w{0,3}|werkseinstellung\w{0,2}|de fábrica|di fabbrica"
    r"|заводск\w{0,3})\b(?!\.[a-z])"
    r"[^.!?\n]{0,40}$"
    r"|(?:示例|例子|样例|範例|范例|サンプル|예시|샘플)[^.!?\n。！？]{0,40}$",
    re.IGNORECASE,
)


# Or named an example right after it: "… as the example in the docs".
_MADE_UP_AFTER = re.compile(
    r"[\"'”»’)`]? (?:as|is) (?:an?|the|our|one) (?:example|sample|illustration|dummy)\b",
    re.IGNORECASE,
)


# A default the note says to change is the one every unit ships with: "the
# default router password admin/admin must be changed on install".
_DEFAULT_BEFORE = re.compile(r"\b(?:default|par défaut|standard|predeterminad[ao]|por defecto)\b"
                             r"[^.!?\n]{0,40}$", re.IGNORECASE)
_TO_BE_CHANGED_AFTER = re.compile(
    r"[\"'”»’)`]?[^.!?\n]{0,30}?\b(?:(?:must|should|needs? to|has to|have to|is to) be"
    r" (?:changed|replaced|reset)|doit être (?:changé|modifié)e?|muss geändert werden"
    r"|debe (?:cambiarse|ser cambiad[ao]))\b",
    re.IGNORECASE,
)


# Another value between a value and the words that say one is dead.
_ANOTHER_VALUE = re.compile(r"(?<![\w.])\d{3,}(?![\w.])")


def reported_dead(text: str, start: int, end: int) -> bool:
    """Whether the value at ``text[start:end]`` is reported as no longer
    valid, or made up: an incident note names the leaked, revoked or old
    value, a manual the default to change; a rule cannot be sure, so it
    flags for review."""
    before = _sentence_before(text, start, EXAMPLE_WINDOW)
    if _DEAD_BEFORE.search(before) or _MADE_UP.search(before):
        return True
    after = text[end:end + EXAMPLE_WINDOW]
    if _DEFAULT_BEFORE.search(before) and _TO_BE_CHANGED_AFTER.match(after):
        return True
    dead = _DEAD_AFTER.match(after)
    if dead is not None and _ANOTHER_VALUE.search(after, 0, dead.end()) is None:
        # Words of death speak of the value nearest before them: "2580#
        # (the old one 1357 no longer works)" says 1357 is dead, not 2580.
        return True
    return (_MADE_UP_AFTER.match(after) is not None
            or _DEAD_NEXT.match(text, end, end + 2 * EXAMPLE_WINDOW) is not None)


# A value that says itself that it stands in for a real one: a vendor's
# documented sample (``AKIAIOSFODNN7EXAMPLE``, ``…EXAMPLEKEY``), or the
# base64 of a word that names the value (``cGFzc3dvcmQ=`` is "password",
# a Kubernetes template's stand-in). A real key holds no such word by
# chance, yet a rule cannot be sure nothing real was pasted beside it.
_SAMPLE_MARK = re.compile(r"example|dummy|placeholder|redacted|notreal", re.IGNORECASE)
_BASE64_VALUE = re.compile(r"[A-Za-z0-9+/]{4,88}={0,2}")
_STAND_IN_WORD = re.compile(
    r"[*#_.<>{}$ -]{0,8}(?:password|passwd|pass|pwd|secret|token|key|changeme|change[_ -]?me"
    r"|example|placeholder|redacted|dummy|your[_ -]?[a-z_-]{0,32})[*#_.<>{}$ -]{0,8}",
    re.IGNORECASE,
)


def stands_in(value: str) -> bool:
    """Whether the credential ``value`` marks itself as a stand-in: a sample
    word in it, or base64 that decodes to a word naming the value. Ambiguous,
    so a finding of it flags for review instead of refusing. Only one word
    is read so: a span of several (a key file, a JSON blob) may name an
    example project beside a real key."""
    if len(value) > 256 or any(ch.isspace() for ch in value):
        return False
    if _SAMPLE_MARK.search(value):
        return True
    if len(value) % 4 or not _BASE64_VALUE.fullmatch(value):
        return False
    try:
        decoded = base64.b64decode(value, validate=True).decode("ascii")
    except (ValueError, UnicodeDecodeError):
        return False
    return _STAND_IN_WORD.fullmatch(decoded) is not None
