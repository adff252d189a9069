"""The hybrid ranker's fusion (daemon/semantic/hybrid.py ``fuse``): it adds to lexical
ranking, and never lets an entry middling in both lists pass a strong
lexical top hit."""

from __future__ import annotations

import pytest

pytest.importorskip("numpy", reason="the semantic extra is part of the test extra")

from memoryd.daemon.semantic.hybrid import SPAN, WEIGHT, fuse

FLOOR = 0.82


def _ids(fused: list[tuple[str, float]]) -> list[str]:
    return [entry_id for entry_id, _ in fused]


def test_a_strong_lexical_top_hit_is_not_displaced_by_an_entry_middling_in_both() -> None:
    # "mid" is half as strong as the top hit lexically and sits at half
    # strength among the vectors; the top hit has no vector at all.
    lexical = [("top", 10.0), ("mid", 5.0)] + [(f"lex{i}", 4.0 - i * 0.1) for i in range(20)]
    vector = [(f"vec{i}", FLOOR + SPAN * 0.6 - i * 0.001) for i in range(10)]
    vector.insert(3, ("mid", FLOOR + SPAN / 2))
    assert _ids(fuse(lexical, vector, FLOOR))[0] == "top"


def test_middling_entries_never_pass_the_lexical_top_whatever_their_count() -> None:
    lexical = [("top", 8.0)] + [(f"e{i}", 4.0) for i in range(50)]
    vector = [(f"e{i}", FLOOR + SPAN / 2) for i in range(50)]
    assert _ids(fuse(lexical, vector, FLOOR))[0] == "top"


def test_a_vector_only_neighbour_above_the_floor_is_admitted_and_can_lead() -> None:
    # Lexical found only a weak match; the neighbour clears the query's floor
    # by the full span.
    fused = _ids(fuse([("lex", 3.0)], [("near", FLOOR + SPAN)], FLOOR))
    assert fused == ["lex", "near"]
    lexical = [("top", 9.0), ("second", 4.0), ("third", 3.5)]
    assert _ids(fuse(lexical, [("near", FLOOR + SPAN)], FLOOR))[:2] == ["top", "near"]


def test_a_neighbour_below_the_floor_is_left_out() -> None:
    assert _ids(fuse([("lex", 3.0)], [("far", FLOOR - 0.001)], FLOOR)) == ["lex"]
    assert fuse([], [("far", FLOOR - 0.001)], FLOOR) == []


def test_with_nothing_lexical_the_vector_order_is_kept() -> None:
    vector = [("a", FLOOR + 0.04), ("b", FLOOR + 0.03), ("c", FLOOR + 0.01)]
    assert _ids(fuse([], vector, FLOOR)) == ["a", "b", "c"]


def test_without_vectors_the_lexical_order_is_kept() -> None:
    lexical = [("a", 9.0), ("b", 7.5), ("c", 7.5), ("d", 0.0)]
    assert _ids(fuse(lexical, [], FLOOR)) == ["a", "b", "c", "d"]


def test_agreement_lifts_a_lexical_hit_the_vectors_rate_highly() -> None:
    lexical = [("a", 10.0), ("b", 9.5)]
    vector = [("b", FLOOR + SPAN)]
    assert _ids(fuse(lexical, vector, FLOOR)) == ["b", "a"]


def test_the_vector_part_is_worth_less_than_the_lexical_top_hit() -> None:
    # The invariant the two middling tests rest on.
    assert 0 < WEIGHT < 1


def test_fusion_is_deterministic_with_ties_broken_by_id() -> None:
    lexical = [("b", 2.0), ("a", 2.0)]
    assert fuse(lexical, [], FLOOR) == fuse(list(reversed(lexical)), [], FLOOR)
    assert _ids(fuse(lexical, [], FLOOR)) == ["a", "b"]


def test_a_query_that_scored_nothing_lexically_still_ranks_its_neighbours() -> None:
    fused = fuse([("stem_only", 0.0)], [("near", FLOOR + SPAN)], FLOOR)
    assert _ids(fused) == ["near", "stem_only"]
