"""memctl and the MCP bridge show every non-printing or non-spacing character
of stored text as an escape, so what a person reads is what is stored."""

from __future__ import annotations

import pytest

from memoryd.memctl import mcp_tools
from memoryd.memctl.format import clean


@pytest.mark.parametrize(
    ("text", "shown"),
    [
        ("tabs\U000e0139\U000e0157 over", "tabs\\U000e0139\\U000e0157 over"),
        ("tabs\ufe01 over", "tabs\\ufe01 over"),
        ("a\u3164b", "a\\u3164b"),
        ("a\u115fb", "a\\u115fb"),
        ("a\u1160b", "a\\u1160b"),
        ("a\uffa0b", "a\\uffa0b"),
        ("a\u2800b", "a\\u2800b"),
        ("a\u034fb", "a\\u034fb"),
        ("a\u17b4b", "a\\u17b4b"),
        ("a\u180bb", "a\\u180bb"),
        ("a\u200bb", "a\\u200bb"),
        ("I\u0301gnore", "I\\u0301gnore"),
        ("x\x1b[31m", "x\\x1b[31m"),
        ("a\ue000b", "a\\ue000b"),  # private use
    ],
)
def test_hidden_characters_are_escaped(text: str, shown: str) -> None:
    assert clean(text) == shown


@pytest.mark.parametrize(
    "text", ["plain text", "中文与日本語のテキスト", "हिन्दी", "café", "한국어", "emoji 👍"]
)
def test_visible_text_is_left_as_it_is(text: str) -> None:
    assert clean(text) == text


def test_the_mcp_bridge_escapes_what_it_shows() -> None:
    entry = {
        "id": "ent_1",
        "title": "Tabs\u3164",
        "body": "x\U000e0139y",
        "revision": 1,
        "status": "active",
        "type": "fact",
        "scope": "default",
    }
    shown = mcp_tools.render_read({"entries": [entry]})
    assert "\u3164" not in shown and "\U000e0139" not in shown
    assert "\\u3164" in shown and "\\U000e0139" in shown
