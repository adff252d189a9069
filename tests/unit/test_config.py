"""``daemon.config.load_config``: defaults, refusals by key path, never by value."""

from __future__ import annotations

import re
from pathlib import Path

import msgspec
import pytest

from memoryd.daemon.config import Config, ConfigError, load_config

CANARY = "zq7canaryVALUE"


def _load(tmp_path: Path, text: str) -> Config:
    (tmp_path / "memoryd.toml").write_text(text)
    return load_config(tmp_path)


def _refusal(tmp_path: Path, text: str) -> str:
    with pytest.raises(ConfigError) as caught:
        _load(tmp_path, text)
    return str(caught.value)


def test_a_missing_file_gives_the_spec_defaults(tmp_path: Path) -> None:
    config = load_config(tmp_path)
    assert config == Config()
    assert config.max_frame_bytes == 1024 * 1024
    assert config.max_connections >= 256
    assert config.idle_timeout_s == 300
    assert config.frame_timeout_s == 10


def test_known_keys_are_read_into_a_frozen_config(tmp_path: Path) -> None:
    config = _load(
        tmp_path, "max_connections = 4\nallowed_uids = [1001]\n[recall]\nmax_entries = 3\n"
    )
    assert (config.max_connections, config.allowed_uids, config.recall.max_entries) == (
        4,
        (1001,),
        3,
    )
    with pytest.raises(AttributeError):
        config.max_connections = 5  # type: ignore[misc]


@pytest.mark.parametrize(
    ("text", "path"),
    [
        (f"{CANARY}_key = 1\n", f"{CANARY}_key"),
        (f'[recall]\nmax_entrees = "{CANARY}"\n', "recall.max_entrees"),
        (f'[identities."1001"]\nsubject = "x"\nsubjcet = "{CANARY}"\n', "identities[...].subjcet"),
    ],
)
def test_an_unknown_key_is_refused_naming_its_path_not_its_value(
    tmp_path: Path, text: str, path: str
) -> None:
    message = _refusal(tmp_path, text)
    assert f"unknown key {path}" in message
    if CANARY not in path:
        assert CANARY not in message


@pytest.mark.parametrize(
    ("text", "path", "expected"),
    [
        (f'max_connections = "{CANARY}"\n', "max_connections", "int"),
        (f'synchronous = "{CANARY}"\n', "synchronous", '"EXTRA" | "FULL" | "NORMAL"'),
        (f'allowed_uids = [1, "{CANARY}"]\n', "allowed_uids[1]", "int"),
        (f'[recall]\nmax_bytes = "{CANARY}"\n', "recall.max_bytes", "int"),
        (f'recall = "{CANARY}"\n', "recall", "object"),
        ("max_frame_bytes = true\n", "max_frame_bytes", "int"),
    ],
)
def test_a_wrong_type_is_refused_naming_the_path_and_expected_type_not_the_value(
    tmp_path: Path, text: str, path: str, expected: str
) -> None:
    message = _refusal(tmp_path, text)
    assert f"{path}: expected {expected}" in message
    assert CANARY not in message


def test_a_missing_required_key_is_named(tmp_path: Path) -> None:
    message = _refusal(tmp_path, '[identities."1001"]\nkind = "local"\n')
    assert "missing required key identities[...].subject" in message


def test_toml_nested_too_deep_is_refused_as_invalid(tmp_path: Path) -> None:
    message = _refusal(tmp_path, "max_connections = " + "[" * 3_000 + "]" * 3_000 + "\n")
    assert "not valid TOML" in message


def test_invalid_toml_is_refused_without_quoting_the_value(tmp_path: Path) -> None:
    message = _refusal(tmp_path, f"max_connections = {CANARY}\n")
    assert "not valid TOML" in message
    assert CANARY not in message


@pytest.mark.parametrize(
    "text",
    [
        "max_connections = 0\n",
        "frame_timeout_s = -1.0\n",
        "idle_timeout_s = 0.0\n",
        "max_frame_bytes = -5\n",
        "shutdown_grace_s = -1.0\n",
        "allowed_uids = [-1]\n",
    ],
)
def test_an_out_of_range_limit_is_refused(tmp_path: Path, text: str) -> None:
    key = text.split(" ")[0]
    assert key in _refusal(tmp_path, text)


def test_identities_keys_must_be_numeric_uids(tmp_path: Path) -> None:
    message = _refusal(tmp_path, '[identities.alice]\nsubject = "a"\n')
    assert "numeric uids" in message


def test_every_msgspec_validation_error_maps_to_a_value_free_message() -> None:
    # Types not reached by the file cases above still never echo the value.
    from memoryd.daemon.config import _describe

    for data in (
        {"checkpoint": {"every_events": CANARY}},
        {"backend": CANARY},
        {"identities": {"1": {"subject": "s", "issuer": 5}}},
    ):
        with pytest.raises(msgspec.ValidationError) as caught:
            msgspec.convert(data, Config, strict=True)
        text = _describe(caught.value)
        assert CANARY not in text
        assert ": expected " in text


# --- the documented defaults are the daemon's ---------------------------------------

CONFIG_PAGE = Path(__file__).resolve().parents[2] / "docs" / "configuration.md"


def _documented_defaults() -> dict[str, str]:
    rows = re.findall(r"^\| `([a-z_]+)` \| ([^|]+) \|", CONFIG_PAGE.read_text(), re.M)
    return {key: value.strip() for key, value in rows}


@pytest.mark.parametrize(
    "key",
    [
        "scope_budget_bytes",
        "max_pending_actions",
        "max_open_tasks",
        "entry_max_bytes",
        "pending_ttl_days",
        "task_ttl_hours",
    ],
)
def test_the_configuration_page_documents_the_daemons_defaults(key: str) -> None:
    documented = _documented_defaults()[key]
    assert float(documented.replace(",", "")) == float(getattr(Config(), key))
