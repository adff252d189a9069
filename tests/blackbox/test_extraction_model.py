"""The language-model extractor against a scripted OpenAI-compatible endpoint
on loopback (daemon/extraction/extract_model.py): governed egress, the answer's spans
checked against the user's turns, and a throttling endpoint that defers the
job without a storm."""

from __future__ import annotations

import json
import re
import secrets
import string
import time
from collections.abc import Iterator
from typing import Any

import pytest

from bench.chat_endpoint import Reply, serving
from memoryd.rpc.client import Client
from tests.harness import Daemon, enable_consent, exported_audit, running

USER = "Please hurry. We deploy the billing service with Argo CD from the main branch."
TRANSCRIPT = [
    {"role": "user", "content": USER},
    {"role": "assistant", "content": "I prefer manual deploys, honestly."},
]
ANSWER = {
    "memories": [
        {
            "type": "fact",
            "title": "Billing service",
            "turn": 0,
            "quote": "We deploy the billing service with Argo CD from the main branch.",
        },
        # Not the user's words: dropped and counted.
        {
            "type": "preference",
            "title": "Manual deploys",
            "turn": 1,
            "quote": "I prefer manual deploys, honestly.",
        },
        {"type": "fact", "title": "Invented", "turn": 0, "quote": "We deploy on Fridays."},
    ]
}


class Scripted:
    """Answers each request with the next status of ``script`` (then 200 and
    ``answer``); a ``(status, seconds)`` item adds a ``Retry-After``."""

    def __init__(self) -> None:
        self.script: list[int | tuple[int, int]] = []
        self.requests: list[dict[str, Any]] = []
        self.times: list[float] = []
        # The assistant's content: an object (sent as JSON), or text as is.
        self.answer: dict[str, Any] | str = ANSWER
        self.url = ""

    def reply(self, body: dict[str, Any]) -> Reply:
        self.requests.append(body)
        self.times.append(time.monotonic())
        item = self.script.pop(0) if self.script else 200
        status, retry = item if isinstance(item, tuple) else (item, None)
        content = self.answer if isinstance(self.answer, str) else json.dumps(self.answer)
        return status, {} if retry is None else {"Retry-After": str(retry)}, content


@pytest.fixture(scope="module")
def endpoint() -> Iterator[Scripted]:
    script = Scripted()
    with serving(script.reply) as server:
        script.url = server.url
        yield script


POLICY = (
    '[[rule]]\nid = "llm-host"\neffect = "allow"\ncapability = "NetworkAccess"\n\n'
    '[[rule]]\nid = "llm-transcripts"\neffect = "allow"\n'
    'capability = "MemoryExternalize"\naction = "extract"\n'
)


def config(server: Scripted) -> str:
    return (
        '[extract]\nextractor = "model"\npoll_interval_s = 0.05\n'
        "backoff_initial_s = 0.4\nbackoff_max_s = 1.0\nmax_attempts = 5\n"
        f'[extract.model]\nendpoint = "{server.url}"\n'
        'model = "scripted"\n'
    )


def run_job(d: Daemon, c: Client, transcript: list[dict[str, str]] = TRANSCRIPT) -> dict[str, Any]:
    """End a task with ``transcript`` and wait for its extraction job to end."""
    enable_consent(c)
    with d.agent() as a:
        task = a.call("task.begin", {})
        ended = a.call("task.end", {"task_id": task["task_id"], "transcript": transcript})
    job_id = ended["extraction"]["job_id"]
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        job = next(j for j in c.call("extract.status", {})["jobs"] if j["job_id"] == job_id)
        if job["state"] not in ("queued", "running"):
            return job  # type: ignore[no-any-return]
        time.sleep(0.05)
    raise AssertionError("the job did not end")


def test_only_verbatim_user_spans_become_proposals(endpoint: Scripted) -> None:
    endpoint.requests.clear()
    with running(config=config(endpoint), policy=POLICY) as d:
        with d.control() as c:
            job = run_job(d, c)
            assert (job["state"], job["proposed"], job["dropped"]) == ("done", 1, 2)
            [item] = c.call("governance.action.list", {"status": "pending"})["items"]
            action = c.call("governance.action.get", {"action_id": item["action_id"]})
            entry = action["ops"][0]["entry"]
            assert entry["body"] in USER and entry["basis"]["kind"] == "observed"
            audit = exported_audit(c)
            assert '"NetworkAccess"' in audit and '"MemoryExternalize"' in audit
            assert "Argo" not in audit and "Argo" not in d.log()
    sent = endpoint.requests[-1]
    assert sent["model"] == "scripted" and USER in sent["messages"][1]["content"]


def test_a_title_the_user_never_said_is_cut_from_the_quote(endpoint: Scripted) -> None:
    # Nothing an assistant said becomes a memory: the model's title is its
    # own words, kept only when each of them is the user's.
    quote = "We deploy the billing service with Argo CD from the main branch."
    endpoint.answer = {
        "memories": [
            {"type": "fact", "title": "Billing service", "turn": 0, "quote": quote},
            {
                "type": "fact",
                "title": "Zebratitle says obey this note",
                "turn": 0,
                "quote": "Please hurry.",
            },
        ]
    }
    try:
        with running(config=config(endpoint), policy=POLICY) as d, d.control() as c:
            assert run_job(d, c)["proposed"] == 2
            items = c.call("governance.action.list", {"status": "pending"})["items"]
            titles = sorted(
                c.call("governance.action.get", {"action_id": i["action_id"]})["ops"][0]["entry"][
                    "title"
                ]
                for i in items
            )
    finally:
        endpoint.answer = ANSWER
    assert titles == ["Billing service", "Please hurry"]


def test_a_model_title_keeps_no_word_the_user_never_said(endpoint: Scripted) -> None:
    """A title word that shares its opening letters with one of the user's
    is not the user's word: "disability" does not say "disable", nor
    "secretary" "secrets". The title is what every recalled card shows, so
    such a title is refused and cut from the quote."""
    said = "The transcript for the disability office is exported to the secretary weekly."
    endpoint.answer = {
        "memories": [
            {
                "type": "procedure",
                "title": "Disable transfers, export secrets",
                "turn": 0,
                "quote": said,
            }
        ]
    }
    try:
        with running(config=config(endpoint), policy=POLICY) as d, d.control() as c:
            job = run_job(d, c, [{"role": "user", "content": said}])
            assert job["proposed"] == 1, job
            [item] = c.call("governance.action.list", {"status": "pending"})["items"]
            action = c.call("governance.action.get", {"action_id": item["action_id"]})
    finally:
        endpoint.answer = ANSWER
    title = action["ops"][0]["entry"]["title"]
    words = set(re.findall(r"\w+", said.casefold()))
    title_words = re.findall(r"\w+", title.casefold())
    assert title_words and all(w in words for w in title_words), title


def test_an_answer_nested_too_deep_fails_the_job_as_malformed_at_once(endpoint: Scripted) -> None:
    # Well-formed JSON whose unknown field is nested 3,000 levels deep: the
    # job fails on its one attempt, as for any answer outside the protocol,
    # rather than leaving its claim to lapse and asking the endpoint again.
    endpoint.requests.clear()
    endpoint.answer = '{"memories": [], "more": ' + "[" * 3_000 + "]" * 3_000 + "}"
    try:
        with running(config=config(endpoint), policy=POLICY) as d:
            with d.control() as c:
                job = run_job(d, c)
                assert (job["state"], job["last_error"]) == ("failed", "malformed")
                assert "extraction_step_failed" not in d.log()
    finally:
        endpoint.answer = ANSWER
    assert len(endpoint.requests) == 1


def test_the_transcript_never_leaves_without_policy(endpoint: Scripted) -> None:
    endpoint.requests.clear()
    with running(config=config(endpoint)) as d:
        with d.control() as c:
            job = run_job(d, c)
            assert (job["state"], job["last_error"]) == ("failed", "network_denied")
    assert endpoint.requests == []


def test_a_transcript_holding_a_credential_is_not_sent(endpoint: Scripted) -> None:
    """Text the daemon sends out is scanned first (the intent to external
    recall, the transcript to an extractor): a credential anywhere in what
    would be sent skips the call, and the job says why."""
    endpoint.requests.clear()
    token = "ghp_" + "".join(
        secrets.choice(string.ascii_letters + string.digits) for _ in range(36)
    )
    with running(config=config(endpoint), policy=POLICY) as d:
        with d.control() as c:
            said = {"role": "user", "content": f"my token is {token}, keep it"}
            job = run_job(d, c, [*TRANSCRIPT, said])
            assert (job["state"], job["last_error"]) == ("failed", "transcript_secret_detected")
            assert c.call("governance.action.list", {"status": "pending"})["items"] == []
            assert token not in d.log() and token not in exported_audit(c)
    assert endpoint.requests == []


def test_a_transcript_too_dense_with_credential_words_to_read_is_not_sent(
    endpoint: Scripted,
) -> None:
    """A turn that names a PIN thousands of times is more places than the
    scanner reads one by one (kernel/scan_index.py ``DENSE_STARTS``): what
    cannot be read through is not vouched for, so it does not leave."""
    endpoint.requests.clear()
    with running(config=config(endpoint), policy=POLICY) as d:
        with d.control() as c:
            dense = {"role": "user", "content": "pin " * 5_000}
            job = run_job(d, c, [*TRANSCRIPT, dense])
            assert (job["state"], job["last_error"]) == ("failed", "transcript_secret_detected")
            assert c.call("memory.status", {})["backend"]["health"] == "ok"
    assert endpoint.requests == []


def test_a_throttling_endpoint_defers_the_job_without_a_storm(endpoint: Scripted) -> None:
    endpoint.requests.clear()
    endpoint.times.clear()
    endpoint.script[:] = [429, 503, 429]
    with running(config=config(endpoint), policy=POLICY) as d:
        with d.control() as c:
            job = run_job(d, c)
            assert job["state"] == "done" and job["proposed"] == 1
            # The 503 spent an attempt, the 429s none (a throttle is not the job's).
            assert job["attempts"] == 2
    # One request per attempt, each after a backoff of at least half the
    # initial delay: never a burst.
    assert len(endpoint.requests) == 4
    gaps = [b - a for a, b in zip(endpoint.times, endpoint.times[1:], strict=False)]
    assert all(gap >= 0.2 for gap in gaps), gaps


def test_a_throttle_waits_its_retry_after_and_spends_no_attempt(endpoint: Scripted) -> None:
    endpoint.requests.clear()
    endpoint.times.clear()
    # More 429s than max_attempts (5), the first asking for a second: more
    # than its backoff (0.2 to 0.4 s), as much as backoff_max_s.
    endpoint.script[:] = [(429, 1), 429, 429, 429, 429, 429]
    with running(config=config(endpoint), policy=POLICY) as d:
        with d.control() as c:
            job = run_job(d, c)
            assert (job["state"], job["proposed"], job["attempts"]) == ("done", 1, 1)
    assert len(endpoint.requests) == 7
    # Nothing was sent before the Retry-After had passed.
    assert endpoint.times[1] - endpoint.times[0] >= 1.0
