"""The rpc package's public face: ``__all__`` and the definitions agree."""

from __future__ import annotations

import importlib

import pytest

import memoryd.rpc as rpc

SUBMODULES = [
    "memoryd.rpc.paths",
    "memoryd.rpc.framing",
    "memoryd.rpc.errors",
    "memoryd.rpc.protocol",
    "memoryd.rpc.client",
]


@pytest.mark.parametrize("name", SUBMODULES)
def test_submodule_all_names_exist(name: str) -> None:
    module = importlib.import_module(name)
    for attr in module.__all__:
        assert hasattr(module, attr), f"{name}.__all__ names missing {attr}"


def test_package_reexports_exactly_the_submodules_public_names() -> None:
    expected = set()
    for name in SUBMODULES:
        module = importlib.import_module(name)
        expected |= set(module.__all__)
        for attr in module.__all__:
            assert getattr(rpc, attr) is getattr(module, attr)
    assert set(rpc.__all__) == expected


def test_unknown_attribute_is_an_attribute_error() -> None:
    with pytest.raises(AttributeError):
        _ = rpc.no_such_name  # type: ignore[attr-defined]
