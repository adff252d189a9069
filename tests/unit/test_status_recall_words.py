"""How memctl status names the ranker, and how the daemon tells an extra
installed after start from one that is missing."""

from __future__ import annotations

from typing import Any

import pytest

from memoryd.daemon.app import recall_reason_now
from memoryd.memctl import format as fmt


def _status(recall: dict[str, Any]) -> str:
    return fmt.status(
        {
            "backend": {},
            "counts": {},
            "audit": {},
            "identity": {},
            "consent": {},
            "policy": {},
            "recall": recall,
        }
    )


@pytest.mark.parametrize(
    ("recall", "said"),
    [
        ({"ranker": "hybrid", "model": "nano-e5", "dim": 384}, "hybrid (model nano-e5)"),
        (
            {"ranker": "lexical", "reason": "disabled"},
            "lexical (switched off in memoryd.toml: [recall] ranker = lexical)",
        ),
        (
            {"ranker": "lexical", "reason": "extra_not_installed"},
            "lexical (the semantic extra is not installed)",
        ),
        (
            {"ranker": "lexical", "reason": "installed_not_loaded"},
            "lexical (the semantic extra is installed; restart memoryd to load it)",
        ),
        (
            {"ranker": "lexical", "reason": "load_failed"},
            "lexical (the embedding model failed to load; see memoryd's log)",
        ),
    ],
)
def test_status_names_the_ranker_in_plain_words(recall: dict[str, Any], said: str) -> None:
    assert f"recall:            {said}" in _status(recall)


def test_an_extra_installed_after_start_reads_as_installed_not_loaded() -> None:
    assert (
        recall_reason_now("extra_not_installed", False, lambda _name: object())
        == "installed_not_loaded"
    )
    assert (
        recall_reason_now("extra_not_installed", False, lambda _name: None) == "extra_not_installed"
    )
    assert recall_reason_now("disabled", False, lambda _name: object()) == "disabled"


def test_an_extra_present_at_start_that_failed_to_import_is_not_called_loadable() -> None:
    assert (
        recall_reason_now("extra_not_installed", True, lambda _name: object())
        == "extra_not_installed"
    )
