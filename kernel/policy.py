"""Policy rules, the ``policy.toml`` format, and the policy hash.

Owns: the ``Rule`` and ``Policy`` records, ``load_policy`` (the only parser of
``policy.toml``), the validation table of match fields, and the canonical
encoding that the policy hash is taken over.

File format
-----------
A policy is a TOML document holding only an array of ``[[rule]]`` tables::

    [[rule]]
    id = "scratch-writes-free"          # required; [A-Za-z0-9][A-Za-z0-9._:-]{0,63}
    effect = "allow"                    # required; allow | requires_approval | deny
    description = "agents may jot notes in scratch scopes"   # optional text
    capability = "MemoryWrite"          # optional match fields below:
    channel = "agent"                   #   each a string or a non-empty list of
    role = ["main"]                     #   strings (any of them matches);
    target = "memory"                   #   an absent field matches anything
    scope = "scratch:*"                 # fnmatch-style glob(s), case-sensitive
    action = ["add", "replace"]
    type = "fact"

Match fields and their values: ``capability`` (``MemoryRead``,
``MemoryWrite``, ``MemoryExternalize``, ``NetworkAccess``,
``GovernanceDecide``, ``ConsentManage``), ``channel`` (``agent``,
``control``), ``role`` (``main``, ``subagent``, ``operator``), ``target``
(``memory``, ``user``), ``scope`` (globs: ``*``, ``?``, ``[seq]``, ``[!seq]``),
``action`` (``add``, ``replace``, ``supersede``, ``archive``, ``remove``,
``context``, ``list``, ``read``, ``receipt``, ``extract``), ``type`` (``preference``,
``procedure``, ``fact``, ``lesson``). A rule matches when every field it sets
matches. A ``type`` field never matches a resource that carries no type.

Invariants:
- ``load_policy`` either returns a policy it understood completely or raises
  ``PolicyError`` naming the rule (``rule 'id'``, or ``rule #n`` counting
  ``[[rule]]`` tables from 1 when the id itself is missing or bad) and the
  field; unknown keys, wrong types, unknown values, empty lists, bad globs,
  duplicate ids and invalid TOML are all refused — the daemon never runs on a
  partly understood policy;
- the policy hash (``pol_`` + 64 hex BLAKE3) is taken over a canonical
  encoding of the parsed rules, so comments, whitespace, key order, and
  ``"x"`` versus ``["x"]`` do not change it, while any change in meaning —
  rule order included, since decisions list rule ids in policy order — does;
- a ``Rule``'s match values are stored sorted and deduplicated.
"""

from __future__ import annotations

import fnmatch
import re
import tomllib
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any

import blake3
import msgspec

from memoryd.kernel.capability import (
    ACTIONS,
    TARGETS,
    Capability,
    Channel,
    Effect,
    Resource,
    Role,
    Subject,
)
from memoryd.kernel.retention import EntryType

__all__ = [
    "EMPTY_POLICY",
    "MATCH_FIELDS",
    "MAX_RULES",
    "Policy",
    "PolicyError",
    "Rule",
    "load_policy",
    "policy_hash",
]

# decide() is linear in the rules and runs on every governed call; a bound
# keeps a runaway generated file from turning into a slow daemon.
MAX_RULES = 1000

# Match field -> the values it accepts (None: a glob, checked by _check_glob).
# Adding a match field is adding a row here and a line in Rule.matches.
MATCH_FIELDS: Mapping[str, frozenset[str] | None] = MappingProxyType({
    "capability": frozenset(c.value for c in Capability),
    "channel": frozenset(c.value for c in Channel),
    "role": frozenset(r.value for r in Role),
    "target": TARGETS,
    "scope": None,
    "action": ACTIONS,
    "type": frozenset(t.value for t in EntryType),
})
_KNOWN_KEYS = frozenset({"id", "effect", "description"}) | MATCH_FIELDS.keys()
_ID_RE = re.compile(r"[A-Za-z0-9][A-Za-z0-9._:-]{0,63}")
# Domain separation: a policy hash can never equal a hash of anything else.
_HASH_DOMAIN = b"memoryd.policy.v1\x00"
_ENCODER = msgspec.json.Encoder(order="sorted")


class PolicyError(ValueError):
    """A policy that is not understood completely.

    ``rule`` is the rule's label (``'id'`` or ``#n``) or ``None`` for a
    document-level problem; ``field`` names the offending key.
    """

    def __init__(self, message: str, *, rule: str | None = None, field: str | None = None):
        self.rule = rule
        self.field = field
        where = " ".join(
            part for part in (
                f"rule {rule}" if rule is not None else "",
                f"field {field!r}" if field is not None else "",
            ) if part
        )
        super().__init__(f"policy: {where}: {message}" if where else f"policy: {message}")


@dataclass(frozen=True, slots=True)
class Rule:
    """One policy rule. A match field of ``None`` matches anything."""

    id: str
    effect: Effect
    capability: tuple[str, ...] | None = None
    channel: tuple[str, ...] | None = None
    role: tuple[str, ...] | None = None
    target: tuple[str, ...] | None = None
    scope: tuple[str, ...] | None = None
    action: tuple[str, ...] | None = None
    type: tuple[str, ...] | None = None
    description: str = ""

    def matches(self, subject: Subject, capability: Capability, resource: Resource) -> bool:
        """Whether every field this rule sets matches. May raise on a
        malformed rule; ``decide`` turns that into a deny. The enums' values
        are read as ``_value_``, the plain attribute ``.value`` reads through
        a descriptor."""
        return (
            (self.capability is None or capability._value_ in self.capability)
            and (self.channel is None or subject.channel._value_ in self.channel)
            and (self.role is None or subject.role._value_ in self.role)
            and (self.target is None or resource.target in self.target)
            and (self.scope is None
                 or any(fnmatch.fnmatchcase(resource.scope, g) for g in self.scope))
            and (self.action is None or resource.action in self.action)
            and (self.type is None or (resource.type is not None and resource.type in self.type))
        )

    def encode(self) -> dict[str, Any]:
        """The canonical, JSON-able form of this rule (what the hash covers)."""
        out: dict[str, Any] = {
            "id": self.id,
            "effect": self.effect.value,
            "description": self.description,
        }
        for name in MATCH_FIELDS:
            values: tuple[str, ...] | None = getattr(self, name)
            out[name] = None if values is None else list(values)
        return out


def policy_hash(rules: Iterable[Rule]) -> str:
    """``pol_`` + BLAKE3 of the canonical encoding of ``rules`` (in order)."""
    body = _ENCODER.encode([rule.encode() for rule in rules])
    return "pol_" + blake3.blake3(_HASH_DOMAIN + body).hexdigest()


@dataclass(frozen=True, slots=True)
class Policy:
    """An ordered set of rules and the hash that identifies it.

    Build one with ``Policy.build`` or ``load_policy`` so the hash is right.
    """

    rules: tuple[Rule, ...]
    hash: str

    @classmethod
    def build(cls, rules: Iterable[Rule]) -> Policy:
        """A policy of ``rules``; ``PolicyError`` on a duplicate id."""
        rules = tuple(rules)
        if len(rules) > MAX_RULES:
            raise PolicyError(f"more than {MAX_RULES} rules")
        first_seen: dict[str, int] = {}
        for index, rule in enumerate(rules, start=1):
            if rule.id in first_seen:
                raise PolicyError(
                    f"duplicate id (first used by rule #{first_seen[rule.id]})",
                    rule=repr(rule.id), field="id",
                )
            first_seen[rule.id] = index
        return cls(rules=rules, hash=policy_hash(rules))


def _check_glob(pattern: str) -> str | None:
    """Why ``pattern`` is not a usable glob, or ``None`` if it is."""
    if any(ord(ch) < 0x20 or ord(ch) == 0x7F for ch in pattern):
        return "glob contains control characters"
    i, n = 0, len(pattern)
    while i < n:
        if pattern[i] == "[":
            # fnmatch silently treats an unclosed '[' as a literal; in a
            # policy that is almost surely a typo, so refuse it.
            j = i + 1
            if j < n and pattern[j] == "!":
                j += 1
            if j < n and pattern[j] == "]":
                j += 1
            while j < n and pattern[j] != "]":
                j += 1
            if j >= n:
                return "glob has an unclosed '['"
            i = j
        i += 1
    try:
        re.compile(fnmatch.translate(pattern))
    except re.error:
        return "glob does not compile"
    return None


def _match_values(raw: object, field: str, label: str) -> tuple[str, ...]:
    values = [raw] if isinstance(raw, str) else raw
    if not isinstance(values, list):
        raise PolicyError("must be a string or a list of strings", rule=label, field=field)
    if not values:
        # An empty any-of matches nothing: a rule that can never apply is a
        # misunderstanding, not a rule.
        raise PolicyError("must not be an empty list", rule=label, field=field)
    allowed = MATCH_FIELDS[field]
    for value in values:
        if not isinstance(value, str):
            raise PolicyError("must be a string or a list of strings", rule=label, field=field)
        if not value:
            raise PolicyError("must not be an empty string", rule=label, field=field)
        if allowed is None:
            problem = _check_glob(value)
            if problem is not None:
                raise PolicyError(f"{problem}: {value!r}", rule=label, field=field)
        elif value not in allowed:
            raise PolicyError(
                f"unknown value {value!r}; expected one of {', '.join(sorted(allowed))}",
                rule=label, field=field,
            )
    return tuple(sorted(set(values)))


def _parse_rule(table: object, index: int) -> Rule:
    if not isinstance(table, Mapping):
        raise PolicyError("must be a table", rule=f"#{index}")
    raw_id = table.get("id")
    # Name the rule by its id when it has a usable one, else by position.
    label = repr(raw_id) if isinstance(raw_id, str) and _ID_RE.fullmatch(raw_id) else f"#{index}"
    if raw_id is None:
        raise PolicyError("missing", rule=label, field="id")
    if not isinstance(raw_id, str) or not _ID_RE.fullmatch(raw_id):
        raise PolicyError(
            "must be 1-64 characters of [A-Za-z0-9._:-] starting with a letter or digit",
            rule=label, field="id",
        )
    for key in sorted(table.keys()):
        if key not in _KNOWN_KEYS:
            raise PolicyError("unknown key", rule=label, field=str(key))
    raw_effect = table.get("effect")
    if raw_effect is None:
        raise PolicyError("missing", rule=label, field="effect")
    if not isinstance(raw_effect, str) or raw_effect not in {e.value for e in Effect}:
        raise PolicyError(
            "must be one of allow, requires_approval, deny", rule=label, field="effect"
        )
    description = table.get("description", "")
    if not isinstance(description, str):
        raise PolicyError("must be a string", rule=label, field="description")
    fields: dict[str, tuple[str, ...]] = {
        name: _match_values(table[name], name, label) for name in MATCH_FIELDS if name in table
    }
    return Rule(
        id=raw_id,
        effect=Effect(raw_effect),
        description=description,
        capability=fields.get("capability"),
        channel=fields.get("channel"),
        role=fields.get("role"),
        target=fields.get("target"),
        scope=fields.get("scope"),
        action=fields.get("action"),
        type=fields.get("type"),
    )


def load_policy(text: str) -> Policy:
    """Parse and validate ``policy.toml`` text; ``PolicyError`` on anything
    not understood. An empty document is the empty policy (defaults only)."""
    if not isinstance(text, str):
        raise PolicyError("policy text must be a str")
    try:
        document = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        # tomllib's message holds the line and column, not file content.
        raise PolicyError(f"not valid TOML ({exc})") from None
    except RecursionError:
        # tomllib recurses once per nested array or table: a file nested a
        # thousand levels deep exhausts the stack. Refused like any bad TOML,
        # so a reload keeps the old policy and the daemon keeps serving.
        raise PolicyError("not valid TOML (arrays or tables nested too deep)") from None
    for key in sorted(document):
        if key != "rule":
            raise PolicyError("unknown top-level key; only [[rule]] tables are allowed",
                              field=key)
    tables = document.get("rule", [])
    if not isinstance(tables, list):
        raise PolicyError("must be an array of tables ([[rule]])", field="rule")
    if len(tables) > MAX_RULES:
        raise PolicyError(f"more than {MAX_RULES} rules", field="rule")
    return Policy.build(_parse_rule(table, index) for index, table in enumerate(tables, 1))


EMPTY_POLICY: Policy = Policy.build(())
