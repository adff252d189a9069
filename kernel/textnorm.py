"""Text normalisation for the scanner: the look-alike shadow and bounded decoding.

Owns: ``shadow_pieces`` (a per-character map of a text onto its look-alike
skeleton: NFKC, combining marks stripped, confusable letters mapped onto the
ASCII letters they imitate per Unicode TR39's confusables table, format
characters dropped) and ``encoded_runs`` / ``decode_run`` (base64, hex and
percent-encoded runs, decoded within fixed bounds so that what they hide can be
scanned with the same rules).

Invariants:
- pure and stateless: no clock, no I/O, no cache; the confusables table is
  a constant (``kernel/lookalikes``, generated from TR39's data);
- the shadow is built one original character at a time, so every piece maps
  back onto exactly one original character (offsets stay exact);
- decoding is bounded: each run at most ``MAX_RUN_CHARS`` characters, the
  decoded text must be printable UTF-8 (random key material decodes to bytes
  that are not, and is left to the secret rules), and the caller bounds the
  decoded characters, the scans of them (``MAX_RUNS`` alone, the rest read
  together) and the depth; every run is found (no run goes unread because
  others came first), in time linear in the text.
"""

from __future__ import annotations

import base64
import binascii
import bisect
import html
import itertools
import re
import unicodedata
from collections.abc import Mapping
from types import MappingProxyType

from memoryd.kernel.lookalikes import ASCII, LOOKALIKES

__all__ = [
    "MAX_DECODED_CHARS",
    "MAX_RUNS",
    "MAX_RUN_CHARS",
    "PERCENT_RUN_ESCAPES",
    "RUN_WORD_MIN",
    "SHADOW_KINDS",
    "VOCABULARY",
    "decode_run",
    "encoded_runs",
    "entity_pieces",
    "leet_text",
    "may_disguise",
    "repair_text",
    "rot13_text",
    "shadow_char",
    "shadow_pieces",
    "spaced_pieces",
    "wrapped_runs",
]

# Bounds on decoding, per scanned text: runs whose decoded text is scanned
# alone (the scanner reads the rest together), characters per run, and
# decoded characters in all (or the text's length, if more: a run decodes to
# no more characters than it has, so no run is left unread for the bound).
MAX_RUNS = 16
MAX_RUN_CHARS = 8_192
MAX_DECODED_CHARS = 16_384

# Every character TR39 lists as confusable with an ASCII letter or digit, and
# what it imitates (``kernel/lookalikes``, generated from the table): a
# constant read-only mapping, loaded with the code.
_LOOKALIKE: Mapping[str, str] = MappingProxyType(dict(zip(LOOKALIKES, ASCII.split(), strict=True)))


def shadow_char(ch: str) -> str:
    """The skeleton of one character: what a reader would take it for."""
    if ch.isascii():
        return ch
    if unicodedata.category(ch) == "Cf":
        return ""
    folded = unicodedata.normalize("NFKC", ch)
    if folded.isspace():
        return " "
    out = []
    for part in unicodedata.normalize("NFD", folded):
        if unicodedata.category(part) in ("Mn", "Me"):
            continue  # combining marks inserted between letters hide words
        out.append(part if part.isascii() else _LOOKALIKE.get(part, part))
    return unicodedata.normalize("NFC", "".join(out))


def shadow_pieces(text: str) -> list[tuple[str, int, int]]:
    """``(piece, original offset, original length)`` covering ``text`` in order.

    ASCII stretches are copied whole; every other character becomes its
    skeleton. Whitespace runs are collapsed by the caller's folding rules
    (the shadow is folded again like any text).
    """
    pieces: list[tuple[str, int, int]] = []
    start = 0
    # The characters outside ASCII are found in C: a summary cut with an
    # ellipsis is ASCII but for its last character.
    for m in _NOT_ASCII.finditer(text):
        i = m.start()
        if i > start:
            pieces.append((text[start:i], start, i - start))
        pieces.append((shadow_char(m.group()), i, 1))
        start = i + 1
    n = len(text)
    if start < n or not pieces:
        pieces.append((text[start:], start, n - start))
    return pieces


_NOT_ASCII = re.compile(r"[^\x00-\x7f]")


# Runs worth decoding. Base64 needs 16 characters (12 bytes) at least, hex 16
# digits (8 bytes), percent-encoding three escapes in a row. Bounded
# repetitions keep each pattern's work per position fixed.
_RUNS: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("percent", re.compile(r"(?<![A-Za-z0-9._~+%-])[A-Za-z0-9._~+%-]{9,8192}")),
    ("hex", re.compile(r"(?<![0-9A-Za-z])(?:[0-9A-Fa-f]{2}){8,4096}(?![0-9A-Za-z])")),
    ("base64", re.compile(r"(?<![A-Za-z0-9+/_-])[A-Za-z0-9+/_-]{16,8192}={0,2}"
                          r"(?![A-Za-z0-9+/=_-])")),
)


# The fewest characters a match of each pattern above spans. No pattern's
# characters include whitespace, so a match lies inside one whitespace-free
# word of the text: a text whose longest word is shorter holds no such run.
_SHORTEST: Mapping[str, int] = MappingProxyType({"percent": 9, "hex": 16, "base64": 16})
_FEWEST = min(_SHORTEST.values())
# A percent run holds at least this many escapes ("%41%42%43").
PERCENT_RUN_ESCAPES = 3
# The shortest word a run other than a percent run fits in: a text whose
# words are all shorter, with fewer than ``PERCENT_RUN_ESCAPES`` '%', holds
# no encoded run (``encoded_runs`` gives nothing for it).
RUN_WORD_MIN = min(n for name, n in _SHORTEST.items() if name != "percent")
_ESCAPE = re.compile(r"%[0-9A-Fa-f]{2}")


def encoded_runs(text: str, *, longest: int | None = None,
                 limit: int | None = MAX_RUNS) -> list[tuple[str, int, int]]:
    """``(encoding, start, end)`` of the first ``limit`` encoded-looking runs
    (every one with ``limit=None``), in the order they come in ``text``.

    ``longest`` is the length of the longest whitespace-free word of
    ``text``, when the caller has it already.
    """
    found: list[tuple[str, int, int]] = []
    if longest is None:
        longest = max(map(len, text.split()), default=0)
    if longest < _FEWEST:
        return found
    # The runs taken so far, disjoint and by start: an overlap is looked up
    # by bisection (a text can hold hundreds of runs).
    taken: list[tuple[int, int]] = []
    for name, pattern in _RUNS:
        if _SHORTEST[name] > longest:
            # Prose (words shorter than any run) skips the patterns' walks.
            continue
        if name == "percent" and text.count("%") < PERCENT_RUN_ESCAPES:
            # A percent run needs three escapes: without three '%' anywhere,
            # no run qualifies (ordinary long words would each be tried).
            continue
        for m in pattern.finditer(text):
            if limit is not None and len(found) >= limit:
                return sorted(found, key=lambda r: r[1])
            s, e = m.start(), m.end()
            if name == "percent" and len(_ESCAPE.findall(m.group(0))) < PERCENT_RUN_ESCAPES:
                continue
            if e - s > MAX_RUN_CHARS:
                continue
            i = bisect.bisect_left(taken, (s,))
            if (i and taken[i - 1][1] > s) or (i < len(taken) and taken[i][0] < e):
                continue
            found.append((name, s, e))
            taken.insert(i, (s, e))
    return sorted(found, key=lambda r: r[1])


# A base64 block's line break, and the short last line of a block (shorter
# than a run): what a wrapped encoder (MIME, PEM, the ``base64`` tool's 76
# columns) writes between and after the lines of one payload.
_LINE_BREAK = ("\n", "\r\n")
_LAST_LINE = re.compile(r"\r?\n[A-Za-z0-9+/_-]{1,15}={0,2}(?![A-Za-z0-9+/=_-])")


def wrapped_runs(text: str, runs: list[tuple[str, int, int]]) -> list[tuple[str, int, int]]:
    """``runs`` (``encoded_runs``, in order) with the lines of each wrapped
    base64 block taken as one run: consecutive base64 runs apart by one line
    break, each but the last a whole number of 4-character groups with no
    padding, and a last line shorter than a run after them. Decoded line by
    line, a payload that crosses a line's end is read as two halves, neither
    of which is it. A block is at most ``MAX_RUN_CHARS`` long; one that is
    no readable text as a whole is read line by line (``scan._decoded``)."""
    out: list[tuple[str, int, int]] = []
    for run in runs:
        name, s, e = run
        if out and name == "base64":
            last_name, last_s, last_e = out[-1]
            if (last_name == "base64" and text[last_e:s] in _LINE_BREAK
                    and (last_e - last_s - text.count("\n", last_s, last_e)
                         - text.count("\r", last_s, last_e)) % 4 == 0
                    and text[last_e - 1] != "=" and e - last_s <= MAX_RUN_CHARS):
                out[-1] = (name, last_s, e)
                continue
        out.append(run)
    for i, (name, s, e) in enumerate(out):
        if name == "base64" and text[e - 1] != "=":
            tail = _LAST_LINE.match(text, e)
            if tail is not None and tail.end() - s <= MAX_RUN_CHARS:
                out[i] = (name, s, tail.end())
    return out


def _printable_text(raw: bytes) -> str | None:
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        return None
    if not text.strip():
        return None
    printable = sum(1 for ch in text if ch.isprintable() or ch in "\t\r\n")
    # Mostly readable: hidden text is meant to be read by a model.
    return text if printable >= 0.95 * len(text) else None


def _unquote(run: str) -> bytes:
    """Percent-decoding of ``run`` (the run is ASCII: the pattern admits nothing else)."""
    return _ESCAPE.sub(lambda m: chr(int(m.group(0)[1:], 16)), run).encode("latin-1")


def decode_run(encoding: str, run: str) -> str | None:
    """The readable text ``run`` decodes to, or ``None`` (not readable text)."""
    try:
        if encoding == "percent":
            raw = _unquote(run)
        elif encoding == "hex":
            raw = binascii.unhexlify(run)
        else:
            if "\n" in run:
                # A wrapped block (``wrapped_runs``): its lines, joined.
                run = run.replace("\r\n", "").replace("\n", "")
            core = run.rstrip("=")
            if len(core) % 4 == 1:
                return None
            padded = core + "=" * (-len(core) % 4)
            raw = base64.b64decode(padded.replace("-", "+").replace("_", "/"), validate=True)
    except (binascii.Error, ValueError):
        return None
    return _printable_text(raw)


# --- shadows: what a text reads as once its disguise is taken off ---------------
#
# Each shadow is another reading of the text, scanned with the same rules;
# a finding on one names its kind (``SHADOW_KINDS``). Two kinds change the
# characters but not their number (``leet_text``, ``rot13_text``,
# ``repair_text``: offsets stay those of the folded text); two replace
# stretches (``entity_pieces``, ``spaced_pieces``: pieces mapped back onto
# the original characters, as ``shadow_pieces``).

SHADOW_KINDS = ("confusable", "html", "rot13", "leet", "spaced")

# Words an instruction to a model is made of, in English: a word that is none
# of them but becomes one when a look-alike letter or digit is read as the
# letter it imitates ("lgnore", "1nstructions", "a11") is read as that word.
# The list is of the rule table's vocabulary; it needs no other word, since a
# shadow only matters where a rule can match it.
VOCABULARY = frozenset("""
a above act actual admin administrator all also and any are as assistant at
be before bypass chat commands constraints context credentials data delete developer
directives directions disable disregard do dump earlier email everything exfiltrate
filters follow for forget former from full guardrails guidelines hidden i ignore
in initial instead instruction instructions is it key keys leak limits mode my
new no not now of old on only or orders original output override password passwords
policies policy previous print prior programming prompt prompts real reveal
root rules safety said secret secrets send system task tell the these this those
to told token tokens true unrestricted upload user was were what will with you
your
""".split())

# Characters that stand for letters in leetspeak; those that stand for two
# (``1`` for i or l) list both, the first the more common.
_LEET: Mapping[str, str] = MappingProxyType({
    "0": "o", "1": "il", "3": "e", "4": "a", "5": "s", "6": "g", "7": "t", "8": "b",
    "9": "g", "@": "a", "$": "s", "|": "il", "!": "i", "+": "t",
})
# Letters a look-alike capital I reads as in the skeleton (TR39 maps I to l).
_I_LIKE = "l1|"
# A word holding a leetspeak character; a word that may hide a look-alike I:
# one starting with l, 1 or | before a consonant ("lgnore", "1nstructions"),
# or capitals around a small l ("PREVlOUS").
_LEET_WORD = re.compile(r"(?<![A-Za-z0-9@$|!+])[A-Za-z]{0,63}[0-9@$|!+][A-Za-z0-9@$|!+]{0,63}")
_WORD = re.compile(r"(?<![A-Za-z0-9|])(?:[l1|][b-df-hj-np-tv-xzB-DF-HJ-NP-TV-XZ][A-Za-z]{0,62}"
                   r"|[A-Z]{1,63}l[A-Za-z]{0,63})")
# More spellings than this of one word are not tried.
_MAX_SPELLINGS = 64


def _spellings(word: str, options: list[str]) -> str | None:
    """The first spelling of ``word`` in ``VOCABULARY`` when each character
    at position ``i`` may be read as any letter of ``options[i]``."""
    count = 1
    for opt in options:
        count *= len(opt)
        if count > _MAX_SPELLINGS:
            return None
    for letters in itertools.product(*options):
        candidate = "".join(letters)
        if candidate in VOCABULARY:
            return candidate
    return None


def _same_case(source: str, letters: str) -> str:
    return "".join(c.upper() if s.isupper() else c for s, c in zip(source, letters, strict=True))


def leet_text(text: str) -> str:
    """``text`` with each leetspeak word ("1gn0r3", "4ll") read as letters:
    a word of letters and digits (or ``@$|!+``) holding both kinds, or a word
    whose reading is a vocabulary word; ambiguous characters (``1``: i or l)
    are read as the vocabulary asks, else as the first letter. Same length."""
    def read(m: re.Match[str]) -> str:
        word = m.group(0)
        low = word.lower()
        if len(low) < 2 or low in VOCABULARY:
            return word
        letters = any(c.isalpha() for c in low)
        options = [_LEET.get(c, c) for c in low]
        found = _spellings(low, options)
        if found is None:
            if not letters or low.isdigit():
                return word
            found = "".join(o[0] for o in options)
        return _same_case(word, found)

    return _LEET_WORD.sub(read, text)


def repair_text(text: str) -> str:
    """``text`` with each word that is no vocabulary word but becomes one when
    an ``l`` (or ``1``, ``|``) is read as ``i`` read so: the look-alike of a
    capital I ("lgnore all previous instructions", a Greek or Cyrillic I in
    the skeleton). Same length."""
    def read(m: re.Match[str]) -> str:
        word = m.group(0)
        low = word.lower()
        if low in VOCABULARY or not any(c in _I_LIKE for c in low):
            return word
        options = [c + "i" if c in _I_LIKE else c for c in low]
        found = _spellings(low, options)
        return word if found is None else _same_case(word, found)

    return _WORD.sub(read, text)


_ROT13: Mapping[int, int] = MappingProxyType(str.maketrans(
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz",
    "NOPQRSTUVWXYZABCDEFGHIJKLMnopqrstuvwxyzabcdefghijklm",
))


_ROT13_BYTES = bytes.maketrans(
    b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz",
    b"NOPQRSTUVWXYZABCDEFGHIJKLMnopqrstuvwxyzabcdefghijklm",
)


def rot13_text(text: str) -> str:
    """``text`` with its ASCII letters rotated by 13. Same length."""
    if text.isascii():
        return text.encode("ascii").translate(_ROT13_BYTES).decode("ascii")
    return text.translate(_ROT13)


# What a text must hold for a shadow other than rot13 (and the skeleton of
# non-ASCII text) to differ from it: an HTML reference, three one-character
# words in a row (the middle of five), a word a look-alike I may hide in, a
# word mixing letters with leetspeak characters. Each pattern starts with
# the character it needs, so the search skips to it; no match, no shadow.
_MAY_DISGUISE = (
    re.compile(r"&(?:#|[A-Za-z][A-Za-z0-9]{1,31};)"),
    re.compile(r"[ \t\u00a0]\w[ \t\u00a0]{1,3}\w[ \t\u00a0]{1,3}\w(?!\S)"),
    re.compile(r"[l1|](?<![A-Za-z0-9|][l1|])[b-df-hj-np-tv-xzB-DF-HJ-NP-TV-XZ]"),
    re.compile(r"l(?<=[A-Z]l)"),
    re.compile(r"[0-9@$|!+](?:(?<=[A-Za-z].)|(?=[A-Za-z]))"),
)


def may_disguise(text: str) -> bool:
    """Whether a look-alike-I, HTML, leetspeak or spaced shadow of the ASCII
    ``text`` may differ from it (``False``: none does)."""
    return any(pattern.search(text) is not None for pattern in _MAY_DISGUISE)


_ENTITY = re.compile(r"&(?:#[0-9]{1,7}|#[xX][0-9A-Fa-f]{1,6}|[A-Za-z][A-Za-z0-9]{1,31});")


def entity_pieces(text: str) -> list[tuple[str, int, int]] | None:
    """``(piece, original offset, original length)`` of ``text`` with its
    HTML character references (``&#73;``, ``&#x49;``, ``&amp;``) replaced by
    the characters they stand for; ``None`` when it holds none."""
    if "&" not in text:
        return None
    pieces: list[tuple[str, int, int]] = []
    last = 0
    for m in _ENTITY.finditer(text):
        decoded = html.unescape(m.group(0))
        if decoded == m.group(0):
            continue
        if m.start() > last:
            pieces.append((text[last:m.start()], last, m.start() - last))
        pieces.append((decoded, m.start(), m.end() - m.start()))
        last = m.end()
    if not pieces:
        return None
    if last < len(text):
        pieces.append((text[last:], last, len(text) - last))
    return pieces


# Letters spelt out one at a time: five or more one-character words in a row.
# A password spelt out keeps its symbols: "T r o u t # 4 4 1 9".
_SPACED = re.compile(r"(?<!\S)[\w!#$%&*+@^~](?:[ \t\u00a0]{1,3}[\w!#$%&*+@^~](?!\S)){4,4096}"
                     r"(?!\S)")
_GAP = re.compile(r"[ \t\u00a0]{1,3}")
# The longest vocabulary word (segmentation looks no further).
_LONGEST_WORD = max(map(len, VOCABULARY))


def _segment(letters: str) -> list[int] | None:
    """Where to break ``letters`` (lower-case, no spaces) into vocabulary
    words, longest word first at each point; ``None`` unless at least
    four-fifths of the letters fall into words."""
    breaks: list[int] = []
    covered = 0
    i = 0
    n = len(letters)
    while i < n:
        for size in range(min(_LONGEST_WORD, n - i), 0, -1):
            if letters[i:i + size] in VOCABULARY and (size > 1 or letters[i] in "ai"):
                covered += size
                i += size
                breaks.append(i)
                break
        else:
            i += 1
    return breaks[:-1] if covered * 5 >= n * 4 else None


def spaced_pieces(text: str) -> list[tuple[str, int, int]] | None:
    """``text`` with words spelt letter by letter ("i g n o r e  a l l") read
    as words: the letters of a run joined, a wider gap between two letters
    than the run's narrowest read as a word break; a run spelt with one gap
    throughout is broken into vocabulary words when they cover it (an access
    key spelt out stays one word). ``None`` when there is no such run."""
    pieces: list[tuple[str, int, int]] = []
    last = 0
    for m in _SPACED.finditer(text):
        run = m.group(0)
        gaps = list(_GAP.finditer(run))
        narrow = min(len(g.group(0)) for g in gaps)
        if m.start() > last:
            pieces.append((text[last:m.start()], last, m.start() - last))
        at = m.start()
        letters = "".join(ch for ch in run if not ch.isspace())
        split: set[int] = set()
        if all(len(g.group(0)) == narrow for g in gaps) and letters.isalpha():
            cut = _segment(letters.lower())
            split = set(cut) if cut else set()
        pieces.append((run[0], at, 1))
        for k, g in enumerate(gaps, start=1):
            wide = len(g.group(0)) > narrow or k in split
            pieces.append((" " if wide else "", at + g.start(), g.end() - g.start()))
            pieces.append((run[g.end()], at + g.end(), 1))
        last = m.end()
    if not pieces:
        return None
    if last < len(text):
        pieces.append((text[last:], last, len(text) - last))
    return pieces
