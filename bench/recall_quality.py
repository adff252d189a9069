"""Recall quality: how often the memory a question needs is ranked near the top.

Two sets, each measured on a real memoryd started on a temporary home (SQLite):

``--set labelled`` (the default): recall@1, recall@5 and MRR of lexical and
hybrid ranking on ``tests/data/recall_quality.json`` (memories, fillers and
queries, each query naming the memory it needs; ``paraphrase`` queries share
no content word with their memory, ``lexical`` ones do). For each ranker it
starts a daemon (``[recall] ranker`` ``"lexical"`` or ``"auto"``), stores
every memory and filler on the control channel, waits until the worker has
embedded them all (hybrid), then asks each query as an agent task's
``memory.context`` intent and finds the rank of the needed memory among the
snapshot's cards (best first; a memory not among them has no rank). The
snapshot limit is raised to 20 cards, so the cards are the ranking and not a
cut of it.

``--set conversations``: recall@5, recall@10 and MRR per question category,
on the conversation set ``tests/data/conversations/`` (see its README), dev
and held-out questions reported apart. The protocol is an agent runner's:

- each conversation belongs to an owner of its own (a local identity with
  read and contribute consent and an agent token), so ranking statistics are
  per conversation; the policy allows agent writes to the benchmark's scope;
- every turn is stored as ONE entry, written through ``agent.sock`` in a task
  begun with the token: ``memory.write`` ``target: memory, action: add``, type
  ``fact``, title ``"<speaker>, <day> <month> <year> #<n>"`` (the session's date
  and the turn's place in it: titles are unique in a scope),
  body ``"<speaker>: <text>"``;
- each question is asked in a new task as the intent of ``memory.context``
  (snapshot limit 20 cards) and as the query of ``memory.list`` search
  (page size 20); the ranking is the cards', or the items', order;
- the rankers: ``lexical`` (``ranker = "lexical"``), ``hybrid``
  (``ranker = "auto"`` with the semantic extra, which the test extra installs;
  the bench waits until every turn is embedded; skipped, with a note, when
  the extra is missing) and ``bm25``, a plain Okapi BM25 computed here over
  the same texts (title and body, and the context when ``--with-context``),
  one index per conversation, tokenised the same way for both languages:
  lower-cased runs of letters and digits, and two-character sequences of CJK
  runs; no stemming, no stop words.

Recall@k of a question is the FRACTION of its evidence turns among the first
k (a question with two evidence turns and one of them in the top 5 scores 0.5
at recall@5); MRR is the mean of 1/rank of the first evidence turn found (0
when none is among the 20 returned). Figures are means over the questions of
a category; ``overall`` is over all questions.

    .venv/bin/python bench/recall_quality.py                       # labelled set
    .venv/bin/python bench/recall_quality.py --set conversations   # full run
    .venv/bin/python bench/recall_quality.py --set conversations --quick

Options of ``--set conversations``:

- ``--split dev|heldout|all`` which questions (default ``all``; tune on
  ``dev`` only);
- ``--rankers lexical,hybrid,bm25`` which rankers (default all three);
- ``--limit N`` at most N questions per conversation, spread evenly over its
  list (so over the categories) for a quick look;
- ``--with-context`` adds the previous turn of the same session, as
  ``"<speaker>: <text>"``, in the entry's ``context`` field (searched, not
  shown; a daemon without the field refuses the write);
- ``--with-time`` adds the session date in the entry's ``observed_at`` field
  (the time the entry speaks of; same caveat);
- ``--quick`` lexical and bm25, dev split, 20 questions per conversation: the
  CI smoke run (printed, never asserted);
- ``--json out.json`` also writes the figures (both sets).

Needs the semantic extra for the hybrid column (``pip install -e '.[semantic]'``).
"""

from __future__ import annotations

import argparse
import json
import math
import re
import sys
import time
from collections import Counter
from datetime import datetime
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.daemon import enable_consent, running
from memoryd.rpc.client import Client, RpcError

REPO = Path(__file__).resolve().parent.parent

DATA = REPO / "tests" / "data" / "recall_quality.json"
CONVERSATIONS = REPO / "tests" / "data" / "conversations"
CONFIG = '[recall]\nmax_entries = 20\nmax_bytes = 65536\nmax_tokens = 65536\nranker = "{ranker}"\n'


# The daemons are bench/daemon.py's: ``memoryd serve`` on a short temporary home.
# Calls wait up to two minutes: a hybrid daemon embeds while it answers.
CALL_TIMEOUT = 120.0


def _wait_embedded(
    c: Client, want: int, identity: dict[str, Any] | None = None, timeout: float = 1800.0
) -> dict[str, Any]:
    params: dict[str, Any] = {} if identity is None else {"identity": identity}
    deadline = time.monotonic() + timeout
    while True:
        recall = c.call("memory.status", params)["recall"]
        if recall["ranker"] != "hybrid":
            return dict(recall)
        if (
            recall["embedded"] >= want
            and recall["queued"] == 0
            and recall.get("index", "exact") == "exact"
        ):
            return dict(recall)
        if time.monotonic() > deadline:
            raise SystemExit("the embedding worker did not finish in time")
        time.sleep(0.2)


# --- the labelled set ---------------------------------------------------------------


def ranks(ranker: str, data: dict[str, Any]) -> tuple[list[int | None], dict[str, Any]]:
    """The rank (1-based) of each query's memory under ``ranker``, and status.recall."""
    with running(config=CONFIG.format(ranker=ranker)) as d:
        ids: dict[str, str] = {}
        with d.control(CALL_TIMEOUT) as c:
            enable_consent(c)
            items = [(m["key"], m) for m in data["memories"]]
            items += [(f"filler{i}", f) for i, f in enumerate(data["fillers"])]
            for key, m in items:
                out = c.call(
                    "memory.write",
                    {
                        "target": "memory",
                        "action": "add",
                        "entry": {"type": "fact", "title": m["title"], "body": m["body"]},
                    },
                )
                ids[key] = out["entries"][0]["id"]
            recall = _wait_embedded(c, len(items))
        found: list[int | None] = []
        with d.agent(CALL_TIMEOUT) as a:
            for q in data["queries"]:
                task = a.call("task.begin", {})["task_id"]
                snap = a.call("memory.context", {"task_id": task, "intent": q["q"]})
                order = [card["id"] for card in snap["entries"]]
                want = ids[q["target"]]
                found.append(order.index(want) + 1 if want in order else None)
                a.call("task.end", {"task_id": task})
    return found, recall


def metrics(found: list[int | None]) -> dict[str, float]:
    n = len(found) or 1
    return {
        "recall@1": sum(1 for r in found if r == 1) / n,
        "recall@5": sum(1 for r in found if r is not None and r <= 5) / n,
        "mrr": sum(1.0 / r for r in found if r is not None) / n,
    }


def labelled(json_out: Path | None) -> int:
    data = json.loads(DATA.read_text(encoding="utf-8"))
    kinds = [q["kind"] for q in data["queries"]]
    langs = [
        "zh" if any("\u4e00" <= ch <= "\u9fff" for ch in q["q"]) else "en" for q in data["queries"]
    ]
    out: dict[str, Any] = {
        "queries": len(kinds),
        "memories": len(data["memories"]),
        "fillers": len(data["fillers"]),
        "rankers": {},
    }
    for ranker, label in (("lexical", "lexical"), ("auto", "hybrid")):
        found, recall = ranks(ranker, data)
        if label == "hybrid" and recall["ranker"] != "hybrid":
            print("hybrid: the semantic extra is not installed; skipped", file=sys.stderr)
            continue
        table: dict[str, Any] = {"model": recall.get("model")}
        for subset in ("paraphrase", "lexical"):
            for lang in ("en", "zh", "all"):
                picked = [
                    r
                    for r, k, g in zip(found, kinds, langs, strict=True)
                    if k == subset and (lang == "all" or g == lang)
                ]
                table[f"{subset}/{lang}"] = {"n": len(picked), **metrics(picked)}
        table["all"] = {"n": len(found), **metrics(found)}
        out["rankers"][label] = table
    rows = [f"{k}/{g}" for k in ("paraphrase", "lexical") for g in ("en", "zh", "all")] + ["all"]
    print(
        f"{'subset':<16} {'n':>3}  "
        + "  ".join(f"{name + ' r@1':>12} {'r@5':>6} {'MRR':>6}" for name in out["rankers"])
    )
    for row in rows:
        cells = []
        n = 0
        for table in out["rankers"].values():
            m = table[row]
            n = m["n"]
            cells.append(f"{m['recall@1']:>12.3f} {m['recall@5']:>6.3f} {m['mrr']:>6.3f}")
        print(f"{row:<16} {n:>3}  " + "  ".join(cells))
    if json_out:
        json_out.write_text(json.dumps(out, indent=2) + "\n", encoding="utf-8")
    return 0


# --- the conversation set -----------------------------------------------------------

SCOPE = "bench:conversation"
CONV_CONFIG = (
    "scope_budget_bytes = 1000000000\nmax_open_tasks = 100000\n"
    "[recall]\nmax_entries = 20\nmax_bytes = 65536\nmax_tokens = 65536\n"
    'ranker = "{ranker}"\n'
)
CONV_POLICY = f"""
[[rule]]
id = "bench-conversation-writes"
effect = "allow"
description = "the recall benchmark stores every turn of a conversation"
capability = "MemoryWrite"
channel = "agent"
scope = "{SCOPE}"
"""
CATEGORIES = ("single-hop", "multi-hop", "temporal", "open-domain", "paraphrase")
MONTHS = ("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec")
TOP = 20
# Runs of letters/digits that are not CJK, and runs of CJK ideographs.
_CJK_RUN = re.compile(r"[\u3400-\u9fff\uf900-\ufaff]+")
_TOKEN = re.compile(r"[\u3400-\u9fff\uf900-\ufaff]+|[^\W_\u3400-\u9fff\uf900-\ufaff]+")


def tokens(text: str) -> list[str]:
    """Lower-cased words; a CJK run as its two-character sequences (a lone
    character as itself)."""
    out: list[str] = []
    for run in _TOKEN.findall(text.lower()):
        if _CJK_RUN.fullmatch(run) and len(run) > 1:
            out.extend(run[i : i + 2] for i in range(len(run) - 1))
        else:
            out.append(run)
    return out


class BM25:
    """Okapi BM25 (k1 1.2, b 0.75, idf ln(1 + (N - n + .5) / (n + .5)))."""

    def __init__(self, docs: list[list[str]], k1: float = 1.2, b: float = 0.75) -> None:
        self.k1, self.b = k1, b
        self.tf = [Counter(d) for d in docs]
        self.lengths = [len(d) for d in docs]
        self.avg = sum(self.lengths) / max(1, len(docs))
        df = Counter(t for d in docs for t in set(d))
        self.idf = {t: math.log(1 + (len(docs) - n + 0.5) / (n + 0.5)) for t, n in df.items()}

    def top(self, query: list[str], k: int) -> list[int]:
        scores: list[tuple[float, int]] = []
        terms = set(query) & self.idf.keys()
        for i, tf in enumerate(self.tf):
            norm = self.k1 * (1 - self.b + self.b * self.lengths[i] / self.avg)
            s = sum(self.idf[t] * tf[t] * (self.k1 + 1) / (tf[t] + norm) for t in terms if t in tf)
            if s > 0:
                scores.append((-s, i))
        return [i for _, i in sorted(scores)[:k]]


def load_conversations() -> list[dict[str, Any]]:
    return [
        json.loads(p.read_text(encoding="utf-8")) for p in sorted(CONVERSATIONS.glob("conv-*.json"))
    ]


def pick(conversation: dict[str, Any], split: str, limit: int | None) -> list[dict[str, Any]]:
    """The conversation's questions of ``split``; with ``limit``, that many spread
    evenly over the list (the list runs category by category)."""
    qs = [q for q in conversation["questions"] if split == "all" or q["split"] == split]
    if limit is not None and len(qs) > limit:
        qs = [qs[i * len(qs) // limit] for i in range(limit)]
    return qs


def turn_entries(
    conversation: dict[str, Any], with_context: bool, with_time: bool
) -> list[tuple[str, dict[str, Any]]]:
    """(turn id, entry) for every turn, in order."""
    out = []
    for session in conversation["sessions"]:
        day = datetime.fromisoformat(session["date"])
        date = f"{day.day} {MONTHS[day.month - 1]} {day.year}"
        previous: dict[str, Any] | None = None
        for n, turn in enumerate(session["turns"], 1):
            # A scope's active titles are unique: the turn's place in its session
            # tells two turns of one speaker on one day apart.
            entry: dict[str, Any] = {
                "type": "fact",
                "title": f"{turn['speaker']}, {date} #{n}",
                "body": f"{turn['speaker']}: {turn['text']}",
            }
            if with_context and previous is not None:
                entry["context"] = f"{previous['speaker']}: {previous['text']}"
            if with_time:
                entry["observed_at"] = session["date"]
            out.append((turn["id"], entry))
            previous = turn
    return out


def memoryd_rankings(
    ranker: str,
    conversations: list[dict[str, Any]],
    questions: dict[str, list[dict[str, Any]]],
    with_context: bool,
    with_time: bool,
) -> tuple[dict[str, dict[str, list[str]]], dict[str, Any]]:
    """For ``memory.context`` and ``memory.list``: each question's ranked turn ids,
    and status.recall of the last owner."""
    found: dict[str, dict[str, list[str]]] = {"context": {}, "list": {}}
    recall: dict[str, Any] = {}
    with (
        running(config=CONV_CONFIG.format(ranker=ranker), policy=CONV_POLICY) as d,
        d.control(CALL_TIMEOUT) as c,
    ):
        for conversation in conversations:
            identity = {"kind": "local", "subject": "bench-" + conversation["id"]}
            enable_consent(c, identity)
            token = c.call("token.issue", {"identity": identity})["token"]
            turn_of: dict[str, str] = {}
            entries = turn_entries(conversation, with_context, with_time)
            with d.agent(CALL_TIMEOUT) as a:
                task = a.call("task.begin", {"token": token, "scopes": [SCOPE]})["task_id"]
                for turn_id, entry in entries:
                    try:
                        out = a.call(
                            "memory.write",
                            {
                                "task_id": task,
                                "target": "memory",
                                "action": "add",
                                "scope": SCOPE,
                                "entry": entry,
                            },
                        )
                    except RpcError as exc:
                        extra = [f for f in ("context", "observed_at") if f in entry]
                        raise SystemExit(
                            f"a turn's write was refused ({exc}); this daemon "
                            "may not take the entry fields "
                            f"{', '.join(extra)}"
                            if extra
                            else f"a turn's write was refused ({exc})"
                        ) from None
                    if out["outcome"] != "applied":
                        raise SystemExit(f"a turn's write was not applied: {out['outcome']}")
                    turn_of[out["entries"][0]["id"]] = turn_id
                a.call("task.end", {"task_id": task})
            recall = _wait_embedded(c, len(entries), identity)
            with d.agent(CALL_TIMEOUT) as a:
                for q in questions[conversation["id"]]:
                    task = a.call("task.begin", {"token": token, "scopes": [SCOPE]})["task_id"]
                    snap = a.call("memory.context", {"task_id": task, "intent": q["question"]})
                    found["context"][q["id"]] = [turn_of[card["id"]] for card in snap["entries"]]
                    hits = a.call(
                        "memory.list",
                        {
                            "task_id": task,
                            "query": q["question"],
                            "mode": "search",
                            "page_size": TOP,
                        },
                    )
                    found["list"][q["id"]] = [turn_of[item["id"]] for item in hits["items"]]
                    a.call("task.end", {"task_id": task})
    return found, recall


def bm25_rankings(
    conversations: list[dict[str, Any]],
    questions: dict[str, list[dict[str, Any]]],
    with_context: bool,
) -> dict[str, list[str]]:
    found: dict[str, list[str]] = {}
    for conversation in conversations:
        entries = turn_entries(conversation, with_context, False)
        index = BM25(
            [tokens(" ".join((e["title"], e["body"], e.get("context", "")))) for _, e in entries]
        )
        for q in questions[conversation["id"]]:
            found[q["id"]] = [entries[i][0] for i in index.top(tokens(q["question"]), TOP)]
    return found


def scores(ranked: list[str], evidence: list[str]) -> dict[str, float]:
    want = set(evidence)
    first = next((i + 1 for i, t in enumerate(ranked) if t in want), None)
    return {
        "recall@5": len(want & set(ranked[:5])) / len(want),
        "recall@10": len(want & set(ranked[:10])) / len(want),
        "mrr": 1.0 / first if first else 0.0,
    }


def summarise(found: dict[str, list[str]], asked: list[dict[str, Any]]) -> dict[str, Any]:
    """Per split and category (and overall): n and the mean of each figure."""
    table: dict[str, Any] = {}
    for split in ("dev", "heldout"):
        rows: dict[str, Any] = {}
        for category in (*CATEGORIES, "overall"):
            picked = [
                scores(found[q["id"]], q["evidence"])
                for q in asked
                if q["split"] == split and category in ("overall", q["category"])
            ]
            if picked:
                rows[category] = {
                    "n": len(picked),
                    **{
                        k: sum(p[k] for p in picked) / len(picked)
                        for k in ("recall@5", "recall@10", "mrr")
                    },
                }
        if rows:
            table[split] = rows
    return table


def print_tables(systems: dict[str, dict[str, Any]]) -> None:
    for split in ("dev", "heldout"):
        present = {name: t[split] for name, t in systems.items() if split in t}
        if not present:
            continue
        print(f"\n{split}: recall@5 / recall@10 / MRR of the evidence turns")
        print(f"{'category':<12} {'n':>4}  " + "  ".join(f"{name:>20}" for name in present))
        for category in (*CATEGORIES, "overall"):
            rows = [t.get(category) for t in present.values()]
            n = next((r["n"] for r in rows if r), 0)
            if not n:
                continue
            cells = [
                f"{r['recall@5']:>6.3f} {r['recall@10']:>6.3f} {r['mrr']:>6.3f}"
                if r
                else f"{'-':>20}"
                for r in rows
            ]
            print(f"{category:<12} {n:>4}  " + "  ".join(cells))


def conversations(args: argparse.Namespace) -> int:
    rankers = [r.strip() for r in args.rankers.split(",") if r.strip()]
    unknown = set(rankers) - {"lexical", "hybrid", "bm25"}
    if unknown:
        raise SystemExit(f"unknown rankers: {', '.join(sorted(unknown))}")
    every = load_conversations()
    questions = {c["id"]: pick(c, args.split, args.limit) for c in every}
    chosen = [c for c in every if questions[c["id"]]]
    asked = [q for c in chosen for q in questions[c["id"]]]
    t0 = time.monotonic()
    systems: dict[str, dict[str, Any]] = {}
    notes: list[str] = []
    for ranker in rankers:
        if ranker == "bm25":
            systems["bm25"] = summarise(bm25_rankings(chosen, questions, args.with_context), asked)
            continue
        found, recall = memoryd_rankings(
            "lexical" if ranker == "lexical" else "auto",
            chosen,
            questions,
            args.with_context,
            args.with_time,
        )
        if ranker == "hybrid" and recall.get("ranker") != "hybrid":
            notes.append("hybrid skipped: the semantic extra is not installed")
            continue
        if ranker == "hybrid":
            notes.append(f"hybrid model: {recall.get('model')}")
        systems[ranker] = summarise(found["context"], asked)
        systems[ranker + ":list"] = summarise(found["list"], asked)
    turns = sum(len(s["turns"]) for c in chosen for s in c["sessions"])
    print(
        f"conversation set: {len(chosen)} conversations, {turns} turns, {len(asked)} "
        f"questions (split {args.split}"
        + (f", at most {args.limit} per conversation" if args.limit else "")
        + (", with context" if args.with_context else "")
        + (", with time" if args.with_time else "")
        + ")"
    )
    print(
        "systems: <ranker> is memory.context, <ranker>:list is memory.list search; "
        "recall@k is the fraction of evidence turns in the top k"
    )
    print_tables(systems)
    for note in notes:
        print(note)
    print(f"\n{time.monotonic() - t0:.0f} s")
    if args.json:
        out = {
            "set": "conversations",
            "split": args.split,
            "limit": args.limit,
            "with_context": args.with_context,
            "with_time": args.with_time,
            "conversations": [c["id"] for c in chosen],
            "turns": turns,
            "questions": len(asked),
            "systems": systems,
            "notes": notes,
        }
        args.json.write_text(json.dumps(out, indent=2) + "\n", encoding="utf-8")
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--set", choices=("labelled", "conversations"), default="labelled")
    parser.add_argument("--json", type=Path, help="also write the figures here")
    parser.add_argument("--split", choices=("dev", "heldout", "all"), default="all")
    parser.add_argument("--rankers", default="lexical,hybrid,bm25")
    parser.add_argument("--limit", type=int, help="at most N questions per conversation")
    parser.add_argument(
        "--with-context",
        action="store_true",
        help="store the previous turn in each entry's context field",
    )
    parser.add_argument(
        "--with-time",
        action="store_true",
        help="store the session date in each entry's observed_at field",
    )
    parser.add_argument(
        "--quick",
        action="store_true",
        help="lexical and bm25, dev split, 20 questions per conversation",
    )
    args = parser.parse_args(argv)
    if args.set == "labelled":
        return labelled(args.json)
    if args.quick:
        args.rankers, args.split, args.limit = "lexical,bm25", "dev", args.limit or 20
    if args.limit is not None and args.limit < 1:
        parser.error("--limit must be at least 1")
    return conversations(args)


if __name__ == "__main__":
    raise SystemExit(main())
