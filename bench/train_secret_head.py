"""Train the head of the learned secret reading and write ``kernel/secret_head.py``.

Usage, from the repository root, with numpy installed (the ``semantic`` or
``test`` extra)::

    .venv/bin/python bench/train_secret_head.py [--out kernel/secret_head.py]

The training rows, all in ``tests/data/`` with their licences:

- the development rows (``split == "dev"``) of every set of secrets in prose
  (``secret_prose_corpus`` and ``secret_prose_dev2`` … ``dev10``): a secret
  row is a positive, a look-alike or an alarming note a negative;
- the development rows of the alarming sets (``alarming_dev``,
  ``alarming_dev2``, ``alarming_dev4``, ``alarming_dev5``), of the intent
  set (``intent_corpus``; its secrets are positives) and of the value
  look-alikes (``value_lookalikes``: dates, measures, versions, numbers
  beside a lock's or a login's word), and every row of the
  addressed-intent set (``injection_dev``): negatives but those secrets;
- the labelled scan corpus's clean and benign notes at even positions
  (``scan_corpus``; the odd half is what the clean figure is measured on),
  and the turns of the development conversations
  (``tests/data/conversations``, chats with dates, times, prices and
  counts in them; the held-out ones are measured on).

No held-out row is read, nor ``scan_fresh`` or ``alarming_dev3``, nor
any text some set holds out that another has among its development rows.

A row gives its candidates (``kernel/secret_score.CANDIDATE`` over the
scanner's folded text). Every candidate of a negative row is a negative; a
secret row says one of its values is a credential, not which: a first fit
takes all of them as positives, and the second keeps as positives each
secret row's best-scoring candidate and those scoring above even (the other
values of a secret note, a date or a port beside the code, are left out of
the fit). A logistic regression over hashed features (numpy, full-batch
gradient descent with L2, classes weighted to balance) is fitted.

The thresholds come from scores the fit did not see: five folds of the rows,
each scored by a head fitted on the other four. ``REFUSE`` is the lowest
score at which at most ``REFUSE_SHARE`` of the written look-alikes and
alarming notes, and ``CLEAN_SHARE`` of the clean notes and turns, would be
refused; ``FLAG`` the lowest at which ``FLAG_SHARE`` of the look-alikes
would be flagged (the template-made look-alikes are fitted on, not counted
here). The written head is then fitted on every row. The run is
deterministic: folds by a hash of the text, fixed iterations, no random
initialisation.
"""

from __future__ import annotations

import argparse
import sys
import zlib
from pathlib import Path

# The script lives outside the packages; make the repository importable.
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench import _sets

ROOT = Path(__file__).resolve().parents[1]

SECRET_SETS = ("secret_prose_corpus", *(f"secret_prose_dev{n}" for n in range(2, 11)))
ALARMING_SETS = (
    "alarming_dev",
    "alarming_dev2",
    "alarming_dev4",
    "alarming_dev5",
    "intent_corpus",
)

# Chosen on out-of-fold scores of the development rows (600 or 2,000
# iterations, L2 of 1e-3, 3e-4 or 1e-4).
ITERATIONS = 2_000
L2 = 3e-4
# Shares of the look-alike and alarming rows (``hard``) a threshold lets
# through, out of fold, and of the clean ones for refusing.
REFUSE_SHARE = 0.005
CLEAN_SHARE = 0.001
FLAG_SHARE = 0.01
BUCKETS = 1 << 18
# Weights under this size are left out of the head (in the folds too, so the
# thresholds are those of the head as written); the rest are kept to 1/127 of
# the largest.
KEEP = 0.1


def training_rows() -> list[tuple[str, int, bool | None]]:
    """``(text, label, hard)``: ``hard`` marks a negative written to look
    like a secret or an attack (the sets' look-alikes and alarming notes),
    None one made from a template. No text any set holds out is one."""
    held = _sets.held_out()
    return [row for row in _training_rows() if row[0] not in held]


def _training_rows() -> list[tuple[str, int, bool | None]]:
    out: list[tuple[str, int, bool | None]] = []
    for name in SECRET_SETS + ALARMING_SETS:
        for r in _sets.rows(name):
            if r["split"] == "dev":
                out.append((r["text"], int(r["category"] == "secret"), True))
    for r in _sets.rows("value_lookalikes"):
        if r["split"] == "dev":
            # Generated from templates: fitted on, left out of the thresholds
            # (sentences that repeat would weigh in them as written notes do not).
            out.append((r["text"], 0, None))
    for r in _sets.rows("injection_dev"):
        out.append((r["text"], 0, False))
    out += [(text, 0, False) for text in _sets.turns("dev")]
    for i, r in enumerate(_sets.rows("scan_corpus")):
        if i % 2 == 0 and r["category"] in ("clean", "benign"):
            out.append((r["text"], 0, r["category"] == "benign"))
    return out


# The buckets of the features read from the words around a value (the
# scanner reads a value only where their part of its score is above zero).
AROUND: set[int] = set()


def _bucket(feature: str) -> int:
    return zlib.crc32(feature.encode("utf-8")) & (BUCKETS - 1)


def candidates(text: str) -> list[list[int]]:
    """The hashed features of every candidate of ``text``, read as the
    scanner reads it (the folded copy)."""
    from memoryd.kernel.scan_fold import _fold
    from memoryd.kernel.secret_score import CANDIDATE, features, of_the_value

    folded = _fold(text).text
    out = []
    for m in CANDIDATE.finditer(folded):
        start, end = m.span()
        found = features(folded, start, end)
        AROUND.update(_bucket(f) for f in found if not of_the_value(f))
        out.append(sorted({_bucket(f) for f in found}))
    return out


def fit(cols, rows_of, y, n_features, *, iterations=ITERATIONS, l2=L2, rate=1.0):  # type: ignore[no-untyped-def]
    """Logistic regression over sparse binary features: ``cols[k]`` is the
    feature of the ``k``-th non-zero, ``rows_of[k]`` its candidate."""
    import numpy as np

    n = len(y)
    w = np.zeros(n_features)
    b = 0.0
    pos = max(float(y.sum()), 1.0)
    weight = np.where(y == 1, n / (2 * pos), n / (2 * max(n - pos, 1.0)))
    for _ in range(iterations):
        z = np.bincount(rows_of, weights=w[cols], minlength=n) + b
        p = 1.0 / (1.0 + np.exp(-z))
        g = weight * (p - y)
        w -= rate * (np.bincount(cols, weights=g[rows_of], minlength=n_features) / n + l2 * w)
        b -= rate * float(g.mean())
    return w, b


class _Design:
    """The candidates of some rows as a sparse matrix, columns renumbered."""

    def __init__(self, per_row: list[list[list[int]]], labels: list[int], column: dict[int, int]):
        import numpy as np

        cols: list[int] = []
        rows_of: list[int] = []
        self.row_of: list[int] = []
        self.label: list[int] = []
        for r, (cands, label) in enumerate(zip(per_row, labels, strict=True)):
            for feats in cands:
                k = len(self.row_of)
                for f in feats:
                    if f in column:
                        cols.append(column[f])
                        rows_of.append(k)
                self.row_of.append(r)
                self.label.append(label)
        self.cols = np.array(cols, dtype=np.int64)
        self.rows_of = np.array(rows_of, dtype=np.int64)

    def scores(self, w, b):  # type: ignore[no-untyped-def]
        import numpy as np

        return np.bincount(self.rows_of, weights=w[self.cols], minlength=len(self.row_of)) + b


def train(per_row: list[list[list[int]]], labels: list[int]):  # type: ignore[no-untyped-def]
    """Two fits (all of a secret row's candidates, then its likely ones):
    the weights by original bucket, and the bias."""
    import numpy as np

    column: dict[int, int] = {}
    for cands in per_row:
        for feats in cands:
            for f in feats:
                column.setdefault(f, len(column))
    d = _Design(per_row, labels, column)
    y = np.array(d.label, dtype=np.float64)
    w, b = fit(d.cols, d.rows_of, y, len(column))
    s = d.scores(w, b)
    keep = np.ones(len(y), dtype=bool)
    best: dict[int, int] = {}
    for k, r in enumerate(d.row_of):
        if y[k] == 1 and (r not in best or s[k] > s[best[r]]):
            best[r] = k
    for k, r in enumerate(d.row_of):
        if y[k] == 1 and k != best[r] and s[k] < 0:
            keep[k] = False
    mask = keep[d.rows_of]
    renumber = np.cumsum(keep) - 1
    w, b = fit(d.cols[mask], renumber[d.rows_of[mask]], y[keep], len(column))
    scale = float(np.abs(w).max()) / 127 or 1.0
    by_bucket = {
        f: round(float(w[c]) / scale) * scale for f, c in column.items() if abs(w[c]) >= KEEP
    }
    return by_bucket, b


def row_scores(per_row, weights, bias) -> list[float]:  # type: ignore[no-untyped-def]
    """Each row's highest score of a candidate the scanner reads (the words
    around it speak for it), minus infinity without one."""
    return [
        max(
            (
                bias + sum(weights.get(f, 0.0) for f in feats)
                for feats in cands
                if sum(weights.get(f, 0.0) for f in feats if f in AROUND) > 0
            ),
            default=float("-inf"),
        )
        for cands in per_row
    ]


def threshold(negatives: list[float], share: float) -> float:
    """The lowest score at which at most ``share`` of ``negatives`` reach it."""
    ranked = sorted(negatives, reverse=True)
    allowed = int(share * len(ranked))
    return ranked[allowed] + 1e-6 if allowed < len(ranked) else float("-inf")


def out_of_fold(texts, per_row, labels, folds: int = 5) -> list[float]:  # type: ignore[no-untyped-def]
    scores = [0.0] * len(texts)
    fold_of = [zlib.crc32(t.encode("utf-8")) % folds for t in texts]
    for k in range(folds):
        train_at = [i for i in range(len(texts)) if fold_of[i] != k]
        test_at = [i for i in range(len(texts)) if fold_of[i] == k]
        weights, bias = train([per_row[i] for i in train_at], [labels[i] for i in train_at])
        for i, s in zip(
            test_at, row_scores([per_row[i] for i in test_at], weights, bias), strict=True
        ):
            scores[i] = s
    return scores


def write_head(
    path: Path, weights: dict[int, float], bias: float, refuse: float, flag: float, trained_on: int
) -> None:
    """The head as a module: each kept weight as five hex digits of its
    bucket and two of its multiple of ``SCALE`` (a signed byte)."""
    scale = max(abs(w) for w in weights.values()) / 127
    packed = "".join(f"{f:05x}{round(w / scale) & 0xFF:02x}" for f, w in sorted(weights.items()))
    lines = [
        '"""The head of ``kernel/secret_score.py``: generated by',
        '``bench/train_secret_head.py``; do not edit."""',
        "",
        "from types import MappingProxyType",
        "",
        f"BUCKETS = {BUCKETS}",
        f"TRAINED_ON = {trained_on}",
        f"BIAS = {bias:.6f}",
        f"REFUSE = {refuse:.6f}",
        f"FLAG = {flag:.6f}",
        f"SCALE = {scale!r}",
        "# Per weight: its bucket (five hex digits), its multiple of SCALE (a signed byte).",
        "_PACKED = (",
    ]
    for i in range(0, len(packed), 84):
        lines.append(f'    "{packed[i : i + 84]}"')
    lines += [
        ")",
        "",
        "",
        "def _weights() -> dict[int, float]:",
        "    out = {}",
        "    for i in range(0, len(_PACKED), 7):",
        "        q = int(_PACKED[i + 5:i + 7], 16)",
        "        out[int(_PACKED[i:i + 5], 16)] = (q - 256 if q > 127 else q) * SCALE",
        "    return out",
        "",
        "",
        "WEIGHTS = MappingProxyType(_weights())",
    ]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--out", type=Path, default=ROOT / "kernel" / "secret_head.py")
    args = parser.parse_args()
    rows = training_rows()
    texts = [t for t, _, _ in rows]
    labels = [y for _, y, _ in rows]
    per_row = [candidates(t) for t in texts]
    oof = out_of_fold(texts, per_row, labels)
    hard = [s for s, (_, y, h) in zip(oof, rows, strict=True) if y == 0 and h]
    clean = [s for s, (_, y, h) in zip(oof, rows, strict=True) if y == 0 and h is False]
    refuse = max(threshold(hard, REFUSE_SHARE), threshold(clean, CLEAN_SHARE))
    flag = min(threshold(hard, FLAG_SHARE), refuse)
    positives = [s for s, y in zip(oof, labels, strict=True) if y == 1]
    weights, bias = train(per_row, labels)
    write_head(args.out, weights, bias, refuse, flag, len(rows))
    caught = sum(s >= refuse for s in positives)
    flagged = sum(flag <= s < refuse for s in positives)
    print(
        f"rows {len(rows)} ({len(positives)} secrets), candidates"
        f" {sum(map(len, per_row))}; out of fold: secrets refused {caught}/{len(positives)},"
        f" flagged {flagged}; look-alikes refused {sum(s >= refuse for s in hard)}/{len(hard)},"
        f" flagged {sum(flag <= s < refuse for s in hard)}; clean refused"
        f" {sum(s >= refuse for s in clean)}/{len(clean)}, flagged"
        f" {sum(flag <= s < refuse for s in clean)}"
    )


if __name__ == "__main__":
    main()
