"""docs/design.md's module map names every module of the five folders, and only those."""

from __future__ import annotations

import re

from tests.harness import REPO

FOLDERS = ("kernel", "audit", "rpc", "daemon", "memctl")
ROW = re.compile(r"^\| `((?:kernel|audit|rpc|daemon|memctl)/[\w/]+\.py)` \| (.+) \|$", re.M)


def _map() -> dict[str, str]:
    page = (REPO / "docs" / "design.md").read_text()
    section = page.split("## Module map", 1)[1].split("\n## ", 1)[0]
    return dict(ROW.findall(section))


def _modules() -> set[str]:
    return {str(p.relative_to(REPO)) for folder in FOLDERS for p in (REPO / folder).rglob("*.py")
            if p.name not in ("__init__.py", "__main__.py")}


def test_the_module_map_lists_every_module_and_nothing_else() -> None:
    listed = _map()
    assert set(listed) == _modules()


def test_every_module_in_the_map_says_what_it_owns() -> None:
    assert all(len(owns.split()) >= 4 for owns in _map().values())
