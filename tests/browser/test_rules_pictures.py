"""Issue #24: "How to play" gains pictures of real cards (the page's own card faces) for melds,
deadwood, a knock, gin and an undercut, each counted in words; English on a desktop, Arabic on
a phone (the cards read left to right, within the screen).

Screenshots: ``build/screenshots/rules-pictures-*.png``.
"""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from tests.browser.conftest import NewPage
from tests.browser.helpers import SCREENSHOTS
from tests.browser.scenes import online
from tests.support.server_process import ServerProcess

#: Each picture's cards, as the page draws them (melds sorted, deadwood as given).
PICTURES = {
    "melds": ["7C", "7D", "7S", "4H", "5H", "6H", "7H"],
    "deadwood": ["9C", "9D", "9H", "2S", "3S", "4S", "KS", "3D", "2C", "AH"],
    "knock": ["AC", "2C", "3C", "4C", "9D", "9H", "9S", "2H", "5S", "AS", "KD"],
    "gin": ["5S", "6S", "7S", "8S", "JC", "JD", "JH", "2D", "3D", "4D"],
    "undercut": [
        *("TC", "JC", "QC", "4D", "4H", "4S", "7C", "7H", "7S", "8H"),  # the knocker's
        *("6C", "6D", "6H", "6S", "8S", "9S", "TS", "AD", "2D", "3C"),  # the defender's
    ],
}
WORDS = {"en": ("Gin", "16 points"), "ar": ("جين", "نقطة")}


@pytest.mark.parametrize(("lang", "width", "height"), [("en", 1280, 800), ("ar", 390, 844)])
def test_how_to_play_shows_real_cards_for_each_idea(
    gin_server: ServerProcess, new_page: NewPage, lang: str, width: int, height: int
) -> None:
    page = new_page(locale="ar" if lang == "ar" else "en-US", width=width, height=height)
    page.goto(gin_server.http_url + "/rules")
    online(page)
    if lang != "en":
        page.locator("#lang").select_option(lang)
    pictures = page.get_by_test_id("rules-pictures")
    expect(pictures).to_be_visible()
    for key, cards in PICTURES.items():
        figure = pictures.get_by_test_id(f"picture-{key}")
        drawn = figure.locator(".card[data-card]").evaluate_all(
            "els => els.map(e => e.dataset.card)"
        )
        assert drawn == cards, (key, drawn)
        # the page's own faces: the index and the middle of a card, not a picture of one
        expect(figure.locator(".card .face").first).to_be_visible()
        expect(figure.locator("figcaption")).not_to_be_empty()
    gin, points = WORDS[lang]
    expect(pictures.get_by_test_id("picture-gin").locator("h3")).to_have_text(gin)
    expect(pictures.get_by_test_id("picture-deadwood")).to_contain_text(points)
    # every card within the screen, read left to right in Arabic too
    boxes = pictures.locator(".card[data-card]").evaluate_all(
        "els => els.map(e => [e.getBoundingClientRect().left, e.getBoundingClientRect().right])"
    )
    right = page.evaluate("() => document.documentElement.clientWidth")
    assert all(left >= 0 and end <= right + 0.5 for left, end in boxes), boxes
    first, second = pictures.get_by_test_id("picture-melds").locator(".card").all()[:2]
    assert first.bounding_box()["x"] < second.bounding_box()["x"]  # type: ignore[index]
    pictures.scroll_into_view_if_needed()
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    pictures.screenshot(path=str(SCREENSHOTS / f"rules-pictures-{lang}-{width}.png"))
