"""An identity typed by the operator is checked: an unknown kind is refused
(-32602, nothing changes), and a subject never seen before (no token, no
consent, no entries) is named in a warning; adding it to a team needs
--force."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.harness import Daemon, expect, running


@pytest.fixture(scope="module")
def d() -> Iterator[Daemon]:
    with running() as daemon:
        yield daemon


@pytest.mark.parametrize(
    ("method", "params"),
    [
        ("consent.get", {}),
        ("consent.set", {"read": True, "version": 0}),
        ("team.add", {"name": "typo-team"}),
        ("memory.list", {}),
    ],
)
def test_an_unknown_identity_kind_is_refused(
    d: Daemon, method: str, params: dict[str, object]
) -> None:
    with d.control() as c:
        c.call("team.create", {"name": "typo-team"}) if method == "team.add" else None
        err = expect(
            -32602,
            "invalid_params",
            c.call,
            method,
            {**params, "identity": {"kind": "tokn", "subject": "alice"}},
        )
        assert err.errors == [{"path": "$.identity.kind", "problem": "unknown_identity_kind"}]
        assert (
            c.call("consent.get", {"identity": {"kind": "token", "subject": "alice"}})["version"]
            == 0
        )


def test_memctl_refuses_a_misspelled_kind(d: Daemon) -> None:
    done = d.memctl(
        "consent",
        "set",
        "--read",
        "on",
        "--identity-kind",
        "tokn",
        "--identity-subject",
        "alice",
        process=True,
    )
    assert done.returncode != 0
    assert b"unknown_identity_kind" in done.stderr


def test_team_add_of_a_never_seen_subject_needs_force(d: Daemon) -> None:
    assert d.memctl("team", "create", "seen-check", process=True).returncode == 0
    who = ["--identity-kind", "token", "--identity-subject", "alcie"]
    refused = d.memctl("team", "add", "seen-check", *who, process=True)
    assert refused.returncode != 0
    assert b"never been seen" in refused.stderr and b"--force" in refused.stderr
    with d.control() as c:
        teams = c.call("team.list", {})["teams"]
    assert [t["members"] for t in teams if t["name"] == "seen-check"] == [[]]
    forced = d.memctl("team", "add", "seen-check", *who, "--force", process=True)
    assert forced.returncode == 0, forced.stderr


def test_consent_for_a_never_seen_subject_warns_and_proceeds(d: Daemon) -> None:
    # Setting consent is how a new identity is usually first set up.
    done = d.memctl(
        "consent",
        "set",
        "--read",
        "on",
        "--identity-kind",
        "local",
        "--identity-subject",
        "newcomer",
        process=True,
    )
    assert done.returncode == 0, done.stderr
    assert b"never been seen" in done.stderr
    again = d.memctl(
        "consent",
        "set",
        "--contribute",
        "on",
        "--identity-kind",
        "local",
        "--identity-subject",
        "newcomer",
        process=True,
    )
    assert again.returncode == 0 and b"never been seen" not in again.stderr


def test_team_add_of_a_known_subject_needs_no_force(d: Daemon) -> None:
    assert d.memctl("team", "create", "known-check", process=True).returncode == 0
    who = ["--identity-kind", "local", "--identity-subject", "known"]
    assert (
        d.memctl("token", "issue", "--kind", "local", "--subject", "known", process=True).returncode
        == 0
    )
    done = d.memctl("team", "add", "known-check", *who, process=True)
    assert done.returncode == 0, done.stderr
    assert b"never been seen" not in done.stderr
