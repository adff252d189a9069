"""How values from memoryd become HTML: the template environment.

Owns: the Jinja2 environment of ``memctl ui`` and its filters (ages,
expiries, bodies, form values).

Invariants:
- autoescape is on for every template, and every ``{{ … }}`` output passes
  ``finalize``, which shows control and format characters as visible
  escapes through ``memoryd.memctl.format`` — the very function memctl's
  terminal output uses — so a template cannot forget to clean a value;
- only the ``body`` and ``formvalue`` filters return markup, and both escape
  their text first; ``formvalue`` keeps the stored text exact (so an edit
  changes only what the operator changed) and is used only inside form
  fields, next to the cleaned display;
- nothing here does I/O; the clock is an argument of the age filters.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

import jinja2
from markupsafe import Markup, escape

from memoryd.kernel.retention import NEVER_EXPIRES
from memoryd.memctl import format as fmt

__all__ = ["has_hidden", "make_environment", "parse_time", "relative"]


def parse_time(value: object) -> datetime | None:
    if not isinstance(value, str) or not value:
        return None
    try:
        parsed = datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        return None
    return parsed if parsed.tzinfo else parsed.replace(tzinfo=UTC)


def _span(seconds: float) -> str:
    seconds = abs(seconds)
    for size, unit in ((86_400 * 365, "y"), (86_400, "d"), (3_600, "h"), (60, "min")):
        if seconds >= size:
            return f"{int(seconds // size)} {unit}"
    return f"{int(seconds)} s"


def relative(value: object, now: datetime) -> str:
    """``3 d ago`` / ``in 119 d`` for a timestamp; ``-`` when there is none;
    ``never (pinned)`` for a pinned entry's expiry."""
    if value == NEVER_EXPIRES:
        return fmt.NEVER_PINNED
    when = parse_time(value)
    if when is None:
        return "-"
    delta = (when - now).total_seconds()
    return f"in {_span(delta)}" if delta > 0 else f"{_span(delta)} ago"


def has_hidden(text: object) -> bool:
    """True when memctl would show some character of ``text`` as an escape."""
    return isinstance(text, str) and fmt.clean(text, multiline=True) != text


def _finalize(value: Any) -> Any:
    if isinstance(value, Markup):
        return value
    if isinstance(value, jinja2.Undefined):
        return "-"
    if isinstance(value, int | float) and not isinstance(value, bool):
        return str(value)
    return fmt.cell(value)


def _body(text: object) -> Markup:
    if text is None or text == "":
        return Markup("<em>(empty)</em>")
    return escape(fmt.clean(text, multiline=True))


def _formvalue(text: object) -> Markup:
    return escape("" if text is None else str(text))


def make_environment(now: Callable[[], datetime]) -> jinja2.Environment:
    env = jinja2.Environment(
        loader=jinja2.PackageLoader("memoryd.memctl.ui", "templates"),
        autoescape=True,
        finalize=_finalize,
        undefined=jinja2.ChainableUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
    )
    env.filters["body"] = _body
    env.filters["formvalue"] = _formvalue
    env.filters["ago"] = lambda value: relative(value, now())
    # An owner as the page shows it: with its token labels where the page
    # knows them (each request's context gives the labels); else the id.
    env.globals["owner_shown"] = lambda owner: owner
    env.tests["hidden"] = has_hidden
    return env
