"""An invite link that greets, in real headless Chromium against a real server: the page says
who invites and to what (the host's name, casual, the target, the turn clock) before anyone
sits down; a new visitor chooses a name and takes the seat under it, or signs in there and
takes it as their account; a player
with a name of their own just confirms; a wrong and a used code each say so. In English and in
Arabic (right to left). Screenshots: ``build/screenshots/invite-greeting-en.png``,
``invite-greeting-ar.png``, ``invite-confirm-ar.png``, ``invite-used-en.png``."""

from __future__ import annotations

import time

from playwright.sync_api import Page, expect

from protocol import messages as m
from tests.browser.conftest import NewPage
from tests.browser.helpers import shot
from tests.browser.scenes import PrivateRoom, bots_in_a_room, online
from tests.browser.test_friends import two_accounts
from tests.support.accounts import PASSWORD
from tests.support.server_process import ServerProcess


def seat_name(scene: PrivateRoom, seat: int, timeout: float = 20.0) -> str | None:
    """The name the host (a scripted player) sees at ``seat`` of its room, once it is taken."""
    host = scene.bots[0].bot
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        view = host.views.get(scene.room)
        if view is not None and not view["seats"][seat]["open"]:
            return str(view["seats"][seat]["name"])
        time.sleep(0.05)
    return None


def host_waits(scene: PrivateRoom) -> bool:
    view = scene.bots[0].bot.views.get(scene.room)
    return view is not None and view["status"] == "waiting" and view["seats"][1]["open"] is True


def test_an_invite_link_greets_and_a_new_visitor_picks_a_name_in_english(
    gin_server: ServerProcess, new_page: NewPage
) -> None:
    site = gin_server.http_url
    with bots_in_a_room(gin_server, rules=m.Rules(target=50), guest=False) as scene:
        page = new_page()
        page.goto(f"{site}/join/{scene.invite}")
        expect(page.get_by_test_id("invite-title")).to_have_text(
            "Ada invites you to a game of Gin Rummy"
        )
        expect(page.get_by_test_id("invite-kind")).to_have_text("Casual match: no rating at stake")
        expect(page.get_by_test_id("invite-target")).to_have_text("A match to 50 points")
        expect(page.get_by_test_id("invite-clock")).to_have_text(
            "30 s a move, and a 120 s time bank"
        )
        expect(page.get_by_test_id("invite-name")).to_be_visible()
        expect(page.get_by_test_id("invite-signin").get_by_test_id("signin-form")).to_be_visible()
        online(page)
        shot(page, "invite-greeting-en")
        # the greeting took no seat: the host still waits, the page is still the invite's
        assert host_waits(scene)
        expect(page.get_by_test_id("table")).to_have_count(0)
        # a name the server refuses keeps the visitor on the greeting, to choose another
        page.get_by_test_id("invite-name").fill("!!!")
        page.get_by_test_id("invite-accept").click()
        expect(page.get_by_role("alert")).to_have_text(
            "That name cannot be used: choose another one."
        )
        expect(page.get_by_test_id("invite-title")).to_be_visible()
        assert host_waits(scene)
        page.get_by_test_id("invite-name").fill("Zoe Invited")
        page.get_by_test_id("invite-accept").click()
        expect(page.get_by_test_id("table")).to_be_visible()
        expect(page).to_have_url(f"{site}/room/{scene.room}")
        assert seat_name(scene, 1) == "Zoe Invited"

        # the same link again, in another browser: used, and it says so
        late = new_page()
        late.goto(f"{site}/join/{scene.invite}")
        refused = late.get_by_test_id("invite-refused")
        expect(refused).to_have_attribute("data-code", "invite_used")
        expect(refused).to_contain_text("This invite was used already")
        shot(late, "invite-used-en")
        late.goto(f"{site}/join/NOSUCHCODE")
        expect(late.get_by_test_id("invite-refused")).to_have_attribute("data-code", "not_found")
        expect(late.get_by_test_id("invite-refused")).to_contain_text("wrong, or it has expired")


def greeted_in_arabic(page: Page, site: str, invite: str) -> None:
    page.goto(f"{site}/join/{invite}")
    expect(page.locator("html")).to_have_attribute("dir", "rtl")
    expect(page.get_by_test_id("invite-title")).to_have_text("Ada يدعوك إلى مباراة جين رمي")
    expect(page.get_by_test_id("invite-kind")).to_have_text("مباراة ودّية: لا تصنيف على المحك")
    expect(page.get_by_test_id("invite-target")).to_have_text("مباراة حتى 40 نقطة")
    online(page)


def test_an_invite_link_greets_in_arabic_and_a_named_player_just_confirms(
    gin_server: ServerProcess, new_page: NewPage
) -> None:
    site = gin_server.http_url
    rules = m.Rules(target=40)
    with bots_in_a_room(gin_server, rules=rules, guest=False) as first:
        page = new_page(locale="ar")
        greeted_in_arabic(page, site, first.invite)
        expect(page.get_by_test_id("invite-name")).to_be_visible()
        shot(page, "invite-greeting-ar")
        page.get_by_test_id("invite-name").fill("ليلى")
        page.get_by_test_id("invite-accept").click()
        expect(page.get_by_test_id("table")).to_be_visible()
        assert seat_name(first, 1) == "ليلى"
    with bots_in_a_room(gin_server, rules=rules, guest=False) as second:
        # the same browser: a player with a name of their own sees it, and just confirms
        greeted_in_arabic(page, site, second.invite)
        expect(page.get_by_test_id("invite-name")).to_have_count(0)
        expect(page.get_by_test_id("invite-playing-as")).to_have_text("ستلعب باسم ليلى.")
        shot(page, "invite-confirm-ar")
        assert host_waits(second)
        page.get_by_test_id("invite-accept").click()
        expect(page.get_by_test_id("table")).to_be_visible()
        expect(page).to_have_url(f"{site}/room/{second.room}")
        assert seat_name(second, 1) == "ليلى"


def test_a_visitor_signs_in_on_the_invite_page_and_takes_the_seat_as_the_account(
    gin_server: ServerProcess, new_page: NewPage
) -> None:
    """The greeting's other way in: a visitor who holds an account signs in there, comes back
    to the same greeting as that account (the name it sits under, and its handle; nobody
    seated meanwhile), confirms, and sits under the account's name."""
    site = gin_server.http_url
    two_accounts(gin_server, ("Zed_Invited", "Yan_Unused"))
    with bots_in_a_room(gin_server, rules=m.Rules(target=30), guest=False) as scene:
        page = new_page()
        page.goto(f"{site}/join/{scene.invite}")
        online(page)
        form = page.get_by_test_id("invite-signin")
        form.get_by_test_id("signin-handle").fill("Zed_Invited")
        form.get_by_test_id("signin-password").fill(PASSWORD)
        form.get_by_test_id("signin-password-go").click()
        # the name the seat takes, and the account it is taken with
        expect(page.get_by_test_id("invite-playing-as")).to_have_text("You play as Zed.")
        expect(page.get_by_test_id("invite-signed-in-as")).to_have_text("Signed in as Zed_Invited")
        expect(page).to_have_url(f"{site}/join/{scene.invite}")
        expect(page.get_by_test_id("invite-target")).to_have_text("A match to 30 points")
        expect(page.get_by_test_id("invite-signin")).to_have_count(0)
        assert host_waits(scene)
        page.get_by_test_id("invite-accept").click()
        expect(page.get_by_test_id("table")).to_be_visible()
        expect(page).to_have_url(f"{site}/room/{scene.room}")
        assert seat_name(scene, 1) == "Zed"
