"""``memctl ui``: bind, print the one-time address, serve until stopped.

Owns: choosing the listening socket (127.0.0.1 on a free port unless the
operator names another), the warning for a non-loopback address, the
printed (and optionally opened) login address, the UI server's log, and
running uvicorn on the socket it was given.

Invariants:
- the login address is printed on stdout, once; the log (stderr, one JSON
  object a line) never holds it, nor any path value, query, form field or
  memory text: uvicorn's access log is off and the page log names route
  templates only;
- the daemon is reached only through ``HOME/run/control.sock``; if it
  cannot be reached at start, nothing is served (exit 3, as memctl);
- stopping the process (Ctrl-C, SIGTERM) ends every session.
"""

from __future__ import annotations

import argparse
import signal
import socket
import sys
import webbrowser
from typing import Final, TextIO

import anyio
import structlog
import uvicorn

from memoryd.memctl.ui.app import build
from memoryd.memctl.ui.security import Sessions
from memoryd.rpc.client import AsyncClient, ConnectError, RpcError
from memoryd.rpc.paths import control_socket, is_loopback_host, resolve_home

__all__ = ["serve"]

EXIT_OK: Final = 0
EXIT_FAILED: Final = 1
EXIT_USAGE: Final = 2
EXIT_NOT_RUNNING: Final = 3


def _bind(host: str, port: int) -> socket.socket:
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind((host, port))
    sock.listen(128)
    sock.set_inheritable(True)
    return sock


def _configure_log(stream: TextIO) -> None:
    structlog.configure(
        processors=[structlog.processors.add_log_level,
                    structlog.processors.TimeStamper(fmt="iso", utc=True),
                    structlog.processors.JSONRenderer()],
        logger_factory=structlog.PrintLoggerFactory(stream),
        cache_logger_on_first_use=False,
    )


async def _probe(path: object) -> None:
    async with AsyncClient(path, timeout=10) as rpc:  # type: ignore[arg-type]
        await rpc.call("memory.status", {})


def _interrupt(_signum: int, _frame: object) -> None:
    raise KeyboardInterrupt


def serve(args: argparse.Namespace, out: TextIO = sys.stdout, err: TextIO = sys.stderr) -> int:
    host: str = args.host
    if host == "localhost":
        host = "127.0.0.1"
    if host in ("0.0.0.0", "::", "[::]"):  # noqa: S104 (named to refuse it)
        # The page answers only requests addressed to the host it is bound
        # to (Host header check), so a wildcard would print an address the
        # LAN cannot use: name the one address instead.
        print(f"memctl ui: --host {host} listens on every address, but the page answers "
              "only the one address it is reached by", file=err)
        print("  what to do: name one address of this host (e.g. --host 192.168.1.20), or "
              "keep the default and use an SSH tunnel: memctl ui --port 8765 there, then "
              "ssh -L 8765:127.0.0.1:8765 HOST", file=err)
        return EXIT_USAGE
    path = control_socket(resolve_home(args.home))
    try:
        anyio.run(_probe, path)
    except ConnectError as exc:
        print(f"memctl ui: memoryd is not running (cannot reach {exc.path})", file=err)
        print("  what to do: start it with `memoryd serve` on the same home, or point "
              "memctl at its home with --home DIR or MEMORYD_HOME", file=err)
        return EXIT_NOT_RUNNING
    except (RpcError, OSError, TimeoutError) as exc:
        print(f"memctl ui: memoryd did not answer ({type(exc).__name__})", file=err)
        return EXIT_NOT_RUNNING
    if not is_loopback_host(host):
        print(f"memctl ui: WARNING: listening on {host}, not on loopback: anyone who can "
              "reach this address and obtain the printed login address can manage this "
              "memory. Prefer the default (127.0.0.1) and an SSH tunnel.", file=err)
    try:
        sock = _bind(host, args.port)
    except OSError as exc:
        print(f"memctl ui: cannot listen on {host}:{args.port} ({exc.strerror or exc})",
              file=err)
        return EXIT_FAILED
    port = sock.getsockname()[1]
    _configure_log(err)
    log = structlog.get_logger("memctl.ui")
    sessions = Sessions()
    app, _ui = build(AsyncClient(path, timeout=args.timeout), path, host, port,
                     sessions=sessions, log=log)
    shown = f"[{host}]" if ":" in host else host
    token = sessions.login_token
    url = f"http://{shown}:{port}/login?token={token}"
    print(f"memctl ui: serving http://{shown}:{port}/ for memoryd at {path}", file=out)
    print(f"open this address once to log in (it works one time): {url}", file=out)
    print("stop with Ctrl-C; stopping ends the session", file=out, flush=True)
    log.info("ui_started", host=host, port=port)
    if args.open:
        webbrowser.open(url)
    config = uvicorn.Config(app, log_config=None, access_log=False, server_header=False,
                            lifespan="off", timeout_graceful_shutdown=3)
    # uvicorn shuts down gracefully on SIGINT/SIGTERM, then re-raises the
    # signal; either is the operator's ordinary way to stop, so exit 0.
    signal.signal(signal.SIGTERM, _interrupt)
    try:
        uvicorn.Server(config).run(sockets=[sock])
    except KeyboardInterrupt:
        pass
    finally:
        sessions.end_all()
        sock.close()
        log.info("ui_stopped")
    return EXIT_OK
