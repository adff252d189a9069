"""Hybrid ranking: exact vector search per owner, fused with lexical BM25.

Owns: the in-memory vector ``Index`` (one partition per owner), int8
quantisation, reciprocal rank fusion (``fuse``), and ``Ranker.ranked``, the
one hook recall (``memory.context``) and search (``memory.list``) call in
place of ``search.ranked`` when the ``semantic`` extra is installed.

How a query is ranked. The lexical plan's candidates (``search.ranked``,
the caller's SQL filter applied) and the nearest vectors of the caller's
owner and namespaces (cosine, exact: one matrix-vector product over that
owner's vectors) are each cut to ``limit``; each candidate scores
``sum(1 / (RRF_K + rank))`` over the lists it is in, and the fused list is
ordered by that score, then by id. Vector candidates must clear
``MIN_SIMILARITY`` (a cosine under which multilingual-e5 neighbours are
noise), so a query about nothing stored does not fill a snapshot with
unrelated cards. The fused rows then go through every rule the lexical
rows went through (the caller applies them: eligibility, limits, fencing,
freezing, audit): this module only decides order.

Invariants:
- nothing from another owner is read or used: the vector search runs over
  the caller's owner's partition only, masked to the caller's namespaces,
  and every vector candidate is re-read through the caller's SQL filter;
- the fusion is deterministic: same store state and query, same order;
- entries not yet embedded still rank lexically, and the answer says how
  many there are (``info["unembedded"]``);
- a vector deleted from the store (removal, purge, expiry, archive, text
  change: daemon/vectors.py triggers) leaves the index at once; if that
  deletion rolled back, the worker restores it from the store (``suspects``).
"""

from __future__ import annotations

import threading
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any

import anyio
import numpy as np
import numpy.typing as npt

from memoryd.daemon import search, vectors

if TYPE_CHECKING:
    from memoryd.daemon.embedding import Embedder, Worker
    from memoryd.daemon.store import Tx

# Reciprocal rank fusion constant (Cormack et al. use 60).
RRF_K = 60
# Cosine under which a vector neighbour is not a candidate (multilingual-e5
# puts unrelated short texts at about 0.70-0.78; see docs/recall.md).
MIN_SIMILARITY = 0.80

Vector = npt.NDArray[np.float32]


def quantise(vec: Any) -> tuple[float, bytes]:
    """int8 with one scale per vector: 4x smaller, cosine error ~1e-3."""
    arr = np.asarray(vec, dtype=np.float32)
    scale = vectors.scale_of(float(np.max(np.abs(arr))) if arr.size else 0.0)
    q = np.clip(np.rint(arr / scale), -127, 127).astype(np.int8)
    return scale, q.tobytes()


def dequantise(scale: float, blob: bytes) -> Vector:
    return (np.frombuffer(blob, dtype=np.int8).astype(np.float32) * np.float32(scale))


class _Part:
    """One owner's vectors: rows of a growing matrix, dead rows zeroed."""

    def __init__(self, dim: int) -> None:
        self.dim = dim
        self.ids: list[str] = []
        self.pos: dict[str, int] = {}
        self.codes: dict[tuple[str, str], int] = {}
        self.ns = np.zeros(0, dtype=np.int32)
        self.live = np.zeros(0, dtype=bool)
        self.mat = np.zeros((0, dim), dtype=np.float32)
        self.dead = 0

    def _grow(self, need: int) -> None:
        if need <= len(self.live):
            return
        cap = max(need, 2 * len(self.live), 64)
        mat = np.zeros((cap, self.dim), dtype=np.float32)
        mat[:len(self.ids)] = self.mat[:len(self.ids)]
        ns = np.zeros(cap, dtype=np.int32)
        ns[:len(self.ids)] = self.ns[:len(self.ids)]
        live = np.zeros(cap, dtype=bool)
        live[:len(self.ids)] = self.live[:len(self.ids)]
        self.mat, self.ns, self.live = mat, ns, live

    def put(self, entry_id: str, space: tuple[str, str], vec: Vector) -> None:
        code = self.codes.setdefault(space, len(self.codes))
        at = self.pos.get(entry_id)
        if at is None:
            at = len(self.ids)
            self._grow(at + 1)
            self.ids.append(entry_id)
            self.pos[entry_id] = at
        elif not self.live[at]:
            self.dead -= 1
        self.mat[at] = vec
        self.ns[at] = code
        self.live[at] = True

    def drop(self, entry_id: str) -> None:
        at = self.pos.get(entry_id)
        if at is None or not self.live[at]:
            return
        self.mat[at] = 0.0  # the vector's numbers leave memory now
        self.live[at] = False
        self.dead += 1
        if self.dead > 1024 and self.dead * 2 > len(self.ids):
            self._compact()

    def _compact(self) -> None:
        keep = [i for i in range(len(self.ids)) if self.live[i]]
        self.ids = [self.ids[i] for i in keep]
        self.pos = {e: i for i, e in enumerate(self.ids)}
        self.mat = self.mat[keep].copy()
        self.ns = self.ns[keep].copy()
        self.live = np.ones(len(keep), dtype=bool)
        self.dead = 0

    def count(self, spaces: Iterable[tuple[str, str]] | None) -> int:
        n = len(self.ids)
        if spaces is None:
            return int(self.live[:n].sum())
        codes = [self.codes[s] for s in spaces if s in self.codes]
        return int((self.live[:n] & np.isin(self.ns[:n], codes)).sum())

    def nearest(self, spaces: Sequence[tuple[str, str]] | None, q: Vector,
                k: int, floor: float) -> list[tuple[str, float]]:
        n = len(self.ids)
        if n == 0:
            return []
        mask = self.live[:n]
        if spaces is not None:
            codes = [self.codes[s] for s in spaces if s in self.codes]
            if not codes:
                return []
            mask = mask & np.isin(self.ns[:n], codes)
        scores = self.mat[:n] @ q
        scores[~mask] = -np.inf
        scores[scores < floor] = -np.inf
        k = min(k, n)
        top = np.argpartition(-scores, k - 1)[:k] if k < n else np.arange(n)
        hits = [(self.ids[i], round(float(scores[i]), 6)) for i in top
                if np.isfinite(scores[i])]
        hits.sort(key=lambda h: (-h[1], h[0]))
        return hits


class Index:
    """Every owner's vectors of the current model, kept in memory for exact search.

    Thread-safe: the writer thread's triggers drop vectors (``forget``), the
    worker adds them, requests search.
    """

    def __init__(self, dim: int) -> None:
        self.dim = dim
        self.ready = False
        self._parts: dict[str, _Part] = {}
        self._owner_of: dict[str, str] = {}
        self._lock = threading.Lock()
        self._seq = 0
        self._gone_at: dict[str, int] = {}
        self._suspects: set[str] = set()

    def mark(self) -> int:
        """A position in the stream of deletions; pass it back to ``add_rows``."""
        with self._lock:
            # One worker marks, reads, then adds, one round at a time: no read
            # begun before this mark is still in flight, so older deletions
            # can no longer race an add.
            self._gone_at.clear()
            return self._seq

    def forget(self, entry_id: str) -> None:
        """A vector row was deleted: drop it now, and have the worker re-check it."""
        with self._lock:
            self._seq += 1
            self._gone_at[entry_id] = self._seq
            self._suspects.add(entry_id)
            owner = self._owner_of.get(entry_id)
            if owner is not None:
                self._parts[owner].drop(entry_id)

    def take_suspects(self) -> set[str]:
        with self._lock:
            out, self._suspects = self._suspects, set()
            return out

    def add_rows(self, rows: list[dict[str, Any]], since: int) -> None:
        """Add rows read from the store after ``mark()`` returned ``since``.

        A row deleted after that mark is skipped: the store no longer holds
        it, and the read that found it came before the deletion.
        """
        with self._lock:
            for row in rows:
                entry_id = row["entry_id"]
                if self._gone_at.get(entry_id, 0) > since:
                    continue
                vec = dequantise(row["scale"], bytes(row["vec"]))
                if vec.shape[0] != self.dim:
                    continue
                owner = row["owner"]
                part = self._parts.get(owner)
                if part is None:
                    part = self._parts[owner] = _Part(self.dim)
                self._owner_of[entry_id] = owner
                part.put(entry_id, (row["target"], row["scope"]), vec)

    def nearest(self, owner: str, spaces: Sequence[tuple[str, str]] | None, q: Vector,
                k: int, floor: float = MIN_SIMILARITY) -> list[tuple[str, float]]:
        """The ``k`` nearest of ``owner``'s vectors in ``spaces`` (None: all), best first."""
        with self._lock:
            part = self._parts.get(owner)
            if part is None:
                return []
            return part.nearest(spaces, q, k, floor)

    def count(self, owner: str, spaces: Iterable[tuple[str, str]] | None = None) -> int:
        with self._lock:
            part = self._parts.get(owner)
            return 0 if part is None else part.count(spaces)

    def holds(self, entry_id: str) -> bool:
        with self._lock:
            owner = self._owner_of.get(entry_id)
            if owner is None:
                return False
            part = self._parts[owner]
            at = part.pos.get(entry_id)
            return at is not None and bool(part.live[at])


def fuse(*ranked: Sequence[str], k: int = RRF_K) -> list[tuple[str, float]]:
    """Reciprocal rank fusion of id lists (best first); ties broken by id."""
    scores: dict[str, float] = {}
    for ids in ranked:
        for rank, entry_id in enumerate(ids, start=1):
            scores[entry_id] = scores.get(entry_id, 0.0) + 1.0 / (k + rank)
    fused = [(entry_id, round(score, 9)) for entry_id, score in scores.items()]
    fused.sort(key=lambda item: (-item[1], item[0]))
    return fused


class Ranker:
    """The hybrid ranker the daemon uses when the embedding model is loaded."""

    def __init__(self, embedder: Embedder, index: Index, worker: Worker) -> None:
        self.embedder = embedder
        self.index = index
        self.worker = worker
        self._limiter = anyio.CapacityLimiter(1)

    async def embed_query(self, text: str) -> Vector | None:
        """The query's vector, computed outside any store transaction."""
        if not text.strip():
            return None
        vec = await anyio.to_thread.run_sync(self.embedder.query, text, limiter=self._limiter)
        return np.asarray(vec, dtype=np.float32)

    def embed_query_now(self, text: str) -> Vector | None:
        """``embed_query`` for a caller already on a worker thread (a read job)."""
        if not text.strip():
            return None
        return np.asarray(self.embedder.query(text), dtype=np.float32)

    def ranked(self, tx: Tx, plan: search.Plan, where: str, args: tuple[Any, ...],
               limit: int, owner: str, spaces: Sequence[tuple[str, str]] | None,
               qvec: Vector | None, columns: tuple[str, ...] | None = None,
               ) -> tuple[list[dict[str, Any]], dict[str, Any]]:
        """Fused candidates (best first, ``score`` = fused score) and what ranked them."""
        picked = columns if columns is None or "id" in columns else ("id", *columns)
        lexical = search.ranked(tx, plan, where, args, limit, columns=picked)
        info = self.info(tx, where, args)
        if qvec is None or not self.index.ready:
            return lexical, info
        near = self.index.nearest(owner, spaces, qvec, limit)
        by_id = {r["id"]: r for r in lexical}
        missing = [entry_id for entry_id, _ in near if entry_id not in by_id]
        if missing:
            cols = "e.*" if picked is None else ", ".join(f"e.{c}" for c in picked)
            marks = ",".join("?" * len(missing))
            for row in tx.all(f"SELECT {cols} FROM entries AS e WHERE e.id IN ({marks})"  # noqa: S608 (placeholders only)
                              f" AND {where}", (*missing, *args)):
                by_id[row["id"]] = row
        # A neighbour the filter refused (another status, an expired entry)
        # takes no rank: only rows the caller may see are fused.
        vector_ids = [entry_id for entry_id, _ in near if entry_id in by_id]
        fused = fuse([r["id"] for r in lexical], vector_ids)
        rows = []
        for entry_id, score in fused[:limit]:
            row = dict(by_id[entry_id])
            row["score"] = score
            rows.append(row)
        info["vector_candidates"] = len(vector_ids)
        return rows, info

    def info(self, tx: Tx, where: str, args: tuple[Any, ...]) -> dict[str, Any]:
        """What ranked this answer, and how many of the caller's entries it could not embed yet."""
        unembedded = 0
        if vectors.backlog(tx):
            unembedded = vectors.owner_backlog(tx, where, args)
        out: dict[str, Any] = {"ranker": "hybrid", "model": self.embedder.model_id,
                               "unembedded": unembedded}
        if not self.index.ready:
            out["ranker"] = "lexical"
            out["reason"] = "vector_index_loading"
        elif unembedded:
            out["note"] = "entries not yet embedded are ranked lexically"
        return out

    def status(self, tx: Tx, owner: str) -> dict[str, Any]:
        queued = vectors.owner_backlog(tx, "e.owner = ?", (owner,)) if vectors.backlog(tx) else 0
        return {"ranker": "hybrid", "model": self.embedder.model_id, "dim": self.embedder.dim,
                "index": "exact" if self.index.ready else "loading",
                "embedded": self.index.count(owner), "queued": queued,
                "reembedding": queued > 0 and self.worker.progress.requeued_for_model > 0,
                **self.worker.status()}
