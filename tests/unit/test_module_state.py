"""``kernel/`` and ``audit/`` keep no state between calls, read from the source.

The kernel decides and the audit guard refuses as pure functions of their
arguments: a module-level dict, list or set that a function fills in (a cache,
"the last event seen"), a ``global`` statement, or an ``lru_cache`` on a module
function would make an answer depend on the calls before it. Tables stay
tables, frozen: ``frozenset``, ``tuple``, ``MappingProxyType``, compiled
patterns, enums, constants.

Read with ``ast``, never by importing the code, like the layering test.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
PACKAGES = ("kernel", "audit")


# Constructors whose result a function can change in place.
MUTABLE_CALLS = frozenset(
    {
        "dict",
        "list",
        "set",
        "bytearray",
        "OrderedDict",
        "defaultdict",
        "deque",
        "Counter",
        "ChainMap",
        "WeakValueDictionary",
        "WeakKeyDictionary",
        "WeakSet",
        "SimpleNamespace",
    }
)
MUTABLE_DISPLAYS = (ast.Dict, ast.List, ast.Set, ast.DictComp, ast.ListComp, ast.SetComp)
# Decorators that keep results between calls.
CACHING_DECORATORS = frozenset({"lru_cache", "cache", "cached_property"})
# Module attributes Python itself reads as lists by convention.
DUNDER_LISTS = frozenset({"__all__"})


def _name(node: ast.expr) -> str | None:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return node.attr
    return None


def _mutable(value: ast.expr) -> bool:
    """Whether an assigned value is a container a function could change in place."""
    if isinstance(value, MUTABLE_DISPLAYS):
        return True
    if isinstance(value, ast.Call):
        return _name(value.func) in MUTABLE_CALLS
    if isinstance(value, ast.BinOp):
        # ``{...} | other`` has the left operand's type.
        return _mutable(value.left)
    return False


def _targets(node: ast.stmt) -> list[str]:
    if isinstance(node, ast.Assign):
        targets = node.targets
    elif isinstance(node, (ast.AnnAssign, ast.AugAssign)):
        targets = [node.target]
    else:
        return []
    return [t.id if isinstance(t, ast.Name) else ast.unparse(t) for t in targets]


def _top_statements(body: list[ast.stmt]) -> list[ast.stmt]:
    """Statements run at import time: the module body, its ``if`` / ``try`` /
    ``with`` blocks, and the bodies of its classes (class attributes are
    shared by every instance)."""
    out: list[ast.stmt] = []
    for node in body:
        out.append(node)
        if isinstance(node, ast.ClassDef):
            out += _top_statements(node.body)
        elif isinstance(node, (ast.If, ast.Try, ast.With)):
            for block in ("body", "orelse", "finalbody"):
                out += _top_statements(getattr(node, block, []))
            for handler in getattr(node, "handlers", []):
                out += _top_statements(handler.body)
    return out


def mutable_state(source: str, label: str) -> list[str]:
    """Every place in ``source`` that keeps module-level mutable state."""
    tree = ast.parse(source)
    found: list[str] = []
    for node in _top_statements(tree.body):
        names = _targets(node)
        value = getattr(node, "value", None)
        if isinstance(node, ast.AugAssign):
            found.append(f"{label}:{node.lineno} changes {names[0]} at import")
        elif value is not None and _mutable(value) and not set(names) <= DUNDER_LISTS:
            found.append(
                f"{label}:{node.lineno} {', '.join(names)} is a mutable "
                f"{type(value).__name__.lower()}"
            )
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            for deco in node.decorator_list:
                call = deco.func if isinstance(deco, ast.Call) else deco
                if _name(call) in CACHING_DECORATORS:
                    found.append(
                        f"{label}:{node.lineno} {node.name} keeps results (@{_name(call)})"
                    )
    for node in ast.walk(tree):
        if isinstance(node, ast.Global):
            found.append(f"{label}:{node.lineno} rebinds {', '.join(node.names)} (global)")
        elif isinstance(node, ast.ClassDef):
            # Methods cached on an instance are state too (``cached_property``).
            for item in node.body:
                if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef)):
                    for deco in item.decorator_list:
                        call = deco.func if isinstance(deco, ast.Call) else deco
                        if _name(call) in CACHING_DECORATORS:
                            found.append(
                                f"{label}:{item.lineno} {node.name}.{item.name} "
                                f"keeps results (@{_name(call)})"
                            )
    return found


def _modules() -> list[Path]:
    files = sorted(p for pkg in PACKAGES for p in (REPO / pkg).rglob("*.py"))
    assert files, "no sources found: the test is looking in the wrong place"
    return files


def _label(path: Path) -> str:
    return path.relative_to(REPO).as_posix()


def test_kernel_and_audit_modules_hold_no_mutable_state() -> None:
    found = [
        line
        for path in _modules()
        for line in mutable_state(path.read_text(encoding="utf-8"), _label(path))
    ]
    assert found == []


# --- the checker itself catches what it must --------------------------------


@pytest.mark.parametrize(
    ("source", "caught"),
    [
        ("_KEPT: dict[str, int] = {}\n", True),
        ("_SEEN = set()\n", True),
        ("_LAST = []\n", True),
        ("from collections import OrderedDict\n_C = OrderedDict()\n", True),
        ("import collections\n_C = collections.defaultdict(list)\n", True),
        ("_T = {k: k for k in 'ab'}\n", True),
        ("_S = {'a'} | frozenset('b')\n", True),
        ("_N = 0\ndef bump():\n    global _N\n    _N += 1\n", True),
        ("import functools\n@functools.lru_cache(maxsize=8)\ndef f(x):\n    return x\n", True),
        ("from functools import cache\n@cache\ndef f(x):\n    return x\n", True),
        ("class C:\n    seen: dict[str, int] = {}\n", True),
        ("if True:\n    _K = {}\n", True),
        ("X = 1\nX += 1\n", True),
        (
            "from functools import cached_property\nclass C:\n    @cached_property\n"
            "    def f(self):\n        return 1\n",
            True,
        ),
        ("_F = frozenset({'a', 'b'})\n", False),
        ("_T = ('a', 'b')\n", False),
        ("from types import MappingProxyType\n_M = MappingProxyType({'a': 1})\n", False),
        ("import re\n_P = re.compile('a')\n", False),
        ("_U = frozenset('ab')\n_H = _U | {':'}\n", False),
        ("__all__ = ['f']\n", False),
        ("from typing import Final\nLIMIT: Final = 3\n", False),
        ("def f():\n    seen = {}\n    return seen\n", False),
        (
            "from dataclasses import dataclass, field\n@dataclass\nclass C:\n"
            "    xs: list[int] = field(default_factory=list)\n",
            False,
        ),
    ],
)
def test_the_checker_finds_module_state(source: str, caught: bool) -> None:
    assert bool(mutable_state(source, "probe.py")) is caught
