"""Pending proposals as stored: a field the caller left out is left out of the
stored proposal (no sentinel text), and a proposal stored by an older memoryd,
which marked such a field with the string ``"unset"``, still approves with the
same meaning (basis unknown, no validity; a replace keeps the entry's own)."""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import anyio

from memoryd.daemon.storage.store import Tx
from tests.harness import entry, fresh_identity
from tests.inproc import InProcess, composed

LEGACY_UNSET = "unset"
VALIDITY = {"check": "ask", "until": "2031-01-01T00:00:00Z"}


def go(tmp_path: Path, body: Callable[[InProcess], Awaitable[None]]) -> None:
    async def main() -> None:
        with composed(tmp_path / "h") as daemon:
            await body(daemon)

    anyio.run(main, backend="asyncio")


async def agent_task(daemon: InProcess) -> tuple[dict[str, str], str]:
    """An identity, and a task of its whose writes wait for the operator
    (the default policy)."""
    ident = fresh_identity("sp-")
    consent = await daemon.call("control", "consent.get", {"identity": ident})
    await daemon.call(
        "control",
        "consent.set",
        {"identity": ident, "read": True, "contribute": True, "version": consent["version"]},
    )
    token = (await daemon.call("control", "token.issue", {"identity": ident}))["token"]
    task = await daemon.call("agent", "task.begin", {"token": token})
    return ident, str(task["task_id"])


async def stored_proposal(daemon: InProcess, action_id: str) -> dict[str, Any]:
    def read(tx: Tx) -> Any:
        return tx.one("SELECT proposal FROM actions WHERE action_id = ?", (action_id,))

    row = await daemon.store.run(read, write=False)
    return dict(json.loads(row["proposal"]))


async def store_as_older_memoryd(daemon: InProcess, action_id: str) -> None:
    """Rewrite the stored proposal the way an older memoryd stored it."""
    stored = await stored_proposal(daemon, action_id)
    for op in stored["ops"]:
        if op["entry"] is not None:
            for key in ("basis", "validity"):
                op["entry"].setdefault(key, LEGACY_UNSET)
    text = json.dumps(stored)

    def write(tx: Tx) -> None:
        tx.exec("UPDATE actions SET proposal = ? WHERE action_id = ?", (text, action_id))

    await daemon.store.run(write, governed=False)


def test_a_field_left_out_is_left_out_of_the_stored_proposal(tmp_path: Path) -> None:
    async def body(daemon: InProcess) -> None:
        _ident, task_id = await agent_task(daemon)
        proposed = await daemon.call(
            "agent",
            "memory.write",
            {"task_id": task_id, "action": "add", "entry": entry("Heron", "Grey.")},
        )
        assert proposed["outcome"] == "pending"
        stored = await stored_proposal(daemon, proposed["action_id"])
        (op,) = stored["ops"]
        assert not {"basis", "validity", "context", "observed_at"} & set(op["entry"])
        assert LEGACY_UNSET not in json.dumps(stored)
        shown = await daemon.call(
            "control", "governance.action.get", {"action_id": proposed["action_id"]}
        )
        # The operator sees every field, in the order a caller writes them.
        assert list(shown["ops"][0]["entry"]) == [
            "type",
            "title",
            "body",
            "summary",
            "basis",
            "validity",
            "ttl_days",
            "pinned",
            "context",
            "observed_at",
        ]
        assert shown["ops"][0]["entry"]["basis"] is None
        assert shown["ops"][0]["entry"]["validity"] is None

    go(tmp_path, body)


def test_an_add_stored_by_an_older_memoryd_still_approves(tmp_path: Path) -> None:
    async def body(daemon: InProcess) -> None:
        ident, task_id = await agent_task(daemon)
        proposed = await daemon.call(
            "agent",
            "memory.write",
            {"task_id": task_id, "action": "add", "entry": entry("Heron", "Grey.")},
        )
        await store_as_older_memoryd(daemon, proposed["action_id"])
        shown = await daemon.call(
            "control", "governance.action.get", {"action_id": proposed["action_id"]}
        )
        assert shown["ops"][0]["entry"]["basis"] is None
        assert shown["ops"][0]["entry"]["validity"] is None
        out = await daemon.call(
            "control", "governance.action.approve", {"action_id": proposed["action_id"]}
        )
        assert out["outcome"] == "applied"
        (stored,) = (
            await daemon.call(
                "control", "memory.read", {"identity": ident, "ids": [out["entries"][0]["id"]]}
            )
        )["entries"]
        assert stored["basis"] == {"kind": "unknown", "note": ""}
        assert stored["validity"] is None

    go(tmp_path, body)


def test_a_replace_stored_by_an_older_memoryd_keeps_the_entrys_validity(tmp_path: Path) -> None:
    async def body(daemon: InProcess) -> None:
        ident, task_id = await agent_task(daemon)
        added = await daemon.call(
            "control",
            "memory.write",
            {
                "identity": ident,
                "action": "add",
                "entry": entry("Heron", "Grey.", validity=VALIDITY),
            },
        )
        # The replace leaves basis and validity out: the entry keeps its own.
        proposed = await daemon.call(
            "agent",
            "memory.write",
            {
                "task_id": task_id,
                "action": "replace",
                "id": added["entries"][0]["id"],
                "expected_revision": 1,
                "entry": entry("Heron", "Grey, tall."),
            },
        )
        assert proposed["outcome"] == "pending", proposed
        await store_as_older_memoryd(daemon, proposed["action_id"])
        out = await daemon.call(
            "control", "governance.action.approve", {"action_id": proposed["action_id"]}
        )
        assert out["outcome"] == "applied"
        (stored,) = (
            await daemon.call(
                "control", "memory.read", {"identity": ident, "ids": [added["entries"][0]["id"]]}
            )
        )["entries"]
        assert stored["revision"] == 2 and stored["body"] == "Grey, tall."
        assert stored["validity"] == VALIDITY

    go(tmp_path, body)
