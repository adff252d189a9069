"""What memoryd's log tells the operator at start: where its home and
sockets are (the operator's own paths), in JSON lines for a collector and in
the console format on a terminal."""

from __future__ import annotations

import json
import os
import pty
import select
import signal
import subprocess
import time

from tests.harness import MEMORYD, REPO, running, short_tempdir


def test_the_ready_line_names_the_home_and_both_sockets() -> None:
    with running() as d:
        ready = [
            json.loads(line)
            for line in d.log().splitlines()
            if line.startswith("{") and '"ready"' in line
        ]
        assert len(ready) == 1
        line = ready[0]
        assert line["home"] == str(d.home)
        assert line["agent_socket"] == str(d.agent_path)
        assert line["control_socket"] == str(d.control_path)


def test_on_a_terminal_the_log_is_in_the_console_format() -> None:
    home = short_tempdir() / "h"
    env = {k: v for k, v in os.environ.items() if not k.startswith("MEMORYD_")}
    env.update(PYTHONPATH=str(REPO), MEMORYD_HOME=str(home))
    primary, secondary = pty.openpty()
    proc = subprocess.Popen(
        [*MEMORYD, "serve", "--home", str(home)],
        env=env,
        cwd=REPO,
        stdin=subprocess.DEVNULL,
        stdout=secondary,
        stderr=secondary,
    )
    os.close(secondary)
    seen = b""
    try:
        deadline = time.monotonic() + 20
        while b"ready" not in seen and time.monotonic() < deadline:
            readable, _, _ = select.select([primary], [], [], 0.5)
            if readable:
                seen += os.read(primary, 4096)
        assert b"ready" in seen, seen
    finally:
        proc.send_signal(signal.SIGTERM)
        proc.wait(20)
        os.close(primary)
    text = seen.decode("utf-8", "replace")
    ready = next(line for line in text.splitlines() if "ready" in line)
    assert not ready.lstrip().startswith("{")  # not a JSON line
    assert str(home) in ready
