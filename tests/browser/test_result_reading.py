"""Issue #24, defect 7: either player may deal the next hand, and the other player's turn clock
did not wait for them: it ran (and played for them) while their result of the last hand was
still open. Played in real Chromium on a scripted first deal (``tests.browser.scripted``)
against a scripted host with a two-second turn clock.

Screenshots: ``build/screenshots/reading-*.png``.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager

import pytest
from playwright.sync_api import Page, expect

from protocol import messages as m
from tests.browser.bot import Bot, BotThread
from tests.browser.helpers import SCREENSHOTS, take_invite
from tests.browser.scenes import PrivateRoom, online
from tests.browser.scripted import LAYOFF_DEAL, LAYOFF_KNOCK, script_first_deal
from tests.support.fixtures import FAST_CLIENT_ENV, ServerFactory
from tests.support.server_process import ServerProcess

#: The host's turn clock: short, so that a clock that ran would have played within the wait.
TURN_SECONDS = 2


@contextmanager
def clocked_host(server: ServerProcess, *, deal_next: bool, delay: float) -> Iterator[PrivateRoom]:
    """Ada opens a private room with a ``TURN_SECONDS`` clock and no bank, and plays it."""
    scene = PrivateRoom()

    async def create(bot: Bot) -> None:
        request = m.CreateRoom(id=bot._id(), mode="private", turn_seconds=TURN_SECONDS, turn_bank=0)
        ack = await bot.request(request)
        assert isinstance(ack, m.Ack), ack
        scene.room, scene.invite = str(ack.result["room"]), str(ack.result["invite"])

    bot = Bot(server.ws_url, name="Ada", seed=3, delay=delay, deal_next=deal_next)
    scene.bots.append(BotThread(bot, create).start())
    try:
        deadline = time.monotonic() + 10
        while not scene.invite:
            assert time.monotonic() < deadline, "the host opened no room"
            time.sleep(0.02)
        yield scene
    finally:
        for thread in scene.bots:
            thread.stop()


def knock_the_first_hand(page: Page, server: ServerProcess, invite: str) -> None:
    """Join, take the upcard and knock (the scripted deal: the page's first hand ends)."""
    take_invite(page, f"{server.http_url}/join/{invite}")
    expect(page.get_by_test_id("table")).to_be_visible()
    online(page)
    page.get_by_test_id("take-upcard").click()
    expect(page.get_by_test_id("table")).to_have_attribute("data-phase", "discard")
    page.get_by_test_id("knock").click()
    page.get_by_test_id(f"card-{LAYOFF_KNOCK}").click()
    page.get_by_test_id("confirm-knock").click()
    expect(page.get_by_test_id("hand-result")).to_be_visible()


def test_the_clock_waits_while_the_player_looks_at_the_result(
    server_factory: ServerFactory, redis_url: str, new_page: object
) -> None:
    """The host deals the next hand at once and plays its first turn; the page's turn comes
    while its result is open. Longer than its clock later, closing the result finds the turn
    still the page's, nothing played for it."""
    host_server = server_factory(env=FAST_CLIENT_ENV)
    page_server = server_factory(env=FAST_CLIENT_ENV)
    with clocked_host(host_server, deal_next=True, delay=0.05) as scene:
        script_first_deal(redis_url, scene.room, LAYOFF_DEAL)
        page = new_page()  # type: ignore[operator]
        knock_the_first_hand(page, page_server, scene.invite)
        # the host dealt on: the page's result offers "Continue", over the new hand
        expect(page.get_by_test_id("continue")).to_be_visible()
        table = page.get_by_test_id("table")
        expect(table).not_to_have_attribute("data-phase", "first_offer")  # the host played
        page.wait_for_timeout(TURN_SECONDS * 2 * 1000)  # the clock would have run out twice
        page.get_by_test_id("continue").click()
        expect(page.get_by_test_id("hand-result")).to_have_count(0)
        # nothing was played for the page: its turn, its own to play
        expect(page.locator("[data-testid=history] li.made-for")).to_have_count(0)
        expect(page.get_by_test_id("played-for-you")).to_have_count(0)
        expect(page.locator("[data-testid=my-hand] .card")).to_have_count(10)
        expect(
            page.get_by_test_id("take-upcard").or_(page.get_by_test_id("stock"))
        ).not_to_have_count(0)
        # once closed, the turn's clock runs as any turn's: it plays for the page
        expect(
            page.locator("[data-testid=history] li.made-for[data-by=clock]").first
        ).to_be_visible()


@pytest.mark.parametrize(("lang", "width", "height"), [("en", 1280, 800), ("ar", 390, 844)])
def test_the_other_player_is_told_the_turn_waits_for_the_result(
    server_factory: ServerFactory,
    redis_url: str,
    new_page: object,
    lang: str,
    width: int,
    height: int,
) -> None:
    """The page deals the next hand; the host, who plays first in it, still has its result
    open (it takes its time): the page reads that the turn waits for them, not a clock."""
    host_server = server_factory(env=FAST_CLIENT_ENV)
    page_server = server_factory(env=FAST_CLIENT_ENV)
    with clocked_host(host_server, deal_next=False, delay=0.05) as scene:
        script_first_deal(redis_url, scene.room, LAYOFF_DEAL)
        page = new_page(  # type: ignore[operator]
            locale="ar" if lang == "ar" else "en-US", width=width, height=height
        )
        knock_the_first_hand(page, page_server, scene.invite)
        scene.pace(TURN_SECONDS * 3)  # the host looks at its result longer than its clock
        page.get_by_test_id("next-hand").click()
        status = page.get_by_test_id("turn-status")
        words = (
            "ينظر في نتيجة اليد السابقة" if lang == "ar" else "is still looking at the last hand"
        )
        expect(status).to_contain_text(words)
        SCREENSHOTS.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(SCREENSHOTS / f"reading-{lang}-{width}.png"))
        # the host's first move is its own when it comes (its clock, shorter than its pace,
        # waited for it), and the clock plays the turns after (it took its time in each)
        own = page.locator("[data-testid=history] li.theirs:not(.made-for)")
        expect(own).to_have_count(1, timeout=20_000)
