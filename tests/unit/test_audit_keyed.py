"""Keyed hashing: formats, per-purpose separation, framing, MACs."""

from __future__ import annotations

import re

import pytest
from blake3 import blake3
from hypothesis import given
from hypothesis import strategies as st

from memoryd.audit import PURPOSES, AuditError, KeyedHasher, new_root_secret

ROOT = bytes(range(32))
OTHER_ROOT = bytes(range(1, 33))

B3K = re.compile(r"b3k:[0-9a-f]{64}")
HEX64 = re.compile(r"[0-9a-f]{64}")


@pytest.fixture
def hasher() -> KeyedHasher:
    return KeyedHasher(ROOT)


def test_output_formats(hasher: KeyedHasher) -> None:
    assert B3K.fullmatch(hasher.content("x"))
    assert B3K.fullmatch(hasher.content_of("fact", "t", "s", "b"))
    assert B3K.fullmatch(hasher.intent("x"))
    assert B3K.fullmatch(hasher.message("x"))
    assert re.fullmatch(r"own_[0-9a-f]{32}", hasher.owner("local", subject="alice"))
    assert HEX64.fullmatch(hasher.token("mdt_abc"))
    assert re.fullmatch(r"ws_[0-9a-f]{32}", hasher.workspace("/home/a/src"))
    assert len(hasher.mac(b"cursor")) == 32


def test_content_matches_blake3_derive_then_keyed_definition(hasher: KeyedHasher) -> None:
    subkey = blake3(ROOT, derive_key_context=PURPOSES["content"]).digest()
    expected = blake3("héllo".encode(), key=subkey).hexdigest()
    assert hasher.content("héllo") == "b3k:" + expected


def test_known_answers_are_pinned_so_stored_hashes_never_drift(hasher: KeyedHasher) -> None:
    # A changed context string or framing would orphan every stored hash of a home.
    assert hasher.content("memoryd") == (
        "b3k:cb64840436dffc5212d6abc09360bf2fca24fa24a1bf523d1d60bdb5f8853016"
    )
    assert hasher.owner("local", subject="alice") == "own_fff5b38fd6c520a191653ec8ccbc8985"
    assert hasher.content_of("fact", "t", "s", "b") == (
        "b3k:1f31ab8a684463ce5323e88cbe67c19d0154340b49e3ee4450c8d1e91a39dbb5"
    )


def test_same_input_same_key_is_deterministic(hasher: KeyedHasher) -> None:
    again = KeyedHasher(ROOT)
    assert hasher.content("a") == again.content("a")
    assert hasher.owner("token", subject="s", issuer="i") == again.owner(
        "token", subject="s", issuer="i"
    )


def test_different_root_secrets_give_different_hashes(hasher: KeyedHasher) -> None:
    other = KeyedHasher(OTHER_ROOT)
    assert hasher.content("a") != other.content("a")
    assert hasher.token("a") != other.token("a")
    assert hasher.owner("local", subject="a") != other.owner("local", subject="a")
    assert hasher.workspace("/a") != other.workspace("/a")
    assert hasher.mac(b"a") != other.mac(b"a")


def test_purposes_never_coincide_on_the_same_input(hasher: KeyedHasher) -> None:
    text = "same input"
    digests = {
        hasher.content(text)[4:],
        hasher.intent(text)[4:],
        hasher.message(text)[4:],
        hasher.token(text),
        hasher.mac(text.encode()).hex(),
    }
    assert len(digests) == 5
    assert hasher.content(text) != hasher.content_of(text)


def test_purpose_contexts_are_distinct() -> None:
    assert len(set(PURPOSES.values())) == len(PURPOSES)


def test_content_of_frames_parts_unambiguously(hasher: KeyedHasher) -> None:
    assert hasher.content_of("ab", "c") != hasher.content_of("a", "bc")
    assert hasher.content_of("a", "") != hasher.content_of("a")
    assert hasher.content_of("", "a") != hasher.content_of("a", "")


@given(st.lists(st.text(max_size=8), max_size=4), st.lists(st.text(max_size=8), max_size=4))
def test_content_of_is_injective_over_part_tuples(a: list[str], b: list[str]) -> None:
    hasher = KeyedHasher(ROOT)
    assert (hasher.content_of(*a) == hasher.content_of(*b)) == (a == b)


def test_owner_differs_by_kind_for_the_same_subject(hasher: KeyedHasher) -> None:
    assert hasher.owner("local", subject="alice") != hasher.owner("token", subject="alice")


def test_owner_distinguishes_absent_and_empty_issuer(hasher: KeyedHasher) -> None:
    assert hasher.owner("jwt", subject="a", issuer=None) != hasher.owner(
        "jwt", subject="a", issuer=""
    )


def test_owner_takes_subject_and_issuer_by_keyword_only(hasher: KeyedHasher) -> None:
    with pytest.raises(TypeError):
        hasher.owner("jwt", "subject", "issuer")  # type: ignore[call-arg]


@given(
    st.tuples(st.text(max_size=6), st.text(max_size=6), st.none() | st.text(max_size=6)),
    st.tuples(st.text(max_size=6), st.text(max_size=6), st.none() | st.text(max_size=6)),
)
def test_owner_is_injective_over_identities(
    a: tuple[str, str, str | None], b: tuple[str, str, str | None]
) -> None:
    hasher = KeyedHasher(ROOT)
    same = hasher.owner(a[0], subject=a[1], issuer=a[2]) == hasher.owner(
        b[0], subject=b[1], issuer=b[2]
    )
    assert same == (a == b)


def test_lone_surrogates_hash_without_error(hasher: KeyedHasher) -> None:
    assert hasher.content("\ud800") != hasher.content("\udc00")


def test_mac_verifies_its_own_tag(hasher: KeyedHasher) -> None:
    assert hasher.verify_mac(b"cursor-payload", hasher.mac(b"cursor-payload"))


@pytest.mark.parametrize(
    ("data", "tag_source", "tag_edit"),
    [
        (b"cursor-payloaX", b"cursor-payload", None),
        (b"cursor-payload", b"cursor-payload", "flip"),
        (b"cursor-payload", b"cursor-payload", "short"),
        (b"cursor-payload", b"cursor-payload", "empty"),
    ],
)
def test_mac_refuses_changed_data_or_tag(
    hasher: KeyedHasher, data: bytes, tag_source: bytes, tag_edit: str | None
) -> None:
    tag = hasher.mac(tag_source)
    if tag_edit == "flip":
        tag = bytes([tag[0] ^ 1]) + tag[1:]
    elif tag_edit == "short":
        tag = tag[:-1]
    elif tag_edit == "empty":
        tag = b""
    assert not hasher.verify_mac(data, tag)


def test_mac_from_another_key_is_refused(hasher: KeyedHasher) -> None:
    assert not hasher.verify_mac(b"c", KeyedHasher(OTHER_ROOT).mac(b"c"))


def test_mac_tag_of_wrong_type_is_refused(hasher: KeyedHasher) -> None:
    assert not hasher.verify_mac(b"c", hasher.mac(b"c").hex())  # type: ignore[arg-type]


@pytest.mark.parametrize("secret", [b"", bytes(31), bytes(33), bytearray(32), "x" * 32])
def test_root_secret_must_be_32_bytes(secret: object) -> None:
    with pytest.raises(AuditError) as info:
        KeyedHasher(secret)  # type: ignore[arg-type]
    assert info.value.reason == "bad_key"


def test_repr_hides_the_secret(hasher: KeyedHasher) -> None:
    assert ROOT.hex() not in repr(hasher)
    assert "secret" in repr(hasher)


def test_new_root_secret_is_32_fresh_bytes() -> None:
    a, b = new_root_secret(), new_root_secret()
    assert len(a) == 32 and len(b) == 32 and a != b
    KeyedHasher(a)
