"""Issue #24, a match's end worth seeing: the final score, each player's gins, undercuts,
knocks and best hand, the whole match's replay and the rematch. A one-hand match (target 1) on
a scripted deal (``tests.browser.scripted``): the page knocks and wins it.

Screenshots: ``build/screenshots/match-end-*.png``.
"""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from protocol import messages as m
from tests.browser.conftest import NewPage
from tests.browser.helpers import SCREENSHOTS, take_invite
from tests.browser.scenes import bots_in_a_room, online
from tests.browser.scripted import LAYOFF_DEAL, LAYOFF_KNOCK, script_first_deal
from tests.support.fixtures import FAST_CLIENT_ENV, ServerFactory

WORDS: dict[str, dict[str, str | None]] = {
    "en": {"best": r"^Knock · \d+ \(hand 1\)$", "replay": "Replay the whole match"},
    "ar": {"best": r"^طَرْق · \d+ \(اليد 1\)$", "replay": None},
}


@pytest.mark.parametrize(("lang", "width", "height"), [("en", 1280, 800), ("ar", 390, 844)])
def test_the_match_end_tells_each_player_s_match_and_leads_to_its_replay(
    server_factory: ServerFactory,
    redis_url: str,
    new_page: NewPage,
    lang: str,
    width: int,
    height: int,
) -> None:
    host_server = server_factory(env=FAST_CLIENT_ENV)
    page_server = server_factory(env=FAST_CLIENT_ENV)
    with bots_in_a_room(host_server, guest=False, rules=m.Rules(target=1)) as scene:
        script_first_deal(redis_url, scene.room, LAYOFF_DEAL)
        page = new_page(locale="ar" if lang == "ar" else "en-US", width=width, height=height)
        take_invite(page, f"{page_server.http_url}/join/{scene.invite}")
        expect(page.get_by_test_id("table")).to_be_visible()
        online(page)
        if lang != "en":
            page.locator("#lang").select_option(lang)
        page.get_by_test_id("take-upcard").click()
        expect(page.get_by_test_id("table")).to_have_attribute("data-phase", "discard")
        page.get_by_test_id("knock").click()
        page.get_by_test_id(f"card-{LAYOFF_KNOCK}").click()
        page.get_by_test_id("confirm-knock").click()
        over = page.get_by_test_id("match-over")
        expect(over).to_be_visible()
        summary = over.get_by_test_id("match-summary")
        expect(summary).to_be_visible()
        me, host = "[data-seat='1']", "[data-seat='0']"
        counts = (("knocks", "1", "0"), ("gins", "0", "0"), ("undercuts", "0", "0"))
        for row, mine, theirs in counts:
            expect(summary.get_by_test_id(f"summary-{row}").locator(me)).to_have_text(mine)
            expect(summary.get_by_test_id(f"summary-{row}").locator(host)).to_have_text(theirs)
        best = summary.get_by_test_id("summary-best")
        expect(best.locator(me)).to_have_text(re.compile(str(WORDS[lang]["best"])))
        expect(best.locator(host)).to_have_text("—")
        # the player's own column first, the opponent's name heads the other
        expect(summary.locator("thead th").nth(1)).to_contain_text("Ada")
        expect(over.get_by_test_id("rematch")).to_be_visible()
        replay = over.get_by_test_id("match-replay")
        expect(replay).to_have_attribute("href", f"/replay/{scene.room}-1?match=1")
        if WORDS[lang]["replay"]:
            expect(replay).to_have_text(str(WORDS[lang]["replay"]))
        SCREENSHOTS.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(SCREENSHOTS / f"match-end-{lang}-{width}.png"))
        # the summary fits the screen: no cell past either edge
        right = page.evaluate("() => document.documentElement.clientWidth")
        boxes = summary.locator("th, td").evaluate_all(
            "els => els.map(e => [e.getBoundingClientRect().left, e.getBoundingClientRect().right])"
        )
        assert all(left >= 0 and end <= right + 0.5 for left, end in boxes), boxes
        replay.click()
        expect(page).to_have_url(re.compile(rf"/replay/{scene.room}-1\?match=1$"))
