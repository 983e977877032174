"""The away choice in real headless Chromium: two people, one closes the page, the other sees,
after the grace period, the choice between claiming the win and an AI stand-in, and claims."""

from __future__ import annotations

import re

from playwright.sync_api import Page, expect

from tests.browser.conftest import NewPage
from tests.browser.helpers import take_invite
from tests.support.fixtures import FAST_CLIENT_ENV, ServerFactory


def online(page: Page) -> None:
    expect(page.get_by_test_id("connection")).to_have_attribute("data-status", "online")


def test_the_host_claims_the_win_of_a_guest_who_closed_the_page(
    server_factory: ServerFactory, new_page: NewPage
) -> None:
    server = server_factory(env={**FAST_CLIENT_ENV, "GIN_DISCONNECT_GRACE": "1"})
    host = new_page()
    host.goto(server.http_url + "/")
    online(host)
    host.get_by_test_id("create-private").click()
    link = host.get_by_test_id("invite-link")
    expect(link).to_have_value(re.compile(r"/join/[A-Za-z0-9_-]+$"))
    guest = new_page()
    take_invite(guest, link.input_value())
    expect(guest.get_by_test_id("table")).to_be_visible()
    expect(host.get_by_test_id("table")).to_be_visible()
    expect(host.get_by_test_id("away-choice")).to_have_count(0)

    guest.context.close()
    expect(host.get_by_test_id("opponent").locator(".badge.away")).to_be_visible()
    choice = host.get_by_test_id("away-choice")
    expect(choice).to_be_visible()  # pushed by the server once the grace has passed
    expect(choice.get_by_test_id("call-stand-in")).to_be_visible()
    choice.get_by_test_id("claim-win").click()

    over = host.get_by_test_id("match-over")
    expect(over).to_be_visible()
    expect(over.locator(".headline")).to_contain_text("left the match")
    expect(host.get_by_test_id("away-choice")).to_have_count(0)
