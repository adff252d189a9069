"""Resource canonical strings, subjects, and the retention table."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone

import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from memoryd.kernel.capability import Channel, Resource, Role, Subject
from memoryd.kernel.retention import (
    DEFAULT_TTL_DAYS,
    EntryStatus,
    EntryType,
    default_ttl_days,
    expires_at,
    is_expired,
)

HASH = "b3k:" + "9f2a" * 16


def res(**kw: object) -> Resource:
    base: dict[str, object] = {
        "target": "memory",
        "scope": "default",
        "action": "add",
        "entry_id": None,
        "expected_revision": None,
        "content_hash": None,
    }
    base.update(kw)
    return Resource(**base)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("resource", "expected"),
    [
        (res(), "memory/default:add:-@-:-"),
        (
            res(
                target="user",
                scope="own_5c1e",
                action="replace",
                entry_id="ent_01J",
                expected_revision=3,
                content_hash=HASH,
            ),
            f"user/own_5c1e:replace:ent_01J@3:{HASH}",
        ),
        (res(scope="project:acme", content_hash=HASH), f"memory/project%3Aacme:add:-@-:{HASH}"),
        (res(scope="a/b@c+d%e"), "memory/a%2Fb%40c%2Bd%25e:add:-@-:-"),
        (res(scope="my-project"), "memory/my-project:add:-@-:-"),
        (res(scope="-"), "memory/%2D:add:-@-:-"),
        (res(entry_id="-", content_hash="-"), "memory/default:add:%2D@-:%2D"),
        (res(scope="naïve space"), "memory/na%C3%AFve%20space:add:-@-:-"),
        (res(scope="line\nbreak"), "memory/line%0Abreak:add:-@-:-"),
        (res(type="fact"), "memory/default:add+fact:-@-:-"),
        (res(type=EntryType.LESSON, expected_revision=0), "memory/default:add+lesson:-@0:-"),
        (res(content_hash="b3k:a@b/c"), "memory/default:add:-@-:b3k:a%40b%2Fc"),
    ],
)
def test_canonical_string_is_exactly_this(resource: Resource, expected: str) -> None:
    assert resource.canonical() == expected
    assert str(resource) == expected
    assert Resource.parse(expected) == resource


def test_absent_and_literal_dash_are_different_resources() -> None:
    assert res(entry_id=None).canonical() != res(entry_id="-").canonical()
    assert Resource.parse("memory/default:add:%2D@-:-").entry_id == "-"
    assert Resource.parse("memory/default:add:-@-:-").entry_id is None


def test_type_is_normalised_to_plain_str_for_hash_eq_agreement() -> None:
    a, b = res(type=EntryType.FACT), res(type="fact")
    assert a == b
    assert hash(a) == hash(b)
    assert type(a.type) is str


@pytest.mark.parametrize(
    "text",
    [
        "",
        "memory",
        "memory/default",
        "memory/default:add:-@-",  # too few fields
        "files/default:add:-@-:-",  # unknown target
        "Memory/default:add:-@-:-",  # target is case-sensitive
        "memory/default:add:-:-",  # no '@'
        "memory/default:add:-@x:-",  # revision not a number
        "memory/default:add:-@03:-",  # leading zero is not canonical
        "memory/default:add:-@-3:-",  # negative revision
        "memory/default:add:-@３:-",  # non-ASCII digit
        "memory/proj%3aacme:add:-@-:-",  # lower-case escape is not canonical
        "memory/%41:add:-@-:-",  # needless escape is not canonical
        "memory/a%2:add:-@-:-",  # truncated escape
        "memory/a%G1:add:-@-:-",  # bad hex
        "memory/%FF:add:-@-:-",  # not UTF-8
        "memory/a b:add:-@-:-",  # raw space
        "memory/:add:-@-:-",  # empty scope
        "memory/default::-@-:-",  # empty action
        "memory/default:add+note:-@-:-",  # unknown type
        "memory/default:add+:-@-:-",  # empty type
        "memory/default:add::-@-",  # empty entry id where '-' was meant
        "memory/a/b:add:-@-:-",  # raw '/' in scope
    ],
)
def test_parse_refuses_anything_not_canonical(text: str) -> None:
    with pytest.raises(ValueError):
        Resource.parse(text)
    assert not Resource.is_canonical(text)


def test_parse_refuses_non_str() -> None:
    with pytest.raises(ValueError, match="must be a str"):
        Resource.parse(b"memory/default:add:-@-:-")  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("kw", "message"),
    [
        ({"target": "files"}, "target"),
        ({"scope": ""}, "scope"),
        ({"action": ""}, "action"),
        ({"entry_id": ""}, "entry_id"),
        ({"content_hash": ""}, "content_hash"),
        ({"expected_revision": -1}, "expected_revision"),
        ({"expected_revision": True}, "expected_revision"),
        ({"expected_revision": "3"}, "expected_revision"),
        ({"scope": "bad\ud800"}, "scope"),
        ({"type": "note"}, "note"),
    ],
)
def test_resource_refuses_invalid_fields(kw: dict[str, object], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        res(**kw)


# Text that leans on every reserved character, plus arbitrary Unicode.
tricky_text = st.text(
    alphabet=st.sampled_from(list(":/@+%-_.~ \n\x00aZ9é€😀")) | st.characters(codec="utf-8"),
    min_size=1,
    max_size=12,
)
resources = st.builds(
    Resource,
    target=st.sampled_from(["memory", "user"]),
    scope=tricky_text,
    action=tricky_text,
    entry_id=st.none() | tricky_text,
    expected_revision=st.none() | st.integers(min_value=0, max_value=10**12),
    content_hash=st.none() | tricky_text,
    type=st.none() | st.sampled_from([t.value for t in EntryType]),
)


@given(resources)
def test_canonical_round_trips(resource: Resource) -> None:
    text = resource.canonical()
    assert Resource.parse(text) == resource
    assert Resource.parse(text).canonical() == text


@given(resources)
def test_a_string_canonical_made_is_canonical_without_a_parse(resource: Resource) -> None:
    text = resource.canonical()
    assert Resource.is_canonical(text)
    # A spelling of it that parse refuses stays refused.
    assert not Resource.is_canonical(text + " ")
    assert not Resource.is_canonical(text.replace(":", "%3A", 1))


def test_is_canonical_refuses_non_str() -> None:
    assert not Resource.is_canonical(None)
    assert not Resource.is_canonical(b"memory/default:add:-@-:-")
    assert Resource.is_canonical("memory/s0:add:-@-:-")


class _SpelledInt(int):
    # An int whose text is a sentence: ``str()`` of it is not its digits.
    def __str__(self) -> str:
        return "the password is hunter2"


class _SpelledStr(str):
    # A str that formats as other text than the characters it holds.
    __slots__ = ()

    def __format__(self, spec: str) -> str:
        return "my secret note"


@pytest.mark.parametrize(
    "fields",
    [
        {"expected_revision": _SpelledInt(1)},
        {"scope": _SpelledStr("default")},
        {"action": _SpelledStr("add")},
        {"entry_id": _SpelledStr("ent_1")},
        {"content_hash": _SpelledStr("b3k:ab")},
    ],
    ids=["revision", "scope", "action", "entry_id", "content_hash"],
)
def test_a_string_made_from_a_subclass_is_not_vouched_for_as_canonical(
    fields: dict[str, object],
) -> None:
    # ``is_canonical`` (and the audit guard through it) takes what
    # ``canonical`` made lately without a parse: a subclass whose text is its
    # own can make a string no parse accepts, with spaces and a sentence in
    # it, and that string must not be taken as a resource string.
    text = res(**fields).canonical()
    try:
        Resource.parse(text)
    except ValueError:
        parses = False
    else:
        parses = True
    assert Resource.is_canonical(text) == parses
    assert not (" " in text and Resource.is_canonical(text))


@given(resources, resources)
def test_different_resources_never_share_a_string(a: Resource, b: Resource) -> None:
    assume(a != b)
    assert a.canonical() != b.canonical()


@given(resources)
def test_canonical_string_has_no_raw_whitespace_or_controls(resource: Resource) -> None:
    text = resource.canonical()
    assert all(0x21 <= ord(ch) <= 0x7E for ch in text)


# Subjects


def test_subject_normalises_channel_and_role_strings_to_enums() -> None:
    s = Subject("agent", "main", "own_1", "tsk_1")  # type: ignore[arg-type]
    assert s.channel is Channel.AGENT
    assert s.role is Role.MAIN
    assert s == Subject(Channel.AGENT, Role.MAIN, "own_1", "tsk_1")


@pytest.mark.parametrize(
    "args",
    [
        ("socket", "main", "own_1", None),
        ("agent", "root", "own_1", None),
        ("agent", "main", "", None),
        ("agent", "main", "own_1", ""),
    ],
)
def test_subject_refuses_unknown_or_empty_fields(args: tuple[str, str, str, str | None]) -> None:
    with pytest.raises(ValueError):
        Subject(*args)  # type: ignore[arg-type]


# Entry types and retention


@pytest.mark.parametrize(
    ("entry_type", "days"),
    [("preference", 180), ("procedure", 90), ("fact", 120), ("lesson", 120)],
)
def test_default_ttl_by_type(entry_type: str, days: int) -> None:
    assert default_ttl_days(entry_type) == days
    assert DEFAULT_TTL_DAYS[EntryType(entry_type)] == days


def test_ttl_table_covers_every_type_and_nothing_else() -> None:
    assert set(DEFAULT_TTL_DAYS) == set(EntryType)


def test_statuses_are_the_spec_vocabulary() -> None:
    assert {s.value for s in EntryStatus} == {
        "active",
        "superseded",
        "archived",
        "expired",
        "removed",
    }


def test_default_ttl_refuses_unknown_type() -> None:
    with pytest.raises(ValueError, match="note"):
        default_ttl_days("note")


@pytest.mark.parametrize(
    ("ttl", "delta"),
    [(120, timedelta(days=120)), (0.5, timedelta(hours=12)), (1, timedelta(days=1))],
)
def test_expires_at_adds_ttl_to_renewal(ttl: float, delta: timedelta) -> None:
    renewed = datetime(2025, 3, 1, 12, 0, tzinfo=UTC)
    assert expires_at(renewed, ttl) == renewed + delta


def test_expires_at_keeps_the_instant_across_zones() -> None:
    renewed = datetime(2025, 3, 1, 12, 0, tzinfo=timezone(timedelta(hours=9)))
    assert expires_at(renewed, 1) == datetime(2025, 3, 2, 3, 0, tzinfo=UTC)


@pytest.mark.parametrize("ttl", [0, -1, float("nan"), float("inf"), True, "90", 10**12])
def test_expires_at_refuses_bad_ttl(ttl: object) -> None:
    with pytest.raises(ValueError, match="ttl_days"):
        expires_at(datetime(2025, 1, 1, tzinfo=UTC), ttl)  # type: ignore[arg-type]


def test_expires_at_refuses_naive_time() -> None:
    with pytest.raises(ValueError, match="timezone-aware"):
        expires_at(datetime(2025, 1, 1), 90)


def test_is_expired_counts_the_boundary_as_expired() -> None:
    at = datetime(2025, 1, 1, tzinfo=UTC)
    assert is_expired(at, at)
    assert not is_expired(at, at - timedelta(microseconds=1))
    with pytest.raises(ValueError, match="timezone-aware"):
        is_expired(at, datetime(2025, 1, 1))
