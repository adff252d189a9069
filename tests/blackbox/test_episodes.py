"""Black-box: a recalled entry brings the entry its task wrote next.

A conversation stored one turn an entry by an agent's task: the question's
words are in one turn, the answer in the next. ``memory.context`` finds the
answer through the turn it follows, only within the turn's own namespace
and task, and only what the caller may read. Runs on either backend
(``--backend postgresql``).
"""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from memoryd.daemon.retrieval import episodes, text_index
from memoryd.daemon.storage import pg_schema, sqlite_schema
from memoryd.daemon.storage.store_pg import translate
from memoryd.rpc.client import Client
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
)

CONFIG = '[recall]\nmax_entries = 5\nranker = "lexical"\n'
POLICY = """
[[rule]]
id = "agents-store-turns"
effect = "allow"
description = "agents store a conversation's turns"
capability = "MemoryWrite"
channel = "agent"
"""
QUESTION = "Where did you spend the holidays this year, in the end?"
ANSWER = "At my parents' place in Cornwall, walking by the sea."
INTENT = "where were the holidays spent"
TURNS = (QUESTION, ANSWER)


@pytest.fixture(scope="module")
def d() -> Iterator[Daemon]:
    with running(config=CONFIG, policy=POLICY) as daemon:
        with daemon.control() as c:
            enable_consent(c)
        yield daemon


def _write(a: Client, task: str, scope: str, title: str, body: str) -> str:
    out = a.call(
        "memory.write",
        {
            "task_id": task,
            "target": "memory",
            "scope": scope,
            "action": "add",
            "entry": entry(title, body, "fact"),
        },
    )
    assert out["outcome"] == "applied"
    return out["entries"][0]["id"]  # type: ignore[no-any-return]


def _begin(a: Client, scopes: list[str], **extra: Any) -> str:
    return a.call("task.begin", {"scopes": scopes, **extra})["task_id"]  # type: ignore[no-any-return]


def _cards(d: Daemon, scopes: list[str], **extra: Any) -> list[dict[str, Any]]:
    with d.agent() as a:
        task = _begin(a, scopes, **extra)
        return a.call("memory.context", {"task_id": task, "intent": INTENT})["entries"]  # type: ignore[no-any-return]


def test_the_answer_written_after_the_matched_question_is_recalled(d: Daemon) -> None:
    with d.agent() as a:
        task = _begin(a, ["chat"])
        _write(a, task, "chat", "Tom #0", "The new bike arrived on Tuesday.")
        question = _write(a, task, "chat", "Tom #1", QUESTION)
        answer = _write(a, task, "chat", "Maya #2", ANSWER)
        _write(a, task, "chat", "Tom #3", "We booked the plumber for Friday morning.")
    cards = _cards(d, ["chat"])
    # The answer shares no word with the intent: it is there through the
    # question, below it (half the question's score).
    assert [card["id"] for card in cards] == [question, answer]
    assert cards[1]["score"] == pytest.approx(cards[0]["score"] / 2, rel=1e-6)


def test_a_follower_that_matches_too_adds_both_scores(d: Daemon) -> None:
    """The same two turns, stored once by the operator (no episode) and once
    by an agent's task: in the task's scope the answer scores its own match
    plus half the question's."""
    answer = "The holidays? At my parents' place in Cornwall."
    with d.control() as c:
        for title, body in (("Tom #1", QUESTION), ("Maya #2", answer)):
            c.call(
                "memory.write",
                {"scope": "solo", "action": "add", "entry": entry(title, body, "fact")},
            )
    with d.agent() as a:
        task = _begin(a, ["pair"])
        for title, body in (("Tom #1", QUESTION), ("Maya #2", answer)):
            _write(a, task, "pair", title, body)
    alone = {card["title"]: card["score"] for card in _cards(d, ["solo"])}
    paired = {card["title"]: card["score"] for card in _cards(d, ["pair"])}
    assert alone["Maya #2"] > 0
    assert paired["Tom #1"] == pytest.approx(alone["Tom #1"], rel=1e-6)
    assert paired["Maya #2"] == pytest.approx(alone["Maya #2"] + alone["Tom #1"] / 2, rel=1e-6)


def test_turns_written_in_one_batch_follow_one_another_in_order(d: Daemon) -> None:
    """A session stored in one call: its turns share one moment, and follow
    one another in the order of the call's ops."""
    turns = [
        ("Tom #0", "The new bike arrived on Tuesday."),
        ("Tom #1", QUESTION),
        ("Maya #2", ANSWER),
        ("Tom #3", "We booked the plumber for Friday morning."),
    ]
    for _ in range(8):  # eight sessions: ids drawn at random must still keep the order
        with d.agent() as a:
            task = _begin(a, ["batched"])
            out = a.call(
                "memory.write",
                {
                    "task_id": task,
                    "action": "batch",
                    "ops": [
                        {
                            "action": "add",
                            "target": "memory",
                            "scope": "batched",
                            "entry": entry(title, body, "fact"),
                        }
                        for title, body in turns
                    ],
                },
            )
            ids = [e["id"] for e in out["entries"]]
            cards = _cards(d, ["batched"])
            assert [card["id"] for card in cards] == ids[1:3]
        with d.control() as c:
            for entry_id in ids:
                c.call(
                    "memory.write",
                    {
                        "scope": "batched",
                        "action": "remove",
                        "id": entry_id,
                        "expected_revision": 1,
                    },
                )


def test_only_the_next_entry_of_the_same_namespace_follows(d: Daemon) -> None:
    """An entry of another scope, written in between by the same task and
    readable by the asking task, neither takes the answer's place nor is shown."""
    with d.agent() as a:
        task = _begin(a, ["talk", "notes"])
        question = _write(a, task, "talk", "Tom #1", QUESTION)
        between = _write(a, task, "notes", "Errand", "Pick up the parcel at the post office.")
        answer = _write(a, task, "talk", "Maya #2", ANSWER)
    ids = [card["id"] for card in _cards(d, ["talk", "notes"])]
    assert ids == [question, answer]
    assert between not in ids


def test_another_tasks_writes_in_between_do_not_follow(d: Daemon) -> None:
    with d.agent() as a:
        mine, theirs = _begin(a, ["desk"]), _begin(a, ["desk"])
        question = _write(a, mine, "desk", "Tom #1", QUESTION)
        other = _write(a, theirs, "desk", "Standup", "The standup moves to half past nine.")
        answer = _write(a, mine, "desk", "Maya #2", ANSWER)
    ids = [card["id"] for card in _cards(d, ["desk"])]
    assert ids == [question, answer]
    assert other not in ids


def test_another_owners_turns_never_follow_mine(d: Daemon) -> None:
    """Another owner's task writes into a scope of the same name between my
    question and my answer, with the intent's words: my answer still follows
    my question, and nothing of theirs is shown to me."""
    other = fresh_identity("episodes-")
    with d.control() as c:
        enable_consent(c, other)
        token = c.call("token.issue", {"identity": other})["token"]
    with d.agent() as a, d.agent() as b:
        task = _begin(a, ["shared-name"])
        question = _write(a, task, "shared-name", "Tom #1", QUESTION)
        theirs = _begin(b, ["shared-name"], token=token)
        _write(b, theirs, "shared-name", "Their holidays", "The holidays were spent in Lisbon.")
        answer = _write(a, task, "shared-name", "Maya #2", ANSWER)
    assert [card["id"] for card in _cards(d, ["shared-name"])] == [question, answer]


def test_the_operators_notes_follow_nothing(d: Daemon) -> None:
    """Notes the operator writes one by one belong to no episode."""
    with d.control() as c:
        ids = [
            c.call(
                "memory.write",
                {"scope": "desk-notes", "action": "add", "entry": entry(title, body, "fact")},
            )["entries"][0]["id"]
            for title, body in (("Tom #1", QUESTION), ("Maya #2", ANSWER))
        ]
    assert [card["id"] for card in _cards(d, ["desk-notes"])] == ids[:1]


def test_a_removed_entry_is_brought_by_nothing(d: Daemon) -> None:
    with d.agent() as a:
        task = _begin(a, ["gone"])
        question = _write(a, task, "gone", "Tom #1", QUESTION)
        answer = _write(a, task, "gone", "Maya #2", ANSWER)
    with d.control() as c:
        c.call(
            "memory.write",
            {"scope": "gone", "action": "remove", "id": answer, "expected_revision": 1},
        )
    assert [card["id"] for card in _cards(d, ["gone"])] == [question]


def _a_conversation_is_recalled_after_the_upgrade(d: Daemon, old: list[str]) -> None:
    """Turns written before the upgrade follow nothing; a task's turns
    written after it do."""
    assert [card["id"] for card in _cards(d, ["chat"])] == old[:1]
    with d.agent() as a:
        task = _begin(a, ["later"])
        new = [_write(a, task, "later", f"Turn {n}", body) for n, body in enumerate(TURNS)]
    assert [card["id"] for card in _cards(d, ["later"])] == new


def _two_turns(d: Daemon) -> list[str]:
    with d.agent() as a:
        task = _begin(a, ["chat"])
        return [_write(a, task, "chat", f"Turn {n}", body) for n, body in enumerate(TURNS)]


def _followers_work(d: Daemon, prev: str) -> int:
    """The store's work to find ``prev``'s follower, as recall looks it up:
    SQLite's virtual-machine steps, or the entries PostgreSQL fetched
    through an index (this transaction's own count). Deterministic: it
    counts what was read, not how long it took."""
    pg = pg_store_of(d.home)
    if pg is not None:
        with pg_connect(*pg) as conn:
            # Planned as a store in use is (its statistics gathered), and
            # through an index, as at scale, not by a scan of a table this small.
            conn.execute("ANALYZE entries")
        with pg_connect(*pg) as conn, conn.transaction():
            conn.execute("SET LOCAL enable_seqscan = off")
            fetched = (
                "SELECT coalesce(idx_tup_fetch, 0) + coalesce(seq_tup_read, 0) AS n"
                " FROM pg_stat_xact_user_tables WHERE relname = 'entries'"
                " AND schemaname = current_schema()"
            )
            before = conn.execute(fetched).fetchone()[0]
            conn.execute(translate(episodes._NEXT), (f'["{prev}"]',)).fetchall()
            return int(conn.execute(fetched).fetchone()[0]) - int(before)
    conn = store_file(d.home / "memory.db", readonly=True)
    steps = [0]

    def count() -> bool:
        steps[0] += 1
        return False

    try:
        conn.set_progress_handler(count, 1)
        conn.execute(episodes._NEXT, (f'["{prev}"]',)).fetchall()
    finally:
        conn.close()
    return steps[0]


def test_the_followers_look_up_reads_nothing_of_the_writers_other_namespaces(d: Daemon) -> None:
    """Between a task's two entries of one namespace, its entries of another
    (a private scope the asking teammate cannot read) cost the look-up
    nothing: what it reads, and so the time it takes, tells no one how much
    the writer kept elsewhere."""
    with d.agent() as a:
        task = _begin(a, ["shared-space", "kept-apart"])
        lone = _write(a, task, "shared-space", "Gap none #1", "first of a pair")
        _write(a, task, "shared-space", "Gap none #2", "second of a pair")
        other = _begin(a, ["shared-space", "kept-apart"])
        gapped = _write(a, other, "shared-space", "Gap wide #1", "first of a pair")
        for at in range(0, 400, 50):
            a.call(
                "memory.write",
                {
                    "task_id": other,
                    "action": "batch",
                    "ops": [
                        {
                            "action": "add",
                            "target": "memory",
                            "scope": "kept-apart",
                            "entry": entry(f"Kept {n}", f"note number {n}", "fact"),
                        }
                        for n in range(at, at + 50)
                    ],
                },
            )
        _write(a, other, "shared-space", "Gap wide #2", "second of a pair")
    quiet, crowded = _followers_work(d, lone), _followers_work(d, gapped)
    assert crowded <= quiet + 8, (quiet, crowded)


# Statements that take a store written by this memoryd back to an older version.
# Version 11 (PostgreSQL 5): no episode, no proposal moment, no episode index.
BEFORE_EPISODES = (
    "DROP INDEX entries_episode",
    "ALTER TABLE entries DROP COLUMN episode",
    "ALTER TABLE entries DROP COLUMN proposed_at",
)
# Version 12 (PostgreSQL 6): the episode index keyed by episode alone.
BEFORE_NAMESPACE_KEY = (
    "DROP INDEX entries_episode",
    "ALTER TABLE entries DROP COLUMN proposed_at",
    "CREATE INDEX entries_episode ON entries(episode, created_at, id)"
    " WHERE status = 'active' AND episode IS NOT NULL",
)


def _downgraded(
    root: Path, version: int, statements: tuple[str, ...], *, postgresql: bool
) -> tuple[Daemon, list[str]]:
    """A store this memoryd wrote (two turns of one task), taken back to
    ``version`` by ``statements``, and a daemon started on it: the turns."""
    config = CONFIG + (pg_store_section() if postgresql else "")
    d = Daemon(root / "h", config=config, policy=POLICY, ranker="lexical")
    d.start()
    try:
        with d.control() as c:
            enable_consent(c)
        turns = _two_turns(d)
    finally:
        d.stop()
    pg = pg_store_of(d.home)
    if pg is not None:
        with pg_connect(*pg) as conn:
            for statement in statements:
                conn.execute(statement)
            conn.execute("UPDATE meta SET value = %s WHERE key = 'schema_version'", (str(version),))
        config = CONFIG + pg_store_section(pg[1])
    else:
        conn = store_file(d.home / "memory.db")
        text_index.register(conn)
        try:
            with conn:
                for statement in statements:
                    conn.execute(statement)
                conn.execute(
                    "UPDATE meta SET value = ? WHERE key = 'schema_version'", (str(version),)
                )
        finally:
            conn.close()
    d = Daemon(root / "h", config=config, policy=POLICY, ranker="lexical")
    d.start()
    return d, turns


def _opened_as_now(d: Daemon) -> None:
    """The store is at this memoryd's version, its episode index keyed by
    namespace and ordered by when each entry was written."""
    pg = pg_store_of(d.home)
    if pg is not None:
        with pg_connect(*pg) as conn:
            (version,) = conn.execute(
                "SELECT value FROM meta WHERE key = 'schema_version'"
            ).fetchone()
            (index,) = conn.execute(
                "SELECT indexdef FROM pg_indexes WHERE schemaname = current_schema()"
                " AND indexname = 'entries_episode'"
            ).fetchone()
        expected = pg_schema.SCHEMA_VERSION
    else:
        conn = store_file(d.home / "memory.db")
        try:
            (version,) = conn.execute(
                "SELECT value FROM meta WHERE key = 'schema_version'"
            ).fetchone()
            (index,) = conn.execute(
                "SELECT sql FROM sqlite_master WHERE name = 'entries_episode'"
            ).fetchone()
        finally:
            conn.close()
        expected = sqlite_schema.SCHEMA_VERSION
    assert version == str(expected)
    key = "episode, owner, target, scope, coalesce(proposed_at, created_at), id"
    assert key in index.lower(), index


@pytest.mark.parametrize(
    ("version", "postgresql"),
    [
        pytest.param(11, False, marks=pytest.mark.sqlite_only("rewrites a SQLite store's file")),
        (5, True),
    ],
    ids=["sqlite_11", "postgresql_5"],
)
def test_a_store_from_before_episodes_is_migrated_to_keep_them(
    version: int, postgresql: bool
) -> None:
    root = short_tempdir()
    try:
        d, old = _downgraded(root, version, BEFORE_EPISODES, postgresql=postgresql)
        try:
            _a_conversation_is_recalled_after_the_upgrade(d, old)
        finally:
            d.stop()
        _opened_as_now(d)
    finally:
        shutil.rmtree(root, ignore_errors=True)


@pytest.mark.parametrize(
    ("version", "postgresql"),
    [
        pytest.param(12, False, marks=pytest.mark.sqlite_only("rewrites a SQLite store's file")),
        (6, True),
    ],
    ids=["sqlite_12", "postgresql_6"],
)
def test_an_episode_index_keyed_by_episode_alone_is_keyed_by_namespace_when_opened(
    version: int, postgresql: bool
) -> None:
    root = short_tempdir()
    try:
        d, turns = _downgraded(root, version, BEFORE_NAMESPACE_KEY, postgresql=postgresql)
        try:
            assert [card["id"] for card in _cards(d, ["chat"])] == turns
        finally:
            d.stop()
        _opened_as_now(d)
    finally:
        shutil.rmtree(root, ignore_errors=True)


def test_turns_approved_in_any_order_follow_one_another_as_the_task_wrote_them() -> None:
    """Under the default policy an agent's writes wait for the operator, who
    may approve them in any order: each entry keeps its place in the episode
    from the moment the task proposed it, not the moment it was approved."""
    with running(config=CONFIG) as d:
        with d.control() as c:
            enable_consent(c)
        with d.agent() as a:
            task = _begin(a, ["approved"])
            actions = []
            for n, body in enumerate(TURNS):
                out = a.call(
                    "memory.write",
                    {
                        "task_id": task,
                        "target": "memory",
                        "scope": "approved",
                        "action": "add",
                        "entry": entry(f"Turn {n}", body, "fact"),
                    },
                )
                assert out["outcome"] == "pending"
                actions.append(out["action_id"])
        with d.control() as c:
            ids = {
                n: c.call("governance.action.approve", {"action_id": action})["entries"][0]["id"]
                for n, action in reversed(list(enumerate(actions)))
            }
        assert [card["id"] for card in _cards(d, ["approved"])] == [ids[0], ids[1]]
