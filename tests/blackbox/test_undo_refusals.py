"""An undo that cannot be done is refused without echoing what the caller sent.

On a real daemon over its sockets.
"""

from __future__ import annotations

import json

from memoryd.rpc.client import Client
from tests.blackbox.peer_daemon import DAEMON, refused  # noqa: F401 (DAEMON: the d fixture reads it)


def test_undo_of_an_unknown_operation_does_not_echo_the_id(c: Client) -> None:
    # An id of the right shape that names nothing is not_found; one of the
    # wrong shape (a space) is refused as invalid params. Neither echoes it.
    err = refused(c.call, "memory.undo", {"operation_id": "op_canaryhunter2"})
    assert (err.code, err.data_code) == (-32003, "not_found")
    assert "canary" not in json.dumps(err.data)
    err = refused(c.call, "memory.undo", {"operation_id": "op_canary hunter2"})
    assert err.code == -32602
    assert "canary" not in json.dumps(err.data)
