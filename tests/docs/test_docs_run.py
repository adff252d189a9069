"""The README and every page of docs/ run as written (tests/docs/runner.py).

The README's tour is run from its set-up command to the agent recalling the
memory the operator approved; every other page's ``sh`` and ``python``
blocks run in order against a daemon on the reader's default home. A block
not meant to be run says so, with a reason, on the line above it.
"""

from __future__ import annotations

import os
import re
import shlex
import sys
from pathlib import Path

import pytest

from tests.docs.runner import Block, Session, blocks, serving, session
from tests.harness import REPO

README = REPO / "README.md"
PAGES = sorted((REPO / "docs").glob("*.md"))


def _section(path: Path, heading: str) -> tuple[int, int]:
    """Line range (1-based, end exclusive) of a ``## heading`` section."""
    lines = path.read_text(encoding="utf-8").splitlines()
    start = next(i for i, line in enumerate(lines, 1) if line.strip() == f"## {heading}")
    end = next(
        (i for i, line in enumerate(lines, 1) if i > start and line.startswith("## ")),
        len(lines) + 1,
    )
    return start, end


def setup_blocks() -> list[Block]:
    start, end = _section(README, "Set up")
    return [b for b in blocks(README) if start < b.line < end]


@pytest.mark.parametrize("page", [README, *PAGES], ids=lambda p: p.name)
def test_every_fence_names_its_language_and_every_skip_its_reason(page: Path) -> None:
    for block in blocks(page):
        assert block.lang, f"{block.where()}: a fence without a language"
        if block.mark is not None:
            assert block.mark == "skip", f"{block.where()}: unknown mark {block.mark}"
            assert block.reason, f"{block.where()}: a skipped block must say why"


def test_the_readme_has_exactly_two_set_up_commands() -> None:
    setup = setup_blocks()
    assert [b.lang for b in setup] == ["sh", "sh"]
    assert all(len(b.text.strip().splitlines()) == 1 for b in setup)
    daemon, suite = (b.text.strip() for b in setup)
    assert daemon.endswith("memoryd serve") and "pip install ." in daemon
    # The second is the command CI runs, verbatim.
    assert suite in (REPO / ".ci" / "run").read_text()


def test_the_readme_tour_ends_with_the_agent_recalling_the_approved_memory() -> None:
    """From the set-up command to an agent's recall, as a newcomer follows it.

    The set-up command's install steps are what tests/packaging checks (a
    wheel, installed in a fresh venv); here the checkout's ``.venv`` is
    the test environment, and the daemon is started by the command's own
    last step, in the background, as "one terminal"."""
    steps = [part.strip() for part in setup_blocks()[0].text.strip().split("&&")]
    assert steps[0] == "python3 -m venv .venv"
    assert steps[1].startswith(".venv/bin/pip install .")
    start, _ = _section(README, "A short tour")
    tour = [b for b in blocks(README) if b.line > start and b.runs]
    assert tour, "the tour has no runnable blocks"
    wrote = re.search(r'"body": "([^"]+)"', next(b.text for b in tour if b.lang == "python"))
    assert wrote is not None
    with session() as s, serving(s, shlex.split(steps[-1])):
        outputs = [s.run(block) for block in tour]
    assert "pending act_" in "\n".join(outputs)
    assert wrote.group(1) in outputs[-1], "the last step does not show the recalled memory"


def _installed(s: Session) -> None:
    # The other pages start where operations.md's install leaves a reader:
    # memoryd and memctl on PATH.
    s.env["PATH"] = os.pathsep.join([str(Path(sys.prefix) / "bin"), s.env["PATH"]])


# Pages whose commands read whole corpora, given longer than the suite's
# default (each command's and the page's): bench/scan.py --corpus runs every
# labelled set through the rules and the intent layer, which reads each
# sentence of a note (about three minutes alone, more on a loaded runner).
SLOW_PAGES = {"scanning.md": 900}


@pytest.mark.parametrize(
    "page",
    [
        pytest.param(p, marks=pytest.mark.timeout(SLOW_PAGES[p.name]))
        if p.name in SLOW_PAGES
        else p
        for p in PAGES
    ],
    ids=lambda p: p.name,
)
def test_the_page_runs_as_written(page: Path) -> None:
    runnable = [b for b in blocks(page) if b.runs]
    if not runnable:
        assert all(b.lang not in ("sh", "bash", "python") or b.mark == "skip" for b in blocks(page))
        return
    with session() as s:
        _installed(s)
        with serving(s, ["memoryd", "serve"]):
            for block in runnable:
                if page.name in SLOW_PAGES:
                    s.run(block, timeout=SLOW_PAGES[page.name])
                else:
                    s.run(block)
