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
    return {
        str(p.relative_to(REPO))
        for folder in FOLDERS
        for p in (REPO / folder).rglob("*.py")
        if p.name not in ("__init__.py", "__main__.py")
    }


def test_the_module_map_lists_every_module_and_nothing_else() -> None:
    listed = _map()
    assert set(listed) == _modules()


def test_every_module_in_the_map_says_what_it_owns() -> None:
    assert all(len(owns.split()) >= 4 for owns in _map().values())


HEADING = re.compile(r"^### .*: `((?:kernel|audit|rpc|daemon|memctl)/(?:[\w/]+/)?)`$")


def _rows_by_heading(section: str) -> list[tuple[str, str]]:
    """``(folder the heading names, module path)`` for each row of the map."""
    folder, rows = "", []
    for line in section.splitlines():
        if heading := HEADING.match(line):
            folder = heading.group(1)
        elif row := ROW.match(line):
            rows.append((folder, row.group(1)))
    return rows


def misplaced(section: str) -> list[str]:
    """Rows listed under a heading other than the one naming their folder:
    the deepest folder a heading names that holds the module."""
    rows = _rows_by_heading(section)
    headed = {folder for folder, _ in rows}
    return [
        f"{path} under {folder!r}"
        for folder, path in rows
        if folder != max((f for f in headed if path.startswith(f)), key=len, default="")
    ]


def test_every_module_is_listed_under_its_own_folder() -> None:
    page = (REPO / "docs" / "design.md").read_text()
    assert misplaced(page.split("## Module map", 1)[1].split("\n## ", 1)[0]) == []


def test_the_folder_check_sees_a_module_under_another_wing() -> None:
    section = (
        "### Access: `daemon/access/`\n\n"
        "| `daemon/access/gate.py` | The gate decides here. |\n"
        "| `daemon/storage/store.py` | The primary store lives here. |\n\n"
        "### Storage: `daemon/storage/`\n\n"
        "| `daemon/storage/txn.py` | The open transaction. |\n"
        "### Process: `daemon/`\n\n"
        "| `daemon/cli.py` | The daemon's command line. |\n"
        "| `daemon/access/tasks.py` | One agent run and its consent. |\n"
    )
    assert misplaced(section) == [
        "daemon/storage/store.py under 'daemon/access/'",
        "daemon/access/tasks.py under 'daemon/'",
    ]
