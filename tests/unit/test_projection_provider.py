"""The provider adapter's endpoint rules and failure classes (no daemon)."""

from __future__ import annotations

import os
import socket
from pathlib import Path

import pytest

from memoryd.daemon.external.projection_provider import (
    FAILURES,
    CredentialError,
    Document,
    EndpointError,
    HttpProvider,
    ProviderError,
    load_credential,
    parse_endpoint,
)
from tests.provider_receiver import receiver


@pytest.mark.parametrize(
    "url,label",
    [
        ("https://memory.example.com", "memory.example.com:443"),
        ("https://memory.example.com:8443/api/", "memory.example.com:8443"),
        ("http://127.0.0.1:8080", "127.0.0.1:8080"),
        ("http://localhost", "localhost:80"),
        ("http://[::1]:9000", "[::1]:9000"),
    ],
)
def test_accepted_endpoints(url: str, label: str) -> None:
    assert parse_endpoint(url).label == label


@pytest.mark.parametrize(
    "url",
    [
        "http://memory.example.com",
        "http://10.0.0.1:80",
        "ftp://127.0.0.1",
        "https://user:pw@memory.example.com",
        "https://memory.example.com/?k=v",
        "https://memory.example.com/#x",
        "https://",
        "https://h:notaport",
    ],
)
def test_refused_endpoints_never_quote_the_url(url: str) -> None:
    with pytest.raises(EndpointError) as info:
        parse_endpoint(url)
    assert url not in str(info.value) and "pw" not in str(info.value)


def test_credential_from_env_and_file(tmp_path: Path) -> None:
    assert load_credential("X", None, tmp_path, {"X": " tok \n"}) == "tok"
    with pytest.raises(CredentialError):
        load_credential("X", None, tmp_path, {})
    f = tmp_path / "c"
    f.write_text("secret-value\n")
    f.chmod(0o640)
    with pytest.raises(CredentialError) as info:
        load_credential(None, "c", tmp_path, {})
    assert "secret-value" not in str(info.value)
    f.chmod(0o600)
    assert load_credential(None, str(f), tmp_path, {}) == "secret-value"
    os.symlink(f, tmp_path / "link")
    with pytest.raises(CredentialError):
        load_credential(None, "link", tmp_path, {})
    assert load_credential(None, None, tmp_path, {}) is None


def _doc(generation: int) -> Document:
    return Document(
        generation=generation,
        revision=1,
        content_hash="b3k:00",
        type="fact",
        title="t",
        summary="s",
        body="b",
        updated_at="2026-01-01T00:00:00Z",
    )


def test_adapter_against_the_receiver() -> None:
    with receiver("tok") as rx:
        p = HttpProvider(parse_endpoint(rx.endpoint), "tok", timeout=5, max_response_bytes=100_000)
        p.replace("bank_a", "doc_a", _doc(2))
        p.replace("bank_a", "doc_a", _doc(1))  # older: 409, newest wins, not an error
        assert rx.docs[("bank_a", "doc_a")]["generation"] == 2
        items = p.recall("bank_a", "q", 5)
        assert [i.id for i in items] == ["doc_a"]
        p.delete("bank_a", "doc_a", 3)
        p.delete("bank_a", "doc_a", 4)  # already gone: 404 is an acknowledgement
        assert rx.docs == {}
        assert "tok" not in repr(p)
        wrong = HttpProvider(
            parse_endpoint(rx.endpoint), "nope", timeout=5, max_response_bytes=100_000
        )
        with pytest.raises(ProviderError) as info:
            wrong.replace("bank_a", "doc_b", _doc(1))
        assert info.value.kind == "auth"
        for mode, kind in (
            ("status500", "transport"),
            ("redirect", "redirect"),
            ("malformed", "malformed"),
            ("oversized", "oversized"),
        ):
            rx.recall_mode = mode
            with pytest.raises(ProviderError) as info:
                p.recall("bank_a", "q", 5)
            assert info.value.kind == kind
            assert kind in FAILURES


def test_a_closed_port_is_a_transport_error() -> None:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    p = HttpProvider(
        parse_endpoint(f"http://127.0.0.1:{port}"), None, timeout=2, max_response_bytes=1_024
    )
    with pytest.raises(ProviderError) as info:
        p.delete("bank_a", "doc_a", 1)
    assert info.value.kind == "transport"
