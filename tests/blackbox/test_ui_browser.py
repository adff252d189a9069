"""The operator's page in a real browser: headless Chromium drives memctl ui.

Debian's ``chromium`` (``/usr/bin/chromium``, installed by ``.ci/run``) is
driven by Playwright for Python; no browser is downloaded. The daemon and
``memctl ui`` are real processes; the agent's proposals come over
``agent.sock``. With ``MEMORYD_UI_SCREENSHOTS=1`` the same tests write the
screenshots of ``docs/ui.md`` to ``docs/img/``.
"""

from __future__ import annotations

import os
import re
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("starlette")
sync_api = pytest.importorskip("playwright.sync_api")

from tests.harness import REPO, Daemon, backend, enable_consent, running  # noqa: E402
from tests.ui_harness import UiServer  # noqa: E402

CHROMIUM = Path("/usr/bin/chromium")
ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
SHOTS = REPO / "docs" / "img"

if not CHROMIUM.exists():
    if os.environ.get("CI"):
        pytest.fail("Debian's chromium is missing; .ci/run installs it", pytrace=False)
    pytest.skip(
        "Debian's chromium is not installed (apt-get install chromium)", allow_module_level=True
    )


def shot(page: Any, name: str) -> None:
    """Write docs/img/ui-NAME.png when asked (so ordinary runs leave the tree clean)."""
    if os.environ.get("MEMORYD_UI_SCREENSHOTS") == "1":
        SHOTS.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(SHOTS / f"ui-{name}.png"), full_page=True)


@pytest.fixture(scope="module")
def d() -> Iterator[Daemon]:
    with running() as daemon:
        with daemon.control() as c:
            enable_consent(c, read=True, contribute=True)
            for title, body, kind in (
                ("Deploy steps", "Run the migration, then kubectl rollout restart.", "procedure"),
                ("Editor", "Prefers vim keybindings; tabs are 4 spaces.", "preference"),
                ("Release day", "Releases go out on Tuesdays.", "fact"),
                ("部署注意事项", "发布前先在预发环境验证数据库迁移。", "lesson"),
                ("Markup <b>stays</b> & text", "A body with <script>x()</script>.", "fact"),
            ):
                c.call(
                    "memory.write",
                    {"action": "add", "entry": {"type": kind, "title": title, "body": body}},
                )
        yield daemon


@pytest.fixture(scope="module")
def ui(d: Daemon) -> Iterator[UiServer]:
    server = UiServer(d).start()
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    # Playwright starts each launch on a fresh, temporary user-data-dir.
    with sync_api.sync_playwright() as p:
        b = p.chromium.launch(executable_path=str(CHROMIUM), args=ARGS)
        try:
            yield b
        finally:
            b.close()


@pytest.fixture(scope="module")
def page(ui: UiServer, browser: Any) -> Iterator[Any]:
    context = browser.new_context(viewport={"width": 1200, "height": 900})
    tab = context.new_page()
    tab.goto(ui.login_url)
    yield tab
    context.close()


def origin(page: Any) -> str:
    return "/".join(page.url.split("/")[:3])


def go(page: Any, target: Any) -> None:
    """Click a link or submit button and wait for the page it leads to."""
    with page.expect_navigation():
        target.click()


def _propose(d: Daemon, title: str, body: str) -> str:
    with d.agent() as a:
        task = a.call("task.begin", {})["task_id"]
        out = a.call(
            "memory.write",
            {
                "task_id": task,
                "action": "add",
                "entry": {"type": "preference", "title": title, "body": body},
            },
        )
    assert out["outcome"] == "pending"
    return str(out["action_id"])


def _find(d: Daemon, title: str) -> dict[str, Any]:
    with d.control() as c:
        items = c.call("memory.list", {"statuses": ["active", "removed", "archived"]})["items"]
        (found,) = [i for i in items if i["title"] == title]
        entry: dict[str, Any] = c.call("memory.read", {"ids": [found["id"]]})["entries"][0]
        return entry


def test_login_with_the_printed_address_lands_on_memories(page: Any, ui: UiServer) -> None:
    assert page.url == f"{ui.base}/memories"
    assert page.get_by_role("heading", name="Memories").is_visible()
    cookies = page.context.cookies()
    assert [(c["httpOnly"], c["sameSite"]) for c in cookies] == [(True, "Strict")]
    shot(page, "memories")


def test_find_a_memory_by_search(page: Any) -> None:
    page.goto(origin(page) + "/memories")
    page.get_by_label("Search words").fill("rollout")
    go(page, page.get_by_role("button", name="Search / filter"))
    rows = page.locator("tbody tr")
    assert rows.count() == 1
    assert rows.first.get_by_role("link", name="Deploy steps").is_visible()
    assert "rollout" not in page.url  # the query never reaches the address bar
    shot(page, "search")


def test_markup_in_memory_is_shown_as_text(page: Any) -> None:
    page.goto(origin(page) + "/memories")
    link = page.get_by_role("link", name="Markup <b>stays</b> & text")
    assert link.is_visible()
    go(page, link)
    assert page.locator("pre.body").first.inner_text() == "A body with <script>x()</script>."
    assert page.locator("main b").count() == 0


def test_cjk_text_is_listed(page: Any) -> None:
    page.goto(origin(page) + "/memories")
    assert page.get_by_role("link", name="部署注意事项").is_visible()


def test_approve_a_pending_proposal_and_see_it_applied(page: Any, d: Daemon) -> None:
    action = _propose(d, "Shell", "Uses fish, with vi key bindings.")
    go(page, page.get_by_role("link", name="Pending"))
    section = page.get_by_role("region", name=re.compile(action))
    assert "Uses fish, with vi key bindings." in section.inner_text()
    assert "requires_approval" in section.inner_text()
    shot(page, "pending")
    go(page, section.get_by_role("button", name=f"Approve {action}"))
    assert page.get_by_role("heading", name="Results").is_visible()
    assert "applied" in page.locator("main").inner_text()
    go(page, page.get_by_role("link", name="Shell"))
    assert page.locator("pre.body").first.inner_text() == "Uses fish, with vi key bindings."
    assert _find(d, "Shell")["source"] == "agent"


def test_bulk_decide_confirms_what_will_happen_first(page: Any, d: Daemon) -> None:
    first = _propose(d, "Coffee", "Drinks it black.")
    second = _propose(d, "Tea", "Green, no sugar.")
    go(page, page.get_by_role("link", name="Pending"))
    for action in (first, second):
        page.get_by_role("region", name=re.compile(action)).get_by_role("checkbox").check()
    page.get_by_label("deny all ticked").check()
    page.get_by_label("Reason (for denials)").fill("not about work")
    go(page, page.get_by_role("button", name="Review what will happen…"))
    listed = page.locator("main").inner_text()
    assert first in listed and second in listed and "Nothing has been decided yet" in listed
    shot(page, "bulk-confirm")
    with d.control() as c:  # the confirmation page decided nothing
        assert c.call("governance.action.get", {"action_id": first})["status"] == "pending"
    go(page, page.get_by_role("button", name="Yes, deny these 2"))
    with d.control() as c:
        assert c.call("governance.action.get", {"action_id": first})["status"] == "denied"
        assert c.call("governance.action.get", {"action_id": second})["status"] == "denied"
        for action in (first, second):  # the reason typed once is kept with each decision
            assert (
                c.call("governance.action.get", {"action_id": action})["reason"] == "not about work"
            )
    assert page.locator("main").inner_text().count("reason kept: not about work") == 2


def test_navigation_counts_every_owners_pending_actions(page: Any, d: Daemon) -> None:
    other = {"kind": "local", "subject": "nav-count-owner"}
    with d.control() as c:
        enable_consent(c, identity=other)
        token = c.call("token.issue", {"identity": other})["token"]
    with d.agent() as a:
        task = a.call("task.begin", {"token": token})["task_id"]
        a.call(
            "memory.write",
            {
                "task_id": task,
                "action": "add",
                "entry": {"type": "fact", "title": "Other owner", "body": "Waits for a decision."},
            },
        )
    with d.control() as c:
        waiting = c.call("memory.status", {})["pending_all_owners"]
    assert waiting >= 1
    page.goto(origin(page) + "/memories")
    link = page.get_by_role("navigation", name="Pages").get_by_role("link", name="Pending")
    assert link.inner_text() == f"Pending ({waiting} waiting)"


def test_pending_says_who_proposed_by_token_label(page: Any, d: Daemon) -> None:
    kim = {"kind": "local", "subject": "kim"}
    with d.control() as c:
        enable_consent(c, identity=kim)
        issued = c.call("token.issue", {"identity": kim, "label": "kim-laptop"})
    with d.agent() as a:
        task = a.call("task.begin", {"token": issued["token"]})["task_id"]
        action = a.call(
            "memory.write",
            {
                "task_id": task,
                "action": "add",
                "entry": {"type": "fact", "title": "Kim's note", "body": "Standup is at ten."},
            },
        )["action_id"]
    go(page, page.get_by_role("link", name="Pending"))
    text = page.get_by_role("region", name=re.compile(action)).inner_text()
    assert f"proposed by token:kim-laptop ({issued['token_id']})" in text
    assert f"owner {issued['owner'][:12]}… (tokens: kim-laptop)" in text


def test_table_cells_do_not_break_words_at_1280_px(d: Daemon, page: Any) -> None:
    with d.control() as c:  # a long title takes the width the other columns need
        c.call(
            "memory.write",
            {
                "action": "add",
                "scope": "project:infrastructure-platform",
                "entry": {
                    "type": "procedure",
                    "title": " ".join(["Rotate the certificates of the ingress controllers"] * 6),
                    "body": "Rotate them every quarter.",
                },
            },
        )
    page.set_viewport_size({"width": 1280, "height": 900})
    page.goto(origin(page) + "/memories")
    broken = page.evaluate("""() => {
        const out = [];
        for (const td of document.querySelectorAll('main table td')) {
            const text = td.innerText.trim();
            // A new line between two letters or digits is a word broken in two.
            const walker = document.createTreeWalker(td, NodeFilter.SHOW_TEXT);
            for (let node = walker.nextNode(); node; node = walker.nextNode()) {
                const s = node.textContent;
                let lastTop = null;
                for (let i = 0; i < s.length; i++) {
                    const range = document.createRange();
                    range.setStart(node, i);
                    range.setEnd(node, i + 1);
                    const r = range.getClientRects()[0];
                    if (!r) continue;
                    const top = Math.round(r.top);
                    if (lastTop !== null && top > lastTop && /[\\p{L}\\p{N}]/u.test(s[i])
                            && /[\\p{L}\\p{N}]/u.test(s[i - 1])) {
                        out.push(text);
                        break;
                    }
                    lastTop = top;
                }
            }
        }
        return out;
    }""")
    assert broken == []


def test_after_login_the_page_lands_on_the_queue_when_something_waits(
    browser: Any, d: Daemon
) -> None:
    _propose(d, "Landing", "Something waits.")
    # A login address works once: a second memctl ui prints a fresh one.
    second = UiServer(d).start()
    context = browser.new_context(viewport={"width": 1200, "height": 900})
    try:
        tab = context.new_page()
        tab.goto(second.login_url)
        assert tab.url == f"{second.base}/pending"
        assert tab.get_by_role("heading", name="Pending proposals").is_visible()
    finally:
        context.close()
        second.stop()


def test_deny_with_a_reason_keeps_it_and_shows_it(page: Any, d: Daemon) -> None:
    action = _propose(d, "Font size", "Reads code at 16 pt.")
    go(page, page.get_by_role("link", name="Pending"))
    section = page.get_by_role("region", name=re.compile(action))
    section.get_by_label("Reason").fill("only true on the laptop")
    go(page, section.get_by_role("button", name=f"Deny {action}"))
    assert "denied · reason kept: only true on the laptop" in page.locator("main").inner_text()
    with d.control() as c:
        shown = c.call("governance.action.get", {"action_id": action})
    assert (shown["status"], shown["reason"]) == ("denied", "only true on the laptop")


def test_a_secret_typed_as_a_deny_reason_is_refused_on_the_page(page: Any, d: Daemon) -> None:
    action = _propose(d, "Paste slip", "Keeps notes in the wiki.")
    go(page, page.get_by_role("link", name="Pending"))
    section = page.get_by_role("region", name=re.compile(action))
    section.get_by_label("Reason").fill("see ghp_a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8")
    go(page, section.get_by_role("button", name=f"Deny {action}"))
    shown = page.locator("main").inner_text()
    assert "secret_detected" in shown and "ghp_a1B2" not in shown
    with d.control() as c:
        assert c.call("governance.action.get", {"action_id": action})["status"] == "pending"


def test_edit_with_a_conflict_shows_both_versions(page: Any, d: Daemon) -> None:
    entry = _find(d, "Release day")
    page.goto(f"{origin(page)}/entry/{entry['id']}")
    shot(page, "entry")
    page.locator("#edit-body").fill("Releases go out on Wednesdays.")
    with d.control() as c:  # someone else saves first
        c.call(
            "memory.write",
            {
                "action": "replace",
                "id": entry["id"],
                "expected_revision": 1,
                "entry": {
                    "type": "fact",
                    "title": "Release day",
                    "body": "Releases go out on Thursdays.",
                },
            },
        )
    go(page, page.get_by_role("button", name="Save as revision 2"))
    text = page.locator("main").inner_text()
    assert "Not saved: someone changed this entry first" in text
    assert "Releases go out on Wednesdays." in text  # mine
    assert "Releases go out on Thursdays." in text  # theirs
    assert _find(d, "Release day")["body"] == "Releases go out on Thursdays."
    shot(page, "conflict")
    go(page, page.get_by_role("button", name="Save over revision 2"))
    assert _find(d, "Release day")["body"] == "Releases go out on Wednesdays."
    assert page.locator("pre.body").first.inner_text() == "Releases go out on Wednesdays."


def test_remove_and_see_the_receipt(page: Any, d: Daemon) -> None:
    entry = _find(d, "Editor")
    page.goto(f"{origin(page)}/entry/{entry['id']}")
    page.get_by_text("Remove (destroys title").click()
    go(page, page.get_by_role("button", name="Remove for good"))  # not confirmed: refused
    assert "Nothing was removed" in page.locator("main").inner_text()
    page.get_by_text("Remove (destroys title").click()
    page.get_by_label("I understand the body is destroyed").check()
    go(page, page.get_by_role("button", name="Remove for good"))
    assert page.get_by_role("heading", name="Delete receipt").is_visible()
    assert page.locator("#receipt-status").inner_text() == "verified"
    receipt_id = page.url.rsplit("/", 1)[1]
    with d.control() as c:
        assert c.call("memory.receipt", {"receipt_id": receipt_id})["status"] == "verified"
        assert c.call("memory.read", {"ids": [entry["id"]]})["entries"][0]["status"] == "removed"
    shot(page, "receipt")


def test_flip_a_consent_switch(page: Any, d: Daemon) -> None:
    go(page, page.get_by_role("link", name="Consent and tokens"))
    box = page.locator("input[name=learn_from_tools]")
    assert not box.is_checked()
    box.check()
    go(page, page.get_by_role("button", name="Save consent"))
    assert "Consent saved" in page.locator("main").inner_text()
    with d.control() as c:
        assert c.call("consent.get", {})["learn_from_tools"] is True
    shot(page, "consent")


def test_an_old_consent_page_cannot_overwrite_a_newer_choice(page: Any, d: Daemon) -> None:
    go(page, page.get_by_role("link", name="Consent and tokens"))
    with d.control() as c:  # a newer choice, made elsewhere
        now = c.call("consent.get", {})
        c.call("consent.set", {"version": now["version"], "read": False})
    page.locator("input[name=contribute]").uncheck()
    go(page, page.get_by_role("button", name="Save consent"))
    assert "changed elsewhere" in page.locator("main").inner_text()
    with d.control() as c:
        after = c.call("consent.get", {})
    assert (after["read"], after["contribute"]) == (False, True)


def test_issue_a_token_shown_once_then_revoke(page: Any, d: Daemon) -> None:
    go(page, page.get_by_role("link", name="Consent and tokens"))
    form = page.get_by_role("form", name="Issue a token")
    form.get_by_label("Subject").fill("alice")
    go(page, form.get_by_role("button", name="Issue token"))
    token = page.get_by_label("Token").input_value()
    assert token
    go(page, page.get_by_role("link", name="Back to consent and tokens"))
    assert token not in page.content()
    go(page, page.get_by_role("button", name=re.compile("^Revoke tok_")).first)
    with d.control() as c:
        states = [t["state"] for t in c.call("token.list", {})["items"]]
    assert "revoked" in states


def test_audit_verifies_on_demand_and_undoes_from_the_journal(page: Any, d: Daemon) -> None:
    go(page, page.get_by_role("link", name="Audit"))
    assert page.get_by_role("heading", name="Events by kind").is_visible()
    shot(page, "audit")
    go(page, page.get_by_role("button", name="Verify the chain now"))
    page.locator("#verify-result").wait_for()
    assert "Chain OK" in page.locator("#verify-result").inner_text()
    shot(page, "verify")
    go(page, page.get_by_role("link", name="Back to Audit"))
    undo = page.get_by_role("button", name=re.compile("^Undo op_")).first
    go(page, undo)
    assert "Undid op_" in page.locator("main").inner_text()


def test_status_shows_backend_counts_and_policy(page: Any) -> None:
    go(page, page.get_by_role("link", name="Status"))
    text = page.locator("main").inner_text()
    for word in (backend(), "pending actions", "pol_", "rules"):
        assert word in text
    assert re.search(r"\d+ for this identity, \d+ in all", text)
    shot(page, "status")


def test_keyboard_only_reaches_and_submits_the_search(page: Any) -> None:
    page.goto(f"{origin(page)}/memories")
    page.keyboard.press("Tab")
    assert page.evaluate("document.activeElement.textContent") == "Skip to content"
    page.keyboard.press("Enter")
    for _ in range(3):  # the search field is the first control of the page
        page.keyboard.press("Tab")
        if page.evaluate("document.activeElement.name") == "query":
            break
    assert page.evaluate("document.activeElement.name") == "query"
    page.keyboard.type("kubectl rollout")
    with page.expect_navigation():  # Enter submits the form: wait for the page it leads to
        page.keyboard.press("Enter")
    assert page.get_by_role("link", name="Deploy steps").count() == 1
    assert page.get_by_role("link", name="Release day").count() == 0


def test_dark_scheme_is_readable(ui: UiServer, browser: Any, page: Any) -> None:
    context = page.context
    page.emulate_media(color_scheme="dark")
    page.goto(f"{origin(page)}/memories")
    background = page.evaluate("getComputedStyle(document.body).backgroundColor")
    assert background == "rgb(21, 22, 26)"
    shot(page, "memories-dark")
    page.emulate_media(color_scheme="light")
    assert context is page.context


def test_pick_a_known_owner_to_act_for_and_see_its_memory(page: Any, d: Daemon) -> None:
    ash = {"kind": "local", "subject": "ash"}
    with d.control() as c:
        enable_consent(c, identity=ash)
        c.call(
            "memory.write",
            {
                "identity": ash,
                "action": "add",
                "entry": {"type": "fact", "title": "Ash's rota", "body": "On call in even weeks."},
            },
        )
        owner = c.call("token.issue", {"identity": ash, "label": "ash-desk"})["owner"]
    page.goto(origin(page) + "/memories")
    assert "Ash's rota" not in page.locator("main").inner_text()
    shown = f"{owner[:12]}… (tokens: ash-desk)"
    page.get_by_label("Known owners").select_option(label=shown)
    go(page, page.get_by_role("button", name="Act for owner"))
    assert f"Acting for: {shown}" in page.locator("header").inner_text()
    assert "Ash's rota" in page.locator("main").inner_text()
    go(page, page.get_by_role("button", name="Default"))
    assert "Ash's rota" not in page.locator("main").inner_text()


def test_the_owner_picker_offers_owners_that_only_hold_entries(page: Any, d: Daemon) -> None:
    gus = {"kind": "local", "subject": "gus"}
    with d.control() as c:
        enable_consent(c, identity=gus)
        c.call(
            "memory.write",
            {
                "identity": gus,
                "action": "add",
                "entry": {
                    "type": "fact",
                    "title": "Gus keeps this",
                    "body": "No token, nothing waits.",
                },
            },
        )
        owner = c.call("consent.get", {"identity": gus})["owner"]
    page.goto(origin(page) + "/memories")
    page.get_by_label("Known owners").select_option(value=owner)
    go(page, page.get_by_role("button", name="Act for owner"))
    assert "Gus keeps this" in page.locator("main").inner_text()
    go(page, page.get_by_role("button", name="Default"))


def test_every_owner_the_page_shows_carries_its_token_labels(page: Any, d: Daemon) -> None:
    fay = {"kind": "local", "subject": "fay"}
    with d.control() as c:
        owner = c.call("token.issue", {"identity": fay, "label": "fay-desk"})["owner"]
    shown = f"{owner[:12]}… (tokens: fay-desk)"
    page.goto(origin(page) + "/consent")
    page.get_by_label("Known owners").select_option(label=shown)
    go(page, page.get_by_role("button", name="Act for owner"))
    main = page.locator("main").inner_text()
    assert f"Owner {shown}" in main
    assert owner not in main  # never bare where labels exist
    go(page, page.get_by_role("link", name="Status"))
    assert shown in page.locator("main").inner_text()
    assert owner not in page.locator("main").inner_text()
    go(page, page.get_by_role("button", name="Default"))


PROJECTION_NEEDS_APPROVAL = """
[[rule]]
id = "net"
effect = "allow"
capability = "NetworkAccess"

[[rule]]
id = "ext"
effect = "requires_approval"
capability = "MemoryExternalize"
"""


def test_projection_review_lists_what_would_leave_before_approving(browser: Any) -> None:
    from tests.provider_receiver import receiver

    with (
        receiver("tok-provider") as rx,
        running(
            env={"MEMORYD_TEST_PROVIDER_TOKEN": "tok-provider"},
            policy=PROJECTION_NEEDS_APPROVAL,
            config=f"""
[projection]
mode = "hybrid"
project = true
endpoint = "{rx.endpoint}"
credential_env = "MEMORYD_TEST_PROVIDER_TOKEN"
poll_interval_s = 0.05
backoff_initial_s = 0.05
backoff_max_s = 0.2
timeout_s = 5
""",
        ) as pd,
    ):
        with pd.control() as c:
            made = c.call(
                "memory.write",
                {
                    "action": "add",
                    "entry": {"type": "fact", "title": "Leaves on approval", "body": "Sent later."},
                },
            )
        entry_id = made["entries"][0]["id"]
        with pd.control() as c:  # the projection worker decides it (blocked) first
            for _ in range(3000):
                if c.call("memory.status", {})["projection"]["outbox"].get("blocked"):
                    break
                time.sleep(0.01)
        server = UiServer(pd).start()
        context = browser.new_context(viewport={"width": 1200, "height": 900})
        try:
            tab = context.new_page()
            tab.goto(server.login_url)
            go(tab, tab.get_by_role("link", name="Status"))
            go(tab, tab.get_by_role("link", name="Review what would leave"))
            rows = tab.get_by_role("table", name="Would leave this host").inner_text()
            assert entry_id in rows and "Leaves on approval" in rows
            assert rx.writes() == []
            go(tab, tab.get_by_role("button", name="Approve what is listed"))
            assert "Approved 1 item" in tab.locator("main").inner_text()
            with pd.control() as c:
                assert c.call("memory.projection.authorize", {})["items"] == []
            # Titles are for the page only: never in memctl ui's or the daemon's log.
            assert "Leaves on approval" not in server.log()
            assert "Leaves on approval" not in pd.log()
        finally:
            context.close()
            server.stop()
