"""The built-in extractor and the transcript reader (daemon/extraction/extractors.py,
daemon/extraction/transcripts.py), and the labelled set the benchmark scores."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from memoryd.daemon.extraction.extractors import Builtin
from memoryd.daemon.extraction.transcripts import Turn, decode, encode, parse_jsonl
from memoryd.kernel.errors import LimitExceeded
from memoryd.rpc.errors import InvalidParams

SET = Path(__file__).resolve().parents[1] / "data" / "extraction" / "transcripts.jsonl"


def extract(*turns: tuple[str, str], cap: int = 8) -> list[tuple[str, str]]:
    got = Builtin().extract([Turn(r, c, i) for i, (r, c) in enumerate(turns)], cap)
    return [(c.type, c.body) for c in got.candidates]


def test_only_the_users_own_durable_sentences_are_proposed() -> None:
    assert extract(
        ("user", "Can you fix it? I prefer tabs over spaces in every Go file. Thanks."),
        ("assistant", "I prefer spaces, and we use four of them everywhere."),
        ("tool", "We use the main branch for every release of the service."),
    ) == [("preference", "I prefer tabs over spaces in every Go file.")]


def test_types_follow_what_the_sentence_states() -> None:
    got = dict((b, t) for t, b in extract(
        ("user", "Turns out the cache must be warmed before a release."),
        ("user", "Before merging, run the integration tests on staging."),
        ("user", "We deploy the API with Helm from the ops repository."),
        ("user", "以后请总是用中文回答我的问题。"),
    ))
    assert list(got.values()) == ["lesson", "procedure", "fact", "preference"]


def test_questions_code_and_one_off_requests_are_left_out() -> None:
    assert extract(
        ("user", "Why do we deploy with Helm from the ops repository?"),
        ("user", "```\nwe use this = that = other\n```"),
        ("user", "Please fix the build, we use it today."),
        ("user", "为什么我们用 Kubernetes 部署所有服务？"),
    ) == []


def test_spans_are_the_turns_own_characters_and_repeats_are_dropped() -> None:
    turns = [Turn("user", "ok.  I prefer short commit messages in English.", 0),
             Turn("user", "I PREFER short commit messages in English!", 3)]
    got = Builtin().extract(turns, 8)
    [c] = got.candidates
    assert turns[0].content[c.start:c.end] == c.body and c.turn == 0
    assert got.dropped == {"repeated": 1}


def test_at_most_the_cap_is_proposed() -> None:
    text = " ".join(f"I prefer option number {n} for the build step." for n in range(5))
    got = Builtin().extract([Turn("user", text, 0)], 2)
    assert len(got.candidates) == 2 and got.dropped == {"over_cap": 3}


def test_a_malformed_line_is_refused_by_its_number_without_its_text() -> None:
    text = '{"role": "user", "content": "fine"}\n\n{"role": "user", "content": "sekrit"\n'
    with pytest.raises(InvalidParams) as err:
        parse_jsonl(text, max_bytes=10_000, max_turns=10)
    assert err.value.errors[0]["line"] == "3"
    assert "sekrit" not in json.dumps(err.value.errors)
    with pytest.raises(InvalidParams) as err:
        parse_jsonl('{"role": "system", "content": "x"}', max_bytes=10_000, max_turns=10)
    assert err.value.errors[0]["path"] == "$.transcript.role"


def test_caps_refuse_a_transcript_too_large() -> None:
    with pytest.raises(LimitExceeded) as err:
        parse_jsonl('{"role": "user", "content": "' + "x" * 200 + '"}', max_bytes=100,
                    max_turns=10)
    assert err.value.code == "transcript_too_large"
    with pytest.raises(LimitExceeded):
        parse_jsonl('{"role": "user", "content": "x"}\n' * 3, max_bytes=10_000, max_turns=2)


def test_the_stored_form_keeps_each_turns_index() -> None:
    turns = [Turn("user", "a", 0), Turn("assistant", "b", 2)]
    assert decode(encode(turns)) == turns


def test_the_labelled_set_is_whole() -> None:
    cases = [json.loads(line) for line in SET.read_text(encoding="utf-8").splitlines()]
    assert len(cases) >= 40
    assert {c["lang"] for c in cases} == {"en", "zh"}
    assert {c["domain"] for c in cases} == {"coding", "sre"}
    held = [c for c in cases if c["split"] == "holdout"]
    assert len(cases) // 4 <= len(held) <= len(cases) // 2
    for case in cases:
        users = [t["content"] for t in case["turns"] if t["role"] == "user"]
        for body in case["keep"]:
            assert any(body in u for u in users), case["id"]


def test_a_version_number_does_not_end_a_sentence() -> None:
    assert extract(("user", "Good. We use Python 3.12 for all services in this repo.")) == [
        ("fact", "We use Python 3.12 for all services in this repo.")]


def test_a_statement_that_a_tool_changed_is_proposed() -> None:
    assert [b for _t, b in extract(
        ("user", "我们改用 yarn 管理依赖了。"),
        ("user", "我现在更喜欢用两个空格缩进。"),
        ("user", "We switched to Argo CD for every deploy of the billing service."),
    )] == ["我们改用 yarn 管理依赖了。", "我现在更喜欢用两个空格缩进。",
           "We switched to Argo CD for every deploy of the billing service."]
