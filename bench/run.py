"""memoryd through its real sockets, against the physical floors, in one run.

Usage, from the repository root::

    .venv/bin/python bench/run.py [--quick | --tiny] [--backend {sqlite,postgresql}]
                                  [--sizes N ...] [--recall] [--json FILE]

Starts a real daemon on a temporary home under /tmp, drives it over
``agent.sock`` and ``control.sock`` with ``rpc.client.Client``, measures the
floors (``bench/_floors.py``) in the same run and on the same disk, prints a
table and, with ``--json``, writes::

    {machine, backend, floors: {commit_p50_us, schema_floor_p50_us, echo_p50_us, fts_p99_us},
     scenarios: {NAME: {p50_us, p99_us, ops_per_s}},
     ratios: {write_allow_1c_vs_floor, write_allow_1c_vs_schema_floor,
              write_8c_vs_1c, context_vs_fts, context_hybrid_vs_lexical_SIZE},
     schema_floor: {writes, schema_floor_p50_us, statements_per_write,
                    wal_frames_per_commit},
     instructions: {available, entries, calls, write_instructions,
                    read_instructions, search_instructions, context_instructions},
     storage: {notes, bytes_per_entry, bytes_per_audit_event, tables, ...},
     embedding: {model, dim, load_s, entries_per_s, query_p50_us, model_rss_mib},
     recall: {SIZE: {entries, fts_p50_us, fts_p99_us, fts_search_p50_us, fts_search_p99_us,
                     rss_lexical_mib, rss_hybrid_mib,
                     peak_rss_hybrid_mib}}}

``instructions`` comes from ``bench/instructions.py`` (callgrind counts per
call in the daemon process), ``schema_floor`` from ``bench/schema_floor.py``
(the daemon's own statements for one governed write, replayed raw: the honest
floor beside the two-row commit floor) and ``storage`` from
``bench/storage.py``.

The recall series, at every fill size and on either backend: ``memory.context``
and search (``context_SIZE``, ``search_SIZE``) against the raw full-text
floor of the same queries (each text the scenario sent, planned as the daemon
plans it), measured on the same store at that size, and the daemon's RSS; with
the semantic extra installed, the same calls with the hybrid ranker
(``context_hybrid_SIZE``, ``search_hybrid_SIZE``) on the same store, every
entry given a vector, its RSS and its cold start until the ranker is ready
(``cold_start_hybrid_SIZE``). The main daemon runs with ``ranker =
"lexical"`` so the other scenarios are not measured beside a busy embedding
worker. ``--recall`` runs the recall series and the cold start only.

``--backend postgresql`` puts the daemon's home on a fresh schema of the
server named by ``MEMORYD_TEST_PG_DSN`` (default: local, trust, database
``test``; dropped after the run, also on failure) and runs the same
scenarios against PostgreSQL's own floors (``pg_commit``: entry row, audit
row, head update and COMMIT, with and without the head's row lock;
``pg_fts``: the daemon's planned tsquery ranked top-12 in the server), plus
``two_daemons``: two homes on one schema, an agent writer on each; every
acknowledged write is counted, the schema's rows are counted, and the chain
is verified from both homes after. The schema floor and the
instruction counts are SQLite's only and are skipped with a note; storage is
measured with ``pg_total_relation_size``. The JSON then also holds
``floors.commit_nolock_p50_us``, ``floors.head_lock_cost_us``,
``ratios.two_daemons_vs_1c`` and ``two_daemons: {writes_per_daemon,
expected, acknowledged, stored, writes_per_s, chain_verified,
checked_events}``.

The full run fills the store to 100k entries; ``--quick`` (the CI smoke test)
uses a few thousand and finishes well under two minutes; ``--tiny`` (a few
hundred entries, a few dozen calls) only shows that every part runs, in
seconds. ``--sizes`` replaces the fill sizes of the chosen profile. The store
is filled through the control channel in batches of 50 adds per call (one
audited operation per call); the measured writes are single-entry agent
writes. Nothing is asserted: figures depend on the machine. Every process,
folder and schema the run creates is gone when it exits, also on failure.
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import platform
import random
import shutil
import statistics
import sys
import threading
import time
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

# The script lives outside the packages; make the repository importable.
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import apsw

from bench import _floors
from bench.audit_verify import build as build_chain
from bench.daemon import (
    PG_DSN,
    Daemon,
    drop_pg_schemas,
    enable_consent,
    pg_connect,
    pg_store_of,
    pg_store_section,
    shared_pair,
    short_tempdir,
)
from memoryd.audit import verify_chain
from memoryd.rpc.client import Client, RpcError

ALLOWED = "bench:fast"  # agent writes here are allowed by policy
REVIEWED = "bench:review"  # agent writes here wait for approval (the default)
# The bulk of the store, written on the control channel. Spread over 16 scopes
# (the most one task may hold): the write path sums a scope's active bytes on
# every write, so one 100k-entry scope would measure that sum, not the store.
FILL = tuple(f"bench:fill{i:02d}" for i in range(16))

POLICY = f"""
[[rule]]
id = "bench-fast-writes"
effect = "allow"
description = "the benchmark's allowed agent writes"
capability = "MemoryWrite"
channel = "agent"
scope = "{ALLOWED}"
"""

CONFIG_FOR = """
scope_budget_bytes = 1000000000
max_pending_actions = 100000
max_open_tasks = 100000
max_tasks_per_hour = 1000000
[recall]
ranker = "{ranker}"
"""
# Lexical: the scenarios are not measured beside a busy embedding worker.
CONFIG = CONFIG_FOR.format(ranker="lexical")

BACKENDS = ("sqlite", "postgresql")


@dataclass(frozen=True)
class Profile:
    """How much a run does: store sizes and calls per scenario."""

    mode: str
    sizes: tuple[int, ...]
    hybrid: tuple[int, ...]  # sizes at which the hybrid ranker is measured too
    ops: int  # timed calls per write, approve and read scenario (and per floor)
    per_client: int  # writes per client in write_allow_8c
    context: int  # memory.context samples per size
    budget_s: float  # seconds a read scenario may take before it stops early
    starts: int  # cold starts
    chain: int  # events the verifier alone walks
    embed: int  # corpus entries the embedding model embeds (0: no hybrid recall)
    two_daemons: int  # writes per daemon in two_daemons
    schema_writes: int
    instructions: tuple[int, int] | None  # (entries, calls); None: not counted
    storage_notes: int
    recall_only: bool = False  # fill, recall and cold start only (``--recall``)


PROFILES = {
    "full": Profile(
        "full",
        (1_000, 10_000, 100_000),
        (1_000, 10_000, 100_000),
        ops=1_000,
        per_client=250,
        context=100,
        budget_s=60.0,
        starts=5,
        chain=200_000,
        embed=256,
        two_daemons=500,
        schema_writes=500,
        instructions=(10_000, 20),
        storage_notes=20_000,
    ),
    "quick": Profile(
        "quick",
        (1_000, 3_000),
        (3_000,),
        ops=200,
        per_client=50,
        context=20,
        budget_s=8.0,
        starts=3,
        chain=20_000,
        embed=16,
        two_daemons=100,
        schema_writes=100,
        instructions=(1_000, 5),
        storage_notes=500,
    ),
    # Every part once, in seconds: for the test that runs the benchmark itself.
    "tiny": Profile(
        "tiny",
        (200,),
        (),
        ops=20,
        per_client=5,
        context=5,
        budget_s=2.0,
        starts=1,
        chain=2_000,
        embed=0,
        two_daemons=10,
        schema_writes=10,
        instructions=None,
        storage_notes=20,
    ),
}


def vocabulary(n: int = 3_000, seed: int = 1) -> list[str]:
    """Pronounceable made-up words: no accidental secrets, a Zipf-like mix of frequencies."""
    rnd = random.Random(seed)
    onsets, vowels, codas = "bdfgklmnprstvz", "aeiou", ["", "n", "r", "s", "l", "k"]
    words: set[str] = set()
    while len(words) < n:
        words.add(
            "".join(
                rnd.choice(onsets) + rnd.choice(vowels) + rnd.choice(codas)
                for _ in range(rnd.randint(2, 3))
            )
        )
    return sorted(words)


def _letters(n: int) -> str:
    """``n`` written in the letters a to z (1 is "b", 26 is "ba")."""
    out = ""
    while True:
        n, digit = divmod(n, 26)
        out = "abcdefghijklmnopqrstuvwxyz"[digit] + out
        if not n:
            return out


class Corpus:
    """Realistic small entries: a title and one to three sentences of 120-400 bytes."""

    def __init__(self, seed: int = 3) -> None:
        self.words = vocabulary()
        self.rnd = random.Random(seed)
        # Zipf-ish weights: a few common words, a long tail of rare ones.
        self.weights = [1.0 / (i + 1) ** 0.9 for i in range(len(self.words))]
        self.n = 0

    def text(self, k: int) -> str:
        return " ".join(self.rnd.choices(self.words, self.weights, k=k))

    def entry(self) -> dict[str, Any]:
        self.n += 1
        body = (
            ". ".join(
                self.text(self.rnd.randint(6, 18)).capitalize()
                for _ in range(self.rnd.randint(1, 3))
            )
            + "."
        )
        return {
            "type": self.rnd.choice(["preference", "procedure", "fact", "lesson"]),
            # Numbered in letters: a bare number after made-up words ("…
            # bispin 2701") reads as a code after its name to the learned
            # reading of secrets (kernel/secret_score.py).
            "title": f"{self.text(3).capitalize()} {_letters(self.n)}",
            "body": body,
        }

    def intent(self) -> str:
        return "Help me with " + self.text(self.rnd.randint(3, 8))


# --- statistics -------------------------------------------------------------------------


def pct(samples: list[float], q: float) -> float:
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, max(0, round(q * (len(ordered) - 1))))]


def summary(samples: list[float], ops_per_s: float | None = None) -> dict[str, float]:
    """Microseconds at p50/p99; ops/s from wall time when given, else 1 / mean."""
    rate = ops_per_s if ops_per_s is not None else 1 / statistics.fmean(samples)
    return {
        "p50_us": round(pct(samples, 0.50) * 1e6, 1),
        "p99_us": round(pct(samples, 0.99) * 1e6, 1),
        "ops_per_s": round(rate, 1),
    }


def timed(fn: Callable[[], object], n: int, budget_s: float | None = None) -> list[float]:
    """Up to ``n`` timed calls, stopping early (after at least 5) once ``budget_s`` is spent."""
    if budget_s is None:
        return _floors.timed(fn, n)
    out: list[float] = []
    end = time.perf_counter() + budget_s
    while len(out) < n and (len(out) < 5 or time.perf_counter() < end):
        out.extend(_floors.timed(fn, 1))
    return out


# --- the daemon ---------------------------------------------------------------------------


class Bench:
    def __init__(self, daemon: Daemon, budget_s: float) -> None:
        self.d = daemon
        self.corpus = Corpus()
        self.control = daemon.control(timeout=120)
        self.agent = daemon.agent(timeout=120)
        enable_consent(self.control)
        self.entries = 0
        self.ids: list[str] = []
        self.results: dict[str, dict[str, float]] = {}
        self.notes: list[str] = []
        # Recall by store size (its label): the figures that are not latencies.
        self.recall: dict[str, dict[str, float]] = {}
        # Seconds a read scenario may take before it stops early (reported in notes).
        self.budget = budget_s
        # The texts each recall scenario sent, by its name: its floor's queries.
        self.sent: dict[str, list[str]] = {}

    def begin(self, client: Client, scope: str | tuple[str, ...]) -> str:
        scopes = [scope] if isinstance(scope, str) else list(scope)
        return str(client.call("task.begin", {"scopes": scopes})["task_id"])

    def fill(self, upto: int) -> None:
        """Bring the store to ``upto`` entries, 50 adds per control-channel call."""
        while self.entries < upto:
            count = min(50, upto - self.entries)
            scope = FILL[(self.entries // 50) % len(FILL)]
            ops = [
                {"action": "add", "scope": scope, "entry": self.corpus.entry()}
                for _ in range(count)
            ]
            out = self.control.call("memory.write", {"action": "batch", "ops": ops})
            self.ids.extend(e["id"] for e in out["entries"])
            self.entries += count

    def write_params(self, task: str, scope: str) -> dict[str, Any]:
        return {"task_id": task, "action": "add", "scope": scope, "entry": self.corpus.entry()}

    def write_1c(self, n: int) -> None:
        task = self.begin(self.agent, ALLOWED)
        timed(lambda: self.agent.call("memory.write", self.write_params(task, ALLOWED)), 10)
        t0 = time.perf_counter()
        samples = timed(
            lambda: self.agent.call("memory.write", self.write_params(task, ALLOWED)), n
        )
        self.results["write_allow_1c"] = summary(samples, n / (time.perf_counter() - t0))
        self.entries += n + 10

    def concurrent_writes(
        self, conns: list[Client], per_client: int
    ) -> tuple[list[float], float, int]:
        """``per_client`` allowed agent writes on each of ``conns`` at once, one
        thread each: every write's seconds, the wall time, and how many writes
        were acknowledged as applied."""
        tasks = [self.begin(c, ALLOWED) for c in conns]
        # Params are made up front: the corpus generator is not thread-safe.
        params = [[self.write_params(t, ALLOWED) for _ in range(per_client)] for t in tasks]
        samples: list[list[float]] = [[] for _ in conns]
        applied = [0] * len(conns)
        start = threading.Barrier(len(conns) + 1)

        def worker(i: int) -> None:
            it = iter(params[i])

            def one() -> None:
                if conns[i].call("memory.write", next(it))["outcome"] == "applied":
                    applied[i] += 1

            start.wait()
            samples[i].extend(timed(one, per_client))

        threads = [threading.Thread(target=worker, args=(i,)) for i in range(len(conns))]
        for t in threads:
            t.start()
        start.wait()
        t0 = time.perf_counter()
        for t in threads:
            t.join()
        wall = time.perf_counter() - t0
        return [s for per in samples for s in per], wall, sum(applied)

    def write_8c(self, per_client: int, clients: int = 8) -> None:
        conns = [self.d.agent(timeout=120) for _ in range(clients)]
        try:
            flat, wall, _applied = self.concurrent_writes(conns, per_client)
        finally:
            for c in conns:
                c.close()
        self.results[f"write_allow_{clients}c"] = summary(flat, len(flat) / wall)
        self.entries += len(flat)

    def propose_and_approve(self, n: int) -> None:
        task = self.begin(self.agent, REVIEWED)
        actions: list[str] = []

        def propose() -> None:
            out = self.agent.call("memory.write", self.write_params(task, REVIEWED))
            assert out["outcome"] == "pending", out["outcome"]
            actions.append(out["action_id"])

        t0 = time.perf_counter()
        samples = timed(propose, n)
        self.results["propose"] = summary(samples, n / (time.perf_counter() - t0))
        it = iter(actions)
        t0 = time.perf_counter()
        samples = timed(
            lambda: self.control.call("governance.action.approve", {"action_id": next(it)}), n
        )
        self.results["approve"] = summary(samples, n / (time.perf_counter() - t0))
        self.entries += n

    def reads(self, n: int) -> None:
        task = self.begin(self.agent, FILL)
        rnd = random.Random(11)

        def read() -> None:
            self.agent.call("memory.read", {"task_id": task, "ids": rnd.sample(self.ids, 5)})

        timed(read, 10)
        self.results["read"] = summary(timed(read, n, self.budget))
        listing = timed(
            lambda: self.agent.call(
                "memory.list", {"task_id": task, "mode": "list", "page_size": 20}
            ),
            n,
            self.budget,
        )
        searching = timed(
            lambda: self.agent.call(
                "memory.list",
                {"task_id": task, "mode": "search", "query": self.corpus.text(2), "page_size": 20},
            ),
            n,
            self.budget,
        )
        self.results["list"] = summary(listing + searching)
        self.results["list_only"] = summary(listing)
        self.results["search_only"] = summary(searching)

    def reconnect(self) -> None:
        self.close()
        self.control = self.d.control(timeout=120)
        self.agent = self.d.agent(timeout=120)

    def context(self, n: int, size: int, name: str = "context") -> list[float] | None:
        """The freezing ``memory.context`` call: a new task each time, ended after."""
        samples: list[float] = []
        fused: list[int] = []
        sent = self.sent[f"{name}_{_label(size)}"] = []
        end = time.perf_counter() + self.budget
        while len(samples) < n and (len(samples) < 5 or time.perf_counter() < end):
            task = self.begin(self.agent, FILL)
            params = {"task_id": task, "intent": self.corpus.intent()}
            sent.append(params["intent"])
            t0 = time.perf_counter()
            try:
                snap = self.agent.call("memory.context", params)
            except RpcError as exc:
                if exc.code == -32601:  # no such method in this build
                    return None
                raise
            samples.append(time.perf_counter() - t0)
            fused.append(int(snap.get("ranking", {}).get("vector_candidates", 0)))
            self.agent.call("task.end", {"task_id": task})
        self.results[f"{name}_{_label(size)}"] = summary(samples)
        if any(fused):
            self.notes.append(
                f"{name}_{_label(size)}: {statistics.fmean(fused):.1f} vector "
                "candidates fused per call on average"
            )
        return samples

    def search(self, n: int, size: int, name: str = "search") -> None:
        """``memory.list`` in search mode, two corpus words, one task over every fill scope."""
        task = self.begin(self.agent, FILL)
        # Drawn before the clock runs; the ones sent are the floor's queries.
        queries = iter([self.corpus.text(2) for _ in range(n)])
        sent = self.sent[f"{name}_{_label(size)}"] = []

        def one() -> None:
            sent.append(next(queries))
            params = {"task_id": task, "mode": "search", "query": sent[-1], "page_size": 20}
            self.agent.call("memory.list", params)

        samples = timed(one, n, self.budget)
        self.results[f"{name}_{_label(size)}"] = summary(samples)
        self.agent.call("task.end", {"task_id": task})

    def audit_verify(self) -> None:
        t0 = time.perf_counter()
        out = self.control.call("audit.verify", {})
        elapsed = time.perf_counter() - t0
        if not out.get("ok"):
            raise SystemExit("bench: audit.verify failed on the benchmark's own store")
        checked = int(out["checked"])
        self.results["audit_verify"] = {
            "p50_us": round(elapsed * 1e6, 1),
            "p99_us": round(elapsed * 1e6, 1),
            "ops_per_s": round(checked / elapsed, 1),
        }
        self.notes.append(
            f"audit_verify: {checked} events in one audit.verify call; "
            "ops_per_s is events per second"
        )

    def close(self) -> None:
        self.control.close()
        self.agent.close()


# --- hybrid recall -----------------------------------------------------------------------


def embedding_cost(corpus: Corpus, n: int) -> dict[str, Any] | None:
    """Entries/s of the embedding model on corpus entries, and the RSS loading it adds."""
    try:
        from memoryd.daemon.config import RecallConfig
        from memoryd.daemon.semantic.embedding import BATCH, entry_text, load
    except ImportError:
        return None
    before = _rss_kib(os.getpid())
    t0 = time.perf_counter()
    loaded = load(RecallConfig())
    if loaded.embedder is None:
        return None
    load_s = time.perf_counter() - t0
    texts = [entry_text(e["title"], e["body"]) for e in (corpus.entry() for _ in range(n))]
    t0 = time.perf_counter()
    pool = [loaded.embedder.passages(texts[i : i + BATCH]) for i in range(0, n, BATCH)]
    per_s = n / (time.perf_counter() - t0)
    # The worker's rate on 30-word texts, in the worker's batches: by the
    # clock, and per second of this thread's CPU (one core's worth, whatever
    # else the machine runs).
    words30 = [corpus.text(30) for _ in range(max(n, 2 * BATCH))]
    t0, c0 = time.perf_counter(), time.thread_time()
    for i in range(0, len(words30), BATCH):
        loaded.embedder.passages(words30[i : i + BATCH])
    wall30, cpu30 = time.perf_counter() - t0, time.thread_time() - c0
    q = [time.perf_counter()]
    for _ in range(50):
        loaded.embedder.query(corpus.intent())
        q.append(time.perf_counter())
    queries = [b - a for a, b in itertools.pairwise(q)]
    return {
        "model": loaded.embedder.model_id,
        "dim": loaded.embedder.dim,
        "load_s": round(load_s, 3),
        "entries_per_s": round(per_s, 1),
        "words30_per_s": round(len(words30) / wall30, 1),
        "words30_per_cpu_s": round(len(words30) / cpu30, 1) if cpu30 > 0 else None,
        "query_p50_us": round(pct(queries, 0.5) * 1e6, 1),
        "query_p99_us": round(pct(queries, 0.99) * 1e6, 1),
        "model_rss_mib": round((_rss_kib(os.getpid()) - before) / 1024, 1),
        "pool": pool,
    }


def _rss_kib(pid: int, field: str = "VmRSS") -> int:
    """The process's resident set (``VmHWM``: its peak), KiB."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1])
    return 0


def inject_vectors(home: Path, model: str, dim: int, pool: Any, seed: int = 11) -> int:
    """Give every active entry a vector of ``model`` (daemon stopped), as the worker would.

    Embedding 100k entries at the measured rate takes hours on two cores, so
    the benchmark stores real embeddings of a few hundred corpus entries
    (``pool``), each copy slightly perturbed, quantised exactly as the worker
    quantises. Their cosines to real intents are the model's, so the
    neighbour floor lets through as many candidates as real vectors would,
    and the cost measured is the real path's. Quality is measured by
    bench/recall_quality.py, on real embeddings of real text. On PostgreSQL
    the home's schema gets the same rows.
    """
    import numpy as np

    from memoryd.daemon.semantic.quantise import quantise

    rng = np.random.default_rng(seed)
    base = np.vstack(pool).astype(np.float32)

    def made(rows: list[tuple[str, str]]) -> Iterator[tuple[Any, ...]]:
        for i, (entry_id, content_hash) in enumerate(rows):
            vec = base[i % len(base)] + rng.normal(0.0, 0.01, dim).astype(np.float32)
            scale, blob = quantise(vec / np.linalg.norm(vec))
            yield entry_id, model, dim, scale, blob, content_hash

    insert = (
        "INSERT INTO entry_vectors(entry_id, model, dim, scale, vec, content_hash)"
        " VALUES ({0}, {0}, {0}, {0}, {0}, {0}) ON CONFLICT(entry_id) DO UPDATE SET"
        " model = excluded.model, dim = excluded.dim, scale = excluded.scale,"
        " vec = excluded.vec, content_hash = excluded.content_hash"
    )
    meta = (
        "INSERT INTO meta(key, value) VALUES ('vector_model', {0})"
        " ON CONFLICT(key) DO UPDATE SET value = excluded.value"
    )
    store = pg_store_of(home)
    if store is not None:
        with pg_connect(*store) as pg:
            rows = [
                (str(a), str(b))
                for a, b in pg.execute(
                    "SELECT id, content_hash FROM entries WHERE status = 'active'"
                ).fetchall()
            ]
            pg.execute("DELETE FROM embed_queue")
            with pg.cursor() as cur:
                cur.executemany(insert.format("%s"), list(made(rows)))
            pg.execute(meta.format("%s"), (model,))
        return len(rows)
    conn = apsw.Connection(str(home / "memory.db"))
    try:
        rows = list(conn.execute("SELECT id, content_hash FROM entries WHERE status = 'active'"))
        with conn:
            conn.execute("DELETE FROM embed_queue")
            conn.executemany(insert.format("?"), made(rows))
            conn.execute(meta.format("?"), (model,))
    finally:
        conn.close()
    return len(rows)


def hybrid_context(
    d: Daemon, b: Bench, size: int, profile: Profile, config: str, cost: dict[str, Any]
) -> None:
    """Restart with the hybrid ranker over a fully embedded store; time
    memory.context and search, read the daemon's RSS, time its cold start
    (until its ranker is ready); then go back to the lexical daemon."""
    b.close()
    d.stop()
    inject_vectors(d.home, cost["model"], cost["dim"], cost["pool"])
    if pg_store_of(d.home) is not None:
        analyze(d.home)
    hybrid = config.replace('ranker = "lexical"', 'ranker = "auto"')
    (d.home / "memoryd.toml").write_text(hybrid)
    # The first start after the vectors were written packs them (as a store
    # from before the packs is, once): not a cold start, not counted.
    starts = cold_start(d, profile.starts + 1, ready=True)[1:]
    b.reconnect()
    b.context(profile.context, size, name="context_hybrid")
    b.search(profile.ops, size, name="search_hybrid")
    pid = d.proc.pid if d.proc else 0
    label = _label(size)
    b.results[f"cold_start_hybrid_{label}"] = summary(starts)
    b.recall.setdefault(label, {}).update(
        rss_hybrid_mib=round(_rss_kib(pid) / 1024, 1),
        peak_rss_hybrid_mib=round(_rss_kib(pid, "VmHWM") / 1024, 1),
    )
    b.close()
    d.stop()
    (d.home / "memoryd.toml").write_text(config)
    d.start()
    b.reconnect()


def _label(n: int) -> str:
    return f"{n // 1000}k" if n >= 1000 else str(n)


def chain_verify(count: int) -> dict[str, float]:
    """The verifier alone over ``count`` realistic events (bench/audit_verify.py builds them)."""
    rows = build_chain(count)
    best = 0.0
    for _ in range(3):
        t0 = time.perf_counter()
        result = verify_chain(iter(rows))
        elapsed = time.perf_counter() - t0
        if not result.ok:
            raise SystemExit("bench: a freshly built chain did not verify")
        best = max(best, count / elapsed)
    return {
        "p50_us": round(count / best * 1e6, 1),
        "p99_us": round(count / best * 1e6, 1),
        "ops_per_s": round(best, 1),
    }


def cold_start(d: Daemon, runs: int, ready: bool = False) -> list[float]:
    """Stop, then time a fresh process until both sockets answer ``memory.status``
    (``ready``: and its hybrid ranker says its vector search is ready)."""
    samples = []
    for _ in range(runs):
        d.stop()
        t0 = time.perf_counter()
        d.start(wait=False)
        deadline = t0 + 120
        while True:
            if time.perf_counter() > deadline:
                raise SystemExit("bench: the daemon did not come back")
            try:
                with Client(d.control_path, timeout=5) as c:
                    recall = c.call("memory.status", {}).get("recall", {})
                with Client(d.agent_path, timeout=5) as a:
                    a.call("memory.status", {})
                if not ready or recall.get("index") == "exact":
                    break
            except (OSError, RpcError):
                pass
            time.sleep(0.002)
        samples.append(time.perf_counter() - t0)
    return samples


def two_daemons(b: Bench, per_daemon: int) -> dict[str, Any]:
    """Two homes on one new schema (as on two hosts), an allowed agent writer on
    each at once; every acknowledged write counted, the schema's rows counted,
    and the chain verified from both homes after."""
    root = short_tempdir()
    pair: tuple[Daemon, Daemon] | None = None
    try:
        pair = shared_pair(root, fresh_schema(), config=CONFIG, policy=POLICY)
        with pair[0].control(timeout=120) as control:
            enable_consent(control)
        conns = [d.agent(timeout=120) for d in pair]
        try:
            flat, wall, applied = b.concurrent_writes(conns, per_daemon)
        finally:
            for c in conns:
                c.close()
        verified = []
        for d in pair:
            with d.control(timeout=120) as control:
                verified.append(control.call("audit.verify", {}))
        if not all(v.get("ok") for v in verified):
            raise SystemExit("bench: the shared audit chain did not verify")
        store = pg_store_of(pair[0].home)
        assert store is not None
        with pg_connect(*store) as conn:
            row = conn.execute(
                "SELECT count(*) FROM entries WHERE scope = %s", (ALLOWED,)
            ).fetchone()
        stored = int(row[0])
    finally:
        for d in pair or ():
            d.stop()
        shutil.rmtree(root, ignore_errors=True)
    b.results["two_daemons"] = summary(flat, len(flat) / wall)
    b.notes.append(
        f"two_daemons: two homes on one schema, one agent writer on each, "
        f"{per_daemon} allowed writes each; ops_per_s is both together"
    )
    return {
        "writes_per_daemon": per_daemon,
        "expected": 2 * per_daemon,
        "acknowledged": applied,
        "stored": stored,
        "writes_per_s": round(len(flat) / wall, 1),
        "chain_verified": all(v.get("ok") for v in verified),
        "checked_events": [int(v["checked"]) for v in verified],
    }


def analyze(home: Path) -> None:
    """Vacuum and analyse the home's freshly filled tables, as autovacuum would.

    The fill writes in seconds what a store gathers over months; on a server
    with autovacuum on (PostgreSQL's default) its tables have been analysed
    and vacuumed long before then (since PostgreSQL 13 inserts alone start a
    vacuum). Without statistics the planner takes a table for nearly empty
    and walks every entry of the owner for a full-text query or a listing
    page; without a vacuum no page is marked all-visible, so the index-only
    scans that read an owner's postings visit the table for every row
    (docs/performance.md shows by how much)."""
    import psycopg.sql

    store = pg_store_of(home)
    assert store is not None
    with pg_connect(*store) as conn:
        tables = [
            r[0]
            for r in conn.execute(
                "SELECT tablename FROM pg_tables WHERE schemaname = %s", (store[1],)
            ).fetchall()
        ]
        conn.commit()
        conn.autocommit = True  # VACUUM runs outside a transaction
        for table in tables:
            conn.execute(
                psycopg.sql.SQL("VACUUM (ANALYZE) {}").format(psycopg.sql.Identifier(table))
            )


def pg_server() -> dict[str, str]:
    import psycopg

    with psycopg.connect(PG_DSN) as conn:
        version = conn.execute("SHOW server_version").fetchone()
        autovacuum = conn.execute("SHOW autovacuum").fetchone()
    return {
        "postgresql": str(version[0]) if version else "",
        "autovacuum": str(autovacuum[0]) if autovacuum else "",
        "psycopg": psycopg.__version__,
    }


def machine(backend: str = "sqlite") -> dict[str, Any]:
    model = ""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    out = {
        "platform": platform.platform(),
        "python": platform.python_version(),
        "cpus": os.cpu_count(),
        "cpu_model": model,
        "sqlite": apsw.sqlite_lib_version(),
        "apsw": apsw.apsw_version(),
    }
    return out | (pg_server() if backend == "postgresql" else {})


FLOOR_KEYS = (
    "commit_p50_us",
    "commit_nolock_p50_us",
    "head_lock_cost_us",
    "schema_floor_p50_us",
    "echo_p50_us",
    "fts_p99_us",
)


def print_table(out: dict[str, Any]) -> None:
    f = out["floors"]
    m = out["machine"]
    store = (
        f"postgresql {m['postgresql']} (autovacuum {m['autovacuum']})"
        if out.get("backend") == "postgresql"
        else f"sqlite {m['sqlite']}"
    )
    print(f"\nmachine: {m['cpus']} cpu {m['cpu_model']}, python {m['python']}, {store}")
    print("\nfloors (µs):")
    for key in FLOOR_KEYS:
        if key in f:
            print(f"  {key:<20} {'-' if f[key] is None else f'{f[key]:>10.1f}'}")
    print(f"\n{'scenario':<18} {'p50 µs':>10} {'p99 µs':>10} {'ops/s':>12}")
    for name, s in out["scenarios"].items():
        print(f"{name:<18} {s['p50_us']:>10.1f} {s['p99_us']:>10.1f} {s['ops_per_s']:>12.1f}")
    print("\nratios:")
    for name, value in out["ratios"].items():
        print(f"  {name:<32} {'-' if value is None else f'{value:.2f}'}")
    print_recall(out)
    if out.get("two_daemons"):
        t = out["two_daemons"]
        print(
            f"\ntwo daemons: {t['acknowledged']} of {t['expected']} writes acknowledged, "
            f"{t['stored']} stored, {t['writes_per_s']} writes/s, chain verified from both "
            f"homes ({' and '.join(str(c) for c in t['checked_events'])} events)"
        )
    if out.get("embedding"):
        e = out["embedding"]
        print(
            f"\nembedding: {e['model']} (dim {e['dim']}), load {e['load_s']} s, "
            f"{e['entries_per_s']} entries/s ({e['words30_per_s']}/s on 30-word texts, "
            f"{e['words30_per_cpu_s']} per CPU-second), query p50 {e['query_p50_us']} µs / "
            f"p99 {e['query_p99_us']} µs, model RSS +{e['model_rss_mib']} MiB"
        )
    for note in out.get("notes", []):
        print(f"note: {note}")


def print_recall(out: dict[str, Any]) -> None:
    """Recall by store size: p99 in ms and each one's ratio, RSS in MiB, cold start p50 in s."""
    if not out.get("recall"):
        return
    s, r = out["scenarios"], out["ratios"]

    def p99(name: str) -> str:
        return f"{s[name]['p99_us'] / 1000:.1f}" if name in s else "-"

    def ratio(name: str) -> str:
        return f"{r[name]:.2f}" if r.get(name) is not None else "-"

    print(
        f"\n{'recall':<8} {'fts':>6} {'context':>8} {'×fts':>6} {'fts':>6} {'search':>7}"
        f" {'×fts':>6} {'ctx hyb':>8} {'×lex':>5} {'srch hyb':>8} {'×lex':>5} {'RSS lex':>8}"
        f" {'RSS hyb':>8} {'peak':>6} {'start hyb':>9}"
    )
    for label, row in out["recall"].items():
        fts, fts_search = row.get("fts_p99_us"), row.get("fts_search_p99_us")
        started = s.get(f"cold_start_hybrid_{label}")
        start = "-" if started is None else f"{started['p50_us'] / 1e6:.2f}"
        print(
            f"{label:<8} {'-' if fts is None else f'{fts / 1000:.1f}':>6}"
            f" {p99(f'context_{label}'):>8} {ratio(f'context_vs_fts_{label}'):>6}"
            f" {'-' if fts_search is None else f'{fts_search / 1000:.1f}':>6}"
            f" {p99(f'search_{label}'):>7} {ratio(f'search_vs_fts_{label}'):>6}"
            f" {p99(f'context_hybrid_{label}'):>8}"
            f" {ratio(f'context_hybrid_vs_lexical_{label}'):>5}"
            f" {p99(f'search_hybrid_{label}'):>8} {ratio(f'search_hybrid_vs_lexical_{label}'):>5}"
            f" {row.get('rss_lexical_mib', '-'):>8} {row.get('rss_hybrid_mib', '-'):>8}"
            f" {row.get('peak_rss_hybrid_mib', '-'):>6}"
            f" {start:>9}"
        )


def fresh_schema() -> str:
    """A new schema name; every schema the benchmark's daemons use starts with ``bench_``."""
    return "bench_" + uuid.uuid4().hex[:12]


@contextmanager
def home_config(backend: str) -> Iterator[str]:
    """The benchmark's ``memoryd.toml`` on ``backend``: on PostgreSQL with a
    fresh schema, and every schema made inside dropped after, also on failure."""
    try:
        yield CONFIG + (pg_store_section(fresh_schema()) if backend == "postgresql" else "")
    finally:
        if backend == "postgresql":
            drop_pg_schemas()


def run(profile: Profile, backend: str = "sqlite") -> dict[str, Any]:
    """The daemon's scenarios and the floors, on ``backend``."""
    with home_config(backend) as config:
        return _run(profile, backend, config)


def _run(profile: Profile, backend: str, config: str) -> dict[str, Any]:
    pg = backend == "postgresql"
    n = profile.ops
    sizes = profile.sizes
    root = short_tempdir()
    d = Daemon(root / "h", config=config, policy=POLICY)
    # The daemon runs with its bytecode cached, as an installed package's is
    # (pip compiles it): under PYTHONDONTWRITEBYTECODE=1 on a source tree,
    # every cold start would first compile memoryd's modules (about 0.4 s).
    # The cache lives in this run's temporary root; the first start fills it.
    d.env.pop("PYTHONDONTWRITEBYTECODE", None)
    d.env["PYTHONPYCACHEPREFIX"] = str(root / "pycache")
    cost = embedding_cost(Corpus(seed=5), profile.embed) if profile.embed else None
    commit_nolock: list[float] | None = None
    details: dict[str, Any] = {}
    try:
        floors_dir = root / "floor"
        floors_dir.mkdir()
        d.start()
        b = Bench(d, profile.budget_s)
        try:
            context = recall_series(d, b, profile, config, cost)
            if profile.recall_only:
                return recall_only(d, b, profile, backend, cost)
            # Where the context series stops, the rest is measured at the same size.
            # The commit floor right before the writes: the disk's fsync time
            # drifts with whatever else the machine does.
            if pg:
                commit_nolock, commit = _floors.pg_commit_floor(PG_DSN, n)
            else:
                commit = _floors.commit_floor(floors_dir, n)
            b.write_1c(n)
            b.write_8c(profile.per_client)
            b.propose_and_approve(max(5, n // 2))
            b.reads(n)
            b.audit_verify()
        finally:
            b.close()
        sample = b.corpus.entry()
        echo = _floors.echo_floor(
            floors_dir, n, {"task_id": "tsk_" + "0" * 26, "action": "add", "entry": sample}
        )
        fts = fts_floor(d, b.sent.get(f"context_{_label(sizes[-1])}", []))
        b.notes.append(
            "fts floor: for each intent the context scenario sent at the largest size, "
            "the terms the daemon's plan keeps, matched and ranked top-12 by the "
            + ("server's ts_rank over the daemon's search_index" if pg else "FTS5's bm25")
            + " (read-only)"
        )
        if fts is None:
            b.notes.append("fts floor skipped: the daemon's store has no full-text index")
        if context is None:
            b.notes.append("context skipped: this daemon has no memory.context")
        starts = cold_start(d, profile.starts)
        b.results["cold_start"] = summary(starts)
        b.results["audit_verify_chain"] = chain_verify(profile.chain)
        b.notes.append(
            f"audit_verify_chain: the verifier alone over {profile.chain} built "
            "events, best of 3; ops_per_s is events per second"
        )
        b.notes.append(
            f"cold_start: {b.entries} entries; start of a new process until both "
            "sockets answer memory.status"
        )
        if pg:
            details["two_daemons"] = two_daemons(b, profile.two_daemons)
            b.notes.append(
                "analyze: the store's tables were vacuumed and analyzed after each "
                "fill, as autovacuum would have on a default server"
            )
        if cost is None:
            b.notes.append(
                "hybrid skipped: "
                + (
                    "the semantic extra is not installed"
                    if profile.embed
                    else f"a {profile.mode} run"
                )
            )
    finally:
        try:
            d.stop()
        finally:
            shutil.rmtree(root, ignore_errors=True)

    floors = {"commit_p50_us": round(pct(commit, 0.5) * 1e6, 1)}
    if commit_nolock is not None:
        floors["commit_nolock_p50_us"] = round(pct(commit_nolock, 0.5) * 1e6, 1)
        floors["head_lock_cost_us"] = round(
            floors["commit_p50_us"] - floors["commit_nolock_p50_us"], 1
        )
    floors |= {
        "echo_p50_us": round(pct(echo, 0.5) * 1e6, 1),
        "fts_p99_us": None if fts is None else round(pct(fts, 0.99) * 1e6, 1),
    }
    s = b.results
    largest = f"context_{_label(sizes[-1])}"
    if largest in s:
        s["context"] = s[largest]
    ratios = {
        "write_allow_1c_vs_floor": round(
            s["write_allow_1c"]["p50_us"] / (floors["commit_p50_us"] + floors["echo_p50_us"]), 3
        ),
        "write_8c_vs_1c": round(
            s["write_allow_8c"]["ops_per_s"] / s["write_allow_1c"]["ops_per_s"], 3
        ),
        "context_vs_fts": (
            round(s["context"]["p99_us"] / floors["fts_p99_us"], 3)
            if "context" in s and floors["fts_p99_us"]
            else None
        ),
    }
    if "two_daemons" in s:
        ratios["two_daemons_vs_1c"] = round(
            s["two_daemons"]["ops_per_s"] / s["write_allow_1c"]["ops_per_s"], 3
        )
    ratios |= recall_ratios(b)
    return {
        "machine": machine(backend),
        "backend": backend,
        "mode": profile.mode,
        "entries": b.entries,
        "floors": floors,
        "scenarios": s,
        "ratios": ratios,
        "embedding": None if cost is None else {k: v for k, v in cost.items() if k != "pool"},
        "recall": b.recall,
        **details,
        "notes": b.notes,
    }


def recall_series(
    d: Daemon, b: Bench, profile: Profile, config: str, cost: dict[str, Any] | None
) -> list[float] | None:
    """At each size: fill, then memory.context and search (lexical), the FTS
    floor on the same store, the daemon's RSS; with the model, the same calls
    with the hybrid ranker (``hybrid_context``). The last context samples."""
    context: list[float] | None = None
    for size in profile.sizes:
        b.fill(size)
        store = pg_store_of(d.home)
        if store is not None:
            analyze(d.home)
        context = b.context(profile.context, size)
        b.search(profile.ops, size)
        # Each scenario against the raw index answering its own queries.
        fts = fts_floor(d, b.sent.get(f"context_{_label(size)}", []))
        fts_search = fts_floor(d, b.sent.get(f"search_{_label(size)}", []))
        b.recall[_label(size)] = {
            "entries": b.entries,
            **{
                f"{key}_p{q}_us": None if got is None else round(pct(got, q / 100) * 1e6, 1)
                for key, got in (("fts", fts), ("fts_search", fts_search))
                for q in (50, 99)
            },
            "rss_lexical_mib": round(_rss_kib(d.proc.pid if d.proc else 0) / 1024, 1),
        }
        if cost is not None and size in profile.hybrid:
            hybrid_context(d, b, size, profile, config, cost)
    b.notes.append(
        "recall: at each size the store is filled, memory.context and search "
        "timed, and the raw full-text floor measured on the same store; hybrid: "
        "the daemon restarted with the model over vectors for every entry, cold "
        "start timed until its ranker is ready, RSS read after its calls"
    )
    return context


def fts_floor(d: Daemon, queries: list[str]) -> list[float] | None:
    """The raw full-text floor of ``queries`` on ``d``'s store (``bench/_floors.py``)."""
    if not queries:
        return None
    store = pg_store_of(d.home)
    if store is not None:
        return _floors.pg_fts_floor(*store, queries)
    return _floors.fts_floor(d.home / "memory.db", queries)


def recall_ratios(b: Bench) -> dict[str, float | None]:
    """Context and search against the FTS floor, hybrid against lexical, at each size."""
    s = b.results
    out: dict[str, float | None] = {}
    for label, r in b.recall.items():
        for name, floor in (("context", "fts_p99_us"), ("search", "fts_search_p99_us")):
            fts = r.get(floor)
            if f"{name}_{label}" in s and fts:
                out[f"{name}_vs_fts_{label}"] = round(s[f"{name}_{label}"]["p99_us"] / fts, 3)
            if f"{name}_hybrid_{label}" in s:
                out[f"{name}_hybrid_vs_lexical_{label}"] = round(
                    s[f"{name}_hybrid_{label}"]["p99_us"] / s[f"{name}_{label}"]["p99_us"], 3
                )
    return out


def recall_only(
    d: Daemon, b: Bench, profile: Profile, backend: str, cost: dict[str, Any] | None
) -> dict[str, Any]:
    """``--recall``: the recall series and the lexical daemon's cold start, nothing else."""
    b.close()
    b.results["cold_start"] = summary(cold_start(d, profile.starts))
    b.notes.append(
        f"cold_start: {b.entries} entries, lexical; start of a new process "
        "until both sockets answer memory.status"
    )
    return {
        "machine": machine(backend),
        "backend": backend,
        "mode": profile.mode + "+recall",
        "entries": b.entries,
        "floors": {},
        "scenarios": b.results,
        "ratios": recall_ratios(b),
        "recall": b.recall,
        "embedding": None if cost is None else {k: v for k, v in cost.items() if k != "pool"},
        "notes": b.notes,
    }


def measure(profile: Profile, backend: str = "sqlite") -> dict[str, Any]:
    """``run``, then the measures that each take a daemon of their own."""
    started = time.perf_counter()
    out = run(profile, backend)
    if profile.recall_only:
        out["elapsed_s"] = round(time.perf_counter() - started, 1)
        return out
    # Measured after the run, each on a daemon of its own: the instruction
    # counts under callgrind (deterministic where latency is not), and the
    # bytes a fixed workload of agent notes leaves on disk.
    from bench import instructions, schema_floor, storage  # they build on this module

    if backend == "sqlite":
        schema = schema_floor.measure(profile.schema_writes)
        out["floors"]["schema_floor_p50_us"] = schema["schema_floor_p50_us"]
        out["schema_floor"] = schema
        out["ratios"]["write_allow_1c_vs_schema_floor"] = round(
            out["scenarios"]["write_allow_1c"]["p50_us"]
            / (schema["schema_floor_p50_us"] + out["floors"]["echo_p50_us"]),
            3,
        )
    else:
        out["notes"].append(
            "schema_floor skipped: it replays the statements apsw traced on "
            "the SQLite writer connection"
        )
    if backend == "sqlite" and profile.instructions is not None:
        out["instructions"] = instructions.measure(*profile.instructions)
    else:
        out["notes"].append(
            "instructions skipped: "
            + (
                f"not counted in a {profile.mode} run"
                if backend == "sqlite"
                else "on PostgreSQL the store's work is in the server, which callgrind does not see"
            )
        )
    out["storage"] = storage.measure(profile.storage_notes, backend)
    out["elapsed_s"] = round(time.perf_counter() - started, 1)
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    size = parser.add_mutually_exclusive_group()
    size.add_argument("--quick", action="store_true", help="a short smoke run (CI)")
    size.add_argument(
        "--tiny", action="store_true", help="every part once, in seconds (the benchmark's own test)"
    )
    parser.add_argument(
        "--backend",
        choices=BACKENDS,
        default="sqlite",
        help="the daemon's primary store (default: sqlite)",
    )
    parser.add_argument(
        "--sizes",
        type=int,
        nargs="+",
        metavar="N",
        help="fill the store to these sizes instead of the profile's",
    )
    parser.add_argument(
        "--recall",
        action="store_true",
        help="only the recall series (context, search, hybrid, RSS, cold start)",
    )
    parser.add_argument("--json", metavar="FILE", help="also write the results as JSON")
    args = parser.parse_args(argv)
    profile = PROFILES["tiny" if args.tiny else "quick" if args.quick else "full"]
    if args.sizes:
        profile = replace(
            profile,
            sizes=tuple(sorted(args.sizes)),
            hybrid=tuple(sorted(args.sizes)) if profile.embed else (),
        )
    if args.recall:
        profile = replace(profile, recall_only=True)
    out = measure(profile, args.backend)
    print_table(out)
    from bench import instructions, storage

    if "instructions" in out:
        instructions.print_table(out["instructions"])
    if "storage" in out:
        storage.print_table(out["storage"])
    print(
        f"\n{out['mode']} run on {out['backend']}: {out['entries']} entries, {out['elapsed_s']} s"
    )
    if args.json:
        Path(args.json).write_text(json.dumps(out, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
