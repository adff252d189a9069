"""A minimal agent runner on memoryd's Python client (``memoryd.rpc.client``).

What every runner does, in order (docs/client.md walks through it):

1. begin a task on ``agent.sock`` (with the agent token from
   ``MEMORYD_AGENT_TOKEN`` when set) and keep its ``task_id``;
2. take the task's memory snapshot with ``memory.context`` and put its fenced
   ``rendered`` block into the model's prompt as background evidence;
3. run the model (here: the prompt is printed; plug your model in ``run_model``);
4. propose what the run learned with ``memory.write``, with an
   ``idempotency_key`` so that a retry after a timeout or a broken connection
   can never apply the change twice; report a ``pending`` outcome plainly (the
   operator approves it later with ``memctl approve``) instead of waiting;
5. end the task, whatever happened.

Run it against a running daemon:

    python examples/agent_runner.py --intent "deploy the acme service" \\
        --remember "Deploy day" "Deploys of the acme service happen on Tuesdays."
"""

from __future__ import annotations

import argparse
import json
import os
import secrets
import sys
import time
from collections.abc import Mapping, Sequence
from typing import Any

from memoryd.rpc.client import Client, ConnectError, ConnectionLost, RpcError
from memoryd.rpc.paths import agent_socket, resolve_home

RETRIES = 3


def call_with_retry(client: Client, method: str, params: Mapping[str, Any]) -> Any:
    """Call ``method``, retrying when the answer was lost on the way.

    Only safe because every write carries an ``idempotency_key``: the daemon
    answers a repeat with the first answer (same ``operation_id`` or
    ``action_id``) instead of acting again. Reads are safe to repeat anyway.
    """
    for attempt in range(RETRIES):
        try:
            return client.call(method, params)
        except (ConnectionLost, TimeoutError):
            if attempt == RETRIES - 1:
                raise
            time.sleep(0.2 * 2**attempt)
    raise AssertionError("unreachable")


def build_prompt(task_request: str, context: Mapping[str, Any]) -> str:
    # The rendered block is already fenced as untrusted evidence; keep it
    # apart from the instructions and never merge it into the system prompt.
    return f"You are a coding agent.\n\n{context['rendered']}\n\nTask: {task_request}\n"


def run_model(prompt: str) -> str:
    """Stand-in for the model call: a real runner sends ``prompt`` to its model."""
    return prompt


def remember(
    client: Client, task_id: str, title: str, body: str, idempotency_key: str
) -> dict[str, Any]:
    """Propose a new lesson; returns a short report of the outcome."""
    try:
        result = call_with_retry(
            client,
            "memory.write",
            {
                "task_id": task_id,
                "action": "add",
                "entry": {
                    "type": "lesson",
                    "title": title,
                    "body": body,
                    "basis": {"kind": "observed", "note": "seen during the run"},
                },
                "idempotency_key": idempotency_key,
            },
        )
    except RpcError as exc:
        # data.code says what happened and recovery what to do; a runner
        # logs the code, never the text it tried to store.
        return {"outcome": "refused", "code": exc.data_code, "recovery": exc.recovery}
    if result["outcome"] == "pending":
        return {"outcome": "pending", "action_id": result["action_id"]}
    return {
        "outcome": result["outcome"],
        "operation_id": result["operation_id"],
        "entry_ids": [e["id"] for e in result["entries"]],
    }


def run(argv: Sequence[str]) -> int:
    parser = argparse.ArgumentParser(description="A minimal memoryd agent runner.")
    parser.add_argument("--home", help="memoryd's home (default: as memoryd resolves it)")
    parser.add_argument("--intent", required=True, help="what the agent is about to do")
    parser.add_argument(
        "--remember",
        nargs=2,
        metavar=("TITLE", "BODY"),
        help="propose this lesson at the end of the run",
    )
    parser.add_argument("--json", action="store_true", help="print a JSON report")
    args = parser.parse_args(list(argv))

    begin: dict[str, Any] = {"workspace": os.getcwd()}
    if token := os.environ.get("MEMORYD_AGENT_TOKEN"):
        begin["token"] = token
    report: dict[str, Any] = {}
    try:
        with Client(agent_socket(resolve_home(args.home)), timeout=10) as client:
            task = client.call("task.begin", begin)
            task_id = task["task_id"]
            report["task_id"] = task_id
            report["grants"] = task["grants"]
            try:
                if "memory.context" in task["grants"]:
                    context = call_with_retry(
                        client, "memory.context", {"task_id": task_id, "intent": args.intent}
                    )
                    report["cards"] = [card["title"] for card in context["entries"]]
                else:
                    # No read consent: run without memory rather than fail.
                    context = {"rendered": "", "entries": []}
                report["prompt"] = build_prompt(args.intent, context)
                run_model(report["prompt"])
                if args.remember:
                    if "memory.write" in task["grants"]:
                        # One key per proposal, made before the first attempt
                        # and reused by every retry of it.
                        key = "run-" + secrets.token_hex(8)
                        report["write"] = remember(client, task_id, *args.remember, key)
                    else:
                        report["write"] = {"outcome": "skipped", "code": "consent_required"}
            finally:
                client.call("task.end", {"task_id": task_id})
    except ConnectError as exc:
        print(f"agent_runner: {exc}", file=sys.stderr)
        return 3
    except RpcError as exc:
        print(f"agent_runner: memoryd refused ({exc.data_code}): {exc.recovery}", file=sys.stderr)
        return 1

    if args.json:
        print(json.dumps(report, indent=2, sort_keys=True))
        return 0
    print(report["prompt"])
    write = report.get("write")
    if write and write["outcome"] == "pending":
        print(f"proposed memory is waiting for the operator's approval: {write['action_id']}")
    elif write:
        print(f"memory write: {json.dumps(write, sort_keys=True)}")
    return 0


if __name__ == "__main__":
    sys.exit(run(sys.argv[1:]))
