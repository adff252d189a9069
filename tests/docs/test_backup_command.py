"""The backup command docs/operations.md gives can be run again the same day
(and the same second): each run names a new folder, and the newest sorts last."""

from __future__ import annotations

import re
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.harness import MEMCTL, REPO, Daemon, running

PAGE = REPO / "docs" / "operations.md"


@pytest.fixture(scope="module")
def d() -> Iterator[Daemon]:
    with running() as daemon:
        yield daemon


def _documented_line() -> str:
    text = PAGE.read_text(encoding="utf-8")
    block = text.split("## Backing up the home", 1)[1].split("```sh\n", 1)[1].split("```", 1)[0]
    (line,) = [ln for ln in block.splitlines() if ln.startswith("memctl backup ")]
    return line


def test_the_documented_backup_runs_twice_without_colliding(d: Daemon, tmp_path: Path) -> None:
    line = _documented_line()
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    shim = bin_dir / "memctl"
    shim.write_text("#!/bin/sh\nexec " + " ".join(MEMCTL) + f' --home {d.home} "$@"\n')
    shim.chmod(0o755)
    env = {**d.env, "HOME": str(tmp_path), "PATH": f"{bin_dir}:/usr/bin:/bin"}
    for _ in range(2):
        done = subprocess.run(
            ["bash", "-c", line], capture_output=True, env=env, cwd=REPO, timeout=120, check=False
        )
        assert done.returncode == 0, done.stderr
    made = sorted(p.name for p in (tmp_path / "backups").iterdir())
    assert len(made) == 2
    assert all(re.match(r"memoryd-\d", name) for name in made)
