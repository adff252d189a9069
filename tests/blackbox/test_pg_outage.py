"""``memory.status`` answers while the PostgreSQL database cannot be reached.

The daemon reaches the database through a forwarder on loopback that the
test cuts and restores (tests/pg_proxy.py): the outage is this daemon's
alone, the shared server keeps running. Runs in the PostgreSQL leg only
(``--backend postgresql``).
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterator

import pytest

from memoryd.rpc.client import RpcError
from tests.harness import Daemon, backend, enable_consent, entry, pg_store_section, running
from tests.pg_proxy import PgProxy, pg_proxy

pytestmark = pytest.mark.skipif(
    backend() != "postgresql", reason="a PostgreSQL outage needs the PostgreSQL backend"
)


@pytest.fixture
def cut() -> Iterator[tuple[Daemon, PgProxy]]:
    with pg_proxy() as proxy, running(config=pg_store_section(dsn=proxy.dsn)) as d:
        with d.control() as c:
            enable_consent(c)
            c.call("memory.write", {"action": "add", "entry": entry()})
        yield d, proxy
        proxy.restore()  # the daemon stops cleanly with its database back


def _degraded(status: dict[str, object]) -> bool:
    return status["backend"] == {
        **status["backend"],  # type: ignore[dict-item]
        "health": "degraded",
        "degraded_reason": "database_unreachable",
    }


def test_status_answers_degraded_on_every_call_of_an_outage(cut: tuple[Daemon, PgProxy]) -> None:
    d, proxy = cut
    proxy.cut()
    with d.control() as c, d.agent() as a:
        for _ in range(3):
            assert _degraded(c.call("memory.status", {}))
            assert _degraded(a.call("memory.status", {}))
        with pytest.raises(RpcError) as info:
            c.call("memory.list", {})
        assert info.value.data_code == "store_unavailable"
        # Nothing the status of an outage says comes from the database or names it.
        text = json.dumps(c.call("memory.status", {}))
        assert "127.0.0.1" not in text and "dbname" not in text
    proxy.restore()
    with d.control() as c:
        deadline = time.monotonic() + 30
        while c.call("memory.status", {})["backend"]["health"] != "ok":
            assert time.monotonic() < deadline, "never reconnected"
            time.sleep(0.1)
        assert c.call("memory.list", {})["items"]


def test_status_answers_when_the_outage_starts_with_it(cut: tuple[Daemon, PgProxy]) -> None:
    # The status call is the first to meet the outage: nothing has marked
    # the store unreachable before it.
    d, proxy = cut
    with d.control() as c:
        assert c.call("memory.status", {})["backend"]["health"] == "ok"
        proxy.cut()
        assert _degraded(c.call("memory.status", {}))


def test_memctls_hint_in_an_outage_names_the_database(cut: tuple[Daemon, PgProxy]) -> None:
    d, proxy = cut
    proxy.cut()
    done = d.memctl("write", "--type", "fact", "--title", "While down", "--body", "Not stored.")
    assert done.returncode != 0
    err = done.stderr.decode()
    assert "store_unavailable" in err
    assert "database" in err and "audit" not in err
    status = d.memctl("status")
    assert "database_unreachable" in status.stdout.decode() + status.stderr.decode()
