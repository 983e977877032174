"""Issue #17, table-layout: the table that uses the screen, the hand result and the match end
as overlays over the table, the movements (and none under reduced motion), and the screenshot
suite: the table on desktop (1280x800) and phone (390x844), in English and Arabic, mid-hand, at
a knock's reveal and at the match end, under ``build/screenshots/table-*.png``.

The opponents are scripted websocket players (``tests.browser.scenes``); the page plays by
clicking, as a person would.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import Any

import pytest
from playwright.sync_api import Browser, Page, expect
from playwright.sync_api import Error as PlaywrightError

from protocol import messages as m
from tests.browser.conftest import NewPage
from tests.browser.helpers import (
    SCREENSHOTS,
    ConsoleWatch,
    play_hand,
    table_state,
    take_turn,
    wait_for_change,
)
from tests.browser.scenes import bots_in_a_room, online
from tests.support.server_process import ServerProcess

DESKTOP = {"width": 1280, "height": 800}
PHONE = {"width": 390, "height": 844}
LANGS = ("en", "ar")

BOX = "el => { const r = el.getBoundingClientRect(); return [r.x, r.y, r.width, r.height]; }"


def join(page: Page, server: ServerProcess, invite: str) -> None:
    page.goto(f"{server.http_url}/join/{invite}")
    expect(page.get_by_test_id("table")).to_be_visible()
    online(page)


def box(page: Page, selector: str) -> list[float]:
    found: list[float] = page.eval_on_selector(selector, BOX)
    return found


def my_draw_or_discard(page: Page, phase: str, limit: int = 400) -> None:
    """Play on (passing the upcard) until this page has a draw (``phase="draw"``) or a
    discard to make; the opponents play theirs."""
    for _ in range(limit):
        state = table_state(page)
        if state is not None and state.my_turn and state.phase == phase:
            return
        if state is not None and state.my_turn and state.phase != phase and not state.over:
            with contextlib.suppress(PlaywrightError):  # re-rendered under the click: again
                if take_turn(page):
                    wait_for_change(page, state)
            continue
        page.wait_for_timeout(30)
    raise AssertionError(f"the page never had a {phase} to make")


def shots(page: Page, stage: str) -> None:
    """The page as a player sees it (the viewport, no scrolling) on desktop and phone, in
    English and Arabic: ``table-{desktop|phone}-{en|ar}-{stage}.png``."""
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    for lang in LANGS:
        page.locator("#lang").select_option(lang)
        expect(page.locator("html")).to_have_attribute("dir", "rtl" if lang == "ar" else "ltr")
        for device, size in (("desktop", DESKTOP), ("phone", PHONE)):
            page.set_viewport_size(size)
            page.wait_for_timeout(150)
            page.screenshot(path=str(SCREENSHOTS / f"table-{device}-{lang}-{stage}.png"))
    page.locator("#lang").select_option("en")
    page.set_viewport_size(DESKTOP)


def test_screenshots_of_the_table_mid_hand_at_the_reveal_and_at_the_match_end(
    gin_server: ServerProcess, new_page: NewPage
) -> None:
    page = new_page(width=DESKTOP["width"], height=DESKTOP["height"])
    with bots_in_a_room(gin_server, guest=False, rules=m.Rules(target=500)) as scene:
        join(page, gin_server, scene.invite)
        # mid-hand: a few moves made, the discard pile grown, this page to discard
        for _ in range(3):
            my_draw_or_discard(page, "discard")
            before = table_state(page)
            take_turn(page)
            wait_for_change(page, before)
        my_draw_or_discard(page, "discard")
        page.wait_for_timeout(200)
        shots(page, "midhand")
        # a knock's reveal: play to the end of a hand that was knocked (or won by gin)
        while True:
            play_hand([page])
            result = page.get_by_test_id("hand-result")
            if result.get_attribute("data-kind") != "dead":
                break
            page.get_by_test_id("next-hand").click()
            expect(result).to_have_count(0)
        page.wait_for_timeout(200)
        shots(page, "knock")

    # the match end: a match to 1 point ends with its first hand won
    with bots_in_a_room(gin_server, guest=False, rules=m.Rules(target=1)) as scene:
        join(page, gin_server, scene.invite)
        over = page.get_by_test_id("match-over")
        while not over.count():
            play_hand([page])
            if not over.count():
                page.get_by_test_id("next-hand").click()
        expect(over).to_be_visible()
        page.wait_for_timeout(200)
        shots(page, "matchend")
