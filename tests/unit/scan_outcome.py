"""What a write of one note would come to, for the scanner's set-based tests."""

from __future__ import annotations

from memoryd.kernel.scan import verdict_fields


def outcome(text: str) -> str:
    """The refusal's code, ``flagged`` (stored for review) or ``stored``, for
    a note titled "note" whose body is ``text``."""
    refused, review = verdict_fields([("title", "note"), ("body", text)], max_bytes=100_000)
    if refused is not None:
        return refused.code
    return "flagged" if review else "stored"
