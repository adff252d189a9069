"""Black-box: recall finds what the index matched, an entry's context and its time.

An entry found through a stem scores on it; an entry's ``context`` (the turn
before it, say) is searched with it but not shown as its body, is scanned,
counted in the scope's budget and destroyed with it; ``observed_at`` (the
time the entry speaks of) is checked, shown, filterable and searchable in
words. Runs on either backend (``--backend postgresql``).
"""

from __future__ import annotations

import secrets
import shutil
from collections.abc import Iterator
from typing import Any

import pytest

from memoryd.daemon.storage import pg_schema
from memoryd.rpc.client import Client, RpcError
from tests.blackbox.test_deletion import hits
from tests.harness import (
    GITHUB_TOKEN,
    Daemon,
    enable_consent,
    entry,
    exported_audit,
    pg_connect,
    pg_store_of,
    pg_store_section,
    running,
    short_tempdir,
)

CONFIG = (
    "scope_budget_bytes = 4000\n"
    '[recall]\nmax_entries = 3\nmax_intent_chars = 4096\nranker = "lexical"\n'
)


@pytest.fixture(scope="module")
def d() -> Iterator[Daemon]:
    with running(config=CONFIG) as daemon:
        with daemon.control() as c:
            enable_consent(c)
        yield daemon


def _add(c: Client, scope: str, title: str, body: str, **extra: Any) -> dict[str, Any]:
    out = c.call(
        "memory.write",
        {
            "target": "memory",
            "scope": scope,
            "action": "add",
            "entry": entry(title, body, "fact", **extra),
        },
    )
    return out["entries"][0]  # type: ignore[no-any-return]


def _recall(d: Daemon, scope: str, intent: str) -> dict[str, Any]:
    with d.agent() as a:
        task = a.call("task.begin", {"scopes": [scope]})["task_id"]
        return a.call("memory.context", {"task_id": task, "intent": intent})  # type: ignore[no-any-return]


def _ids(snapshot: dict[str, Any]) -> list[str]:
    return [card["id"] for card in snapshot["entries"]]


def test_an_entry_found_only_through_its_stem_is_recalled_first(d: Daemon) -> None:
    with d.control() as c:
        painted = _add(c, "stems", "Weekend", "She spent Sunday painting seascapes.")
        lunch = _add(c, "stems", "Lunch", "Paint supplier lunch.")
        explored = _add(c, "stems", "Trip", "They explored the old harbour caves.")
        _add(c, "stems", "Other", "Nothing about that here.")
    got = _recall(d, "stems", "where did they explore")
    assert _ids(got) == [explored["id"]]
    assert got["entries"][0]["score"] > 0
    # The entry holding only an inflected form scores on the stem, as the
    # one holding the word itself does.
    got = _recall(d, "stems", "what does she paint")
    assert sorted(_ids(got)) == sorted([painted["id"], lunch["id"]])
    assert all(card["score"] > 0 for card in got["entries"])


def test_a_neighbour_turn_question_finds_the_answer_through_its_context(d: Daemon) -> None:
    question = "What did you do at the weekend?"
    with d.control() as c:
        answer = _add(c, "turns", "Turn 12", "Pottery class, I made a bowl.", context=question)
        _add(c, "turns", "Turn 40", "Pottery is messy work.")
        read = c.call("memory.read", {"ids": [answer["id"]]})["entries"][0]
    assert read["context"] == question
    assert read["body"] == "Pottery class, I made a bowl."
    snapshot = _recall(d, "turns", "what did you do at the weekend")
    assert _ids(snapshot) == [answer["id"]]
    # Found by its context, never shown in the card or the rendered lines.
    assert "weekend" not in str(snapshot["entries"]).lower()
    assert "weekend" not in snapshot["rendered"].lower()


def test_observed_at_is_checked_shown_filterable_and_found_in_words(d: Daemon) -> None:
    with d.control() as c:
        march = _add(
            c,
            "when",
            "Gallery",
            "Visited the gallery with Ana.",
            observed_at="2025-03-08T14:05:00Z",
        )
        may = _add(c, "when", "Garden", "Planted tomatoes with Ana.", observed_at="2025-05-20")
        _add(c, "when", "Undated", "Ana likes tomatoes and galleries.")
        for bad in ("2025-13-01", "yesterday", "2025-02-30", "2025-03-08T25:00"):
            with pytest.raises(RpcError) as err:
                _add(c, "when", f"Bad {bad}", "x", observed_at=bad)
            assert err.value.code == -32602
            assert "observed_at" in str(err.value.data)
        read = c.call("memory.read", {"ids": [march["id"], may["id"]]})["entries"]
        assert [e["observed_at"] for e in read] == ["2025-03-08T14:05:00Z", "2025-05-20"]
        listed = c.call("memory.list", {"scope": "when", "observed_after": "2025-04-01"})
        assert [i["id"] for i in listed["items"]] == [may["id"]]
        listed = c.call("memory.list", {"scope": "when", "observed_before": "2025-04-01"})
        assert [i["id"] for i in listed["items"]] == [march["id"]]
        searched = c.call(
            "memory.list",
            {
                "query": "Ana",
                "scope": "when",
                "observed_after": "2025-01-01",
                "observed_before": "2025-12-31",
            },
        )
        assert sorted(i["id"] for i in searched["items"]) == sorted([march["id"], may["id"]])
        with pytest.raises(RpcError) as err:
            c.call("memory.list", {"scope": "when", "observed_after": "March"})
        assert err.value.code == -32602
    snapshot = _recall(d, "when", "what did Ana do in March")
    assert _ids(snapshot)[0] == march["id"]
    assert snapshot["entries"][0]["observed_at"] == "2025-03-08T14:05:00Z"
    assert '"observed_at":"2025-03-08T14:05:00Z"' in snapshot["rendered"]
    assert _ids(_recall(d, "when", "what happened on a Saturday"))[0] == march["id"]


def test_a_secret_in_the_context_is_refused_and_nothing_is_stored(d: Daemon) -> None:
    with d.control() as c:
        with pytest.raises(RpcError) as err:
            _add(
                c,
                "secrets",
                "Setup",
                "Configured the deploy key.",
                context=f"use {GITHUB_TOKEN} for pushes",
            )
        assert err.value.data_code == "secret_detected"
        assert c.call("memory.list", {"scope": "secrets"})["items"] == []
    assert hits(d, [GITHUB_TOKEN.encode()]) == []


def test_context_bytes_count_in_the_scope_budget(d: Daemon) -> None:
    with d.control() as c:
        _add(c, "budget", "A", "short body", context="c" * 3_000)
        with pytest.raises(RpcError) as err:
            _add(c, "budget", "B", "short body", context="d" * 1_000)
        assert err.value.data_code == "scope_budget_exceeded"
        # The same entry without its context fits.
        assert _add(c, "budget", "B", "short body")["id"]


def test_a_removed_entrys_context_is_gone_from_the_index_and_every_file(d: Daemon) -> None:
    canary = "zq" + secrets.token_hex(12)
    needles = [canary.encode(), canary.upper().encode(), canary[6:].encode()]
    with d.control() as c:
        e = _add(
            c,
            "removal",
            "Turn 3",
            "Sure, see you then.",
            context=f"meet at {canary}?",
            observed_at="2025-03-08",
        )
        e = c.call(
            "memory.write",
            {
                "scope": "removal",
                "action": "replace",
                "id": e["id"],
                "expected_revision": 1,
                "entry": entry(
                    "Turn 3", "Sure, see you then.", "fact", context=f"meet near {canary}?"
                ),
            },
        )["entries"][0]
        assert [i["id"] for i in c.call("memory.list", {"query": canary})["items"]] == [e["id"]]
        assert hits(d, needles)  # the scan does find it while it is stored
        out = c.call(
            "memory.write",
            {
                "scope": "removal",
                "action": "remove",
                "id": e["id"],
                "expected_revision": e["revision"],
            },
        )
        assert out["receipt"]["status"] == "verified"
        assert c.call("memory.list", {"query": canary})["items"] == []
    assert hits(d, needles) == []


def test_no_context_text_in_the_log_audit_or_status(d: Daemon) -> None:
    canary = "CANARY" + secrets.token_hex(6)
    with d.control() as c:
        e = _add(
            c,
            "canary",
            "Turn 9",
            "Yes, twice.",
            context=f"did you visit {canary}",
            observed_at="2024-11-02",
        )
        c.call("memory.list", {"query": canary})
        c.call("memory.list", {"scope": "canary", "observed_after": "2024-01-01"})
        snapshot = _recall(d, "canary", f"visit {canary}")
        assert _ids(snapshot) == [e["id"]]
        status = c.call("memory.status", {})
        audit = exported_audit(c)
        assert canary in c.call("memory.read", {"ids": [e["id"]]})["entries"][0]["context"]
    assert canary not in str(status)
    assert canary not in audit
    assert canary.lower() not in audit.lower()
    assert canary not in d.log()
    assert canary not in str(snapshot)


def test_a_version_2_postgresql_schema_is_migrated_to_keep_context_and_time() -> None:
    """PostgreSQL's schema version 2 had no context or observed time: opening
    it adds them in one transaction, every memory stays searchable, and new
    entries are indexed with both."""
    root = short_tempdir()
    try:
        dm = Daemon(root / "h", config=pg_store_section(), ranker="lexical")
        dm.start()
        with dm.control() as c:
            kept = _add(c, "v2", "Herons", "Herons fish in the shallows.")
        dm.stop()
        pg = pg_store_of(dm.home)
        assert pg is not None
        with pg_connect(*pg) as conn:
            for table in ("entries", "revisions"):
                conn.execute(f"ALTER TABLE {table} DROP COLUMN context, DROP COLUMN observed_at")
            conn.execute("UPDATE meta SET value = '2' WHERE key = 'schema_version'")
        dm = Daemon(root / "h", config=pg_store_section(pg[1]), ranker="lexical")
        dm.start()
        with dm.control() as c:
            found = c.call("memory.list", {"query": "herons"})["items"]
            assert [i["id"] for i in found] == [kept["id"]]
            turn = _add(
                c,
                "v2",
                "Turn 2",
                "Yes, by the lake.",
                context="Did you see the cormorants?",
                observed_at="2025-03-08",
            )
            for query in ("cormorants", "March 2025"):
                found = c.call("memory.list", {"query": query})["items"]
                assert [i["id"] for i in found] == [turn["id"]], query
        dm.stop()
        with pg_connect(*pg) as conn:
            version = conn.execute("SELECT value FROM meta WHERE key = 'schema_version'").fetchone()
        assert version == (str(pg_schema.SCHEMA_VERSION),)
    finally:
        shutil.rmtree(root, ignore_errors=True)
