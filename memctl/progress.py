"""Progress on a terminal for memctl's long operations (tqdm).

Owns: the progress bar of operations that move many entries (export,
import) and the elapsed-time spinner of single calls that may take a while
(backup, ``audit verify`` over a long chain, gc).

Invariants:
- drawn only when the stream is a terminal: a pipe, a file or a test's
  capture gets nothing (``bar`` yields None, ``waiting`` draws nothing), so
  scripts and ``--json`` output are never mixed with progress;
- drawn on stderr, and cleared when the operation ends;
- never holds or shows memory text: counts and elapsed time only.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any, TextIO

__all__ = ["bar", "is_terminal", "waiting"]

# How often the spinner redraws its elapsed time.
_TICK = 0.2


def is_terminal(stream: TextIO) -> bool:
    isatty = getattr(stream, "isatty", None)
    try:
        return bool(isatty()) if callable(isatty) else False
    except ValueError:  # a closed stream
        return False


@contextmanager
def bar(stream: TextIO, *, total: int | None, desc: str, unit: str) -> Iterator[Any]:
    """A tqdm bar on a terminal, else None; callers ``update`` it per item."""
    if not is_terminal(stream):
        yield None
        return
    from tqdm import tqdm

    progress = tqdm(total=total, desc=desc, unit=f" {unit}", file=stream, leave=False,
                    dynamic_ncols=True)
    try:
        yield progress
    finally:
        progress.close()


@contextmanager
def waiting(stream: TextIO, *, desc: str) -> Iterator[None]:
    """While one call runs: the elapsed time on a terminal, redrawn by a thread."""
    if not is_terminal(stream):
        yield
        return
    from tqdm import tqdm

    progress = tqdm(total=None, desc=desc, file=stream, leave=False,
                    bar_format="{desc}: {elapsed} elapsed")
    done = threading.Event()

    def tick() -> None:
        while not done.wait(_TICK):
            progress.refresh()

    ticker = threading.Thread(target=tick, name="memctl-progress", daemon=True)
    ticker.start()
    try:
        yield
    finally:
        done.set()
        ticker.join()
        progress.close()
