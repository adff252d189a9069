"""No import cycles among our modules, read from the source.

A cycle means two modules cannot be understood (or tested, or replaced) one
without the other. The imports are read with ``ast`` exactly as in
test_layering.py: a function-level import and a ``TYPE_CHECKING`` block count
like a top-level ``import``, because a type that needs the other module is a
dependency on it all the same.

An edge goes to the module named: ``from memoryd.daemon.retrieval import search``
is an edge to ``memoryd.daemon.retrieval.search``; ``from
memoryd.daemon.storage.store import Tx`` is an edge to
``memoryd.daemon.storage.store``.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from tests.unit.test_layering import NAMESPACE, OURS, REPO, _imports, _parse


def _module_of(path: Path, root: Path) -> str:
    parts = list(path.relative_to(root).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join([NAMESPACE, *parts])


def _graph(root: Path) -> dict[str, set[str]]:
    files = sorted(p for pkg in OURS if (root / pkg).is_dir() for p in (root / pkg).rglob("*.py"))
    assert files, "no sources found: the test is looking in the wrong place"
    modules = {_module_of(p, root): p for p in files}
    graph: dict[str, set[str]] = {}
    for name, path in modules.items():
        edges: set[str] = set()
        tree = _parse(path)
        for imp in _imports(path, tree, root):
            target = (
                imp.module
                if imp.module.startswith(NAMESPACE + ".")
                else (f"{NAMESPACE}.{imp.module}")
            )
            if target in modules:
                edges.add(target)
        # ``from pkg import mod`` names a module inside the package.
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and node.module and not node.level:
                base = (
                    node.module
                    if node.module.startswith(NAMESPACE + ".")
                    else (f"{NAMESPACE}.{node.module}")
                )
                for alias in node.names:
                    sub = f"{base}.{alias.name}"
                    if sub in modules:
                        edges.discard(base)
                        edges.add(sub)
        edges.discard(name)
        graph[name] = edges
    return graph


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return sorted(found)


def test_no_module_of_ours_takes_part_in_an_import_cycle() -> None:
    graph = _graph(REPO)
    cycles = _cycles(graph)
    described = [
        " <-> ".join(c) + ": " + "; ".join(f"{m} imports {sorted(graph[m] & set(c))}" for m in c)
        for c in cycles
    ]
    assert described == []


# --- the checker itself catches what it must --------------------------------


@pytest.mark.parametrize(
    ("files", "cycle"),
    [
        (
            {
                "daemon/a.py": "from memoryd.daemon import b\n",
                "daemon/b.py": "import memoryd.daemon.a\n",
            },
            [["memoryd.daemon.a", "memoryd.daemon.b"]],
        ),
        (
            {
                "daemon/a.py": "from memoryd.daemon.b import X\n",
                "daemon/b.py": (
                    "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n"
                    "    from memoryd.daemon.c import Y\n"
                ),
                "daemon/c.py": "def f():\n    from memoryd.daemon.a import Z\n",
            },
            [["memoryd.daemon.a", "memoryd.daemon.b", "memoryd.daemon.c"]],
        ),
        (
            {
                "daemon/a.py": "from memoryd.daemon import b\n",
                "daemon/b.py": "from memoryd.rpc import c\n",
                "rpc/c.py": "import json\n",
            },
            [],
        ),
        ({"daemon/a.py": "from memoryd.daemon import a\n"}, []),
    ],
)
def test_a_cycle_in_the_sources_is_reported(
    tmp_path: Path, files: dict[str, str], cycle: list[list[str]]
) -> None:
    for rel, source in files.items():
        path = tmp_path / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(source)
    assert _cycles(_graph(tmp_path)) == cycle
