"""The dependency direction of our four packages, read from the source.

STYLE.md: ``kernel/`` imports nothing of ours; ``audit/`` and ``rpc/`` may use
``kernel/`` and nothing else of ours; ``daemon/`` composes them all and nothing
imports ``daemon/``. ``kernel/`` is pure: no I/O, no clock, no environment, no
randomness, so it imports none of the modules that provide them.

The imports are read with ``ast`` (never by importing the code), so a function-
level import, a ``TYPE_CHECKING`` block or an ``importlib.import_module`` with
a literal name counts exactly like a top-level ``import``.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
OURS = ("kernel", "audit", "rpc", "daemon", "memctl")
# Installed, every package of ours lives under this one import name.
NAMESPACE = "memoryd"

# Which of our packages each package may import (itself always allowed).
ALLOWED: dict[str, frozenset[str]] = {
    "kernel": frozenset(),
    "audit": frozenset({"kernel"}),
    "rpc": frozenset({"kernel"}),
    "daemon": frozenset({"kernel", "audit", "rpc"}),
    # The client programs (memctl, the MCP bridge) talk to the daemon over its
    # socket, so they use the wire layer and the kernel's pure tables only.
    "memctl": frozenset({"kernel", "rpc"}),
}

# Top-level modules that give access to files, sockets, processes, clocks,
# the environment, randomness or logging sinks. The kernel takes all of these
# as arguments instead (time included), so it stays a table-testable function.
KERNEL_FORBIDDEN = frozenset(
    {
        "anyio",
        "apsw",
        "asyncio",
        "fcntl",
        "glob",
        "http",
        "io",
        "logging",
        "mmap",
        "multiprocessing",
        "os",
        "pathlib",
        "random",
        "secrets",
        "select",
        "selectors",
        "shutil",
        "signal",
        "socket",
        "sqlite3",
        "ssl",
        "structlog",
        "subprocess",
        "sys",
        "tempfile",
        "threading",
        "time",
        "urllib",
        "uuid",
    }
)

# Calls that read the clock even though their module (datetime) is fine to use
# for types and arithmetic.
KERNEL_FORBIDDEN_CALLS = frozenset({"now", "utcnow", "today", "fromtimestamp"})


@dataclass(frozen=True)
class Import:
    path: Path
    line: int
    module: str


def _module_name(path: Path, root: Path) -> list[str]:
    parts = list(path.relative_to(root).with_suffix("").parts)
    return parts[:-1] if parts[-1] == "__init__" else parts


def _imports(path: Path, tree: ast.AST, root: Path = REPO) -> list[Import]:
    found: list[Import] = []
    here = _module_name(path, root)
    is_package = path.name == "__init__.py"
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [Import(path, node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                # A relative import resolves against the containing package.
                base = here if is_package else here[:-1]
                base = base[: len(base) - (node.level - 1)] if node.level > 1 else base
                module = ".".join([*base, *([node.module] if node.module else [])])
            else:
                module = node.module or ""
            found.append(Import(path, node.lineno, module))
        elif (
            isinstance(node, ast.Call)
            and node.args
            and isinstance(node.args[0], ast.Constant)
            and isinstance(node.args[0].value, str)
            and (
                (isinstance(node.func, ast.Attribute) and node.func.attr == "import_module")
                or (isinstance(node.func, ast.Name) and node.func.id == "__import__")
            )
        ):
            found.append(Import(path, node.lineno, node.args[0].value))
    return found


def _sources() -> list[Path]:
    files = sorted(p for pkg in OURS for p in (REPO / pkg).rglob("*.py"))
    assert files, "no sources found: the test is looking in the wrong place"
    return files


def _parse(path: Path) -> ast.AST:
    return ast.parse(path.read_text(encoding="utf-8"), filename=str(path))


def _ours(module: str) -> str | None:
    """The package of ours a module name belongs to, with or without the namespace."""
    parts = module.split(".")
    if parts[0] == NAMESPACE and len(parts) > 1:
        parts = parts[1:]
    return parts[0] if parts[0] in OURS else None


def _violations(files: list[Path], root: Path = REPO) -> list[str]:
    bad = []
    for path in files:
        pkg = path.relative_to(root).parts[0]
        for imp in _imports(path, _parse(path), root):
            top = _ours(imp.module)
            if top is not None and top != pkg and top not in ALLOWED[pkg]:
                bad.append(f"{path.relative_to(root)}:{imp.line} {pkg} imports {imp.module}")
    return bad


def test_every_package_imports_only_what_the_layering_allows() -> None:
    assert _violations(_sources()) == []


def test_every_import_of_ours_goes_through_the_one_namespace() -> None:
    # A bare ``import daemon`` would find python-daemon (or nothing) once installed.
    files = [
        *_sources(),
        *sorted((REPO / "tests").rglob("*.py")),
        *sorted((REPO / "bench").rglob("*.py")),
        *sorted((REPO / "examples").rglob("*.py")),
    ]
    bad = [
        f"{imp.path.relative_to(REPO)}:{imp.line} imports {imp.module}"
        for path in files
        for imp in _imports(path, _parse(path))
        if imp.module.split(".")[0] in OURS
    ]
    assert bad == []


def test_kernel_imports_no_io_clock_or_environment_module() -> None:
    bad = []
    for path in (REPO / "kernel").rglob("*.py"):
        for imp in _imports(path, _parse(path)):
            if imp.module.split(".")[0] in KERNEL_FORBIDDEN:
                bad.append(f"{path.relative_to(REPO)}:{imp.line} imports {imp.module}")
    assert bad == []


def test_kernel_reads_no_clock_and_opens_no_file() -> None:
    bad = []
    for path in (REPO / "kernel").rglob("*.py"):
        for node in ast.walk(_parse(path)):
            if not isinstance(node, ast.Call):
                continue
            func = node.func
            if isinstance(func, ast.Attribute) and func.attr in KERNEL_FORBIDDEN_CALLS:
                bad.append(f"{path.relative_to(REPO)}:{node.lineno} calls .{func.attr}()")
            if isinstance(func, ast.Name) and func.id in {"open", "input", "print"}:
                bad.append(f"{path.relative_to(REPO)}:{node.lineno} calls {func.id}()")
    assert bad == []


# --- the checker itself catches what it must --------------------------------


@pytest.mark.parametrize(
    ("pkg", "source", "caught"),
    [
        ("kernel", "import rpc.framing\n", True),
        ("kernel", "from audit import chain\n", True),
        ("audit", "from rpc.errors import x\n", True),
        ("rpc", "import audit\n", True),
        ("rpc", "def f():\n    from daemon.app import App\n", True),
        ("rpc", "import importlib\nimportlib.import_module('daemon.cli')\n", True),
        ("rpc", "from memoryd.daemon.app import App\n", True),
        ("kernel", "import memoryd.rpc.framing\n", True),
        ("daemon", "from memoryd.memctl.main import main\n", True),
        ("rpc", "from memoryd.memctl import format\n", True),
        (
            "memctl",
            "from memoryd.rpc.client import Client\nfrom memoryd.kernel import scan\n",
            False,
        ),
        ("rpc", "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    import daemon\n", True),
        ("kernel", "from .. import policy\n", False),
        ("audit", "from kernel.errors import MemorydError\n", False),
        ("rpc", "from kernel.errors import MemorydError\nfrom . import framing\n", False),
        ("daemon", "import kernel, audit, rpc\n", False),
    ],
)
def test_a_backward_edge_in_a_file_is_reported(
    tmp_path: Path, pkg: str, source: str, caught: bool
) -> None:
    probe = tmp_path / pkg / "sub" / "probe.py"
    probe.parent.mkdir(parents=True)
    probe.write_text(source)
    assert bool(_violations([probe], root=tmp_path)) is caught


# --- one place decides ------------------------------------------------------

# The one module of ours that may call the kernel's ``decide()``: every other
# decision (writes, approvals, promotion, projection) is asked of the gate.
DECIDES = frozenset({"daemon/access/gate.py"})
DECIDE_MODULES = frozenset({"kernel.decide", "memoryd.kernel.decide"})


def _probe(root: Path, name: str, source: str) -> Path:
    """A source file ``name`` under ``root`` holding ``source``, for a check to read."""
    probe = root / name
    probe.parent.mkdir(parents=True, exist_ok=True)
    probe.write_text(source)
    return probe


def _decide_callers(files: list[Path], root: Path = REPO) -> list[str]:
    """Modules outside ``kernel/`` that import ``decide`` or its module."""
    bad = []
    for path in files:
        label = path.relative_to(root).as_posix()
        if label.startswith("kernel/") or label in DECIDES:
            continue
        for node in ast.walk(_parse(path)):
            if isinstance(node, ast.ImportFrom) and node.module in DECIDE_MODULES:
                bad.append(f"{label}:{node.lineno} imports from {node.module}")
            elif (
                isinstance(node, ast.ImportFrom)
                and node.module in {"kernel", "memoryd.kernel"}
                and any(a.name == "decide" for a in node.names)
            ):
                bad.append(f"{label}:{node.lineno} imports kernel.decide")
            elif isinstance(node, ast.Import) and any(a.name in DECIDE_MODULES for a in node.names):
                bad.append(f"{label}:{node.lineno} imports kernel.decide")
    return bad


def test_only_the_gate_calls_the_kernels_decide() -> None:
    assert _decide_callers(_sources()) == []


@pytest.mark.parametrize(
    ("name", "source", "caught"),
    [
        ("daemon/pipeline/promote.py", "from memoryd.kernel.decide import decide\n", True),
        ("daemon/external/projection.py", "def f():\n    from kernel.decide import decide\n", True),
        ("daemon/x.py", "import memoryd.kernel.decide\n", True),
        ("daemon/x.py", "from memoryd.kernel import decide\n", True),
        ("memctl/x.py", "from memoryd.kernel.decide import DEFAULTS\n", True),
        ("daemon/access/gate.py", "from memoryd.kernel.decide import decide\n", False),
        ("kernel/x.py", "from memoryd.kernel.decide import decide\n", False),
        ("daemon/x.py", "from memoryd.kernel.capability import Decision\n", False),
    ],
)
def test_a_decide_call_outside_the_gate_is_reported(
    tmp_path: Path, name: str, source: str, caught: bool
) -> None:
    probe = _probe(tmp_path, name, source)
    assert bool(_decide_callers([probe], root=tmp_path)) is caught


# --- benchmarks stand on the package alone -----------------------------------


def _test_imports(files: list[Path], root: Path = REPO) -> list[str]:
    return [
        f"{imp.path.relative_to(root)}:{imp.line} imports {imp.module}"
        for path in files
        for imp in _imports(path, _parse(path), root)
        if imp.module.split(".")[0] == "tests"
    ]


def test_bench_imports_nothing_from_the_tests() -> None:
    # ``bench/run.py`` must run without the test extra installed.
    files = sorted((REPO / "bench").rglob("*.py"))
    assert files
    assert _test_imports(files) == []


@pytest.mark.parametrize(
    ("source", "caught"),
    [
        ("from tests.harness import Daemon\n", True),
        ("def f():\n    from tests import harness\n", True),
        ("import tests.inproc\n", True),
        ("from bench.daemon import Daemon\n", False),
    ],
)
def test_a_test_import_in_bench_is_reported(tmp_path: Path, source: str, caught: bool) -> None:
    probe = tmp_path / "bench" / "probe.py"
    probe.parent.mkdir(parents=True)
    probe.write_text(source)
    assert bool(_test_imports([probe], root=tmp_path)) is caught


# --- the storage wing speaks the SQL dialects ---------------------------------

# A store backend is its wing's business: outside ``daemon/storage/`` no module
# asks a transaction which SQL it speaks (``tx.dialect``) or chooses by the
# store's kind or a backend's name; it calls one operation of the store's seam.
# ``config.py`` decodes ``[store] backend`` and checks the settings that
# backend takes, so it names the backends.
STORAGE_WING = "daemon/storage/"
NAMES_BACKENDS = frozenset({"daemon/config.py"})
BACKEND_NAMES = frozenset({"sqlite", "postgresql"})


def _ends_in_store(node: ast.expr) -> bool:
    name = (
        node.id
        if isinstance(node, ast.Name)
        else node.attr
        if isinstance(node, ast.Attribute)
        else ""
    )
    return name.lower().endswith("store")


def _dialect_choices(files: list[Path], root: Path = REPO) -> list[str]:
    """Places outside the storage wing that read ``.dialect``, compare a
    store's ``.kind``, or compare anything with a backend's name."""
    bad = []
    for path in files:
        label = path.relative_to(root).as_posix()
        if label.startswith(STORAGE_WING):
            continue
        for node in ast.walk(_parse(path)):
            if isinstance(node, ast.Attribute) and node.attr == "dialect":
                bad.append(f"{label}:{node.lineno} reads .dialect")
            elif isinstance(node, ast.Compare):
                for side in (node.left, *node.comparators):
                    if (
                        isinstance(side, ast.Attribute)
                        and side.attr == "kind"
                        and _ends_in_store(side.value)
                    ):
                        bad.append(f"{label}:{node.lineno} compares the store's kind")
                    elif label not in NAMES_BACKENDS:
                        named = [c.value for c in ast.walk(side) if isinstance(c, ast.Constant)]
                        bad.extend(
                            f"{label}:{node.lineno} compares with {n!r}"
                            for n in named
                            if n in BACKEND_NAMES
                        )
    return bad


def test_no_module_outside_the_storage_wing_chooses_by_dialect() -> None:
    assert _dialect_choices(_sources()) == []


@pytest.mark.parametrize(
    ("name", "source", "caught"),
    [
        ("daemon/retrieval/x.py", "def f(tx):\n    return tx.dialect\n", True),
        (
            "daemon/semantic/x.py",
            "def f(tx):\n    return 1 if tx.dialect == 'sqlite' else 2\n",
            True,
        ),
        ("daemon/retrieval/x.py", "def f(facts):\n    return facts.store.kind != 'x'\n", True),
        ("daemon/x.py", "def f(self):\n    return self.store.kind == self.other\n", True),
        ("daemon/x.py", "def f(kind):\n    return kind in ('postgresql',)\n", True),
        ("daemon/x.py", "def f(kind):\n    return kind == 'postgresql'\n", True),
        ("daemon/config.py", "def f(s):\n    return s.backend == 'sqlite'\n", False),
        ("daemon/storage/store.py", "def f(tx):\n    return tx.dialect == 'sqlite'\n", False),
        ("daemon/x.py", "def f(ident):\n    return ident.kind == 'owner'\n", False),
        ("daemon/x.py", "def f(store):\n    return {'kind': store.kind}\n", False),
    ],
)
def test_a_dialect_choice_outside_the_storage_wing_is_reported(
    tmp_path: Path, name: str, source: str, caught: bool
) -> None:
    probe = _probe(tmp_path, name, source)
    assert bool(_dialect_choices([probe], root=tmp_path)) is caught


# --- one function builds an audit subject ------------------------------------

# The one module that writes an audit event's ``subject`` as a literal
# (``audit_subject``): every event names who acted in one shape.
SUBJECT_BUILDERS = frozenset({"daemon/storage/txn.py"})


def _subject_literals(files: list[Path], root: Path = REPO) -> list[str]:
    """Dict literals naming a channel and an owner, or given as an event's
    ``subject=``, outside ``audit_subject``'s module."""
    bad = []
    for path in files:
        label = path.relative_to(root).as_posix()
        if label in SUBJECT_BUILDERS:
            continue
        for node in ast.walk(_parse(path)):
            if isinstance(node, ast.Dict):
                keys = {k.value for k in node.keys if isinstance(k, ast.Constant)}
                if {"channel", "owner"} <= keys:
                    bad.append(f"{label}:{node.lineno} builds an audit subject")
            elif isinstance(node, ast.keyword) and node.arg == "subject":
                if isinstance(node.value, ast.Dict):
                    bad.append(f"{label}:{node.value.lineno} builds an audit subject")
    return bad


def test_one_function_builds_an_audit_subject() -> None:
    files = [p for p in _sources() if p.relative_to(REPO).parts[0] == "daemon"]
    assert files
    assert _subject_literals(files) == []


@pytest.mark.parametrize(
    ("name", "source", "caught"),
    [
        ("daemon/x.py", 'S = {"channel": "control", "role": "operator", "owner": o}\n', True),
        ("daemon/storage/txn.py", 'S = {"channel": c, "role": r, "owner": o}\n', False),
        ("daemon/x.py", 'S = audit_subject(o, channel="control", role="operator")\n', False),
        ("daemon/x.py", 'S = {"channel": "agent", "peer_uid": 0}\n', False),
        ("daemon/x.py", 'tx.audit("e", now, subject={"owner": o})\n', True),
        ("daemon/x.py", 'tx.audit("e", now, subject=audit_subject(o))\n', False),
    ],
)
def test_a_subject_built_by_hand_is_reported(
    tmp_path: Path, name: str, source: str, caught: bool
) -> None:
    probe = _probe(tmp_path, name, source)
    assert bool(_subject_literals([probe], root=tmp_path)) is caught
