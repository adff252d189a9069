"""The lexical index's text: how entry and query text become its tokens.

Owns: the index form of an entry's text (``fts_text``, ``body_text``,
``when_words``), registered on the store's connection as the SQL functions
the index triggers call (``register``), with each entry's weighted terms and
length for the postings (``entry_terms``, ``doc_length``); the FTS5 table,
its tokenizer and options (``INDEX_TABLE``, ``ensure_index``); a query's
terms and their quoted ``MATCH`` strings (``query_terms``, ``match_term``);
the tokens and term counts ranking reads of candidate text
(``tokenize``, ``index_tokens``, ``term_counts``, ``TermCounter``); and a
text's words folded as the index folds them, unstemmed (``folded_words``).
Planning and ranking are daemon/retrieval/search.py's.

Tokenisation. The index uses FTS5's built-in ``unicode61`` tokenizer
(case folding, diacritics removed) wrapped in FTS5's ``porter`` stemmer, so
English word forms meet ("rollback" finds "Rollbacks"; a query term goes
through the same tokenizer, so it is stemmed the same way). The stemmer only
rewrites ASCII letter runs: CJK unigrams and bigrams pass through unchanged.
A store whose index was built with another tokenizer or other options gets it
rebuilt once on open (``ensure_index``). ``unicode61`` splits on spaces and
punctuation, which suits English but leaves a run of Chinese (or Japanese,
Korean) text as one long token that no word query can match. So text is
pre-split before it reaches the index: every CJK run is rewritten as its
single characters plus its overlapping character bigrams ("机器学习" →
"机 器 学 习 机器 器学 学习"). A query is split the same way: a CJK run of two
or more characters becomes its bigrams, a single character its unigram. A
two-character Chinese word is then exactly one indexed bigram. The pre-split
happens in Python on both sides, so the index itself needs nothing but stock
FTS5 and any SQLite with FTS5 can read it (the benchmark does). Stop words
(English function words, Chinese particles) are dropped from a query.

Invariants:
- the index holds no text a caller did not store in ``entries`` and is kept
  in step with it by triggers in the same transaction
  (daemon/storage/sqlite_schema.py); a removed entry's tokens leave the index
  (FTS5 ``secure-delete``);
- user text never reaches FTS5 query syntax unquoted: every term is a quoted
  string with quotes doubled;
- every function here is a function of the text it is given alone: no word
  of a text is cached or kept after the call.
"""

from __future__ import annotations

import datetime
import functools
import re
import threading
import unicodedata
from collections import Counter
from collections.abc import Iterable, Sequence
from typing import Any, cast

import apsw
import msgspec

FTS_FUNCTION = "memoryd_fts_text"
# The index form of an entry's body column: ``body_text`` of its body,
# context and observed time, pre-split.
FTS_BODY = "memoryd_fts_body"
# BM25 column weights: a match in the title says most about an entry, then
# its summary (the card text), then the body.
WEIGHTS = (10.0, 5.0, 1.0)
# Distinct terms considered from one query (first ones, in query order).
MAX_TERMS = 32
# Longest single term; longer runs are not words anyone searches for.
MAX_TERM_CHARS = 64

_CJK_RANGES = (
    (0x3040, 0x30FF),    # Hiragana, Katakana
    (0x3400, 0x4DBF),    # CJK Extension A
    (0x4E00, 0x9FFF),    # CJK Unified Ideographs
    (0xAC00, 0xD7AF),    # Hangul syllables
    (0xF900, 0xFAFF),    # CJK Compatibility Ideographs
    (0x20000, 0x2FFFF),  # CJK Extensions B–F and supplements
)
_CJK_CLASS = "".join(f"\\U{lo:08x}-\\U{hi:08x}" for lo, hi in _CJK_RANGES)
_CJK_RUN = re.compile(f"[{_CJK_CLASS}]+")


def _mark_class(blocks: tuple[tuple[int, int], ...]) -> str:
    """The combining marks (categories Mn, Mc, Me) of ``blocks``, as ranges of
    a character class."""
    marks = [c for lo, hi in blocks for c in range(lo, hi + 1)
             if unicodedata.category(chr(c)).startswith("M")]
    runs: list[list[int]] = []
    for c in marks:
        if runs and runs[-1][1] == c - 1:
            runs[-1][1] = c
        else:
            runs.append([c, c])
    return "".join(f"\\u{lo:04x}-\\u{hi:04x}" for lo, hi in runs)


# A query word is letters and numbers with the marks written on them (an
# accent, a vowel sign, a tone mark), as a writer spells it: unicode61
# splits a word at a mark of a script it does not fold, PostgreSQL's parser
# keeps the word whole, and each backend's tokenizer reads the query's word
# as it read the documents'. "_" splits, as in unicode61.
_MARKS = _mark_class(((0x0300, 0x1DFF), (0x20D0, 0x20FF), (0xFE20, 0xFE2F)))
_WORD = re.compile(f"(?:[^\\W_]|[{_CJK_CLASS}{_MARKS}])+")

STOP_WORDS: frozenset[str] = frozenset("""
a about above after again against all am an and any are as at be because been before being
below between both but by can could did do does doing down during each few for from further
had has have having he her here hers herself him himself his how i if in into is it its itself
just let me more most my myself no nor not now of off on once only or other our ours ourselves
out over own please same she should so some such than that the their theirs them themselves
then there these they this those through to too under until up very was we were what when
where which while who whom why will with would you your yours yourself yourselves
also get got make may might must need use using want
""".split())
# Chinese function characters: dropped as unigrams, and bigrams made only of them.
STOP_CJK: frozenset[str] = frozenset(
    "的了是在和与或我你他她它们这那就都也而及把被让给对从向于之吗呢吧啊么个有")


def _is_cjk(ch: str) -> bool:
    cp = ord(ch)
    return any(lo <= cp <= hi for lo, hi in _CJK_RANGES)


def _fold(word: str) -> str:
    # What unicode61 with remove_diacritics does to a Latin word, near enough
    # for stop-word checks and de-duplication.
    if word.isascii():
        return word.lower()  # NFKD leaves ASCII alone; casefold is lower there
    return _fold_unicode(word)


def _fold_unicode(word: str) -> str:
    decomposed = unicodedata.normalize("NFKD", word.casefold())
    return "".join(ch for ch in decomposed if not unicodedata.combining(ch))


def fts_text(text: str | None) -> str:
    """Index form of ``text``: CJK runs become unigrams plus bigrams, the rest is kept."""
    if not text:
        return ""
    if text.isascii():
        # No CJK character is ASCII: the text is its own index form. (The
        # index triggers call this for title, summary and body of every write.)
        return text

    def split(m: re.Match[str]) -> str:
        run = m.group(0)
        grams = list(run)
        grams.extend(run[i:i + 2] for i in range(len(run) - 1))
        return " " + " ".join(grams) + " "

    return _CJK_RUN.sub(split, text)


# An entry's observed time in words, as English speaks of dates.
_WEEKDAYS = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")
_MONTHS = ("January", "February", "March", "April", "May", "June", "July", "August",
           "September", "October", "November", "December")
_DATE = re.compile(r"([0-9]{4})-([0-9]{2})-([0-9]{2})")


def when_words(observed_at: str | None) -> str:
    """The calendar date ``observed_at`` starts with, in words: weekday, day,
    month and year ("Saturday 8 March 2025"), so "what did she do in March"
    can match; "" for no date. PostgreSQL's index writes the same words
    (``to_char(date, 'FMDay FMDD FMMonth YYYY')``, daemon/storage/pg_schema.py)."""
    m = _DATE.match(observed_at or "")
    if m is None:
        return ""
    try:
        day = datetime.date(int(m[1]), int(m[2]), int(m[3]))
    except ValueError:
        return ""
    return f"{_WEEKDAYS[day.weekday()]} {day.day} {_MONTHS[day.month - 1]} {day.year:04d}"


def body_text(body: str, context: str | None, observed_at: str | None) -> str:
    """What the index holds and ranking scores as an entry's body: the body,
    then its context and its observed time in words, each on its own line
    (only the body when it has neither)."""
    if not context and not observed_at:
        return body
    return "\n".join(part for part in (body, context, when_words(observed_at)) if part)


def _sql_fts_body(*args: Any) -> str:
    body, context, observed_at = (a if isinstance(a, str) else None for a in args)
    return fts_text(body_text(body or "", context, observed_at))


def _sql_fts_text(*args: Any) -> str:
    # SQLite hands over whatever the column holds; only text is indexed.
    value = args[0] if args else None
    return fts_text(value if isinstance(value, str) else None)


def entry_terms(title: str, summary: str, body: str, context: str | None,
                observed_at: str | None) -> dict[str, int]:
    """Each index term of an entry (``index_tokens`` of its title, summary
    and ``body_text``) with its weighted count: each column's weight
    (``WEIGHTS``) times the term's count there, summed. What ranking counts
    of an entry, as whole numbers (the weights are)."""
    w_title, w_summary, w_body = (int(w) for w in WEIGHTS)
    whole = body_text(body, context, observed_at)
    # A short note's summary is its body: its text is tokenised once, at both weights.
    fields = ([(title, w_title), (whole, w_summary + w_body)] if summary == whole
              else [(title, w_title), (summary, w_summary), (whole, w_body)])
    counts: Counter[str] = Counter()
    for text, weight in fields:
        for token, n in Counter(index_tokens(text)).items():
            counts[token] += weight * n
    return dict(counts)


def doc_length(title: str, summary: str, body: str, context: str | None,
               observed_at: str | None) -> int:
    """An entry's length as BM25 measures a candidate: characters of its
    title, summary and ``body_text``."""
    return len(title) + len(summary) + len(body_text(body, context, observed_at))


_json_terms = msgspec.json.Encoder(order="sorted")


def _entry_args(args: tuple[Any, ...]) -> tuple[str, str, str, str | None, str | None]:
    title, summary, body, context, observed_at = (a if isinstance(a, str) else None
                                                  for a in args)
    return title or "", summary or "", body or "", context, observed_at


def _sql_entry_terms(*args: Any) -> str:
    # A JSON object {term: weighted count}, read by json_each in the
    # triggers that keep entry_terms (daemon/retrieval/postings.py).
    return _json_terms.encode(entry_terms(*_entry_args(args))).decode()


def _sql_doc_length(*args: Any) -> int:
    return doc_length(*_entry_args(args))


ENTRY_TERMS_FUNCTION = "memoryd_entry_terms"
DOC_LENGTH_FUNCTION = "memoryd_doc_length"


def register(conn: apsw.Connection) -> None:
    """Make ``memoryd_fts_text`` and the other index functions callable on
    ``conn`` (the index triggers need them).

    Any connection that writes ``entries`` must call this first. They are
    deterministic and innocuous, so they may run inside triggers while
    ``trusted_schema`` is off.
    """
    innocuous = getattr(apsw, "SQLITE_INNOCUOUS", 0x200000)
    conn.create_scalar_function(FTS_FUNCTION, _sql_fts_text, 1, deterministic=True,
                                flags=innocuous)
    conn.create_scalar_function(FTS_BODY, _sql_fts_body, 3, deterministic=True,
                                flags=innocuous)
    conn.create_scalar_function(ENTRY_TERMS_FUNCTION, _sql_entry_terms, 5, deterministic=True,
                                flags=innocuous)
    conn.create_scalar_function(DOC_LENGTH_FUNCTION, _sql_doc_length, 5, deterministic=True,
                                flags=innocuous)


TOKENIZER = "porter unicode61 remove_diacritics 2"
# The index only selects candidates: ``search.ranked`` scores them from the
# entries' own text, so FTS5 keeps no more than which entries hold a term.
# ``detail=none`` drops token positions and columns (a phrase or NEAR query
# cannot run, and none is made: see ``match_term``), and ``columnsize=0``
# the per-row token counts only FTS5's own bm25() reads. Measured in
# docs/performance.md ("Storage, schema 6"): 223 → 78 bytes per short note.
INDEX_OPTIONS = f"content='', detail=none, columnsize=0, tokenize='{TOKENIZER}'"
INDEX_TABLE = ("CREATE VIRTUAL TABLE IF NOT EXISTS entries_fts USING fts5("
               f"title, summary, body, {INDEX_OPTIONS})")
# FTS5 merges this many segments of one level into the next: its default.
# Every write's commit flushes a segment of one note, and 2 (schema 6's
# choice, a few bytes fewer per note) rewrote each note's postings about
# twice as often: measured in docs/performance.md ("The writer thread: the
# audit rows, the index's merging, the event copy") on the writer thread's
# instructions and the bytes per note. Applied at every open (INDEX_SETTINGS): nothing to migrate.
AUTOMERGE = 4
INDEX_SETTINGS = (f"INSERT INTO entries_fts(entries_fts, rank) VALUES ('automerge', {AUTOMERGE});"  # noqa: S608 (a constant of ours)
                  # Removed text must not linger in the index's pages either.
                  " INSERT INTO entries_fts(entries_fts, rank) VALUES ('secure-delete', 1);")


def ensure_index(conn: apsw.Connection) -> bool:
    """Make ``entries_fts`` the index INDEX_TABLE describes, holding every
    entry; True if it was (re)built.

    Called inside the opening transaction. An index built with another
    tokenizer or other options is dropped first: with ``secure_delete`` on,
    its pages are zeroed as they are freed, so no token of removed text
    survives the rebuild.
    """
    rows = list(conn.execute(
        "SELECT sql FROM sqlite_master WHERE type = 'table' AND name = 'entries_fts'"))
    if rows:
        sql = rows[0]["sql"] if isinstance(rows[0], dict) else rows[0][0]
        if INDEX_OPTIONS in str(sql):
            return False
        conn.execute("DROP TABLE entries_fts")
    conn.execute(INDEX_TABLE)
    rebuild_index(conn)
    return True


def rebuild_index(conn: apsw.Connection) -> None:
    """Re-tokenise every entry into a freshly created ``entries_fts``.

    A summary that is the body itself (``summary_text`` NULL) adds no token
    the body does not: with ``detail=none`` the index holds the same set of
    (term, entry) pairs either way, so only a summary of its own is indexed.
    """
    columns = {str(r["name"] if isinstance(r, dict) else r[1])
               for r in conn.execute("PRAGMA table_xinfo(entries)")}
    # A store migrated from before entries kept a context has none to index.
    more = ("context, observed_at" if "context" in columns else "NULL, NULL")
    conn.execute(
        "INSERT INTO entries_fts(rowid, title, summary, body)"  # noqa: S608 (our names)
        " SELECT key, memoryd_fts_text(title), memoryd_fts_text(summary_text),"
        f" {FTS_BODY}(body, {more}) FROM entries")


def query_terms(text: str) -> tuple[list[str], int]:
    """Distinct terms of a query, in order, and how many stop words were dropped.

    A term is a word as the query spells it (lower-cased; CJK runs as
    their characters or bigrams): the index's own tokenizer folds it
    exactly as it folded the documents (``index_terms``; on PostgreSQL,
    ``plainto_tsquery``). ``_fold`` only names a word for the stop list and
    for de-duplication: it is near unicode61's folding, not the same
    ("Straße" folds to "strasse" here, to "straße" there)."""
    terms: list[str] = []
    seen: set[str] = set()
    stopped = 0
    for m in _WORD.finditer(text):
        word = m.group(0)
        pieces: list[tuple[str, str]] = []  # (name, term)
        for part in re.split(f"([{_CJK_CLASS}]+)", word):
            if not part:
                continue
            if _is_cjk(part[0]):
                grams = [part] if len(part) == 1 else [part[i:i + 2]
                                                      for i in range(len(part) - 1)]
                pieces.extend((g, g) for g in grams)
            else:
                pieces.append((_fold(part), part.lower()))
        for name, piece in pieces:
            if name in STOP_WORDS or all(ch in STOP_CJK for ch in name):
                stopped += 1
                continue
            if len(piece) > MAX_TERM_CHARS or name in seen:
                continue
            seen.add(name)
            terms.append(piece)
            if len(terms) >= MAX_TERMS:
                return terms, stopped
    return terms, stopped


def quote(term: str) -> str:
    """An FTS5 string literal: the term can never be read as query syntax."""
    return '"' + term.replace('"', '""') + '"'


@functools.cache
def _query_tokenizer() -> tuple[threading.Lock, apsw.FTS5Tokenizer]:
    # The index's own tokenizer, on a private in-memory connection (one
    # thread at a time may use it): what FTS5 makes of a query term, and
    # of the words ranking counts (``tokenize``).
    conn = apsw.Connection(":memory:")
    return threading.Lock(), conn.fts5_tokenizer("porter", TOKENIZER.split()[1:])


def match_term(term: str) -> str:
    """The MATCH expression for one query term: its quoted string when the
    index's tokenizer reads it as one token, else its pieces joined by AND.

    An index without positions (``detail=none``) refuses a quoted string of
    several tokens, which is a phrase query. A term of ``query_terms`` is one
    run of letters and digits, one token for ASCII; folding can still turn
    another character into several (``½`` folds to ``1⁄2``, which unicode61
    splits at the fraction slash). Such a term matches the entries holding
    all its pieces, as ``plainto_tsquery`` does on PostgreSQL.
    """
    if term.isascii():
        return quote(term)
    lock, tokenizer = _query_tokenizer()
    raw = term.encode()
    with lock:
        found = tokenizer(raw, apsw.FTS5_TOKENIZE_QUERY, None, include_offsets=True,
                          include_colocated=False)
    # With offsets, each token is (start, end, text): byte offsets into raw.
    spans = [(int(t[0]), int(t[1])) for t in cast(list[tuple[int, int, str]], found)]
    if len(spans) <= 1:
        return quote(term)
    pieces = dict.fromkeys(raw[start:end].decode() for start, end in spans)
    return "(" + " AND ".join(quote(piece) for piece in pieces) + ")"


def tokenize(raw: bytes) -> list[str]:
    """The tokens the index's tokenizer (porter over unicode61) makes of
    UTF-8 ``raw``, in order: folded, diacritics removed, English words stemmed."""
    lock, tokenizer = _query_tokenizer()
    with lock:
        found = tokenizer(raw, apsw.FTS5_TOKENIZE_DOCUMENT, None, include_offsets=False,
                          include_colocated=False)
    return cast(list[str], found)


@functools.cache
def _word_tokenizer() -> tuple[threading.Lock, apsw.FTS5Tokenizer]:
    # The index's tokenizer less its stemmer (unicode61 with the index's
    # options), on a private in-memory connection, one thread at a time.
    conn = apsw.Connection(":memory:")
    name, *options = TOKENIZER.split()[1:]
    return threading.Lock(), conn.fts5_tokenizer(name, options)


def folded_words(text: str) -> list[str]:
    """The words of ``text`` as the index's tokenizer reads them before it
    stems them, in order: split where unicode61 splits, case folded,
    diacritics removed ("Café" → "cafe"), every ending kept ("exported"
    stays "exported"). Not pre-split: a CJK run is one word here."""
    lock, tokenizer = _word_tokenizer()
    with lock:
        found = tokenizer(text.encode("utf-8", "surrogatepass"), apsw.FTS5_TOKENIZE_DOCUMENT,
                          None, include_offsets=False, include_colocated=False)
    return cast(list[str], found)


def index_tokens(text: str | None) -> list[str]:
    """The tokens the index holds for ``text``: pre-split (``fts_text``), then
    the index's own tokenizer (``tokenize``)."""
    if not text:
        return []
    return tokenize(fts_text(text).encode("utf-8", "surrogatepass"))


def index_terms(terms: Iterable[str]) -> tuple[str, ...]:
    """What the index holds for query terms (``query_terms``' pieces, CJK
    already split): each term's tokens (its stem for an English word), in
    order, each once. Scoring counts these, the terms that selected the
    candidates, so an entry found through a stem ("painting" for "paint")
    scores as one found through the word itself."""
    out: dict[str, None] = {}
    for term in terms:
        out.update(dict.fromkeys(tokenize(term.encode("utf-8", "surrogatepass"))))
    return tuple(out)


# In ASCII text a token is a run of letters and digits, lowered, then
# stemmed: the ranker's fast path (``TermCounter``) looks for the runs whose
# stem is a term.
_ASCII_TOKEN = re.compile(r"[a-z0-9]+")


def term_counts(text: str | None) -> Counter[str]:
    """How often each token of ``index_tokens(text)`` occurs. Nothing is
    cached: no word of a text stays in memory after the call."""
    if not text:
        return Counter()
    return Counter(index_tokens(text))


def _ascii_tokens(text: str) -> str | None:
    """``text`` as ASCII with the same tokens, or None when it has none:
    ASCII text itself, or ASCII text ending in the ellipsis of a cut summary
    (a separator)."""
    if text.isascii():
        return text
    if text[-1] == "\u2026" and text[:-1].isascii():
        return text[:-1]
    return None


# ASCII text's tokens through bytes: each letter lowered, each digit kept,
# every other byte a space. What is left between the spaces are the
# ``[a-z0-9]`` runs of the text's lower case: its tokens before stemming.
_TOKEN_BYTES = bytes(b + 32 if 65 <= b <= 90 else b if 48 <= b <= 57 or 97 <= b <= 122 else 32
                     for b in range(256))


def spaced_tokens(text: str) -> bytes:
    """ASCII ``text``'s runs of ``[a-z0-9]`` (lowered) as bytes, with a space
    before the first, after the last, and at least two between any two: each
    occurrence of a run ``w`` is then one non-overlapping occurrence of
    ``b" w "``, so ``count`` counts it, with no object made per token."""
    return (" " + text + " ").encode("ascii").translate(_TOKEN_BYTES).replace(b" ", b"  ")


def form_prefix(stem: str) -> str:
    """How every word whose Porter stem is ``stem`` starts: the stem itself,
    or the stem less its last letter when that letter is one a rewrite can
    leave where the word had another (``e`` of "hoping" → "hope", ``i`` of
    "happy" → "happi", ``l`` of "-bility" → "-bl"). Porter rewrites a word's
    end only, never its first letter; a property test holds this against
    the tokenizer."""
    return stem[:-1] if len(stem) > 1 and stem[-1] in "eil" else stem


class TermCounter:
    """Counts one plan's index terms (``index_terms``: stems, CJK unigrams
    and bigrams) in candidate texts, equal to ``term_counts`` for those
    terms (a property test holds it).

    Text outside ASCII is tokenised in full by the index's own tokenizer
    (``term_counts``). In ASCII text (nearly every stored text) only the
    words that can stem to a term are looked at (``occurrences``): those
    that start with its ``form_prefix``, found by a search in C per term,
    and their distinct forms stemmed in one call of the tokenizer."""

    __slots__ = ("ascii_terms", "prefixes", "slot")

    def __init__(self, terms: tuple[str, ...]) -> None:
        # An ASCII text's tokens are the stems of its runs of [a-z0-9] once
        # lowered; a term of anything else can never equal one of them.
        self.ascii_terms = {t: i for i, t in enumerate(terms) if _ASCII_TOKEN.fullmatch(t)}
        self.slot = {t: i for i, t in enumerate(terms)}
        # How each word that can stem to a term starts, after its space.
        self.prefixes = tuple(dict.fromkeys(b" " + form_prefix(t).encode()
                                            for t in self.ascii_terms))

    def occurrences(self, spaced: bytes) -> list[tuple[int, int]]:
        """Each word of ``spaced`` (``spaced_tokens`` or ``_joined_tokens``)
        whose stem is a term, as (offset of the space before it, the term's
        slot), in no particular order."""
        words: dict[int, bytes] = {}
        find = spaced.find
        for prefix in self.prefixes:
            at = find(prefix)
            while at >= 0:
                end = find(b" ", at + 1)  # the text ends with a space
                words[at] = spaced[at + 1:end]
                at = find(prefix, end)
        if not words:
            return []
        distinct = list(set(words.values()))
        stems = tokenize(b" ".join(distinct))
        assert len(stems) == len(distinct)  # one token per ASCII word
        slots = self.ascii_terms
        slot_of = {word: slots[stem] for word, stem in zip(distinct, stems, strict=True)
                   if stem in slots}
        return [(at, slot_of[word]) for at, word in words.items() if word in slot_of]

    def add(self, text: str, weight: float, tf: list[float]) -> None:
        """Add ``weight`` times each term's count in ``text`` to its slot of ``tf``
        (slots in the order of the terms given)."""
        plain = _ascii_tokens(text) if text else ""
        if plain is not None:
            if self.prefixes:
                for _at, i in self.occurrences(spaced_tokens(plain)):
                    tf[i] += weight
            return
        counts = term_counts(text)
        for t, i in self.slot.items():
            found = counts.get(t)
            if found:
                tf[i] += weight * found

    def counts(self, text: str | None) -> Counter[str]:
        """Each term's count in ``text`` (the terms it does not hold left out)."""
        if not text:
            return Counter()
        tf = [0.0] * len(self.slot)
        self.add(text, 1, tf)
        return Counter({t: int(tf[i]) for t, i in self.slot.items() if tf[i]})

    def add_all(self, texts: Sequence[str], weights: Sequence[float],
                tfs: dict[int, list[float]]) -> None:
        """Add ``weights[j]`` times each term's count in ``texts[j]`` to slot
        ``i`` of ``tfs[j]`` (made, every slot 0, for the first term
        ``texts[j]`` holds; a text that holds none gets no row): ``add`` for
        every text, with all the ASCII texts searched in one buffer.

        The buffer is the texts joined by single spaces, translated as
        ``spaced_tokens`` does (``_joined_tokens``): a text's tokens are its
        characters' offsets there. Only occurrences are visited in Python,
        not texts times terms: they are sorted by position and handed to
        their texts in one walk over the texts' lengths. A text outside ASCII
        is counted alone, in full, and left out of the buffer."""
        n_terms = len(self.slot)
        plain: Sequence[str] = texts
        if not all(map(str.isascii, texts)):
            plain = self._outside_ascii(texts, weights, tfs)
        if not self.prefixes:
            return
        joined = _joined_tokens(plain)
        # Each occurrence as its position shifted past the bits of a term's
        # slot, and the slot: one sort orders them by position.
        shift = n_terms.bit_length()
        slot_bits = (1 << shift) - 1
        found = sorted(at << shift | i for at, i in self.occurrences(joined))
        if not found:
            return
        lengths = list(map(len, plain))
        # Text j's characters lie after its leading space and before
        # offset ``end``, its trailing space (the next text's leading one).
        j = 0
        end = lengths[0] + 1
        for hit in found:
            at = hit >> shift
            while at >= end:
                j += 1
                end += lengths[j] + 1
            tf = tfs.get(j)
            if tf is None:
                tf = tfs[j] = [0.0] * n_terms
            tf[hit & slot_bits] += weights[j]

    def _outside_ascii(self, texts: Sequence[str], weights: Sequence[float],
                       tfs: dict[int, list[float]]) -> list[str]:
        """``add_all``'s look at each text outside ASCII: counted here in
        full and blanked in the texts the buffer takes (an ASCII text ending
        in an ellipsis goes there without it)."""
        n_terms = len(self.slot)
        plain = list(texts)
        for j, text in enumerate(texts):
            if text.isascii():
                continue
            ascii_text = _ascii_tokens(text)
            if ascii_text is not None:
                plain[j] = ascii_text
                continue
            plain[j] = ""
            counts = term_counts(text)
            for t, i in self.slot.items():
                found = counts.get(t)
                if found:
                    tf = tfs.get(j)
                    if tf is None:
                        tf = tfs[j] = [0.0] * n_terms
                    tf[i] += weights[j] * found
        return plain


def _joined_tokens(texts: Sequence[str]) -> bytes:
    """ASCII ``texts`` joined by single spaces, with a space before the
    first and after the last, as bytes translated by ``_TOKEN_BYTES``
    (``spaced_tokens`` without the doubled spaces): text ``j`` starts one
    byte after the end of text ``j - 1``. A token lies inside one text: the
    texts are tokenised as they are alone."""
    return b"".join((b" ", " ".join(texts).encode("ascii"), b" ")).translate(_TOKEN_BYTES)
