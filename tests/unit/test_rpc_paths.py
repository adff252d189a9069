"""Home and socket lookup (SPEC §2): --home, $MEMORYD_HOME, $XDG_STATE_HOME, ~."""

from __future__ import annotations

from pathlib import Path

import pytest

from memoryd.rpc.paths import agent_socket, control_socket, resolve_home


@pytest.mark.parametrize(
    ("cli", "env", "expected"),
    [
        ("/srv/m", {"MEMORYD_HOME": "/env/m", "XDG_STATE_HOME": "/x"}, "/srv/m"),
        (None, {"MEMORYD_HOME": "/env/m", "XDG_STATE_HOME": "/x"}, "/env/m"),
        (None, {"XDG_STATE_HOME": "/x", "HOME": "/h"}, "/x/memoryd"),
        (None, {"HOME": "/h"}, "/h/.local/state/memoryd"),
        # Empty means unset; a relative XDG path is invalid and ignored.
        ("", {"MEMORYD_HOME": "", "XDG_STATE_HOME": "", "HOME": "/h"}, "/h/.local/state/memoryd"),
        (None, {"XDG_STATE_HOME": "rel/state", "HOME": "/h"}, "/h/.local/state/memoryd"),
        (None, {"MEMORYD_HOME": "~/mem", "HOME": "/h"}, "/h/mem"),
    ],
)
def test_home_lookup_order(cli: str | None, env: dict[str, str], expected: str) -> None:
    assert resolve_home(cli, env) == Path(expected)


def test_relative_home_is_made_absolute() -> None:
    home = resolve_home("rel/home", {})
    assert home.is_absolute()
    assert home == Path.cwd() / "rel/home"


def test_socket_paths_live_under_run() -> None:
    home = Path("/h/m")
    assert agent_socket(home) == Path("/h/m/run/agent.sock")
    assert control_socket(home) == Path("/h/m/run/control.sock")
