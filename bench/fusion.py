"""The hybrid ranker's fusion, replayed: recall of lexical, vectors and fusions side by side.

Tuning the fusion through real ``memory.context`` calls means embedding a
set again for every setting. This replays it instead: a real memoryd
(``ranker = "lexical"``) stores the set and answers each question with a
``memory.list`` search (the BM25 order and scores the hybrid ranker fuses,
up to 100 candidates), the packaged model embeds every entry and question
once, as the daemon's worker and ranker do, and ``daemon.semantic.hybrid.fuse``
(with the query floor of ``Ranker.floor``) orders them. It prints recall@5
and recall@10 per category for lexical, vectors alone, the reciprocal rank
fusion the ranker used before, and the fusion at its constants; ``--grid``
adds the fusion over a grid of its two constants.

Sets: ``labelled`` (tests/data/recall_quality.json, every query its own
category) and ``conversations`` (tests/data/conversations: one entry per
turn, titled and worded as bench/recall_quality.py writes it, each
conversation in a scope of its own and asked within it; recall@k is the
share of a question's evidence turns among the first k). Tune on
``--split dev``; report ``heldout`` too.

    .venv/bin/python bench/fusion.py --set conversations --split dev --grid
    .venv/bin/python bench/fusion.py --set conversations --split heldout

Needs the semantic extra. Quality through ``memory.context`` itself is
bench/recall_quality.py.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import defaultdict
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.daemon import enable_consent, entry, running
from bench.recall_quality import turn_entries

DATA = Path(__file__).resolve().parent.parent / "tests" / "data"
CATEGORIES = ("single-hop", "multi-hop", "temporal", "open-domain", "paraphrase")


def load_set(name: str) -> tuple[list[tuple[str, str, str, str]], list[dict[str, Any]]]:
    """Entries ``(key, scope, title, body)`` and questions ``{q, targets, cat, split, scope}``."""
    docs: list[tuple[str, str, str, str]] = []
    questions: list[dict[str, Any]] = []
    if name == "labelled":
        data = json.loads((DATA / "recall_quality.json").read_text(encoding="utf-8"))
        docs += [(m["key"], "default", m["title"], m["body"]) for m in data["memories"]]
        docs += [
            (f"filler{i}", "default", f["title"], f["body"]) for i, f in enumerate(data["fillers"])
        ]
        for q in data["queries"]:
            zh = any("\u4e00" <= ch <= "\u9fff" for ch in q["q"])
            questions.append(
                {
                    "q": q["q"],
                    "targets": [q["target"]],
                    "split": "dev",
                    "cat": f"{q['kind']}/{'zh' if zh else 'en'}",
                    "scope": "default",
                }
            )
        return docs, questions
    for path in sorted((DATA / "conversations").glob("conv-*.json")):
        conv = json.loads(path.read_text(encoding="utf-8"))
        # Each turn written as bench/recall_quality.py writes it.
        docs += [
            (turn_id, conv["id"], e["title"], e["body"])
            for turn_id, e in turn_entries(conv, with_context=False, with_time=False)
        ]
        questions += [
            {
                "q": q["question"],
                "targets": q["evidence"],
                "cat": q["category"],
                "split": q["split"],
                "scope": conv["id"],
            }
            for q in conv["questions"]
        ]
    return docs, questions


def lexical_lists(
    docs: Sequence[tuple[str, str, str, str]], questions: Sequence[dict[str, Any]]
) -> list[list[tuple[str, float]]]:
    """Each question's BM25 candidates ``(key, score)``, best first, from a real daemon."""
    out: list[list[tuple[str, float]]] = []
    with running(config='[recall]\nranker = "lexical"\n') as d:
        keys: dict[str, str] = {}
        with d.control() as c:
            enable_consent(c)
            for at in range(0, len(docs), 50):
                part = docs[at : at + 50]
                ops = [
                    {"action": "add", "scope": scope, "entry": entry(title, body, "fact")}
                    for _, scope, title, body in part
                ]
                written = c.call(
                    "memory.write", {"target": "memory", "action": "batch", "ops": ops}
                )
                keys.update(
                    (e["id"], doc[0]) for doc, e in zip(part, written["entries"], strict=True)
                )
        with d.agent() as a:
            tasks: dict[str, str] = {}
            for q in questions:
                if q["scope"] not in tasks:
                    tasks[q["scope"]] = a.call("task.begin", {"scopes": [q["scope"]]})["task_id"]
                page = a.call(
                    "memory.list", {"task_id": tasks[q["scope"]], "query": q["q"], "page_size": 20}
                )
                items = list(page["items"])
                while page.get("next_cursor") and len(items) < 100:
                    page = a.call(
                        "memory.list", {"task_id": tasks[q["scope"]], "cursor": page["next_cursor"]}
                    )
                    items += page["items"]
                out.append([(keys[i["id"]], float(i["score"])) for i in items])
    return out


def rrf(*lists: Sequence[str], k: int = 60) -> list[str]:
    """Reciprocal rank fusion, as the hybrid ranker fused before (for comparison)."""
    scores: dict[str, float] = defaultdict(float)
    for ids in lists:
        for rank, key in enumerate(ids, start=1):
            scores[key] += 1.0 / (k + rank)
    return sorted(scores, key=lambda key: (-scores[key], key))


def main(argv: list[str] | None = None) -> int:
    import numpy as np

    from memoryd.daemon.config import RecallConfig
    from memoryd.daemon.semantic import hybrid
    from memoryd.daemon.semantic.embedding import entry_text, load

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--set", choices=("labelled", "conversations"), default="conversations")
    parser.add_argument("--split", choices=("dev", "heldout", "all"), default="dev")
    parser.add_argument("--grid", action="store_true", help="also the fusion over a grid")
    args = parser.parse_args(argv)
    embedder = load(RecallConfig()).embedder
    if embedder is None:
        raise SystemExit("the semantic extra is not installed")
    docs, questions = load_set(args.set)
    lexical = lexical_lists(docs, questions)
    matrix = np.asarray(
        embedder.passages([entry_text(t, b) for _, _, t, b in docs]), dtype=np.float32
    )
    anchors = np.asarray(embedder.passages(list(hybrid.ANCHORS)), dtype=np.float32)
    keys = [doc[0] for doc in docs]
    scopes = np.array([doc[1] for doc in docs])
    floors: list[float] = []
    near: list[list[tuple[str, float]]] = []
    for q in questions:
        qvec = np.asarray(embedder.query(q["q"][: hybrid.QUERY_CHARS]), dtype=np.float32)
        floor = max(
            hybrid.MIN_SIMILARITY, float(np.sort(anchors @ qvec)[-3:].mean()) + hybrid.MARGIN
        )
        cos = matrix @ qvec
        cos[scopes != q["scope"]] = -1.0
        order = np.argsort(-cos, kind="stable")[:200]
        floors.append(floor)
        near.append([(keys[i], float(cos[i])) for i in order if cos[i] >= floor])
    picked = [i for i, q in enumerate(questions) if args.split in ("all", q["split"])]
    cats = sorted(
        {questions[i]["cat"] for i in picked},
        key=lambda c: CATEGORIES.index(c) if c in CATEGORIES else 99,
    )

    def recall(order: Callable[[int], list[str]], k: int) -> dict[str, float]:
        got: dict[str, list[float]] = defaultdict(list)
        for i in picked:
            top = set(order(i)[:k])
            share = sum(1 for t in questions[i]["targets"] if t in top) / len(
                questions[i]["targets"]
            )
            got[questions[i]["cat"]].append(share)
            got["all"].append(share)
        return {c: sum(v) / len(v) for c, v in got.items()}

    def fused(weight: float, span: float) -> Callable[[int], list[str]]:
        return lambda i: [
            key
            for key, _ in hybrid.fuse(
                lexical[i], near[i][: hybrid.VECTOR_CANDIDATES], floors[i], weight=weight, span=span
            )
        ]

    rows: list[tuple[str, Callable[[int], list[str]]]] = [
        ("lexical", lambda i: [key for key, _ in lexical[i]]),
        ("vectors", lambda i: [key for key, _ in near[i]]),
        (
            "rrf (before)",
            lambda i: rrf([key for key, _ in lexical[i]], [key for key, _ in near[i]]),
        ),
        (f"fusion w={hybrid.WEIGHT} span={hybrid.SPAN}", fused(hybrid.WEIGHT, hybrid.SPAN)),
    ]
    if args.grid:
        rows += [
            (f"  w={w} span={s}", fused(w, s))
            for w in (0.3, 0.5, 0.7, 0.9)
            for s in (0.02, 0.05, 0.1)
        ]
    print(f"set {args.set}, split {args.split}: {len(picked)} questions, {len(docs)} entries")
    for k in (5, 10):
        print(f"\nrecall@{k:<28} {'all':>7} " + " ".join(f"{c[:13]:>13}" for c in cats))
        base = recall(rows[0][1], k)
        for name, order in rows:
            r = recall(order, k)
            worst = min(r[c] - base[c] for c in ("all", *cats))
            print(
                f"{name:<36} {r['all']:>7.3f} "
                + " ".join(f"{r[c]:>13.3f}" for c in cats)
                + (f"   worst vs lexical {worst:+.3f}" if name != "lexical" else "")
            )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
