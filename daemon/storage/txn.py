"""What an open transaction offers a module that only runs statements in it.

Owns: the ``Tx`` protocol (``one``, ``all``, ``tuples``, ``exec``, ``rows``, ``audit``,
``head``, ``dialect``) and ``audit_subject``, the one way an event names who
acted. Both stores implement it (``SqliteTx`` in
daemon/storage/store.py, ``PgTx`` in daemon/storage/store_pg.py); every module that runs
statements takes it, and the modules whose schema or triggers the store installs (search, vectors,
the projection outbox) and the rankers over them take a ``Tx`` of this type,
so none of them imports the store that imports them.

Invariants: a ``Tx`` is valid only inside the function given to the store's
``run``; rows come back as plain dicts keyed by column name (``tuples``: as tuples
in the statement's column order, for a statement that reads many rows);
between two rows of a ``rows`` walk the caller may run any other statement
on the same ``Tx``, and a walk left unfinished ends with its job.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING, Any, Protocol

from memoryd.kernel.capability import Subject

if TYPE_CHECKING:
    from memoryd.audit.chain import ChainHead, StoredEvent


class Tx(Protocol):
    """One open transaction, on either backend.

    ``dialect`` names the SQL the connection speaks: the daemon's statements
    are SQLite's, written portably (daemon/storage/store_pg.py carries them to
    PostgreSQL); the few that cannot be (full-text matching) ask it.
    ``audit`` appends one event to the chain and gives back the row it
    stored (seq, canonical bytes, chain hash).
    """

    dialect: str

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
