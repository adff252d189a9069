"""The language-model extractor: an OpenAI-compatible chat endpoint.

Owns: ``ModelExtractor``, which sends a finished task's turns to a chat
completions endpoint (a local llama.cpp, vLLM or Ollama server, or a hosted
one) configured in ``[extract.model]`` — HTTPS, or HTTP on loopback, with the
credential from an environment variable or a 0600 file, exactly as projection
takes its endpoint (daemon/external/projection_provider.py) — and reads its JSON answer.

The answer must be a JSON object ``{"memories": [{"type", "title", "turn",
"quote"}]}``: for each candidate the index of the user turn it rests on and
the exact words quoted from it. A candidate whose quote is not found verbatim
in that turn, or whose turn is not the user's, is dropped and counted
(``not_verbatim``); so is one of an unknown type. The title is the model's
own words: kept only when each of its words is one of the user's turn
(case and diacritics apart, every ending as the user wrote it; a run of
Chinese or Japanese found in the turn as written), else cut from the quote,
as the built-in extractor cuts it (``users_words``).

Invariants:
- a ``429``, a ``5xx``, a timeout or a connection failure is a transient
  ``ProviderError`` (the worker defers the job with backoff), carrying the
  seconds of the answer's ``Retry-After`` when it has one; anything else
  the endpoint answers outside the protocol is permanent (the job fails);
- no error, log or exception carries the transcript, the answer, the
  credential or the endpoint's path: class names only;
- the worker decides ``NetworkAccess`` for the endpoint's host and
  ``MemoryExternalize`` for the transcript before every request
  (daemon/extraction/extract_worker.py): the transcript leaves the host.
"""

from __future__ import annotations

import http.client
import re
import ssl
from collections.abc import Mapping, Sequence
from datetime import UTC, datetime
from email.utils import parsedate_to_datetime
from pathlib import Path
from typing import Any

import msgspec

from memoryd.daemon.config import ExtractModelConfig
from memoryd.daemon.external.projection_provider import (
    CredentialError,
    Endpoint,
    EndpointError,
    load_credential,
    parse_endpoint,
)
from memoryd.daemon.extraction.extract_worker import ProviderError
from memoryd.daemon.extraction.extractors import Candidate, Extracted, title_of
from memoryd.daemon.extraction.transcripts import Turn
from memoryd.daemon.retrieval.text_index import folded_words
from memoryd.kernel.retention import ENTRY_TYPES

__all__ = ["PROMPT", "ModelExtractor", "build", "retry_after", "users_words"]

TYPES = frozenset(ENTRY_TYPES)
PROMPT = (
    "You read a finished session between a user and an assistant and pick what the "
    "USER said that is worth remembering for future sessions: durable preferences, "
    "facts about the user's systems, procedures and lessons. Never pick what the "
    "assistant or a tool said, questions, or one-off requests. Answer only with a JSON "
    'object {"memories": [{"type": "preference|fact|procedure|lesson", "title": '
    '"a few words", "turn": <index of the user turn>, "quote": "the exact words of '
    'that user turn, copied verbatim"}]}. Quote whole sentences; at most '
)


class _Memory(msgspec.Struct, frozen=True):
    type: str
    title: str
    turn: int
    quote: str


class _Answer(msgspec.Struct, frozen=True):
    memories: list[_Memory]


class ModelExtractor:
    """Candidates from an OpenAI-compatible chat completions endpoint."""

    name = "model"

    def __init__(self, endpoint: Endpoint, credential: str | None,
                 cfg: ExtractModelConfig) -> None:
        self.endpoint = endpoint
        self._credential = credential
        self.cfg = cfg

    def __repr__(self) -> str:  # never the credential
        return f"ModelExtractor({self.endpoint.label})"

    def _request(self, turns: Sequence[Turn], max_candidates: int) -> bytes:
        lines = [f"[{t.index}] {t.role}: {t.content}" for t in turns]
        text = "\n".join(lines)[: self.cfg.max_input_chars]
        return msgspec.json.encode({
            "model": self.cfg.model,
            "temperature": 0,
            "response_format": {"type": "json_object"},
            "messages": [
                {"role": "system", "content": PROMPT + f"{max_candidates} memories."},
                {"role": "user", "content": text},
            ],
        })

    def _post(self, body: bytes) -> bytes:
        e = self.endpoint
        conn: http.client.HTTPConnection
        if e.scheme == "https":
            conn = http.client.HTTPSConnection(e.host, e.port, timeout=self.cfg.timeout_s,
                                               context=ssl.create_default_context())
        else:
            conn = http.client.HTTPConnection(e.host, e.port, timeout=self.cfg.timeout_s)
        headers = {"Content-Type": "application/json", "Accept": "application/json"}
        if self._credential is not None:
            headers["Authorization"] = f"Bearer {self._credential}"
        try:
            conn.request("POST", e.base_path + "/chat/completions", body=body, headers=headers)
            resp = conn.getresponse()
            try:
                data = resp.read(self.cfg.max_response_bytes + 1)
            finally:
                resp.close()
        except TimeoutError:
            raise ProviderError("timeout") from None
        except (OSError, http.client.HTTPException):
            raise ProviderError("transport") from None
        finally:
            conn.close()
        if resp.status == 429 or resp.status >= 500:
            raise ProviderError("throttled" if resp.status == 429 else "server_error",
                                retry_after=retry_after(resp.getheader("Retry-After")))
        if not 200 <= resp.status < 300:
            raise ProviderError("refused", transient=False)
        if len(data) > self.cfg.max_response_bytes:
            raise ProviderError("oversized", transient=False)
        return data

    def extract(self, turns: Sequence[Turn], max_candidates: int) -> Extracted:
        data = self._post(self._request(turns, max_candidates))
        try:
            reply: Any = msgspec.json.decode(data)
            content = reply["choices"][0]["message"]["content"]
            answer = msgspec.json.decode(content, type=_Answer)
        except (msgspec.DecodeError, msgspec.ValidationError, KeyError, IndexError, TypeError,
                RecursionError):
            # msgspec recurses into every value, unknown fields' too: an
            # answer nested a thousand levels deep exhausts the stack, and is
            # as malformed as any other answer outside the protocol.
            raise ProviderError("malformed", transient=False) from None
        out = Extracted()
        by_index = {t.index: t for t in turns}
        for m in answer.memories:
            turn = by_index.get(m.turn)
            quote = m.quote.strip()
            start = turn.content.find(quote) if turn is not None and quote else -1
            if turn is None or turn.role != "user" or start < 0:
                out.dropped["not_verbatim"] = out.dropped.get("not_verbatim", 0) + 1
                continue
            if m.type not in TYPES:
                out.dropped["unknown_type"] = out.dropped.get("unknown_type", 0) + 1
                continue
            if len(out.candidates) >= max_candidates:
                out.dropped["over_cap"] = out.dropped.get("over_cap", 0) + 1
                continue
            title = m.title.strip()[:80]
            if not title or not users_words(title, turn.content):
                title = title_of(quote)
            out.candidates.append(Candidate(m.type, title, quote, turn.index, start,
                                            start + len(quote)))
        return out


# Chinese and Japanese: Han ideographs and kana (the index's CJK ranges
# less Hangul; daemon/retrieval/text_index.py). Written without spaces, a run
# of them cannot be split into words here. Korean puts spaces between its
# words, so a Hangul word is checked as a word.
_UNSPACED = re.compile("[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"
                       "\U00020000-\U0002ffff]+")


def users_words(title: str, said: str) -> bool:
    """Whether every word of ``title`` is one of ``said``'s, as the lexical
    index folds words (case and diacritics, ``folded_words``) but with
    every ending kept, and each run of Chinese or Japanese in it is found
    in ``said`` as written. A title with neither (only symbols, emoji,
    punctuation) says nothing of the user's: refused.

    Words are not compared through the index's stemmer: Porter maps words
    that are not one word to one stem ("disable" and "disability",
    "organ" and "organization", "general" and "generation"), so a stem
    would let a word the user never said through. "Export" for "exported"
    is refused too; the title is then cut from the quote, in the user's
    own words (docs/decisions/0401-a-model-title-is-the-users-exact-words.md).
    """
    runs = _UNSPACED.findall(title)
    words = folded_words(_UNSPACED.sub(" ", title))
    if not runs and not words:
        return False
    if not all(run in said for run in runs):
        return False
    return set(words) <= set(folded_words(_UNSPACED.sub(" ", said)))


def retry_after(value: str | None, now: datetime | None = None) -> float | None:
    """The seconds a ``Retry-After`` header asks for (delay-seconds or an
    HTTP date, RFC 9110 10.2.3); None when absent or unreadable."""
    if value is None:
        return None
    text = value.strip()
    if text.isdigit():
        return float(text)
    try:
        when = parsedate_to_datetime(text)
    except (TypeError, ValueError, IndexError):
        return None
    if when.tzinfo is None:
        return None
    return max(0.0, (when - (now or datetime.now(UTC))).total_seconds())


def build(cfg: ExtractModelConfig, home: Path, environ: Mapping[str, str]) -> ModelExtractor:
    """The extractor ``[extract.model]`` configures; ``EndpointError`` or
    ``CredentialError`` (naming the key, never its value) when it cannot be."""
    if cfg.endpoint is None:
        raise EndpointError("extract.model.endpoint is required for extractor = \"model\"")
    try:
        endpoint = parse_endpoint(cfg.endpoint)
    except EndpointError as exc:
        raise EndpointError(f"extract.model.endpoint {exc}") from None
    try:
        credential = load_credential(cfg.credential_env, cfg.credential_file, home, environ)
    except CredentialError as exc:
        raise CredentialError(str(exc).replace("projection.", "extract.model.")) from None
    return ModelExtractor(endpoint, credential, cfg)
