"""What an open transaction offers a module that runs in it: the store's seam.

Owns: the ``Tx`` protocol and ``audit_subject``, the one way an event names
who acted. A backend provides the primitives (``one``, ``all``, ``tuples``,
``exec``, ``rows``, ``audit``, ``head``, ``dialect``) and its full-text index
(``fulltext``: daemon/retrieval/search.py's ``FTS5`` or ``TSVECTOR``), and
inherits the operations below them (the journal, idempotency records,
receipts, snapshot cards, token and namespace look-ups, how an entry row is
stored, the claims of a shared queue), written once here in SQL both primary
stores speak, or as a store one daemon owns needs them; a backend whose SQL
or sharing differs overrides the one operation. No module outside
daemon/storage/ reads ``dialect`` (tests/unit/test_layering.py holds it):
what differs between backends is an operation here, so a new backend is
written in this wing alone.
Both stores subclass it (``SqliteTx`` in daemon/storage/store.py, ``PgTx`` in
daemon/storage/store_pg.py); every module that runs statements takes it, and
the modules whose schema or triggers the store installs (search, vectors, the
projection outbox) and the rankers over them take a ``Tx`` of this type, so
none of them imports the store that imports them.

Invariants: a ``Tx`` is valid only inside the function given to the store's
``run``; rows come back as plain dicts keyed by column name (``tuples``: as tuples
in the statement's column order, for a statement that reads many rows);
between two rows of a ``rows`` walk the caller may run any other statement
on the same ``Tx``, and a walk left unfinished ends with its job; an
operation runs in the caller's transaction and commits with it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from typing import TYPE_CHECKING, Any, Protocol

from memoryd.kernel.capability import Subject

if TYPE_CHECKING:
    from memoryd.audit.chain import ChainHead, StoredEvent


class FullTextIndex(Protocol):
    """What a store's full-text index offers its readers: the shape of
    daemon/retrieval/search.py's ``FullText`` (``FTS5``, ``TSVECTOR``),
    named here so that the storage wing needs nothing of recall's to type it."""

    @property
    def key(self) -> str: ...

    @property
    def doc_freqs(self) -> Callable[..., list[int]]: ...

    @property
    def ranked(self) -> Callable[..., list[dict[str, Any]]]: ...

    @property
    def tokens(self) -> Callable[..., list[list[str]]]: ...


class Tx(Protocol):
    """One open transaction, on either backend.

    ``dialect`` names the SQL the connection speaks, for the storage wing
    and the tests: the daemon's statements are SQLite's, written portably
    (daemon/storage/store_pg.py carries them to PostgreSQL); what cannot be
    is the store's ``fulltext`` index or one of the operations below.
    ``audit`` appends one event to the chain and gives back the row it
    stored (seq, canonical bytes, chain hash).
    """

    dialect: str
    fulltext: FullTextIndex

    @property
    def head(self) -> ChainHead: ...

    def one(self, sql: str, args: Sequence[Any] = ()) -> dict[str, Any] | None: ...

    # ``binary``: byte strings travel as they are (PostgreSQL's binary
    # format, not hex text); the same rows either way.
    def all(self, sql: str, args: Sequence[Any] = (), *,
            binary: bool = False) -> list[dict[str, Any]]: ...

    def tuples(self, sql: str, args: Sequence[Any] = ()) -> list[tuple[Any, ...]]: ...

    def exec(self, sql: str, args: Sequence[Any] = ()) -> int: ...

    def rows(self, sql: str, args: Sequence[Any] = ()) -> Iterator[dict[str, Any]]: ...

    def audit(self, kind: str, ts: str, **fields: Any) -> StoredEvent: ...

    # -- operations, written once over the primitives ------------------------

    def namespaces(self, owner: str) -> set[tuple[str, str]]:
        """Every (target, scope) ``owner`` holds an entry in, whatever its status."""
        return {(r["target"], r["scope"]) for r in self.all(
            "SELECT DISTINCT target, scope FROM entries WHERE owner = ?", (owner,))}

    def active_counts(self) -> dict[str, int]:
        """Every owner's count of active entries, by owner id."""
        return {r["owner"]: r["n"] for r in self.all(
            "SELECT owner, count(*) AS n FROM entries WHERE status = 'active'"
            " GROUP BY owner ORDER BY owner", ())}

    def compared_entries(self, owner: str, scope: str, title: str,
                         newest: int) -> list[dict[str, Any]]:
        """A memory scope's active entries under ``title``, then its ``newest``
        most recently updated (an entry may be in both)."""
        cols = ("SELECT id, revision, type, title, body FROM entries"
                " WHERE owner = ? AND target = 'memory' AND scope = ? AND status = 'active'")
        return [*self.all(cols + " AND title = ?", (owner, scope, title)),
                *self.all(cols + " ORDER BY updated_at DESC, id LIMIT ?", (owner, scope, newest))]

    def token_state(self, token_id: str) -> dict[str, Any] | None:
        """A token's ``expires_at`` and ``revoked_at``; None when there is no such token."""
        return self.one("SELECT expires_at, revoked_at FROM tokens WHERE token_id = ?",
                        (token_id,))

    def operation(self, operation_id: str, owner: str) -> dict[str, Any] | None:
        """One journal operation of ``owner``'s."""
        return self.one("SELECT * FROM operations WHERE operation_id = ? AND owner = ?",
                        (operation_id, owner))

    def record_operation(self, operation_id: str, owner: str, ts: str, action: str,
                         channel: str, items: str, undo_of: str | None = None) -> None:
        self.exec("INSERT INTO operations(operation_id, owner, ts, action, channel, items,"
                  " undo_of) VALUES (?, ?, ?, ?, ?, ?, ?)",
                  (operation_id, owner, ts, action, channel, items, undo_of))

    def mark_undone(self, operation_id: str, undone_by: str) -> None:
        self.exec("UPDATE operations SET undone_by = ? WHERE operation_id = ?",
                  (undone_by, operation_id))

    def revision(self, entry_id: str, revision: int) -> dict[str, Any] | None:
        """The kept revision ``revision`` of an entry (a replace left it)."""
        return self.one("SELECT * FROM revisions WHERE entry_id = ? AND revision = ?",
                        (entry_id, revision))

    def remembered(self, owner: str, key: str) -> dict[str, Any] | None:
        """The idempotency record of ``owner``'s ``key``: its request hash and answer."""
        return self.one("SELECT request_hash, answer FROM idempotency"
                        " WHERE owner = ? AND key = ?", (owner, key))

    def remember(self, owner: str, key: str, request_hash: str, answer: str,
                 created_at: str) -> None:
        self.exec("INSERT INTO idempotency(owner, key, request_hash, answer, created_at)"
                  " VALUES (?, ?, ?, ?, ?)", (owner, key, request_hash, answer, created_at))

    def receipt(self, receipt_id: str) -> dict[str, Any] | None:
        return self.one("SELECT * FROM receipts WHERE receipt_id = ?", (receipt_id,))

    def add_receipt(self, receipt_id: str, owner: str, entry_id: str, now: str) -> None:
        """A pending delete receipt."""
        self.exec("INSERT INTO receipts(receipt_id, owner, entry_id, status, created_at,"
                  " updated_at) VALUES (?, ?, ?, 'pending', ?, ?)",
                  (receipt_id, owner, entry_id, now, now))

    def set_snapshot(self, task_id: str, header: str) -> None:
        """A task's frozen snapshot header (its cards: ``set_cards``)."""
        self.exec("UPDATE tasks SET snapshot = ? WHERE task_id = ?", (header, task_id))

    def set_cards(self, task_id: str, cards: Sequence[tuple[str, str, str]]) -> None:
        """A task's snapshot cards, in order: (entry id, card, line) each, in one
        statement (a snapshot holds far fewer than either backend's limit on
        parameters); the task's cards before are gone."""
        self.exec("DELETE FROM snapshot_cards WHERE task_id = ?", (task_id,))
        if cards:
            self.exec("INSERT INTO snapshot_cards(task_id, pos, entry_id, card, line) VALUES "  # noqa: S608 (placeholders only)
                      + ", ".join(["(?, ?, ?, ?, ?)"] * len(cards)),
                      [x for pos, card in enumerate(cards) for x in (task_id, pos, *card)])

    def cards(self, task_id: str) -> list[dict[str, Any]]:
        """A task's snapshot cards in order; a withdrawn card's ``card`` and ``line`` are NULL."""
        return self.all("SELECT card, line FROM snapshot_cards WHERE task_id = ? ORDER BY pos",
                        (task_id,))

    # -- what a backend's own table or sharing decides -------------------------

    def stored_entry(self, changes: dict[str, Any],
                     entry_id: str | None = None) -> dict[str, Any]:
        """The ``entries`` columns to write for ``changes`` (columns as every
        reader sees them) to a new row, or to ``entry_id``'s: here every value
        as given. A backend whose table derives some columns from others
        (SQLite's) writes what it keeps instead."""
        return changes

    # A store one daemon owns has one embedding worker, which owns the whole
    # queue: nothing is claimed. A store several daemons share (PostgreSQL)
    # overrides these four, so each queued entry is embedded by one worker.

    def claimable_embeds(self) -> bool | None:
        """Whether a queued entry is free for this worker to claim; None
        when nothing is claimed (every queued entry is this worker's)."""
        return None

    def claim_embeds(self, worker: str, limit: int,
                     lease_s: float) -> list[dict[str, Any]] | None:
        """Up to ``limit`` queued entries (``id``, ``title``, ``body``,
        ``content_hash``, ``status``), now ``worker``'s for ``lease_s``
        seconds; None when nothing is claimed."""
        return None

    def release_embeds(self, worker: str, entry_ids: Sequence[str]) -> None:
        """Give back ``worker``'s claims on ``entry_ids``."""
        return None

    def claimed_rows(self, sql: str, args: Sequence[Any], *, of: str) -> list[dict[str, Any]]:
        """The rows of the query ``sql``, those of its table ``of`` (an alias)
        held by this transaction: another daemon's ``claimed_rows`` skips
        them until it ends. Here, with no other daemon, simply its rows."""
        return self.all(sql, args)


def audit_subject(who: Subject | str | None, *, channel: str | None = None,
                  role: str | None = None, task_id: str | None = None) -> dict[str, str | None]:
    """The ``subject`` an audit event names: who acted, as opaque ids only.

    A kernel ``Subject`` names its channel, role, owner and task; an owner id
    (or None) names that owner with the channel, role and task given (an
    event nobody asked for, the janitor's say, names the owner alone)."""
    if isinstance(who, Subject):
        return {"channel": str(who.channel), "role": str(who.role), "owner": who.owner,
                "task_id": who.task_id}
    return {"channel": channel, "role": role, "owner": who, "task_id": task_id}
