"""The daemon is composed once, at construction, in one place: services take
their collaborators (store, clock, config, ...) rather than the ``App``,
nothing sets a field of the ``App`` after it was built, and only
daemon/compose.py builds one (``memoryd serve``, tests/inproc.py and
``bench/`` all call its ``compose``)."""

from __future__ import annotations

import ast
import dataclasses
from pathlib import Path

from memoryd.daemon.app import App
from memoryd.daemon.config import Config

ROOT = Path(__file__).resolve().parents[2]
DAEMON = ROOT / "daemon"
# The modules that compose the daemon: the only ones that know the App.
COMPOSERS = {DAEMON / "app.py", DAEMON / "compose.py"}
SOURCES = [*sorted(DAEMON.rglob("*.py")), ROOT / "tests" / "inproc.py"]
# Where memoryd is built to be run: the daemon itself, the in-process tests
# and the benchmarks.
BUILDERS = [*SOURCES, *sorted((ROOT / "bench").glob("*.py"))]


def imports_app(tree: ast.AST) -> bool:
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module == "memoryd.daemon.app":
            return True
        if (
            isinstance(node, ast.ImportFrom)
            and node.module == "memoryd.daemon"
            and any(a.name == "app" for a in node.names)
        ):
            return True
        if isinstance(node, ast.Import) and any(a.name == "memoryd.daemon.app" for a in node.names):
            return True
    return False


def app_fields_set_from_outside(tree: ast.AST) -> list[str]:
    """``x.field = ...`` for a field of App, where ``x`` is not ``self``."""
    fields = {f.name for f in dataclasses.fields(App)}
    found = []
    for node in ast.walk(tree):
        targets: list[ast.expr] = []
        if isinstance(node, ast.Assign):
            targets = node.targets
        elif isinstance(node, (ast.AugAssign, ast.AnnAssign)):
            targets = [node.target]
        for target in targets:
            if (
                isinstance(target, ast.Attribute)
                and target.attr in fields
                and not (isinstance(target.value, ast.Name) and target.value.id == "self")
            ):
                found.append(f"line {target.lineno}: {ast.unparse(target)}")
    return found


def test_only_the_composers_know_the_app() -> None:
    knowing = [
        p.name
        for p in SOURCES
        if DAEMON in p.parents and p not in COMPOSERS and imports_app(ast.parse(p.read_text()))
    ]
    assert knowing == [], f"services take their collaborators, not the App: {knowing}"


def test_no_field_of_the_app_is_set_after_it_was_built() -> None:
    found = {
        p.name: hits
        for p in SOURCES
        if (hits := app_fields_set_from_outside(ast.parse(p.read_text())))
    }
    assert found == {}, f"the App is given its collaborators at construction: {found}"


def builds_an_app(tree: ast.AST) -> bool:
    return any(
        isinstance(node, ast.Call)
        and isinstance(node.func, (ast.Name, ast.Attribute))
        and (node.func.id if isinstance(node.func, ast.Name) else node.func.attr) == "App"
        for node in ast.walk(tree)
    )


def test_only_the_composition_root_builds_the_app() -> None:
    building = [
        p.relative_to(ROOT).as_posix() for p in BUILDERS if builds_an_app(ast.parse(p.read_text()))
    ]
    assert building == ["daemon/compose.py"]


def test_the_checks_see_what_they_look_for() -> None:
    assert builds_an_app(ast.parse("a = App(config=c)\n"))
    assert builds_an_app(ast.parse("a = app.App()\n"))
    assert not builds_an_app(ast.parse("a = compose(home, config, clock=c)\n"))
    assert imports_app(ast.parse("if X:\n    from memoryd.daemon.app import App\n"))
    assert app_fields_set_from_outside(ast.parse("self.app.store = s\n"))
    assert app_fields_set_from_outside(ast.parse("app.projection = p\n"))
    assert not app_fields_set_from_outside(ast.parse("self.store = s\n"))


def test_tasks_tokens_and_consent_are_served_by_their_own_module() -> None:
    from memoryd.daemon import compose
    from memoryd.daemon.access import access

    # Declaring a table calls no collaborator, so none is given.
    app = App(
        config=Config(),
        home=None,
        hasher=None,
        store=None,  # type: ignore[arg-type]
        clock=None,
        default=None,
        settle=None,
    )  # type: ignore[arg-type]
    ours = ("task.", "consent.", "token.")
    assert not [m.name for m in app.methods() if m.name.startswith(ours)]
    served = {m.name for m in compose.compose_access(app).methods()}
    assert isinstance(compose.compose_access(app), access.Access)
    assert served == {
        "task.begin",
        "task.resume",
        "task.end",
        "consent.get",
        "consent.set",
        "token.issue",
        "token.list",
        "token.revoke",
    }
