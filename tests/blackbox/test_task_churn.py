"""Task churn is bounded per owner: beginning tasks in a loop cannot grow the
audit log (one snapshot event per task) without limit.

``max_tasks_per_hour`` caps the tasks one owner may begin in any hour; the
next ``task.begin`` is ``rate_limited`` (-32005) with the cap named, and other
owners are not affected.
"""

from __future__ import annotations

import pytest

from memoryd.rpc.client import Client, RpcError
from tests.harness import Daemon, enable_consent

CAP = 4


# How this module's daemon starts (the ``d`` fixture, tests/blackbox/conftest.py).
DAEMON = {"config": f"max_tasks_per_hour = {CAP}\n"}


def _token(c: Client, subject: str) -> str:
    ident = {"kind": "token", "subject": subject}
    enable_consent(c, ident)
    return str(c.call("token.issue", {"identity": ident})["token"])


def test_an_owner_beginning_tasks_in_a_loop_is_rate_limited(d: Daemon, c: Client) -> None:
    token = _token(c, "churner")
    with d.agent() as a:
        for _ in range(CAP):
            task = a.call("task.begin", {"token": token})
            a.call("task.end", {"task_id": task["task_id"]})
        with pytest.raises(RpcError) as err:
            a.call("task.begin", {"token": token})
    assert (err.value.code, err.value.data_code) == (-32005, "rate_limited")
    details = err.value.data["details"]
    assert details["cap"] == "max_tasks_per_hour"
    assert details["limit"] == CAP
    assert token not in str(err.value.data)


def test_another_owner_is_not_held_back(d: Daemon, c: Client) -> None:
    busy, calm = _token(c, "busy"), _token(c, "calm")
    with d.agent() as a:
        for _ in range(CAP):
            a.call("task.end", {"task_id": a.call("task.begin", {"token": busy})["task_id"]})
        with pytest.raises(RpcError):
            a.call("task.begin", {"token": busy})
        assert a.call("task.begin", {"token": calm})["task_id"]
