"""Team scopes: the scope kind ``team:NAME`` and the names a team may have.

Owns: telling a team scope from any other memory scope, and the rule for
team names. A team scope is a ``memory`` scope shared by the owners an
operator made its members; every other scope belongs to one owner.

Invariants:
- every scope that starts with ``team:`` is a team scope, whatever follows;
  one whose name breaks the rule below names no team that can exist, so
  nobody is a member of it and it is refused to everyone (fail closed: a
  malformed team scope must never fall back to being someone's own scope);
- a team name is 1–63 characters of lower-case ASCII letters, digits and
  ``. _ -``, starting with a letter or digit: it is safe in a resource
  string, a log line and an audit event as it stands, like the scope names
  it makes;
- a team scope lives only in the ``memory`` target (``user`` is always the
  owner's own scope).
"""

from __future__ import annotations

import re

__all__ = ["TEAM_NAME", "TEAM_PREFIX", "is_team_scope", "team_name", "team_scope"]

TEAM_PREFIX = "team:"
TEAM_NAME = re.compile(r"[a-z0-9][a-z0-9._-]{0,62}")


def is_team_scope(target: str, scope: str) -> bool:
    """Whether ``(target, scope)`` is a team's namespace (shared by membership)."""
    return target == "memory" and scope.startswith(TEAM_PREFIX)


def team_name(scope: str) -> str | None:
    """The team a scope names, or None when it is not a well-formed team scope."""
    if not scope.startswith(TEAM_PREFIX):
        return None
    name = scope[len(TEAM_PREFIX):]
    return name if TEAM_NAME.fullmatch(name) else None


def team_scope(name: str) -> str:
    """The scope of the team ``name`` (a name that follows the rule)."""
    if not TEAM_NAME.fullmatch(name):
        raise ValueError("not a team name")
    return TEAM_PREFIX + name
