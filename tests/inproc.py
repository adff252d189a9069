"""The daemon composed in-process by ``compose``, as ``memoryd serve`` composes it, without sockets.

For rules that depend on time: the app takes a ``FakeClock`` that a test moves
forward, so a token's expiry (say) is reached without sleeping; ``sweep()``
runs the janitor's pass at the clock's time. Calls go through the real method
tables and ``Dispatcher`` with a ``CallContext`` per channel, exactly as frames
from a socket would.

It is also the only way to inject a failure: ``faults`` for the delete
receipts (daemon/pipeline/lifecycle.py ``FAULTS``) and ``store.fail_next_commit`` for a
failed COMMIT. ``memoryd serve`` reads no test switch. Composing again on the
same home is a restart. Black-box tests (real process, real sockets) stay the
rule for everything else.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta

# Composing in process is bench/daemon.py's (the benchmarks share it).
from bench.daemon import CallFailed, InProcess, composed  # noqa: F401


@dataclass
class FakeClock:
    """A clock that moves only when told to."""

    moment: datetime = field(default_factory=lambda: datetime(2026, 1, 1, tzinfo=UTC))

    def now(self) -> datetime:
        return self.moment

    def advance(self, *, seconds: float = 0, hours: float = 0, days: float = 0) -> None:
        self.moment += timedelta(seconds=seconds, hours=hours, days=days)
