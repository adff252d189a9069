"""Hybrid ranking: exact vector search in the caller's view, fused with lexical BM25.

Owns: the vector search of one query (``nearest``: the caller's own stored
vectors, read from the store and scored, nothing kept between queries), the
score fusion of both lists (``fuse``), and ``Ranker.ranked``, the one hook
recall (``memory.context``) and search (``memory.list``) call in place of
``search.ranked`` when the ``semantic`` extra is installed.

How a query is ranked. The lexical plan's candidates (``search.ranked``,
the caller's SQL filter applied) and the nearest vectors of the same filter
(cosine, exact: one matrix-vector product per chunk of the view's vectors,
at most ``VECTOR_CANDIDATES`` kept) are fused by score (``fuse``): a
candidate scores its BM25 score over the best lexical score of the query
(1.0 for the lexical top hit) plus ``WEIGHT`` times its vector strength,
how far its cosine clears the query's own floor in units of ``SPAN`` (at
most 1). ``WEIGHT`` < 1 keeps the lexical order where lexical found
something strong: only an entry the vectors rate well above the lexical top
hit's own standing can pass it, never one middling in both lists. Every
vector neighbour must clear the query's floor, calibrated per query
(``Ranker.floor``: the model's cosines sit high and move with the query),
so unrelated memories do not fill a snapshot. The fused rows then go
through every rule the lexical rows went through (the caller applies them:
eligibility, limits, fencing, freezing, audit): this module only decides
order.

Invariants:
- nothing from another owner is read or used: the vectors searched are
  those of the rows the caller's filter admits, read in the caller's own
  transaction; a daemon holds no vector between queries, so several daemons
  on one database search the same vectors, and a vector the store deleted
  (removal, purge, expiry, archive, text change: daemon/semantic/vectors.py
  triggers) is never searched again, whichever daemon deleted it;
- a vector takes a rank only for the text its entry holds now (the content
  hash it was computed from);
- the fusion is deterministic: same store state and query, same order (ties
  by id);
- entries not yet embedded still rank lexically, and the answer says how
  many there are (``info["unembedded"]``).
"""

from __future__ import annotations

import hashlib
import json
import threading
from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING, Any

import anyio
import numpy as np
import structlog

from memoryd.daemon.retrieval import postings, search
from memoryd.daemon.semantic import vectors
from memoryd.daemon.semantic.quantise import Vector
from memoryd.kernel.errors import Unavailable

if TYPE_CHECKING:
    from memoryd.daemon.semantic.embedding import Embedder, Worker
    from memoryd.daemon.storage.store import Store
    from memoryd.daemon.storage.txn import Tx

log = structlog.get_logger()

# Score-aware fusion (``fuse``; docs/recall.md has the measurements they
# were chosen from): the vector strength's weight against the lexical top
# hit's 1.0, and the cosine above the query's floor at which a neighbour's
# strength is full.
WEIGHT = 0.7
SPAN = 0.05
# Cosine under which a vector neighbour is never a candidate.
MIN_SIMILARITY = 0.80
# multilingual-e5 gives every pair of texts a cosine of 0.75-0.85, and the
# level moves with the query (short queries sit higher), so no fixed cosine
# tells a related memory from an unrelated one. Each query is compared with
# a few neutral sentences first: a neighbour must beat the query's mean
# cosine to its three nearest anchors by MARGIN (docs/recall.md has the
# measured distributions it was set from: 0.035 lost 12 points of
# paraphrase recall@5, 0.02 none).
MARGIN = 0.02
ANCHORS = (
    "The meeting was moved to another room.", "Remember to buy milk on the way home.",
    "The report is due next month.", "She painted the fence green last summer.",
    "Trains to the coast leave every hour.", "The library closes early on holidays.",
    "He keeps his bicycle in the garage.", "Prices went up again this quarter.",
    "The garden needs more sunlight.", "A new bakery opened downtown.",
    "会议改到了另一个房间。", "下个月要交报告。", "火车每小时一班。",
    "图书馆节假日提前关门。", "价格这个季度又涨了。", "花园需要更多阳光。",
)

# Vector neighbours fused per query. Past the first few dozen a neighbour
# adds little to a snapshot of a dozen cards, and each one not found
# lexically is read from the store (``search.read_rows``).
VECTOR_CANDIDATES = 50
# The model reads 512 tokens at once; a longer intent is embedded from its
# first characters (the whole intent still goes to the lexical plan).
QUERY_CHARS = 1_000


def nearest(tx: Tx, model: str, q: Vector, spaces: str, args: Sequence[Any], k: int,
            floor: float = MIN_SIMILARITY) -> list[tuple[str, float]]:
    """The ``k`` nearest stored vectors of ``model`` in the namespaces the
    filter ``spaces`` on ``p`` admits (the caller's view: ``View.rows("p.")``),
    best first, ties by id: ``(entry id, cosine)``. Below ``floor``, none.

    Exact: every pack of those namespaces is read in this transaction and
    each of its live vectors scored (one matrix-vector product per pack);
    nothing is kept once the answer is out."""
    dim = len(q)
    found: list[tuple[Any, Any]] = []
    for pack in _packs(tx, model, dim, spaces, args):
        n = int(pack["used"])
        vids = np.frombuffer(pack["vids"], dtype="<i8", count=n)
        scores = pack_cosines(pack["vecs"], pack["scales"], n, q)
        keep = (vids > 0) & (scores >= floor)
        found.append((vids[keep], scores[keep]))
    if not found:
        return []
    ids = np.concatenate([v for v, _ in found])
    cosines = np.concatenate([c for _, c in found])
    if len(cosines) > k:
        # Every vector that may tie with the k-th best once rounded stays in:
        # ties are broken by id.
        pick = cosines >= -np.partition(-cosines, k - 1)[k - 1] - 1e-6
        ids, cosines = ids[pick], cosines[pick]
    score_of = {int(v): round(float(c), 6) for v, c in zip(ids, cosines, strict=True)}
    hits = [(str(r["entry_id"]), score_of[int(r["vid"])]) for r in tx.all(
        "WITH c(vector_candidate) AS (SELECT value FROM json_each(?))"
        " SELECT v.vid, v.entry_id FROM c CROSS JOIN entry_vectors AS v"
        " JOIN entries AS e ON e.id = v.entry_id AND e.content_hash = v.content_hash"
        " WHERE v.vid = CAST(c.vector_candidate AS BIGINT)", (json.dumps(list(score_of)),))]
    return sorted(hits, key=lambda h: (-h[1], h[0]))[:k]


def pack_cosines(vecs: bytes, scales: bytes, n: int, q: Vector) -> Vector:
    """The cosine of ``q`` with each of a pack's first ``n`` vectors: each
    row's int8 codes times ``q``, then times the row's scale (one pass over
    the codes; ``quantise.dequantise(scale, row) @ q`` up to float32
    rounding: tests/unit/test_vectors.py)."""
    codes = np.frombuffer(vecs, dtype=np.int8, count=n * len(q)).reshape(n, len(q))
    return (codes.astype(np.float32) @ q) * np.frombuffer(scales, dtype="<f4", count=n)


# Packs read per statement: what a search holds of the view's vectors at once
# (16 packs of 384-dimension vectors: ~1.6 MB).
PAGE = 16


def _packs(tx: Tx, model: str, dim: int, spaces: str,
           args: Sequence[Any]) -> Iterator[dict[str, Any]]:
    """The packs of the namespaces ``spaces`` admits, ``PAGE`` at a time: their
    ids first (the namespace index covers them), then each page by id."""
    ids = [r["id"] for r in tx.all("SELECT p.id FROM vector_packs AS p"  # noqa: S608 (no client text in SQL)
                                   f" WHERE p.model = ? AND p.dim = ? AND {spaces}"
                                   " ORDER BY p.id", (model, dim, *args))]
    for at in range(0, len(ids), PAGE):
        yield from tx.all("WITH c(pack) AS (SELECT value FROM json_each(?))"
                          " SELECT p.used, p.vids, p.scales, p.vecs FROM c CROSS JOIN"
                          " vector_packs AS p WHERE p.id = CAST(c.pack AS BIGINT)",
                          (json.dumps(ids[at:at + PAGE]),), binary=True)


def fuse(lexical: Sequence[tuple[str, float]], vector: Sequence[tuple[str, float]],
         floor: float, *, weight: float = WEIGHT, span: float = SPAN,
         ) -> list[tuple[str, float]]:
    """Score-aware fusion of a lexical list ``(id, BM25 score)`` and a vector
    list ``(id, cosine)`` (each best first); ties broken by id.

    A candidate scores ``lexical / best lexical`` (0 when lexical did not find
    it or scored nothing) plus ``weight * min(1, (cosine - floor) / span)``
    (neighbours below ``floor`` are left out). With ``weight`` < 1, an entry
    at most half as strong as the lexical top hit in both lists never passes
    it."""
    scores: dict[str, float] = {}
    best = max((score for _, score in lexical), default=0.0)
    for entry_id, score in lexical:
        scores[entry_id] = score / best if best > 0 else 0.0
    for entry_id, cosine in vector:
        if cosine < floor:
            continue
        strength = min(1.0, (cosine - floor) / span)
        scores[entry_id] = scores.get(entry_id, 0.0) + weight * strength
    fused = [(entry_id, round(score, 9)) for entry_id, score in scores.items()]
    fused.sort(key=lambda item: (-item[1], item[0]))
    return fused


class Ranker:
    """The hybrid ranker the daemon uses when the embedding model is loaded."""

    def __init__(self, embedder: Embedder, worker: Worker) -> None:
        self.embedder = embedder
        self.worker = worker
        self._limiter = anyio.CapacityLimiter(1)
        self._anchors: Vector | None = None
        self._anchors_lock = threading.Lock()

    def prepare(self) -> None:
        """The anchor sentences' vectors, once: the first caller reads them from
        the store or embeds them, any other waits for it (the worker calls this
        at start, off the request path).

        Embedded once per model and set of sentences and kept in the store
        (``vectors.keep_anchors``), beside the entries' vectors: a later start,
        or another daemon on the same store, reads the very same floats
        instead of spending the model's time on them again."""
        with self._anchors_lock:
            if self._anchors is not None:
                return
            anchors = self._kept_anchors()
            if anchors is None:
                anchors = np.asarray(self.embedder.passages(list(ANCHORS)), dtype=np.float32)
                self._keep_anchors(anchors)
            self._anchors = anchors

    def _anchors_key(self) -> str:
        sentences = hashlib.sha256("\n".join(ANCHORS).encode("utf-8")).hexdigest()[:16]
        return f"{self.embedder.model_id}/{self.embedder.dim}/{sentences}"

    def _store(self) -> Store | None:
        # A ranker built without a worker (tests, benchmarks) keeps nothing.
        worker: Worker | None = self.worker
        return None if worker is None else worker.store

    def _kept_anchors(self) -> Vector | None:
        store = self._store()
        if store is None:
            return None
        key = self._anchors_key()
        try:
            data = store.run_sync(lambda tx: vectors.kept_anchors(tx, key), write=False)
        except Unavailable:
            return None
        dim = self.embedder.dim
        if data is None or len(data) != len(ANCHORS) * dim * 4:
            return None
        return np.frombuffer(data, dtype="<f4").reshape(len(ANCHORS), dim).astype(np.float32)

    def _keep_anchors(self, anchors: Vector) -> None:
        store = self._store()
        if store is None:
            return
        key, data = self._anchors_key(), anchors.astype("<f4").tobytes()
        try:
            store.run_sync(lambda tx: vectors.keep_anchors(tx, key, data), governed=False)
        except Unavailable:
            log.warning("anchors_not_kept", reason="store_unavailable")

    def prepare_soon(self) -> threading.Thread:
        """Start ``prepare`` on a thread of its own, as the daemon starts: the
        model's engine runs outside the GIL, so the anchors are embedded on
        the other core while the audit chain is verified and the sockets
        open, not after. A failure here is left to the worker's own call,
        which retries and counts it."""
        def run() -> None:
            try:
                self.prepare()
            except (OSError, RuntimeError, ValueError) as exc:
                log.warning("anchors_not_embedded", exc_type=type(exc).__name__)

        thread = threading.Thread(target=run, name="memoryd-anchors", daemon=True)
        thread.start()
        return thread

    def floor(self, qvec: Vector, margin: float = MARGIN) -> float:
        """The cosine a neighbour of this query must reach (see ``MARGIN``)."""
        self.prepare()
        assert self._anchors is not None
        near = np.sort(self._anchors @ qvec)[-3:]
        return max(MIN_SIMILARITY, float(near.mean()) + margin)

    async def embed_query(self, text: str) -> Vector | None:
        """The query's vector, computed outside any store transaction."""
        if not text.strip():
            return None
        vec = await anyio.to_thread.run_sync(self.embedder.query, text[:QUERY_CHARS],
                                             limiter=self._limiter)
        return np.asarray(vec, dtype=np.float32)

    def embed_query_now(self, text: str) -> Vector | None:
        """``embed_query`` for a caller already on a worker thread (a read job)."""
        if not text.strip():
            return None
        return np.asarray(self.embedder.query(text[:QUERY_CHARS]), dtype=np.float32)

    def ranked(self, tx: Tx, plan: search.Plan, where: str, args: tuple[Any, ...],
               limit: int, qvec: Vector | None, spaces: tuple[str, Sequence[Any]],
               columns: tuple[str, ...] | None = None, stats: tuple[int, float] | None = None,
               view: postings.OwnView | None = None,
               ) -> tuple[list[dict[str, Any]], dict[str, Any]]:
        """Fused candidates (best first, ``score`` = fused score) and what ranked them.
        ``where`` on ``e`` is the caller's filter; ``spaces`` its view as a
        filter on ``p``, the packs' owner, target and scope (``View.rows("p.")``):
        vector neighbours come from the view's namespaces, and each takes a
        rank only if ``where`` admits it. ``stats``: the view's BM25
        statistics when the caller has them; ``view``: the owner's whole
        namespaces when ``where`` is their filter (the lexical half is then
        ranked from their postings, as the lexical ranker does)."""
        picked = columns if columns is None or "id" in columns else ("id", *columns)
        lexical = postings.ranked(tx, plan, where, args, limit, columns=picked, stats=stats,
                                  view=view)
        info = self.info(tx, where, args)
        if qvec is None or info["ranker"] != "hybrid":
            return lexical, info
        by_id = {r["id"]: r for r in lexical}
        floor = self.floor(qvec)
        near = nearest(tx, self.embedder.model_id, qvec, spaces[0], spaces[1],
                       min(limit, VECTOR_CANDIDATES), floor)
        search.read_rows(tx, [entry_id for entry_id, _ in near], where, args, picked, by_id)
        near = [hit for hit in near if hit[0] in by_id]
        fused = fuse([(r["id"], r["score"]) for r in lexical], near, floor)
        rows = []
        for entry_id, score in fused[:limit]:
            row = dict(by_id[entry_id])
            row["score"] = score
            rows.append(row)
        info["vector_candidates"] = len(near)
        return rows, info

    def info(self, tx: Tx, where: str, args: tuple[Any, ...]) -> dict[str, Any]:
        """What ranked this answer, and how many of the caller's entries it could not embed yet."""
        unembedded = 0
        if vectors.backlog(tx):
            unembedded = vectors.owner_backlog(tx, where, args)
        out: dict[str, Any] = {"ranker": "hybrid", "model": self.embedder.model_id,
                               "unembedded": unembedded}
        if not self.ready(tx):
            out["ranker"] = "lexical"
            out["reason"] = "vector_index_loading"
        elif unembedded:
            out["note"] = "entries not yet embedded are ranked lexically"
        return out

    def ready(self, tx: Tx) -> bool:
        """Whether vector search answers: the worker has started (the anchors
        are embedded, so no call pays for them) and every stored vector is
        packed. (No worker: a ranker built on its own, ready.)"""
        started = self.worker is None or self.worker.started
        return started and not vectors.unpacked(tx)

    def identity(self) -> dict[str, Any]:
        """Which ranker and model answer: what status shows on every socket."""
        return {"ranker": "hybrid", "model": self.embedder.model_id, "dim": self.embedder.dim}

    def status(self, tx: Tx, owner: str) -> dict[str, Any]:
        queued = vectors.owner_backlog(tx, "e.owner = ?", (owner,)) if vectors.backlog(tx) else 0
        return {**self.identity(), "index": "exact" if self.ready(tx) else "loading",
                "embedded": vectors.owner_count(tx, owner, self.embedder.model_id),
                "queued": queued,
                "reembedding": queued > 0 and self.worker.progress.requeued_for_model > 0,
                **self.worker.status()}
