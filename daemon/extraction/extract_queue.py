"""The extraction queue: finished tasks' transcripts waiting for the worker.

Owns: the ``extract_jobs`` and ``extract_transcripts`` tables (one SQL for
both primary stores), and every read and change of them: enqueue, claim,
progress, defer, finish, retry, drop, expiry and the counts ``memory.status``
and ``memctl extract status`` show.

A job's row holds ids, states, times and counts only. Its transcript (and the
candidates drawn from it, once extracted) live in ``extract_transcripts``,
one row per job, deleted in the transaction that ends the job; SQLite's
secure_delete zeroes the freed pages and the worker then truncates the WAL,
as a removed entry's bytes are destroyed (docs/extraction.md).

Invariants:
- a job is claimed by one worker at a time: the claim is an UPDATE guarded by
  the state it read, and a claim's lease lets another daemon take the job
  only after the claimant stopped renewing it;
- a job in a final state (``done``, ``failed`` past its attempts, ``dropped``,
  ``expired``) holds no transcript; no job holds one past ``expires_at``;
- nothing here logs or returns transcript text except ``claim``'s answer to
  the worker.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import msgspec

from memoryd.daemon.ids import random_id
from memoryd.daemon.storage.txn import Tx, audit_subject
from memoryd.kernel.errors import Conflict, LimitExceeded, NotFound

__all__ = ["SCHEMA", "STATES", "Claimed", "Job", "claim", "counts", "drop", "enqueue",
           "expire", "finish", "list_jobs", "release_all", "retry"]

# The table that holds a job's transcript until the job ends.
TRANSCRIPTS = "extract_transcripts"

SCHEMA = """
CREATE TABLE IF NOT EXISTS extract_jobs(
  job_id TEXT PRIMARY KEY, owner TEXT NOT NULL, task_id TEXT, channel TEXT NOT NULL,
  scope TEXT NOT NULL, user_scope TEXT NOT NULL, state TEXT NOT NULL,
  attempts INTEGER NOT NULL DEFAULT 0, not_before TEXT NOT NULL, lease_until TEXT,
  claimed_by TEXT, created_at TEXT NOT NULL, updated_at TEXT NOT NULL,
  expires_at TEXT NOT NULL, turns INTEGER NOT NULL, progress INTEGER NOT NULL DEFAULT 0,
  candidates INTEGER NOT NULL DEFAULT 0, proposed INTEGER NOT NULL DEFAULT 0,
  applied INTEGER NOT NULL DEFAULT 0, dropped INTEGER NOT NULL DEFAULT 0,
  refused INTEGER NOT NULL DEFAULT 0, last_error TEXT);
CREATE INDEX IF NOT EXISTS extract_jobs_ready ON extract_jobs(state, not_before);
CREATE INDEX IF NOT EXISTS extract_jobs_owner ON extract_jobs(owner, state);
CREATE TABLE IF NOT EXISTS extract_transcripts(
  job_id TEXT PRIMARY KEY, body TEXT NOT NULL, candidates TEXT);
"""

# queued: waiting (maybe deferred to not_before); running: claimed.
# Final: done, failed (attempts spent), dropped (by the operator), expired.
STATES = ("queued", "running", "done", "failed", "dropped", "expired")
_OPEN = ("queued", "running")


@dataclass(frozen=True, slots=True)
class Job:
    job_id: str
    owner: str
    task_id: str | None
    scope: str
    user_scope: str
    attempts: int
    progress: int
    # Who submitted it: ``agent`` (a task's end) or ``control`` (the operator).
    channel: str


@dataclass(frozen=True, slots=True)
class Claimed:
    job: Job
    transcript: str
    # The candidates drawn on an earlier attempt (JSON), kept with the
    # transcript so a job resumed after a crash proposes the same ones.
    candidates: str | None


def enqueue(tx: Tx, *, owner: str, task_id: str | None, channel: str, scope: str,
            user_scope: str, transcript: str, turns: int, now: str, expires_at: str,
            max_queued: int) -> str:
    queued = tx.one("SELECT count(*) AS n FROM extract_jobs WHERE owner = ? AND state IN"
                    " ('queued', 'running')", (owner,))
    if queued is not None and queued["n"] >= max_queued:
        raise LimitExceeded.cap("rate_limited", "extract.max_queued", max_queued,
                                queued_jobs=queued["n"])
    job_id = random_id("ext")
    tx.exec("INSERT INTO extract_jobs(job_id, owner, task_id, channel, scope, user_scope, state,"
            " not_before, created_at, updated_at, expires_at, turns)"
            " VALUES (?, ?, ?, ?, ?, ?, 'queued', ?, ?, ?, ?, ?)",
            (job_id, owner, task_id, channel, scope, user_scope, now, now, now, expires_at,
             turns))
    tx.exec("INSERT INTO extract_transcripts(job_id, body) VALUES (?, ?)", (job_id, transcript))
    return job_id


def claim(tx: Tx, worker: str, now: str, lease_until: str) -> Claimed | None:
    """The next ready job, claimed for ``worker`` until ``lease_until``: a
    queued job whose ``not_before`` has come, or a running one whose lease ran
    out (its claimant stopped). Oldest first."""
    row = tx.one("SELECT * FROM extract_jobs WHERE (state = 'queued' AND not_before <= ?)"
                 " OR (state = 'running' AND lease_until <= ?)"
                 " ORDER BY not_before, created_at LIMIT 1", (now, now))
    if row is None:
        return None
    taken = tx.exec("UPDATE extract_jobs SET state = 'running', claimed_by = ?, lease_until = ?,"
                    " attempts = attempts + 1, updated_at = ?"
                    " WHERE job_id = ? AND state = ? AND updated_at = ?",
                    (worker, lease_until, now, row["job_id"], row["state"], row["updated_at"]))
    if taken != 1:
        return None
    body = tx.one("SELECT body, candidates FROM extract_transcripts WHERE job_id = ?",
                  (row["job_id"],))
    job = Job(row["job_id"], row["owner"], row["task_id"], row["scope"], row["user_scope"],
              row["attempts"] + 1, row["progress"], row["channel"])
    if body is None:  # cannot happen while the job is open; end it cleanly
        _end(tx, row["job_id"], "failed", now, "transcript_missing")
        return None
    return Claimed(job, body["body"], body["candidates"])


def holds(tx: Tx, job_id: str, worker: str, lease_until: str | None = None
          ) -> dict[str, Any] | None:
    """The job's row while ``worker`` still holds its claim, else None; with
    ``lease_until`` the claim is renewed to it."""
    row = tx.one("SELECT * FROM extract_jobs WHERE job_id = ? AND state = 'running'"
                 " AND claimed_by = ?", (job_id, worker))
    if row is not None and lease_until is not None:
        tx.exec("UPDATE extract_jobs SET lease_until = ? WHERE job_id = ?",
                (lease_until, job_id))
    return row


def save_candidates(tx: Tx, job_id: str, candidates: str, n: int, dropped: int,
                    now: str) -> None:
    tx.exec("UPDATE extract_transcripts SET candidates = ? WHERE job_id = ?",
            (candidates, job_id))
    tx.exec("UPDATE extract_jobs SET candidates = ?, dropped = dropped + ?, updated_at = ?"
            " WHERE job_id = ?", (n, dropped, now, job_id))


def advance(tx: Tx, job_id: str, outcome: str, now: str) -> None:
    """One candidate handled: ``outcome`` is proposed, applied, dropped or refused."""
    assert outcome in ("proposed", "applied", "dropped", "refused")
    tx.exec(f"UPDATE extract_jobs SET progress = progress + 1, {outcome} = {outcome} + 1,"  # noqa: S608 (one of four column names)
            " updated_at = ? WHERE job_id = ?", (now, job_id))


def defer(tx: Tx, job_id: str, not_before: str, now: str, code: str, *,
          spent: bool = True) -> None:
    """The job back to the queue until ``not_before``; unless ``spent``, the
    attempt its claim counted is given back (a throttle is not the job's)."""
    tx.exec("UPDATE extract_jobs SET state = 'queued', not_before = ?, claimed_by = NULL,"
            " lease_until = NULL, last_error = ?, updated_at = ?, attempts = attempts - ?"
            " WHERE job_id = ?", (not_before, code, now, 0 if spent else 1, job_id))


def _end(tx: Tx, job_id: str, state: str, now: str, code: str | None = None) -> None:
    tx.exec("UPDATE extract_jobs SET state = ?, claimed_by = NULL, lease_until = NULL,"
            " last_error = coalesce(?, last_error), updated_at = ? WHERE job_id = ?",
            (state, code, now, job_id))
    tx.exec("DELETE FROM extract_transcripts WHERE job_id = ?", (job_id,))
    row = tx.one("SELECT * FROM extract_jobs WHERE job_id = ?", (job_id,))
    assert row is not None
    tx.audit("extraction_changed", now,
             subject=audit_subject(row["owner"], channel=row["channel"], task_id=row["task_id"],
                                   role="operator" if row["channel"] == "control" else "main"),
             details={"job_id": job_id, "state": state, **{
                 k: row[k] for k in ("attempts", "candidates", "proposed", "applied",
                                     "dropped", "refused")}})


def finish(tx: Tx, job_id: str, now: str) -> None:
    _end(tx, job_id, "done", now)


def fail(tx: Tx, job_id: str, now: str, code: str) -> None:
    """Attempts spent: the job ends and its transcript is destroyed."""
    _end(tx, job_id, "failed", now, code)


def expire(tx: Tx, now: str) -> list[str]:
    """End every open job past its ``expires_at``; the ids ended."""
    rows = tx.all("SELECT job_id FROM extract_jobs WHERE state IN ('queued', 'running')"
                  " AND expires_at <= ?", (now,))
    for row in rows:
        _end(tx, row["job_id"], "expired", now)
    return [r["job_id"] for r in rows]


def release_all(tx: Tx, now: str) -> int:
    """At start on a store no other daemon shares: every running job was this
    home's last run's, which stopped; each goes back to the queue, to be
    claimed in turn (never all at once)."""
    return tx.exec("UPDATE extract_jobs SET state = 'queued', claimed_by = NULL,"
                   " lease_until = NULL, updated_at = ? WHERE state = 'running'", (now,))


def _job(tx: Tx, job_id: str) -> dict[str, Any]:
    row = tx.one("SELECT * FROM extract_jobs WHERE job_id = ?", (job_id,))
    if row is None:
        raise NotFound("extract_job_not_found")
    return row


def retry(tx: Tx, job_id: str, now: str) -> dict[str, Any]:
    """A queued (deferred) job is made ready now. A job that ended has no
    transcript left to read: ``extract_job_state``."""
    row = _job(tx, job_id)
    if row["state"] != "queued":
        raise Conflict("extract_job_state", details={"state": row["state"]})
    tx.exec("UPDATE extract_jobs SET not_before = ?, updated_at = ? WHERE job_id = ?",
            (now, now, job_id))
    tx.audit("extraction_changed", now,
             subject=audit_subject(row["owner"], channel="control", role="operator"),
             details={"job_id": job_id, "state": "queued", "retry": True})
    return _job(tx, job_id)


def drop(tx: Tx, job_id: str, now: str) -> dict[str, Any]:
    """An open job is ended unread; its transcript is destroyed."""
    row = _job(tx, job_id)
    if row["state"] not in _OPEN:
        raise Conflict("extract_job_state", details={"state": row["state"]})
    _end(tx, job_id, "dropped", now)
    return _job(tx, job_id)


def counts(tx: Tx, owner: str | None) -> dict[str, int]:
    """Jobs per state (every owner's when ``owner`` is None)."""
    out = dict.fromkeys(STATES, 0)
    where, args = ("WHERE owner = ?", (owner,)) if owner is not None else ("", ())
    for row in tx.all(f"SELECT state, count(*) AS n FROM extract_jobs {where}"  # noqa: S608 (constant clause)
                      " GROUP BY state", args):
        out[row["state"]] = row["n"]
    return out


JOB_FIELDS = ("job_id", "owner", "task_id", "state", "attempts", "not_before", "created_at",
              "updated_at", "expires_at", "turns", "candidates", "proposed", "applied",
              "dropped", "refused", "last_error")


def list_jobs(tx: Tx, owner: str | None, limit: int = 50) -> list[dict[str, Any]]:
    """The latest jobs, newest first: ids, states, times and counts only."""
    where, args = ("WHERE owner = ?", (owner,)) if owner is not None else ("", ())
    rows = tx.all(f"SELECT * FROM extract_jobs {where} ORDER BY created_at DESC LIMIT ?",  # noqa: S608 (constant clause)
                  (*args, limit))
    return [{k: r[k] for k in JOB_FIELDS} for r in rows]


def encode_candidates(items: list[dict[str, Any]]) -> str:
    return msgspec.json.encode(items).decode()


def decode_candidates(text: str) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = msgspec.json.decode(text)
    return out
