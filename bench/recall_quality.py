"""Recall quality: recall@1, recall@5 and MRR of lexical and hybrid ranking, side by side.

Uses the labelled set ``tests/data/recall_quality.json`` (memories, fillers
and queries, each query naming the memory it needs; ``paraphrase`` queries
share no content word with their memory, ``lexical`` ones do). For each
ranker it starts a real memoryd on a temporary home (``[recall] ranker``
``"lexical"`` or ``"auto"``), stores every memory and filler on the control
channel, waits until the worker has embedded them all (hybrid), then asks
each query as an agent task's ``memory.context`` intent and finds the rank of
the needed memory among the snapshot's cards (cards are best first; a memory
not among them has no rank). The snapshot limit is raised to 20 cards, so
the cards are the ranking and not a cut of it.

    .venv/bin/python bench/recall_quality.py            # table
    .venv/bin/python bench/recall_quality.py --json out.json

Needs the semantic extra for the hybrid column (``pip install -e '.[semantic]'``).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tests.harness import enable_consent, entry, running

DATA = Path(__file__).resolve().parent.parent / "tests" / "data" / "recall_quality.json"
CONFIG = ("[recall]\nmax_entries = 20\nmax_bytes = 65536\nmax_tokens = 65536\n"
          "ranker = \"{ranker}\"\n")


def _wait_embedded(c: Any, want: int, timeout: float = 600.0) -> dict[str, Any]:
    deadline = time.monotonic() + timeout
    while True:
        recall = c.call("memory.status", {})["recall"]
        if recall["ranker"] != "hybrid":
            return dict(recall)
        if recall["embedded"] >= want and recall["queued"] == 0:
            return dict(recall)
        if time.monotonic() > deadline:
            raise SystemExit("the embedding worker did not finish in time")
        time.sleep(0.2)


def ranks(ranker: str, data: dict[str, Any]) -> tuple[list[int | None], dict[str, Any]]:
    """The rank (1-based) of each query's memory under ``ranker``, and status.recall."""
    with running(config=CONFIG.format(ranker=ranker)) as d:
        ids: dict[str, str] = {}
        with d.control() as c:
            enable_consent(c)
            items = [(m["key"], m) for m in data["memories"]]
            items += [(f"filler{i}", f) for i, f in enumerate(data["fillers"])]
            for key, m in items:
                out = c.call("memory.write", {"target": "memory", "action": "add",
                                              "entry": entry(m["title"], m["body"], "fact")})
                ids[key] = out["entries"][0]["id"]
            recall = _wait_embedded(c, len(items))
        found: list[int | None] = []
        with d.agent() as a:
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
    return {"recall@1": sum(1 for r in found if r == 1) / n,
            "recall@5": sum(1 for r in found if r is not None and r <= 5) / n,
            "mrr": sum(1.0 / r for r in found if r is not None) / n}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", type=Path, help="also write the figures here")
    args = parser.parse_args(argv)
    data = json.loads(DATA.read_text(encoding="utf-8"))
    kinds = [q["kind"] for q in data["queries"]]
    langs = ["zh" if any("\u4e00" <= ch <= "\u9fff" for ch in q["q"]) else "en"
             for q in data["queries"]]
    out: dict[str, Any] = {"queries": len(kinds), "memories": len(data["memories"]),
                           "fillers": len(data["fillers"]), "rankers": {}}
    for ranker, label in (("lexical", "lexical"), ("auto", "hybrid")):
        found, recall = ranks(ranker, data)
        if label == "hybrid" and recall["ranker"] != "hybrid":
            print("hybrid: the semantic extra is not installed; skipped", file=sys.stderr)
            continue
        table: dict[str, Any] = {"model": recall.get("model")}
        for subset in ("paraphrase", "lexical"):
            for lang in ("en", "zh", "all"):
                picked = [r for r, k, g in zip(found, kinds, langs, strict=True)
                          if k == subset and (lang == "all" or g == lang)]
                table[f"{subset}/{lang}"] = {"n": len(picked), **metrics(picked)}
        table["all"] = {"n": len(found), **metrics(found)}
        out["rankers"][label] = table
    rows = [f"{k}/{g}" for k in ("paraphrase", "lexical") for g in ("en", "zh", "all")] + ["all"]
    print(f"{'subset':<16} {'n':>3}  " + "  ".join(
        f"{name + ' r@1':>12} {'r@5':>6} {'MRR':>6}" for name in out["rankers"]))
    for row in rows:
        cells = []
        n = 0
        for table in out["rankers"].values():
            m = table[row]
            n = m["n"]
            cells.append(f"{m['recall@1']:>12.3f} {m['recall@5']:>6.3f} {m['mrr']:>6.3f}")
        print(f"{row:<16} {n:>3}  " + "  ".join(cells))
    if args.json:
        args.json.write_text(json.dumps(out, indent=2) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
