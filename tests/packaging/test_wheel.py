"""What ``pip install memoryd`` puts into site-packages, and what it leaves alone.

The repository keeps one folder per layer at its top (``kernel/``,
``daemon/``, …); installed, they live under the one import name ``memoryd``,
so nothing generic reaches site-packages. Before, installing memoryd beside
python-daemon replaced python-daemon's ``daemon`` package (and uninstalling
memoryd then left python-daemon broken).

The venv test installs memoryd and python-daemon with ``--no-deps`` (pip
sees every file each of them writes, which is what a clash is about) and
borrows memoryd's own dependencies from the test environment through a
``.pth`` line, so the test stays fast; python-daemon comes from the package
index.
"""

from __future__ import annotations

import site
import subprocess
import sys
import venv
import zipfile
from pathlib import Path

import pytest

from tests.packaging.conftest import clean_env, pip

pytestmark = pytest.mark.packaging

LAYERS = ("kernel", "audit", "rpc", "daemon", "memctl")


def test_the_wheel_installs_only_the_memoryd_name(wheel: Path) -> None:
    names = zipfile.ZipFile(wheel).namelist()
    top = {name.split("/", 1)[0] for name in names}
    assert top == {"memoryd", f"{wheel.name.split('-')[0]}-{wheel.name.split('-')[1]}.dist-info"}
    for layer in LAYERS:
        assert f"memoryd/{layer}/__init__.py" in names, layer
    # Nothing the tests, benchmarks or examples hold is installed.
    assert not [n for n in names if n.startswith(("memoryd/tests", "tests/", "bench/"))]


def test_the_wheels_console_scripts_point_into_memoryd(wheel: Path) -> None:
    with zipfile.ZipFile(wheel) as z:
        (entry_points,) = [n for n in z.namelist() if n.endswith(".dist-info/entry_points.txt")]
        text = z.read(entry_points).decode()
    assert "memoryd = memoryd.daemon.cli:main" in text
    assert "memctl = memoryd.memctl.main:main" in text


def _run(python: Path, code: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    # cwd is an empty folder: `python -c` puts it first on sys.path, and the
    # checkout's own `daemon/` folder must not stand in for an installed one.
    return subprocess.run(
        [str(python), "-c", code],
        cwd=cwd,
        env=clean_env(),
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def test_memoryd_installs_beside_python_daemon_and_both_import(wheel: Path, tmp_path: Path) -> None:
    env_dir = tmp_path / "venv"
    venv.EnvBuilder(with_pip=False).create(env_dir)
    python = env_dir / "bin" / "python"
    target = Path(
        subprocess.run(
            [str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
            cwd=tmp_path,
            env=clean_env(),
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
    )
    # memoryd's own dependencies, from the environment running this test;
    # appended after the venv's site-packages, so what is installed there wins.
    (target / "borrowed-deps.pth").write_text("\n".join(site.getsitepackages()) + "\n")
    pip("--python", str(python), "install", "--quiet", "--no-deps", "python-daemon", cwd=tmp_path)
    pip("--python", str(python), "install", "--quiet", "--no-deps", str(wheel), cwd=tmp_path)

    both = _run(
        python,
        "from daemon import DaemonContext\n"
        "import memoryd.daemon.app, memoryd.kernel, memoryd.audit\n"
        "from memoryd.rpc.client import Client\n"
        "import memoryd.memctl.main\n"
        "import daemon; print(daemon.__file__)",
        tmp_path,
    )
    assert both.returncode == 0, both.stderr
    assert Path(both.stdout.strip()).is_relative_to(target)

    pip("--python", str(python), "uninstall", "--yes", "--quiet", "memoryd", cwd=tmp_path)
    after = _run(python, "from daemon import DaemonContext", tmp_path)
    assert after.returncode == 0, after.stderr
    gone = _run(python, "import memoryd.rpc.client", tmp_path)
    assert gone.returncode != 0


def test_the_installed_programs_start(wheel: Path, tmp_path: Path) -> None:
    # The console scripts resolve in an installed copy (not the checkout).
    target = tmp_path / "t"
    pip("install", "--quiet", "--no-deps", "--target", str(target), str(wheel), cwd=tmp_path)
    code = (
        "import sys; sys.path.insert(0, sys.argv[1]); "
        "import memoryd.memctl.main as m; print(m.__file__, file=sys.stderr); "
        "sys.argv = ['memctl', '--help']; m.main()"
    )
    done = subprocess.run(
        [sys.executable, "-c", code, str(target)],
        cwd=tmp_path,
        env=clean_env(),
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert "memctl" in done.stdout
    assert Path(done.stderr.strip()).is_relative_to(target)
