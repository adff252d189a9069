"""The external memory provider seam and its one adapter (docs/provider-openapi.yaml).

Owns: the endpoint rules (HTTPS for remote hosts, plain HTTP only on
loopback, no credentials or query in the URL), loading the credential from
an environment variable or a 0600 file, the ``Provider`` Protocol, the
``HttpProvider`` adapter for memoryd's provider protocol, and the closed
vocabulary of failure classes every adapter reports.

Invariants:
- a redirect is never followed: any 3xx is the failure class ``redirect``;
- no exception raised here carries a credential, a URL path holding ids, a
  request or response body, or the text of an underlying error: only a class
  name from ``FAILURES``;
- a response body is read up to ``max_response_bytes`` + 1 bytes and no
  further (``oversized`` beyond that), and must be strict JSON of the
  documented shape (``malformed`` otherwise);
- a request that may have reached the provider but got no answer is
  ``ambiguous``, never ``transport`` (the outbox fences on it).
"""

from __future__ import annotations

import http.client
import os
import ssl
import stat
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final, Protocol
from urllib.parse import quote, urlsplit

import msgspec

from memoryd.rpc.paths import is_loopback_host

ADAPTER: Final = "memoryd-provider/1"

# Every way a provider call can fail -> whether the outbox may retry it.
# Contract and authentication errors are permanent; transport errors retry;
# ambiguous outcomes fence the document until a reseed.
FAILURES: Final[dict[str, str]] = {
    "transport": "retry",       # could not connect, or the provider said 429 / 5xx
    "timeout": "retry",         # no connection within the timeout (nothing was sent)
    "ambiguous": "fence",       # sent, but no answer: it may or may not have applied
    "auth": "permanent",        # 401 / 403
    "contract": "permanent",    # any other 4xx, or a reply outside the protocol
    "redirect": "permanent",    # 3xx: redirects are refused, never followed
    "malformed": "permanent",   # the reply is not the documented JSON
    "oversized": "permanent",   # the reply is larger than max_response_bytes
}


class EndpointError(ValueError):
    """The configured endpoint breaks a rule; the message never quotes it."""


class CredentialError(Exception):
    """The credential could not be loaded; the message names the source, not the value."""


class ProviderError(Exception):
    """A provider call failed; ``kind`` is a key of ``FAILURES`` and the only detail."""

    def __init__(self, kind: str) -> None:
        assert kind in FAILURES
        super().__init__(kind)
        self.kind = kind


@dataclass(frozen=True, slots=True)
class Endpoint:
    scheme: str
    host: str
    port: int
    base_path: str

    @property
    def label(self) -> str:
        """``host:port``: what NetworkAccess decides and status shows (no path)."""
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"{host}:{self.port}"


def parse_endpoint(url: str) -> Endpoint:
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError:
        raise EndpointError("is not a valid URL") from None
    if parts.scheme not in ("http", "https"):
        raise EndpointError("must be an https:// URL (http:// only on loopback)")
    if parts.username is not None or parts.password is not None:
        raise EndpointError("must not hold credentials; use credential_env or credential_file")
    if parts.query or parts.fragment:
        raise EndpointError("must not have a query or fragment")
    host = parts.hostname
    if not host:
        raise EndpointError("has no host")
    if parts.scheme == "http" and not is_loopback_host(host):
        raise EndpointError("must use https:// for a host that is not loopback")
    return Endpoint(parts.scheme, host, port or (443 if parts.scheme == "https" else 80),
                    parts.path.rstrip("/"))


def load_credential(env_name: str | None, file_name: str | None, home: Path,
                    environ: Mapping[str, str]) -> str | None:
    """The bearer credential, from an environment variable or a 0600 file (or none)."""
    if env_name is not None:
        value = environ.get(env_name)
        if not value:
            raise CredentialError("projection.credential_env names an unset variable")
        return value.strip()
    if file_name is None:
        return None
    path = Path(file_name)
    if not path.is_absolute():
        path = home / path
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW)
    except OSError:
        raise CredentialError("projection.credential_file cannot be opened") from None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode) or info.st_uid != os.getuid():
            raise CredentialError("projection.credential_file must be a file owned by"
                                  " the daemon's user")
        if info.st_mode & 0o077:
            raise CredentialError("projection.credential_file must have mode 0600")
        data = os.read(fd, 65_536)
    finally:
        os.close(fd)
    value = data.decode("utf-8", "replace").strip()
    if not value:
        raise CredentialError("projection.credential_file is empty")
    return value


class Document(msgspec.Struct, frozen=True, kw_only=True):
    """What a ``replace`` carries: one entry's current content and its generation."""

    generation: int
    revision: int
    content_hash: str
    type: str
    title: str
    summary: str
    body: str
    updated_at: str


class RecallItem(msgspec.Struct, frozen=True, kw_only=True):
    id: str
    text: str
    score: float | None = None


class RecallReply(msgspec.Struct, frozen=True, kw_only=True):
    items: list[RecallItem]


class Provider(Protocol):
    """An external memory service. Every method raises ``ProviderError`` only."""

    adapter: str

    def replace(self, bank: str, document: str, doc: Document) -> None: ...

    def delete(self, bank: str, document: str, generation: int) -> None: ...

    def recall(self, bank: str, query: str, limit: int) -> list[RecallItem]: ...


_encode = msgspec.json.Encoder()
_recall_reply = msgspec.json.Decoder(RecallReply)


class HttpProvider:
    """memoryd's provider protocol over HTTP/1.1, one connection per call."""

    adapter = ADAPTER

    def __init__(self, endpoint: Endpoint, credential: str | None, *, timeout: float,
                 max_response_bytes: int) -> None:
        self.endpoint = endpoint
        self._credential = credential
        self.timeout = timeout
        self.max_response_bytes = max_response_bytes

    def __repr__(self) -> str:  # never the credential
        return f"HttpProvider({self.endpoint.label})"

    def _connection(self) -> http.client.HTTPConnection:
        e = self.endpoint
        if e.scheme == "https":
            return http.client.HTTPSConnection(e.host, e.port, timeout=self.timeout,
                                               context=ssl.create_default_context())
        return http.client.HTTPConnection(e.host, e.port, timeout=self.timeout)

    def _call(self, method: str, path: str, body: bytes | None) -> tuple[int, bytes]:
        conn = self._connection()
        headers = {"Accept": "application/json", "User-Agent": ADAPTER}
        if body is not None:
            headers["Content-Type"] = "application/json"
        if self._credential is not None:
            headers["Authorization"] = f"Bearer {self._credential}"
        try:
            try:
                conn.connect()
            except TimeoutError:
                raise ProviderError("timeout") from None
            except OSError:  # refused, unreachable, TLS failure: nothing was sent
                raise ProviderError("transport") from None
            try:
                conn.request(method, self.endpoint.base_path + path, body=body,
                             headers=headers)
                resp = conn.getresponse()
                try:
                    data = resp.read(self.max_response_bytes + 1)
                finally:
                    # An unread rest keeps the socket open: close it with the reply.
                    resp.close()
            except (OSError, http.client.HTTPException):
                # The request may have reached the provider: we cannot tell.
                raise ProviderError("ambiguous") from None
        finally:
            conn.close()
        if len(data) > self.max_response_bytes:
            raise ProviderError("oversized")
        return resp.status, data

    @staticmethod
    def _check(status: int, *, ok_missing: bool = False) -> None:
        if 200 <= status < 300 or (ok_missing and status == 404):
            return
        if 300 <= status < 400:
            raise ProviderError("redirect")
        if status in (401, 403):
            raise ProviderError("auth")
        if status == 429 or status >= 500:
            raise ProviderError("transport")
        raise ProviderError("contract")

    @staticmethod
    def _doc_path(bank: str, document: str) -> str:
        return f"/v1/banks/{quote(bank, safe='')}/documents/{quote(document, safe='')}"

    def replace(self, bank: str, document: str, doc: Document) -> None:
        status, _ = self._call("PUT", self._doc_path(bank, document), _encode.encode(doc))
        if status == 409:
            # The provider holds a newer generation: ours is outdated and the
            # newest one wins there too (docs/provider-openapi.yaml).
            return
        self._check(status)

    def delete(self, bank: str, document: str, generation: int) -> None:
        status, _ = self._call(
            "DELETE", f"{self._doc_path(bank, document)}?generation={generation}", None)
        if status == 409:
            return
        # 404: already gone; a tombstone is idempotent.
        self._check(status, ok_missing=True)

    def recall(self, bank: str, query: str, limit: int) -> list[RecallItem]:
        body = _encode.encode({"query": query, "limit": limit})
        status, data = self._call("POST", f"/v1/banks/{quote(bank, safe='')}/recall", body)
        self._check(status)
        try:
            reply = _recall_reply.decode(data)
        except (msgspec.DecodeError, RecursionError):
            # ValidationError included: wrong shape. msgspec recurses into
            # every value, unknown fields' too: an answer nested a thousand
            # levels deep exhausts the stack, and is malformed like any other.
            raise ProviderError("malformed") from None
        return reply.items


def failure_action(kind: str) -> str:
    return FAILURES.get(kind, "permanent")


def describe(value: Any) -> str:
    """A failure class for anything an adapter raised (unknown errors are contract)."""
    return value.kind if isinstance(value, ProviderError) else "contract"
