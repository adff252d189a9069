"""The suite reads only what the repository holds.

A bare clone, with nothing beside it, must run every test: a corpus or
fixture found only next to the checkout makes a test pass on one machine
and fail (or, worse, skip) on the next. This reads every Python file under
``tests/`` (with ``ast``, never importing it) and fails on a path that leaves
the repository:

- a ``..`` component in a string literal (``REPO / "../shared/…"``);
- ``Path(__file__)`` walked up past the repository root, through
  ``.parent`` chains or ``.parents[N]``, or ``.parent`` taken of ``REPO``;
- an absolute path opened as a path (``Path("/…")``, ``open("/…")``,
  ``"/…" / name``) under a folder of this machine other than ``/tmp`` and
  the system's own; plain strings that only stand for paths (a ``--home``
  argument in a parser table, a made-up root such as ``/h``) are data.

The table of known-bad lines below is what the check must catch, so it
cannot quietly stop seeing anything.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
TESTS = REPO / "tests"

DOTDOT = re.compile(r"(^|/)\.\.(/|$)")
# Absolute paths a test may open: temporary folders and the system's own.
SYSTEM = re.compile(r"^/(tmp|dev|proc|sys|bin|usr/bin)(/|$)")


def _ups(node: ast.AST) -> int | None:
    """How many folders up from ``__file__`` an expression walks, or None if
    it is not rooted at ``__file__``. ``Path(__file__)`` is the file itself."""
    if isinstance(node, ast.Call):
        func = node.func
        if isinstance(func, ast.Name) and func.id == "Path" and node.args:
            arg = node.args[0]
            return 0 if isinstance(arg, ast.Name) and arg.id == "__file__" else None
        if isinstance(func, ast.Attribute) and func.attr in ("resolve", "absolute"):
            return _ups(func.value)
        return None
    if isinstance(node, ast.Attribute) and node.attr == "parent":
        inner = _ups(node.value)
        return None if inner is None else inner + 1
    if (
        isinstance(node, ast.Subscript)
        and isinstance(node.value, ast.Attribute)
        and node.value.attr == "parents"
        and isinstance(node.slice, ast.Constant)
        and isinstance(node.slice.value, int)
    ):
        inner = _ups(node.value.value)
        return None if inner is None else inner + node.slice.value + 1
    return None


def _real_root(path: str) -> bool:
    """Whether the path's first folder exists here: ``Path("/h/m")`` in a
    table of home lookups is made-up data, ``Path("/srv/corpus")`` is not."""
    first = path.strip("/").split("/", 1)[0]
    return bool(first) and Path("/", first).exists()


def escapes(source: str, rel: Path) -> list[str]:
    """Each way the module at ``rel`` (relative to the repository) reaches
    outside the repository, as ``line: what``."""
    depth = len(rel.parts)  # folders up from the file to the repository root
    found: list[str] = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            if DOTDOT.search(node.value):
                found.append(f"{node.lineno}: '..' in a path")
        opened: list[ast.expr] = []
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Name)
            and node.func.id in ("Path", "open")
            and node.args
        ):
            opened.append(node.args[0])
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Div):
            opened.append(node.left)
        for arg in opened:
            if (
                isinstance(arg, ast.Constant)
                and isinstance(arg.value, str)
                and arg.value.startswith("/")
                and not SYSTEM.match(arg.value)
                and _real_root(arg.value)
            ):
                found.append(f"{node.lineno}: an absolute path outside the repository")
        if isinstance(node, ast.Attribute) and node.attr == "parent":
            if isinstance(node.value, ast.Name) and node.value.id == "REPO":
                found.append(f"{node.lineno}: the parent of the repository")
        ups = _ups(node)
        if ups is not None and ups > depth:
            found.append(f"{node.lineno}: __file__ walked {ups} folders up (root is {depth})")
    return found


def _test_sources() -> list[Path]:
    return sorted(p for p in TESTS.rglob("*.py") if "data/jsontestsuite" not in p.as_posix())


@pytest.mark.parametrize(
    "line",
    [
        'CORPUS = REPO / "../shared/corpora/jsontestsuite/test_parsing"',
        'CORPUS = Path(__file__).resolve().parents[2].parent / "shared/corpora/x"',
        'CORPUS = Path(__file__).parents[3] / "shared"',
        'CORPUS = Path(__file__).resolve().parent.parent.parent.parent / "x"',
        'CORPUS = REPO.parent / "shared"',
        'CORPUS = Path("/usr/share/corpora/jsontestsuite")',
        'CORPUS = open("/etc/corpus.json")',
    ],
)
def test_a_path_out_of_the_repository_is_caught(line: str) -> None:
    assert escapes(line, Path("tests/unit/test_x.py"))


@pytest.mark.parametrize(
    "line",
    [
        "REPO = Path(__file__).resolve().parents[2]",
        "REPO = Path(__file__).resolve().parent.parent.parent",
        'CORPUS = Path(__file__).parents[1] / "data" / "scan_corpus.jsonl"',
        'home = Path("/tmp") / "md"',
        'workspace = "/home/a/src"',
        'argv = ["backup", "/srv/b"]',
        'home = Path("/h/m")',
    ],
)
def test_a_path_inside_the_repository_passes(line: str) -> None:
    assert escapes(line, Path("tests/unit/test_x.py")) == []


def test_the_suite_was_found() -> None:
    names = {p.name for p in _test_sources()}
    assert {"harness.py", "test_self_contained.py", "test_rpc_protocol.py"} <= names


@pytest.mark.parametrize("path", _test_sources(), ids=lambda p: p.relative_to(TESTS).as_posix())
def test_no_test_reads_outside_the_repository(path: Path) -> None:
    rel = path.relative_to(REPO)
    assert escapes(path.read_text(encoding="utf-8"), rel) == []


def test_every_corpus_carries_its_licence() -> None:
    data = TESTS / "data"
    corpora = [p for p in data.iterdir() if p.is_dir() and p.name != "__pycache__"]
    assert corpora
    for corpus in corpora:
        assert (corpus / "LICENSE").is_file(), corpus.name
