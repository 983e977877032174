"""The ladder in real headless Chromium: the leaderboard page, a profile's rating with the chart
of its history, and "My hands" from the server on two browser contexts signed into one account.

Ada and Bob claim their accounts through the HTTP API and play two rated matches and a casual
one (Python clients); three more account holders have settled ratings in the store
(``tests.support.rated.settle``: the store's own rating script, as many rated matches would
leave them) so that the
leaderboard has players on it. In English and Arabic, on a desktop and a phone.
Screenshots: ``build/screenshots/leaderboard-{en,ar}-{desktop,phone}.png``,
``profile-rating-{en,ar}-{desktop,phone}.png``, ``my-hands-second-device.png``.
"""

from __future__ import annotations

import asyncio
import re
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

from playwright.sync_api import Page, expect

from client.session import Session
from server.store import Store, StoreConfig
from tests.browser.conftest import NewPage
from tests.browser.helpers import shot
from tests.browser.scenes import online
from tests.support.accounts import PASSWORD, make_account_holder, sign_in, token_of
from tests.support.fixtures import FAST_CLIENT_ENV, ServerFactory
from tests.support.players import close_all, play_match
from tests.support.rated import settle
from tests.support.server_process import ServerProcess

ADA, BOB = "Ada_Ladder", "Bob_Ladder"
#: The settled players: handle, rating (RD 60: not provisional).
SETTLED = (("Zoë_Top", 1840.0), ("Mamuka", 1710.0), ("Ömer", 1620.0))
DEVICES = {"desktop": {"width": 1200, "height": 860}, "phone": {"width": 390, "height": 844}}


@dataclass
class Ladder:
    ada: str  # Ada's token
    rooms: list[str]  # the rated rooms, then the casual one
    settled: dict[str, str]  # handle -> token


async def _rated_or_casual(a: Session, b: Session, rated: bool, seed: int) -> str:
    options = {"rated": True} if rated else {}
    created = await a.request("create_room", mode="private", rules={"target": 10}, **options)
    room = created.result["room"]
    await b.request("join_room", invite=created.result["invite"], **options)
    await a.wait_for(room, lambda view: view["game"] is not None)
    await play_match([a, b], room, seed=seed)
    if rated:
        await a.wait_for(room, lambda v: all("after" in seat for seat in v["ratings"]), timeout=20)
    return str(room)


def _played(server: ServerProcess) -> Ladder:
    async def run() -> Ladder:
        a = await Session.connect(server.ws_url, name="Ada")
        b = await Session.connect(server.ws_url, name="Bob")
        others = [await Session.connect(server.ws_url, name=h[:5]) for h, _ in SETTLED]
        store = await Store.connect(server.redis_url, StoreConfig())
        try:
            await make_account_holder(a, ADA)
            await make_account_holder(b, BOB)
            rooms = [await _rated_or_casual(a, b, True, seed) for seed in (22, 5)]
            rooms.append(await _rated_or_casual(a, b, False, 3))
            settled = {}
            for session, (handle, rating) in zip(others, SETTLED, strict=True):
                settled[handle] = await make_account_holder(session, handle)
                await settle(store, session, rating)
            return Ladder(token_of(a), rooms, settled)
        finally:
            await store.close()
            await close_all(a, b, *others)

    with ThreadPoolExecutor(1) as pool:  # its own event loop, away from Playwright's
        return pool.submit(asyncio.run, run()).result(timeout=180)


def _as_player(page: Page, site: str, token: str | None, path: str = "/") -> None:
    page.goto(site + "/")
    online(page)
    if token is not None:
        page.evaluate("token => localStorage.setItem('gin.token', token)", token)
    page.goto(site + path)
    online(page)


def _point_xs(page: Page) -> list[float]:
    return [
        float(x)
        for x in page.get_by_test_id("rating-chart")
        .locator("circle")
        .evaluate_all("circles => circles.map(c => c.getAttribute('cx'))")
    ]


def test_the_leaderboard_and_the_profiles_rating_in_english_and_arabic(
    new_page: NewPage, server_factory: ServerFactory
) -> None:
    server = server_factory(env=FAST_CLIENT_ENV)
    site = server.http_url
    ladder = _played(server)
    top = "Zoë_Top"
    for lang, locale in (("en", "en-US"), ("ar", "ar-EG")):
        for device, size in DEVICES.items():
            phone = device == "phone"
            page = new_page(locale=locale, has_touch=phone, is_mobile=phone, **size)
            rtl = lang == "ar"

            # the leaderboard, as the top player sees it: their row marked, their rank said
            _as_player(page, site, ladder.settled[top])
            page.get_by_test_id("lobby-leaderboard").click()
            expect(page).to_have_url(f"{site}/leaderboard")
            expect(page.locator("html")).to_have_attribute("dir", "rtl" if rtl else "ltr")
            rows = page.get_by_test_id("leader")
            expect(rows).to_have_count(len(SETTLED))  # Ada and Bob are provisional: not on it
            for index, (handle, rating) in enumerate(SETTLED):
                expect(rows.nth(index)).to_contain_text(handle)
                expect(rows.nth(index)).to_contain_text(str(round(rating)))
            expect(page.get_by_test_id("leaderboard-you")).to_have_attribute("data-rank", "1")
            expect(page.locator("tr.you")).to_contain_text(top)
            you = "أنت في المركز 1 من 3" if rtl else "You are number 1 of 3, rated 1840"
            expect(page.get_by_test_id("leaderboard-you")).to_contain_text(you)
            shot(page, f"leaderboard-{lang}-{device}")
            rows.nth(2).get_by_test_id("leader-link").click()
            expect(page).to_have_url(re.compile("/@/" + re.escape("%C3%96mer") + "$"))
            expect(page.get_by_test_id("profile-handle")).to_have_text("Ömer")
            expect(page.get_by_test_id("rating-shown")).to_have_text("1620")

            # Ada's own profile: provisional, two rated matches on the chart, one casual
            _as_player(page, site, ladder.ada, "/@/" + ADA)
            shown = page.get_by_test_id("rating-shown")
            expect(shown).to_have_text(re.compile(r"^\d{3,4}\?$"))
            chart = page.get_by_test_id("rating-chart")
            expect(chart).to_have_attribute("data-points", "2")
            expect(chart).to_have_attribute(
                "data-time", "right-to-left" if rtl else "left-to-right"
            )
            first, last = _point_xs(page)
            assert (first > last) if rtl else (first < last)  # the oldest match starts the line
            frame = chart.bounding_box()
            assert frame is not None
            for label in chart.locator("text").all():  # every label whole inside the chart
                box = label.bounding_box()
                assert box is not None and frame["x"] <= box["x"]
                assert box["x"] + box["width"] <= frame["x"] + frame["width"]
            newest = int(chart.locator("circle").nth(1).get_attribute("data-rating") or "0")
            assert shown.inner_text() == f"{newest}?"
            record = page.get_by_test_id("profile-record")
            expect(record.locator("[data-stat='stats.matches']")).to_have_text("3")
            expect(record.locator("[data-rated='stats.matches']")).to_have_text("2")
            expect(record.locator("[data-casual='stats.matches']")).to_have_text("1")
            changes = page.get_by_test_id("match-rating-change")
            expect(changes).to_have_count(2)  # the rated ones; the casual match has none
            expect(changes.last).to_contain_text(re.compile(r"^1500 → \d{3,4}, [+−]\d+$"))
            expect(page.get_by_test_id("leaderboard-you")).to_have_count(0)
            shot(page, f"profile-rating-{lang}-{device}")
            page.get_by_test_id("leaderboard-link").click()
            provisional = "ما زال مؤقتًا" if rtl else "is still provisional"
            expect(page.get_by_test_id("leaderboard-you")).to_contain_text(provisional)
            expect(page.get_by_test_id("leaderboard-you")).to_have_attribute("data-rank", "")


def test_my_hands_come_from_the_server_on_a_second_device(
    new_page: NewPage, server_factory: ServerFactory
) -> None:
    server = server_factory(env=FAST_CLIENT_ENV)
    site = server.http_url
    ladder = _played(server)

    async def second_sign_in() -> str:
        status, reply = await sign_in(site, ADA, PASSWORD)
        assert status == 200, reply
        return str(reply["token"])

    with ThreadPoolExecutor(1) as pool:
        second = pool.submit(asyncio.run, second_sign_in()).result(timeout=60)
    assert second != ladder.ada
    for token, name in ((ladder.ada, "first"), (second, "second")):
        page = new_page()  # a context of its own: nothing of the matches in its storage
        _as_player(page, site, token)
        mine = page.get_by_test_id("my-hands")
        for room in ladder.rooms:
            expect(mine.locator(f"li[data-room='{room}']")).to_contain_text("Ada vs Bob")
        expect(mine.locator(":scope > li")).to_have_count(len(ladder.rooms))
        # the newest match first
        expect(mine.locator(":scope > li").first).to_have_attribute("data-room", ladder.rooms[-1])
        if name == "second":
            shot(page, "my-hands-second-device")
            page.get_by_test_id("my-hands").locator("a.button").first.click()
            expect(page).to_have_url(re.compile(f"/replay/{ladder.rooms[-1]}-1\\?match=1$"))
