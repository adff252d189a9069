"""``memctl store copy --to DSN``: move a stopped SQLite home into PostgreSQL.

Owns: handing the copy to ``memoryd copy-store`` (daemon/storage/storecopy.py) for
the home memctl was pointed at, and passing its summary and its refusals on.

Invariants:
- memctl never opens a store itself: the copy runs in the daemon's program
  (``python -m memoryd.daemon.cli``), which owns the stores and their schemas;
- the password never appears on a command line: only the name of the
  environment variable or the file holding it is passed on;
- what is printed is memoryd's summary (tables, counts, the chain head) or
  its one-line refusal: never memory text, a DSN's password or a token.
"""

from __future__ import annotations

import argparse
import subprocess
import sys

from memoryd.memctl.cli import option
from memoryd.memctl.requests import Io
from memoryd.rpc.paths import resolve_home

__all__ = ["run_store_copy"]


def run_store_copy(args: argparse.Namespace, _rpc: object, io: Io) -> int:
    """Run ``memoryd copy-store`` on this home; its exit status is memctl's."""
    argv = [sys.executable, "-m", "memoryd.daemon.cli", "copy-store",
            "--home", str(resolve_home(option(args, "home"))),
            "--to", args.to, "--schema", args.schema]
    if args.password_env is not None:
        argv += ["--password-env", args.password_env]
    if args.password_file is not None:
        argv += ["--password-file", args.password_file]
    if option(args, "json"):
        argv.append("--json")
    done = subprocess.run(argv, capture_output=True, text=True, check=False)  # noqa: S603
    if done.stdout:
        io.out(done.stdout.rstrip("\n"))
    if done.stderr:
        io.err(done.stderr.rstrip("\n").replace("memoryd copy-store:", "memctl store copy:"))
    return done.returncode
