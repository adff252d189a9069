"""The shipped systemd unit: it lets memoryd reach what its configuration
names (PostgreSQL over TCP, a projection provider), and systemd reads every
line of it, and of the drop-in that narrows it, without a warning."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.harness import REPO

UNIT = REPO / "contrib" / "memoryd.service"
UNIX_ONLY = REPO / "contrib" / "memoryd.service.d" / "unix-only.conf"


def _settings(text: str, key: str) -> list[str]:
    return [
        line.split("=", 1)[1].strip()
        for line in text.splitlines()
        if line.strip().startswith(key + "=")
    ]


def test_the_unit_lets_memoryd_reach_postgresql_and_a_provider() -> None:
    # `[store] backend = "postgresql"` with a host DSN and `[projection]`
    # speak TCP over IPv4 or IPv6: a unit that allows only AF_UNIX makes
    # them fail at start.
    (families,) = _settings(UNIT.read_text(encoding="utf-8"), "RestrictAddressFamilies")
    assert set(families.split()) == {"AF_UNIX", "AF_INET", "AF_INET6"}


def test_the_unix_only_drop_in_narrows_it_for_a_local_store() -> None:
    text = UNIX_ONLY.read_text(encoding="utf-8")
    assert "[Service]" in text
    # An empty assignment resets the list; the next sets it anew.
    assert _settings(text, "RestrictAddressFamilies") == ["", "AF_UNIX"]


def _verify(
    tmp: Path, unit_text: str, drop_in: str | None = None
) -> subprocess.CompletedProcess[str]:
    # ExecStart must name an executable file for systemd to accept the unit:
    # this checkout's own memoryd stands in for ~/.local/bin/memoryd.
    memoryd = Path(sys.executable).parent / "memoryd"
    assert memoryd.exists(), "the test environment has memoryd installed (pip install -e .)"
    unit = tmp / "memoryd.service"
    if drop_in is not None:
        # A drop-in's lines read as if they followed the unit's own
        # (a section named again goes on with it).
        unit_text += "\n" + drop_in
    unit.write_text(unit_text.replace("%h/.local/bin/memoryd", str(memoryd)), encoding="utf-8")
    return subprocess.run(
        ["systemd-analyze", "verify", str(unit)],
        capture_output=True,
        text=True,
        cwd=tmp,
        timeout=60,
        check=False,
    )


needs_systemd = pytest.mark.skipif(
    shutil.which("systemd-analyze") is None,
    reason="systemd-analyze is not installed: the unit's syntax cannot be checked here",
)


@needs_systemd
@pytest.mark.parametrize("with_drop_in", [False, True], ids=["unit", "unit+unix-only"])
def test_systemd_reads_the_unit_without_a_warning(tmp_path: Path, with_drop_in: bool) -> None:
    # Run as a system unit: `--user` needs a running user manager, and the
    # unit's keys and values are read the same way in both.
    done = _verify(
        tmp_path,
        UNIT.read_text(encoding="utf-8"),
        UNIX_ONLY.read_text(encoding="utf-8") if with_drop_in else None,
    )
    assert done.returncode == 0, done.stderr
    warnings = [line for line in done.stderr.splitlines() if "memoryd.service" in line]
    assert warnings == []


@needs_systemd
def test_the_verify_check_catches_a_bad_line(tmp_path: Path) -> None:
    # The check above can fail: a misspelled family is reported.
    bad = UNIT.read_text(encoding="utf-8").replace(
        "RestrictAddressFamilies=", "RestrictAddressFamilies=AF_BOGUS ", 1
    )
    done = _verify(tmp_path, bad)
    assert "AF_BOGUS" in done.stderr
