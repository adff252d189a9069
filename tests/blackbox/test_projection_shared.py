"""Projection with two daemons on one PostgreSQL database: one sender at a time.

Both daemons are real ``memoryd serve`` processes on their own homes sharing
one schema (as on two hosts) and project to one provider on loopback
(tests/provider_receiver.py). Every change reaches the provider once,
whichever daemon made it; an approval given through either daemon holds for
the sender; a sender that dies hands the outbox on when its lease runs out.
Waits are deadlines on a state, never timed assertions.
"""

from __future__ import annotations

import shutil
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from memoryd.rpc.client import Client
from tests.blackbox.test_projection import (
    ALLOW_BOTH,
    NET_ONLY_EXT_APPROVAL,
    TOKEN_ENV,
    add,
    config,
    outbox,
    wait_until,
)
from tests.harness import Daemon, pg_store_section, short_tempdir
from tests.provider_receiver import Receiver, receiver


@contextmanager
def two_daemons(
    rx: Receiver, policy: str, *, lease: float = 60.0
) -> Iterator[tuple[Daemon, Daemon]]:
    root = short_tempdir()
    section = config(rx, extra=f"lease_s = {lease}\n") + pg_store_section(
        "s_" + uuid.uuid4().hex[:16]
    )
    first = Daemon(root / "a", env={TOKEN_ENV: "t"}, config=section, policy=policy)
    second = Daemon(root / "b", env={TOKEN_ENV: "t"}, config=section, policy=policy)
    try:
        first.start()
        (second.home / "keys").mkdir(mode=0o700, exist_ok=True)
        shutil.copy2(first.home / "keys" / "secret", second.home / "keys" / "secret")
        second.start()
        yield first, second
    finally:
        try:
            second.stop()
            first.stop()
        finally:
            shutil.rmtree(root, ignore_errors=True)


def test_each_change_reaches_the_provider_once_whichever_daemon_made_it() -> None:
    with receiver() as rx, two_daemons(rx, ALLOW_BOTH) as (a, b):
        titles = []
        for i in range(6):
            with (a if i % 2 else b).control() as c:
                title = f"Runbook {i}"
                add(c, title, f"Step {i} of the runbook.")
                titles.append(title)
        with a.control() as c:
            wait_until(lambda: outbox(c)["completed"] == 6, "all sent")
        sent = [s.title for s in rx.puts()]
        assert sorted(sent) == sorted(titles)  # each once: no daemon sent another's item again
        with b.control() as c:
            assert outbox(c)["completed"] == 6
            # Decided once each, by the one sender: the daemons never took turns
            # deciding each other's items again.
            assert _count(c, "projection_decided") == 6
            assert _count(c, "projection_sent") == 6


def _count(c: Client, kind: str) -> int:
    events: list[dict[str, Any]] = []
    after = None
    while True:
        page = c.call("audit.export", {} if after is None else {"after_seq": after})
        events += page["events"]
        after = page["next_after_seq"]
        if after is None:
            return sum(1 for e in events if e["kind"] == kind)


def test_an_approval_given_through_either_daemon_holds_for_the_sender() -> None:
    with receiver() as rx, two_daemons(rx, NET_ONLY_EXT_APPROVAL) as (a, b):
        with a.control() as c:
            add(c, "Deploy", "Deploys go through the staging cluster first.")
            wait_until(lambda: outbox(c)["blocked"] == 1, "blocked for approval")
        assert rx.writes() == []
        # The first daemon started first and sends; the operator asks the other.
        with b.control() as c:
            assert c.call("memory.projection.authorize", {"approve": True})["approved"] == 1
            wait_until(lambda: outbox(c)["completed"] == 1, "sent after approval")
        assert rx.bodies() == ["Deploys go through the staging cluster first."]
        assert len(rx.puts()) == 1
        with a.control() as c, b.control() as c2:
            # Both daemons answer the same count of approvals: they are the sender's.
            assert (
                c.call("memory.status", {})["projection"]["approvals"]
                == c2.call("memory.status", {})["projection"]["approvals"]
                == 1
            )


def test_a_sender_that_dies_hands_the_outbox_on_when_its_lease_runs_out() -> None:
    with receiver() as rx, two_daemons(rx, ALLOW_BOTH, lease=0.5) as (a, b):
        with a.control() as c:
            add(c, "First", "Written while both daemons run.")
            wait_until(lambda: outbox(c)["completed"] == 1, "first sent")
        a.kill()
        with b.control() as c:
            add(c, "Second", "Written after the first daemon died.")
            wait_until(lambda: outbox(c)["completed"] == 2, "sent by the survivor")
        assert sorted(s.title for s in rx.puts()) == ["First", "Second"]


def test_one_daemon_sends_at_a_time_through_a_backlog_longer_than_its_lease() -> None:
    # A slow provider: one pass through a backlog outlasts the sender lease
    # several times over (each send does not). Whichever daemon holds the
    # lease, one sends at a time: the provider never has two documents in
    # flight at once, no item goes out twice, and items go out in order.
    # The lease is renewed every third of it: 1.5 s leaves a second for a
    # renewal held up on a busy machine (shorter leases flaked there).
    with receiver() as rx, two_daemons(rx, ALLOW_BOTH, lease=1.5) as (a, b):
        rx.put_delay_s = 0.3
        titles = [f"Backlog {i}" for i in range(16)]
        with a.control() as c:
            for i, title in enumerate(titles):
                add(c, title, f"Item {i} of a backlog.")
            wait_until(lambda: outbox(c)["completed"] == len(titles), "all sent", timeout=60.0)
        sent = [s.title for s in rx.puts()]
        assert rx.most_in_flight == 1, "two daemons sent at once"
        assert sorted(sent) == sorted(titles), "an item was sent twice or never"
        assert sent == titles, "items went out of order"
        with b.control() as c:
            assert _count(c, "projection_sent") == len(titles)


def test_a_send_that_outlasts_the_lease_is_not_sent_again_by_the_other_daemon() -> None:
    # One document takes the provider longer than the sender lease: the
    # sender is alive and working, so the lease stays with it and the other
    # daemon neither takes the item over nor sends it a second time. The
    # lease is renewed every third of it: 3 s leaves two for a renewal held
    # up on a loaded machine (1.5 s let the other daemon in there once),
    # and each send still outlasts it.
    with receiver() as rx, two_daemons(rx, ALLOW_BOTH, lease=3.0) as (a, b):
        rx.put_delay_s = 4.0
        titles = ["Slow one", "Slow two"]
        with a.control() as c:
            for title in titles:
                add(c, title, f"{title} takes its time at the provider.")
            wait_until(lambda: outbox(c)["completed"] == len(titles), "all sent", timeout=60.0)
        assert rx.most_in_flight == 1, "two daemons sent at once"
        assert [s.title for s in rx.puts()] == titles, "an item was sent twice"
        with b.control() as c:
            assert _count(c, "projection_sent") == len(titles)
