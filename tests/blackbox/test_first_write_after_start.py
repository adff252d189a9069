"""The first writes after a start are scanned in full.

A start does not build the content scanner: it is imported on a thread of
its own once the sockets answer (daemon/cli.py, ``load_scanner_soon``), and a
write that comes before that import has finished waits for it. These writes
come as soon as ``memory.status`` answers, while the table is being built.
"""

from __future__ import annotations

from pathlib import Path

from tests.harness import GITHUB_TOKEN, Daemon, entry, expect


def test_a_secret_written_as_the_daemon_starts_is_refused(home: Path) -> None:
    d = Daemon(home).start()
    try:
        with d.control() as c:
            err = expect(
                -32004,
                "secret_detected",
                c.call,
                "memory.write",
                {"action": "add", "scope": "default", "entry": entry("Key", GITHUB_TOKEN)},
            )
            assert {f["rule_id"] for f in err.data["details"]["findings"]} == {
                "secret.github_classic_token"
            }
            clean = c.call(
                "memory.write",
                {"action": "add", "scope": "default", "entry": entry("Note", "tabs, not spaces")},
            )
            assert clean["outcome"] == "applied"
    finally:
        d.stop()
