"""Hybrid ranking: exact vector search per owner, fused with lexical BM25.

Owns: the in-memory vector ``Index`` (one partition per owner), int8
quantisation, the score fusion of both lists (``fuse``), and
``Ranker.ranked``, the one hook recall (``memory.context``) and search
(``memory.list``) call in place of ``search.ranked`` when the ``semantic``
extra is installed.

How a query is ranked. The lexical plan's candidates (``search.ranked``,
the caller's SQL filter applied) and the nearest vectors of the caller's
owner and namespaces (cosine, exact: one matrix-vector product over that
owner's vectors, at most ``VECTOR_CANDIDATES``) are fused by score
(``fuse``): a candidate scores its BM25 score over the best lexical score
of the query (1.0 for the lexical top hit) plus ``WEIGHT`` times its vector
strength, how far its cosine clears the query's own floor in units of
``SPAN`` (at most 1). ``WEIGHT`` < 1 keeps the lexical order where lexical
found something strong: only an entry the vectors rate well above the
lexical top hit's own standing can pass it, never one middling in both
lists. Every vector neighbour must clear the query's floor, calibrated per
query (``Ranker.floor``: the model's cosines sit high and move with the
query), so unrelated memories do not fill a snapshot. The fused rows then
go through every rule the lexical rows went through (the caller applies
them: eligibility, limits, fencing, freezing, audit): this module only
decides order.

Invariants:
- nothing from another owner is read or used: the vector search runs over
  the caller's owner's partition only, masked to the caller's namespaces,
  and every vector candidate is re-read through the caller's SQL filter;
- a vector candidate takes a rank only if the store holds, in the read that
  ranks it, the very vector row the index searched (its ``vid``) for the
  entry's current text (its content hash): an index that has not yet
  followed a removal, archive, supersede or rewrite (another daemon's, on a
  shared store) never brings the entry back by its old vector;
- the fusion is deterministic: same store state and query, same order;
- entries not yet embedded still rank lexically, and the answer says how
  many there are (``info["unembedded"]``);
- a vector deleted from the store (removal, purge, expiry, archive, text
  change: daemon/semantic/vectors.py triggers) leaves the index when the deletion
  commits, before the caller is answered, when this daemon's writer deleted
  it on SQLite; on a shared store it leaves at the worker's next round,
  which follows the database's change feed. The worker then re-reads the
  entry from the store (``suspects``), which stays the truth.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any

import anyio
import numpy as np

from memoryd.daemon.retrieval import search
from memoryd.daemon.semantic import vectors
from memoryd.daemon.semantic.quantise import Vector, dequantise

if TYPE_CHECKING:
    from memoryd.daemon.semantic.embedding import Embedder, Worker
    from memoryd.daemon.storage.txn import Tx

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
# adds little to a snapshot of a dozen cards, and each one is re-read from
# the store (``current``): 200 cost a hybrid call about as much as its
# lexical plan (docs/recall.md, "Cost").
VECTOR_CANDIDATES = 50
# The model reads 512 tokens at once; a longer intent is embedded from its
# first characters (the whole intent still goes to the lexical plan).
QUERY_CHARS = 1_000



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

    def put_new(self, entry_ids: list[str], spaces: list[tuple[str, str]],
                mat: Vector) -> None:
        """Append rows for entries this part does not hold yet (the bulk load at start)."""
        start = len(self.ids)
        self._grow(start + len(entry_ids))
        self.mat[start:start + len(entry_ids)] = mat
        self.ns[start:start + len(entry_ids)] = [
            self.codes.setdefault(space, len(self.codes)) for space in spaces]
        self.live[start:start + len(entry_ids)] = True
        for i, entry_id in enumerate(entry_ids, start=start):
            self.pos[entry_id] = i
        self.ids.extend(entry_ids)

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

    Thread-safe: committed deletions arrive from the writer thread
    (``forget``), the worker adds rows, requests search. Rows are known by
    their ``vid`` (never reused), so a deletion can be told apart from the
    row that replaces it.
    """

    # Deleted vids remembered, so a read that began before a deletion
    # committed cannot add the deleted row back (oldest half dropped past this).
    GONE_MEMORY = 100_000

    def __init__(self, dim: int) -> None:
        self.dim = dim
        self.ready = False
        self._parts: dict[str, _Part] = {}
        self._where: dict[str, tuple[str, int]] = {}  # entry id -> (owner, vid)
        self._entry_of: dict[int, str] = {}  # vid -> entry id
        self._lock = threading.Lock()
        self._gone: dict[int, None] = {}
        self._suspects: set[str] = set()

    def forget(self, vids: list[int]) -> None:
        """Committed deletions: drop the rows now; the worker re-checks their entries."""
        with self._lock:
            for vid in vids:
                self._gone[vid] = None
                entry_id = self._entry_of.pop(vid, None)
                if entry_id is None:
                    continue
                self._suspects.add(entry_id)
                owner, current = self._where.get(entry_id, ("", -1))
                if current == vid:
                    del self._where[entry_id]
                    self._parts[owner].drop(entry_id)
            if len(self._gone) > self.GONE_MEMORY:
                for vid in list(self._gone)[:len(self._gone) // 2]:
                    del self._gone[vid]

    def take_suspects(self) -> set[str]:
        with self._lock:
            out, self._suspects = self._suspects, set()
            return out

    def suspect(self, entry_ids: Iterable[str]) -> None:
        """Entries whose stored vector changed elsewhere: the worker re-reads them."""
        with self._lock:
            self._suspects.update(entry_ids)

    def holds(self, entry_id: str, vid: int) -> bool:
        """Whether the index searches the stored row ``vid`` for ``entry_id``."""
        with self._lock:
            where = self._where.get(entry_id)
            return where is not None and where[1] == vid

    def replace_all(self, rows: list[dict[str, Any]]) -> None:
        """Become exactly ``rows`` (every stored vector, read now): for an
        index that can no longer follow the changes it missed."""
        with self._lock:
            for part in self._parts.values():
                part.mat[:] = 0.0  # the old rows' numbers leave memory now
            self._parts, self._where, self._entry_of = {}, {}, {}
            self._suspects = set()
            self._add_locked(rows, None)

    def add_rows(self, rows: list[dict[str, Any]], *,
                 authoritative: set[str] | None = None) -> None:
        """Add rows read from the store; a row whose deletion was seen is skipped.

        ``authoritative``: entry ids whose rows were all read after every
        deletion that concerns them committed (the suspects): those found are
        put back whatever was reported, those not found are dropped.
        """
        with self._lock:
            self._add_locked(rows, authoritative)

    def _add_locked(self, rows: list[dict[str, Any]], authoritative: set[str] | None) -> None:
        seen: set[str] = set()
        fresh: dict[str, list[dict[str, Any]]] = {}
        for row in rows:
            entry_id, vid = row["entry_id"], int(row["vid"])
            seen.add(entry_id)
            trusted = authoritative is not None and entry_id in authoritative
            if vid in self._gone and not trusted:
                continue
            if len(row["vec"]) != self.dim:
                continue
            owner = row["owner"]
            part = self._parts.get(owner)
            if part is None:
                part = self._parts[owner] = _Part(self.dim)
            old = self._where.get(entry_id)
            if old is not None:
                self._entry_of.pop(old[1], None)
            self._where[entry_id] = (owner, vid)
            self._entry_of[vid] = entry_id
            if entry_id in part.pos:
                vec = dequantise(row["scale"], bytes(row["vec"]))
                part.put(entry_id, (row["target"], row["scope"]), vec)
            else:
                fresh.setdefault(owner, []).append(row)
        for owner, new in fresh.items():
            # One array operation for the lot: a store's worth of vectors
            # loads in a fraction of a second.
            blob = b"".join(bytes(r["vec"]) for r in new)
            scales = np.array([r["scale"] for r in new], dtype=np.float32)
            mat = (np.frombuffer(blob, dtype=np.int8).reshape(len(new), self.dim)
                   .astype(np.float32) * scales[:, None])
            self._parts[owner].put_new([r["entry_id"] for r in new],
                                       [(r["target"], r["scope"]) for r in new], mat)
        for entry_id in (authoritative or set()) - seen:
            where = self._where.pop(entry_id, None)
            if where is not None:
                self._entry_of.pop(where[1], None)
                self._parts[where[0]].drop(entry_id)

    def nearest(self, owner: str, spaces: Sequence[tuple[str, str]] | None, q: Vector,
                k: int, floor: float = MIN_SIMILARITY) -> list[tuple[str, float, int]]:
        """The ``k`` nearest of ``owner``'s vectors in ``spaces`` (None: all), best
        first: ``(entry id, cosine, vid of the stored row searched)``."""
        with self._lock:
            part = self._parts.get(owner)
            if part is None:
                return []
            return [(entry_id, score, self._where[entry_id][1])
                    for entry_id, score in part.nearest(spaces, q, k, floor)]

    def count(self, owner: str, spaces: Iterable[tuple[str, str]] | None = None) -> int:
        with self._lock:
            part = self._parts.get(owner)
            return 0 if part is None else part.count(spaces)


def current(tx: Tx, near: Sequence[tuple[str, float, int]], where: str,
            args: tuple[Any, ...], columns: tuple[str, ...] | None,
            by_id: dict[str, dict[str, Any]]) -> list[str]:
    """The neighbours ``near`` that may take a rank, best first; the rows of
    those ``by_id`` lacks are added to it.

    Each neighbour is read in the caller's read, through the caller's filter
    ``where`` on ``e`` (a neighbour the filter refuses, another status or an
    expired entry, takes no rank: only rows the caller may see are fused),
    with the ``vid`` of the stored vector of its current text. A neighbour
    whose stored row is not the one the index searched is left out: the
    index has not followed a change yet (a removal, archive, supersede or
    rewrite; on a shared store, another daemon's), and the store is the truth.
    """
    if not near:
        return []
    cols = "e.*" if columns is None else ", ".join(f"e.{c}" for c in columns)
    searched = {entry_id: vid for entry_id, _, vid in near}
    held: set[str] = set()
    # CROSS JOIN pins the order: each candidate by primary key, then the
    # filter. Left to itself the planner may walk an index of every active
    # entry instead. (The CTE's column and the vid's alias have names no
    # entries column has: the caller's filter may name columns unqualified.)
    for row in tx.all("WITH c(vector_candidate) AS (SELECT value FROM json_each(?))"  # noqa: S608 (no client text in SQL)
                      f" SELECT {cols}, (SELECT v.vid FROM entry_vectors AS v"
                      " WHERE v.entry_id = e.id AND v.content_hash = e.content_hash)"
                      " AS vector_vid FROM c CROSS JOIN entries AS e"
                      f" WHERE e.id = c.vector_candidate AND {where}",
                      (json.dumps(list(searched)), *args)):
        vid = row.pop("vector_vid")
        if vid is not None and int(vid) == searched[row["id"]]:
            held.add(row["id"])
            by_id.setdefault(row["id"], row)
    return [entry_id for entry_id, _, _ in near if entry_id in held]


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

    def __init__(self, embedder: Embedder, index: Index, worker: Worker) -> None:
        self.embedder = embedder
        self.index = index
        self.worker = worker
        self._limiter = anyio.CapacityLimiter(1)
        self._anchors: Vector | None = None

    def prepare(self) -> None:
        """Embed the anchor sentences (the worker calls this at start, off the request path)."""
        if self._anchors is None:
            self._anchors = np.asarray(self.embedder.passages(list(ANCHORS)), dtype=np.float32)

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
               limit: int, owner: str, spaces: Sequence[tuple[str, str]] | None,
               qvec: Vector | None, columns: tuple[str, ...] | None = None,
               stats: tuple[int, float] | None = None, teams: Sequence[str] = (),
               ) -> tuple[list[dict[str, Any]], dict[str, Any]]:
        """Fused candidates (best first, ``score`` = fused score) and what ranked them.
        ``stats``: the view's BM25 statistics when the caller has them. ``teams``
        are the team scopes the caller's view holds: their rows are the team's
        (daemon/access/teams.py), so their partitions are searched too."""
        picked = columns if columns is None or "id" in columns else ("id", *columns)
        lexical = search.ranked(tx, plan, where, args, limit, columns=picked, stats=stats)
        info = self.info(tx, where, args)
        if qvec is None or not self.index.ready:
            return lexical, info
        by_id = {r["id"]: r for r in lexical}
        floor = self.floor(qvec)
        want = min(limit, VECTOR_CANDIDATES)
        near = self.index.nearest(owner, spaces, qvec, want, floor)
        if teams:
            for holder in teams:
                near += self.index.nearest(holder, spaces, qvec, want, floor)
            near = sorted(near, key=lambda hit: (-hit[1], hit[0]))[:want]
        vector_ids = current(tx, near, where, args, picked, by_id)
        cosine = {entry_id: score for entry_id, score, _ in near}
        fused = fuse([(r["id"], r["score"]) for r in lexical],
                     [(entry_id, cosine[entry_id]) for entry_id in vector_ids], floor)
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

    def identity(self) -> dict[str, Any]:
        """Which ranker and model answer: what status shows on every socket."""
        return {"ranker": "hybrid", "model": self.embedder.model_id, "dim": self.embedder.dim}

    def status(self, tx: Tx, owner: str) -> dict[str, Any]:
        queued = vectors.owner_backlog(tx, "e.owner = ?", (owner,)) if vectors.backlog(tx) else 0
        return {**self.identity(),
                "index": "exact" if self.index.ready else "loading",
                "embedded": self.index.count(owner), "queued": queued,
                "reembedding": queued > 0 and self.worker.progress.requeued_for_model > 0,
                **self.worker.status()}
