"""A cursor is always an argument memctl can take: none begins with a dash.

On a real daemon over its sockets.
"""

from __future__ import annotations

from memoryd.rpc.client import Client
from tests.blackbox.peer_daemon import DAEMON, add  # noqa: F401 (DAEMON: the d fixture reads it)
from tests.harness import Daemon, entry, fresh_identity


def test_no_cursor_begins_with_a_dash_so_memctl_ls_can_take_it(d: Daemon, c: Client) -> None:
    ident = fresh_identity("cur-")
    for n in range(3):
        c.call(
            "memory.write",
            {
                "identity": ident,
                "action": "add",
                "target": "memory",
                "entry": entry(f"Cursor note {n}", "a note to page through"),
            },
        )
    # Each answer seals a fresh cursor (random nonce): 200 of them would hold
    # a leading "-" about 96 times in 100 if one in 64 began with one.
    cursors = [
        c.call("memory.list", {"identity": ident, "page_size": 1})["next_cursor"]
        for _ in range(200)
    ]
    assert all(cur and not cur.startswith("-") for cur in cursors)
    done = d.memctl(
        "ls",
        "--json",
        "--identity-kind",
        ident["kind"],
        "--identity-subject",
        ident["subject"],
        "--cursor",
        cursors[0],
    )
    assert done.returncode == 0, done.stderr.decode()
