"""Consent switches and the grants a task gets from them (SPEC §7)."""

from __future__ import annotations

import itertools

import pytest

from memoryd.kernel.capability import Capability, Role
from memoryd.kernel.grants import (
    GRANT_GATED_METHODS,
    READ_METHODS,
    UNGATED_METHODS,
    WRITE_METHODS,
    Consent,
    grants_for,
)

READ = frozenset({"memory.context", "memory.list", "memory.read", "memory.receipt"})
WRITE = frozenset({"memory.write"})
NONE: frozenset[str] = frozenset()


def test_gated_method_table() -> None:
    assert GRANT_GATED_METHODS == {
        "memory.context": Capability.MEMORY_READ,
        "memory.list": Capability.MEMORY_READ,
        "memory.read": Capability.MEMORY_READ,
        "memory.receipt": Capability.MEMORY_READ,
        "memory.write": Capability.MEMORY_WRITE,
    }
    assert READ_METHODS == READ
    assert WRITE_METHODS == WRITE
    assert "memory.status" in UNGATED_METHODS
    assert not UNGATED_METHODS & GRANT_GATED_METHODS.keys()


def test_new_owner_consent_is_all_off() -> None:
    assert Consent() == Consent(read=False, contribute=False, learn_from_tools=False)
    assert grants_for(Consent(), "main", parent_has_read=None, tools_used=False) == NONE


@pytest.mark.parametrize(
    ("read", "contribute", "learn", "role", "parent_has_read", "tools_used", "expected"),
    [
        # main: read switch gives the read methods, contribute gives write
        (True, False, False, "main", None, False, READ),
        (False, True, False, "main", None, False, WRITE),
        (True, True, False, "main", None, False, READ | WRITE),
        (False, False, True, "main", None, False, NONE),  # learn alone means nothing
        # tools used: write needs learn_from_tools too
        (True, True, False, "main", None, True, READ),
        (True, True, True, "main", None, True, READ | WRITE),
        (False, True, True, "main", None, True, WRITE),
        (False, False, True, "main", None, True, NONE),
        # main ignores parent_has_read
        (True, True, False, "main", False, False, READ | WRITE),
        # operator tasks follow the same consent
        (True, True, False, "operator", None, False, READ | WRITE),
        (False, False, False, "operator", None, False, NONE),
        # subagent: read-only, and only when its parent can read
        (True, True, True, "subagent", True, False, READ),
        (True, True, True, "subagent", True, True, READ),
        (True, True, True, "subagent", False, False, NONE),
        (True, True, True, "subagent", None, False, NONE),  # unknown parent lends nothing
        (False, True, True, "subagent", True, False, NONE),
        (False, True, False, "subagent", True, False, NONE),
    ],
)
def test_grants_table(
    read: bool,
    contribute: bool,
    learn: bool,
    role: str,
    parent_has_read: bool | None,
    tools_used: bool,
    expected: frozenset[str],
) -> None:
    consent = Consent(read=read, contribute=contribute, learn_from_tools=learn)
    got = grants_for(consent, role, parent_has_read=parent_has_read, tools_used=tools_used)
    assert got == expected
    assert (
        grants_for(consent, Role(role), parent_has_read=parent_has_read, tools_used=tools_used)
        == expected
    )


ALL_CASES = list(
    itertools.product(
        [False, True],
        [False, True],
        [False, True],
        list(Role),
        [None, False, True],
        [False, True],
    )
)


@pytest.mark.parametrize(
    ("read", "contribute", "learn", "role", "parent_has_read", "tools_used"), ALL_CASES
)
def test_grant_invariants_hold_for_every_combination(
    read: bool,
    contribute: bool,
    learn: bool,
    role: Role,
    parent_has_read: bool | None,
    tools_used: bool,
) -> None:
    consent = Consent(read=read, contribute=contribute, learn_from_tools=learn)
    got = grants_for(consent, role, parent_has_read=parent_has_read, tools_used=tools_used)
    assert got <= GRANT_GATED_METHODS.keys()
    # Reads come as a whole set or not at all.
    assert got & READ in (NONE, READ)
    if not read:
        assert not got & READ
    if not contribute:
        assert "memory.write" not in got
    if tools_used and not learn:
        assert "memory.write" not in got
    if role is Role.SUBAGENT:
        assert "memory.write" not in got
        if parent_has_read is not True:
            assert got == NONE


@pytest.mark.parametrize(
    "kw",
    [{"read": "false"}, {"contribute": 1}, {"learn_from_tools": None}],
)
def test_consent_refuses_non_bool_switches(kw: dict[str, object]) -> None:
    with pytest.raises(ValueError, match="must be a bool"):
        Consent(**kw)  # type: ignore[arg-type]


def test_grants_refuse_unknown_role() -> None:
    with pytest.raises(ValueError, match="admin"):
        grants_for(Consent(read=True), "admin", parent_has_read=None, tools_used=False)
