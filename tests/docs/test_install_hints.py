"""Every install command the docs and the programs' hints give can work:
memoryd is installed from its checkout (or a git URL), never by name from a
package index, where no memoryd of ours is published."""

from __future__ import annotations

import re
from pathlib import Path

from tests.harness import REPO

# `pip install 'memoryd[ui]'`, `pip install memoryd[postgresql]`, `pipx install memoryd`
BY_NAME = re.compile(
    r"\b(?:pip|pipx|uv pip|uv tool)\s+install\s+(?:-\S+\s+)*['\"]?"
    r"memoryd\b(?:\[[^\]]*\])?+(?!\s*@)"
)


def _texts() -> list[Path]:
    docs = [REPO / "README.md", *sorted((REPO / "docs").glob("*.md"))]
    code = [
        p for folder in ("daemon", "memctl", "rpc") for p in sorted((REPO / folder).rglob("*.py"))
    ]
    return docs + code


def test_no_install_hint_names_memoryd_on_a_package_index() -> None:
    found = [
        f"{path.relative_to(REPO)}:{n}: {line.strip()}"
        for path in _texts()
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if BY_NAME.search(line)
    ]
    assert found == []


def test_the_pattern_catches_the_forms_that_cannot_work() -> None:
    for bad in (
        "pip install 'memoryd[ui]'",
        "pip install memoryd[postgresql]",
        "pipx install --force memoryd",
    ):
        assert BY_NAME.search(bad), bad
    for good in (
        "pip install '.[ui]'",
        "pipx install --force '.[mcp]'",
        "pip install 'memoryd[ui] @ git+https://example.org/memoryd.git'",
    ):
        assert not BY_NAME.search(good), good
