"""What every store backend shares, whatever its SQL: the writer's jobs and
groups, the audit row an append stores, and the schema version check.

Owns: ``Job`` (one unit of work for a store's writer or reader thread, and
how its caller is answered), ``next_group`` (the jobs a writer commits
together), ``audit_row`` (the event a ``Tx.audit`` appends, chained to the
transaction's head), ``head_of`` (the head a stored audit row names) and
``readable_version`` (the version a store's schema
names, refused when this memoryd cannot open it).

Invariants: a job is settled once, and its caller told once; a group never
holds the stop mark; an audit row names its subject by opaque ids only
(audit/event.py's guard refuses anything else).
"""

from __future__ import annotations

import asyncio
import queue
import threading
from collections.abc import Callable, Iterable, Sequence
from typing import Any, TypeVar

from memoryd.audit.chain import EMPTY_HEAD, ChainHead, StoredEvent, next_row
from memoryd.audit.event import EventSubject
from memoryd.audit.packing import unpack_hash


class StoreVersionError(Exception):
    """The store's schema version is not one this memoryd can open."""


def readable_version(text: str, current: int, store: str, unreadable: str) -> int:
    """The schema version ``text`` names, refused when unreadable or newer than ``current``."""
    if not text.isdigit():
        raise StoreVersionError(f"{store} has no readable schema version: {unreadable}")
    version = int(text)
    if version > current:
        raise StoreVersionError(
            f"{store} has schema version {version}, newer than this memoryd's"
            f" {current}: upgrade memoryd (the store was left unchanged)")
    return version


def audit_row(head: ChainHead, kind: str, ts: str, fields: dict[str, Any]) -> StoredEvent:
    """The event a ``Tx.audit`` stores after ``head``: ``fields`` as its keyword
    arguments, a ``subject`` given as a dict made an ``EventSubject``."""
    subject = fields.pop("subject", None)
    if isinstance(subject, dict):
        subject = EventSubject(**subject)
    return next_row(head, kind, ts, subject=subject, **fields)


# The newest audit row of a SQLite file, its hash in any stored form.
NEWEST_AUDIT_ROW = "SELECT seq, hash FROM audit ORDER BY seq DESC LIMIT 1"


def head_of(rows: Iterable[Sequence[Any]]) -> ChainHead:
    """The chain head the first of ``rows`` (seq, hash) names; EMPTY_HEAD for none."""
    for seq, hsh in rows:
        return ChainHead(seq=int(seq), hash=unpack_hash(hsh))
    return EMPTY_HEAD


J = TypeVar("J")


def next_group(jobs: queue.SimpleQueue[J | None], max_group: int) -> tuple[list[J], bool]:
    """A writer's next group: the first job (waited for), then every job
    already queued, up to ``max_group``; and whether the stop mark (None)
    was met. An empty group means stop now."""
    first = jobs.get()
    if first is None:
        return [], True
    batch = [first]
    while len(batch) < max_group:
        try:
            job = jobs.get_nowait()
        except queue.Empty:
            break
        if job is None:
            return batch, True
        batch.append(job)
    return batch, False


def _resolve_all(jobs: list[Job]) -> None:
    for job in jobs:
        job._resolve()


def _call_on(loop: asyncio.AbstractEventLoop, jobs: list[Job]) -> None:
    try:
        loop.call_soon_threadsafe(_resolve_all, jobs)
    except RuntimeError:  # the loop is closed: nobody is waiting any more
        pass


class Job:
    """One unit of work for the writer thread, and how its caller is answered."""

    __slots__ = (
        "_event",
        "_future",
        "_loop",
        "error",
        "fn",
        "governed",
        "raw",
        "result",
        "settled",
    )

    def __init__(self, fn: Callable[..., Any], *, governed: bool = True, raw: bool = False,
                 loop: asyncio.AbstractEventLoop | None = None) -> None:
        self.fn = fn
        self.governed = governed  # refused while the store is degraded
        self.raw = raw  # runs outside any transaction, between groups
        self.result: Any = None
        self.error: BaseException | None = None
        self.settled = False
        self._loop = loop
        self._future: asyncio.Future[Any] | None = loop.create_future() if loop else None
        self._event = None if loop else threading.Event()

    def finish(self, result: Any = None, error: BaseException | None = None, *,
               later: bool = False) -> bool:
        """Settle the job and tell its caller; with ``later``, the caller of a
        job on an event loop is told by ``tell_loops`` (once per loop for a
        whole group). True if this call settled it."""
        if self.settled:
            return False
        self.settled = True
        self.result, self.error = result, error
        if self._loop is not None:
            if not later:
                _call_on(self._loop, [self])
        else:
            assert self._event is not None
            self._event.set()
        return True

    def _resolve(self) -> None:
        assert self._future is not None
        if self._future.done():  # the caller went away; the work is done regardless
            return
        if self.error is not None:
            self._future.set_exception(self.error)
        else:
            self._future.set_result(self.result)

    @staticmethod
    def tell_loops(jobs: list[Job]) -> None:
        """Answer the callers of ``jobs`` that wait on event loops: one wake-up
        per loop, however many of its callers the group held."""
        by_loop: dict[asyncio.AbstractEventLoop, list[Job]] = {}
        for job in jobs:
            if job._loop is not None:
                by_loop.setdefault(job._loop, []).append(job)
        for loop, waiting in by_loop.items():
            _call_on(loop, waiting)

    async def wait_async(self) -> Any:
        assert self._future is not None
        return await self._future

    def wait(self) -> Any:
        assert self._event is not None
        self._event.wait()
        if self.error is not None:
            raise self.error
        return self.result
