"""Text that leaves the host, and text that comes back from outside.

Owns the two rules the daemon applies at its network edge, both over the
content scanner (kernel/scan.py), never a second set of patterns:

- ``withheld(text)``: why a text must not be sent (a credential in it), or
  None. The caller skips the call and reports the reason; it never sends a
  redacted copy (the rules that caught one part of a credential may miss
  the part beside it, and a redaction still tells the receiver the shape).
- ``shown(text)``: external text as it may be shown to an agent: every
  character the scanner's invisible-character rules find (zero-width,
  bidirectional controls, Unicode TAG characters, …) written as a visible
  escape (``\\u200b``, ``\\U000e0069``), so nothing hidden reaches a prompt;
  the finding still flags the item.

Invariants: nothing here logs, stores or returns the text it refuses; a
reason is a fixed code.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from memoryd.kernel.scan import Finding

__all__ = ["INTENT_WITHHELD", "shown", "withheld"]

# The reason ``coverage.external`` names when the intent was not sent.
INTENT_WITHHELD = "intent_secret_detected"


def withheld(text: str) -> str | None:
    """``INTENT_WITHHELD`` when ``text`` holds anything the scanner takes for
    a credential (a finding flagged only for review included), else None."""
    # Imported here: the scanner loads after the start (daemon/cli.py).
    from memoryd.kernel.scan import scan

    if any(f.category == "secret" for f in scan(text)):
        return INTENT_WITHHELD
    return None


def _escape(ch: str) -> str:
    code = ord(ch)
    return f"\\u{code:04x}" if code <= 0xFFFF else f"\\U{code:08x}"


def shown(text: str, findings: tuple[Finding, ...] | None = None) -> str:
    """``text`` with the characters of its invisible-character findings
    escaped. ``findings`` are ``scan(text)``'s when the caller has them."""
    if findings is None:
        # Imported here: the scanner loads after the start (daemon/cli.py).
        from memoryd.kernel.scan import scan

        findings = scan(text)
    spans = sorted((f.start, f.end) for f in findings
                   if f.category == "invisible" and f.encoding is None)
    if not spans:
        return text
    out: list[str] = []
    last = 0
    for start, end in spans:
        start = max(start, last)
        out.append(text[last:start])
        out.extend(_escape(ch) for ch in text[start:end])
        last = max(last, end)
    out.append(text[last:])
    return "".join(out)
