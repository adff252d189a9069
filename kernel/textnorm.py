"""Text normalisation for the scanner: the look-alike shadow and bounded decoding.

Owns: ``shadow_pieces`` (a per-character map of a text onto its look-alike
skeleton: NFKC, combining marks stripped, confusable letters mapped onto the
ASCII letters they imitate per Unicode TR39's confusables table, format
characters dropped) and ``encoded_runs`` / ``decode_run`` (base64, hex and
percent-encoded runs, decoded within fixed bounds so that what they hide can be
scanned with the same rules).

Invariants:
- pure: no clock, and no I/O at call time but one read of the confusables
  table from the installed ``confusable_homoglyphs`` package, the first time
  a non-ASCII letter is mapped (loading it costs an eighth of the daemon's
  start-up, and most texts are ASCII);
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
import functools
import re
import unicodedata

__all__ = [
    "MAX_DECODED_CHARS",
    "MAX_RUNS",
    "MAX_RUN_CHARS",
    "PERCENT_RUN_ESCAPES",
    "RUN_WORD_MIN",
    "decode_run",
    "encoded_runs",
    "shadow_char",
    "shadow_pieces",
    "wrapped_runs",
]

# Bounds on decoding, per scanned text: runs whose decoded text is scanned
# alone (the scanner reads the rest together), characters per run, and
# decoded characters in all (or the text's length, if more: a run decodes to
# no more characters than it has, so no run is left unread for the bound).
MAX_RUNS = 16
MAX_RUN_CHARS = 8_192
MAX_DECODED_CHARS = 16_384

_SHADOW_CACHE = 8_192


def _ascii_lookalike(ch: str) -> str | None:
    """The ASCII letter or digit ``ch`` is confusable with, if any (TR39 table)."""
    from confusable_homoglyphs import confusables

    found = confusables.is_confusable(ch, greedy=True)
    if not found:
        return None
    for item in found:
        for glyph in item.get("homoglyphs", ()):
            c = glyph.get("c", "")
            if c.isascii() and c.isalnum():
                return str(c)
    return None


@functools.lru_cache(maxsize=_SHADOW_CACHE)
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
        if part.isascii():
            out.append(part)
            continue
        look = _ascii_lookalike(part)
        out.append(look if look is not None else part)
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
_SHORTEST: dict[str, int] = {"percent": 9, "hex": 16, "base64": 16}
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
