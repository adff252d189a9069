"""Consent switches and the per-task method grants derived from them.

Owns: the ``Consent`` record (SPEC §7's three switches), the table of which
agent-channel methods are grant-gated (and which capability each serves), and
``grants_for``, the one function that turns a frozen consent into a task's
``grants``.

Invariants:
- grants are a subset of ``GRANT_GATED_METHODS``;
- no read method without ``read``; ``memory.write`` only with ``contribute``
  (and, for a task that used external tools, also ``learn_from_tools``);
- a subagent never gets ``memory.write``; a subagent whose parent lacks read
  (or whose parent is unknown) gets nothing;
- every switch is a real ``bool``: a truthy string such as ``"false"`` must
  never read as consent, so anything else is refused.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType

from memoryd.kernel.capability import Capability, Role

__all__ = [
    "EXTRACT_GRANT",
    "GRANT_GATED_METHODS",
    "READ_METHODS",
    "UNGATED_METHODS",
    "WRITE_METHODS",
    "Consent",
    "extract_grants",
    "grants_for",
]

# Agent-channel methods that need a grant, and the capability each one asks
# the kernel for. A task may call one of these only if it is in its grants.
GRANT_GATED_METHODS: Mapping[str, Capability] = MappingProxyType({
    "memory.context": Capability.MEMORY_READ,
    "memory.list": Capability.MEMORY_READ,
    "memory.read": Capability.MEMORY_READ,
    # A receipt reveals entry ids and their fate: stored state, so it is a
    # read and needs the read switch like the others.
    "memory.receipt": Capability.MEMORY_READ,
    "memory.write": Capability.MEMORY_WRITE,
})
READ_METHODS: frozenset[str] = frozenset(
    m for m, cap in GRANT_GATED_METHODS.items() if cap is Capability.MEMORY_READ
)
WRITE_METHODS: frozenset[str] = frozenset(
    m for m, cap in GRANT_GATED_METHODS.items() if cap is Capability.MEMORY_WRITE
)
# The grant a ``MemoryExtract`` decision needs (``extract_grants``). Not a
# method: it is never among a task's ``grants``, only the kernel's input when
# a finished task's transcript is submitted.
EXTRACT_GRANT = "transcript.submit"
# Agent-channel methods every task may call; never listed in grants.
# ``memory.actions`` answers only about the caller's own proposals (their
# fate, never their content).
UNGATED_METHODS: frozenset[str] = frozenset(
    {"task.begin", "task.end", "memory.status", "memory.actions"})


@dataclass(frozen=True, slots=True)
class Consent:
    """An owner's three consent switches; all off for a new owner."""

    read: bool = False
    contribute: bool = False
    learn_from_tools: bool = False

    def __post_init__(self) -> None:
        for name in ("read", "contribute", "learn_from_tools"):
            if not isinstance(getattr(self, name), bool):
                raise ValueError(f"consent switch {name} must be a bool")


def grants_for(
    consent: Consent,
    role: Role | str,
    *,
    parent_has_read: bool | None,
    tools_used: bool,
) -> frozenset[str]:
    """The methods a task begun under ``consent`` may call (SPEC §7).

    ``parent_has_read`` matters only for a subagent: whether its parent task's
    grants include the read methods. ``None`` (parent unknown) counts as
    "no": a subagent's read access is borrowed from its parent, and an
    unproven parent lends nothing. Main and operator tasks ignore it.
    """
    role = Role(role)
    if role is Role.SUBAGENT:
        if parent_has_read is not True or not consent.read:
            return frozenset()
        # Read-only: a subagent never writes, whatever consent says.
        return READ_METHODS

    granted: set[str] = set()
    if consent.read:
        granted |= READ_METHODS
    # Tool output is untrusted input; learning from it is a separate opt-in.
    may_write = consent.contribute and (consent.learn_from_tools or not tools_used)
    if may_write:
        granted |= WRITE_METHODS
    return frozenset(granted)


def extract_grants(consent: Consent, role: Role | str,
                   tools_used: bool = False) -> frozenset[str]:
    """The kernel's grants for a ``MemoryExtract`` question: the submission
    grant for a main task (or the operator) of an owner whose ``contribute``
    switch is on, and for a task begun with ``tools_used`` (it used external
    tools: browser, MCP, web search) only with ``learn_from_tools`` on too, as
    for its writes; nothing for a subagent, whatever its parent's consent.
    Otherwise ``learn_from_tools`` decides which turns are read."""
    if Role(role) is Role.SUBAGENT or not consent.contribute:
        return frozenset()
    if tools_used and not consent.learn_from_tools:
        return frozenset()
    return frozenset({EXTRACT_GRANT})
