"""A credential in a phrasing no rule reads: the learned reading refuses it or holds it for review.

On a real daemon over its sockets. The canary strings of a test (the values
given as credentials) must never reach the daemon's log, the audit chain or
an error.
"""

from __future__ import annotations

import json

from memoryd.rpc.client import Client
from tests.harness import AGENT_WRITES, Daemon, enable_consent, entry, expect, exported_audit

# How this module's daemon starts (the ``d`` fixture, tests/blackbox/conftest.py).
DAEMON = {"policy": AGENT_WRITES}

# No row of the rule table reads these; the learned reading does.
_REFUSED = "Quokka!7731"
_HELD = "4419"


def test_a_value_the_learned_reading_gives_as_a_credential_is_refused_and_never_echoed(
    d: Daemon, c: Client, a: Client
) -> None:
    enable_consent(c)
    task = a.call("task.begin", {"scopes": ["home:notes"]})["task_id"]
    body = f"The new one is {_REFUSED}, the old one stopped working."
    err = expect(
        -32004,
        "secret_detected",
        a.call,
        "memory.write",
        {"task_id": task, "action": "add", "entry": entry("Router", body, "fact")},
    )
    findings = err.data["details"]["findings"]
    assert {f["rule_id"] for f in findings} == {"secret.scored_value"}
    assert (findings[0]["start"], findings[0]["end"]) == (
        body.index(_REFUSED),
        body.index(_REFUSED) + len(_REFUSED),
    )
    assert _REFUSED not in json.dumps(err.data)
    assert _REFUSED not in exported_audit(c) and _REFUSED not in d.log()
    listed = a.call("memory.list", {"task_id": task})
    assert _REFUSED not in json.dumps(listed)


def test_a_value_it_is_unsure_of_holds_the_write_for_the_operator(
    d: Daemon, c: Client, a: Client
) -> None:
    enable_consent(c)
    task = a.call("task.begin", {"scopes": ["home:notes"]})["task_id"]
    written = a.call(
        "memory.write",
        {
            "task_id": task,
            "action": "add",
            "entry": entry("Lena", f"Lena's one is {_HELD}.", "fact"),
        },
    )
    assert written["outcome"] == "pending"
    assert "scan.review" in written["decision"]["rule_ids"]
    assert written["warnings"] == ["content flagged for the operator's review"]
    # Nothing of it is recalled before the operator decides.
    context = a.call("memory.context", {"task_id": task, "intent": "Lena"})
    assert _HELD not in json.dumps(context)
    assert _HELD not in exported_audit(c) and _HELD not in d.log()


def test_a_phone_number_beside_a_door_code_word_is_held_not_refused(
    d: Daemon, c: Client, a: Client
) -> None:
    # Digits a phone number's form names are no door code (decision 0522):
    # the operator sees the note; nothing is refused, nothing echoed.
    enable_consent(c)
    task = a.call("task.begin", {"scopes": ["home:notes"]})["task_id"]
    number = "+44 20 7946 0321"
    written = a.call(
        "memory.write",
        {
            "task_id": task,
            "action": "add",
            "entry": entry(
                "Door", f"If the door code fails, ring the caretaker on {number}.", "fact"
            ),
        },
    )
    assert written["outcome"] == "pending"
    assert "scan.review" in written["decision"]["rule_ids"]
    assert "7946 0321" not in exported_audit(c) and "7946 0321" not in d.log()
