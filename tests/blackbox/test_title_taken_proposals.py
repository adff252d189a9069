"""A proposal whose title is already taken, over the real sockets.

An ``add`` whose title an active entry in the scope already holds can only
fail at approval: a task that may read the scope is told so when it proposes
(``duplicate_title``, with the holder's id and a recovery naming ``replace``
or ``supersede``), and nothing is queued. A task without ``read`` must not
learn that a title exists: its proposal waits as any other. A proposal that
went stale (the title was taken after it was proposed) can be approved as a
``supersede`` of the holder, decided by the gate like any approval and
audited without text.
"""

from __future__ import annotations

import json
from typing import Any

from memoryd.rpc.client import Client
from tests.harness import Daemon, enable_consent, entry, expect, fresh_identity

CONFLICT = -32002


def _task(c: Client, a: Client, *, read: bool = True) -> tuple[dict[str, str], str]:
    ident = fresh_identity("tt-")
    enable_consent(c, ident, read=read)
    token = c.call("token.issue", {"identity": ident})["token"]
    task = a.call("task.begin", {"token": token})
    return ident, str(task["task_id"])


def _operator_add(c: Client, ident: dict[str, str], title: str, body: str) -> dict[str, Any]:
    out = c.call("memory.write", {"identity": ident, "action": "add", "entry": entry(title, body)})
    assert out["outcome"] == "applied"
    return dict(out["entries"][0])


def _pending_of(c: Client) -> set[str]:
    found: set[str] = set()
    params: dict[str, Any] = {"status": "pending"}
    while True:
        page = c.call("governance.action.list", params)
        found.update(i["action_id"] for i in page["items"])
        if not page.get("next_cursor"):
            return found
        params = {"cursor": page["next_cursor"]}


def _get(c: Client, ident: dict[str, str], entry_id: str) -> dict[str, Any]:
    (got,) = c.call("memory.read", {"identity": ident, "ids": [entry_id]})["entries"]
    return dict(got)


def test_a_title_taken_is_refused_when_proposed(c: Client, a: Client) -> None:
    ident, tid = _task(c, a)
    held = _operator_add(c, ident, "Editor", "Prefers vim keybindings.")
    before = _pending_of(c)
    err = expect(
        CONFLICT,
        "duplicate_title",
        a.call,
        "memory.write",
        {"task_id": tid, "action": "add", "entry": entry("Editor", "Prefers emacs.")},
    )
    assert err.data["details"]["entry_id"] == held["id"]
    recovery = err.data["recovery"]
    assert "replace" in recovery and "supersede" in recovery
    said = json.dumps(err.data)
    assert "Editor" not in said and "emacs" not in said and "vim" not in said
    assert _pending_of(c) == before  # nothing was queued


def test_a_task_without_read_learns_nothing_and_waits(c: Client, a: Client) -> None:
    ident, tid = _task(c, a, read=False)
    held = _operator_add(c, ident, "Shell", "Uses fish.")
    out = a.call(
        "memory.write", {"task_id": tid, "action": "add", "entry": entry("Shell", "Uses zsh.")}
    )
    assert out["outcome"] == "pending"
    assert held["id"] not in json.dumps(out)


def test_a_stale_proposal_is_approved_as_a_supersede(c: Client, a: Client) -> None:
    ident, tid = _task(c, a)
    proposed = a.call(
        "memory.write", {"task_id": tid, "action": "add", "entry": entry("Terminal", "Uses kitty.")}
    )
    assert proposed["outcome"] == "pending"
    action_id = proposed["action_id"]
    held = _operator_add(c, ident, "Terminal", "Uses alacritty.")
    seq = c.call("memory.status", {})["audit"]["seq"]

    # Approved as proposed it can only fail, and stays pending.
    expect(
        CONFLICT, "duplicate_title", c.call, "governance.action.approve", {"action_id": action_id}
    )
    assert action_id in _pending_of(c)

    applied = c.call("governance.action.approve", {"action_id": action_id, "as_supersede": True})
    assert applied["outcome"] == "applied"
    (new_id,) = [e["id"] for e in applied["entries"] if e["id"] != held["id"]]
    old = _get(c, ident, held["id"])
    assert old["status"] == "superseded"
    new = _get(c, ident, new_id)
    assert (new["status"], new["body"]) == ("active", "Uses kitty.")
    assert c.call("governance.action.get", {"action_id": action_id})["status"] == "approved"

    events = c.call("audit.export", {"after_seq": seq})["events"]
    approved = [e for e in events if e["kind"] == "action_approved"]
    assert approved and approved[-1]["details"]["as_supersede"] is True
    assert held["id"] in approved[-1]["entry_ids"]
    text = json.dumps(events)
    assert "Terminal" not in text and "kitty" not in text and "alacritty" not in text


def test_as_supersede_applies_a_proposal_that_is_not_stale_as_proposed(
    c: Client, a: Client
) -> None:
    ident, tid = _task(c, a)
    proposed = a.call(
        "memory.write", {"task_id": tid, "action": "add", "entry": entry("Font", "Uses Iosevka.")}
    )
    applied = c.call(
        "governance.action.approve", {"action_id": proposed["action_id"], "as_supersede": True}
    )
    assert applied["outcome"] == "applied"
    listed = c.call("memory.list", {"identity": ident})
    assert [i["title"] for i in listed["items"]] == ["Font"]


def test_memctl_approve_as_supersede(d: Daemon, c: Client, a: Client) -> None:
    ident, tid = _task(c, a)
    proposed = a.call(
        "memory.write",
        {"task_id": tid, "action": "add", "entry": entry("Browser", "Uses Firefox.")},
    )
    held = _operator_add(c, ident, "Browser", "Uses Chromium.")
    failed = d.memctl("approve", proposed["action_id"], process=True)
    assert failed.returncode != 0 and b"--as-supersede" in failed.stderr
    done = d.memctl("approve", proposed["action_id"], "--as-supersede", process=True)
    assert done.returncode == 0, done.stderr
    old = _get(c, ident, held["id"])
    assert old["status"] == "superseded"
