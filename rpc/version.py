"""The installed memoryd's version, for ``memoryd --version`` and ``memctl --version``.

Owns: reading the distribution's version once, when asked (never at import),
and the argparse action that prints it.

Invariants:
- the version comes from the installed distribution's metadata, the one
  place it is written (pyproject.toml); a source tree run without installing
  says ``unknown`` rather than guessing;
- nothing is read until ``--version`` is given, so start-up pays nothing.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from typing import Any

__all__ = ["VersionAction", "installed"]

DISTRIBUTION = "memoryd"


def installed() -> str:
    """The installed distribution's version, or ``unknown``."""
    from importlib import metadata

    try:
        return metadata.version(DISTRIBUTION)
    except metadata.PackageNotFoundError:
        return "unknown"


class VersionAction(argparse.Action):
    """``--version``: print ``PROG VERSION`` and exit 0 (argparse's own action
    needs the string when the parser is built, which would cost every start)."""

    def __init__(self, option_strings: Sequence[str], dest: str = argparse.SUPPRESS,
                 default: Any = argparse.SUPPRESS, help: str | None = None) -> None:
        super().__init__(option_strings, dest=dest, default=default, nargs=0,
                         help=help or "print the version and exit")

    def __call__(self, parser: argparse.ArgumentParser, namespace: argparse.Namespace,
                 values: Any, option_string: str | None = None) -> None:
        print(f"{parser.prog} {installed()}", file=sys.stdout)
        parser.exit(0)
