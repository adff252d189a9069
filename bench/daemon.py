"""Start a real ``memoryd`` on a temporary home and talk to it over its sockets,
or compose one in this process (``composed``) and call it without them.

The daemon runs as a child process exactly as an operator would run it, and
its stderr (the log) is kept. The benchmarks drive it this way, and the tests
(tests/harness.py and tests/inproc.py re-export what they share with them);
it needs the package and its runtime dependencies only, never the test extra.
"""

from __future__ import annotations

import io
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import tomllib
import uuid
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from memoryd.daemon import home as home_mod
from memoryd.daemon.app import App
from memoryd.daemon.clock import Clock, SystemClock
from memoryd.daemon.compose import Composed, compose
from memoryd.daemon.config import load_config
from memoryd.daemon.pipeline.lifecycle import Lifecycle
from memoryd.daemon.storage.store import Store
from memoryd.rpc.client import Client, RpcError
from memoryd.rpc.framing import encode_value
from memoryd.rpc.protocol import CallContext, Dispatcher

REPO = Path(__file__).resolve().parents[1]
MEMORYD = [sys.executable, "-m", "memoryd.daemon.cli"]
MEMCTL = [sys.executable, "-m", "memoryd.memctl"]

# The black-box suite runs on SQLite, or on PostgreSQL when
# MEMORYD_TEST_BACKEND=postgresql (pytest --backend postgresql sets it): each
# daemon then gets a fresh schema of its own on MEMORYD_TEST_PG_DSN, dropped
# at the end of the run (drop_pg_schemas).
PG_DSN = os.environ.get("MEMORYD_TEST_PG_DSN", "host=127.0.0.1 dbname=test user=postgres")
PG_SCHEMAS: list[str] = []


def backend() -> str:
    return os.environ.get("MEMORYD_TEST_BACKEND", "sqlite")


def pg_store_section(schema: str | None = None, dsn: str = PG_DSN) -> str:
    """A ``[store]`` section for a fresh schema (or ``schema``, to share one)."""
    if schema is None:
        schema = "t_" + uuid.uuid4().hex[:16]
    if schema not in PG_SCHEMAS:
        PG_SCHEMAS.append(schema)
    return f'\n[store]\nbackend = "postgresql"\ndsn = "{dsn}"\nschema = "{schema}"\n'


def drop_pg_schemas() -> None:
    """Drop every schema this process made for its daemons."""
    if not PG_SCHEMAS:
        return
    import psycopg

    with psycopg.connect(PG_DSN, autocommit=True) as conn:
        for schema in PG_SCHEMAS:
            conn.execute(f'DROP SCHEMA IF EXISTS "{schema}" CASCADE')
    PG_SCHEMAS.clear()


def pg_store_of(home: Path) -> tuple[str, str] | None:
    """(dsn, schema) when ``home``'s memoryd.toml puts it on PostgreSQL, else None."""
    config = home / "memoryd.toml"
    if not config.exists():
        return None
    store = tomllib.loads(config.read_text()).get("store", {})
    if not isinstance(store, dict) or store.get("backend") != "postgresql":
        return None
    return str(store["dsn"]), str(store["schema"])


@contextmanager
def pg_connect(dsn: str, schema: str) -> Iterator[Any]:
    """A psycopg connection to ``dsn`` with ``schema`` as its search path; commits on exit."""
    import psycopg
    import psycopg.sql

    with psycopg.connect(dsn) as conn:
        conn.execute(
            psycopg.sql.SQL("SET search_path TO {}").format(psycopg.sql.Identifier(schema))
        )
        yield conn


def shared_pair(
    root: Path, schema: str, config: str = "", policy: str | None = None, ranker: str = "lexical"
) -> tuple[Daemon, Daemon]:
    """Two daemons started on homes ``root/a`` and ``root/b`` sharing one
    PostgreSQL ``schema`` (and ``config`` and ``policy``, when given): as on
    two hosts, the second home gets the first's root secret (the operator
    copies ``keys/secret``). They rank lexically unless ``ranker="auto"``
    (or ``config`` says), as ``running`` says why. When either fails to
    start, neither is left running."""
    section = config + pg_store_section(schema)
    first = Daemon(root / "a", config=section, policy=policy, ranker=ranker)
    second = Daemon(root / "b", config=section, policy=policy, ranker=ranker)
    try:
        first.start()
        (second.home / "keys").mkdir(mode=0o700, exist_ok=True)
        shutil.copy2(first.home / "keys" / "secret", second.home / "keys" / "secret")
        return first, second.start()
    except BaseException:
        second.kill()
        first.kill()
        raise


def short_tempdir() -> Path:
    # AF_UNIX paths are limited to ~107 bytes: keep homes short.
    return Path(tempfile.mkdtemp(prefix="md", dir="/tmp"))


class Daemon:
    def __init__(
        self,
        home: Path,
        env: Mapping[str, str] | None = None,
        config: str | None = None,
        policy: str | None = None,
        prefix: tuple[str, ...] = (),
        ranker: str | None = None,
    ) -> None:
        self.home = home
        # A command the daemon runs under (the benchmark counts instructions
        # with valgrind this way); empty for the tests.
        self.prefix = prefix
        self.env = {**os.environ, **(env or {})}
        for key in ("MEMORYD_HOME", "MEMORYD_IDENTITY_JSON", "MEMORYD_TOKEN", "MEMORYD_USER_ID"):
            if env is None or key not in env:
                self.env.pop(key, None)
        self.env["PYTHONPATH"] = str(REPO)
        self.proc: subprocess.Popen[bytes] | None = None
        self.log_path = home.parent / (home.name + ".log")
        home.mkdir(mode=0o700, parents=True, exist_ok=True)
        if ranker is not None and "[recall]" not in (config or ""):
            config = f'{config or ""}\n[recall]\nranker = "{ranker}"\n'
        if backend() == "postgresql" and "[store]" not in (config or ""):
            config = (config or "") + pg_store_section()
        # Written as a careful operator would: open to nobody else.
        if config is not None:
            (home / "memoryd.toml").write_text(config)
            (home / "memoryd.toml").chmod(0o600)
        if policy is not None:
            (home / "policy.toml").write_text(policy)
            (home / "policy.toml").chmod(0o600)

    @property
    def agent_path(self) -> Path:
        return self.home / "run" / "agent.sock"

    @property
    def control_path(self) -> Path:
        return self.home / "run" / "control.sock"

    def start(self, *, wait: bool = True, timeout: float = 20.0) -> Daemon:
        log = open(self.log_path, "ab")
        # Our own daemon command (and the benchmark's valgrind prefix), never input.
        self.proc = subprocess.Popen(  # noqa: S603
            [*self.prefix, *MEMORYD, "serve", "--home", str(self.home)],
            stdout=log,
            stderr=log,
            env=self.env,
            cwd=REPO,
        )
        log.close()
        if wait:
            self.wait_ready(timeout)
        return self

    def wait_ready(self, timeout: float = 20.0) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            assert self.proc is not None
            if self.proc.poll() is not None:
                raise RuntimeError(f"memoryd exited with {self.proc.returncode}: {self.log()}")
            if self.control_path.exists() and self.agent_path.exists():
                try:
                    with Client(self.control_path, timeout=5) as c:
                        c.call("memory.status", {})
                    return
                except (OSError, RpcError):
                    pass
            time.sleep(0.05)
        raise TimeoutError("memoryd did not become ready")

    def log(self) -> str:
        try:
            return self.log_path.read_text(errors="replace")
        except FileNotFoundError:
            return ""

    def control(self, timeout: float = 30.0) -> Client:
        return Client(self.control_path, timeout=timeout)

    def agent(self, timeout: float = 30.0) -> Client:
        return Client(self.agent_path, timeout=timeout)

    def signal(self, signum: int) -> None:
        assert self.proc is not None
        self.proc.send_signal(signum)

    def stop(self, timeout: float = 20.0) -> int:
        if self.proc is None or self.proc.poll() is not None:
            return self.proc.returncode if self.proc else 0
        self.proc.send_signal(signal.SIGTERM)
        try:
            return self.proc.wait(timeout)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
            raise

    def kill(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()

    def restart(self) -> Daemon:
        self.stop()
        return self.start()

    def memctl(
        self, *args: str, input: bytes | None = None, timeout: float = 60.0, process: bool = False
    ) -> subprocess.CompletedProcess[bytes]:
        """``memctl --home HOME ARGS``, its exit status and output.

        With ``process=True`` it runs as the operator runs it, a new
        process (tests of memctl itself do). Otherwise memctl's ``run``
        serves the call in this process, with this home's environment,
        its own streams and the same exit statuses, over the same
        control.sock: a new interpreter per call costs a third of a second
        of CPU, most of it imports, and the suite makes over a hundred."""
        argv = ["--home", str(self.home), *args]
        if process:
            # Our own memctl command, never input.
            return subprocess.run(  # noqa: S603 (our own command line)
                [*MEMCTL, *argv],
                input=input,
                capture_output=True,
                env=self.env,
                cwd=REPO,
                timeout=timeout,
                check=False,
            )
        return memctl_in_process(argv, input=input, env=self.env)


def memctl_in_process(
    argv: list[str], input: bytes | None = None, env: Mapping[str, str] | None = None
) -> subprocess.CompletedProcess[bytes]:
    """memctl's ``run`` on ``argv`` with ``env`` as the environment and
    in-memory streams; the result is shaped as ``subprocess.run``'s."""
    from memoryd.memctl.main import Io, run

    out, err = io.StringIO(), io.StringIO()
    stdin = io.TextIOWrapper(io.BytesIO(input or b""), encoding="utf-8")
    saved = dict(os.environ)
    try:
        if env is not None:
            os.environ.clear()
            os.environ.update(env)
        code = run(argv, io=Io(stdout=out, stderr=err, stdin=stdin))
    finally:
        os.environ.clear()
        os.environ.update(saved)
    return subprocess.CompletedProcess(
        [*MEMCTL, *argv], code, out.getvalue().encode(), err.getvalue().encode()
    )


@contextmanager
def running(
    env: Mapping[str, str] | None = None,
    config: str | None = None,
    policy: str | None = None,
    ranker: str = "lexical",
) -> Iterator[Daemon]:
    """A daemon on a new home, stopped and removed after.

    It ranks lexically unless ``ranker="auto"``, as the default install (no
    ``semantic`` extra) does: loading the embedding model and embedding every
    note costs each daemon about half a second of CPU, which only the tests
    of hybrid recall need (they ask for it)."""
    root = short_tempdir()
    d = Daemon(root / "h", env=env, config=config, policy=policy, ranker=ranker)
    try:
        d.start()
        yield d
    finally:
        try:
            d.stop()
        finally:
            shutil.rmtree(root, ignore_errors=True)


def enable_consent(c: Client, identity: dict[str, Any] | None = None, **switches: bool) -> Any:
    params: dict[str, Any] = {} if identity is None else {"identity": identity}
    current = c.call("consent.get", params)
    values = {"read": True, "contribute": True, "learn_from_tools": False, **switches}
    return c.call("consent.set", {**params, **values, "version": current["version"]})


def entry(
    title: str = "Editor",
    body: str = "The user prefers vim keybindings.",
    type_: str = "preference",
    **extra: Any,
) -> dict[str, Any]:
    return {"type": type_, "title": title, "body": body, **extra}


# --- in process -------------------------------------------------------------


class CallFailed(Exception):
    """An error reply; ``error`` is its JSON-RPC error object."""

    def __init__(self, error: dict[str, Any]) -> None:
        super().__init__(error.get("message"))
        self.error = error
        self.data_code = (error.get("data") or {}).get("code")


@dataclass
class InProcess:
    composed: Composed
    agent: Dispatcher
    control: Dispatcher

    @property
    def app(self) -> App:
        return self.composed.app

    @property
    def store(self) -> Store:
        return self.composed.store

    @property
    def lifecycle(self) -> Lifecycle:
        return self.composed.lifecycle

    async def call(
        self, channel: str, method: str, params: dict[str, Any], conn_id: str | None = None
    ) -> Any:
        """One request on ``channel`` from connection ``conn_id`` (default: one
        connection per channel); raises ``CallFailed`` on an error reply."""
        ctx = CallContext(
            channel=channel, peer_uid=os.geteuid(), peer_pid=None, conn_id=conn_id or channel
        )
        frame = encode_value({"jsonrpc": "2.0", "id": 1, "method": method, "params": params})
        dispatcher = self.agent if channel == "agent" else self.control
        reply = json.loads(await dispatcher.handle_frame(frame, ctx))
        if "error" in reply:
            raise CallFailed(reply["error"])
        return reply["result"]

    async def sweep(self) -> dict[str, int]:
        """One pass of the janitor (what ``janitor_interval_s`` schedules), now."""
        return await self.lifecycle.sweep()


@contextmanager
def composed(
    home_path: Path,
    *,
    clock: Clock | None = None,
    config: str | None = None,
    policy: str | None = None,
    faults: frozenset[str] = frozenset(),
) -> Iterator[InProcess]:
    """memoryd as ``compose`` builds it for ``memoryd serve``, on the home at
    ``home_path`` (new, or one composed before: a restart), with every method
    it serves; the store is closed after. Recall ranks lexically (the
    embedding worker is not run in process), and no identity comes from this
    process's environment."""
    home_path.mkdir(mode=0o700, parents=True, exist_ok=True)
    if config is not None:
        (home_path / "memoryd.toml").write_text(config)
    if policy is not None:
        (home_path / "policy.toml").write_text(policy)
    home = home_mod.prepare(home_path)
    env = {
        k: v
        for k, v in os.environ.items()
        if k not in ("MEMORYD_IDENTITY_JSON", "MEMORYD_TOKEN", "MEMORYD_USER_ID")
    }
    built = compose(
        home,
        load_config(home.path),
        clock=clock or SystemClock(),
        environ=env,
        semantic=False,
        faults=faults,
    )
    try:
        yield InProcess(built, *built.tables())
    finally:
        built.store.close()
