"""The pure capability kernel: decisions, policy, resources, grants, retention.

Nothing in this package does I/O or imports another memoryd layer.
"""

from memoryd.kernel.capability import (
    Capability,
    Channel,
    Decision,
    Effect,
    Resource,
    Role,
    Subject,
    most_restrictive,
)
from memoryd.kernel.decide import decide
from memoryd.kernel.grants import GRANT_GATED_METHODS, Consent, grants_for
from memoryd.kernel.policy import EMPTY_POLICY, Policy, PolicyError, Rule, load_policy
from memoryd.kernel.retention import DEFAULT_TTL_DAYS, EntryStatus, EntryType, expires_at

__all__ = [
    "DEFAULT_TTL_DAYS",
    "EMPTY_POLICY",
    "GRANT_GATED_METHODS",
    "Capability",
    "Channel",
    "Consent",
    "Decision",
    "Effect",
    "EntryStatus",
    "EntryType",
    "Policy",
    "PolicyError",
    "Resource",
    "Role",
    "Rule",
    "Subject",
    "decide",
    "expires_at",
    "grants_for",
    "load_policy",
    "most_restrictive",
]
