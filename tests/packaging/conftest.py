"""The wheel, built once per session from a copy of the sources.

The copy keeps the build's own folders (``build/``, ``*.egg-info``) out of
the checkout, where other tools (the type check) use ``build/``.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.harness import REPO

# What a source distribution of memoryd holds: the project file, the README
# it names, and the five layer folders it maps under ``memoryd``.
SOURCES = ("pyproject.toml", "README.md", "kernel", "audit", "rpc", "daemon", "memctl")


def clean_env() -> dict[str, str]:
    """The environment without anything that would put the checkout, or the
    test venv, on another interpreter's path."""
    env = {
        k: v
        for k, v in os.environ.items()
        if k not in ("PYTHONPATH", "PYTHONHOME", "VIRTUAL_ENV", "PYTHONSTARTUP")
        and not k.startswith("COV_CORE_")
        and k != "COVERAGE_PROCESS_START"
    }
    env["PIP_DISABLE_PIP_VERSION_CHECK"] = "1"
    return env


def pip(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    done = subprocess.run(
        [sys.executable, "-m", "pip", *args],
        cwd=cwd,
        env=clean_env(),
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    return done


@pytest.fixture(scope="session")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    root = tmp_path_factory.mktemp("wheel")
    src = root / "src"
    src.mkdir()
    for name in SOURCES:
        if (REPO / name).is_dir():
            shutil.copytree(
                REPO / name, src / name, ignore=shutil.ignore_patterns("__pycache__", "*.pyc")
            )
        else:
            shutil.copy2(REPO / name, src / name)
    out = root / "dist"
    pip("wheel", "--no-deps", "--quiet", "--wheel-dir", str(out), str(src), cwd=root)
    (built,) = out.glob("memoryd-*.whl")
    yield built
