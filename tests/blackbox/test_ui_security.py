"""memctl ui refuses what a local admin page must refuse, over raw HTTP.

A real daemon and a real ``memctl ui`` process; requests are sent with
``http.client`` so each header (Host, Cookie, Origin) is exactly what the
test says.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

pytest.importorskip("starlette")

from memoryd.rpc.client import Client
from tests.harness import Daemon, running
from tests.ui_harness import UiServer, csrf_of


@pytest.fixture(scope="module")
def ui(d: Daemon) -> Iterator[UiServer]:
    server = UiServer(d).start()
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture(scope="module")
def cookie(ui: UiServer) -> str:
    return ui.login()


def test_listens_on_loopback_by_default(ui: UiServer) -> None:
    assert ui.host.startswith("127.0.0.1:")


def test_the_login_address_works_only_once(ui: UiServer, cookie: str) -> None:
    again = ui.http("GET", ui.login_url.removeprefix(ui.base))
    assert again.status == 403
    assert "set-cookie" not in again.headers


def test_a_wrong_login_token_is_refused(ui: UiServer) -> None:
    assert ui.http("GET", "/login?token=guess").status == 403


def test_the_session_cookie_is_httponly_and_samesite_strict(d: Daemon) -> None:
    server = UiServer(d).start()
    try:
        answer = server.http("GET", server.login_url.removeprefix(server.base))
    finally:
        server.stop()
    flags = [part.strip().lower() for part in answer.headers["set-cookie"].split(";")]
    assert "httponly" in flags
    assert "samesite=strict" in flags
    assert not any(f.startswith(("max-age", "expires")) for f in flags)


def test_a_request_without_the_cookie_is_refused(ui: UiServer, cookie: str) -> None:
    for path in ("/memories", "/pending", "/consent", "/audit", "/status"):
        answer = ui.http("GET", path)
        assert answer.status == 401, path
        assert "<main" not in answer.body


def test_a_forged_cookie_is_refused(ui: UiServer, cookie: str) -> None:
    assert ui.http("GET", "/memories", cookie="memui_session=forged").status == 401


def test_a_wrong_host_is_refused_even_with_the_cookie(ui: UiServer, cookie: str) -> None:
    port = ui.host.rsplit(":", 1)[1]
    for host in (f"attacker.example:{port}", "127.0.0.1", f"127.0.0.2:{port}"):
        answer = ui.http("GET", "/memories", cookie=cookie, host=host)
        assert answer.status == 421, host
    assert ui.http("GET", "/memories", cookie=cookie).status == 200


def test_a_post_without_the_csrf_token_is_refused_and_changes_nothing(
    d: Daemon, ui: UiServer, cookie: str
) -> None:
    with d.control() as c:
        before = c.call("consent.get", {})
    refused = ui.http(
        "POST", "/consent", cookie=cookie, form={"version": before["version"], "read": "on"}
    )
    assert refused.status == 403
    wrong = ui.http(
        "POST",
        "/consent",
        cookie=cookie,
        form={"version": before["version"], "read": "on", "csrf": "nope"},
    )
    assert wrong.status == 403
    with d.control() as c:
        assert c.call("consent.get", {}) == before


def test_a_post_with_the_csrf_token_works(d: Daemon, ui: UiServer, cookie: str) -> None:
    page = ui.http("GET", "/consent", cookie=cookie)
    with d.control() as c:
        before = c.call("consent.get", {})
    done = ui.http(
        "POST",
        "/consent",
        cookie=cookie,
        form={"csrf": csrf_of(page.body), "version": before["version"], "contribute": "on"},
    )
    assert done.status == 303
    with d.control() as c:
        after = c.call("consent.get", {})
    assert after["contribute"] is True and after["version"] == before["version"] + 1


def test_a_cross_site_post_is_refused_even_with_the_token(ui: UiServer, cookie: str) -> None:
    page = ui.http("GET", "/memories", cookie=cookie)
    answer = ui.http(
        "POST",
        "/memories",
        cookie=cookie,
        form={"csrf": csrf_of(page.body)},
        headers={"Origin": "http://attacker.example"},
    )
    assert answer.status == 403


def test_every_answer_carries_a_strict_policy(ui: UiServer, cookie: str) -> None:
    for path, who in (("/memories", cookie), ("/memories", None), ("/static/ui.css", None)):
        headers = ui.http("GET", path, cookie=who).headers
        csp = headers["content-security-policy"]
        assert "default-src 'none'" in csp and "script-src" not in csp
        assert "frame-ancestors 'none'" in csp
        assert headers["cache-control"] == "no-store"
        assert headers["referrer-policy"] == "same-origin"


def test_pages_hold_no_script(ui: UiServer, cookie: str) -> None:
    for path in ("/memories", "/pending", "/consent", "/audit", "/status"):
        body = ui.http("GET", path, cookie=cookie).body
        assert "<script" not in body.lower(), path
        assert " on" + "click=" not in body.lower()


def test_a_search_keeps_the_query_out_of_the_address(d: Daemon, ui: UiServer, cookie: str) -> None:
    page = ui.http("GET", "/memories", cookie=cookie)
    answer = ui.http(
        "POST",
        "/memories",
        cookie=cookie,
        form={"csrf": csrf_of(page.body), "query": "zebracrossing"},
    )
    assert answer.status == 303
    assert "zebracrossing" not in answer.headers["location"]


def test_a_stale_cursor_offers_a_reload_and_never_page_one(tmp_path: object) -> None:
    with running() as daemon:
        with daemon.control() as c:
            for n in range(25):
                c.call(
                    "memory.write",
                    {
                        "action": "add",
                        "entry": {"type": "fact", "title": f"Note {n}", "body": f"Body {n}."},
                    },
                )
        server = UiServer(daemon).start()
        try:
            cookie = server.login()
            first = server.http("GET", "/memories", cookie=cookie)
            assert "Older page" in first.body
            older = first.body.split('href="/memories?v=')[1].split('"')[0]
            link = "/memories?v=" + older.replace("&amp;", "&")
            assert server.http("GET", link, cookie=cookie).status == 200
            daemon.restart()  # cursors are sealed per daemon run
            stale = server.http("GET", link, cookie=cookie)
        finally:
            server.stop()
    assert stale.status == 409
    assert "out of date" in stale.body and "Reload from the first page" in stale.body
    assert "Note 24" not in stale.body and "Note 0" not in stale.body


def test_stopping_memctl_ui_ends_the_session(d: Daemon) -> None:
    server = UiServer(d).start()
    cookie = server.login()
    assert server.http("GET", "/status", cookie=cookie).status == 200
    assert server.stop() == 0
    again = UiServer(d).start()
    try:
        # The same cookie sent to the next run of memctl ui on the same port
        # range is unknown there: sessions live only in the process.
        again_answer = again.http("GET", "/status", cookie=cookie)
    finally:
        again.stop()
    assert again_answer.status == 401


def test_memctl_ui_without_a_daemon_says_so(tmp_path: object) -> None:
    import subprocess

    from tests.harness import MEMCTL, REPO, short_tempdir

    home = short_tempdir()
    done = subprocess.run(
        [*MEMCTL, "--home", str(home), "ui"], capture_output=True, cwd=REPO, timeout=60, check=False
    )
    assert done.returncode == 3
    assert b"not running" in done.stderr


def test_the_control_client_is_the_only_path(d: Daemon) -> None:
    # The UI reaches the daemon as a control.sock client: its calls show in
    # the daemon's audit as control-channel operations, like memctl's.
    server = UiServer(d).start()
    try:
        cookie = server.login()
        page = server.http("GET", "/memories", cookie=cookie)
        server.http(
            "POST",
            "/memories/add",
            cookie=cookie,
            form={
                "csrf": csrf_of(page.body),
                "type": "fact",
                "title": "Via the page",
                "body": "Added through memctl ui.",
            },
        )
    finally:
        server.stop()
    with Client(d.control_path) as c:
        listed = c.call("memory.list", {"query": "memctl"})
    assert [i["source"] for i in listed["items"] if i["title"] == "Via the page"] == ["user"]


@pytest.mark.parametrize("wildcard", ["0.0.0.0", "::"])  # noqa: S104 (refused, never bound)
def test_a_wildcard_host_is_refused_with_a_hint(d: Daemon, wildcard: str) -> None:
    # The page answers only the address it was bound to (Host header check),
    # so a wildcard would print an address that answers 421 from the LAN.
    done = d.memctl("ui", "--host", wildcard, process=True, timeout=30)
    assert done.returncode == 2
    said = done.stderr.decode()
    assert f"--host {wildcard} listens on every address" in said
    assert "name one address of this host" in said and "ssh -L" in said
