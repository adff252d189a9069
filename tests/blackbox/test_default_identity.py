"""The daemon's default identity (SPEC §7), from the environment it starts in.

Each test starts a real memoryd with one source set and reads
``memory.status``: which source was used, whether a signature was checked,
and that different credential kinds are different owners.
"""

from __future__ import annotations

import base64
import json
import shutil
import time
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from typing import Any

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat

from tests.harness import Daemon, entry, running, short_tempdir


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).decode().rstrip("=")


def _jwt(claims: dict[str, Any], key: Ed25519PrivateKey | None = None, alg: str = "EdDSA") -> str:
    head = _b64(json.dumps({"alg": alg, "typ": "JWT"}).encode())
    body = _b64(json.dumps(claims).encode())
    signing = f"{head}.{body}".encode()
    signature = key.sign(signing) if key is not None else b"unsigned"
    return f"{head}.{body}.{_b64(signature)}"


def _pem(key: Ed25519PrivateKey) -> str:
    return key.public_key().public_bytes(Encoding.PEM, PublicFormat.SubjectPublicKeyInfo).decode()


def _config(key: Ed25519PrivateKey) -> str:
    return f'jwt_public_key = """{_pem(key)}"""\n'


def _identity(env: Mapping[str, str], config: str | None = None) -> dict[str, Any]:
    with running(env=env, config=config) as d, d.control() as c:
        return c.call("memory.status", {})["identity"]  # type: ignore[no-any-return]


def _identities(*runs: tuple[Mapping[str, str], str | None]) -> list[dict[str, Any]]:
    """The identity of each run, one after another on ONE home: owner ids are
    keyed per home, so only owners of the same home can be compared."""
    root = short_tempdir()
    out = []
    try:
        for env, config in runs:
            d = Daemon(root / "h", env=env)
            config_file = d.home / "memoryd.toml"
            config_file.unlink(missing_ok=True)
            if config is not None:
                config_file.write_text(config)
            d.start()
            try:
                with d.control() as c:
                    out.append(c.call("memory.status", {})["identity"])
            finally:
                d.stop()
    finally:
        shutil.rmtree(root, ignore_errors=True)
    return out


@contextmanager
def _refused(env: Mapping[str, str], config: str | None = None) -> Iterator[Daemon]:
    root = short_tempdir()
    d = Daemon(root / "h", env=env, config=config)
    try:
        d.start(wait=False)
        assert d.proc is not None
        assert d.proc.wait(timeout=30) != 0
        yield d
    finally:
        d.kill()
        shutil.rmtree(root, ignore_errors=True)


def test_identity_json_is_used_first() -> None:
    ident = _identity(
        {
            "MEMORYD_IDENTITY_JSON": json.dumps({"kind": "device", "subject": "bob"}),
            "MEMORYD_USER_ID": "bob",
        }
    )
    assert ident["source"] == "identity_json"
    assert ident["identity_verified"] is False
    assert ident["owner"].startswith("own_")


def test_the_same_subject_under_two_kinds_is_two_owners() -> None:
    device = {"MEMORYD_IDENTITY_JSON": json.dumps({"kind": "device", "subject": "bob"})}
    as_device, as_user, again = _identities(
        (device, None), ({"MEMORYD_USER_ID": "bob"}, None), (device, None)
    )
    assert as_user["source"] == "user_id"
    assert as_device["owner"] == again["owner"]  # stable across restarts of one home
    assert as_device["owner"] != as_user["owner"]


def test_user_id_then_local_profile() -> None:
    assert _identity({"MEMORYD_USER_ID": "carol"})["source"] == "user_id"
    assert _identity({})["source"] == "local_profile"


def test_unverified_token_claims_choose_the_owner_but_are_not_verified() -> None:
    token = _jwt({"sub": "dana", "iss": "https://issuer.example"})
    ident = _identity({"MEMORYD_TOKEN": token})
    assert ident["source"] == "token"
    assert ident["identity_verified"] is False


def test_token_signed_by_the_configured_key_is_verified() -> None:
    key = Ed25519PrivateKey.generate()
    token = _jwt({"sub": "erin", "exp": int(time.time()) + 3600}, key)
    ident = _identity({"MEMORYD_TOKEN": token}, config=_config(key))
    assert (ident["source"], ident["identity_verified"]) == ("token", True)


def test_verified_and_unverified_claims_of_one_subject_are_one_owner() -> None:
    # Verification says whether the claims were checked; it does not change who they name.
    key = Ed25519PrivateKey.generate()
    token = _jwt({"sub": "frank"}, key)
    verified, unverified = _identities(
        ({"MEMORYD_TOKEN": token}, _config(key)), ({"MEMORYD_TOKEN": token}, None)
    )
    assert (verified["identity_verified"], unverified["identity_verified"]) == (True, False)
    assert verified["owner"] == unverified["owner"]


def test_a_bad_signature_refuses_to_start_without_echoing_the_token() -> None:
    key, other = Ed25519PrivateKey.generate(), Ed25519PrivateKey.generate()
    token = _jwt({"sub": "gina"}, other)
    with _refused({"MEMORYD_TOKEN": token}, config=_config(key)) as d:
        log = d.log()
        assert "signature does not verify" in log
        assert token not in log and "gina" not in log


def test_an_expired_verified_token_refuses_to_start() -> None:
    key = Ed25519PrivateKey.generate()
    token = _jwt({"sub": "hank", "exp": int(time.time()) - 60}, key)
    with _refused({"MEMORYD_TOKEN": token}, config=_config(key)) as d:
        assert "expired" in d.log()


def test_a_token_of_another_algorithm_is_refused_when_a_key_is_configured() -> None:
    key = Ed25519PrivateKey.generate()
    token = _jwt({"sub": "ivy"}, key, alg="HS256")
    with _refused({"MEMORYD_TOKEN": token}, config=_config(key)) as d:
        assert "EdDSA" in d.log()


def test_a_verified_token_not_valid_yet_refuses_to_start() -> None:
    key = Ed25519PrivateKey.generate()
    token = _jwt({"sub": "jill", "nbf": int(time.time()) + 3600}, key)
    with _refused({"MEMORYD_TOKEN": token}, config=_config(key)) as d:
        assert "not valid yet" in d.log()
        assert token not in d.log()


def test_a_verified_token_issued_in_the_future_refuses_to_start() -> None:
    key = Ed25519PrivateKey.generate()
    token = _jwt({"sub": "kim", "iat": int(time.time()) + 3600}, key)
    with _refused({"MEMORYD_TOKEN": token}, config=_config(key)) as d:
        assert "not valid yet" in d.log()


def test_a_verified_token_with_a_malformed_expiry_refuses_to_start() -> None:
    key = Ed25519PrivateKey.generate()
    token = _jwt({"sub": "lou", "exp": "tomorrow"}, key)
    with _refused({"MEMORYD_TOKEN": token}, config=_config(key)) as d:
        assert "MEMORYD_TOKEN" in d.log()
        assert token not in d.log()


def test_malformed_identity_json_refuses_to_start() -> None:
    with _refused({"MEMORYD_IDENTITY_JSON": '{"kind": "device"}'}) as d:
        assert "MEMORYD_IDENTITY_JSON" in d.log()


def test_each_default_owner_sees_only_its_own_memory() -> None:
    env_a = {"MEMORYD_USER_ID": "jo"}
    with running(env=env_a) as d, d.control() as c:
        written = c.call("memory.write", {"action": "add", "entry": entry()})["entries"][0]
        other = {"kind": "device", "subject": "jo"}
        assert c.call("memory.list", {"identity": other})["items"] == []
        listed = c.call("memory.list", {})["items"]
        assert [i["id"] for i in listed] == [written["id"]]
