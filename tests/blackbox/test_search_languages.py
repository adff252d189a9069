"""A word is found as its writer wrote it, in any language, on both backends.

Accents, ß, Greek tonos, Vietnamese tone marks and Devanagari vowel signs
are part of how people write: a query that spells a word the way the note
does finds the note, through search and through ``memory.context``. A
word inside a version, an address, a path, a host name or an identifier is
a word of its own on both backends, as unicode61 splits it ("syslog" finds
``/var/log/syslog``). On
SQLite the index also folds accents away (``cafe`` finds ``café``);
PostgreSQL's english configuration keeps them (docs/postgresql.md).
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.harness import Daemon, backend, enable_consent, entry, running

NOTES = {
    "Café": "Rendez-vous au café avec Zoé à São Paulo, réunion à midi.",
    "Deutsch": "Die Größe der Straße und die Bäume vor dem Büro.",
    "Ελληνικά": "Η συνάντηση είναι αύριο στο γραφείο.",
    "Tiếng Việt": "Cuộc họp ngày mai ở văn phòng.",
    "हिंदी": "कल सुबह बैठक है, नमस्ते दोस्तों।",
    "Русский": "Встреча завтра в офисе, ёлка во дворе.",
    "Upgrade": "Upgraded the cluster to 1.29 and Python to 3.12.1 on 10.0.0.1.",
    "Runbook": "Check /var/log/syslog on db-07.internal, the panel at "
    "https://grafana.example.com/d/latency, then mail oncall@example.com; "
    "settings live in haproxy.cfg and RETRY_LIMIT.",
}

# A word of each note, spelt as the note spells it.
AS_WRITTEN = [
    ("café", "Café"),
    ("Zoé", "Café"),
    ("réunion", "Café"),
    ("São", "Café"),
    ("Größe", "Deutsch"),
    ("Straße", "Deutsch"),
    ("Bäume", "Deutsch"),
    ("συνάντηση", "Ελληνικά"),
    ("αύριο", "Ελληνικά"),
    ("họp", "Tiếng Việt"),
    ("văn phòng", "Tiếng Việt"),
    ("बैठक", "हिंदी"),
    ("नमस्ते", "हिंदी"),
    ("ёлка", "Русский"),
    ("Встреча", "Русский"),
    ("1.29", "Upgrade"),
    ("3.12.1", "Upgrade"),
    ("10.0.0.1", "Upgrade"),
    ("syslog", "Runbook"),
    ("grafana", "Runbook"),
    ("latency", "Runbook"),
    ("oncall", "Runbook"),
    ("haproxy", "Runbook"),
    ("RETRY_LIMIT", "Runbook"),
    ("db-07.internal", "Runbook"),
]


@pytest.fixture(scope="module")
def d() -> Iterator[Daemon]:
    with running() as daemon:
        with daemon.control() as c:
            enable_consent(c)
            for title, body in NOTES.items():
                c.call("memory.write", {"action": "add", "entry": entry(title, body, "fact")})
        yield daemon


@pytest.mark.parametrize(("query", "title"), AS_WRITTEN, ids=[q for q, _ in AS_WRITTEN])
def test_a_word_spelt_as_written_is_found(d: Daemon, query: str, title: str) -> None:
    with d.control() as c:
        found = c.call("memory.list", {"mode": "search", "query": query})["items"]
    assert [i["title"] for i in found] == [title]


def test_the_context_of_a_task_finds_accented_words(d: Daemon) -> None:
    with d.agent() as a:
        task = a.call("task.begin", {})["task_id"]
        snap = a.call("memory.context", {"task_id": task, "intent": "Größe, Straße"})
    assert [card["title"] for card in snap["entries"]] == ["Deutsch"]


@pytest.mark.parametrize(
    ("query", "title"),
    [("cafe", "Café"), ("reunion", "Café"), ("Strasse", None), ("Baume", "Deutsch")],
)
def test_sqlite_folds_accents_away(d: Daemon, query: str, title: str | None) -> None:
    if backend() != "sqlite":
        pytest.skip("PostgreSQL's english configuration keeps accents (docs/postgresql.md)")
    with d.control() as c:
        found = c.call("memory.list", {"mode": "search", "query": query})["items"]
    # ß is a letter of its own, not an s with a mark: "Strasse" is another word.
    assert [i["title"] for i in found] == ([title] if title else [])
