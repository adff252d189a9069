"""Start a real ``memoryd`` on a temporary home and talk to it over its sockets.

Black-box tests use this and ``rpc.client`` only: the daemon runs as a child
process exactly as an operator would run it, and its stderr (the log) is kept
so tests can search it for canaries.
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
from collections.abc import Iterable, Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from memoryd.audit.packing import first_needed, unpack_rows
from memoryd.rpc.client import Client, RpcError

REPO = Path(__file__).resolve().parent.parent
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
        conn.execute(psycopg.sql.SQL("SET search_path TO {}").format(
            psycopg.sql.Identifier(schema)))
        yield conn


def shared_pair(root: Path, schema: str, config: str = "", policy: str | None = None,
                ranker: str = "lexical") -> tuple[Daemon, Daemon]:
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


def shared_pair_on_fresh_schema(policy: str | None = None, ranker: str = "lexical"
                                ) -> Iterator[tuple[Daemon, Daemon]]:
    """``shared_pair`` on a new schema under a short temporary root, for a
    fixture to ``yield from``: both daemons stopped and the root removed
    after."""
    root = short_tempdir()
    first, second = shared_pair(root, "s_" + uuid.uuid4().hex[:16], policy=policy,
                                ranker=ranker)
    try:
        yield first, second
    finally:
        try:
            first.stop()
            second.stop()
        finally:
            shutil.rmtree(root, ignore_errors=True)


def short_tempdir() -> Path:
    # AF_UNIX paths are limited to ~107 bytes: keep homes short.
    return Path(tempfile.mkdtemp(prefix="md", dir="/tmp"))


class Daemon:
    def __init__(self, home: Path, env: Mapping[str, str] | None = None,
                 config: str | None = None, policy: str | None = None,
                 prefix: tuple[str, ...] = (), ranker: str | None = None) -> None:
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
        self.proc = subprocess.Popen(
            [*self.prefix, *MEMORYD, "serve", "--home", str(self.home)],
            stdout=log, stderr=log, env=self.env, cwd=REPO,
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

    def memctl(self, *args: str, input: bytes | None = None, timeout: float = 60.0,
               process: bool = False) -> subprocess.CompletedProcess[bytes]:
        """``memctl --home HOME ARGS``, its exit status and output.

        With ``process=True`` it runs as the operator runs it, a new
        process (tests of memctl itself do). Otherwise memctl's ``run``
        serves the call in this process, with this home's environment,
        its own streams and the same exit statuses, over the same
        control.sock: a new interpreter per call costs a third of a second
        of CPU, most of it imports, and the suite makes over a hundred."""
        argv = ["--home", str(self.home), *args]
        if process:
            return subprocess.run([*MEMCTL, *argv], input=input, capture_output=True,
                                  env=self.env, cwd=REPO, timeout=timeout, check=False)
        return memctl_in_process(argv, input=input, env=self.env)


def memctl_in_process(argv: list[str], input: bytes | None = None,
                      env: Mapping[str, str] | None = None) -> subprocess.CompletedProcess[bytes]:
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
    return subprocess.CompletedProcess([*MEMCTL, *argv], code, out.getvalue().encode(),
                                       err.getvalue().encode())


@contextmanager
def running(env: Mapping[str, str] | None = None, config: str | None = None,
            policy: str | None = None, ranker: str = "lexical") -> Iterator[Daemon]:
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


# --- flows the tests share ------------------------------------------------------

def enable_consent(c: Client, identity: dict[str, Any] | None = None, **switches: bool) -> Any:
    params: dict[str, Any] = {} if identity is None else {"identity": identity}
    current = c.call("consent.get", params)
    values = {"read": True, "contribute": True, "learn_from_tools": False, **switches}
    return c.call("consent.set", {**params, **values, "version": current["version"]})


def entry(title: str = "Editor", body: str = "The user prefers vim keybindings.",
          type_: str = "preference", **extra: Any) -> dict[str, Any]:
    return {"type": type_, "title": title, "body": body, **extra}


def fresh_identity(prefix: str = "id-") -> dict[str, str]:
    """A new local identity, so a test's owner shares nothing with another test's."""
    return {"kind": "local", "subject": prefix + uuid.uuid4().hex}


def team_member_and_outsider(c: Client, team: str, prefix: str) -> tuple[
        dict[str, str], dict[str, str], dict[str, str]]:
    """A new team ``team`` with one fresh member, and a fresh identity outside
    it; both with consent and a token (keyed by the identity's subject)."""
    member, outsider = fresh_identity(prefix + "m-"), fresh_identity(prefix + "o-")
    tokens = {}
    for who in (member, outsider):
        enable_consent(c, identity=who)
        tokens[who["subject"]] = c.call("token.issue", {"identity": who})["token"]
    c.call("team.create", {"name": team})
    c.call("team.add", {"name": team, "identity": member})
    return member, outsider, tokens


# What an audit row is read with (audit/packing.py): a packed row needs the
# rows before it in its block. Select ``AUDIT_ROWS`` with (first, seq) =
# ``audit_span(seq)`` and hand the rows to ``audit_body``.
AUDIT_ROWS = "SELECT seq, body, hash FROM audit WHERE seq BETWEEN ? AND ? ORDER BY seq"


def audit_span(seq: int) -> tuple[int, int]:
    return first_needed(seq), seq


def audit_body(rows: Iterable[tuple[int, bytes, Any]], seq: int) -> bytes:
    """The canonical bytes audit row ``seq`` holds, read from ``rows``
    (``AUDIT_ROWS`` over ``audit_span(seq)``)."""
    for event in unpack_rows(rows):
        if event.seq == seq:
            return event.body
    raise LookupError(f"no audit row {seq}")


# A policy under which agent writes apply at once: nothing but the content
# scan (and its review flag) stands between a write and its scope.
AGENT_WRITES = """
[[rule]]
id = "agent-writes"
effect = "allow"
capability = "MemoryWrite"
channel = "agent"
"""

# A GitHub personal access token's form (the scanner's secret rules).
GITHUB_TOKEN = "ghp_a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8"


def exported_audit(c: Client) -> str:
    """Every audit event ``c`` may export, one JSON line each, characters
    outside ASCII as they are (a canary searched for is found as written)."""
    events = c.call("audit.export", {"after_seq": 0, "limit": 100_000})["events"]
    return "\n".join(json.dumps(event, ensure_ascii=False) for event in events)


def expect(code: int, data_code: str, fn: Any, *args: Any) -> RpcError:
    """The error ``fn(*args)`` raises, after checking its code and data code."""
    with pytest.raises(RpcError) as info:
        fn(*args)
    assert (info.value.code, info.value.data_code) == (code, data_code), info.value.data
    return info.value
