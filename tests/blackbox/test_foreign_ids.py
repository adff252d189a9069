"""Another owner's entry id reads exactly as an id that does not exist.

``memory.read`` of an id the caller's view does not hold answers as for an id
never issued: the same error, code, message, recovery and details (the id
itself aside, echoed in both). The view filters the query, so a foreign row
is never fetched (daemon/pipeline/entries.py ``load``); that they also take the same
time is measured, not asserted, by ``bench/read_timing.py``.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from memoryd.rpc.client import Client, RpcError
from tests.harness import Daemon, enable_consent, entry, fresh_identity, running


@pytest.fixture(scope="module")
def d() -> Iterator[Daemon]:
    with running() as daemon:
        yield daemon


def _refusal(call: Any, params: dict[str, Any], entry_id: str) -> dict[str, Any]:
    with pytest.raises(RpcError) as info:
        call("memory.read", params)
    err = info.value
    data = dict(err.data or {})
    details = dict(data.get("details") or {})
    if details.get("entry_id") == entry_id:
        details["entry_id"] = "<the id asked for>"
    data["details"] = details
    return {"code": err.code, "message": err.message, "data": data}


def _owners(c: Client) -> tuple[dict[str, str], dict[str, str], str, str]:
    reader, other = fresh_identity("reader-"), fresh_identity("other-")
    for who in (reader, other):
        enable_consent(c, identity=who)
    foreign = c.call(
        "memory.write",
        {
            "identity": other,
            "action": "add",
            "entry": entry("Other's note", "Held by another owner.", "fact"),
        },
    )["entries"][0]["id"]
    own = c.call(
        "memory.write",
        {
            "identity": reader,
            "action": "add",
            "entry": entry("Reader's note", "Held by the reader.", "fact"),
        },
    )["entries"][0]["id"]
    return reader, other, foreign, own


def _absent_like(entry_id: str) -> str:
    return entry_id[:-6] + ("000000" if not entry_id.endswith("000000") else "111111")


@pytest.mark.parametrize("include_pending", [False, True])
def test_a_foreign_id_answers_as_an_absent_one_on_control(c: Client, include_pending: bool) -> None:
    reader, _other, foreign, own = _owners(c)
    absent = _absent_like(foreign)
    for ids in ([foreign], [own, foreign]):
        asked = {"identity": reader, "ids": ids, "include_pending": include_pending}
        swapped = {**asked, "ids": [absent if i == foreign else i for i in ids]}
        assert _refusal(c.call, asked, foreign) == _refusal(c.call, swapped, absent)


def test_a_foreign_id_answers_as_an_absent_one_to_a_task(c: Client, a: Client) -> None:
    reader, _other, foreign, _own = _owners(c)
    token = c.call("token.issue", {"identity": reader})["token"]
    task = a.call("task.begin", {"token": token})["task_id"]
    absent = _absent_like(foreign)
    got = _refusal(a.call, {"task_id": task, "ids": [foreign]}, foreign)
    assert got == _refusal(a.call, {"task_id": task, "ids": [absent]}, absent)
    assert got["data"]["code"] == "not_found"


# --- the work is the same: a foreign row is never fetched -------------------------------


class _Fetched:
    """A transaction that keeps what each ``one`` query returned."""

    def __init__(self, tx: Any) -> None:
        self._tx = tx
        self.returned: list[Any] = []

    def one(self, sql: str, args: Any = ()) -> Any:
        row = self._tx.one(sql, args)
        self.returned.append(row)
        return row

    def __getattr__(self, name: str) -> Any:
        return getattr(self._tx, name)


def test_reading_a_foreign_id_fetches_no_row_as_an_absent_one_does(tmp_path: Any) -> None:
    import anyio

    from memoryd.daemon.access.identity import owner_of
    from memoryd.daemon.pipeline.entries import View, load
    from memoryd.rpc import schema
    from tests.harness import backend, pg_store_section
    from tests.inproc import composed

    reader, other = fresh_identity("reader-"), fresh_identity("other-")
    config = pg_store_section() if backend() == "postgresql" else None

    async def go() -> tuple[list[Any], list[Any]]:
        with composed(tmp_path / "h", config=config) as daemon:
            for who in (reader, other):
                consent = await daemon.call("control", "consent.get", {"identity": who})
                await daemon.call(
                    "control",
                    "consent.set",
                    {
                        "identity": who,
                        "read": True,
                        "contribute": True,
                        "version": consent["version"],
                    },
                )
            written = await daemon.call(
                "control",
                "memory.write",
                {
                    "identity": other,
                    "action": "add",
                    "entry": entry("Other's note", "Held by another owner.", "fact"),
                },
            )
            foreign = written["entries"][0]["id"]
            view = View(owner_of(daemon.app.hasher, schema.Identity(**reader)), None)
            seen = []
            for entry_id in (foreign, _absent_like(foreign)):
                fetched = _Fetched(None)

                def read(tx: Any, entry_id: str = entry_id, fetched: _Fetched = fetched) -> Any:
                    fetched._tx = tx
                    return load(fetched, view, entry_id)  # type: ignore[arg-type]

                assert daemon.store.run_sync(read, write=False) is None
                seen.append(fetched.returned)
            return seen[0], seen[1]

    on_foreign, on_absent = anyio.run(go, backend="asyncio")
    assert on_foreign == on_absent == [None]
