"""Every AI worker is full (issue 27 item 2): a person who opens an AI room is told so on the
table, with their place in the queue, in their language, and the place moves as the queue
moves. Real Chromium, a real server and Redis; the worker is a scripted one (``bot.Bot`` with
the worker key) of a single seat, kept busy by a scripted person's long match.

Screenshots: ``build/screenshots/ai-queue-en.png`` (the English table, 1st in the queue) and
``ai-queue-ar.png`` (the Arabic one, right to left, 2nd, then 1st)."""

from __future__ import annotations

import re
import time
from typing import Any

from playwright.sync_api import expect

from protocol import messages as m
from tests.browser.bot import Bot, BotThread
from tests.browser.conftest import NewPage
from tests.browser.helpers import shot
from tests.browser.scenes import online
from tests.support.server_process import WORKER_KEY, ServerProcess


def arabic_room(page: Any) -> str:
    """The room the page shows (its address is /room/ID)."""
    match = re.search(r"/room/([A-Za-z0-9_-]+)", page.url)
    assert match, page.url
    return match.group(1)


def test_a_full_worker_and_the_place_in_the_queue_in_english_and_arabic(
    gin_server: ServerProcess, new_page: NewPage
) -> None:
    scene: dict[str, Any] = {}

    async def busy_match(bot: Bot) -> None:
        request = m.CreateRoom(id=bot._id(), mode="ai", level="easy", rules=m.Rules(target=500))
        ack = await bot.request(request)
        assert isinstance(ack, m.Ack), ack
        scene["room"] = str(ack.result["room"])

    worker = BotThread(
        Bot(
            gin_server.ws_url,
            name="worker",
            delay=0.5,
            worker_key=WORKER_KEY,
            capacity=1,
            leave_finished=True,
        )
    ).start()
    person = BotThread(Bot(gin_server.ws_url, name="Ada", delay=0.5), busy_match).start()
    try:
        deadline = time.monotonic() + 15
        while worker.bot.views.get(scene["room"]) is None:  # the worker took Ada's AI seat
            assert time.monotonic() < deadline, "the worker never took the first seat"
            time.sleep(0.1)

        english = new_page()
        english.goto(gin_server.http_url + "/")
        online(english)
        english.get_by_test_id("play-ai-easy").click()
        expect(english.get_by_test_id("table")).to_be_visible()
        banner = english.get_by_test_id("ai-queue")
        expect(banner).to_have_text(
            "Every AI player is busy. Your place in the queue: 1. "
            "Your match goes on as soon as one is free.",
            timeout=10_000,
        )
        expect(banner).to_have_attribute("role", "status")
        shot(english, "ai-queue-en")

        arabic = new_page(locale="ar-EG")
        arabic.goto(gin_server.http_url + "/")
        online(arabic)
        expect(arabic.locator("html")).to_have_attribute("dir", "rtl")
        arabic.get_by_test_id("play-ai-easy").click()
        expect(arabic.get_by_test_id("table")).to_be_visible()
        waiting = arabic.get_by_test_id("ai-queue")
        expect(waiting).to_contain_text("كل لاعبي الذكاء الاصطناعي مشغولون", timeout=10_000)
        expect(waiting).to_contain_text(re.compile(r"مكانك في الطابور: 2"))
        expect(waiting).to_have_attribute("data-place", "2")
        # right to left: the banner's text starts at its right edge
        assert waiting.evaluate("e => getComputedStyle(e).direction") == "rtl"

        # The English player leaves: the Arabic one moves up to 1st.
        english.get_by_test_id("leave").click()
        english.get_by_test_id("confirm-yes").click()
        expect(english.get_by_role("alert")).to_contain_text("You left the match")
        expect(waiting).to_have_attribute("data-place", "1", timeout=5_000)
        expect(waiting).to_contain_text("مكانك في الطابور: 1")
        if arabic.get_by_test_id("table").get_attribute("data-turn") == "1":  # the AI begins
            # nobody "thinks" yet: the line says the AI is waited for
            expect(arabic.get_by_test_id("turn-status")).to_have_text(
                "بانتظار لاعب ذكاء اصطناعي متفرغ…"
            )
        shot(arabic, "ai-queue-ar")

        # Ada leaves her match: the worker's seat goes to the Arabic player, and the word goes.
        async def leave(bot: Bot) -> m.ServerMessage:
            return await bot.request(m.Leave(id=bot._id(), room=scene["room"]))

        assert isinstance(person.call(leave), m.Ack)
        expect(waiting).to_have_count(0, timeout=10_000)
        deadline = time.monotonic() + 10
        while arabic_room(arabic) not in worker.bot.views:  # the worker took the seat
            assert time.monotonic() < deadline, "the freed seat did not go to the Arabic player"
            time.sleep(0.1)
    finally:
        person.stop()
        worker.stop()
