"""``memctl mcp``'s ``memory_submit_session``: the host hands the session's
turns to memoryd at the end, through the bridge, for extraction."""

from __future__ import annotations

import sys
import time
from typing import Any

import pytest

mcp = pytest.importorskip("mcp")

import anyio  # noqa: E402
from mcp.client.session import ClientSession  # noqa: E402
from mcp.client.stdio import StdioServerParameters, stdio_client  # noqa: E402

from tests.harness import REPO, Daemon, running  # noqa: E402

STATEMENT = "From now on, always run the linter before you say a change is done."


@pytest.fixture(scope="module")
def d() -> Any:
    with running(config="[extract]\npoll_interval_s = 0.05\n") as daemon:
        yield daemon


def test_the_bridge_submits_the_session_and_carries_on_with_a_new_task(d: Daemon) -> None:
    ident = {"kind": "local", "subject": "mcp-extract"}
    with d.control() as c:
        current = c.call("consent.get", {"identity": ident})
        c.call(
            "consent.set",
            {"identity": ident, "version": current["version"], "read": True, "contribute": True},
        )
        token = c.call("token.issue", {"identity": ident})["token"]
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "memoryd.memctl", "--home", str(d.home), "mcp"],
        env={"PYTHONPATH": str(REPO), "MEMORYD_AGENT_TOKEN": token},
        cwd=str(REPO),
    )

    async def go() -> tuple[Any, Any]:
        with open(d.home.parent / "bridge.log", "a") as errlog:
            async with (
                stdio_client(params, errlog=errlog) as (read, write),
                ClientSession(read, write) as s,
            ):
                await s.initialize()
                names = {t.name for t in (await s.list_tools()).tools}
                assert "memory_submit_session" in names
                submitted = await s.call_tool(
                    "memory_submit_session",
                    {
                        "transcript": [
                            {"role": "user", "content": STATEMENT},
                            {"role": "assistant", "content": "Understood."},
                        ]
                    },
                )
                after = await s.call_tool("memory_status", {})
                return submitted, after

    submitted, after = anyio.run(go)
    assert not submitted.is_error
    assert submitted.structured_content["extraction"]["queued"] is True
    assert not after.is_error
    with d.control() as c:
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            jobs = c.call("extract.status", {"identity": ident})["jobs"]
            if jobs and jobs[0]["state"] == "done":
                break
            time.sleep(0.05)
        assert jobs[0]["state"] == "done" and jobs[0]["proposed"] == 1
