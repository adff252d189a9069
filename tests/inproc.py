"""The daemon composed in-process, as ``memoryd serve`` composes it, without sockets.

For rules that depend on time: the app takes a ``FakeClock`` that a test moves
forward, so a token's expiry (say) is reached without sleeping; ``sweep()``
runs the janitor's pass at the clock's time. Calls go through the real method
tables and ``Dispatcher`` with a ``CallContext`` per channel, exactly as frames
from a socket would.

It is also the only way to inject a failure: ``faults`` for the delete
receipts (daemon/lifecycle.py ``FAULTS``) and ``store.fail_next_commit`` for a
failed COMMIT. ``memoryd serve`` reads no test switch. Composing again on the
same home is a restart. Black-box tests (real process, real sockets) stay the
rule for everything else.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from memoryd.audit.keyed import KeyedHasher
from memoryd.daemon import checkpoints, extract_worker
from memoryd.daemon import home as home_mod
from memoryd.daemon.app import App
from memoryd.daemon.backends import open_store
from memoryd.daemon.cli import compose_access, compose_lifecycle
from memoryd.daemon.clock import Clock, SystemClock
from memoryd.daemon.config import load_config
from memoryd.daemon.identity import default_identity, owner_of
from memoryd.daemon.lifecycle import Lifecycle, Receipts
from memoryd.daemon.store import Store
from memoryd.kernel.capability import Capability
from memoryd.rpc.framing import encode_value
from memoryd.rpc.protocol import CallContext, Dispatcher, tables


@dataclass
class FakeClock:
    """A clock that moves only when told to."""

    moment: datetime = field(default_factory=lambda: datetime(2026, 1, 1, tzinfo=UTC))

    def now(self) -> datetime:
        return self.moment

    def advance(self, *, seconds: float = 0, hours: float = 0, days: float = 0) -> None:
        self.moment += timedelta(seconds=seconds, hours=hours, days=days)


class CallFailed(Exception):
    """An error reply; ``error`` is its JSON-RPC error object."""

    def __init__(self, error: dict[str, Any]) -> None:
        super().__init__(error.get("message"))
        self.error = error
        self.data_code = (error.get("data") or {}).get("code")


@dataclass
class InProcess:
    app: App
    store: Store
    lifecycle: Lifecycle
    agent: Dispatcher
    control: Dispatcher

    async def call(self, channel: str, method: str, params: dict[str, Any],
                   conn_id: str | None = None) -> Any:
        """One request on ``channel`` from connection ``conn_id`` (default: one
        connection per channel); raises ``CallFailed`` on an error reply."""
        ctx = CallContext(channel=channel, peer_uid=os.geteuid(), peer_pid=None,
                          conn_id=conn_id or channel)
        frame = encode_value({"jsonrpc": "2.0", "id": 1, "method": method, "params": params})
        dispatcher = self.agent if channel == "agent" else self.control
        reply = json.loads(await dispatcher.handle_frame(frame, ctx))
        if "error" in reply:
            raise CallFailed(reply["error"])
        return reply["result"]

    async def sweep(self) -> dict[str, int]:
        """One pass of the janitor (what ``janitor_interval_s`` schedules), now."""
        return await self.lifecycle.sweep()


@contextmanager
def composed(home_path: Path, *, clock: Clock | None = None, config: str | None = None,
             policy: str | None = None, faults: frozenset[str] = frozenset(),
             ) -> Iterator[InProcess]:
    """The app on the home at ``home_path`` (new, or one composed before: a
    restart); the store is closed after."""
    home_path.mkdir(mode=0o700, parents=True, exist_ok=True)
    if config is not None:
        (home_path / "memoryd.toml").write_text(config)
    if policy is not None:
        (home_path / "policy.toml").write_text(policy)
    home = home_mod.prepare(home_path)
    settings = load_config(home.path)
    hasher = KeyedHasher(home_mod.root_secret(home))
    env = {k: v for k, v in os.environ.items() if not k.startswith("MEMORYD_")}
    store = open_store(settings, home.db, home.path, os.environ)
    try:
        clock = clock or SystemClock()
        receipts = Receipts(store, clock, faults=faults)
        app = App(config=settings, home=home, hasher=hasher, store=store, clock=clock,
                  default=default_identity(env, settings, hasher), settle=receipts.settle)
        checkpointer = checkpoints.start(store, home, app.clock, settings.checkpoint)
        app.load_policy_file(starting=True)
        lifecycle = compose_lifecycle(app, receipts)
        receipts.interrupt_pending()
        agent, control = tables([
            *extract_worker.methods(lambda: app.extraction),
            *app.methods(),
            *compose_access(app).methods(),
            *checkpoints.methods(
                checkpointer, hasher, lambda who: owner_of(hasher, who),
                govern=lambda ctx: app.gate.governance(ctx, Capability.GOVERNANCE_DECIDE,
                                                       app.default.owner)),
            *lifecycle.methods(),
        ])
        yield InProcess(app, store, lifecycle, agent, control)
    finally:
        store.close()
