"""Undoing an operation: the plan and its application (SPEC §8 ``memory.undo``).

Owns: checking that an operation can be undone now (``plan``), turning it into
``undo`` operations the kernel decides like any write, and applying them
through daemon/pipeline/entries.py (``apply``). The order of the steps (caller, decide,
outcome, audit) is daemon/pipeline/governance.py's.

Invariants:
- an undo applies only if every entry of the operation is still at the
  revision the operation produced, all items or none;
- a removal is final, and so is an undo: refused with the reason and a fixed
  recovery hint, never attempted;
- the journal items it writes hold ids, revisions and hashes only.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from memoryd.daemon.access import teams
from memoryd.daemon.clock import fmt
from memoryd.daemon.ids import random_id
from memoryd.daemon.pipeline import entries
from memoryd.daemon.pipeline.writes import Limits, Op, pack_items, unpack_items
from memoryd.daemon.storage.store import Tx
from memoryd.kernel.errors import Conflict, NotFound

__all__ = ["UNDO_IMPOSSIBLE", "Step", "apply", "plan", "record"]

# Why an operation cannot be undone: details.reason -> a fixed recovery hint.
UNDO_IMPOSSIBLE: dict[str, str] = {
    "remove_is_final": "a removal destroyed the body and cannot be undone; write the entry again",
    "already_undone": "this operation was already undone; see memory.journal",
    "undo_is_final": "an undo cannot itself be undone; write the change again instead",
}

# The status an entry must have for each journal item action to be undone.
_UNDOABLE_STATUS: dict[str, str] = {
    "add": "active",
    "replace": "active",
    "supersede": "superseded",
    "archive": "archived",
}


@dataclass
class Step:
    item: dict[str, Any]
    row: dict[str, Any]
    op: Op
    restore: dict[str, Any] | None = None  # the revision a replace goes back to


def plan(tx: Tx, owner: str, operation_id: str) -> list[Step]:
    """Check an operation can be undone now; the steps in reverse order of application."""
    op_row = tx.operation(operation_id, owner)
    if op_row is None:
        # Name the field, not the value: an id param is any short string,
        # and errors never echo what the client sent (SPEC §3).
        raise NotFound("not_found", details={"field": "operation_id"})
    if op_row["undone_by"] is not None:
        raise _impossible("already_undone", undone_by=op_row["undone_by"])
    if op_row["undo_of"] is not None:
        raise _impossible("undo_is_final")
    items = unpack_items(op_row["items"])
    if any(i["action"] == "remove" for i in items):
        raise _impossible("remove_is_final")
    steps = []
    # Reverse order: a supersede's new entry is archived before the old one
    # comes back, so the title is free again when it is checked.
    for item in reversed(items):
        # The owner's own entries and those of its teams (daemon/access/teams.py).
        row = entries.load(tx, teams.control_view(tx, owner), item["entry_id"])
        if (row is None or row["revision"] != item["revision_after"]
                or row["status"] != _UNDOABLE_STATUS.get(item["action"])):
            raise Conflict("revision_conflict", details={
                "entry_id": item["entry_id"], "expected_revision": item["revision_after"],
                "current_revision": row["revision"] if row else None})
        restore = None
        chash = row["content_hash"]
        if item["action"] == "replace":
            restore = tx.revision(row["id"], item["revision_before"])
            if restore is None or restore["body"] is None:
                raise Conflict("revision_conflict", details={
                    "entry_id": row["id"], "missing_revision": item["revision_before"]})
            chash = restore["content_hash"]
        # The op carries what the entry will be: the restored revision's
        # type for a replace (the type it has now is decided as well, as for
        # any write that changes an entry's type: ``touched``).
        op = Op(action="undo", target=row["target"], scope=row["scope"],
                entry_id=row["id"], expected_revision=row["revision"],
                entry={"type": restore["type"] if restore is not None else row["type"]},
                content_hash=chash)
        steps.append(Step(item, row, op, restore))
    return steps


def touched(steps: list[Step]) -> dict[int, str]:
    """Per step, the type its entry has now where the undo writes another
    (``gate.Gate.decide_write`` decides both)."""
    return {i: s.row["type"] for i, s in enumerate(steps)
            if s.op.entry is not None and s.op.entry["type"] != s.row["type"]}


def _impossible(reason: str, **details: Any) -> Conflict:
    return Conflict("undo_impossible", details={"reason": reason, **details},
                    recovery=UNDO_IMPOSSIBLE[reason])


def _renewal(row: dict[str, Any], now_dt: datetime) -> dict[str, Any]:
    now = fmt(now_dt)
    return {"revision": row["revision"] + 1, "updated_at": now, "status_at": now,
            "renewed_at": now, "expires_at": entries.expiry(now_dt, row["ttl_days"], row["pinned"])}


def apply(tx: Tx, owner: str, steps: list[Step], limits: Limits,
          now_dt: datetime) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """Apply the planned steps; returns (rows after, journal items). Titles
    and budgets are checked where each row is held (a team's rows: the team)."""
    now = fmt(now_dt)
    rows: list[dict[str, Any]] = []
    items: list[dict[str, Any]] = []
    budget = limits.scope_budget_bytes
    for step in steps:
        row, action = step.row, step.item["action"]
        where = (row["target"], row["scope"])
        if action == "add":
            after = entries.update(tx, row["id"], status="archived",
                                   revision=row["revision"] + 1, updated_at=now, status_at=now)
        elif action == "replace":
            old = step.restore
            assert old is not None
            if old["title"] != row["title"]:
                entries.check_title(tx, row["owner"], *where, old["title"], row["id"])
            delta = len(old["body"].encode()) - len(row["body"].encode())
            if delta > 0:
                entries.check_budget(tx, row["owner"], *where, delta, budget)
            after = entries.update(tx, row["id"], type=old["type"], title=old["title"],
                                   body=old["body"], summary=old["summary"], basis=old["basis"],
                                   validity=old["validity"], context=old.get("context"),
                                   observed_at=old.get("observed_at"),
                                   content_hash=old["content_hash"],
                                   **_renewal(row, now_dt))
        else:  # supersede (the old entry) or archive: it becomes active again
            entries.check_title(tx, row["owner"], *where, row["title"], row["id"])
            entries.check_budget(tx, row["owner"], *where, len(row["body"].encode()), budget)
            after = entries.update(tx, row["id"], status="active", superseded_by=None,
                                   archive_reason=None, **_renewal(row, now_dt))
        rows.append(after)
        items.append({"action": "undo", "undoes": action, "entry_id": after["id"],
                      "revision_before": row["revision"], "revision_after": after["revision"],
                      "content_hash": after["content_hash"]})
    rows.reverse()
    items.reverse()
    return rows, items


def record(tx: Tx, owner: str, undo_of: str, items: list[dict[str, Any]], now: str) -> str:
    """The undo's own journal operation, linked both ways; returns its id."""
    operation_id = random_id("op")
    tx.record_operation(operation_id, owner, now, "undo", "control", pack_items(items),
                        undo_of)
    tx.mark_undone(undo_of, operation_id)
    return operation_id
