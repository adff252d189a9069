"""The learned reading of a secret in prose: which values a note gives as a
credential, scored from the value's shape and the words around it.

Owns: ``CANDIDATE`` (the values a credential could be), ``facts`` (what a
value is by its characters: a date, a version, a measure …), ``features``
(what the score reads of one), ``score`` (the head's log-odds), ``read``
(the score where the rows read the value at all), ``phone_or_measure``
(digits a phone number's or a measure's form names) and the two thresholds
the rule table's ``secret.scored_value`` rows use (``REFUSE`` and ``FLAG``).
The head is ``kernel/secret_head.py``, written by
``bench/train_secret_head.py``; the rows are in ``kernel/scan_rules.py``.

The rules read a credential by the words that name it, one language and one
phrasing at a time, and a set written apart showed that they find what they
were shown. A value is a credential by where it sits, and that reads across
languages from a few cues: a short run of digits or a word mixing letters
with digits and symbols, after a colon, "is", a quotation mark or a verb, in
a sentence whose words (or their four-letter pieces: "pass", "word",
"code", "wort", "parol") say what it opens. The head weighs those cues; it
was fitted on the development parts of the labelled sets (never their
held-out parts) and on half of the clean corpus.

Invariants:
- pure: the same text, span and head give the same score;
- bounded: a candidate is at most ``MAX_VALUE`` characters, and ``features``
  reads ``BEFORE`` characters before it and ``AFTER`` after it, no further;
- a feature is a string; its weight is found by a stable hash (CRC-32), so
  the trainer and the scanner agree on every machine;
- a value's shape alone makes no credential: the part of the score the
  words around it give must be above zero (an identifier in plain prose,
  "A kestrel3f9a2b hovers.", is none), and where the value ends (the end of
  the text: a title's number) is no word;
- a score names no text: the finding it makes holds a rule id and a span.
"""

from __future__ import annotations

import re
import unicodedata
import zlib

from memoryd.kernel import secret_head

__all__ = [
    "AFTER", "BEFORE", "CANDIDATE", "DIGITS", "FLAG", "MAX_VALUE", "NAMED_BY_FORM", "REFUSE",
    "SYMBOLS", "facts", "features", "of_the_value", "phone_or_measure", "read", "score",
]

MAX_VALUE = 40
BEFORE = 96
AFTER = 48
REFUSE = secret_head.REFUSE
FLAG = secret_head.FLAG

# The zero of every script's decimal digits (Unicode category Nd; each
# script's ten digits follow its zero), for the rows' prefilter: a candidate
# holds a digit or one of ``SYMBOLS`` within its ``MAX_VALUE`` characters.
_ZEROS = (
    0x30, 0x660, 0x6F0, 0x7C0, 0x966, 0x9E6, 0xA66, 0xAE6, 0xB66, 0xBE6, 0xC66, 0xCE6,
    0xD66, 0xDE6, 0xE50, 0xED0, 0xF20, 0x1040, 0x1090, 0x17E0, 0x1810, 0x1946, 0x19D0,
    0x1A80, 0x1A90, 0x1B50, 0x1BB0, 0x1C40, 0x1C50, 0xA620, 0xA8D0, 0xA900, 0xA9D0,
    0xA9F0, 0xAA50, 0xABF0, 0xFF10, 0x104A0, 0x10D30, 0x11066, 0x110F0, 0x11136,
    0x111D0, 0x112F0, 0x11450, 0x114D0, 0x11650, 0x116C0, 0x11730, 0x118E0, 0x11950,
    0x11C50, 0x11D50, 0x11DA0, 0x16A60, 0x16AC0, 0x16B50, 0x1D7CE, 0x1D7D8, 0x1D7E2,
    0x1D7EC, 0x1D7F6, 0x1E140, 0x1E2F0, 0x1E950, 0x1FBF0,
)
DIGITS = tuple(chr(zero + i) for zero in _ZEROS for i in range(10))
SYMBOLS = tuple("!@#$%^&*+?~")
# Scripts written without spaces between words, and their punctuation: a
# run of them is no value, and a value may follow one directly
# ("密码是Xk2024abc。").
_UNSPACED = "\u3000-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff\uff00-\uffef"
_EDGE = "(?<![^\\s\"'`(\\[<«“‘:=/" + _UNSPACED + "])"
_CHAR = "[^\\s\"'`=" + _UNSPACED + "]"
# A value's last character: no punctuation that ends a sentence or a clause.
_LAST = "[^\\s\"'`=.,;:)\\]}>»”’" + _UNSPACED + "]"
# A value a credential could be, not inside a longer word: 4 to 23 digits
# (one space or dash may sit between two of them: "4 7 1 9", "18-32-07";
# none beside a colon between digits, a time's: "6:00-22:00"), or
# a run of 6 to 40 characters holding a letter and a digit or a symbol (an
# equals sign parts a name from its value, so it is in neither; a longer run
# is no value).
CANDIDATE = re.compile(
    _EDGE + r"(?:"
    r"(?P<digits>(?<!\d:)\d(?:\d|[ -](?=\d)){3,22}(?![\w]|:\d))"
    r"|(?P<mixed>(?=" + _CHAR + r"{0,39}[^\W\d_])(?=" + _CHAR + r"{0,39}[\d!@#$%^&*+?~])"
    + _CHAR + r"{5,39}" + _LAST + r"(?!" + _LAST + r"))"
    r")"
)


def _marks() -> str:
    """The combining marks (Unicode categories Mn, Mc, Me) of the blocks
    that spell words with them, as ranges for a character class: the vowel
    signs of Devanagari, Bengali, Thai and their kin, Hebrew and Arabic
    points, accents. ``\\w`` holds none, and a word of those scripts read
    by it falls apart ("पिन" into "प" and "न")."""
    spans: list[list[int]] = []
    for block in ((0x0300, 0x1E00), (0x20D0, 0x2100), (0xFE20, 0xFE30)):
        for point in range(*block):
            if unicodedata.category(chr(point)) in ("Mn", "Mc", "Me"):
                if spans and spans[-1][1] == point - 1:
                    spans[-1][1] = point
                else:
                    spans.append([point, point])
    return "".join(f"{chr(a)}-{chr(b)}" if b > a else chr(a) for a, b in spans)


_MARKS = _marks()
# A word: letters and digits of any script with the marks that spell it.
_WORD = re.compile(r"[^\W_](?:[^\W_]|[" + _MARKS + r"])*")
# A word of prose: 2 to 14 letters (marks among them), lower case after the
# first, standing alone between spaces or punctuation, of a Latin script or
# of one written without spaces (a run of an encoding is none).
_PROSE_WORD = re.compile(
    r"(?<![^\s\"'(\[«“‘「『（【：，。、；！？])[^\W\d_](?:[^\W\d_A-Z]|[" + _MARKS + r"]){1,13}"
    r"(?![^\s\"'.,;:!?)\]»”’。，、：；！？」』）】।॥])")
_SHAPE = str.maketrans(
    "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789",
    "a" * 26 + "A" * 26 + "9" * 10,
)
_RUNS = re.compile(r"(.)\1+")


def _shape(value: str) -> str:
    classes = "".join(
        ch.translate(_SHAPE) if ch.isascii() else ("9" if ch.isdigit() else "a")
        for ch in value
    )
    return _RUNS.sub(r"\1", classes)


# What a value is, read from its characters alone: a year, a date, a time
# of day, a version, a ticket's or a flight's number, a file name, a
# setting's name, a hexadecimal run. The head weighs each; those in
# ``NAMED_BY_FORM`` also stop the rows from reading the value.
_FACTS = (
    ("year", re.compile(r"(?:19|20)\d\d")),
    ("date", re.compile(r"(?:19|20)\d\d[-/.]?(?:0[1-9]|1[0-2])[-/.]?(?:0[1-9]|[12]\d|3[01])"
                        r"|(?:0?[1-9]|[12]\d|3[01])[-/.](?:0?[1-9]|1[0-2])[-/.](?:19|20)?\d\d"
                        r"|(?:0?[1-9]|1[0-2])/(?:0?[1-9]|[12]\d|3[01])/(?:19|20)\d\d")),
    ("dates", re.compile(r"(?:19|20)\d{6}[ -](?:19|20)\d{6}")),
    ("time", re.compile(r"(?:[01]\d|2[0-3])[0-5]\dh?")),
    ("version", re.compile(r"[A-Za-z/]{0,8}v?\d{1,3}(?:\.\d{1,3}){1,3}[+]?")),
    ("ticket", re.compile(r"#?[A-Z]{1,6}-?\d{2,7}|#\d{2,7}")),
    ("file", re.compile(r".{1,32}\.[a-z]{2,4}")),
    ("setting", re.compile(r"[A-Z][A-Z0-9]{1,15}(?:_[A-Z0-9]{1,15}){1,5}")),
)
# A run of hexadecimal digits mixing letters and digits: a hash's, a
# commit's, an id's form ("CANARY3f9a2b1c4d5e", "req-9f3a2b1c").
_HEX_RUN = re.compile(r"[0-9a-f]{8,40}|[0-9A-F]{8,40}")
# A unit or a currency after a number: a measure, a price.
_UNIT = re.compile(
    r" ?(?:mm|cm|m|km|mi|in|ft|g|kg|mg|lb|lbs|oz|ml|l|w|kw|kwh|v|mah|gb|mb|tb|hz|ghz|mhz|%|°"
    r"|€|\$|£|¥|₽|zł|eur|euros?|usd|dollars?|руб\w{0,4}|m²|m2)(?![^\W\d_])", re.IGNORECASE)


# Facts that say what a value is whatever is around it: such a value is not
# read as a credential at all (a year or a time of day may be a PIN too:
# those only weigh).
NAMED_BY_FORM = frozenset(("fact:date", "fact:dates", "fact:version", "fact:ticket", "fact:file",
                           "fact:setting", "fact:unit", "fact:hex"))


def facts(value: str, after: str) -> list[str]:
    """The facts ``_FACTS`` reads of ``value``, and a unit in ``after``."""
    out = ["fact:" + name for name, pattern in _FACTS if pattern.fullmatch(value)]
    if any(not run.isdigit() and not run.isalpha() for run in _HEX_RUN.findall(value)):
        out.append("fact:hex")
    if _UNIT.match(after):
        out.append("fact:unit")
    return out


def features(text: str, start: int, end: int) -> list[str]:
    """What the head reads of the candidate at ``start:end`` of ``text``."""
    value = text[start:end]
    digits = sum(ch.isdigit() for ch in value)
    letters = sum(ch.isalpha() for ch in value)
    out = [
        "bias",
        "shape:" + _shape(value)[:12],
        f"len:{min(len(value), 20) // 2}",
        f"digits:{min(digits, 14)}",
        f"kind:{'digits' if letters == 0 else 'mixed'}",
    ]
    if letters:
        out.append(f"mix:{min(letters, 12) // 3}:{min(digits, 8) // 2}")
        for mark in "@/.:_-!#$%&*+=?~":
            if mark in value:
                out.append("has:" + mark)
        if value[:1].isupper():
            out.append("cap")
    before = text[max(0, start - BEFORE):start]
    after = text[end:end + AFTER]
    out.extend(facts(value, after))
    tail = before.rstrip()
    out.append("prev:" + (tail[-1:] if tail else "^"))
    option = tail.rsplit(" ", 1)[-1]
    if option.startswith("-") and len(option) <= 16:
        # A command line's option the value is given to ("-P 3306").
        out += ["opt", "opt:" + option]
    out.append("gap:" + ("0" if before[-1:] not in (" ", "") else "1"))
    out.append("next:" + (after[:1] if after else "$"))
    words = [w.lower() for w in _WORD.findall(before)][-6:]
    for distance, word in enumerate(reversed(words), 1):
        out.append("w:" + word)
        if distance <= 2:
            out.append(f"w{distance}:" + word)
        padded = f"<{word}>"
        for i in range(len(padded) - 3):
            out.append("g:" + padded[i:i + 4])
    for word in [w.lower() for w in _WORD.findall(after)][:3]:
        out.append("a:" + word)
    return out


def _in_prose(text: str, start: int, end: int) -> bool:
    """Whether a word of prose stands within the window around ``start:end``:
    a value among runs of an encoding, or alone, is not read here."""
    return (_PROSE_WORD.search(text, max(0, start - BEFORE), start) is not None
            or _PROSE_WORD.search(text, end, min(len(text), end + AFTER + 15)) is not None)


# Features read from the value alone (its shape, its facts) or from where it
# ends (the character after it, or the end of the text: a short title ends
# in its number as a note ends in its PIN); every other one reads the words
# before and after it and the mark that binds them to it.
_OF_THE_VALUE = ("bias", "shape:", "len:", "digits:", "kind:", "mix:", "has:", "cap", "fact:",
                 "next:")


def of_the_value(feature: str) -> bool:
    """Whether ``feature`` is read from the value alone or from where it ends."""
    return feature.startswith(_OF_THE_VALUE)


def score(text: str, start: int, end: int) -> tuple[float, float]:
    """The head's log-odds that the value at ``start:end`` is a credential,
    and the part of it the words around the value give."""
    return _weighed(features(text, start, end))


# A run of digit groups, each joined to the next by one space, dash, dot or
# slash, and what stands before it: a phone number's form.
_GROUPS_BEFORE = re.compile(r"(?:\d{1,8}[ ./-])*\Z")
_GROUPS_AFTER = re.compile(r"(?:[ ./-]\d{1,8})*")
_NUMBER = re.compile(r"\d(?:[ ./-]?\d)*")
_PHONE = re.compile(r"(?:\+|0)\d{1,5}(?:[ ./-]\d{1,8}){1,5}")


def phone_or_measure(text: str, start: int, end: int) -> bool:
    """Whether the digits at ``start:end`` are part of a phone number (the
    run of digit groups they stand in opens with "+" or "0"
    and holds 9 to 15 digits in two or more groups: "+44 20 3154 4958",
    "0153 757807") or of a measure or a price (a unit or a currency after
    them: "2312 ₽"). Such digits are what their form says, whatever the
    words around them."""
    value = text[start:end].rstrip(".,;:!?)")
    if not value or not _NUMBER.fullmatch(value):
        return False
    unit = _UNIT.match(text, start + len(value))
    if unit is not None and unit.group().strip().lower() != "in":
        # "in" after a number is a preposition as often as inches ("PIN
        # 4821 in the drawer").
        return True
    lo = max(0, start - 24)
    head = _GROUPS_BEFORE.search(text, lo, start)
    first = head.start() if head is not None else start
    if first > 0 and text[first - 1] == "+":
        first -= 1
    tail = _GROUPS_AFTER.match(text, start + len(value), min(len(text), end + 24))
    last = tail.end() if tail is not None else start + len(value)
    run = text[first:last].strip(" ./-")
    digits = sum(ch.isdigit() for ch in run)
    return 9 <= digits <= 15 and _PHONE.fullmatch(run) is not None


def read(text: str, start: int, end: int) -> tuple[float, float] | None:
    """``score`` of the value at ``start:end``, or None where the rows do not
    read it: no word of prose around it, a form that says what it is
    (``NAMED_BY_FORM``), or no word around it that speaks for it (the part
    of the score they give is not above zero: a value's shape alone makes
    no credential)."""
    if not _in_prose(text, start, end) or phone_or_measure(text, start, end):
        return None
    found = features(text, start, end)
    if not NAMED_BY_FORM.isdisjoint(found):
        return None
    total, around = _weighed(found)
    return (total, around) if around > 0 else None


def _weighed(found: list[str]) -> tuple[float, float]:
    weights = secret_head.WEIGHTS
    total = secret_head.BIAS
    around = 0.0
    mask = secret_head.BUCKETS - 1
    for feature in found:
        weight = weights.get(zlib.crc32(feature.encode("utf-8")) & mask, 0.0)
        total += weight
        if not of_the_value(feature):
            around += weight
    return total, around
