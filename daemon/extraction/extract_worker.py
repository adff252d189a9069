"""Extraction: submitting finished tasks, and the worker that drains the queue.

Owns: the submission of a transcript (at ``task.end`` or by the operator's
``extract.submit``), decided by the gate (``MemoryExtract``, with the owner's
consent as the kernel's input) and audited; the control methods
``extract.submit`` / ``extract.status`` / ``extract.retry`` / ``extract.drop``;
and the worker, which takes one job at a time off the request path, asks the
extractor (daemon/extraction/extractors.py) for candidates and turns each into a
governed write (daemon/pipeline/governance.py): scanned, decided, then proposed
(``requires_approval`` by default) or applied, with provenance
``extraction``, ``basis.kind = "observed"`` and refs to the turn and span.

Invariants:
- nothing of a transcript reaches a log, an audit event, an error or status:
  ids, codes and counts only;
- a job writes only while its owner may: ``contribute`` on,
  ``learn_from_tools`` on as well when its task was begun with ``tools_used``
  or its transcript holds a tool turn, a team scope only while the owner
  is a member, and never once its task's token is revoked (the task that
  submitted it has ended, so its frozen view no longer holds). Asked when
  the job is taken, before the transcript goes to any extractor (a refusal
  fails the job and destroys the transcript), and again in each
  candidate's transaction; the policy's ``MemoryExtract`` decision is
  asked and audited again when the job is taken (a policy tightened since
  refuses it);
  ``extract.submit`` refuses a team scope to a non-member at once;
- a transcript goes to an extractor off the host only when the policy
  allows both the host and the transcript's leaving, and the scanner finds
  no credential in it (else the job fails: ``transcript_secret_detected``);
- a task begun with ``tools_used`` submits only when the owner's
  ``learn_from_tools`` switch was on too (SPEC §7, §11); a tool turn is
  stored only when that switch was on; a subagent's task never submits; a
  revoked token's task cannot end (the gate refuses it), so it submits nothing;
- a candidate is proposed only when its body is exactly the span of a user
  turn it names; one repeating an active entry of its scope is dropped, and
  one updating an entry is a ``supersede`` of it (daemon/extraction/updates.py),
  both judged on the entries read in the transaction that writes the
  outcome;
- each candidate is handled in its own transaction that also advances the
  job's progress, so a crash mid-job resumes after the last one handled:
  nothing is proposed or applied twice, and no job is lost;
- a job's transcript is destroyed in the transaction that ends it, and the
  WAL is truncated after it (SQLite); a truncation a reader kept from
  completing is tried again on every round until it does.
"""

from __future__ import annotations

import dataclasses
import random
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from datetime import datetime
from typing import TYPE_CHECKING, Any

import anyio
import structlog

from memoryd.audit.keyed import KeyedHasher
from memoryd.daemon.access import tasks, teams
from memoryd.daemon.access.gate import ControlCall, Gate
from memoryd.daemon.access.identity import read_consent
from memoryd.daemon.clock import Clock, fmt, plus
from memoryd.daemon.config import ExtractConfig
from memoryd.daemon.external import egress
from memoryd.daemon.extraction import extract_queue as queue
from memoryd.daemon.extraction import transcripts, updates
from memoryd.daemon.extraction.extractors import Builtin, Candidate, Extractor
from memoryd.daemon.pipeline import content_scan
from memoryd.daemon.pipeline import governance as gov
from memoryd.daemon.pipeline.entries import View
from memoryd.daemon.pipeline.writes import Caller, Proposal, touched_types
from memoryd.daemon.storage.store import Store, Tx
from memoryd.daemon.storage.txn import audit_subject
from memoryd.kernel.capability import (
    Capability,
    Channel,
    Decision,
    Effect,
    Resource,
    Role,
    Subject,
)
from memoryd.kernel.errors import MemorydError, Unavailable
from memoryd.kernel.grants import Consent, extract_grants
from memoryd.kernel.policy import Policy
from memoryd.kernel.teams import is_team_scope
from memoryd.rpc import schema
from memoryd.rpc.protocol import CallContext, MethodSpec

if TYPE_CHECKING:
    from memoryd.daemon.semantic.embedding import Embedder

__all__ = ["Extraction", "ProviderError", "methods"]

log = structlog.get_logger()

_NOTE = "extracted from a finished task's user turn"
# Entries of the scope embedded beside a candidate at most (the closest by
# their words): bounds the model's work per candidate.
_NEAR_ENTRIES = 16
# A candidate is compared with at most this many of its scope's active
# entries (the most recently updated) besides the one under its own title:
# the comparison costs about 25 ms of one core per 1,000 entries.
_COMPARED = 1_000
# The table a job's transcript (and its candidates) lived in: what a job's
# end makes leave the database's files (``Store.checkpoint_wal``).
SCRUBBED = (queue.TRANSCRIPTS,)
# Why a job's transcript was not sent to an extractor's endpoint: a
# credential in it (daemon/external/egress.py).
TRANSCRIPT_WITHHELD = "transcript_secret_detected"


class ProviderError(Exception):
    """A failure of an extractor's provider. Transient (throttled, 5xx,
    timeout): the job is deferred with backoff and jitter; otherwise the job
    fails. ``code`` names it; ``retry_after`` is the seconds the provider
    asked for (its ``Retry-After``), if it did. Nothing else is carried."""

    def __init__(self, code: str, *, transient: bool = True,
                 retry_after: float | None = None) -> None:
        super().__init__(code)
        self.code = code
        self.transient = transient
        self.retry_after = retry_after


@dataclass
class Extraction:
    store: Store
    clock: Clock
    hasher: KeyedHasher
    gate: Gate
    governance: gov.Governance
    policy: Callable[[], Policy]
    config: ExtractConfig
    entry_max_bytes: int
    control: ControlCall
    boot_id: str
    extractor: Extractor = field(default_factory=Builtin)
    # The semantic extra's model (daemon/semantic/embedding.py), when loaded:
    # paraphrases of an entry or of another candidate are dropped as repeats.
    embedder: Embedder | None = None
    _wake: anyio.Event | None = field(default=None, init=False, repr=False)
    # After a provider's refusal no job is claimed before this moment: a
    # throttled provider is not asked again for every queued job in turn.
    _paused_until: datetime | None = field(default=None, init=False, repr=False)
    # The provider's transient refusals in a row (none since its last answer).
    _refusals: int = field(default=0, init=False, repr=False)
    # A job's end deleted a transcript but the WAL could not be truncated
    # (a reader's snapshot held it): its frames still hold the text, and
    # every round tries again until the truncation completes.
    _unscrubbed: bool = field(default=False, init=False, repr=False)

    # -- submission ---------------------------------------------------------------

    def _submit(self, tx: Tx, subject: Subject, consent: Consent, scope: str,
                turns: list[transcripts.Turn], now_dt: datetime,
                channel: str, tools_used: bool = False) -> schema.ExtractSubmitted:
        """Decide, audit and (when allowed) queue one transcript, in ``tx``."""
        now = fmt(now_dt)
        decision, resource = self.gate.submission(subject, consent, scope, tools_used)
        kept = [t for t in turns if t.role != "tool" or consent.learn_from_tools]
        job_id = None
        if decision.effect is Effect.ALLOW:
            job_id = queue.enqueue(
                tx, owner=subject.owner, task_id=subject.task_id, channel=channel,
                scope=scope, user_scope=subject.owner, transcript=transcripts.encode(kept),
                turns=len(turns), now=now,
                expires_at=fmt(plus(now_dt, hours=self.config.retention_hours)),
                max_queued=self.config.max_queued)
        _audit_decision(tx, now, audit_subject(subject), Capability.MEMORY_EXTRACT, resource,
                        decision, {"turns": len(turns), "turns_kept": len(kept),
                                   **({"job_id": job_id} if job_id else {})})
        if job_id is None:
            return schema.ExtractSubmitted(queued=False, refused=_refused(decision, subject),
                                           decision_id=decision.decision_id)
        log.info("extraction_queued", job_id=job_id, owner=subject.owner, turns=len(turns))
        return schema.ExtractSubmitted(queued=True, job_id=job_id,
                                       decision_id=decision.decision_id)

    def check_turns(self, items: list[schema.TranscriptTurn]) -> list[transcripts.Turn]:
        """``task.end``'s transcript, bounded, before any transaction."""
        return transcripts.from_turns(items, max_bytes=self.config.max_transcript_bytes,
                                      max_turns=self.config.max_turns)

    def submit_task(self, tx: Tx, task: tasks.Task, turns: list[transcripts.Turn],
                    now_dt: datetime) -> schema.ExtractSubmitted:
        """A finished task's transcript, in ``task.end``'s transaction."""
        subject = Subject(channel=Channel(task.channel), role=Role(task.role), owner=task.owner,
                          task_id=task.task_id)
        return self._submit(tx, subject, task.consent, task.scopes[0], turns, now_dt,
                            task.channel, task.tools_used)

    def notify(self) -> None:
        """Wake the worker (from the event loop, after a submission committed)."""
        if self._wake is not None:
            self._wake.set()

    # -- control methods -------------------------------------------------------------

    async def extract_submit(self, ctx: CallContext,
                             p: schema.ExtractSubmit) -> schema.ExtractSubmitted:
        self.control.require(ctx, Capability.GOVERNANCE_DECIDE)
        turns = transcripts.parse_jsonl(p.jsonl, max_bytes=self.config.max_transcript_bytes,
                                        max_turns=self.config.max_turns)
        owner = self.control.owner_for(p.identity)
        scope = p.scope or "default"
        # Imported here: the scanner loads after the start (daemon/cli.py).
        from memoryd.kernel.scan import check_scopes

        check_scopes(scope)
        now_dt = self.clock.now()
        subject = Subject(channel=Channel.CONTROL, role=Role.OPERATOR, owner=owner)

        def run(tx: Tx) -> schema.ExtractSubmitted:
            # A team scope is the owner's only while it is a member, as for
            # a control write acting for it (daemon/access/teams.py).
            teams.check_task_scopes(tx, owner, (scope,))
            consent = read_consent(tx, owner).consent
            return self._submit(tx, subject, consent, scope, turns, now_dt, "control")

        out = await self.store.run(run)
        self.notify()
        return out

    async def extract_status(self, ctx: CallContext,
                             p: schema.IdentityOnly) -> schema.ExtractStatus:
        self.control.require(ctx, Capability.GOVERNANCE_DECIDE)
        owner = None if p.identity is None else self.control.owner_for(p.identity)
        return await self.store.run(
            lambda tx: schema.ExtractStatus(counts=queue.counts(tx, owner),
                                            jobs=queue.list_jobs(tx, owner)), write=False)

    async def extract_retry(self, ctx: CallContext,
                            p: schema.ExtractJobRef) -> schema.ExtractStatus:
        self.control.require(ctx, Capability.GOVERNANCE_DECIDE)
        now = fmt(self.clock.now())
        row = await self.store.run(lambda tx: queue.retry(tx, p.job_id, now))
        self.notify()
        return schema.ExtractStatus(counts={}, jobs=[{k: row[k] for k in queue.JOB_FIELDS}])

    async def extract_drop(self, ctx: CallContext,
                           p: schema.ExtractJobRef) -> schema.ExtractStatus:
        self.control.require(ctx, Capability.GOVERNANCE_DECIDE)
        now = fmt(self.clock.now())
        row = await self.store.run(lambda tx: queue.drop(tx, p.job_id, now))
        await self._scrub()
        log.info("extraction_dropped", job_id=p.job_id)
        return schema.ExtractStatus(counts={}, jobs=[{k: row[k] for k in queue.JOB_FIELDS}])

    # -- the worker ----------------------------------------------------------------

    @property
    def worker_id(self) -> str:
        return f"w_{self.boot_id}"

    async def run(self) -> None:
        """Drain the queue, one job at a time, until cancelled."""
        # This home's last run stopped mid-job: its jobs go back to the queue,
        # to be taken in turn like any other. A store that refuses writes now
        # (a damaged chain, an outage) is asked again on the next round: the
        # daemon goes on serving meanwhile.
        released = self.store.sharing != "single-host"
        while True:
            worked = False
            try:
                if not released:
                    await self.store.run(self._release_all)
                    released = True
                worked = await self.step()
            except Exception as exc:  # noqa: BLE001 (the worker must outlive one bad job)
                log.warning("extraction_step_failed", exc_type=type(exc).__name__)
            if not worked:
                wait = self.config.poll_interval_s
                if self._paused_until is not None:
                    # Paused (the rate, a provider's backoff): look again when it ends.
                    left = (self._paused_until - self.clock.now()).total_seconds()
                    wait = min(wait, max(left, 0.01))
                self._wake = anyio.Event()
                with anyio.move_on_after(wait):
                    await self._wake.wait()

    def _release_all(self, tx: Tx) -> None:
        queue.release_all(tx, fmt(self.clock.now()))

    async def _scrub(self) -> None:
        done = await anyio.to_thread.run_sync(self.store.checkpoint_wal, SCRUBBED)
        self._unscrubbed = not done

    async def step(self) -> bool:
        """Expire what is past its time, then take one ready job through;
        False when there was none."""
        now_dt = self.clock.now()
        now = fmt(now_dt)
        expired = await self.store.run(lambda tx: queue.expire(tx, now))
        if expired or self._unscrubbed:
            await self._scrub()
        if self._paused_until is not None and now_dt < self._paused_until:
            return False
        claimed = await self.store.run(
            lambda tx: queue.claim(tx, self.worker_id, now, self._lease(now_dt)))
        if claimed is None:
            return False
        # The configured rate: the next claim waits its turn.
        self._paused_until = plus(now_dt, seconds=60.0 / self.config.max_jobs_per_minute)
        if claimed.job.attempts > self.config.max_attempts:
            # Claimed again and again without ending (its worker stopped
            # each time): the job ends rather than loop.
            await self._defer(claimed.job, "attempts_spent")
            return True
        await self._work(claimed)
        return True

    def _extract_again(self, tx: Tx, job: queue.Job, tool_turns: bool) -> str | None:
        """Decide and audit ``MemoryExtract`` again for a job the worker
        takes, as the submission asked it (the same subject, the owner's
        consent now): a policy tightened since refuses it
        (``policy_denied``). The refusal's code, or None when it allows."""
        now = fmt(self.clock.now())
        agent = job.channel == Channel.AGENT.value
        subject = Subject(channel=Channel.AGENT if agent else Channel.CONTROL,
                          role=Role.MAIN if agent else Role.OPERATOR, owner=job.owner,
                          task_id=job.task_id if agent else None)
        decision, resource = self.gate.submission(
            subject, read_consent(tx, job.owner).consent, job.scope,
            _used_tools(tx, job, tool_turns))
        _audit_decision(tx, now, audit_subject(subject), Capability.MEMORY_EXTRACT, resource,
                        decision, {"job_id": job.job_id})
        return None if decision.effect is Effect.ALLOW else _refused(decision, subject)

    def _egress(self, tx: Tx, job: queue.Job, host: str) -> str | None:
        """Decide and audit sending the job's transcript to the extractor's
        host: ``NetworkAccess`` for the host, ``MemoryExternalize`` for the
        transcript (both ``deny`` unless policy allows). The refusal's code,
        or None when both allow."""
        now = fmt(self.clock.now())
        asked = (
            (Capability.NETWORK_ACCESS, Resource(
                target="memory", scope=host, action="connect", entry_id=None,
                expected_revision=None, content_hash=None), "network_denied"),
            (Capability.MEMORY_EXTERNALIZE, Resource(
                target="memory", scope=job.scope, action="extract", entry_id=None,
                expected_revision=None, content_hash=None), "externalize_denied"),
        )
        for capability, resource, code in asked:
            d = self.gate.egress(job.owner, capability, resource)
            _audit_decision(tx, now, audit_subject(job.owner, channel="control", role="operator"),
                            capability, resource, d, {"job_id": job.job_id})
            if d.effect is not Effect.ALLOW:
                return code
        return None

    def _lease(self, now_dt: datetime) -> str:
        return fmt(plus(now_dt, seconds=self.config.lease_s))

    async def _work(self, claimed: queue.Claimed) -> None:
        job = claimed.job
        turns = transcripts.decode(claimed.transcript)
        tool_turns = any(t.role == "tool" for t in turns)
        refused = await self.store.run(lambda tx: _standing(tx, job, tool_turns), write=False)
        if refused is None:
            refused = await self.store.run(lambda tx: self._extract_again(tx, job, tool_turns))
        if refused is not None:
            # Consent withdrawn, the team left or the policy tightened since
            # the submission: the transcript goes nowhere and is destroyed
            # with the job.
            await self._defer(job, refused, final=True)
            return
        if claimed.candidates is None:
            label = getattr(self.extractor, "endpoint", None)
            if label is not None:
                refused = await self.store.run(lambda tx: self._egress(tx, job, label.label))
                # Text that leaves the host is scanned first: a credential
                # anywhere in it skips the call (never a redacted copy). On a
                # thread: a transcript may be half a megabyte.
                if refused is None and await anyio.to_thread.run_sync(
                        egress.withheld, "\n".join(t.content for t in turns)) is not None:
                    refused = TRANSCRIPT_WITHHELD
                if refused is not None:
                    await self._defer(job, refused, final=True)
                    return
            try:
                extracted = await anyio.to_thread.run_sync(
                    self.extractor.extract, turns, self.config.max_candidates)
            except ProviderError as exc:
                await self._defer(job, exc.code, final=not exc.transient,
                                  retry_after=exc.retry_after)
                return
            self._refusals = 0
            by_index = {t.index: t for t in turns}
            kept = [c for c in extracted.candidates if _verbatim(c, by_index)]
            dropped = sum(extracted.dropped.values()) + len(extracted.candidates) - len(kept)
            if self.embedder is not None and len(kept) > 1:
                repeated = await anyio.to_thread.run_sync(
                    self._repeats_within, self.embedder, kept)
                dropped += sum(repeated)
                kept = [c for c, r in zip(kept, repeated, strict=True) if not r]
            items = [asdict(c) for c in kept[:self.config.max_candidates]]
            dropped += len(kept) - len(items)
            now = fmt(self.clock.now())

            def save(tx: Tx) -> bool:
                if queue.holds(tx, job.job_id, self.worker_id,
                               self._lease(self.clock.now())) is None:
                    return False
                queue.save_candidates(tx, job.job_id, queue.encode_candidates(items),
                                      len(items), dropped, now)
                return True

            if not await self.store.run(save):
                return
        else:
            items = queue.decode_candidates(claimed.candidates)
        by_index = {t.index: t for t in turns}
        for i in range(job.progress, len(items)):
            if not await self._propose(job, Candidate(**items[i]), by_index, i, tool_turns):
                return
        now = fmt(self.clock.now())

        def end(tx: Tx) -> bool:
            if queue.holds(tx, job.job_id, self.worker_id) is None:
                return False
            queue.finish(tx, job.job_id, now)
            return True

        if await self.store.run(end):
            await self._scrub()
            log.info("extraction_finished", job_id=job.job_id, candidates=len(items))

    async def _defer(self, job: queue.Job, code: str, *, final: bool = False,
                     retry_after: float | None = None) -> None:
        now_dt = self.clock.now()
        now = fmt(now_dt)
        # A throttle (429) says "later", not that this job is at fault: it
        # spends none of the job's attempts, and the job waits out the
        # throttle (at most retention_hours). A 5xx or a timeout may be the
        # job's own doing, so those spend one.
        spent = code != "throttled"
        if final or (spent and job.attempts >= self.config.max_attempts):
            def fail(tx: Tx) -> None:
                if queue.holds(tx, job.job_id, self.worker_id) is not None:
                    queue.fail(tx, job.job_id, now, code)

            await self.store.run(fail)
            await self._scrub()
            log.warning("extraction_failed", job_id=job.job_id, code=code)
            return
        # The worker pauses, not only the job: each refusal in a row at least
        # doubles the pause (half the doubled delay, plus jitter up to the
        # other half), so a throttled provider is asked a handful of times
        # however long the queue, and the queue comes back spread out. A
        # Retry-After is waited for, up to backoff_max_s.
        self._refusals += 1
        doublings = max(self._refusals, job.attempts if spent else 1) - 1
        ceiling = min(self.config.backoff_max_s,
                      self.config.backoff_initial_s * 2 ** doublings)
        delay = ceiling / 2 + random.uniform(0, ceiling / 2)
        if retry_after is not None:
            delay = max(delay, min(retry_after, self.config.backoff_max_s))
        self._paused_until = max(self._paused_until or now_dt, plus(now_dt, seconds=delay))
        not_before = fmt(self._paused_until)

        def defer(tx: Tx) -> None:
            if queue.holds(tx, job.job_id, self.worker_id) is not None:
                queue.defer(tx, job.job_id, not_before, now, code, spent=spent)

        await self.store.run(defer)
        log.info("extraction_deferred", job_id=job.job_id, code=code, attempts=job.attempts,
                 pause_s=round(delay, 1))

    def _caller(self, job: queue.Job) -> Caller:
        owner = job.owner
        teams = frozenset({job.scope}) if is_team_scope("memory", job.scope) else frozenset()
        return Caller(
            subject=Subject(channel=Channel.AGENT, role=Role.MAIN, owner=owner,
                            task_id=job.task_id),
            view=View(owner, frozenset({("memory", job.scope), ("user", job.user_scope)}), teams),
            default_scope=job.scope, user_scope=job.user_scope, channel="agent",
            read_allowed=False, task_id=job.task_id)

    def _repeats_within(self, embedder: Embedder, kept: list[Candidate]) -> list[bool]:
        bodies = [c.body for c in kept]
        return updates.same_as_earlier(bodies, _cosines(embedder, bodies))

    async def _near(self, embedder: Embedder, stored: list[updates.Stored],
                    cand: Candidate) -> dict[str, float]:
        """Entry id → cosine with the candidate, for the entries of ``stored``
        that share enough words to be a paraphrase of it (embedded in a
        worker thread, outside every store transaction)."""
        close = updates.shortlist(cand.body, stored, _NEAR_ENTRIES)
        if not close:
            return {}
        cos = await anyio.to_thread.run_sync(
            _cosines, embedder, [cand.body, *(e.body for e in close)])
        return {e.entry_id: cos[0][i + 1] for i, e in enumerate(close)}

    async def _propose(self, job: queue.Job, cand: Candidate,
                       by_index: dict[int, transcripts.Turn], i: int,
                       tool_turns: bool) -> bool:
        """Candidate ``i`` as a governed write; False when the claim was lost."""
        turn = by_index[cand.turn]
        refs = [f"turn:{cand.turn}", f"span:{cand.start}-{cand.end}"]
        if job.task_id is not None:
            refs.insert(0, f"task:{job.task_id}")
        caller = self._caller(job)
        holder = caller.view.holder("memory", job.scope)
        # What the statement does to the scope's active entries is read
        # before its transaction, so that a long comparison never holds the
        # store's writer: a repeat is dropped; an update becomes a supersede
        # of the entry at the revision read here, which the writer refuses
        # if the entry changed meanwhile.
        stored = await self.store.run(
            lambda tx: _active(tx, holder, job.scope, cand.title), write=False)
        near = (None if self.embedder is None
                else await self._near(self.embedder, stored, cand))
        found = await anyio.to_thread.run_sync(
            updates.match, cand.type, cand.title, cand.body, stored, near)
        p = schema.MemoryWrite(
            action="add", scope=job.scope,
            entry=schema.EntryIn(type=cand.type, title=cand.title, body=cand.body,  # type: ignore[arg-type]
                                 basis=schema.Basis(kind="observed", note=_NOTE, refs=refs)),
            source="extraction", evidence=schema.Evidence(user_message=turn.content))
        drafted = gov.draft(p, "agent", self.hasher)
        outcome = "refused"
        proposal = None
        try:
            proposal = gov.resolve(drafted, caller)
        except MemorydError:
            pass
        scanned = (content_scan.scan(proposal, self.entry_max_bytes) if proposal is not None
                   else content_scan.ScanVerdict(None))
        policy = self.policy()
        verdict = (self.gate.decide_write(caller, proposal.ops, policy)
                   if proposal is not None else None)
        now_dt = self.clock.now()
        now = fmt(now_dt)

        def run(tx: Tx) -> str | None:
            row = queue.holds(tx, job.job_id, self.worker_id, self._lease(now_dt))
            if row is None or row["progress"] != i:
                return None
            if (proposal is None or verdict is None
                    or _standing(tx, job, tool_turns) is not None):
                queue.advance(tx, job.job_id, "refused", now)
                return "refused"
            if found is not None and found.kind == "repeat":
                queue.advance(tx, job.job_id, "dropped", now)
                return "dropped"
            written, decided = proposal, verdict
            if found is not None:
                written = Proposal(
                    [dataclasses.replace(op, action="supersede", entry_id=found.entry_id,
                                         expected_revision=found.revision)
                     for op in proposal.ops], proposal.provenance)
                # The type of the entry it replaces is decided on too (an
                # entry under the same title may be of another type).
                decided = self.gate.decide_write(
                    caller, written.ops, policy,
                    touched_types(tx, caller.view, written.ops))
            out = self.governance.outcome(tx, caller, written, decided, scanned, now_dt)
            if isinstance(out, gov.Refusal):
                result = "refused"
            else:
                result = {"applied": "applied", "pending": "proposed"}.get(out.outcome,
                                                                          "dropped")
            queue.advance(tx, job.job_id, result, now)
            return result

        try:
            got = await self.store.run(run)
        except MemorydError as exc:
            # Refused inside the transaction (a cap, a title taken): rolled
            # back; the candidate is counted and the job goes on.
            log.info("extraction_candidate_refused", job_id=job.job_id, code=exc.code)

            def skip(tx: Tx) -> str | None:
                row = queue.holds(tx, job.job_id, self.worker_id)
                if row is None or row["progress"] != i:
                    return None
                queue.advance(tx, job.job_id, outcome, now)
                return outcome

            got = await self.store.run(skip)
        return got is not None


def _cosines(embedder: Embedder, texts: list[str]) -> list[list[float]]:
    """The embeddings' cosines, row by row (the model's rows are unit length)."""
    import numpy as np  # part of the semantic extra, as the model is

    rows = np.asarray(embedder.passages(texts), dtype=np.float32)
    cos: list[list[float]] = (rows @ rows.T).tolist()
    return cos


def _used_tools(tx: Tx, job: queue.Job, tool_turns: bool) -> bool:
    """Whether ``job`` used tools: its transcript holds a tool turn
    (``tool_turns``), or its task was begun with ``tools_used``."""
    return tool_turns or (job.task_id is not None and tasks.used_tools(tx, job.task_id))


def _audit_decision(tx: Tx, now: str, subject: dict[str, Any], capability: Capability,
                    resource: Resource, decision: Decision, details: dict[str, Any]) -> None:
    """The ``decision`` event of one of the worker's decisions (ids only)."""
    tx.audit("decision", now, subject=subject, capability=capability.value,
             resource=resource.canonical(), decision_id=decision.decision_id,
             effect=decision.effect.value, rule_ids=list(decision.rule_ids),
             details={"policy_hash": decision.policy_hash, **details})


def _standing(tx: Tx, job: queue.Job, tool_turns: bool) -> str | None:
    """Why ``job``'s owner may not write its scope now (a refusal's code),
    or None: ``contribute`` must still be on, ``learn_from_tools`` too when
    the job's task was begun with ``tools_used`` or ``tool_turns`` (its
    transcript holds tool output), a team scope's membership still held,
    and the token the job's task was begun with not revoked since (what
    held it can no longer be trusted, nor the transcript it handed in).
    The task that submitted the job has ended: its frozen consent and team
    scopes no longer speak for the owner (as an approval of its proposals
    re-checks membership, daemon/pipeline/governance.py)."""
    # The rule that let the transcript in (kernel/grants.py), asked again
    # with the owner's consent now. A job is a main task's or the
    # operator's, which that rule grants alike.
    if not extract_grants(read_consent(tx, job.owner).consent, Role.MAIN,
                          _used_tools(tx, job, tool_turns)):
        return "consent_required"
    if is_team_scope("memory", job.scope) and job.scope not in teams.current(tx, job.owner):
        return "scope_mismatch"
    if job.task_id is not None and tasks.token_revoked(tx, job.task_id):
        return "token_revoked"
    return None


def _active(tx: Tx, holder: str, scope: str, title: str) -> list[updates.Stored]:
    """The active entries a candidate is compared with: the one under its
    title, and the scope's ``_COMPARED`` most recently updated, newest first."""
    rows = tx.compared_entries(holder, scope, title, _COMPARED)
    seen: set[str] = set()
    out = []
    for r in rows:
        if r["id"] not in seen:
            seen.add(r["id"])
            out.append(updates.Stored(r["id"], int(r["revision"]), r["type"], r["title"],
                                      r["body"]))
    return out


def _verbatim(c: Candidate, by_index: dict[int, transcripts.Turn]) -> bool:
    turn = by_index.get(c.turn)
    return (turn is not None and turn.role == "user" and 0 <= c.start < c.end
            and turn.content[c.start:c.end] == c.body and bool(c.body.strip()))


def _refused(decision: Decision, subject: Subject) -> str:
    if decision.always_on == "extraction_needs_contribute":
        return "read_only_task" if subject.role is Role.SUBAGENT else "consent_required"
    return "policy_denied"


def methods(of: Callable[[], Extraction | None]) -> list[MethodSpec]:
    """The control methods, over the daemon's ``Extraction`` (``of()``, asked
    when a request comes; building the table calls nothing)."""
    def extraction() -> Extraction:
        found = of()
        if found is None:
            raise Unavailable("store_unavailable")
        return found

    async def submit(ctx: CallContext, p: schema.ExtractSubmit) -> schema.ExtractSubmitted:
        return await extraction().extract_submit(ctx, p)

    async def status(ctx: CallContext, p: schema.IdentityOnly) -> schema.ExtractStatus:
        return await extraction().extract_status(ctx, p)

    async def retry(ctx: CallContext, p: schema.ExtractJobRef) -> schema.ExtractStatus:
        return await extraction().extract_retry(ctx, p)

    async def drop(ctx: CallContext, p: schema.ExtractJobRef) -> schema.ExtractStatus:
        return await extraction().extract_drop(ctx, p)

    return [
        MethodSpec("extract.submit", schema.ExtractSubmit, submit, schema.ExtractSubmitted),
        MethodSpec("extract.status", schema.IdentityOnly, status, schema.ExtractStatus),
        MethodSpec("extract.retry", schema.ExtractJobRef, retry, schema.ExtractStatus),
        MethodSpec("extract.drop", schema.ExtractJobRef, drop, schema.ExtractStatus),
    ]
