"""The projection sender lease: one daemon sends at a time, and a new sender
voids every approval (daemon/external/projection_outbox.py)."""

from __future__ import annotations

from memoryd.daemon.external import projection_outbox as outbox
from memoryd.daemon.storage.store import SqliteStore, Tx

T0, T1, T2, T3 = (
    "2026-01-01T00:00:00.000Z",
    "2026-01-01T00:00:30.000Z",
    "2026-01-01T00:01:00.000Z",
    "2026-01-01T00:01:30.000Z",
)


def test_the_first_daemon_takes_the_lease_and_renews_it(store: SqliteStore) -> None:
    def run(tx: Tx) -> list[str | None]:
        return [
            outbox.hold(tx, "snd_a", "boot1", T0, T2),
            outbox.hold(tx, "snd_a", "boot1", T1, T3),
        ]

    assert store.run_sync(run) == ["boot1", "boot1"]
    assert store.run_sync(outbox.sender) == ("snd_a", "boot1")


def test_another_daemon_waits_while_the_lease_runs_then_takes_it(store: SqliteStore) -> None:
    def run(tx: Tx) -> list[str | None]:
        return [
            outbox.hold(tx, "snd_a", "boot1", T0, T2),
            outbox.hold(tx, "snd_b", "boot2", T1, T3),  # a's lease runs: a's epoch
            outbox.hold(tx, "snd_b", "boot2", T2, T3),
        ]  # ran out at T2: b takes it

    assert store.run_sync(run) == ["boot1", "boot1", "boot2"]
    assert store.run_sync(outbox.sender) == ("snd_b", "boot2")


def test_a_restarted_sender_takes_its_own_lease_back_at_once(store: SqliteStore) -> None:
    def run(tx: Tx) -> list[str | None]:
        return [
            outbox.hold(tx, "snd_a", "boot1", T0, T2),
            outbox.hold(tx, "snd_a", "boot9", T1, T3),
        ]

    assert store.run_sync(run) == ["boot1", "boot9"]


def test_force_takes_the_lease_whatever_holds_it(store: SqliteStore) -> None:
    def run(tx: Tx) -> str | None:
        outbox.hold(tx, "snd_a", "boot1", T0, T2)
        return outbox.hold(tx, "snd_b", "boot2", T1, T3, force=True)

    assert store.run_sync(run) == "boot2"


def test_approvals_hold_under_one_epoch_and_a_new_one_voids_them(store: SqliteStore) -> None:
    def run(tx: Tx) -> list[object]:
        outbox.hold(tx, "snd_a", "boot1", T0, T2)
        under = "boot1|host|policy"
        first = outbox.approve(tx, under, "memory:ops:replace")
        again = outbox.approve(tx, under, "memory:ops:replace")
        held = [
            outbox.approved(tx, under, "memory:ops:replace"),
            outbox.approved(tx, under, "memory:ops:remove"),
            outbox.approvals(tx, under),
        ]
        outbox.hold(tx, "snd_a", "boot1", T1, T3)  # renewed: nothing voided
        renewed = outbox.approvals(tx, under)
        outbox.hold(tx, "snd_b", "boot2", T3, T3)  # a's ran out: a new sender voids them all
        return [first, again, *held, renewed, outbox.approvals(tx, under)]

    assert store.run_sync(run) == [True, False, True, False, 1, 1, 0]
