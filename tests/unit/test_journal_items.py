"""A journal operation's items as the operations row keeps them."""

from __future__ import annotations

import json
from typing import Any

import pytest

from memoryd.daemon.pipeline.writes import pack_items, unpack_items

ADD = {
    "action": "add",
    "entry_id": "ent_01M8R29GR1HN148BNCZ9QW3KWQ",
    "revision_before": None,
    "revision_after": 1,
    "content_hash": "b3k:" + "f9" * 32,
}
UNDO = {
    "action": "undo",
    "undoes": "replace",
    "entry_id": "ent_01M8R29GR1HN148BNCZ9QW3KWQ",
    "revision_before": 3,
    "revision_after": 4,
    "content_hash": "b3k:" + "0a" * 32,
}


@pytest.mark.parametrize("items", [[ADD], [UNDO], [ADD, UNDO, ADD], []])
def test_items_read_back_as_written_keys_order_and_all(items: list[dict[str, Any]]) -> None:
    back = unpack_items(pack_items(items))
    assert back == items
    assert [list(item) for item in back] == [list(item) for item in items]


def test_an_item_is_stored_without_the_keys_every_item_repeats() -> None:
    stored = pack_items([ADD])
    assert "revision_before" not in stored
    assert len(stored) < len(json.dumps([ADD], separators=(",", ":"))) - 60


def test_an_item_of_another_shape_is_kept_as_its_object() -> None:
    odd = [{"entry_id": "ent_x", "action": "add"}, {**ADD, "note": "extra"}]
    assert unpack_items(pack_items(odd)) == odd


def test_items_stored_as_objects_before_schema_6_read_as_they_are() -> None:
    assert unpack_items(json.dumps([ADD, UNDO])) == [ADD, UNDO]
