"""Rated play in real headless Chromium, in English and Arabic (issue #22): a rated private
room made from the lobby's room options (offered to account holders; a guest is told why),
its invite asking the joiner to agree before they sit, the ratings beside the names at the
table, the rating change at the match's end, rated quick match from the lobby's button, and
the cooldown after walking out of rated matches.

Account holders are made through the HTTP API (``tests.support.accounts``) and their token
and handle put in the page's storage, as signing in leaves them. The match's end is a
one-hand match (target 1) on a scripted deal (``tests.browser.scripted``): the page knocks and
wins it. Screenshots: ``build/screenshots/rated-*-{en,ar}.png``.
"""

from __future__ import annotations

import asyncio
import re
import time
from collections.abc import Callable, Coroutine
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest
from playwright.sync_api import Page, expect

from client.session import Session
from protocol import messages as m
from server import playban
from server.store import Store, StoreConfig
from tests.browser.bot import Bot, BotThread
from tests.browser.conftest import NewPage
from tests.browser.helpers import shot
from tests.browser.scenes import online
from tests.browser.scripted import LAYOFF_DEAL, LAYOFF_KNOCK, script_first_deal
from tests.support.accounts import claim, make_account_holder, pid
from tests.support.fixtures import FAST_CLIENT_ENV, ServerFactory
from tests.support.server_process import ServerProcess

LOCALES = {"en": "en-US", "ar": "ar-EG"}
WORDS: dict[str, dict[str, str]] = {
    "en": {
        "rated": "Rated: the result changes both players' ratings",
        "guest": "Rated rooms are for account holders: keep your player as an account (above)"
        " to make one.",
        "invite": "A rated match: your friend agrees to it before sitting down (account"
        " holders only).",
        "ask": "This match to 100 points is rated. Its result changes both players' ratings;"
        " leaving before the end counts as a loss, and leaving rated matches often closes"
        " rated play for a while. Sit down?",
        "yes": "Sit down to a rated match",
        "account": "Rated matches are for account holders: keep your player as an account first.",
        "change": r"^Your rating: 1500 → (\d+), \+(\d+)$",
        "cooldown": "You left rated matches too often: rated play opens again in 10 minutes."
        " Casual play is open.",
        "quick": "Rated match",
    },
    "ar": {
        "rated": "مصنّفة: تغيّر النتيجة تصنيف اللاعبَين",
        "guest": "الغرف المصنّفة لأصحاب الحسابات: احفظ لاعبك كحساب (في الأعلى) لتنشئ واحدة.",
        "invite": "مباراة مصنّفة: يوافق صديقك عليها قبل أن يجلس (لأصحاب الحسابات فقط).",
        "ask": "هذه المباراة إلى 100 نقطة مصنّفة. نتيجتها تغيّر تصنيف اللاعبَين؛ والمغادرة قبل"
        " نهايتها تُحسب خسارة، ومغادرة المباريات المصنّفة كثيرًا تغلق اللعب المصنّف مدةً. أتجلس؟",
        "yes": "اجلس لمباراة مصنّفة",
        "account": "المباريات المصنّفة لأصحاب الحسابات: احفظ لاعبك كحساب أولًا.",
        "change": r"^تصنيفك: 1500 → (\d+), \+(\d+)$",
        "cooldown": "غادرت مباريات مصنّفة كثيرًا: يعود اللعب المصنّف بعد 10 دقائق. اللعب الودي متاح.",
        "quick": "",  # not checked: the English label is checked; Arabic's is its translation
    },
}


#: The left edge of each of ``needles`` in an element's text, as drawn.
LEFTS_OF = """(el, needles) => needles.map((needle) => {
  const text = el.firstChild; const at = text.textContent.indexOf(needle);
  const range = document.createRange();
  range.setStart(text, at);
  range.setEnd(text, at + needle.length);
  return range.getBoundingClientRect().left;
})"""


def _off_loop(make: Callable[[], Coroutine[Any, Any, Any]]) -> Any:
    """Run a coroutine on an event loop of its own, away from Playwright's."""
    with ThreadPoolExecutor(1) as pool:
        return pool.submit(asyncio.run, make()).result(timeout=60)


def _holders(server: ServerProcess, *handles: str) -> list[tuple[str, str, str]]:
    """New account holders: (handle, token, player id) each, claimed through the HTTP API."""

    async def run() -> list[tuple[str, str, str]]:
        made = []
        for handle in handles:
            session = await Session.connect(server.ws_url, name=handle.split("_")[0])
            try:
                made.append((handle, await make_account_holder(session, handle), pid(session)))
            finally:
                await session.close()
        return made

    return list(_off_loop(run))


def _open_as(page: Page, site: str, holder: tuple[str, str, str] | None, path: str = "/") -> None:
    """The page as the account holder (their token and handle kept, as signing in leaves
    them), or as a new guest."""
    page.goto(site + "/")
    online(page)
    if holder is not None:
        handle, token, _ = holder
        page.evaluate(
            "([token, handle]) => { localStorage.setItem('gin.token', token);"
            " localStorage.setItem('gin.handle', handle); }",
            [token, handle],
        )
    page.goto(site + path)
    online(page)


def _room_options(page: Page) -> None:
    options = page.get_by_test_id("room-options")
    if options.get_attribute("open") is None:
        options.locator("summary").click()


# The servers before the pages: the pages close first at the end, and no page of a stopped
# server tries to reconnect to it (a console error).
@pytest.mark.parametrize("lang", ["en", "ar"])
def test_a_rated_private_room_from_the_lobby_asks_the_joiner_to_agree(
    server_factory: ServerFactory, new_page: NewPage, lang: str
) -> None:
    server = server_factory(env=FAST_CLIENT_ENV)
    site = server.http_url
    words = WORDS[lang]
    ada, bob = _holders(server, f"Ada_{lang}", f"Bob_{lang}")

    # a guest sees the choice turned off, and why; the options stay unfolded while the page
    # draws itself again (here: the language changed to the test's, from another)
    guest = new_page(locale=LOCALES[lang])
    _open_as(guest, site, None)
    _room_options(guest)
    guest.locator("#lang").select_option("ar" if lang == "en" else "en")
    guest.locator("#lang").select_option(lang)
    expect(guest.locator("html")).to_have_attribute("dir", "rtl" if lang == "ar" else "ltr")
    expect(guest.get_by_test_id("room-options")).to_have_attribute("open", "")
    guest_box = guest.get_by_test_id("option-rated")
    expect(guest_box).to_be_disabled()
    expect(guest_box).not_to_be_checked()
    expect(guest.get_by_test_id("rated-guest-hint")).to_have_text(words["guest"])
    expect(guest_box).to_have_attribute("aria-describedby", "rated-guest")
    shot(guest, f"rated-room-guest-{lang}")
    expect(guest.get_by_test_id("room-options")).to_have_attribute("open", "")

    # an account holder makes a rated private room from the lobby's options
    host = new_page(locale=LOCALES[lang])
    _open_as(host, site, ada)
    _room_options(host)
    box = host.get_by_test_id("option-rated")
    expect(box).to_be_enabled()
    expect(host.get_by_test_id("rated-guest-hint")).to_have_count(0)
    expect(host.get_by_test_id("room-options")).to_contain_text(words["rated"])
    box.check()
    host.get_by_test_id("create-private").click()
    expect(host.get_by_test_id("invite")).to_be_visible()
    expect(host.get_by_test_id("rated-room")).to_have_text(words["invite"])
    link = host.get_by_test_id("invite-link").input_value()
    code = link.rsplit("/", 1)[1]
    shot(host, f"rated-room-invite-{lang}")

    # a guest who follows the invite is greeted, told why they may not sit, and cannot
    guest.goto(f"{site}/join/{code}")
    expect(guest.get_by_test_id("invite-kind")).to_have_attribute("data-rated", "true")
    expect(guest.get_by_test_id("invite-rated-hint")).to_be_visible()
    expect(guest.get_by_test_id("invite-accept")).to_be_disabled()
    expect(guest.get_by_test_id("invite-signin")).to_be_visible()

    # the account holder who follows it reads the terms beside the button that agrees to
    # them; "not now" seats nobody
    joiner = new_page(locale=LOCALES[lang])
    _open_as(joiner, site, bob, f"/join/{code}")
    expect(joiner.get_by_test_id("invite-rated-terms")).to_have_text(words["ask"])
    expect(joiner.get_by_test_id("invite-accept")).to_have_text(words["yes"])
    shot(joiner, f"rated-join-ask-{lang}")
    joiner.get_by_test_id("invite-decline").click()
    expect(joiner).to_have_url(f"{site}/")
    expect(host.get_by_test_id("invite")).to_be_visible()  # still waiting: nobody sat
    joiner.goto(f"{site}/join/{code}")
    joiner.get_by_test_id("invite-accept").click()

    # both at the table, each seat's rating beside its name (provisional: "1500?")
    for page in (host, joiner):
        expect(page.get_by_test_id("table")).to_be_visible()
        for seat in (0, 1):
            expect(page.get_by_test_id(f"rating-{seat}")).to_have_text(re.compile(r"1500\?"))
    shot(joiner, f"rated-table-{lang}")


@pytest.mark.parametrize("lang", ["en", "ar"])
def test_the_rated_match_end_shows_the_rating_change(
    server_factory: ServerFactory, redis_url: str, new_page: NewPage, lang: str
) -> None:
    host_server = server_factory(env=FAST_CLIENT_ENV)
    page_server = server_factory(env=FAST_CLIENT_ENV)
    [player] = _holders(page_server, f"Page_{lang}")
    created: dict[str, str] = {}

    async def create(bot: Bot) -> None:
        assert bot.token is not None
        await claim(host_server.http_url, bot.token, f"Host_{lang}", "correct horse battery")
        ack = await bot.request(
            m.CreateRoom(id=bot._id(), mode="private", rated=True, rules=m.Rules(target=1))
        )
        assert isinstance(ack, m.Ack), ack
        created["room"], created["invite"] = str(ack.result["room"]), str(ack.result["invite"])

    host = BotThread(Bot(host_server.ws_url, name="Ada", seed=3), create).start()
    try:
        script_first_deal(redis_url, created["room"], LAYOFF_DEAL)
        page = new_page(locale=LOCALES[lang], width=390 if lang == "ar" else 1280, height=844)
        _open_as(page, page_server.http_url, player, f"/join/{created['invite']}")
        page.get_by_test_id("invite-accept").click()
        expect(page.get_by_test_id("table")).to_be_visible()
        for seat in (0, 1):
            expect(page.get_by_test_id(f"rating-{seat}")).to_have_text(re.compile(r"1500\?"))
        page.get_by_test_id("take-upcard").click()
        expect(page.get_by_test_id("table")).to_have_attribute("data-phase", "discard")
        page.get_by_test_id("knock").click()
        page.get_by_test_id(f"card-{LAYOFF_KNOCK}").click()
        page.get_by_test_id("confirm-knock").click()
        over = page.get_by_test_id("match-over")
        expect(over).to_be_visible()
        change = over.get_by_test_id("rating-change")
        expect(change).to_have_text(re.compile(WORDS[lang]["change"]), timeout=20_000)
        found = re.match(WORDS[lang]["change"], change.inner_text())
        assert found is not None
        after, delta = int(found.group(1)), int(found.group(2))
        assert after > 1500 and after - 1500 == delta  # the winner's rating went up
        # "1500 → 1662, +162" reads left to right on a right-to-left page too
        expect(change.locator("bdi")).to_have_attribute("dir", "ltr")
        lefts = change.locator("bdi").evaluate(LEFTS_OF, ["1500", f"{after},", f"+{delta}"])
        assert lefts == sorted(lefts) and len(set(lefts)) == 3, lefts
        shot(page, f"rated-match-end-{lang}")
    finally:
        host.stop()


@pytest.mark.parametrize("lang", ["en", "ar"])
def test_rated_quick_match_from_the_lobby_and_the_cooldown(
    server_factory: ServerFactory, new_page: NewPage, lang: str
) -> None:
    server = server_factory(env=FAST_CLIENT_ENV)
    site = server.http_url
    words = WORDS[lang]
    walker, seeker = _holders(server, f"Cy_{lang}", f"Dee_{lang}")

    # Cy walked out of two rated matches today: the rated queue is closed to them for 10 min
    async def walk_out() -> None:
        store = await Store.connect(server.redis_url, StoreConfig())
        try:
            for room in ("walked-out-1", "walked-out-2"):
                await store.abandon(
                    walker[2],
                    room,
                    int(time.time() * 1000),
                    day_ms=playban.DAY_SECONDS * 1000,
                    week_ms=playban.WEEK_SECONDS * 1000,
                    first_ms=playban.FIRST_SECONDS * 1000,
                    factor=playban.FACTOR,
                    longest_ms=playban.LONGEST_SECONDS * 1000,
                )
        finally:
            await store.close()

    _off_loop(walk_out)

    # a guest who asks for a rated match is told why not, and stays in the lobby
    guest = new_page(locale=LOCALES[lang])
    _open_as(guest, site, None)
    guest.get_by_test_id("rated-match").click()
    expect(guest.get_by_role("alert")).to_have_text(words["account"])
    expect(guest.get_by_test_id("rated-match")).to_be_visible()

    page = new_page(locale=LOCALES[lang])
    _open_as(page, site, walker)
    page.get_by_test_id("rated-match").click()
    expect(page.get_by_role("alert")).to_have_text(words["cooldown"])
    expect(page.get_by_test_id("rated-match")).to_be_visible()  # back in the lobby, not queued
    shot(page, f"rated-cooldown-{lang}")

    # Dee asks for a rated match from the lobby; a rated opponent (a scripted account holder)
    # asks too; they are paired and seated at one table, each rating beside its name
    seeking = new_page(locale=LOCALES[lang])
    _open_as(seeking, site, seeker)
    button = seeking.get_by_test_id("rated-match")
    if words["quick"]:
        expect(button).to_have_text(words["quick"])
    button.click()
    expect(seeking.locator(".panel.invite .spinner")).to_be_visible()  # waiting: a room of its own

    async def ask(bot: Bot) -> None:
        assert bot.token is not None
        await claim(site, bot.token, f"Eve_{lang}", "correct horse battery")
        ack = await bot.request(m.QuickMatch(id=bot._id(), rated=True))
        assert isinstance(ack, m.Ack) and ack.result["rated"] is True, ack

    other = BotThread(Bot(server.ws_url, name="Eve", seed=5), ask).start()
    try:
        expect(seeking.get_by_test_id("table")).to_be_visible(timeout=20_000)
        names = seeking.get_by_test_id("table")
        expect(names).to_contain_text("Eve")
        for seat in (0, 1):
            expect(seeking.get_by_test_id(f"rating-{seat}")).to_have_text(re.compile(r"1500\?"))
        shot(seeking, f"rated-quick-{lang}")
    finally:
        other.stop()
