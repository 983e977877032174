"""Reporting and blocking from the page, in real headless Chromium against a real server and
Redis: at the table, the folded menu beside the opponent's name reports them (a reason from the
short list), and the moderator's tool (``python -m server.admin reports``) lists the report
with its room; the same menu blocks them, and the server's block list has them. No menu for an
AI seat. A replay reports the other player of its match, a profile its holder. The table in
English and in Arabic (right to left).
Screenshots: ``build/screenshots/report-menu-en.png``, ``report-dialog-en.png``,
``report-menu-ar.png``, ``report-dialog-ar.png``, ``report-replay-en.png``."""

from __future__ import annotations

from playwright.sync_api import Page, expect

from tests.browser.conftest import NewPage
from tests.browser.helpers import play_hand, shot, take_invite
from tests.browser.scenes import PrivateRoom, bots_in_a_room, online
from tests.browser.test_blocking import ADA, BOB, as_player, two_accounts
from tests.support.accounts import call
from tests.support.backups import admin
from tests.support.fixtures import FAST_CLIENT_ENV, ServerFactory
from tests.support.server_process import ServerProcess


def token_of(page: Page) -> str:
    return str(page.evaluate("() => localStorage.getItem('gin.token')"))


def blocked_names(server: ServerProcess, token: str) -> list[str | None]:
    status, reply = call(server.http_url, "/api/blocks", token=token)
    assert status == 200, reply
    return [entry["name"] for entry in reply["blocked"]]


def reports_listed(server: ServerProcess) -> str:
    listed = admin("reports", env={"REDIS_URL": server.redis_url})
    assert listed.returncode == 0, listed
    return listed.stdout


def report_and_block_at_the_table(
    page: Page,
    server: ServerProcess,
    scene: PrivateRoom,
    lang: str,
    reason: str,
    texts: dict[str, str],
) -> None:
    take_invite(page, f"{server.http_url}/join/{scene.invite}")
    expect(page.get_by_test_id("table")).to_be_visible()
    online(page)
    opponent = page.get_by_test_id("opponent")
    expect(opponent.get_by_test_id("report-open")).to_have_count(0)  # folded away
    opponent.get_by_test_id("seat-menu-toggle").click()
    expect(opponent.get_by_test_id("report-open")).to_have_text(texts["open"])
    shot(page, f"report-menu-{lang}")
    opponent.get_by_test_id("report-open").click()
    dialog = page.get_by_test_id("report-dialog")
    expect(dialog.locator("h2")).to_have_text(texts["title"])
    expect(dialog.locator("h2")).to_be_focused()  # the keyboard is taken into the dialog
    expect(dialog.get_by_test_id("report-send")).to_be_disabled()  # no reason chosen yet
    dialog.get_by_test_id(f"report-reason-{reason}").check()
    shot(page, f"report-dialog-{lang}")
    assert scene.room not in reports_listed(server)
    dialog.get_by_test_id("report-send").click()
    expect(page.get_by_role("alert")).to_have_text(texts["sent"])
    expect(page.get_by_test_id("report-dialog")).to_have_count(0)
    listed = reports_listed(server)
    line = next((row for row in listed.splitlines() if scene.room in row), "")
    assert reason in line, listed

    # the same menu blocks the opponent, after asking
    assert "Ada" not in blocked_names(server, token_of(page))
    opponent.get_by_test_id("seat-menu-toggle").click()
    opponent.get_by_test_id("block-open").click()
    expect(page.get_by_test_id("confirm")).to_contain_text(texts["ask"])
    page.get_by_test_id("confirm-yes").click()
    expect(page.get_by_role("alert")).to_contain_text(texts["blocked"])
    assert blocked_names(server, token_of(page)) == ["Ada"]


def test_reporting_and_blocking_from_the_table_in_english(
    gin_server: ServerProcess, new_page: NewPage
) -> None:
    page = new_page()
    texts = {
        "open": "Report…",
        "title": "Report Ada",
        "sent": "Thank you: your report was sent to the moderators.",
        "ask": "Block Ada?",
        "blocked": "Ada is blocked.",
    }
    with bots_in_a_room(gin_server, guest=False, delay=0.05) as scene:
        report_and_block_at_the_table(page, gin_server, scene, "en", "abuse", texts)
        # a hand played to its end: its replay reports the other player of the match
        play_hand([page])
        page.goto(f"{gin_server.http_url}/replay/{scene.room}-1")
        button = page.get_by_test_id("report-button")
        expect(button).to_have_text("Report Ada")  # not the reader's own seat
        button.click()
        dialog = page.get_by_test_id("report-dialog")
        dialog.get_by_test_id("report-reason-stalling").check()
        shot(page, "report-replay-en")
        dialog.get_by_test_id("report-send").click()
        expect(page.get_by_role("alert")).to_have_text(texts["sent"])
        rows = [row for row in reports_listed(gin_server).splitlines() if scene.room in row]
        assert len(rows) == 2 and any("stalling" in row for row in rows), rows
    # no menu for an AI seat
    page.locator("[data-key=nav-lobby]").click()
    page.get_by_test_id("play-ai-easy").click()
    page.get_by_test_id("confirm-yes").click()  # another match beside the one in play
    expect(page.get_by_test_id("table")).to_be_visible()
    expect(page.get_by_test_id("opponent")).to_be_visible()
    expect(page.get_by_test_id("seat-menu")).to_have_count(0)


def test_reporting_and_blocking_from_the_table_in_arabic(
    gin_server: ServerProcess, new_page: NewPage
) -> None:
    page = new_page(locale="ar")
    texts = {
        "open": "إبلاغ…",
        "title": "الإبلاغ عن Ada",
        "sent": "شكراً لك: أُرسل بلاغك إلى المشرفين.",
        "ask": "حظر Ada؟",
        "blocked": "تم حظر Ada.",
    }
    with bots_in_a_room(gin_server, guest=False, delay=0.05) as scene:
        report_and_block_at_the_table(page, gin_server, scene, "ar", "name", texts)
    expect(page.locator("html")).to_have_attribute("dir", "rtl")


def test_reporting_from_a_profile(server_factory: ServerFactory, new_page: NewPage) -> None:
    server = server_factory(env=FAST_CLIENT_ENV)
    ada, _ = two_accounts(server)
    page = new_page()
    as_player(page, server.http_url, ada)
    page.goto(f"{server.http_url}/@/{BOB}")
    expect(page.get_by_test_id("profile-handle")).to_have_text(BOB)
    page.get_by_test_id("report-button").click()
    dialog = page.get_by_test_id("report-dialog")
    expect(dialog.locator("h2")).to_have_text(f"Report {BOB}")
    dialog.get_by_test_id("report-reason-name").check()
    dialog.get_by_test_id("report-send").click()
    expect(page.get_by_role("alert")).to_have_text(
        "Thank you: your report was sent to the moderators."
    )
    rows = [row for row in reports_listed(server).splitlines() if f"@{BOB}" in row]
    assert len(rows) == 1 and "name" in rows[0] and f"@{ADA}" in rows[0], rows
    # one's own page has no report button
    page.goto(f"{server.http_url}/@/{ADA}")
    expect(page.get_by_test_id("profile-blocks")).to_be_visible()
    expect(page.get_by_test_id("report-button")).to_have_count(0)
