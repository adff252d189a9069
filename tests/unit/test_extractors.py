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
DEV2 = SET.with_name("dev2.jsonl")


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
    got = dict(
        (b, t)
        for t, b in extract(
            ("user", "Turns out the cache must be warmed before a release."),
            ("user", "Before merging, run the integration tests on staging."),
            ("user", "We deploy the API with Helm from the ops repository."),
            ("user", "以后请总是用中文回答我的问题。"),
        )
    )
    assert list(got.values()) == ["lesson", "procedure", "fact", "preference"]


def test_questions_code_and_one_off_requests_are_left_out() -> None:
    assert (
        extract(
            ("user", "Why do we deploy with Helm from the ops repository?"),
            ("user", "```\nwe use this = that = other\n```"),
            ("user", "Please fix the build, we use it today."),
            ("user", "为什么我们用 Kubernetes 部署所有服务？"),
        )
        == []
    )


def kept(*sentences: str) -> dict[str, str]:
    """Each sentence said in a user turn of its own: {body: type} of those proposed."""
    return {b: t for t, b in extract(*(("user", s) for s in sentences))}


def test_conventions_stated_by_the_team_are_kept() -> None:
    assert kept(
        "We squash-merge every pull request into main.",
        "Our convention is that feature flags are removed within two releases.",
        "We agreed on 100 columns as the line length last quarter.",
        "我们组要求每个 PR 都要有人评审。",
        "函数名统一用英文，注释可以写中文。",
    ) == {
        "We squash-merge every pull request into main.": "fact",
        "Our convention is that feature flags are removed within two releases.": "fact",
        "We agreed on 100 columns as the line length last quarter.": "fact",
        "我们组要求每个 PR 都要有人评审。": "fact",
        "函数名统一用英文，注释可以写中文。": "preference",
    }


def test_facts_about_named_systems_are_kept() -> None:
    got = kept(
        "Heads up: the build agents run Ubuntu 22.04 with Python 3.11.",
        "The session store is Redis 7 on the shared cache cluster.",
        "Staging uses local-path volumes and production uses gp3.",
        "For context, I'm the on-call lead for the search team.",
        "测试环境的数据库是 PostgreSQL 15，每晚重建一次。",
        "我是负责基础设施的，平时主要用 Terraform。",
    )
    assert set(got.values()) == {"fact"} and len(got) == 6


def test_procedures_over_several_sentences_are_kept() -> None:
    got = kept(
        "First you bump the version in setup.cfg. Then you tag the release and push the tag.",
        "When a disk fills up, rotate the logs first, then grow the volume.",
        "Whenever a deploy is rolled back, post the reason in the release channel.",
        "切换主库是这样做的。先在从库上确认复制延迟为零。然后再切换写流量。",
        "重启数据库之前，一定要先确认主从同步没有延迟。",
    )
    assert got == {
        "切换主库是这样做的。": "procedure",
        "First you bump the version in setup.cfg.": "procedure",
        "Then you tag the release and push the tag.": "procedure",
        "When a disk fills up, rotate the logs first, then grow the volume.": "procedure",
        "Whenever a deploy is rolled back, post the reason in the release channel.": "procedure",
        "先在从库上确认复制延迟为零。": "procedure",
        "然后再切换写流量。": "procedure",
        "重启数据库之前，一定要先确认主从同步没有延迟。": "procedure",
    }


def test_lessons_are_kept() -> None:
    got = kept(
        "Last time the certificate expired because the renewal job ran under a removed account.",
        "A schema change without a warm-up step makes checkout fall over, otherwise it is fine.",
        "上次缓存没设过期时间，结果把内存吃光了。",
        "上回切换时忘了停写流量，结果出现了双写。",
    )
    assert set(got.values()) == {"lesson"} and len(got) == 4


def test_inline_code_does_not_hide_a_durable_sentence() -> None:
    assert kept("Never edit the generated files in `web/src/api/` by hand.") == {
        "Never edit the generated files in `web/src/api/` by hand.": "preference"
    }


def test_requests_status_guesses_and_quotes_are_left_out() -> None:
    assert (
        kept(
            "Restart the ingress controller in staging.",
            "Roll back for now.",
            "The build is green now, thanks.",
            "Maybe we should switch to pnpm at some point.",
            "You said we should always pin every dependency, I'm not sure about that.",
            "We're seeing 502s on the gateway right now.",
            "The login page renders twice on every keystroke.",
            "When the build finishes, deploy it to staging and tell me.",
            "First look at the pod logs, then let me know what you see.",
            "First rebase the branch on main. Then run the tests and push it.",
            "先把分支合到主干上。然后跑一遍测试再推上去。",
            "That deploy flushed the cache.",
            "先这样吧，谢谢。",
            "现在先把副本扩到十个。",
            "可能是昨天的配置改动，我不确定。",
            "你刚才说每个服务都要加缓存，这个我们还没定。",
            "集群现在 CPU 有点高，你看一下。",
        )
        == {}
    )


def test_a_lesson_may_tell_of_a_failure_and_a_habit_of_a_weekday() -> None:
    assert kept(
        "以前因为没有限流，一个爬虫把服务打挂了，所以公开接口都要加限流。",
        "We got burned by a one-day DNS TTL once, so keep TTLs at five minutes.",
        "发布只在工作日进行，每个周五下午都不发布。",
        "To rotate the certificates, renew them with certbot, then reload nginx.",
        "I'd like commit messages in the imperative mood.",
    ) == {
        "以前因为没有限流，一个爬虫把服务打挂了，所以公开接口都要加限流。": "lesson",
        "We got burned by a one-day DNS TTL once, so keep TTLs at five minutes.": "lesson",
        "发布只在工作日进行，每个周五下午都不发布。": "fact",
        "To rotate the certificates, renew them with certbot, then reload nginx.": "procedure",
        "I'd like commit messages in the imperative mood.": "preference",
    }


def test_events_corrections_and_symptoms_are_left_out() -> None:
    assert (
        kept(
            "Sorry, I meant the orders table, not the order_items table.",
            "The job runs for hours and never finishes.",
            "The worker queue has 40k messages backed up.",
            "Every pod in the namespace restarted at 02:13.",
            "Our traffic doubled over the weekend because of the campaign.",
            "We must have missed a config change somewhere.",
            "我们这次发布要推迟到下周。",
        )
        == {}
    )


def test_quantified_rules_are_kept_and_news_of_the_moment_is_not() -> None:
    assert kept(
        "Anything that touches the ledger needs a second reviewer, never just one.",
        "Our Kafka topics use six partitions.",
        "线上环境的任何变更都要有人复核。",
        "The latest build has the fix.",
        "The leak is gone after your change.",
        "The dashboard link is pinned in the channel if you need it.",
    ) == {
        "Anything that touches the ledger needs a second reviewer, never just one.": "fact",
        "Our Kafka topics use six partitions.": "fact",
        "线上环境的任何变更都要有人复核。": "fact",
    }


def test_spans_are_the_turns_own_characters_and_repeats_are_dropped() -> None:
    turns = [
        Turn("user", "ok.  I prefer short commit messages in English.", 0),
        Turn("user", "I PREFER short commit messages in English!", 3),
    ]
    got = Builtin().extract(turns, 8)
    [c] = got.candidates
    assert turns[0].content[c.start : c.end] == c.body and c.turn == 0
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
        parse_jsonl('{"role": "user", "content": "' + "x" * 200 + '"}', max_bytes=100, max_turns=10)
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
        ("fact", "We use Python 3.12 for all services in this repo.")
    ]


def test_a_statement_that_a_tool_changed_is_proposed() -> None:
    assert [
        b
        for _t, b in extract(
            ("user", "我们改用 yarn 管理依赖了。"),
            ("user", "我现在更喜欢用两个空格缩进。"),
            ("user", "We switched to Argo CD for every deploy of the billing service."),
        )
    ] == [
        "我们改用 yarn 管理依赖了。",
        "我现在更喜欢用两个空格缩进。",
        "We switched to Argo CD for every deploy of the billing service.",
    ]


def test_the_second_labelled_set_is_whole_and_its_own() -> None:
    cases = [json.loads(line) for line in DEV2.read_text(encoding="utf-8").splitlines()]
    assert len(cases) >= 20
    assert {c["lang"] for c in cases} == {"en", "zh"}
    assert {c["domain"] for c in cases} == {"coding", "sre"}
    held = [c for c in cases if c["split"] == "holdout"]
    assert {c["split"] for c in cases} == {"tune", "holdout"}
    assert len(cases) // 4 <= len(held) <= len(cases) // 2
    assert any(not c["keep"] for c in cases), "no transcript where nothing is kept"
    older = [json.loads(line) for line in SET.read_text(encoding="utf-8").splitlines()]
    assert not {c["id"] for c in cases} & {c["id"] for c in older}
    older_turns = {t["content"] for c in older for t in c["turns"] if t["role"] == "user"}
    for case in cases:
        users = [t["content"] for t in case["turns"] if t["role"] == "user"]
        assert not set(users) & older_turns, case["id"]
        for body in case["keep"]:
            assert any(body in u for u in users), case["id"]


def test_a_lasting_state_told_with_now_is_kept_and_a_state_of_the_moment_is_not() -> None:
    kept = [
        b
        for _t, b in extract(
            ("user", "Our staging database now listens on port 6432."),
            ("user", "We use Python 3.12 for all services in this repo now."),
            ("user", "The nightly build is failing now."),
            ("user", "Right now the queue is backed up."),
        )
    ]
    assert kept == [
        "Our staging database now listens on port 6432.",
        "We use Python 3.12 for all services in this repo now.",
    ]
