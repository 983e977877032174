"""Issue #24, a first match that teaches: a newcomer starts a guided first hand (the server's
fixed, friendly deal against the easy AI) from the lobby or from "How to play"; a short prompt
says what a meld is, what deadwood counts, when a knock is possible, and at the result what
gin and an undercut are; the guide can be skipped. Real Chromium, server, Redis and AI worker.

Screenshots: ``build/screenshots/tutorial-*.png``.
"""

from __future__ import annotations

import re

from playwright.sync_api import Page, expect

from tests.browser.conftest import NewPage
from tests.browser.helpers import SCREENSHOTS
from tests.browser.scenes import online
from tests.support.server_process import ServerProcess

#: The guided hand's cards (server/tutorial.py): the person's, and the upcard that joins them.
PERSON = {"2C", "4C", "5C", "6C", "6S", "7C", "7D", "7S", "AC", "QS"}


def shot(page: Page, name: str) -> None:
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SCREENSHOTS / f"tutorial-{name}.png"))


def hand(page: Page) -> set[str]:
    cards: list[str] = page.eval_on_selector_all(
        "[data-testid=my-hand] .card[data-card]", "els => els.map(e => e.dataset.card)"
    )
    return set(cards)


def test_a_newcomer_is_guided_through_a_first_hand_from_the_lobby(
    gin_server: ServerProcess, ai_seats: None, new_page: NewPage
) -> None:
    page = new_page(width=1280, height=800)
    page.goto(gin_server.http_url + "/")
    online(page)
    page.get_by_test_id("start-tutorial").click()
    expect(page.get_by_test_id("table")).to_be_visible()
    expect(page).to_have_url(re.compile(r"/room/[A-Za-z0-9_-]+$"))
    coach = page.get_by_test_id("coach")
    expect(coach).to_have_attribute("data-topic", "meld")
    expect(coach).to_contain_text("A meld is three or four cards of one rank")
    assert hand(page) == PERSON
    expect(page.get_by_test_id("discard")).to_have_attribute("data-top", "3C")
    shot(page, "meld-en")
    page.get_by_test_id("take-upcard").click()
    expect(coach).to_have_attribute("data-topic", "knock")
    expect(coach).to_contain_text("You may knock")
    shot(page, "knock-en")
    page.get_by_test_id("knock").click()
    page.get_by_test_id("card-QS").click()
    page.get_by_test_id("confirm-knock").click()
    result = page.get_by_test_id("hand-result")
    expect(result).to_be_visible()
    expect(result).to_have_attribute("data-kind", "knock")
    end = page.get_by_test_id("overlay").get_by_test_id("coach")
    expect(end).to_have_attribute("data-topic", "ginUndercut")
    expect(end).to_contain_text("Gin is a hand with no deadwood at all")
    expect(end).to_contain_text("undercut")
    shot(page, "result-en")
    # the next hand is an ordinary one: no guide
    page.get_by_test_id("next-hand").click()
    expect(page.get_by_test_id("table")).to_have_attribute("data-hand", "2")
    expect(page.get_by_test_id("coach")).to_have_count(0)


def test_the_guide_starts_again_from_how_to_play_and_can_be_skipped(
    gin_server: ServerProcess, ai_seats: None, new_page: NewPage
) -> None:
    page = new_page(locale="ar", width=390, height=844)
    page.goto(gin_server.http_url + "/rules")
    online(page)
    page.locator("#lang").select_option("ar")
    page.get_by_test_id("rules-tutorial").click()
    coach = page.get_by_test_id("coach")
    expect(coach).to_have_attribute("data-topic", "meld")
    expect(coach).to_contain_text("التشكيلة ثلاث أو أربع أوراق")
    shot(page, "meld-ar-phone")
    # the coach fits the phone's width
    box = coach.bounding_box()
    assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= 390 + 0.5, box
    page.get_by_test_id("coach-skip").click()
    expect(page.get_by_test_id("coach")).to_have_count(0)
    page.get_by_test_id("take-upcard").click()
    expect(page.get_by_test_id("table")).to_have_attribute("data-phase", "discard")
    expect(page.get_by_test_id("coach")).to_have_count(0)  # skipped for the rest of the hand
