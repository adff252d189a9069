"""Where a memoryd home and its sockets are.

Owns the home lookup order of SPEC §2, shared by ``memoryd serve`` and
``memctl`` so both always agree: ``--home``, else ``$MEMORYD_HOME``, else
``$XDG_STATE_HOME/memoryd``, else ``~/.local/state/memoryd``.

Invariants:
- the result is always an absolute path; nothing here touches the file
  system (creating and checking the home is the daemon's job);
- an empty variable counts as unset, and a relative ``$XDG_STATE_HOME`` is
  ignored, as the XDG Base Directory spec requires.
"""

from __future__ import annotations

import ipaddress
import os
from collections.abc import Mapping
from pathlib import Path

__all__ = ["agent_socket", "control_socket", "is_loopback_host", "resolve_home", "run_dir"]


def resolve_home(cli_home: str | None, env: Mapping[str, str] | None = None) -> Path:
    """The home folder for this invocation (``env`` defaults to ``os.environ``)."""
    env = os.environ if env is None else env
    if cli_home:
        return _absolute(cli_home, env)
    if explicit := env.get("MEMORYD_HOME"):
        return _absolute(explicit, env)
    xdg = env.get("XDG_STATE_HOME")
    if xdg and Path(xdg).is_absolute():
        return Path(xdg) / "memoryd"
    return _user_home(env) / ".local" / "state" / "memoryd"


def run_dir(home: Path) -> Path:
    return home / "run"


def agent_socket(home: Path) -> Path:
    return run_dir(home) / "agent.sock"


def control_socket(home: Path) -> Path:
    return run_dir(home) / "control.sock"


def _user_home(env: Mapping[str, str]) -> Path:
    # Read HOME from the given mapping (not only os.environ) so the lookup is
    # testable; fall back to the password database like expanduser does.
    home = env.get("HOME")
    return Path(home) if home else Path.home()


def _absolute(value: str, env: Mapping[str, str]) -> Path:
    # A quoted "~/x" in a config or environment variable reaches us unexpanded.
    if value == "~" or value.startswith("~/"):
        path = _user_home(env) / value[2:]
    else:
        path = Path(value)
    # absolute(), not resolve(): no file-system access, and symlinks the
    # operator chose stay as they are.
    return path if path.is_absolute() else Path.cwd() / path


def is_loopback_host(host: str) -> bool:
    """Whether ``host`` (a name or an address, without brackets) stays on this
    machine: ``localhost`` or a loopback address. Other names are not resolved,
    so they count as remote."""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False
