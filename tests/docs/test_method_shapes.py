"""The documented answer of every method matches the Struct it is encoded from.

docs/methods.md lists every method the daemon serves with the fields of its
answer in wire order; docs/client.md's table of agent-channel methods names
some of them. Both are read here and compared with the result Struct each
module declares in its method table (the same table ``memoryd serve`` joins),
so a field added, dropped or renamed on either side fails, as does a method
served but not documented, documented but not served, or documented on the
wrong socket. The handler's return annotation must name the same Struct.
"""

from __future__ import annotations

import re
import typing
from dataclasses import dataclass
from pathlib import Path

import msgspec
import pytest

from memoryd.daemon import compose
from memoryd.daemon.app import App
from memoryd.daemon.config import Config
from memoryd.daemon.external.projection import Projection
from memoryd.daemon.pipeline.lifecycle import Receipts
from memoryd.rpc.protocol import MethodSpec

DOCS = Path(__file__).resolve().parents[2] / "docs"

# ``| `memory.read` | agent + control | `ReadResult` | `{entries, pending?}` |``
_ROW = re.compile(
    r"^\|\s*`([a-z_.]+)`\s*\|\s*(agent \+ control|control)\s*\|\s*`(\w+)`\s*\|"
    r"\s*`\{([^}]*)\}`\s*\|\s*$"
)
# docs/client.md: ``| `task.end` | `task_id` | `{task_id, ended}` |``
_CLIENT_ROW = re.compile(r"^\|\s*`([a-z_.]+)`\s*\|.*\|\s*`\{([^}]*)\}`(.*)\|\s*$")


@dataclass(frozen=True)
class Documented:
    method: str
    on_agent: bool
    struct: str
    fields: tuple[str, ...]
    optional: frozenset[str]


def _names(cell: str) -> list[str]:
    return [n.strip() for n in cell.split(",") if n.strip() and n.strip() != "…"]


def parse_methods_page(text: str) -> dict[str, Documented]:
    found: dict[str, Documented] = {}
    for line in text.splitlines():
        m = _ROW.match(line)
        if m is None:
            continue
        method, sockets, struct, cell = m.groups()
        assert method not in found, f"{method} is documented twice"
        names = _names(cell)
        found[method] = Documented(
            method,
            sockets == "agent + control",
            struct,
            tuple(n.rstrip("?") for n in names),
            frozenset(n.rstrip("?") for n in names if n.endswith("?")),
        )
    return found


def served() -> dict[str, MethodSpec]:
    """Every method as ``memoryd serve`` declares it. Building the table
    calls no collaborator (handlers use them per request), so none is given."""
    receipts = Receipts(None, None)  # type: ignore[arg-type]
    app = App(
        config=Config(),
        home=None,
        hasher=None,
        store=None,  # type: ignore[arg-type]
        clock=None,
        default=None,
        settle=receipts.settle,
    )  # type: ignore[arg-type]
    projection = Projection(
        None,
        None,
        None,
        "",
        lambda: None,
        lambda ctx: None,  # type: ignore[arg-type]
        None,
        None,
        None,
        None,
    )  # type: ignore[arg-type]
    specs = compose.method_table(
        app,
        None,
        compose.compose_lifecycle(app, receipts),  # type: ignore[arg-type]
        projection,
        lambda ctx: None,
    )
    return {s.name: s for s in specs}


def drift(doc: Documented, spec: MethodSpec) -> list[str]:
    """What differs between a documented answer and the method's declaration."""
    problems = []
    if spec.result is None:
        return [f"{spec.name}: no result Struct declared"]
    fields = msgspec.structs.fields(spec.result)
    names = tuple(f.encode_name for f in fields)
    if doc.fields != names:
        problems.append(f"{spec.name}: documented {list(doc.fields)}, Struct has {list(names)}")
    unset = frozenset(f.encode_name for f in fields if f.default is msgspec.UNSET)
    if doc.optional != unset:
        problems.append(
            f"{spec.name}: documented absent-unless {sorted(doc.optional)},"
            f" Struct leaves out {sorted(unset)}"
        )
    if doc.struct != spec.result.__name__:
        problems.append(f"{spec.name}: documented {doc.struct}, declared {spec.result.__name__}")
    if doc.on_agent != spec.on_agent:
        problems.append(
            f"{spec.name}: documented on_agent={doc.on_agent}, served on_agent={spec.on_agent}"
        )
    return problems


def test_every_served_method_is_documented_and_nothing_else() -> None:
    documented = parse_methods_page((DOCS / "methods.md").read_text(encoding="utf-8"))
    specs = served()
    assert len(specs) >= 30, "the method table looks wrong: too few methods"
    assert sorted(set(specs) - set(documented)) == []
    assert sorted(set(documented) - set(specs)) == []


def test_every_documented_answer_matches_its_struct() -> None:
    documented = parse_methods_page((DOCS / "methods.md").read_text(encoding="utf-8"))
    specs = served()
    problems = [
        p
        for name in sorted(set(documented) & set(specs))
        for p in drift(documented[name], specs[name])
    ]
    assert problems == []


def test_every_handler_is_annotated_with_the_struct_it_declares() -> None:
    wrong = []
    for name, spec in sorted(served().items()):
        hints = typing.get_type_hints(spec.handler)
        if hints.get("return") is not spec.result:
            wrong.append(f"{name}: returns {hints.get('return')}, declares {spec.result}")
    assert wrong == []


def test_the_agent_table_in_the_client_guide_names_only_real_fields() -> None:
    """docs/client.md names some fields per method; ``…`` says more exist.
    Without it the list must be complete."""
    specs = served()
    seen = 0
    problems = []
    for line in (DOCS / "client.md").read_text(encoding="utf-8").splitlines():
        m = _CLIENT_ROW.match(line)
        if m is None or m.group(1) not in specs:
            continue
        seen += 1
        method, cell, after = m.groups()
        result = specs[method].result
        assert result is not None
        names = [n.rstrip("?") for n in _names(cell)]
        fields = {f.encode_name for f in msgspec.structs.fields(result)}
        if set(names) - fields:
            problems.append(f"{method}: {sorted(set(names) - fields)} are not fields")
        if "…" not in cell and "…" not in after and set(names) != fields:
            problems.append(f"{method}: lists {sorted(names)} without …, has {sorted(fields)}")
    assert seen >= 8, "docs/client.md's table of agent methods was not found"
    assert problems == []


# --- the comparison itself catches drift ----------------------------------------


class _Answer(msgspec.Struct, kw_only=True):
    a: int
    b: str | msgspec.UnsetType = msgspec.UNSET
    c: bool


async def _handler(ctx: object, p: object) -> _Answer:
    return _Answer(a=1, c=True)


@pytest.mark.parametrize(
    ("row", "clean"),
    [
        ("| `x.y` | control | `_Answer` | `{a, b?, c}` |", True),
        ("| `x.y` | control | `_Answer` | `{a, b, c}` |", False),  # b is absent-unless
        ("| `x.y` | control | `_Answer` | `{a, c, b?}` |", False),  # wire order
        ("| `x.y` | control | `_Answer` | `{a, b?}` |", False),  # c missing
        ("| `x.y` | control | `_Answer` | `{a, b?, c, d}` |", False),  # d not a field
        ("| `x.y` | agent + control | `_Answer` | `{a, b?, c}` |", False),  # wrong socket
        ("| `x.y` | control | `Other` | `{a, b?, c}` |", False),  # wrong Struct
    ],
)
def test_a_drifted_row_is_reported(row: str, clean: bool) -> None:
    doc = parse_methods_page(row)["x.y"]
    spec = MethodSpec("x.y", msgspec.Struct, _handler, _Answer)
    assert (drift(doc, spec) == []) is clean
