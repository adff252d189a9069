"""Every text an entry carries, found by walking it: what is scanned and counted.

Owns: ``entry_texts`` (each string leaf of an entry, with its path:
``title``, ``basis.note``, ``basis.refs[2]``, ``validity.until`` …) and
``stored_bytes`` (their UTF-8 size), the one answer to "which fields does the
scanner read, and which bytes count toward the limits"; and ``scope_texts``,
how a scope name is read as text (by a write, and by ``task.begin`` for the
scopes a task takes as its namespaces).

Invariants:
- pure: takes plain builtins (dicts, lists, strings, numbers), no I/O;
- a field nobody listed is still walked: a new string field of an entry is
  scanned and counted the day it is added, with nothing else to change;
- leaves are yielded in the order the mapping holds them (deterministic).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

__all__ = ["MAX_DEPTH", "entry_texts", "scope_texts", "stored_bytes"]

# Entries are shallow (basis.refs[i] is the deepest leaf); anything deeper is
# refused by the schema long before this, but the walk stops anyway.
MAX_DEPTH = 8


def _walk(value: Any, path: str, depth: int) -> Iterator[tuple[str, str]]:
    if depth > MAX_DEPTH:
        # Fail closed: report the container's path with an unscannable marker
        # rather than skip it silently.
        yield path, repr(type(value))
        return
    if isinstance(value, str):
        yield path, value
    elif isinstance(value, Mapping):
        for key, item in value.items():
            yield from _walk(item, f"{path}.{key}" if path else str(key), depth + 1)
    elif isinstance(value, (list, tuple)):
        for i, item in enumerate(value):
            yield from _walk(item, f"{path}[{i}]", depth + 1)


def entry_texts(entry: Mapping[str, Any], *, skip: frozenset[str] = frozenset()
                ) -> list[tuple[str, str]]:
    """``(path, text)`` for every string in ``entry`` except the top-level keys in ``skip``."""
    # A top-level str or scalar is the walk's answer without the walk (most
    # of an entry's fields are): the string itself, or nothing. Only these
    # exact types: anything else, a subclass too, is walked.
    out: list[tuple[str, str]] = []
    for key, value in entry.items():
        if key in skip:
            continue
        kind = type(value)
        if kind is str:
            out.append((str(key), value))
        elif kind not in _NO_TEXT:
            out.extend(_walk(value, str(key), 1))
    return out


# Types whose values ``_walk`` finds no text in (``msgspec.UNSET``'s type is
# not among them: the kernel does not import msgspec; it is walked).
_NO_TEXT: frozenset[type] = frozenset({type(None), bool, int, float})


_SCOPE_SEPARATORS = str.maketrans("-_.:/+@", "       ")


def scope_texts(scope: str | None) -> list[tuple[str, str]]:
    """A scope name as scanned text: as written, and with its separators read
    as spaces (``project:ignore-all-previous-instructions`` is a sentence)."""
    if scope is None:
        return []
    return [("scope", scope), ("scope", scope.translate(_SCOPE_SEPARATORS))]


def stored_bytes(texts: list[tuple[str, str]]) -> int:
    """The UTF-8 bytes of ``texts`` (what counts toward the per-entry limit)."""
    return sum(len(text.encode("utf-8")) for _path, text in texts)
