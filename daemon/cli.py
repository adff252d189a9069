"""``memoryd``: the daemon's command line and process lifecycle.

Owns: argument parsing, the order of start-up (umask, home, lock, config,
then the daemon composed by daemon/compose.py, then sockets), signal
handling and exit codes.

Invariants:
- the umask is 077 before the first file is created;
- a problem found at start-up (a second daemon on the home, an invalid config
  or policy, a path in the way of a socket) is one clear line on stderr and a
  non-zero exit, before any socket exists;
- the process's threads share two malloc arenas on glibc unless the
  operator set ``MALLOC_ARENA_MAX`` (``cap_malloc_arenas``);
- SIGTERM / SIGINT stop accepting, let requests in flight finish and exit 0;
  SIGHUP reloads policy.toml (an invalid one is refused, the old one stays);
- the content scanner (kernel/scan.py, about half of a start's CPU: its rule
  table is built as it is imported) is not imported by the start: it loads
  on a thread of its own once the sockets answer (``load_scanner_soon``).
  The daemon modules import it where they scan, so a request that needs it
  first waits for Python's import of it to finish: nothing is ever scanned
  by a half-built table (tests/unit/test_startup_imports.py).
"""

from __future__ import annotations

import argparse
import importlib
import os
import platform
import signal
import sys
import threading
from collections.abc import Mapping, Sequence

import anyio
import structlog

from memoryd.daemon import home as home_mod
from memoryd.daemon import logs
from memoryd.daemon.clock import SystemClock
from memoryd.daemon.compose import Composed, ComposeError, compose
from memoryd.daemon.config import ConfigError, StoreConfig, load_config
from memoryd.daemon.server import Server, build_listeners
from memoryd.rpc.paths import resolve_home
from memoryd.rpc.version import VersionAction

DESCRIPTION = """\
memoryd keeps an operator's long-term memory for AI agents and governs every
change to it. Agents connect to HOME/run/agent.sock; the operator uses memctl,
which talks to HOME/run/control.sock.
"""

EPILOG = """\
home folder: --home, else $MEMORYD_HOME, else $XDG_STATE_HOME/memoryd, else
~/.local/state/memoryd. It is created with mode 0700 and holds memory.db, the
optional memoryd.toml and policy.toml, keys/ and run/.

examples:
  memoryd serve                       run in the foreground on the default home
  memoryd serve --home /tmp/mem       run on another home
  memoryd serve --log-format console  human-readable logs on stderr

signals: SIGTERM/SIGINT stop gracefully; SIGHUP reloads policy.toml.
"""


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="memoryd", description=DESCRIPTION, epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action=VersionAction)
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    serve = sub.add_parser(
        "serve", help="run the daemon in the foreground",
        description="Run memoryd in the foreground until SIGTERM or SIGINT.",
        epilog=EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    serve.add_argument("--home", metavar="DIR", help="the daemon's home folder")
    serve.add_argument("--log-format", choices=("json", "console"), default=None,
                       help="json lines, or console output for people (default: console "
                            "on a terminal, json lines otherwise)")
    copy = sub.add_parser(
        "copy-store", help="copy a stopped home's SQLite memory into PostgreSQL",
        description="Copy a stopped home's memory, pending actions, tokens, tasks, consent,"
                    " teams and audit chain into a new PostgreSQL schema, in one transaction,"
                    " then verify it (docs/postgresql.md). memctl store copy runs this.")
    copy.add_argument("--home", metavar="DIR", help="the home folder to copy from")
    copy.add_argument("--to", metavar="DSN", required=True,
                      help="a libpq connection string or URI, without a password")
    copy.add_argument("--schema", default="memoryd", help="a schema that holds no tables yet")
    secret = copy.add_mutually_exclusive_group()
    secret.add_argument("--password-env", metavar="NAME",
                        help="the environment variable holding the password")
    secret.add_argument("--password-file", metavar="FILE",
                        help="a file holding the password (mode 0600)")
    copy.add_argument("--json", action="store_true", help="print the summary as JSON")
    return parser


def _copy_store(args: argparse.Namespace) -> int:
    import msgspec

    from memoryd.daemon.storage.storecopy import CopyError, conninfo, copy_home

    os.umask(0o077)
    home = resolve_home(args.home)
    try:
        target = conninfo(args.to, StoreConfig(password_env=args.password_env,
                                               password_file=args.password_file),
                          os.environ, home)
        summary = copy_home(home, target, args.schema)
    except (CopyError, home_mod.HomeError) as exc:
        print(f"memoryd copy-store: {exc}", file=sys.stderr)
        return 1
    if args.json:
        print(msgspec.json.encode(summary).decode())
        return 0
    print(f"copied into schema {summary.schema} and verified")
    for table, n in summary.rows.items():
        print(f"  {table}: {n} rows")
    print(f"  audit: {summary.audit_checked} events verified,"
          f" head seq {summary.audit_head.seq} {summary.audit_head.hash}")
    print("next: point [store] in memoryd.toml at it (backend = \"postgresql\","
          f" dsn, schema = \"{summary.schema}\", the password setting), then start memoryd")
    return 0


# glibc's mallopt parameter for the number of malloc arenas.
_M_ARENA_MAX = -8


def cap_malloc_arenas(environ: Mapping[str, str]) -> bool:
    """Let the daemon's threads share two malloc arenas; whether it did.

    glibc gives each thread that allocates an arena of its own (up to eight
    per core) and keeps each arena's freed pages resident; the daemon's
    threads allocate little at once under the GIL, and two arenas hold a
    hybrid daemon about 10 MiB smaller (docs/performance.md). An operator's
    ``MALLOC_ARENA_MAX`` is theirs; another C library has no such knob.
    Called before any thread starts: a thread keeps the arena it was given.
    """
    if "MALLOC_ARENA_MAX" in environ or platform.libc_ver()[0] != "glibc":
        return False
    import ctypes

    return bool(ctypes.CDLL(None).mallopt(_M_ARENA_MAX, 2))


def main(argv: Sequence[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    if args.command == "copy-store":
        return _copy_store(args)
    if args.command != "serve":
        _parser().print_help()
        return 2
    os.umask(0o077)
    cap_malloc_arenas(os.environ)
    # A person at a terminal reads the console format; a service manager or
    # a collector gets JSON lines.
    logs.configure(args.log_format or ("console" if sys.stderr.isatty() else "json"))
    try:
        home = home_mod.prepare(resolve_home(args.home))
        lock = home_mod.InstanceLock(home)
        lock.acquire()
        # With the lock held: refuse a path in the way (or clear a stale
        # socket) now, as one clear line, before the store is even opened.
        home_mod.check_socket_paths(home.agent_socket, home.control_socket)
    except (home_mod.HomeError, OSError) as exc:
        print(f"memoryd: {exc}", file=sys.stderr)
        return 1
    try:
        config = load_config(home.path)
        composed = compose(home, config, clock=SystemClock(), environ=os.environ)
    except (ConfigError, ComposeError) as exc:
        print(f"memoryd: {exc}", file=sys.stderr)
        lock.release()
        return 1
    store = composed.store
    try:
        code = anyio.run(_run, composed, backend="asyncio")
    finally:
        store.close()
        lock.release()
    return code


def load_scanner_soon() -> threading.Thread:
    """Import the content scanner on a thread of its own, now that the
    daemon answers: the first write after a start then finds it built.

    A write that comes sooner imports it too, and Python's import lock makes
    it wait until this import has finished (the scanner imports nothing of
    the daemon's, so the two cannot wait on each other); should this import
    fail, it is logged, and each write's own import fails again: the write
    is refused."""
    def load() -> None:
        try:
            importlib.import_module("memoryd.kernel.scan")
        except Exception as exc:  # noqa: BLE001 (logged; every write's own import fails closed)
            structlog.get_logger().error("scanner_load_failed", exc_type=type(exc).__name__)

    thread = threading.Thread(target=load, name="scanner-load", daemon=True)
    thread.start()
    return thread


def _ready(home: home_mod.Home) -> None:
    structlog.get_logger().info(
        "ready", pid=os.getpid(), home=str(home.path),
        agent_socket=str(home.agent_socket), control_socket=str(home.control_socket))
    load_scanner_soon()


async def _run(composed: Composed) -> int:
    log = structlog.get_logger()
    app, checkpointer, lifecycle = composed.app, composed.checkpointer, composed.lifecycle
    agent, control = composed.tables()
    try:
        listeners = build_listeners(app.config, app.home.agent_socket, app.home.control_socket,
                                    agent, control)
    except ValueError as exc:
        print(f"memoryd: {exc}", file=sys.stderr)
        return 1
    server = Server(app.config, listeners, on_close=app.gate.forget)

    async def signals() -> None:
        with anyio.open_signal_receiver(signal.SIGTERM, signal.SIGINT, signal.SIGHUP) as received:
            async for signum in received:
                if signum == signal.SIGHUP:
                    await anyio.to_thread.run_sync(app.load_policy_file)
                else:
                    log.info("signal_received", signal=signal.Signals(signum).name)
                    server.stop()
                    return

    async def janitor() -> None:
        interval = app.config.retention.janitor_interval_s
        last_sweep = anyio.current_time()
        while True:
            await anyio.sleep(min(60.0, interval))
            try:
                await app.expire_actions()
                if anyio.current_time() - last_sweep >= interval:
                    last_sweep = anyio.current_time()
                    await lifecycle.sweep()
            except Exception as exc:  # noqa: BLE001 (the janitor must outlive one bad sweep)
                log.warning("janitor_failed", exc_type=type(exc).__name__)

    try:
        async with anyio.create_task_group() as tg:
            tg.start_soon(signals)
            tg.start_soon(janitor)
            tg.start_soon(checkpointer.run_periodic)
            if app.ranker is not None:
                tg.start_soon(app.ranker.worker.run)
            if app.projection is not None:
                tg.start_soon(app.projection.run)
            tg.start_soon(app.extraction.run)
            # The log names the operator's own paths: where this daemon keeps
            # its home and where clients find it.
            await server.serve(on_ready=lambda: _ready(app.home))
            tg.cancel_scope.cancel()
    except home_mod.HomeError as exc:
        print(f"memoryd: {exc}", file=sys.stderr)
        return 1
    # The server has stopped and no request is in flight: sign the final head.
    await anyio.to_thread.run_sync(checkpointer.at_shutdown)
    log.info("stopped")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
