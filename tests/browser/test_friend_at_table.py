"""A friend request from the table, in real headless Chromium against a real server and Redis:
an account holder opens the folded menu beside the opponent's name and asks them to be
friends. In English the opponent holds an account: the request is sent, and it waits in the
opponent's list. In Arabic (right to left) the opponent plays as a guest: the page says that
friends are for account holders, and nothing is asked. A guest's own menu offers no friend
request. Screenshots: ``build/screenshots/friend-at-table-en.png``,
``friend-at-table-guest-ar.png``."""

from __future__ import annotations

from playwright.sync_api import expect

from tests.browser.conftest import NewPage
from tests.browser.helpers import ConsoleWatch, shot, take_invite
from tests.browser.scenes import as_player, bots_in_a_room, online
from tests.browser.test_friends import two_accounts
from tests.support.accounts import call
from tests.support.fixtures import FAST_CLIENT_ENV, ServerFactory
from tests.support.server_process import ServerProcess

ASKER, HOST = "Ada_Asks", "Bob_Hosts"


def received(server: ServerProcess, token: str) -> list[str]:
    status, reply = call(server.http_url, "/api/friends", token=token)
    assert status == 200, reply
    return [entry["handle"] for entry in reply["received"]]


def test_a_friend_request_from_the_table_reaches_the_opponent_in_english(
    server_factory: ServerFactory, new_page: NewPage
) -> None:
    server = server_factory(env=FAST_CLIENT_ENV)
    asker_token, host_token = two_accounts(server, (ASKER, HOST))
    page = new_page()
    as_player(page, server.http_url, asker_token, "/")
    with bots_in_a_room(server, guest=False, host_token=host_token) as scene:
        take_invite(page, f"{server.http_url}/join/{scene.invite}")
        expect(page.get_by_test_id("table")).to_be_visible()
        online(page)
        opponent = page.get_by_test_id("opponent")
        opponent.get_by_test_id("seat-menu-toggle").click()
        ask = opponent.get_by_test_id("friend-at-table")
        expect(ask).to_have_text("Add as a friend")
        shot(page, "friend-at-table-en")
        assert received(server, host_token) == []
        ask.click()
        expect(page.get_by_role("alert")).to_have_text("Friend request sent.")
        expect(opponent.get_by_test_id("friend-at-table")).to_have_count(0)  # the menu folds
        assert received(server, host_token) == [ASKER]


def test_a_guest_opponent_cannot_be_asked_and_a_guest_is_offered_no_request_in_arabic(
    server_factory: ServerFactory, new_page: NewPage, console: ConsoleWatch
) -> None:
    server = server_factory(env=FAST_CLIENT_ENV)
    asker_token, _ = two_accounts(server, (ASKER, HOST))
    page = new_page(locale="ar")
    as_player(page, server.http_url, asker_token, "/")
    with bots_in_a_room(server, guest=False) as scene:
        take_invite(page, f"{server.http_url}/join/{scene.invite}")
        expect(page.get_by_test_id("table")).to_be_visible()
        online(page)
        expect(page.locator("html")).to_have_attribute("dir", "rtl")
        opponent = page.get_by_test_id("opponent")
        opponent.get_by_test_id("seat-menu-toggle").click()
        ask = opponent.get_by_test_id("friend-at-table")
        expect(ask).to_have_text("أضِف صديقًا")
        ask.click()
        expect(page.get_by_role("alert")).to_have_text(
            "Ada يلعب ضيفًا: الصداقة لأصحاب الحسابات فقط."
        )
        shot(page, "friend-at-table-guest-ar")
        # the refusal (403 not_an_account) is the browser's one logged error, and only it
        refused = [error for error in console.errors if "403" in error and "/api/friends'" in error]
        assert len(refused) == 1, console.errors
        console.errors.remove(refused[0])
    # a guest at the table: report and block, no friend request
    guest = new_page()
    with bots_in_a_room(server, guest=False) as scene:
        take_invite(guest, f"{server.http_url}/join/{scene.invite}")
        expect(guest.get_by_test_id("table")).to_be_visible()
        online(guest)
        opponent = guest.get_by_test_id("opponent")
        opponent.get_by_test_id("seat-menu-toggle").click()
        expect(opponent.get_by_test_id("block-open")).to_be_visible()
        expect(opponent.get_by_test_id("friend-at-table")).to_have_count(0)
