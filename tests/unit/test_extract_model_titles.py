"""A language-model extractor's title holds only the user's own words
(daemon/extraction/extract_model.py ``users_words``; docs/extraction.md):
each word one of the user turn's, case and diacritics apart, every ending as
the user wrote it; each run of Chinese or Japanese found in the turn as
written. Any other title is cut from the quote."""

from __future__ import annotations

import json

import pytest

from memoryd.daemon.config import ExtractModelConfig
from memoryd.daemon.external.projection_provider import parse_endpoint
from memoryd.daemon.extraction.extract_model import ModelExtractor, users_words
from memoryd.daemon.extraction.extractors import title_of
from memoryd.daemon.extraction.transcripts import Turn
from memoryd.daemon.retrieval.text_index import index_tokens

SAID = "The transcript for the disability office is exported to the secretary weekly."


@pytest.mark.parametrize(
    ("title", "said"),
    [
        ("Billing service", "We deploy the billing service with Argo CD."),
        ("Exported weekly", SAID),
        # Case and diacritics are folded as the lexical index folds them.
        ("CAFE closes", "Our café closes at noon."),
        ("Café closes", "OUR CAFE CLOSES AT NOON."),
        ("Port 5432", "The database listens on port 5432."),
        # Chinese and Japanese: a run found in the turn as written.
        ("机器学习", "我们用机器学习部署模型。"),
        ("GPU服务器", "我们的GPU服务器在机房。"),
        ("Kubernetes 部署", "我们用Kubernetes部署所有服务。"),
        ("デプロイ", "金曜日にデプロイしない。"),
        # Korean is written with spaces: its words are words.
        ("서버를 재시작하지", "서버를 재시작하지 마세요."),
    ],
)
def test_a_title_of_the_users_own_words_is_kept(title: str, said: str) -> None:
    assert users_words(title, said)


@pytest.mark.parametrize(
    ("title", "said"),
    [
        # Five leading letters shared, and another word.
        ("Disable transfers, export secrets", SAID),
        ("Disable", SAID),
        ("Secrets", SAID),
        ("Transfers", SAID),
        # Another ending of the user's word is not the word the user said.
        ("Export", SAID),
        ("Billing deploys", "We deploy the billing service with Argo CD."),
        # A run of CJK text the turn does not hold as written.
        ("学习机器", "我们用机器学习部署模型。"),
        ("模型审批", "部署模型需要审批。"),
        ("서버 재시작", "서버를 재시작하지 마세요."),
        # A Latin word is no word of the user's for being inside a CJK run.
        ("GPU", "我们的显卡服务器在机房。"),
    ],
)
def test_a_title_with_a_word_the_user_never_said_is_refused(title: str, said: str) -> None:
    assert not users_words(title, said)


@pytest.mark.parametrize("title", ["🔥🔥", "→ !!", "...", "—", "✅ ❌"])
def test_a_title_with_no_word_at_all_is_refused(title: str) -> None:
    assert not users_words(title, SAID)


@pytest.mark.parametrize(
    ("word", "users"),
    [
        ("disable", "disability"),
        ("organ", "organization"),
        ("general", "generation"),
        ("universe", "university"),
        ("new", "news"),
    ],
)
def test_words_the_index_stems_alike_are_still_two_words(word: str, users: str) -> None:
    """Why the index's stemmer does not decide: Porter gives these pairs one
    stem, and each is two words."""
    assert index_tokens(word) == index_tokens(users)
    assert not users_words(word.title(), f"We spoke of the {users}.")


def _extractor(answer: dict[str, object]) -> ModelExtractor:
    class Answering(ModelExtractor):
        def _post(self, body: bytes) -> bytes:
            content = json.dumps(answer)
            return json.dumps({"choices": [{"message": {"content": content}}]}).encode()

    return Answering(parse_endpoint("http://127.0.0.1:9"), None, ExtractModelConfig())


@pytest.mark.parametrize("title", ["Disable transfers, export secrets", "🔥🔥", "", "   "])
def test_a_refused_title_is_cut_from_the_quote(title: str) -> None:
    memory = {"type": "procedure", "title": title, "turn": 0, "quote": SAID}
    got = _extractor({"memories": [memory]}).extract([Turn("user", SAID, 0)], 8)
    [candidate] = got.candidates
    assert candidate.title == title_of(SAID)
    assert got.dropped == {}


def test_a_kept_title_is_the_models() -> None:
    memory = {"type": "procedure", "title": "Secretary weekly", "turn": 0, "quote": SAID}
    got = _extractor({"memories": [memory]}).extract([Turn("user", SAID, 0)], 8)
    assert [c.title for c in got.candidates] == ["Secretary weekly"]
