"""The review of a finished hand in Chromium: asked for on the replay page, its progress, the
summary per player, the marks and the step to the next mistake, in English and in Arabic
(right to left). A real server and Redis, scripted players, and the real review worker."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import expect

from protocol import messages as m
from tests.browser.bot import Bot, BotThread
from tests.browser.conftest import NewPage
from tests.browser.helpers import shot
from tests.support.review_worker import ReviewWorkerProcess
from tests.support.server_process import ServerProcess


@pytest.fixture
def review_worker(gin_server: ServerProcess, tmp_path: Path) -> Iterator[ReviewWorkerProcess]:
    worker = ReviewWorkerProcess(gin_server.ws_url, tmp_path, "browser").start()
    try:
        yield worker
        assert worker.running, "the review worker died:\n" + worker.log_text()[-3000:]
    finally:
        worker.kill()


def _finished_match(server: ServerProcess) -> str:
    """Two scripted players finish a match of one scoring hand (target 1); returns the id of
    its last hand (the match is over: anyone with the replay may ask for its review)."""
    invite: dict[str, str] = {}

    async def create(bot: Bot) -> None:
        ack = await bot.request(
            m.CreateRoom(id=bot._id(), mode="private", public=True, rules=m.Rules(target=1))
        )
        assert isinstance(ack, m.Ack), ack
        invite["code"] = str(ack.result["invite"])

    async def join(bot: Bot) -> None:
        ack = await bot.request(m.JoinRoom(id=bot._id(), invite=invite["code"]))
        assert isinstance(ack, m.Ack), ack

    host = BotThread(
        Bot(server.ws_url, name="Ada", seed=3, delay=0, deal_next=True), create
    ).start()
    guest = BotThread(
        Bot(server.ws_url, name="Grace", seed=4, delay=0, deal_next=True), join
    ).start()
    try:
        for _ in range(600):
            status, body = server.get_json("/api/hands")
            for hand in body.get("hands", []) if status == 200 else []:
                _, record = server.get_json(f"/api/hands/{hand['id']}")
                if any(event["type"] == "match_over" for event in record["events"]):
                    return str(hand["id"])
            time.sleep(0.1)
        raise AssertionError("the scripted players did not finish the match")
    finally:
        host.stop()
        guest.stop()


def test_a_review_asked_for_on_the_replay_page_in_english_and_arabic(
    gin_server: ServerProcess, new_page: NewPage, review_worker: ReviewWorkerProcess
) -> None:
    hand = _finished_match(gin_server)
    page = new_page()
    page.goto(f"{gin_server.http_url}/replay/{hand}")
    panel = page.get_by_test_id("review")
    expect(panel).to_have_attribute("data-state", "none")
    page.get_by_test_id("review-ask").click()
    expect(panel).to_have_attribute("data-state", "done", timeout=90_000)
    summary = page.get_by_test_id("review-summary")
    expect(summary).to_be_visible()
    expect(summary).to_contain_text("Accuracy")
    expect(page.get_by_test_id("review-player-0")).to_contain_text("%")
    expect(page.get_by_test_id("review-player-1")).to_contain_text("%")
    # Step to the next mistake when there is one: its mark, and the better choice.
    if page.get_by_test_id("review-next").count():
        page.get_by_test_id("review-next").click()
        mark = page.get_by_test_id("replay-mark")
        expect(mark).to_be_visible()
        assert mark.inner_text().strip() in ("?!", "?", "??")
        expect(page.get_by_test_id("review-verdict")).to_contain_text("Better:")
        expect(page.get_by_test_id("review-verdict")).to_contain_text("points")
    else:
        expect(page.get_by_test_id("review-clean")).to_be_visible()
    shot(page, "review-en")
    # The same review, read back (stored with the hand), in Arabic.
    page.locator("#lang").select_option("ar")
    expect(page.locator("html")).to_have_attribute("lang", "ar")
    expect(page.locator("html")).to_have_attribute("dir", "rtl")
    page.reload()
    expect(panel).to_have_attribute("data-state", "done")
    expect(page.get_by_test_id("review-summary")).to_contain_text("الدقة")
    if page.get_by_test_id("review-next").count():
        page.get_by_test_id("review-next").click()
        expect(page.get_by_test_id("review-verdict")).to_contain_text("الأفضل")
    shot(page, "review-ar")
    assert review_worker.log_text().count(f"hand {hand} reviewed") == 1
