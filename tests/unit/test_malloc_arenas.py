"""The daemon caps glibc's malloc arenas at two (``daemon/cli.py``).

glibc gives each thread that allocates an arena of its own, up to eight per
core, and the pages each arena keeps stay in the daemon's resident memory;
the daemon's threads (the store's workers, the embedding model's, the
scanner's loader) allocate little at once under the GIL. Counted in a fresh
interpreter by glibc's own ``malloc_info`` while eight threads that each
allocated are alive: two heaps with the cap, nine without it.
"""

from __future__ import annotations

import os
import platform
import subprocess
import sys
from pathlib import Path

import pytest

from memoryd.daemon import cli

pytestmark = pytest.mark.skipif(platform.libc_ver()[0] != "glibc", reason="glibc's arenas")

SCRIPT = """
import ctypes, sys, threading
from memoryd.daemon.cli import cap_malloc_arenas
environ = dict(a.split("=", 1) for a in sys.argv[3:])
if sys.argv[1] == "cap":
    print("capped" if cap_malloc_arenas(environ) else "left")
barrier = threading.Barrier(9)
def work():
    kept = [bytearray(4096) for _ in range(100)]
    barrier.wait()
threads = [threading.Thread(target=work) for _ in range(8)]
for t in threads:
    t.start()
barrier.wait()
libc = ctypes.CDLL(None)
libc.fopen.restype = ctypes.c_void_p
libc.fopen.argtypes = [ctypes.c_char_p, ctypes.c_char_p]
libc.malloc_info.argtypes = [ctypes.c_int, ctypes.c_void_p]
libc.fclose.argtypes = [ctypes.c_void_p]
fp = libc.fopen(sys.argv[2].encode(), b"w")
libc.malloc_info(0, fp)
libc.fclose(fp)
for t in threads:
    t.join()
"""


def heaps(tmp_path: Path, mode: str, *environ: str) -> tuple[str, int]:
    info = tmp_path / f"malloc-{mode}.xml"
    env = {k: v for k, v in os.environ.items() if k != "MALLOC_ARENA_MAX"}
    env.update(a.split("=", 1) for a in environ)
    out = subprocess.run(
        [sys.executable, "-c", SCRIPT, mode, str(info), *environ],
        capture_output=True,
        text=True,
        env=env,
        check=True,
        timeout=60,
    )
    return out.stdout.strip(), info.read_text().count("<heap nr=")


def test_eight_threads_share_two_arenas_once_capped(tmp_path: Path) -> None:
    said, n = heaps(tmp_path, "cap")
    assert said == "capped"
    assert n == 2


def test_without_the_cap_each_thread_has_its_own(tmp_path: Path) -> None:
    # The measurement can fail: the same threads uncapped hold nine heaps.
    _, n = heaps(tmp_path, "none")
    assert n == 9


def test_an_operators_own_setting_is_left_alone(tmp_path: Path) -> None:
    said, n = heaps(tmp_path, "cap", "MALLOC_ARENA_MAX=4")
    assert said == "left"
    assert n == 4


def test_serve_caps_the_arenas_before_the_daemon_is_composed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    order: list[str] = []
    monkeypatch.setattr(cli, "cap_malloc_arenas", lambda environ: order.append("cap") or True)

    def compose(*args: object, **kwargs: object) -> None:
        order.append("compose")
        raise cli.ComposeError("stop here")

    monkeypatch.setattr(cli, "compose", compose)
    assert cli.main(["serve", "--home", str(tmp_path / "home")]) == 1
    assert order == ["cap", "compose"]
