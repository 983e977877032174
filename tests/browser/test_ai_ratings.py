"""The lobby shows each AI level's rating beside it, from the table the server sends
(``protocol/ai_ratings.py``, written by ``bench.league``), in the page's language; in Arabic
the number stays a left-to-right run inside the right-to-left button. Screenshots of the AI
panel on a desktop and a phone, in English and Arabic."""

from __future__ import annotations

from typing import Any

import pytest
from playwright.sync_api import expect

from protocol.ai_ratings import LEVEL_RATINGS
from tests.browser.conftest import NewPage
from tests.browser.helpers import shot
from tests.support.server_process import ServerProcess

SCREENS: dict[str, dict[str, Any]] = {
    "desktop": {},
    "phone": {"width": 390, "height": 844, "is_mobile": True},
}


@pytest.mark.parametrize(
    ("locale", "word", "name"),
    [
        ("en-US", "rating", "Hard"),
        ("ar-EG", "التصنيف", "صعب"),
        ("ka-GE", "რეიტინგი", "რთული"),
        ("ru-RU", "рейтинг", "Сложный"),
        ("tr-TR", "derece", "Zor"),
    ],
)
def test_the_lobby_shows_each_level_s_rating_from_the_server_s_table(
    gin_server: ServerProcess, new_page: NewPage, locale: str, word: str, name: str
) -> None:
    lang = locale[:2]
    screens = SCREENS if lang in ("en", "ar") else {"desktop": {}}
    for screen, size in screens.items():
        page = new_page(locale=locale, **size)
        page.goto(gin_server.http_url + "/")
        expect(page.get_by_test_id("connection")).to_have_attribute("data-status", "online")
        for level, rating in LEVEL_RATINGS.items():
            figure = page.get_by_test_id(f"ai-rating-{level}")
            expect(figure).to_have_text(f"{word} ≈ {rating}")
            number = figure.locator("bdi")
            expect(number).to_have_text(str(rating))
            expect(number).to_have_attribute("dir", "ltr")
            # inside the level's own button
            button = page.get_by_test_id(f"play-ai-{level}")
            expect(button).to_contain_text(str(rating))
        expect(page.get_by_test_id("play-ai-hard")).to_contain_text(name)
        expect(page.get_by_test_id("ai-ratings-help")).to_be_visible()
        if lang == "ar":
            expect(page.locator("html")).to_have_attribute("dir", "rtl")
        shot(page, f"lobby-ai-ratings-{screen}-{lang}")
