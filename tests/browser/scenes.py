"""Scenes the played-for-real browser tests share: scripted players in a room of their own,
a finished hand or match to look at, and reading a page like a person would."""

from __future__ import annotations

import re
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

from playwright.sync_api import Page, expect

from protocol import messages as m
from tests.browser.bot import Bot, BotThread
from tests.support.server_process import WORKER_KEY, ServerProcess


def online(page: Page) -> None:
    expect(page.get_by_test_id("connection")).to_have_attribute("data-status", "online")


def as_player(page: Page, site: str, token: str, path: str) -> None:
    """The page signed in as the player of ``token`` (this browser keeps it), at ``path``."""
    page.goto(site + "/")
    online(page)
    page.evaluate("token => localStorage.setItem('gin.token', token)", token)
    page.goto(site + path)
    online(page)


@dataclass
class PrivateRoom:
    """A private room a scripted host opened: its id, invite code and watch token (none
    when the room is public)."""

    room: str = ""
    invite: str = ""
    watch_token: str | None = None
    bots: list[BotThread] = field(default_factory=list)

    def pace(self, delay: float) -> None:
        """Each bot's pause before its moves from now on."""
        for thread in self.bots:
            thread.bot.delay = delay


@contextmanager
def bots_in_a_room(
    server: ServerProcess,
    *,
    rules: m.Rules | None = None,
    guest: bool = True,
    deal_next: bool = False,
    delay: float = 0.05,
    public: bool = False,
    host_token: str | None = None,
) -> Iterator[PrivateRoom]:
    """Ada opens a private room (``rules``; listed and watchable by all when ``public``);
    Grace joins it when ``guest``. Both play it. With ``host_token`` the host is that
    account's player (under its own name), not a new guest."""
    scene = PrivateRoom()

    async def create(bot: Bot) -> None:
        request = m.CreateRoom(id=bot._id(), mode="private", rules=rules, public=public or None)
        ack = await bot.request(request)
        assert isinstance(ack, m.Ack), ack
        scene.room = str(ack.result["room"])
        scene.invite = str(ack.result["invite"])
        scene.watch_token = ack.result.get("watch_token")

    async def join(bot: Bot) -> None:
        ack = await bot.request(m.JoinRoom(id=bot._id(), invite=scene.invite))
        assert isinstance(ack, m.Ack), ack

    try:
        host = Bot(server.ws_url, name="Ada", seed=3, delay=delay, deal_next=deal_next)
        host.token = host_token
        scene.bots.append(BotThread(host, create).start())
        if guest:
            other = Bot(server.ws_url, name="Grace", seed=4, delay=delay, deal_next=deal_next)
            scene.bots.append(BotThread(other, join).start())
        yield scene
    finally:
        for bot in scene.bots:
            bot.stop()


def wait_for_hands(server: ServerProcess, room: str, count: int, timeout: float = 60.0) -> None:
    """Until ``count`` hands of ``room`` are kept for replays (GET /api/hands/ROOM-N)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        status, _ = server.get_json(f"/api/hands/{room}-{count}")
        if status == 200:
            return
        time.sleep(0.1)
    raise AssertionError(f"room {room} did not finish {count} hands")


def finished_match(server: ServerProcess, target: int = 20) -> tuple[str, int]:
    """Two scripted players play a whole match to ``target``; returns the room and how many
    hands it took. The room is public: its hands are found in the public list."""
    rules = m.Rules(target=target)
    with bots_in_a_room(server, rules=rules, deal_next=True, delay=0, public=True) as scene:
        deadline = time.monotonic() + 90
        while time.monotonic() < deadline:
            status, body = server.get_json("/api/hands?limit=100")
            assert status == 200
            mine = [hand for hand in body["hands"] if hand["room"] == scene.room]
            for hand in mine:
                status, record = server.get_json(f"/api/hands/{hand['id']}")
                if status == 200 and any(e["type"] == "match_over" for e in record["events"]):
                    return scene.room, int(record["hand"])
            time.sleep(0.2)
    raise AssertionError("the scripted players did not finish their match")


def hand_against_the_ai(server: ServerProcess) -> str:
    """A player the server named (no name of their own) plays a hand against a hard AI seat
    (a scripted worker) in a room they chose to make public (so that it is listed); returns
    the finished hand's id."""
    scene: dict[str, Any] = {}

    async def create(bot: Bot) -> None:
        request = m.CreateRoom(id=bot._id(), mode="ai", level="hard", public=True)
        ack = await bot.request(request)
        assert isinstance(ack, m.Ack), ack
        scene["room"] = str(ack.result["room"])

    worker = BotThread(Bot(server.ws_url, name="worker", delay=0, worker_key=WORKER_KEY)).start()
    player = BotThread(Bot(server.ws_url, name=None, seed=5, delay=0), create).start()
    try:
        wait_for_hands(server, scene["room"], 1)
        return f"{scene['room']}-1"
    finally:
        player.stop()
        worker.stop()


def seat_rows(page: Page) -> list[dict[str, Any]]:
    """The seats drawn on the table, top to bottom: name, where, and the cards' backs."""
    rows: list[dict[str, Any]] = page.eval_on_selector_all(
        "[data-testid=table] section.seat",
        """els => els.map(e => {
            const box = e.getBoundingClientRect();
            return {name: e.querySelector('.name')?.textContent, top: box.top,
                    bottom: box.bottom, backs: e.querySelectorAll('.card.back').length,
                    faces: e.querySelectorAll('button.card').length};
        })""",
    )
    return sorted(rows, key=lambda row: row["top"])


LATIN_SERVER_NAMES = re.compile(r"Player [A-Za-z0-9_-]{5}|AI \((easy|normal|hard)\)")
