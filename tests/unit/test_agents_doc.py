"""The client snippets of docs/agents.md: each parses, each names ``--scope``,
and each one's arguments are accepted by memctl's and the bridge's parsers."""

from __future__ import annotations

import json
import re
import shlex
from pathlib import Path
from typing import Any

import pytest

from memoryd.memctl.cli import parse

DOC = Path(__file__).resolve().parents[2] / "docs" / "agents.md"
SNIPPET = re.compile(
    r"<!-- client: (?P<client>[a-z-]+) -->\n```(?P<lang>\w+)\n(?P<body>.*?)```", re.DOTALL
)
CLIENTS = ("claude-desktop", "claude-code", "cursor", "vscode")


def snippets() -> dict[str, tuple[str, str]]:
    found = {m["client"]: (m["lang"], m["body"]) for m in SNIPPET.finditer(DOC.read_text())}
    assert set(found) == set(CLIENTS)
    return found


def _server(client: str) -> tuple[str, list[str], dict[str, Any]]:
    lang, body = snippets()[client]
    if lang == "json":
        config = json.loads(body)
        servers = config["servers" if client == "vscode" else "mcpServers"]
        server = servers["memoryd"]
        if client == "vscode":
            assert server["type"] == "stdio"
        return server["command"], list(server["args"]), dict(server.get("env", {}))
    assert lang == "sh"
    words = shlex.split(body.replace("\\\n", " "))
    assert words[:3] == ["claude", "mcp", "add"]
    cut = words.index("--")
    env = dict(w.split("=", 1) for i, w in enumerate(words[:cut]) if words[i - 1] == "--env")
    assert words[cut - 1] == "memoryd"
    return words[cut + 1], words[cut + 2 :], env


@pytest.mark.parametrize("client", CLIENTS)
def test_each_snippet_sets_the_scope_and_parses(client: str) -> None:
    command, args, env = _server(client)
    assert command.endswith("/memctl")
    assert set(env) == {"MEMORYD_AGENT_TOKEN"}
    parsed = parse(args)
    assert parsed.key == "mcp"
    pytest.importorskip("mcp")
    from memoryd.memctl.mcp_bridge import parse_args

    options = parse_args(parsed.bridge_args, home=parsed.home)
    assert options.scopes is not None and all(options.scopes)
    assert parsed.home is not None and str(options.socket).startswith(parsed.home)
