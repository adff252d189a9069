"""No module of ``daemon/`` reaches into another's ``_private`` names.

A name with a leading underscore is its module's own: another module that
needs it needs a public function instead (issue: the lifecycle once called the
write path's private row helpers, and ``App``'s private methods, directly).

Read with ``ast`` (never by importing the code). A module may use ``x._name``
only where ``_name`` is an attribute of a class that same module defines: a
method, an attribute it assigns (``self._name = …``), a dataclass field or a
``__slots__`` entry. A module-level ``_name`` of its own is used bare, never
through another object. ``from memoryd.daemon.other import _name`` is refused.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

DAEMON = Path(__file__).resolve().parents[2] / "daemon"


def _private(name: str) -> bool:
    return name.startswith("_") and not (name.startswith("__") and name.endswith("__"))


def _own_attributes(tree: ast.Module) -> set[str]:
    """Every private attribute name this module's own classes define."""
    own: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store):
            own.add(node.attr)  # self._name = …
        elif isinstance(node, ast.ClassDef):
            for item in node.body:
                if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                    own.add(item.name)
                elif isinstance(item, ast.AnnAssign) and isinstance(item.target, ast.Name):
                    own.add(item.target.id)  # a dataclass field
                elif isinstance(item, ast.Assign):
                    own.update(t.id for t in item.targets if isinstance(t, ast.Name))
                    # __slots__ entries are spelled as strings.
                    own.update(
                        c.value
                        for c in ast.walk(item.value)
                        if isinstance(c, ast.Constant) and isinstance(c.value, str)
                    )
    return {n for n in own if _private(n)}


def foreign_private_uses(source: str) -> list[tuple[int, str]]:
    """``(line, name)`` for each private name ``source`` uses but does not define."""
    tree = ast.parse(source)
    own = _own_attributes(tree)
    found: list[tuple[int, str]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and _private(node.attr):
            if node.attr not in own:
                found.append((node.lineno, node.attr))
        elif isinstance(node, ast.ImportFrom):
            found.extend((node.lineno, a.name) for a in node.names if _private(a.name))
    return found


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        ("import m\nm._f()\n", [(2, "_f")]),
        (
            "class A:\n    def __init__(self):\n        self.app = 1\n    def g(self):\n"
            "        self.app._governance()\n",
            [(5, "_governance")],
        ),
        ("from memoryd.daemon.pipeline.writes import _update\n", [(1, "_update")]),
        (
            "def _f():\n    pass\nclass T:\n    def __init__(self):\n        self._head = 1\n"
            "def g(t):\n    return t._head, _f()\n",
            [],
        ),
        ("def _head(cp):\n    pass\ndef g(tx):\n    return tx._head\n", [(4, "_head")]),
        ("class J:\n    __slots__ = ('_loop',)\ndef g(j):\n    return j._loop\n", []),
        ("x = object()\nx.__class__\n", []),
    ],
)
def test_the_checker_finds_foreign_private_names(
    source: str, expected: list[tuple[int, str]]
) -> None:
    assert foreign_private_uses(source) == expected


@pytest.mark.parametrize(
    "path", sorted(DAEMON.rglob("*.py")), ids=lambda p: p.relative_to(DAEMON).as_posix()
)
def test_no_daemon_module_uses_another_modules_private_names(path: Path) -> None:
    uses = foreign_private_uses(path.read_text(encoding="utf-8"))
    name = path.relative_to(DAEMON).as_posix()
    assert uses == [], f"{name} uses private names of other modules: {uses}"
