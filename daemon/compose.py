"""The one composition root: a whole memoryd from a home, its config and a clock.

Owns: the order in which the daemon's parts are built and wired (keys,
identity, store, projection, ranker, app, checkpoints, policy, lifecycle)
and the one method table every socket serves. ``memoryd serve``
(daemon/cli.py), the in-process tests and the benchmarks all build memoryd
with ``compose``; only what surrounds it differs (the process lock, the
sockets, the signal handlers, the clock).

Invariants:
- a problem found while composing is one ``ComposeError`` whose message is a
  one-line reason for the operator; the store is closed before it is raised;
- the audit chain is verified and the policy loaded before ``compose``
  returns, so nothing is served on a damaged log or a refused policy;
- building the method table calls no collaborator: handlers use them when a
  request comes.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING

import structlog

from memoryd.audit.keyed import KeyedHasher
from memoryd.daemon import home as home_mod
from memoryd.daemon.access import teams
from memoryd.daemon.access.access import Access
from memoryd.daemon.access.identity import IdentityError, Who, default_identity, owner_of
from memoryd.daemon.app import App
from memoryd.daemon.clock import Clock
from memoryd.daemon.config import Config
from memoryd.daemon.external.projection import Projection
from memoryd.daemon.external.projection import build as build_projection
from memoryd.daemon.external.projection_provider import CredentialError, EndpointError
from memoryd.daemon.extraction import extract_worker
from memoryd.daemon.home import Home
from memoryd.daemon.pipeline import promote
from memoryd.daemon.pipeline.lifecycle import Lifecycle, Receipts
from memoryd.daemon.retrieval import recall
from memoryd.daemon.storage import backup, checkpoints
from memoryd.daemon.storage.backends import BackendError, check_shared_secret, open_store
from memoryd.daemon.storage.store import Store, StoreVersionError
from memoryd.kernel.capability import Capability, Decision, Resource, Subject
from memoryd.kernel.errors import Unavailable
from memoryd.rpc.protocol import CallContext, Dispatcher, MethodSpec, tables

if TYPE_CHECKING:
    from memoryd.daemon.semantic.hybrid import Ranker

__all__ = ["ComposeError", "Composed", "compose", "method_table"]


class ComposeError(Exception):
    """memoryd cannot be composed on this home; the message is one line."""


@dataclass(frozen=True)
class Composed:
    """A composed memoryd: its parts, and every method it serves."""

    app: App
    lifecycle: Lifecycle
    checkpointer: checkpoints.Checkpointer
    projection: Projection
    methods: list[MethodSpec]

    @property
    def store(self) -> Store:
        return self.app.store

    def tables(self) -> tuple[Dispatcher, Dispatcher]:
        """The agent.sock and control.sock dispatchers."""
        return tables(self.methods)


def compose(home: Home, config: Config, *, clock: Clock, environ: Mapping[str, str],
            semantic: bool = True, faults: frozenset[str] = frozenset()) -> Composed:
    """memoryd on ``home`` (prepared) under ``config``, reading time from
    ``clock`` and the default identity and credentials from ``environ``.

    ``semantic``: load the embedding model for hybrid recall when the config
    and the install allow (``False``: lexical recall, as an install without
    the ``semantic`` extra). ``faults``: failures the delete receipts inject
    (daemon/pipeline/lifecycle.py ``FAULTS``); nothing but tests names one."""
    try:
        hasher = KeyedHasher(home_mod.root_secret(home))
        home_mod.signing_key(home)  # a malformed key is one line here, not a traceback later
        default = default_identity(environ, config, hasher)
        store = open_store(config, home.db, home.path, environ)
    except (IdentityError, home_mod.HomeError, StoreVersionError, BackendError) as exc:
        raise ComposeError(str(exc)) from None
    try:
        return _compose(home, config, clock, environ, semantic, faults, hasher, default, store)
    except BaseException:
        store.close()
        raise


def _compose(home: Home, config: Config, clock: Clock, environ: Mapping[str, str],
             semantic: bool, faults: frozenset[str], hasher: KeyedHasher,
             default: Who, store: Store) -> Composed:
    try:
        check_shared_secret(store, hasher.mac)
    except (BackendError, Unavailable) as exc:
        raise ComposeError(str(exc)) from None
    boot_id = os.urandom(8).hex()

    # The projection asks the policy in force, the gate's governance question
    # and the gate's decision at call time, of the app composed just below.
    def govern(ctx: CallContext) -> object:
        return app.gate.governance(ctx, Capability.GOVERNANCE_DECIDE, app.default.owner)

    def decide(subject: Subject, capability: Capability, resource: Resource) -> Decision:
        return app.gate.decide(subject, capability, resource)

    try:
        projection = build_projection(store, hasher, clock, boot_id, lambda: app.policy, govern,
                                      decide, config.projection, environ, home.path)
    except (CredentialError, EndpointError) as exc:
        raise ComposeError(str(exc)) from None
    ranker, ranker_reason = _ranker(config, store) if semantic else (None, "disabled")
    extractor = None
    if config.extract.extractor == "model":
        from memoryd.daemon.extraction import extract_model

        try:
            extractor = extract_model.build(config.extract.model, home.path, environ)
        except (CredentialError, EndpointError) as exc:
            raise ComposeError(str(exc)) from None
    receipts = Receipts(store, clock, faults=faults)
    app = App(config=config, home=home, hasher=hasher, store=store, clock=clock,
              default=default, settle=receipts.settle, boot_id=boot_id, ranker=ranker,
              ranker_reason=ranker_reason, projection=projection, extractor=extractor)
    # Verify the chain before anything is appended to it, so a damaged log is
    # reported where it was damaged, not after events of this start.
    checkpointer = checkpoints.start(store, home, app.clock, config.checkpoint)
    policy = app.load_policy_file(starting=True)
    if not policy.loaded:
        raise ComposeError(f"policy.toml refused: {policy.error}")
    lifecycle = compose_lifecycle(app, receipts)
    receipts.interrupt_pending()
    methods = method_table(app, checkpointer, lifecycle, projection, govern)
    projection.start()
    return Composed(app, lifecycle, checkpointer, projection, methods)


def compose_lifecycle(app: App, receipts: Receipts) -> Lifecycle:
    """The janitor and lifecycle methods over the app's collaborators."""
    return Lifecycle(
        store=app.store, clock=app.clock, retention=app.config.retention, hasher=app.hasher,
        boot_id=app.boot_id, gate=app.gate, receipts=receipts, control=app.control,
        read_call=app.read_call, expire_actions=app.expire_actions, undo=app.governance.undo)


def compose_access(app: App) -> Access:
    """The task, consent and token methods over the app's collaborators."""
    return Access(store=app.store, clock=app.clock, hasher=app.hasher, gate=app.gate,
                  config=app.config, control=app.control, peer_owner=app.peer_owner,
                  extraction=app.extraction)


def method_table(app: App, checkpointer: checkpoints.Checkpointer, lifecycle: Lifecycle,
                 projection: Projection,
                 govern: Callable[[CallContext], object]) -> list[MethodSpec]:
    """Every method the daemon serves: each module's own table (name, params,
    handler, result, sockets), joined; ``protocol.tables`` splits them per
    socket. Building it calls nothing: handlers use their collaborators when
    a request comes."""
    hasher, default = app.hasher, app.default
    return [
        *app.methods(),
        *compose_access(app).methods(),
        *recall.methods(recall.Recall(
            app.store, app.clock, app.gate, hasher, app.config.recall, app.ranker,
            app.ranker_reason, app.projection, app.audit_read)),
        *backup.methods(app.home, app.config.store.backend),
        *promote.methods(app.store, app.clock,
                         lambda who: default.owner if who is None else owner_of(hasher, who),
                         app.gate),
        *checkpoints.methods(checkpointer, hasher, lambda who: owner_of(hasher, who),
                             govern=govern),
        *teams.methods(app.store, app.clock, app.owner_for_control, govern=govern),
        *lifecycle.methods(),
        *projection.methods(),
        *extract_worker.methods(lambda: app.extraction),
    ]


def _ranker(config: Config, store: Store) -> tuple[Ranker | None, str]:
    """Hybrid recall when the semantic extra is installed (daemon/semantic/embedding.py);
    else none (lexical), with the reason ``memory.status`` gives. The same on
    both stores: the vectors stay in the store, searched at each query
    (daemon/semantic/hybrid.py)."""
    log = structlog.get_logger()
    if config.recall.ranker == "lexical":
        # Switched off: nothing of the semantic extra is imported, not even
        # its loader (tests/unit/test_startup_imports.py).
        log.info("recall_ranker", ranker="lexical", reason="disabled", model=None)
        return None, "disabled"
    from memoryd.daemon.semantic import embedding

    loaded = embedding.load(config.recall)
    ranker = None
    if loaded.embedder is not None:
        from memoryd.daemon.semantic import hybrid
        from memoryd.daemon.semantic.intent import load_judge

        worker = embedding.Worker(store, loaded.embedder, judge=load_judge(loaded.embedder))
        ranker = hybrid.Ranker(loaded.embedder, worker)
        worker.prepare = ranker.prepare
        # Embedded while the chain is verified and the sockets open (the
        # worker's own call waits for it): what readiness waited for after.
        ranker.prepare_soon()
    log.info(
        "recall_ranker", ranker="hybrid" if ranker else "lexical", reason=loaded.reason,
        model=loaded.embedder.model_id if loaded.embedder else None)
    return ranker, loaded.reason
