"""SPEC §2 process lifecycle, run as an operator would: one daemon per home,
stale sockets, paths in the way, graceful stops, the config gate, the CLIs.

Every daemon here is a real ``memoryd serve`` child process on a short
temporary home (``tests/harness.py``).
"""

from __future__ import annotations

import json
import os
import secrets
import signal
import socket
import stat
import subprocess
import time
from pathlib import Path
from typing import Any

import pytest

from tests.harness import MEMORYD, REPO, Daemon, backend, enable_consent, running


def _serve(home: Path, *args: str, timeout: float = 20) -> subprocess.CompletedProcess[str]:
    """Run a ``memoryd serve`` expected to exit by itself (a refused start)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("MEMORYD_")}
    env["PYTHONPATH"] = str(REPO)
    return subprocess.run(
        [*MEMORYD, "serve", "--home", str(home), *args],
        capture_output=True,
        text=True,
        env=env,
        cwd=REPO,
        timeout=timeout,
        check=False,
    )


def _status(d: Daemon) -> dict[str, Any]:
    with d.control(timeout=10) as c:
        result: dict[str, Any] = c.call("memory.status", {})
    return result


def _is_socket(path: Path) -> bool:
    return stat.S_ISSOCK(path.lstat().st_mode)


# --- one daemon per home ------------------------------------------------------------


def test_a_second_serve_on_the_same_home_is_refused_and_the_first_keeps_serving(
    daemon: Daemon,
) -> None:
    second = _serve(daemon.home)
    assert second.returncode != 0
    assert "already serving" in second.stderr
    assert second.stderr.count("\n") <= 2, "one clear line, not a traceback"
    _status(daemon)
    assert daemon.proc is not None and daemon.proc.poll() is None


def test_two_homes_serve_side_by_side(daemon: Daemon) -> None:
    with running() as other:
        _status(other)
        _status(daemon)


# --- stale sockets and paths in the way ------------------------------------------------


def test_sockets_left_by_a_crash_are_replaced_on_start(home: Path) -> None:
    d = Daemon(home).start()
    try:
        d.kill()  # SIGKILL: no clean-up of any kind
        assert _is_socket(d.agent_path)
        assert _is_socket(d.control_path)
        d.start()
        _status(d)
        with d.agent(timeout=10) as c:
            c.call("memory.status", {})
    finally:
        d.stop()


@pytest.mark.parametrize(
    ("which", "kind"),
    [
        ("agent.sock", "file"),
        ("control.sock", "file"),
        ("agent.sock", "folder"),
    ],
)
def test_a_non_socket_in_place_of_a_socket_is_refused_and_kept(
    home: Path, which: str, kind: str
) -> None:
    run = home / "run"
    run.mkdir(mode=0o700, parents=True)
    in_the_way = run / which
    if kind == "file":
        in_the_way.write_text("operator data\n")
    else:
        in_the_way.mkdir()
        (in_the_way / "keep").write_text("operator data\n")
    result = _serve(home)
    assert result.returncode != 0
    assert "not a socket" in result.stderr
    assert "Traceback" not in result.stderr
    kept = in_the_way if kind == "file" else in_the_way / "keep"
    assert kept.read_text() == "operator data\n"
    # Refused before either socket existed.
    assert [p.name for p in run.iterdir()] == [which]


def test_a_home_too_long_for_a_socket_path_is_refused_in_plain_words(home: Path) -> None:
    deep = home / ("d" * 60) / ("e" * 60)
    result = _serve(deep)
    assert result.returncode != 0
    assert "too long" in result.stderr
    assert "Traceback" not in result.stderr


# --- graceful stop -------------------------------------------------------------------------


def _write_batch(task_id: str, n: int, tag: str) -> bytes:
    body = "The operator prefers short answers about {topic} in detail. " * 12
    batch = [
        {
            "jsonrpc": "2.0",
            "method": "memory.write",
            "id": i,
            "params": {
                "task_id": task_id,
                "action": "add",
                "entry": {
                    "type": "fact",
                    "title": f"{tag} {i}",
                    "body": body.format(topic=f"topic {i}"),
                },
            },
        }
        for i in range(n)
    ]
    return json.dumps(batch).encode() + b"\n"


def _read_line(sock: socket.socket) -> bytes:
    data = b""
    while not data.endswith(b"\n"):
        chunk = sock.recv(1 << 20)
        if not chunk:
            break
        data += chunk
    return data


def test_sigterm_lets_the_request_in_flight_finish_then_exits_0(home: Path) -> None:
    d = Daemon(home, config="scope_budget_bytes = 100000000\n").start()
    try:
        with d.control() as c:
            enable_consent(c)
            task_id = c.call("task.begin", {})["task_id"]
        n = 50
        # Retry until SIGTERM is seen to land while a batch is half applied:
        # that is what "in flight" means, observed rather than guessed.
        for attempt in range(10):
            with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as writer:
                writer.settimeout(30)
                writer.connect(str(d.control_path))
                before = _status(d)["counts"]["active"]
                writer.sendall(_write_batch(task_id, n, f"a{attempt}"))
                signalled = False
                with d.control(timeout=10) as watch:
                    while True:
                        active = watch.call("memory.status", {})["counts"]["active"] - before
                        if 0 < active < n:
                            d.signal(signal.SIGTERM)
                            signalled = True
                            break
                        if active >= n:
                            break
                reply = json.loads(_read_line(writer))
                if not signalled:
                    continue
                assert [r["id"] for r in reply] == list(range(n))
                assert all(r["result"]["outcome"] == "applied" for r in reply)
                assert d.proc is not None
                assert d.proc.wait(20) == 0
                break
        else:
            pytest.fail("never caught the batch in flight")
        d.start()
        assert _status(d)["counts"]["active"] - before == n
    finally:
        d.stop()


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGINT])
def test_a_stop_signal_exits_0_and_logs_the_stop(home: Path, signum: int) -> None:
    d = Daemon(home).start()
    with d.agent(timeout=10) as idle:
        idle.call("memory.status", {})
        d.signal(signum)
        assert d.proc is not None
        assert d.proc.wait(20) == 0
    log = d.log()
    assert signal.Signals(signum).name in log
    assert '"stopped"' in log


# --- the config gate --------------------------------------------------------------------


def test_an_unknown_config_key_stops_the_start_naming_the_key_not_the_value(home: Path) -> None:
    canary = "cnry" + secrets.token_hex(8)
    home.mkdir(mode=0o700, parents=True)
    (home / "memoryd.toml").write_text(f'[recall]\nmax_entires = "{canary}"\n')
    result = _serve(home)
    assert result.returncode != 0
    assert "recall.max_entires" in result.stderr
    assert canary not in result.stderr + result.stdout
    assert not (home / "run" / "agent.sock").exists()


def test_a_wrongly_typed_config_value_stops_the_start(home: Path) -> None:
    canary = "cnry" + secrets.token_hex(8)
    home.mkdir(mode=0o700, parents=True)
    (home / "memoryd.toml").write_text(f'max_connections = "{canary}"\n')
    result = _serve(home)
    assert result.returncode != 0
    assert "max_connections: expected int" in result.stderr
    assert canary not in result.stderr + result.stdout


# --- the command lines -----------------------------------------------------------------


@pytest.mark.parametrize("args", [["--help"], ["serve", "--help"]])
def test_memoryd_help_exits_0_and_explains_home_resolution(args: list[str]) -> None:
    result = subprocess.run(
        [*MEMORYD, *args],
        capture_output=True,
        text=True,
        cwd=REPO,
        env={**os.environ, "PYTHONPATH": str(REPO)},
        timeout=20,
        check=False,
    )
    assert result.returncode == 0
    text = " ".join(result.stdout.split())
    for needle in (
        "--home",
        "$MEMORYD_HOME",
        "$XDG_STATE_HOME/memoryd",
        "~/.local/state/memoryd",
        "0700",
    ):
        assert needle in text


def test_memoryd_without_a_command_shows_help_and_fails(home: Path) -> None:
    result = subprocess.run(
        [*MEMORYD],
        capture_output=True,
        text=True,
        cwd=REPO,
        env={**os.environ, "PYTHONPATH": str(REPO)},
        timeout=20,
        check=False,
    )
    assert result.returncode != 0
    assert "serve" in result.stdout + result.stderr


def test_memoryd_serve_honours_memoryd_home(home: Path) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("MEMORYD_")}
    env.update(PYTHONPATH=str(REPO), MEMORYD_HOME=str(home))
    proc = subprocess.Popen(
        [*MEMORYD, "serve"], env=env, cwd=REPO, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    try:
        deadline = time.monotonic() + 20
        while not (home / "run" / "control.sock").exists():
            assert proc.poll() is None
            assert time.monotonic() < deadline
            time.sleep(0.05)
        assert stat.S_IMODE(home.stat().st_mode) == 0o700
    finally:
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(20) == 0


def test_memctl_status_talks_to_the_running_daemon(daemon: Daemon) -> None:
    readable = daemon.memctl("status")
    assert readable.returncode == 0, readable.stderr
    as_json = daemon.memctl("status", "--json")
    assert as_json.returncode == 0, as_json.stderr
    assert json.loads(as_json.stdout)["backend"]["kind"] == backend()


def test_memctl_says_clearly_when_the_daemon_is_not_running(home: Path) -> None:
    d = Daemon(home)
    result = d.memctl("status")
    assert result.returncode != 0
    assert b"not running" in result.stderr
    assert b"Traceback" not in result.stderr
