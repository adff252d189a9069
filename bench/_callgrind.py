"""Instructions one run of a benchmark script executes, counted by callgrind.

``bench/scan.py --instructions`` and ``bench/audit_packing.py --instructions``
run themselves again under ``valgrind --tool=callgrind`` with their own
arguments and read callgrind's total; valgrind is found on PATH, as
``bench/instructions.py`` finds it.
"""

from __future__ import annotations

import re
import subprocess
import sys

_COLLECTED = re.compile(r"Collected : (\d+)")


def instructions(script: str, *args: str) -> int:
    """Instructions ``python SCRIPT ARGS`` executes from start to exit."""
    command = [
        "valgrind",
        "--tool=callgrind",
        "--callgrind-out-file=/dev/null",
        sys.executable,
        script,
        *args,
    ]
    # Our own script and arguments.
    out = subprocess.run(command, capture_output=True, text=True, check=True)  # noqa: S603
    found = _COLLECTED.search(out.stderr)
    assert found is not None, out.stderr[-500:]
    return int(found.group(1))
