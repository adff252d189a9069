"""Owners and tokens by the operator's names for them, in human output.

Owns: the map from ``own_…`` owner ids and ``tok_…`` token ids to the labels
the operator gave tokens (``memctl token issue --label``), read from
``token.list`` on control.sock, and the rewriting of a result's owner ids
into ``own_5c1e… (tokens: LABEL)`` and token ids into ``token:LABEL (tok_…)``
before it is rendered.

Invariants:
- only human output is rewritten: ``--json`` prints the daemon's answer as
  it came;
- only values that are exactly an owner or token id the map knows change;
  nothing else in a result is touched;
- labels come from control.sock only; the agent channel never sees them.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Final

from memoryd.memctl.requests import Rpc

__all__ = ["Labels", "labelled", "labels_from", "load_labels"]

_SHOWN: Final = 8  # characters of an owner id's hash shown beside its label


@dataclass(frozen=True)
class Labels:
    owners: dict[str, list[str]] = field(default_factory=dict)
    tokens: dict[str, str] = field(default_factory=dict)

    def owner(self, owner: str) -> str:
        names = self.owners.get(owner)
        if not names:
            return owner
        short = owner[: len("own_") + _SHOWN] + "…" if len(owner) > len("own_") + _SHOWN \
            else owner
        # The owner stays the owner: its tokens' labels are shown beside it,
        # never in its place (a label names a token, not a person).
        return f"{short} (tokens: {', '.join(names)})"

    def token(self, token_id: str) -> str:
        label = self.tokens.get(token_id)
        return f"token:{label} ({token_id})" if label else token_id


def load_labels(rpc: Rpc) -> Labels:
    """The operator's labels; none when token.list cannot be read (output
    then shows bare ids)."""
    from memoryd.rpc.client import RpcError

    try:
        result = rpc.call("token.list", {})
    except RpcError:
        return Labels()
    return labels_from(result)


def labels_from(result: Any) -> Labels:
    """The labels in a ``token.list`` answer."""
    items = result.get("items") if isinstance(result, Mapping) else None
    labels = Labels()
    for item in items if isinstance(items, list) else []:
        if not isinstance(item, Mapping) or not isinstance(item.get("label"), str):
            continue
        token_id, owner, label = item.get("token_id"), item.get("owner"), item["label"]
        if isinstance(token_id, str):
            labels.tokens[token_id] = label
        if isinstance(owner, str) and label not in labels.owners.setdefault(owner, []):
            labels.owners[owner].append(label)
    return labels


def labelled(value: Any, labels: Labels, key: str | None = None) -> Any:
    """``value`` with owner and token ids replaced by their labelled form."""
    if isinstance(value, Mapping):
        # An owner id may be a key too (``pending_by_owner``).
        return {labels.owner(k) if isinstance(k, str) and k in labels.owners else k:
                labelled(v, labels, k) for k, v in value.items()}
    if isinstance(value, list):
        return [labelled(v, labels, key) for v in value]
    if isinstance(value, str):
        if value.startswith("own_") and value in labels.owners:
            return labels.owner(value)
        if value.startswith("tok_") and value in labels.tokens and key != "token_id":
            return labels.token(value)
    return value
