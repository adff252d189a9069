"""What an extracted candidate does to the active entries of its scope
(daemon/extraction/updates.py): a table of statements, each against the
entry it meets."""

from __future__ import annotations

import pytest

from memoryd.daemon.extraction.updates import Stored, match, same_as_earlier


def one(kind: str, body: str, title: str = "Some title") -> list[Stored]:
    return [Stored(entry_id="mem_1", revision=3, type=kind, title=title, body=body)]


UPDATES = [
    (
        "fact",
        "Our staging database listens on port 5432.",
        "Our staging database now listens on port 6432.",
    ),
    (
        "fact",
        "The staging database listens on port 5432",
        "The staging database listens on port 6432",
    ),
    ("preference", "I prefer tabs for indentation", "Actually I prefer spaces for indentation"),
    ("fact", "我们用 pnpm 管理依赖。", "我们改用 yarn 管理依赖了。"),
    (
        "fact",
        "We use Python 3.11 for all services in this repo.",
        "We use Python 3.12 for all services in this repo.",
    ),
    (
        "preference",
        "I like dark mode in every editor.",
        "I no longer like dark mode in every editor.",
    ),
    ("procedure", "部署前先跑冒烟测试。", "部署前不再跑冒烟测试了。"),
    ("fact", "We deploy the API with Helm.", "We switched to deploying the API with Argo CD."),
]

UNRELATED = [
    (
        "fact",
        "We deploy the billing service with Argo CD from the main branch.",
        "We deploy the search service with Jenkins from the release branch.",
    ),
    # Another subject, the same value: a second fact.
    (
        "fact",
        "Our staging database listens on port 5432.",
        "Our production database listens on port 5432.",
    ),
    # Another subject and another value, with no word saying it changed.
    (
        "fact",
        "Our staging database listens on port 5432.",
        "Our staging cache listens on port 6379.",
    ),
    (
        "fact",
        "Our staging database listens on port 5432.",
        "Our production database listens on port 5433.",
    ),
    ("fact", "We run the nightly backups at 02:00 UTC.", "We run the log rotation at 02:00 UTC."),
    ("fact", "我们的预发环境数据库端口是 5432。", "我们的生产环境数据库端口是 5433。"),
    # Adds to what the entry says without replacing any of it.
    (
        "preference",
        "I prefer tabs for indentation.",
        "I now prefer tabs for indentation in Go files and shell scripts.",
    ),
    (
        "preference",
        "I prefer pytest fixtures over setUp methods.",
        "I prefer small pull requests that change one thing.",
    ),
]

REPEATS = [
    (
        "fact",
        "We use pnpm to manage dependencies in this repo.",
        "We use pnpm to manage dependencies in this repo.",
    ),
    (
        "fact",
        "We use pnpm to manage dependencies in this repo.",
        "we use PNPM to manage dependencies in this repo!",
    ),
    (
        "fact",
        "We use pnpm to manage dependencies in this repo.",
        "We now use pnpm to manage dependencies in this repo.",
    ),
    ("fact", "我们用 Grafana 看监控。", "我们用 Grafana 看监控"),
]


@pytest.mark.parametrize(("kind", "old", "new"), UPDATES)
def test_a_new_value_for_the_same_subject_updates_the_entry(kind: str, old: str, new: str) -> None:
    got = match(kind, "A new title", new, one(kind, old))
    assert got is not None and (got.kind, got.entry_id, got.revision) == ("update", "mem_1", 3)


@pytest.mark.parametrize(("kind", "old", "new"), UNRELATED)
def test_shared_words_alone_update_nothing(kind: str, old: str, new: str) -> None:
    assert match(kind, "A new title", new, one(kind, old)) is None


@pytest.mark.parametrize(("kind", "old", "new"), REPEATS)
def test_the_same_statement_again_is_a_repeat(kind: str, old: str, new: str) -> None:
    got = match(kind, "A new title", new, one(kind, old))
    assert got is not None and (got.kind, got.entry_id) == ("repeat", "mem_1")


def test_an_entry_of_another_type_is_not_updated() -> None:
    assert match("lesson", "A new title", UPDATES[0][2], one("fact", UPDATES[0][1])) is None


def test_an_entry_under_the_same_title_is_updated_whatever_it_says() -> None:
    got = match(
        "preference",
        "Test runner",
        "I prefer pytest over unittest.",
        one("fact", "Nothing alike at all here.", title="Test runner"),
    )
    assert got is not None and got.kind == "update"


def test_the_closest_of_several_entries_is_the_one_updated() -> None:
    stored = [
        Stored("mem_a", 1, "fact", "A", "Our staging cache listens on port 6379."),
        Stored("mem_b", 2, "fact", "B", "Our staging database listens on port 5432."),
        Stored("mem_c", 1, "fact", "C", "Our billing database lives in eu-west-1."),
    ]
    got = match("fact", "New", "Our staging database now listens on port 6432.", stored)
    assert got is not None and (got.kind, got.entry_id) == ("update", "mem_b")


def test_a_repeat_wins_over_an_update_of_another_entry() -> None:
    stored = [
        Stored("mem_a", 1, "fact", "A", "Our staging database listens on port 5432."),
        Stored("mem_b", 1, "fact", "B", "Our staging database listens on port 6432."),
    ]
    got = match("fact", "New", "Our staging database listens on port 6432.", stored)
    assert got is not None and (got.kind, got.entry_id) == ("repeat", "mem_b")


# With the semantic extra, the cosine of the two statements' embeddings.
PARAPHRASE = (
    "preference",
    "I prefer pytest fixtures over setUp methods in every test file.",
    "In every test file, I'd rather use pytest fixtures than setUp methods.",
)


def test_a_near_identical_embedding_makes_a_paraphrase_a_repeat() -> None:
    kind, old, new = PARAPHRASE
    assert match(kind, "New", new, one(kind, old)) is None
    got = match(kind, "New", new, one(kind, old), near={"mem_1": 0.985})
    assert got is not None and (got.kind, got.entry_id) == ("repeat", "mem_1")


def test_an_embedding_below_near_identical_leaves_the_lexical_answer() -> None:
    kind, old, new = PARAPHRASE
    assert match(kind, "New", new, one(kind, old), near={"mem_1": 0.97}) is None


@pytest.mark.parametrize(("kind", "old", "new"), UPDATES)
def test_a_near_identical_embedding_never_hides_a_new_value(kind: str, old: str, new: str) -> None:
    # The model puts "port 5432" and "port 6432" side by side: the words decide.
    got = match(kind, "New", new, one(kind, old), near={"mem_1": 0.995})
    assert got is not None and got.kind == "update"


@pytest.mark.parametrize(("kind", "old", "new"), [UNRELATED[i] for i in (2, 3, 5)])
def test_a_near_identical_embedding_never_makes_other_values_a_repeat(
    kind: str, old: str, new: str
) -> None:
    assert match(kind, "New", new, one(kind, old), near={"mem_1": 0.995}) is None


def test_candidates_of_one_job_that_say_the_same_are_kept_once() -> None:
    bodies = [
        PARAPHRASE[1],
        PARAPHRASE[2],
        "Our staging database listens on port 5432.",
        "Our staging database listens on port 6432.",
    ]
    cosines = [
        [1.0, 0.985, 0.5, 0.5],
        [0.985, 1.0, 0.5, 0.5],
        [0.5, 0.5, 1.0, 0.99],
        [0.5, 0.5, 0.99, 1.0],
    ]
    assert same_as_earlier(bodies, cosines) == [False, True, False, False]
