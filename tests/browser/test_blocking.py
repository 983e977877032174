"""Blocking from a profile page in real headless Chromium: Ada blocks Bob from his page, finds
him on her own page's block list (the server's list has him), and unblocks him there; in Arabic,
Bob blocks Ada the same way and sees the list right to left. Screenshots:
``build/screenshots/blocks-other-en.png``, ``blocks-list-en.png``, ``blocks-other-ar.png``,
``blocks-list-ar.png``."""

from __future__ import annotations

import asyncio
from concurrent.futures import ThreadPoolExecutor

from playwright.sync_api import Page, expect

from client.session import Session
from tests.browser.conftest import NewPage
from tests.browser.helpers import shot
from tests.browser.scenes import online
from tests.support.accounts import call, claim
from tests.support.fixtures import FAST_CLIENT_ENV, ServerFactory
from tests.support.server_process import ServerProcess

ADA, BOB = "Ada_Blocks", "Bob_Blocked"


def two_accounts(server: ServerProcess) -> tuple[str, str]:
    async def run() -> tuple[str, str]:
        tokens = []
        for handle in (ADA, BOB):
            guest = await Session.connect(server.ws_url, name=handle.split("_")[0])
            await guest.close()
            claimed = await claim(
                server.http_url, guest.token or "", handle, "correct horse battery"
            )
            tokens.append(str(claimed["token"]))
        return tokens[0], tokens[1]

    with ThreadPoolExecutor(1) as pool:  # its own event loop, away from Playwright's
        return pool.submit(asyncio.run, run()).result(timeout=60)


def as_player(page: Page, site: str, token: str) -> None:
    page.goto(site + "/")
    online(page)
    page.evaluate("token => localStorage.setItem('gin.token', token)", token)


def listed(server: ServerProcess, token: str) -> list[str | None]:
    status, reply = call(server.http_url, "/api/blocks", token=token)
    assert status == 200, reply
    return [entry["handle"] for entry in reply["blocked"]]


def block_and_unblock(
    page: Page, site: str, server: ServerProcess, token: str, other: str, me: str, lang: str
) -> None:
    page.goto(f"{site}/@/{other}")
    expect(page.get_by_test_id("profile-handle")).to_have_text(other)
    page.get_by_test_id("block").click()
    expect(page.get_by_test_id("blocked-note")).to_be_visible()
    shot(page, f"blocks-other-{lang}")
    assert listed(server, token) == [other]
    page.goto(f"{site}/@/{me}")
    entry = page.get_by_test_id("blocked-player")
    expect(entry).to_have_count(1)
    expect(entry).to_contain_text(other)
    shot(page, f"blocks-list-{lang}")
    entry.get_by_test_id("unblock").click()
    expect(page.get_by_test_id("blocks-none")).to_be_visible()
    assert listed(server, token) == []


def test_blocking_from_a_profile_and_the_block_list_in_english_and_arabic(
    new_page: NewPage, server_factory: ServerFactory
) -> None:
    server = server_factory(env=FAST_CLIENT_ENV)
    site = server.http_url
    ada, bob = two_accounts(server)

    page = new_page()
    as_player(page, site, ada)
    block_and_unblock(page, site, server, ada, BOB, ADA, "en")
    expect(page.get_by_test_id("profile-blocks")).to_contain_text("Blocked players")

    other = new_page(locale="ar")
    as_player(other, site, bob)
    block_and_unblock(other, site, server, bob, ADA, BOB, "ar")
    expect(other.locator("html")).to_have_attribute("dir", "rtl")
    expect(other.get_by_test_id("profile-blocks")).to_contain_text("اللاعبون المحظورون")
