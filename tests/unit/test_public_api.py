"""Every ``__all__`` in kernel/, audit/ and rpc/ names what the module defines.

A name listed but missing breaks ``from x import *`` and the docs that trust
the list; a public class or function defined in a module but left out of its
``__all__`` is a name callers use without it being promised.
"""

from __future__ import annotations

import importlib
import inspect
import pkgutil
from types import ModuleType

import pytest

PACKAGES = ("memoryd.kernel", "memoryd.audit", "memoryd.rpc", "memoryd.memctl")
# Modules that need an optional extra are checked only when it is installed.
OPTIONAL = {"memoryd.memctl.mcp_bridge": "mcp", "memoryd.memctl.mcp_stdio": "mcp"}
# Programs rather than libraries: their __all__ names the entry points, and the
# many command builders they define are tested but not promised to importers.
PROGRAMS = frozenset({"memoryd.memctl.main", "memoryd.memctl.format", "memoryd.memctl.mcp_bridge"})


def _modules() -> list[str]:
    names = []
    for package in PACKAGES:
        names.append(package)
        module = importlib.import_module(package)
        # ``__main__`` runs the program when imported; it promises no names.
        names.extend(
            f"{package}.{info.name}"
            for info in pkgutil.iter_modules(module.__path__)
            if info.name != "__main__"
        )
    return names


def _declaring() -> list[str]:
    """Modules that declare ``__all__`` (the others promise no public list)."""
    out = []
    for name in _modules():
        if name in OPTIONAL:
            out.append(name)  # checked, or skipped, when loaded
            continue
        if hasattr(importlib.import_module(name), "__all__"):
            out.append(name)
    return out


def _load(name: str) -> ModuleType:
    if name in OPTIONAL:
        pytest.importorskip(OPTIONAL[name])
    return importlib.import_module(name)


@pytest.mark.parametrize("name", _declaring())
def test_every_listed_name_exists(name: str) -> None:
    module = _load(name)
    listed = module.__all__
    missing = [n for n in listed if not hasattr(module, n)]
    assert missing == []
    assert len(listed) == len(set(listed)), "a name is listed twice"


@pytest.mark.parametrize("name", [n for n in _declaring() if "." in n and n not in PROGRAMS])
def test_public_definitions_are_listed(name: str) -> None:
    module = _load(name)
    listed = module.__all__
    defined = [
        n
        for n, obj in vars(module).items()
        if not n.startswith("_")
        and (inspect.isclass(obj) or inspect.isfunction(obj))
        and getattr(obj, "__module__", None) == module.__name__
    ]
    assert sorted(set(defined) - set(listed)) == []
