"""What leaves the host for external memory is scanned, and what comes back is shown safely.

A real daemon recalls from, and projects to, a provider on loopback
(tests/provider_receiver.py, which keeps every request as it came off the
wire). The intent of ``memory.context`` is scanned before any egress: one
holding a credential is never sent (external recall is skipped, reported
``degraded`` with its reason). Projection documents are entries, scanned when
written, so a credential never reaches the outbox. External evidence goes
through the stored text's invisible-character rule: shown escaped and
flagged, never raw.
"""

from __future__ import annotations

import json

import pytest

from memoryd.rpc.client import RpcError
from tests.blackbox.test_projection import ALLOW_BOTH, add, daemon_with, outbox, wait_until
from tests.harness import GITHUB_TOKEN, exported_audit, store_file
from tests.provider_receiver import receiver

AWS_KEY_ID = "AKIAIOSFODNN7EXAMPLE"
AWS_SECRET = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"
PEM_LINE = "MIIEowIBAAKCAQEA1234567890abcdefghijABCDEFGHIJ"
PEM = f"-----BEGIN RSA PRIVATE KEY-----\n{PEM_LINE}\n-----END RSA PRIVATE KEY-----"

# (intent, the secret parts that must never be on the wire)
SECRET_INTENTS = [
    (f"why does the deploy fail with {GITHUB_TOKEN}", [GITHUB_TOKEN]),
    (f"deploy with aws {AWS_KEY_ID} secret {AWS_SECRET}", [AWS_KEY_ID, AWS_SECRET]),
    (f"which deploy host takes this key {PEM}", [PEM_LINE, "PRIVATE KEY"]),
]


@pytest.mark.parametrize("mode", ["hybrid", "shadow"])
@pytest.mark.parametrize(
    "intent,secrets", SECRET_INTENTS, ids=["github_token", "aws_key_pair", "private_key"]
)
def test_an_intent_holding_a_credential_never_leaves_the_host(
    mode: str, intent: str, secrets: list[str]
) -> None:
    with (
        receiver() as rx,
        daemon_with(rx, mode=mode, policy=ALLOW_BOTH, project=False) as d,
        d.control() as c,
    ):
        add(c, "Deploy", "Deploys go through staging.")
        rx.recall_items = [{"id": "ext-1", "text": "Staging is in eu-west."}]
        task = c.call("task.begin", {})["task_id"]
        out = c.call("memory.context", {"task_id": task, "intent": intent})
        cov = out["coverage"]["external"]
        assert (cov["status"], cov["reason"]) == ("degraded", "intent_secret_detected")
        assert cov["items"] == 0
        assert "external-evidence" not in out["rendered"]
        # Local recall is untouched by it.
        assert [e["title"] for e in out["entries"]] == ["Deploy"]
        wire = rx.received()
        assert not any(s.encode() in wire for s in secrets)
        assert not [s for s in rx.seen if s.method == "POST"]
        # Nor is the skipped intent kept anywhere it could be read back.
        kept = (
            d.log()
            + exported_audit(c)
            + json.dumps(c.call("memory.status", {}), ensure_ascii=False)
        )
        assert not any(s in kept for s in secrets)


def test_a_clean_intent_is_still_sent_as_given() -> None:
    with receiver() as rx, daemon_with(rx, policy=ALLOW_BOTH, project=False) as d, d.control() as c:
        rx.recall_items = [{"id": "ext-1", "text": "Staging is in eu-west."}]
        task = c.call("task.begin", {})["task_id"]
        out = c.call("memory.context", {"task_id": task, "intent": "where is staging"})
        assert out["coverage"]["external"]["status"] == "ok"
        queries = [json.loads(body.split(b"\n", 1)[1])["query"] for body in rx.wire]
        assert queries and set(queries) == {"where is staging"}


def test_projection_documents_are_scanned_entries_so_no_credential_is_projected() -> None:
    with receiver() as rx, daemon_with(rx, policy=ALLOW_BOTH) as d, d.control() as c:
        # A write holding a credential is refused before it reaches the outbox.
        with pytest.raises(RpcError) as info:
            c.call(
                "memory.write",
                {
                    "action": "add",
                    "entry": {
                        "type": "fact",
                        "title": "Deploy key",
                        "body": f"use {GITHUB_TOKEN} to deploy",
                    },
                },
            )
        assert info.value.data_code == "secret_detected"
        add(c, "Deploy", "Deploys go through staging.")
        wait_until(lambda: outbox(c)["completed"] == 1, "projected")
        assert outbox(c)["pending"] == 0
        assert rx.bodies() == ["Deploys go through staging."]
        assert GITHUB_TOKEN.encode() not in rx.received()


INVISIBLE = {
    "zero width space": "\u200b",
    "right-to-left override": "\u202e",
    "tag characters": "\U000e0069\U000e0067\U000e006e",
}


def test_external_evidence_shows_invisible_characters_escaped_and_flagged() -> None:
    with receiver() as rx, daemon_with(rx, policy=ALLOW_BOTH, project=False) as d, d.control() as c:
        rx.recall_items = [
            {"id": f"ext-{i}", "text": f"Staging{chars}is in eu-west ({name})."}
            for i, (name, chars) in enumerate(INVISIBLE.items())
        ]
        task = c.call("task.begin", {})["task_id"]
        out = c.call("memory.context", {"task_id": task, "intent": "where is staging"})
        assert out["coverage"]["external"]["items"] == 3
        assert out["coverage"]["external"]["flagged"] == 3
        rendered = out["rendered"]
        begin = rendered.index("<<<memoryd:external-evidence begin")
        for chars in INVISIBLE.values():
            assert not any(ch in rendered for ch in chars)
        items = [json.loads(line) for line in rendered[begin:].splitlines()[2:-1]]
        assert all(item["flags"] == ["invisible"] for item in items)
        shown = {item["text"] for item in items}
        assert shown == {
            "Staging\\u200bis in eu-west (zero width space).",
            "Staging\\u202eis in eu-west (right-to-left override).",
            "Staging\\U000e0069\\U000e0067\\U000e006eis in eu-west (tag characters).",
        }


def test_a_document_holding_a_credential_is_never_sent_even_when_allowed() -> None:
    # Entries are scanned when written, so a credential only gets into one
    # past the scanner (here: put into the file directly); the sender scans
    # the document again and holds it back, whatever the policy allows.
    from memoryd.daemon.retrieval.text_index import register

    with receiver() as rx, daemon_with(rx) as d, d.control() as c:
        add(c, "Deploy", "Deploys go through staging.")
        wait_until(lambda: outbox(c)["blocked"] == 1, "blocked by the default policy")
        db = store_file(d.home / "memory.db")
        register(db)  # the index triggers call it
        try:
            db.execute(
                "UPDATE entries SET body = ? WHERE title = 'Deploy'",
                (f"Deploy with {GITHUB_TOKEN}.",),
            )
        finally:
            db.close()
        (d.home / "policy.toml").write_text(ALLOW_BOTH)
        assert c.call("policy.reload", {})["loaded"] is True
        wait_until(lambda: "secret_detected" in exported_audit(c), "held back")
        assert outbox(c)["blocked"] == 1
        assert GITHUB_TOKEN.encode() not in rx.received()
        assert rx.puts() == []
        assert GITHUB_TOKEN not in d.log() + exported_audit(c)
