"""Capabilities, subjects, resources and decisions: the kernel's vocabulary.

Owns: the closed enums of SPEC §4 (``Capability``, ``Channel``, ``Role``,
``Effect``), the restrictiveness order of effects, the ``Subject`` and
``Resource`` a decision is about, the one canonical string form of a resource,
and the ``Decision`` record.

Canonical resource string
-------------------------
::

    {target}/{scope}:{action}[+{type}]:{entry_id}@{expected_revision}:{content_hash}

for example ``memory/project%3Aacme:replace+fact:ent_01J9Z…@3:b3k:9f2a…``.

- ``target`` is ``memory`` or ``user`` (never escaped: it has no reserved
  characters).
- ``scope``, ``action``, ``type`` and ``entry_id`` are *escaped*: every
  character other than ASCII letters, digits and ``- . _ ~`` is written as
  the ``%XX`` escapes (upper-case hex) of its UTF-8 bytes. So ``:``, ``/``,
  ``@``, ``+``, ``%``, spaces and control characters never appear raw in them.
- ``content_hash`` is the last field and is escaped the same way except that
  ``:`` stays as it is (keyed hashes read ``b3k:<hex>``); being last, everything
  after the fourth separator belongs to it.
- ``type`` is present (after a ``+``) exactly when the resource has one.
- An absent ``entry_id``, ``expected_revision`` or ``content_hash`` is written
  ``-``. A value that *is* the single character ``-`` is written ``%2D`` so it
  cannot be mistaken for "absent".
- ``expected_revision`` is a decimal integer without leading zeros.

Invariants:
- ``Resource.parse(r.canonical()) == r`` for every valid resource, and
  ``parse`` accepts only canonical strings (it re-renders what it parsed and
  refuses any difference: lower-case escapes, needless escapes, leading zeros);
  together these make ``canonical`` injective — two different resources never
  share a string;
- the canonical string is what is decided, approved, audited and re-checked at
  apply time, so every field that can change a decision (``type`` included)
  is in it;
- ``Effect`` compares by restrictiveness (``deny > requires_approval >
  allow``), never alphabetically.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from enum import StrEnum
from types import MappingProxyType
from typing import Literal

from memoryd.kernel.retention import EntryType

__all__ = [
    "ACTIONS",
    "EXTRACT_ACTION",
    "READ_ACTIONS",
    "TARGETS",
    "WRITE_ACTIONS",
    "Capability",
    "Channel",
    "Decision",
    "Effect",
    "Resource",
    "Role",
    "Subject",
    "Target",
    "most_restrictive",
]


class Capability(StrEnum):
    MEMORY_READ = "MemoryRead"
    MEMORY_WRITE = "MemoryWrite"
    MEMORY_EXTERNALIZE = "MemoryExternalize"
    NETWORK_ACCESS = "NetworkAccess"
    GOVERNANCE_DECIDE = "GovernanceDecide"
    CONSENT_MANAGE = "ConsentManage"
    # Handing a finished task's transcript to the extraction queue.
    MEMORY_EXTRACT = "MemoryExtract"


class Channel(StrEnum):
    AGENT = "agent"
    CONTROL = "control"


class Role(StrEnum):
    MAIN = "main"
    SUBAGENT = "subagent"
    OPERATOR = "operator"


# Restrictiveness rank of each effect; higher is more restrictive.
_RANK: Mapping[str, int] = MappingProxyType({"allow": 0, "requires_approval": 1, "deny": 2})


class Effect(StrEnum):
    """A decision's effect, totally ordered by restrictiveness.

    Comparisons use the rank, not the string: alphabetically
    ``"requires_approval" > "deny"``, which is exactly the wrong answer, so
    comparing with anything that is not an ``Effect`` is a ``TypeError``.
    """

    ALLOW = "allow"
    REQUIRES_APPROVAL = "requires_approval"
    DENY = "deny"

    @property
    def rank(self) -> int:
        return _RANK[self._value_]

    def _other_rank(self, other: object) -> int:
        if not isinstance(other, Effect):
            raise TypeError(f"cannot order Effect against {type(other).__name__}")
        return other.rank

    def __lt__(self, other: object) -> bool:
        return self.rank < self._other_rank(other)

    def __le__(self, other: object) -> bool:
        return self.rank <= self._other_rank(other)

    def __gt__(self, other: object) -> bool:
        return self.rank > self._other_rank(other)

    def __ge__(self, other: object) -> bool:
        return self.rank >= self._other_rank(other)


def most_restrictive(effects: Iterable[Effect]) -> Effect:
    """The most restrictive of ``effects``.

    An empty collection gives ``DENY``: "nothing objected" is not evidence
    that anything was checked (a batch with no decided operations, say), so
    it must not read as permission.
    """
    best: Effect | None = None
    for effect in effects:
        if type(effect) is not Effect:
            effect = Effect(effect)
        if best is None or effect > best:
            best = effect
    return Effect.DENY if best is None else best


Target = Literal["memory", "user"]
TARGETS: frozenset[str] = frozenset({"memory", "user"})

# Actions a resource of a governed change carries (SPEC §5); a batch is
# decided per operation, so it is not an action of its own.
WRITE_ACTIONS: frozenset[str] = frozenset({"add", "replace", "supersede", "archive", "remove"})
# Actions of reads, named after the method that reads (memory.<action>).
READ_ACTIONS: frozenset[str] = frozenset({"context", "journal", "list", "read", "receipt"})
# A finished task's transcript submitted for extraction (``MemoryExtract``), or
# sent to an extractor's endpoint (``MemoryExternalize``).
EXTRACT_ACTION = "extract"
# Every action a policy rule may name; a rule naming anything else is refused
# at load time (it could never match, which is a misunderstanding, not a rule).
ACTIONS: frozenset[str] = WRITE_ACTIONS | READ_ACTIONS | {EXTRACT_ACTION}


@dataclass(frozen=True, slots=True)
class Subject:
    """Who asks: the channel the call came in on, the task's role, the owner
    (an opaque ``own_…`` id) and the task, if any."""

    channel: Channel
    role: Role
    owner: str
    task_id: str | None = None

    def __post_init__(self) -> None:
        # Normalise plain strings to the enums (and refuse unknown ones) so
        # equality and hashing never depend on how the caller spelled them.
        object.__setattr__(self, "channel", Channel(self.channel))
        object.__setattr__(self, "role", Role(self.role))
        if not isinstance(self.owner, str) or not self.owner:
            raise ValueError("owner must be a non-empty string")
        if self.task_id is not None and (not isinstance(self.task_id, str) or not self.task_id):
            raise ValueError("task_id must be a non-empty string or None")


# Characters written raw in escaped fields; everything else becomes %XX.
_UNRESERVED = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")
_HASH_RAW = _UNRESERVED | {":"}
_ABSENT = "-"
# Each raw set's complement, as the pattern ``_escape`` replaces.
_NOT_RAW: Mapping[frozenset[str], re.Pattern[str]] = MappingProxyType({
    _UNRESERVED: re.compile(r"[^A-Za-z0-9._~-]"),
    _HASH_RAW: re.compile(r"[^A-Za-z0-9._~:-]"),
})
# Escaped text: characters other than '%', or '%' and two upper-case hex digits.
_ESCAPED = re.compile(r"(?:[^%]|%[0-9A-F]{2})*")


def _escape(value: str, raw: frozenset[str]) -> str:
    if value == _ABSENT:
        return "%2D"
    return _NOT_RAW[raw].sub(_percent, value)


def _percent(found: re.Match[str]) -> str:
    return "".join(f"%{byte:02X}" for byte in found.group().encode("utf-8"))


def _unescape(text: str) -> str:
    if "%" not in text:
        # Nothing escaped; ``Resource`` still refuses text with no UTF-8 form.
        return text
    if _ESCAPED.fullmatch(text) is None:
        raise ValueError("bad %-escape in resource string")
    # Every '%' starts a checked two-digit escape. Strict UTF-8 both ways:
    # text with no UTF-8 form or escapes that do not decode raise (the
    # Unicode errors are ValueErrors).
    first, *rest = text.encode("utf-8").split(b"%")
    return b"".join([first, *(bytes.fromhex(part[:2].decode("ascii")) + part[2:]
                              for part in rest)]).decode("utf-8")


def _optional(text: str) -> str | None:
    return None if text == _ABSENT else _unescape(text)


def _check_text(name: str, value: object, *, optional: bool) -> None:
    if value is None and optional:
        return
    if not isinstance(value, str) or not value:
        raise ValueError(f"{name} must be a non-empty string")
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        # Lone surrogates have no UTF-8 form, hence no canonical string.
        raise ValueError(f"{name} is not valid Unicode text") from None



@dataclass(frozen=True, slots=True)
class Resource:
    """What a decision is about; see the module docstring for its string form.

    ``content_hash`` is the *keyed* hash of the proposed content (never the
    content). ``type`` is the entry type an operation writes or touches; the
    daemon sets it for every write so that policy rules on ``type`` apply.
    """

    target: Target
    scope: str
    action: str
    entry_id: str | None
    expected_revision: int | None
    content_hash: str | None
    type: str | None = None

    def __post_init__(self) -> None:
        if self.target not in TARGETS:
            raise ValueError("target must be 'memory' or 'user'")
        _check_text("scope", self.scope, optional=False)
        _check_text("action", self.action, optional=False)
        _check_text("entry_id", self.entry_id, optional=True)
        _check_text("content_hash", self.content_hash, optional=True)
        rev = self.expected_revision
        if rev is not None and (isinstance(rev, bool) or not isinstance(rev, int) or rev < 0):
            raise ValueError("expected_revision must be a non-negative integer or None")
        if self.type is not None:
            # Plain str, not the enum: StrEnum hashes by member name, so a
            # stored enum would break hash/eq agreement with an equal str.
            object.__setattr__(self, "type", EntryType(self.type).value)

    def canonical(self) -> str:
        """The one canonical string of this resource (module docstring)."""
        action = _escape(self.action, _UNRESERVED)
        if self.type is not None:
            action += "+" + _escape(self.type, _UNRESERVED)
        entry = _ABSENT if self.entry_id is None else _escape(self.entry_id, _UNRESERVED)
        rev = _ABSENT if self.expected_revision is None else str(self.expected_revision)
        digest = _ABSENT if self.content_hash is None else _escape(self.content_hash, _HASH_RAW)
        return f"{self.target}/{_escape(self.scope, _UNRESERVED)}:{action}:{entry}@{rev}:{digest}"

    def __str__(self) -> str:
        return self.canonical()

    @staticmethod
    def is_canonical(text: object) -> bool:
        """Whether ``text`` is a canonical resource string (``parse`` accepts it)."""
        try:
            Resource.parse(text)  # type: ignore[arg-type]  # a non-str is refused there
        except ValueError:
            return False
        return True

    @classmethod
    def parse(cls, text: str) -> Resource:
        """The resource whose canonical string is ``text``.

        ``ValueError`` for anything that is not exactly a canonical string.
        """
        if not isinstance(text, str):
            raise ValueError("resource string must be a str")
        target, slash, rest = text.partition("/")
        if not slash or target not in TARGETS:
            raise ValueError("resource string must start with 'memory/' or 'user/'")
        parts = rest.split(":", 3)
        if len(parts) != 4:
            raise ValueError("resource string has too few ':' separated fields")
        scope_s, action_s, operand_s, digest_s = parts
        action_s, plus, type_s = action_s.partition("+")
        entry_s, at, rev_s = operand_s.partition("@")
        if not at:
            raise ValueError("resource string lacks '@' between entry id and revision")
        if rev_s == _ABSENT:
            rev: int | None = None
        elif rev_s.isascii() and rev_s.isdigit():
            rev = int(rev_s)
        else:
            raise ValueError("expected revision must be '-' or a decimal integer")
        resource = cls(
            target="memory" if target == "memory" else "user",
            scope=_unescape(scope_s),
            action=_unescape(action_s),
            entry_id=_optional(entry_s),
            expected_revision=rev,
            content_hash=_optional(digest_s),
            type=_unescape(type_s) if plus else None,
        )
        # Accept only the canonical spelling, so string equality and resource
        # equality are the same thing (approval re-checks compare strings).
        if resource.canonical() != text:
            raise ValueError("resource string is not in canonical form")
        return resource


@dataclass(frozen=True, slots=True)
class Decision:
    """The kernel's answer.

    ``rule_ids`` are the ids of every policy rule that matched (in policy
    order); ``explicit`` is true when the effect came from those rules and
    false when it came from a built-in default or always-on rule. ``reason``
    is a fixed-vocabulary sentence naming capabilities, channels and rule ids
    only — never memory text. ``always_on`` is the id of the always-on rule
    that decided (``None`` when none did), so callers can tell a consent or
    channel refusal from a policy one without reading ``reason``.
    """

    decision_id: str
    effect: Effect
    rule_ids: tuple[str, ...]
    policy_hash: str
    explicit: bool
    reason: str
    always_on: str | None = None
