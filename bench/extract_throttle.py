"""The extraction queue through a throttling endpoint, in real time (docs/extraction.md).

Starts a real ``memoryd`` whose language-model extractor talks to a scripted
OpenAI-compatible endpoint this script runs on loopback. Finished tasks with
transcripts (``task.end`` with ``transcript``) are submitted at a steady rate
for ``--minutes``; from ``--throttle-at`` the endpoint answers ``429`` for
``--throttle-minutes`` (every other refusal with a ``Retry-After``), then
answers normally. Every few seconds the queue's counts are read from
``extract.status`` on the control socket, and every request the endpoint
receives is recorded with its time (each is one job started).

Prints a timeline per 30 s (submitted, queued, running, done, deferred,
endpoint requests) and a summary: the peak queue, the endpoint's requests per
minute while it refused (backoff, not a storm), the most job starts in any 60
seconds after it came back against the configured ``max_jobs_per_minute``, and
how long the backlog took to drain. Figures are printed, never asserted:
they are timings on a shared machine. The exit status is 1 only when a
submitted job did not end ``done`` or a candidate was proposed other than
once. The same rules under a clock a test moves are
tests/blackbox/test_extraction_throttle.py.

Usage: python bench/extract_throttle.py [--minutes 10] [--throttle-minutes 5] [--quick]
"""

from __future__ import annotations

import argparse
import itertools
import json
import re
import sys
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.chat_endpoint import ChatEndpoint, Reply, user_text
from bench.daemon import enable_consent, running
from memoryd.rpc.client import Client, RpcError

POLICY = (
    '[[rule]]\nid = "bench-endpoint"\neffect = "allow"\ncapability = "NetworkAccess"\n\n'
    '[[rule]]\nid = "bench-transcripts"\neffect = "allow"\n'
    'capability = "MemoryExternalize"\naction = "extract"\n'
)


@dataclass
class Endpoint:
    """The scripted endpoint's plan and what it received: (seconds since the
    run began, status) per request."""

    start: float
    refuse_from: float
    refuse_until: float
    retry_after: int
    requests: list[tuple[float, int]] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def reply(self, body: dict[str, Any]) -> Reply:
        at = time.monotonic() - self.start
        with self.lock:
            refused = sum(1 for _, s in self.requests if s == 429)
            if self.refuse_from <= at < self.refuse_until:
                self.requests.append((at, 429))
                headers = {"Retry-After": str(self.retry_after)} if refused % 2 else {}
                return 429, headers, ""
            self.requests.append((at, 200))
        match = re.search(r"^\[0\] user: (.*)$", user_text(body), re.MULTILINE)
        quote = match.group(1) if match else ""
        return (
            200,
            {},
            json.dumps(
                {"memories": [{"type": "fact", "title": quote[:11], "turn": 0, "quote": quote}]}
            ),
        )


def sentence(n: int) -> str:
    return f"Service {n:04d} is deployed with Helm from the ops repository."


def pending_bodies(c: Client) -> list[str]:
    bodies: list[str] = []
    cursor = None
    while True:
        page = c.call(
            "governance.action.list",
            {"status": "pending", **({"cursor": cursor} if cursor else {})},
        )
        for item in page["items"]:
            action = c.call("governance.action.get", {"action_id": item["action_id"]})
            bodies.extend(op["entry"]["body"] for op in action["ops"])
        cursor = page.get("next_cursor")
        if not cursor:
            return bodies


def busiest_minute(times: list[float]) -> int:
    """The most of ``times`` in any half-open 60-second window."""
    return max((sum(1 for u in times if t <= u < t + 60) for t in times), default=0)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--minutes", type=float, default=10.0, help="minutes of submissions")
    parser.add_argument("--throttle-minutes", type=float, default=5.0)
    parser.add_argument(
        "--throttle-at",
        type=float,
        default=1.0,
        help="minute at which the endpoint starts refusing",
    )
    parser.add_argument("--submit-every", type=float, default=6.0, help="seconds between tasks")
    parser.add_argument("--rate", type=float, default=30.0, help="[extract] max_jobs_per_minute")
    parser.add_argument("--backoff-max", type=float, default=120.0, help="[extract] backoff_max_s")
    parser.add_argument(
        "--retry-after",
        type=int,
        default=30,
        help="seconds every other refusal's Retry-After asks for",
    )
    parser.add_argument(
        "--drain-limit",
        type=float,
        default=10.0,
        help="minutes to wait for the backlog after the submissions",
    )
    parser.add_argument(
        "--quick", action="store_true", help="a 2-minute run with a 1-minute throttle from 0.25 min"
    )
    args = parser.parse_args()
    if args.quick:
        args.minutes, args.throttle_minutes, args.throttle_at = 2.0, 1.0, 0.25
    refuse_from = args.throttle_at * 60
    refuse_until = refuse_from + args.throttle_minutes * 60
    # The clock starts once the daemon is up; no request comes before.
    endpoint = Endpoint(0.0, refuse_from, refuse_until, args.retry_after)
    server = ChatEndpoint(endpoint.reply)
    config = (
        '[extract]\nextractor = "model"\n'
        f"max_jobs_per_minute = {args.rate}\nbackoff_max_s = {args.backoff_max}\n"
        f'[extract.model]\nendpoint = "{server.url}"\n'
        'model = "scripted"\n'
    )
    print(
        f"endpoint refuses (429, every other with Retry-After: {args.retry_after}) from"
        f" {refuse_from:.0f} s to {refuse_until:.0f} s; a task every {args.submit_every:g} s"
        f" for {args.minutes:g} min; max_jobs_per_minute = {args.rate:g},"
        f" backoff_initial_s = 5, backoff_max_s = {args.backoff_max:g}"
    )
    sys.stdout.flush()
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    samples: list[tuple[float, dict[str, int]]] = []
    submitted: list[float] = []
    refused_submissions = 0
    try:
        with running(config=config, policy=POLICY) as d, d.control() as c, d.agent() as a:
            enable_consent(c)
            start = endpoint.start = time.monotonic()
            thread.start()
            next_sample = 0.0
            stop_submitting = args.minutes * 60
            give_up = stop_submitting + args.drain_limit * 60
            while True:
                at = time.monotonic() - start
                if at < stop_submitting and at >= len(submitted) * args.submit_every:
                    n = len(submitted)
                    submitted.append(at)
                    task = a.call("task.begin", {})
                    try:
                        a.call(
                            "task.end",
                            {
                                "task_id": task["task_id"],
                                "transcript": [
                                    {"role": "user", "content": sentence(n)},
                                    {"role": "assistant", "content": "Noted."},
                                ],
                            },
                        )
                    except RpcError:
                        refused_submissions += 1
                if at >= next_sample:
                    counts = c.call("extract.status", {})["counts"]
                    samples.append((at, counts))
                    next_sample += 2.0
                    if (
                        at >= stop_submitting and counts["queued"] == 0 and counts["running"] == 0
                    ) or at >= give_up:
                        break
                time.sleep(0.05)
            bodies = pending_bodies(c)
            final = c.call("extract.status", {})["counts"]
    finally:
        server.shutdown()
        server.server_close()
    requests = list(endpoint.requests)
    report(args, samples, submitted, requests, refuse_from, refuse_until)
    expected = [sentence(n) for n in range(len(submitted))]
    lost = len(submitted) - refused_submissions - final["done"]
    twice = len(bodies) - len(set(bodies))
    missing = len(set(expected) - set(bodies))
    print(
        f"jobs: {len(submitted)} submitted, {refused_submissions} refused at submission,"
        f" {final['done']} done, {final['failed']} failed, {final['queued']} queued;"
        f" proposals: {len(bodies)} ({missing} submitted sentences never proposed,"
        f" {twice} proposed twice)"
    )
    return 0 if lost == 0 and twice == 0 and missing == refused_submissions else 1


def report(
    args: argparse.Namespace,
    samples: list[tuple[float, dict[str, int]]],
    submitted: list[float],
    requests: list[tuple[float, int]],
    refuse_from: float,
    refuse_until: float,
) -> None:
    print(
        f"{'t (s)':>7} {'submitted':>9} {'queued':>6} {'running':>7} {'done':>5}"
        f" {'deferred':>8} {'requests':>8}"
    )
    end = samples[-1][0] if samples else 0.0
    t = 0.0
    while t < end:
        last = [s for at, s in samples if at < t + 30]
        counts = last[-1] if last else {}
        print(
            f"{t + 30:7.0f} {sum(1 for u in submitted if t <= u < t + 30):9}"
            f" {counts.get('queued', 0):6} {counts.get('running', 0):7}"
            f" {counts.get('done', 0):5}"
            f" {sum(1 for u, s in requests if t <= u < t + 30 and s == 429):8}"
            f" {sum(1 for u, _ in requests if t <= u < t + 30):8}"
        )
        t += 30
    peak = max((s["queued"] + s["running"] for _, s in samples), default=0)
    refused = [u for u, s in requests if s == 429]
    gaps = [round(b - a, 1) for a, b in itertools.pairwise(refused)]
    minutes = (refuse_until - refuse_from) / 60
    back = [u for u, _ in requests if u >= refuse_until]
    first = min((u for u, s in requests if s == 200 and u >= refuse_until), default=None)
    drained = next(
        (
            at
            for at, s in samples
            if at >= refuse_until and s["queued"] == 0 and (first is not None and at > first)
        ),
        None,
    )
    submitted_per_min = 60 / args.submit_every
    print(f"peak queue (queued + running): {peak} jobs")
    print(
        f"while throttled: {len(refused)} requests in {minutes:g} min"
        f" = {len(refused) / minutes:.1f}/min (tasks arrived at {submitted_per_min:g}/min);"
        f" gaps between refusals (s): {gaps}"
    )
    print(
        f"after it returned: most job starts in any 60 s = {busiest_minute(back)}"
        f" (cap {args.rate:g}, ratio {busiest_minute(back) / args.rate:.2f})"
    )
    if first is not None:
        print(f"first answered request {first - refuse_until:.0f} s after the endpoint returned")
    if drained is not None:
        print(
            f"backlog drained {drained - refuse_until:.0f} s after the endpoint returned"
            " (first sample with nothing queued)"
        )
    else:
        print("backlog not drained within the run")


if __name__ == "__main__":
    raise SystemExit(main())
