"""What an open transaction offers a module that only runs statements in it.

Owns: the ``Tx`` protocol (``one``, ``all``, ``exec``). The store implements
it; the modules whose schema or triggers the store installs (search, vectors,
the projection outbox) and the rankers over them take a ``Tx`` of this type,
so none of them imports the store that imports them.

Invariants: a ``Tx`` is valid only inside the function given to the store's
``run``; rows come back as plain dicts keyed by column name.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol


class Tx(Protocol):
    def one(self, sql: str, args: Sequence[Any] = ()) -> dict[str, Any] | None: ...

    def all(self, sql: str, args: Sequence[Any] = ()) -> list[dict[str, Any]]: ...

    def exec(self, sql: str, args: Sequence[Any] = ()) -> int: ...
