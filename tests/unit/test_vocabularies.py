"""Entry types and statuses are defined once, in kernel/retention.py.

The wire schema decodes into the kernel's enums, and memctl, its web page and
the daemon take their lists from the kernel: a new type or status is one row
there. This test reads our sources with ``ast`` and fails on any other literal
collection (tuple, list, set, ``Literal[...]``) that spells out a whole
vocabulary again.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from memoryd.kernel.retention import ENTRY_STATUSES, ENTRY_TYPES
from tests.unit.test_layering import OURS, REPO

HOME = Path("kernel") / "retention.py"
VOCABULARIES = {"entry types": frozenset(ENTRY_TYPES), "entry statuses": frozenset(ENTRY_STATUSES)}


def _spelled(tree: ast.AST) -> list[tuple[int, str]]:
    found = []
    for node in ast.walk(tree):
        elts: list[ast.expr] | None = None
        if isinstance(node, ast.Tuple | ast.List | ast.Set):
            elts = node.elts
        elif isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Tuple):
            elts = node.slice.elts
        if not elts:
            continue
        values = {e.value for e in elts if isinstance(e, ast.Constant) and isinstance(e.value, str)}
        found += [(node.lineno, name) for name, words in VOCABULARIES.items() if words <= values]
    return found


def test_no_source_spells_out_a_vocabulary_the_kernel_defines() -> None:
    files = sorted(p for pkg in OURS for p in (REPO / pkg).rglob("*.py"))
    assert files
    again = [
        f"{path.relative_to(REPO)}:{line} spells out the {name}"
        for path in files
        if path.relative_to(REPO) != HOME
        for line, name in _spelled(ast.parse(path.read_text(encoding="utf-8")))
    ]
    assert again == []


@pytest.mark.parametrize(
    ("source", "caught"),
    [
        ('TYPES = ("preference", "procedure", "fact", "lesson")\n', True),
        ('T = Literal["preference", "procedure", "fact", "lesson"]\n', True),
        ('S = ["active", "superseded", "archived", "expired", "removed", "x"]\n', True),
        ('S = {"active", "removed"}\n', False),
        ("from memoryd.kernel.retention import ENTRY_TYPES\n", False),
    ],
)
def test_a_spelled_out_vocabulary_is_found(source: str, caught: bool) -> None:
    assert bool(_spelled(ast.parse(source))) is caught
