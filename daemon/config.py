"""The daemon's one frozen configuration, decoded once from ``HOME/memoryd.toml``.

Owns: every tunable and its default. Nothing else in the daemon reads the file
or holds module-level settings; the decoded ``Config`` is passed down.

Invariants:
- unknown keys and wrong types are refused with a message naming the key path
  (msgspec's path), never with the value, and the daemon does not start;
- every limit has a documented default (docs/configuration.md mirrors this file).
"""

from __future__ import annotations

import os
import re
import tomllib
from pathlib import Path
from typing import Final, Literal

import msgspec
import msgspec.inspect as mi

from memoryd.rpc.framing import DEFAULT_MAX_FRAME
from memoryd.rpc.protocol import describe


class _Section(msgspec.Struct, frozen=True, forbid_unknown_fields=True, kw_only=True):
    pass


class IdentityConfig(_Section, frozen=True, kw_only=True):
    """An identity a peer uid maps to on agent.sock (``[identities."1001"]``)."""

    subject: str
    kind: str = "local"
    issuer: str | None = None


class RecallConfig(_Section, frozen=True, kw_only=True):
    max_entries: int = 12
    max_bytes: int = 8_192
    max_tokens: int = 2_048
    max_age_days: float = 365.0
    max_intent_chars: int = 4_096
    # "auto": hybrid (lexical + vectors) when the semantic extra is installed,
    # else lexical; "lexical": never load the model (daemon/semantic/embedding.py).
    ranker: Literal["auto", "lexical"] = "auto"
    # Threads the embedding engine may use for one call.
    embed_threads: int = 1


class RetentionConfig(_Section, frozen=True, kw_only=True):
    janitor_interval_s: float = 3_600.0
    purge_grace_days: float = 30.0


class CheckpointConfig(_Section, frozen=True, kw_only=True):
    every_events: int = 1_000
    every_seconds: float = 3_600.0


class ProjectionConfig(_Section, frozen=True, kw_only=True):
    """External memory (docs/projection.md): restart-only, set here and nowhere else."""

    mode: Literal["off", "shadow", "hybrid"] = "off"
    project: bool = False
    endpoint: str | None = None
    credential_env: str | None = None
    credential_file: str | None = None
    timeout_s: float = 5.0
    evidence_max_items: int = 8
    evidence_item_chars: int = 500
    max_response_bytes: int = 262_144
    poll_interval_s: float = 2.0
    backoff_initial_s: float = 1.0
    backoff_max_s: float = 300.0
    max_attempts: int = 8
    lease_s: float = 60.0


class ExtractModelConfig(_Section, frozen=True, kw_only=True):
    """The language-model extractor's endpoint (``[extract.model]``): an
    OpenAI-compatible chat completions API, taken like projection's endpoint
    (HTTPS, or HTTP on loopback; the credential from env or a 0600 file)."""

    endpoint: str | None = None
    model: str = "default"
    credential_env: str | None = None
    credential_file: str | None = None
    timeout_s: float = 60.0
    max_response_bytes: int = 262_144
    max_input_chars: int = 200_000


class ExtractConfig(_Section, frozen=True, kw_only=True):
    """Extraction from finished tasks (``[extract]``, docs/extraction.md)."""

    # "builtin": the offline extractor (no model); "model": [extract.model].
    extractor: Literal["builtin", "model"] = "builtin"
    model: ExtractModelConfig = msgspec.field(default_factory=ExtractModelConfig)
    max_transcript_bytes: int = 512 * 1024
    max_turns: int = 2_000
    # Candidates proposed per task at most.
    max_candidates: int = 8
    # A queued transcript is destroyed after this long whatever its state.
    retention_hours: float = 24.0
    # Queued jobs per owner at most (a submission past it is refused).
    max_queued: int = 100
    poll_interval_s: float = 2.0
    backoff_initial_s: float = 5.0
    backoff_max_s: float = 600.0
    max_attempts: int = 6
    # Jobs one daemon's worker starts per minute at most, whatever the
    # backlog: a restart or a provider's return never fires it at once.
    max_jobs_per_minute: float = 120.0
    # A claimed job another daemon may take over when its claimant stopped
    # renewing it this long (a shared PostgreSQL store).
    lease_s: float = 60.0


class StoreConfig(_Section, frozen=True, kw_only=True):
    """Where memory lives (``[store]``): the home's SQLite file, or a PostgreSQL
    database several daemons share (docs/postgresql.md).

    ``dsn`` is a libpq connection string or URI without a password: the
    password comes from the environment variable ``password_env`` or the file
    ``password_file`` (mode 0600), and neither ever reaches a log, an error
    or ``memory.status``."""

    backend: Literal["sqlite", "postgresql"] = "sqlite"
    dsn: str | None = None
    password_env: str | None = None
    password_file: str | None = None
    # The PostgreSQL schema (namespace) memoryd keeps its tables in.
    schema: str = "memoryd"
    connect_timeout_s: float = 5.0


class Config(_Section, frozen=True, kw_only=True):
    # connections (SPEC §2)
    max_frame_bytes: int = DEFAULT_MAX_FRAME
    max_connections: int = 256
    # agent.sock only: one peer uid other than the daemon's own (agents let in
    # by allowed_uids or agent_group) holds at most this many of its slots, so
    # one agent cannot take them all (control.sock counts apart: always room
    # for the operator). Default: half of max_connections.
    max_connections_per_uid: int | None = None
    idle_timeout_s: float = 300.0
    frame_timeout_s: float = 10.0
    shutdown_grace_s: float = 10.0
    agent_group: str | None = None
    allowed_uids: tuple[int, ...] = ()
    # governance
    pending_ttl_days: float = 7.0
    task_ttl_hours: float = 24.0
    # Caps sized from a busy agent's month (docs/configuration.md, "Why these
    # defaults"): each is about twice what that agent reaches.
    max_open_tasks: int = 1_000
    max_pending_actions: int = 1_000
    # Tasks one owner may begin in any hour: each task's snapshot is one audit
    # event, so this bounds what task churn can add to the log (docs/audit.md).
    max_tasks_per_hour: int = 600
    # bounds (SPEC §6)
    entry_max_bytes: int = 4_000
    scope_budget_bytes: int = 8 * 1024 * 1024
    # store
    backend: Literal["sqlite"] = "sqlite"
    synchronous: Literal["FULL", "EXTRA", "NORMAL"] = "FULL"
    # identity
    identities: dict[str, IdentityConfig] = msgspec.field(default_factory=dict)
    jwt_public_key: str | None = None
    recall: RecallConfig = msgspec.field(default_factory=RecallConfig)
    retention: RetentionConfig = msgspec.field(default_factory=RetentionConfig)
    checkpoint: CheckpointConfig = msgspec.field(default_factory=CheckpointConfig)
    projection: ProjectionConfig = msgspec.field(default_factory=ProjectionConfig)
    store: StoreConfig = msgspec.field(default_factory=StoreConfig)
    extract: ExtractConfig = msgspec.field(default_factory=ExtractConfig)


class ConfigError(Exception):
    """memoryd.toml could not be understood; the message names the key, not the value."""


def load_config(home: Path) -> Config:
    path = home / "memoryd.toml"
    try:
        # Never through a link: a planted memoryd.toml could hand agent.sock
        # to another user.
        fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC | os.O_NOFOLLOW)
    except FileNotFoundError:
        return Config()
    except OSError:
        raise ConfigError("memoryd.toml cannot be opened as a plain file"
                          " (a symbolic link is never followed)") from None
    with os.fdopen(fd, "rb") as fh:
        raw = fh.read()
    try:
        data = tomllib.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        # tomllib's message holds a line/column, not the value.
        raise ConfigError(f"memoryd.toml is not valid TOML: {exc}") from None
    except RecursionError:
        # tomllib recurses once per nested array or table (kernel/policy.py).
        raise ConfigError("memoryd.toml is not valid TOML: arrays or tables nested too deep"
                          ) from None
    try:
        config = msgspec.convert(data, Config, strict=True)
    except msgspec.ValidationError as exc:
        raise ConfigError(f"memoryd.toml: {_describe(exc)}") from None
    _check_ranges(config)
    return config


_UNKNOWN: Final = re.compile(
    r"^Object contains unknown field `(?P<key>[^`]*)`(?: - at `(?P<at>[^`]*)`)?$"
)
_AT: Final = re.compile(r" - at `(?P<at>[^`]*)`$")


def _describe(exc: msgspec.ValidationError) -> str:
    # msgspec's message may quote the offending value ("Invalid enum value 'x'"):
    # keep the key path and the expected type only. Key names are the
    # operator's own and are what they need to find the line; values are not
    # repeated (a mistyped value could be a secret pasted into the wrong key).
    text = str(exc)
    unknown = _UNKNOWN.match(text)
    if unknown:
        return f"unknown key {_key_path(unknown['at'] or '$', unknown['key'])}"
    at = _AT.search(text)
    path = at["at"] if at else "$"
    if text.startswith("Object contains unknown field"):
        # A key msgspec could not quote cleanly (it holds a backtick).
        return f"unknown key under {_key_path(path)}"
    if text.startswith("Object missing required field"):
        missing = re.match(r"^Object missing required field `(?P<key>[^`]*)`", text)
        key = missing["key"] if missing else ""
        return f"missing required key {_key_path(path, key)}"
    expected = _expected(path)
    where = _key_path(path)
    return f"{where}: expected {expected}" if expected else f"{where}: invalid value"


def _key_path(at: str, key: str = "") -> str:
    """``$.recall`` + ``bogus`` -> ``recall.bogus``; ``$`` alone is the file's top."""
    path = at.removeprefix("$").lstrip(".")
    if key:
        path = f"{path}.{key}" if path else key
    return path or "(top level)"


def _expected(at: str) -> str | None:
    """What the schema accepts at a msgspec path, described without the value."""
    info: mi.Type = mi.type_info(Config)
    for part in re.findall(r"\.([A-Za-z_][A-Za-z0-9_]*)|\[[^\]]*\]", at.removeprefix("$")):
        if isinstance(info, mi.UnionType):
            info = next((t for t in info.types if not isinstance(t, mi.NoneType)), info)
        if part:  # a field name
            if not isinstance(info, mi.StructType):
                return None
            field = next((f for f in info.fields if f.encode_name == part), None)
            if field is None:
                return None
            info = field.type
        elif isinstance(info, mi.DictType):
            info = info.value_type
        elif isinstance(info, mi.ListType | mi.VarTupleType):
            info = info.item_type
        else:
            return None
    return describe(info)


def _check_ranges(config: Config) -> None:
    positive = {
        "max_frame_bytes": config.max_frame_bytes,
        "max_connections": config.max_connections,
        "max_connections_per_uid": (config.max_connections_per_uid
                                    if config.max_connections_per_uid is not None else 1),
        "idle_timeout_s": config.idle_timeout_s,
        "frame_timeout_s": config.frame_timeout_s,
        "entry_max_bytes": config.entry_max_bytes,
        "scope_budget_bytes": config.scope_budget_bytes,
        "pending_ttl_days": config.pending_ttl_days,
        "task_ttl_hours": config.task_ttl_hours,
        "max_open_tasks": config.max_open_tasks,
        "max_pending_actions": config.max_pending_actions,
        "max_tasks_per_hour": config.max_tasks_per_hour,
    }
    for key, value in positive.items():
        if value <= 0:
            raise ConfigError(f"memoryd.toml: {key} must be positive")
    for key in ("max_transcript_bytes", "max_turns", "max_candidates", "retention_hours",
                "max_queued", "poll_interval_s", "backoff_initial_s", "backoff_max_s",
                "max_attempts", "lease_s", "max_jobs_per_minute"):
        if getattr(config.extract, key) <= 0:
            raise ConfigError(f"memoryd.toml: extract.{key} must be positive")
    if not 1 <= config.recall.embed_threads <= 64:
        raise ConfigError("memoryd.toml: recall.embed_threads must be between 1 and 64")
    if config.shutdown_grace_s < 0:
        raise ConfigError("memoryd.toml: shutdown_grace_s must not be negative")
    if any(uid < 0 for uid in config.allowed_uids):
        raise ConfigError("memoryd.toml: allowed_uids must be uids (0 or more)")
    for uid in config.identities:
        if not uid.isdigit():
            raise ConfigError("memoryd.toml: [identities] keys must be numeric uids")
    _check_projection(config.projection)
    _check_store(config.store)


def _check_store(s: StoreConfig) -> None:
    if s.backend == "sqlite":
        if s.dsn is not None or s.password_env is not None or s.password_file is not None:
            raise ConfigError("memoryd.toml: store.dsn and its password belong to"
                              " store.backend = \"postgresql\"")
        return
    if s.dsn is None:
        raise ConfigError("memoryd.toml: store.dsn is required when store.backend is"
                          " postgresql")
    if s.password_env is not None and s.password_file is not None:
        raise ConfigError("memoryd.toml: set one of store.password_env and store.password_file")
    if not 0.1 <= s.connect_timeout_s <= 60.0:
        raise ConfigError("memoryd.toml: store.connect_timeout_s must be between 0.1 and 60")
    if not re.match(r"^[a-z_][a-z0-9_]{0,62}$", s.schema):
        raise ConfigError("memoryd.toml: store.schema must be a lower-case SQL name")
    # A password written into the DSN would sit in a file meant to be shared
    # and be one careless log line from disclosure: refused, never echoed.
    try:
        from psycopg.conninfo import conninfo_to_dict
    except ImportError:
        raise ConfigError("memoryd.toml: store.backend postgresql needs the postgresql"
                          " extra: from memoryd's checkout, pip install '.[postgresql]'"
                          " in memoryd's environment") from None
    try:
        parts = conninfo_to_dict(s.dsn)
    except Exception:  # noqa: BLE001 (the driver's message may quote the DSN)
        raise ConfigError("memoryd.toml: store.dsn is not a PostgreSQL connection string"
                          ) from None
    if parts.get("password"):
        raise ConfigError("memoryd.toml: store.dsn must not hold a password; use"
                          " store.password_env or store.password_file")


# Bounds of the projection tunables: (key, low, high), inclusive.
_PROJECTION_BOUNDS: Final = (
    ("timeout_s", 0.05, 60.0),
    ("evidence_max_items", 1, 50),
    ("evidence_item_chars", 16, 4_000),
    ("max_response_bytes", 1_024, 4_194_304),
    ("poll_interval_s", 0.01, 300.0),
    ("backoff_initial_s", 0.01, 60.0),
    ("backoff_max_s", 0.01, 3_600.0),
    ("max_attempts", 1, 100),
    ("lease_s", 0.1, 3_600.0),
)


def _check_projection(p: ProjectionConfig) -> None:
    for key, low, high in _PROJECTION_BOUNDS:
        value = getattr(p, key)
        if not low <= value <= high:
            raise ConfigError(f"memoryd.toml: projection.{key} must be between {low} and {high}")
    if p.project and p.mode == "off":
        raise ConfigError("memoryd.toml: projection.project needs projection.mode"
                          " shadow or hybrid")
    if p.mode == "off":
        return
    if p.endpoint is None:
        raise ConfigError("memoryd.toml: projection.endpoint is required when"
                          " projection.mode is not off")
    if p.credential_env is not None and p.credential_file is not None:
        raise ConfigError("memoryd.toml: set one of projection.credential_env and"
                          " projection.credential_file")
    # Imported here: the endpoint rules live with the provider adapter.
    from memoryd.daemon.external.projection_provider import EndpointError, parse_endpoint

    try:
        parse_endpoint(p.endpoint)
    except EndpointError as exc:
        raise ConfigError(f"memoryd.toml: projection.endpoint {exc}") from None
