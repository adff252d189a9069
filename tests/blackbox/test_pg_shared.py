"""Two daemons, two homes, one PostgreSQL database: memory shared across hosts.

Each daemon is a real ``memoryd serve`` on its own home (as on two hosts);
both homes hold the same root secret (the operator copies ``keys/secret``)
and point ``[store]`` at one schema. What one writes the other recalls; a
pending action is decided exactly once whichever daemon is asked; both append
to one audit chain that verifies from either home, with each daemon's own
signed checkpoints; a daemon with another root secret is refused. Hybrid
recall holds across them: an entry added on one is embedded once and recalled
by vector on both, and one removed, archived or changed on one is never
recalled from the other's vector index.
"""

from __future__ import annotations

import shutil
import threading
import time
import uuid
from collections.abc import Iterator
from typing import Any

import pytest

from memoryd.rpc.client import Client, RpcError
from tests.harness import (
    Daemon,
    enable_consent,
    entry,
    fresh_identity,
    shared_pair_on_fresh_schema,
    short_tempdir,
    team_member_and_outsider,
)


@pytest.fixture(scope="module")
def pair() -> Iterator[tuple[Daemon, Daemon]]:
    yield from shared_pair_on_fresh_schema(ranker="lexical")


def test_status_names_the_shared_backend_without_its_dsn(pair: tuple[Daemon, Daemon]) -> None:
    for d in pair:
        with d.control() as c:
            status = c.call("memory.status", {})
        assert status["backend"]["kind"] == "postgresql"
        assert status["backend"]["sharing"] == "multi-host"
        assert status["backend"]["health"] == "ok"
        assert "127.0.0.1" not in str(status) and "dbname" not in str(status)


def test_what_one_daemon_writes_the_other_recalls(pair: tuple[Daemon, Daemon]) -> None:
    first, second = pair
    word = "kestrel" + uuid.uuid4().hex[:6]
    with first.control() as c:
        enable_consent(c)
        made = c.call(
            "memory.write",
            {
                "target": "memory",
                "action": "add",
                "entry": entry(f"Bird {word}", f"A {word} hovers."),
            },
        )
    with second.control() as c:
        page = c.call("memory.list", {"query": word})
        got = c.call("memory.read", {"ids": [made["entries"][0]["id"]]})
    assert [i["title"] for i in page["items"]] == [f"Bird {word}"]
    assert got["entries"][0]["body"] == f"A {word} hovers."


def test_a_pending_action_is_decided_exactly_once_from_either(pair: tuple[Daemon, Daemon]) -> None:
    first, second = pair
    ident = fresh_identity("pg-")
    with first.control() as c:
        enable_consent(c, ident)
        token = c.call("token.issue", {"identity": ident})["token"]
    with first.agent() as a:
        task = a.call("task.begin", {"token": token})
        out = a.call(
            "memory.write",
            {
                "task_id": task["task_id"],
                "action": "add",
                "entry": entry("Pending", "Decided once."),
            },
        )
    assert out["outcome"] == "pending"
    with second.control() as c:
        listed = c.call("governance.action.list", {})
    assert out["action_id"] in [x["action_id"] for x in listed["items"]]

    answers: list[Any] = []

    def approve(d: Daemon) -> None:
        with d.control() as c:
            try:
                answers.append(c.call("governance.action.approve", {"action_id": out["action_id"]}))
            except RpcError as exc:
                answers.append(exc.data_code)

    threads = [threading.Thread(target=approve, args=(d,)) for d in (first, second, first, second)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    applied = [x for x in answers if isinstance(x, dict)]
    assert len(applied) == 1, answers
    assert all(isinstance(x, str) for x in answers if not isinstance(x, dict))


def _write_many(d: Daemon, tag: str, n: int, errors: list[str]) -> None:
    with d.control() as c:
        for i in range(n):
            try:
                c.call(
                    "memory.write",
                    {
                        "target": "memory",
                        "action": "add",
                        "entry": entry(f"{tag} {i}", f"Note {i} of {tag}."),
                    },
                )
            except RpcError as exc:
                errors.append(str(exc.data_code))


def test_writers_on_both_append_to_one_chain_that_verifies_from_either(
    pair: tuple[Daemon, Daemon],
) -> None:
    first, second = pair
    with first.control() as c:
        enable_consent(c)
    errors: list[str] = []
    threads = [
        threading.Thread(target=_write_many, args=(d, f"w{k}-{uuid.uuid4().hex[:4]}", 15, errors))
        for k, d in enumerate((first, second, first, second))
    ]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    for d in pair:
        with d.control() as c:
            c.call("audit.checkpoint", {})
    seqs = []
    for d in pair:
        with d.control() as c:
            verified = c.call("audit.verify", {})
            events = c.call("audit.export", {"after_seq": 0})["events"]
        assert verified["ok"] is True, verified
        seqs = [e["seq"] for e in events]
        assert seqs == list(range(1, len(seqs) + 1))
    for d in pair:
        done = d.memctl("audit", "verify")
        assert done.returncode == 0, done.stderr


def test_a_daemon_with_another_root_secret_is_refused(pair: tuple[Daemon, Daemon]) -> None:
    first, _ = pair
    config = (first.home / "memoryd.toml").read_text()
    root = short_tempdir()
    try:
        stranger = Daemon(root / "c", config=config)
        stranger.start(wait=False)
        assert stranger.proc is not None
        assert stranger.proc.wait(30) == 1
        assert "another root secret" in stranger.log()
    finally:
        shutil.rmtree(root, ignore_errors=True)


def test_two_daemons_cannot_both_apply_one_idempotency_key(pair: tuple[Daemon, Daemon]) -> None:
    key = "shared-" + uuid.uuid4().hex
    params = {
        "target": "memory",
        "action": "add",
        "idempotency_key": key,
        "entry": entry("Idem " + key[-6:], "Only once."),
    }
    answers: list[Any] = []

    def send(d: Daemon) -> None:
        with Client(d.control_path, timeout=30) as c:
            try:
                answers.append(c.call("memory.write", params)["entries"][0]["id"])
            except RpcError as exc:
                answers.append(exc.data_code)

    with pair[0].control() as c:
        enable_consent(c)
    threads = [threading.Thread(target=send, args=(d,)) for d in (*pair, *pair)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(answers) == 4 and len(set(answers)) == 1, answers
    with pair[1].control() as c:
        listed = c.call("memory.list", {"query": "Idem " + key[-6:]})
    assert [i["id"] for i in listed["items"]] == answers[:1]


def test_two_daemons_replacing_one_revision_apply_exactly_one(pair: tuple[Daemon, Daemon]) -> None:
    """Writers on two hosts each replace revision 1 of one entry: one applies
    and makes revision 2, every other is a revision conflict, never a lost
    update."""
    title = "Rev " + uuid.uuid4().hex[:6]
    with pair[0].control() as c:
        enable_consent(c)
        made = c.call(
            "memory.write", {"target": "memory", "action": "add", "entry": entry(title, "First.")}
        )["entries"][0]["id"]
    answers: list[Any] = []

    def send(d: Daemon, n: int) -> None:
        params = {
            "target": "memory",
            "action": "replace",
            "id": made,
            "expected_revision": 1,
            "entry": entry(title, f"Replaced by writer {n}."),
        }
        with Client(d.control_path, timeout=30) as c:
            try:
                answers.append(c.call("memory.write", params)["entries"][0]["revision"])
            except RpcError as exc:
                answers.append(exc.data_code)

    threads = [
        threading.Thread(target=send, args=(d, n)) for n, d in enumerate((*pair, *pair, *pair))
    ]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(answers, key=str) == sorted([2] + ["revision_conflict"] * 5, key=str), answers
    for d in pair:
        with d.control() as c:
            got = c.call("memory.read", {"ids": [made]})["entries"][0]
        assert got["revision"] == 2


def test_a_team_made_on_one_daemon_holds_on_the_other(pair: tuple[Daemon, Daemon]) -> None:
    first, second = pair
    name = "t" + uuid.uuid4().hex[:8]
    scope = f"team:{name}"
    with first.control() as c:
        member, outsider, tokens = team_member_and_outsider(c, name, "pg-")
        eid = c.call(
            "memory.write",
            {
                "identity": member,
                "scope": scope,
                "action": "add",
                "entry": entry("Heron runbook", "heron failover uses the standby", "fact"),
            },
        )["entries"][0]["id"]
    with second.agent() as a:
        task = a.call(
            "task.begin", {"token": tokens[member["subject"]], "scopes": ["default", scope]}
        )["task_id"]
        got = a.call("memory.read", {"task_id": task, "ids": [eid]})["entries"][0]
        assert got["scope"] == scope and got["title"] == "Heron runbook"
        with pytest.raises(RpcError) as err:
            a.call("task.begin", {"token": tokens[outsider["subject"]], "scopes": [scope]})
        assert err.value.data["code"] == "scope_mismatch"
    with second.control() as c:
        c.call("team.remove", {"name": name, "identity": member})
    with first.agent() as a, pytest.raises(RpcError) as err:
        a.call("task.begin", {"token": tokens[member["subject"]], "scopes": [scope]})
    assert err.value.data["code"] == "scope_mismatch"


def test_backup_on_postgresql_is_a_clear_refusal(pair: tuple[Daemon, Daemon]) -> None:
    # admin.backup copies a SQLite file; a PostgreSQL home has none: the call
    # is answered with a structured refusal naming the way out, never -32603,
    # and writes nothing at the path.
    first, _ = pair
    dest = short_tempdir() / "bk"
    with first.control() as c:
        with pytest.raises(RpcError) as caught:
            c.call("admin.backup", {"path": str(dest)})
    assert (caught.value.code, caught.value.data_code) == (-32006, "backup_unsupported")
    assert "pg_dump" in str(caught.value.data)
    assert not dest.exists()


# --- hybrid recall on two daemons ------------------------------------------------------

# A question that shares no word with the note it is about: only the vector
# side of recall can find it.
PARAPHRASE = "which text-editing shortcuts does the user like"
EDITOR = ("Editor", "Prefers vim keybindings in every IDE.")
# Far from PARAPHRASE in meaning (cosine ~0.72, under the ranker's 0.80 floor)
# and in words: what a change on the other daemon turns a note into.
BAKERY = ("Bakery", "A new bakery opened downtown near the station.")


@pytest.fixture(scope="module")
def hybrid_pair() -> Iterator[tuple[Daemon, Daemon]]:
    """Two daemons on one schema that rank hybrid (the tests above pin which
    entries a word recalls, so their pair ranks lexically)."""
    yield from shared_pair_on_fresh_schema(ranker="auto")


def _note(c: Client, who: dict[str, str], scope: str, title: str, body: str) -> str:
    out = c.call(
        "memory.write",
        {
            "identity": who,
            "target": "memory",
            "scope": scope,
            "action": "add",
            "entry": entry(title, body, "fact"),
        },
    )
    return str(out["entries"][0]["id"])


def _embedded(d: Daemon, who: dict[str, str], n: int) -> None:
    """Wait until ``d``'s vector index holds exactly ``n`` of ``who``'s entries
    and none of them waits for embedding (a condition, not a clock)."""
    deadline = time.monotonic() + 90
    while True:
        with d.control() as c:
            recall = c.call("memory.status", {"identity": who})["recall"]
        assert recall["ranker"] == "hybrid", recall
        if recall["index"] == "exact" and recall["queued"] == 0 and recall["embedded"] == n:
            return
        assert time.monotonic() < deadline, f"never {n} embedded: {recall}"
        time.sleep(0.1)


def _recalled(d: Daemon, who: dict[str, str], scope: str) -> list[str]:
    with d.control() as c:
        task = c.call("task.begin", {"identity": who, "scopes": [scope]})["task_id"]
        snap = c.call("memory.context", {"task_id": task, "intent": PARAPHRASE})
    assert snap["ranking"]["ranker"] == "hybrid", snap["ranking"]
    return [card["id"] for card in snap["entries"]]


def _embeddings_made(*daemons: Daemon) -> int:
    """How many vectors the daemons' workers have stored since they started."""
    total = 0
    for d in daemons:
        with d.control() as c:
            total += int(c.call("memory.status", {})["recall"]["embedded_since_start"])
    return total


def test_an_entry_added_on_one_daemon_is_embedded_once_and_recalled_by_vector_on_both(
    hybrid_pair: tuple[Daemon, Daemon],
) -> None:
    first, second = hybrid_pair
    who = fresh_identity("vec-add-")
    scope = "vec-add"
    made = _embeddings_made(first, second)
    with first.control() as c:
        enable_consent(c, who)
        editor = _note(c, who, scope, *EDITOR)
        # Enough notes that both daemons' workers find queued ones to claim.
        others = [
            _note(c, who, scope, f"Errand {i}", f"Pick up parcel number {i} at the desk.")
            for i in range(11)
        ]
    _embedded(second, who, 12)
    _embedded(first, who, 12)
    assert _recalled(second, who, scope)[:1] == [editor]
    assert _recalled(first, who, scope)[:1] == [editor]
    assert _embeddings_made(first, second) - made == len([editor, *others])


def test_an_entry_removed_archived_or_changed_on_one_is_never_recalled_by_vector_on_the_other(
    hybrid_pair: tuple[Daemon, Daemon],
) -> None:
    first, second = hybrid_pair
    who = fresh_identity("vec-del-")
    with first.control() as c:
        enable_consent(c, who)
        made = {scope: _note(c, who, scope, *EDITOR) for scope in ("rm", "arch", "chg")}
    _embedded(second, who, 3)
    for scope, entry_id in made.items():
        assert _recalled(second, who, scope) == [entry_id], scope
    with first.control() as c:
        c.call(
            "memory.write",
            {
                "identity": who,
                "scope": "rm",
                "action": "remove",
                "id": made["rm"],
                "expected_revision": 1,
            },
        )
        c.call(
            "memory.write",
            {
                "identity": who,
                "scope": "arch",
                "action": "archive",
                "id": made["arch"],
                "expected_revision": 1,
                "reason": "old",
            },
        )
        c.call(
            "memory.write",
            {
                "identity": who,
                "scope": "chg",
                "action": "replace",
                "id": made["chg"],
                "expected_revision": 1,
                "entry": entry(*BAKERY, "fact"),
            },
        )
    # At once, whatever the second daemon's index still holds (it follows the
    # database's feed at its worker's next round): its vector candidates are
    # checked against the rows and vectors the database has now. A search of
    # every status first, where a stale vector would have the most to show.
    with second.control() as c:
        listed = c.call(
            "memory.list",
            {"identity": who, "query": PARAPHRASE, "statuses": ["archived", "removed", "active"]},
        )
    assert listed["items"] == []
    for scope in made:
        assert _recalled(second, who, scope) == [], scope
    # And once it has followed the change: the changed note has its new vector only.
    _embedded(second, who, 1)
    _embedded(first, who, 1)
    for scope in made:
        assert _recalled(second, who, scope) == [], scope
