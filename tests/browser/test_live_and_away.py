"""Issue #15's last gaps, in real headless Chromium: the lobby's "Live now" with its watcher
counts (and no private room in it), the number of watchers at the table, names drawn from the
parts the server sends (in Arabic and Russian), a seat shown away while its person follows
another room (and present again on return), and the AI stand-in option with the room's rules
(against the AI: the match waits for its player).
Screenshots of the Live now list (English, Arabic), a player's table with its watcher count
and the away seat go to ``build/screenshots/``.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from contextlib import contextmanager

from playwright.sync_api import Page, expect

from protocol import messages as m
from tests.browser.bot import Bot, BotThread
from tests.browser.conftest import NewPage
from tests.browser.helpers import shot, take_invite
from tests.browser.scenes import LATIN_SERVER_NAMES, bots_in_a_room, online
from tests.support.fixtures import FAST_CLIENT_ENV, ServerFactory
from tests.support.server_process import WORKER_KEY, ServerProcess

#: Upkeep renews the live list and the counts every 2 s; the lobby reads them every 4 s.
LIVE_WAIT = 30_000


def lobby(page: Page, server: ServerProcess) -> None:
    page.goto(server.http_url + "/")
    online(page)


def join_by_link(page: Page, server: ServerProcess, invite: str) -> None:
    take_invite(page, f"{server.http_url}/join/{invite}")
    expect(page.get_by_test_id("table")).to_be_visible()


@contextmanager
def public_ai_room(server: ServerProcess, name: str | None) -> Iterator[dict[str, str]]:
    """A person called ``name`` (None: the server names them) plays a public room against a
    hard AI seat, played by a scripted worker, while the test looks."""
    scene: dict[str, str] = {}

    async def create(bot: Bot) -> None:
        ack = await bot.request(m.CreateRoom(id=bot._id(), mode="ai", level="hard", public=True))
        assert isinstance(ack, m.Ack), ack
        scene["room"] = str(ack.result["room"])

    worker = BotThread(Bot(server.ws_url, name="worker", delay=1.0, worker_key=WORKER_KEY))
    player = BotThread(Bot(server.ws_url, name=name, seed=5, delay=1.0), create)
    worker.start()
    player.start()
    try:
        yield scene
    finally:
        player.stop()
        worker.stop()


def test_live_now_lists_public_rooms_with_their_watchers(
    gin_server: ServerProcess, new_page: NewPage
) -> None:
    with (
        bots_in_a_room(gin_server, guest=False, public=True, delay=0.5) as shown,
        bots_in_a_room(gin_server, delay=0.5) as hidden,
    ):
        player = new_page()
        join_by_link(player, gin_server, shown.invite)
        expect(player.get_by_test_id("watchers")).to_have_count(0)

        stranger = new_page()
        lobby(stranger, gin_server)
        entry = stranger.get_by_test_id(f"live-{shown.room}")
        expect(entry).to_be_visible(timeout=LIVE_WAIT)
        expect(entry).to_contain_text("Ada vs Player ")
        expect(entry).to_contain_text("Hand 1")
        expect(entry.get_by_test_id("live-watchers")).to_have_text("Watching: 0")
        # the private room, played as long, is not listed (nor anything else)
        expect(stranger.get_by_test_id(f"live-{hidden.room}")).to_have_count(0)
        expect(stranger.get_by_test_id("live-now").locator("li")).to_have_count(1)
        entry.scroll_into_view_if_needed()
        shot(stranger, "live-now-en")

        # the stranger watches: their table and the player's say one watcher, with no move
        stranger.get_by_test_id(f"watch-{shown.room}").click()
        table = stranger.get_by_test_id("table")
        expect(table).to_have_attribute("data-seat", "")
        expect(stranger.get_by_test_id("watchers")).to_contain_text("Watching: 1")
        expect(player.get_by_test_id("watchers")).to_contain_text("Watching: 1")
        shot(player, "table-watchers-en")

        # a second stranger sees the count risen in the list
        second = new_page()
        lobby(second, gin_server)
        watched = second.get_by_test_id(f"live-{shown.room}").get_by_test_id("live-watchers")
        expect(watched).to_have_text("Watching: 1", timeout=LIVE_WAIT)

        # back in the lobby the stranger watches no more
        stranger.get_by_role("link", name="Lobby").click()
        expect(player.get_by_test_id("watchers")).to_have_count(0)
        expect(watched).to_have_text("Watching: 0", timeout=LIVE_WAIT)


def test_names_in_the_live_list_come_from_their_parts(
    gin_server: ServerProcess, new_page: NewPage
) -> None:
    with (
        public_ai_room(gin_server, None) as named_by_server,
        public_ai_room(gin_server, "Player zzzzz") as chose_a_default_look,
    ):
        expected = {
            "ar-EG": ("اللاعب ", "ذكاء اصطناعي · صعب"),
            "ru-RU": ("Игрок ", "ИИ · Сложный"),
        }
        for locale, (player, ai) in expected.items():
            page = new_page(locale=locale)
            lobby(page, gin_server)
            default = page.get_by_test_id(f"live-{named_by_server['room']}")
            expect(default).to_be_visible(timeout=LIVE_WAIT)
            expect(default).to_contain_text(player)
            expect(default).to_contain_text(ai)
            assert not LATIN_SERVER_NAMES.search(default.inner_text()), default.inner_text()
            # a name a person chose is theirs, even when it looks like one the server makes
            chosen = page.get_by_test_id(f"live-{chose_a_default_look['room']}")
            expect(chosen).to_be_visible(timeout=LIVE_WAIT)
            expect(chosen).to_contain_text("Player zzzzz")
            expect(chosen).not_to_contain_text(player)
            expect(chosen).to_contain_text(ai)
            names = page.get_by_test_id("live-now").inner_text().replace("Player zzzzz", "")
            assert not LATIN_SERVER_NAMES.search(names), (locale, names)
            if locale == "ar-EG":
                default.scroll_into_view_if_needed()
                shot(page, "live-now-ar")


def test_a_seat_left_for_another_room_shows_away_until_its_player_is_back(
    server_factory: ServerFactory, new_page: NewPage
) -> None:
    server = server_factory(env={**FAST_CLIENT_ENV, "GIN_DISCONNECT_GRACE": "1"})
    host = new_page()
    lobby(host, server)
    host.get_by_test_id("create-private").click()
    link = host.get_by_test_id("invite-link")
    expect(link).to_have_value(re.compile(r"/join/[A-Za-z0-9_-]+$"))
    guest = new_page()
    take_invite(guest, link.input_value())
    expect(guest.get_by_test_id("table")).to_be_visible()
    first_room = guest.url.rsplit("/", 1)[1]
    opponent = host.get_by_test_id("opponent")
    expect(opponent.locator(".badge.away")).to_have_count(0)

    # the guest starts a match against the AI beside this one: the host sees them away, with
    # the away choice once the grace has passed
    guest.get_by_role("link", name="Lobby").click()
    # the lobby lists the match in play once the page has its first view of the dealt game
    # (a click before that starts the AI match without asking)
    expect(guest.get_by_test_id(f"back-to-{first_room}")).to_be_visible()
    guest.get_by_test_id("play-ai-easy").click()
    guest.get_by_test_id("confirm-yes").click()
    expect(guest).not_to_have_url(re.compile(re.escape(first_room) + "$"))
    expect(opponent.locator(".badge.away")).to_be_visible()
    expect(host.get_by_test_id("away-choice")).to_be_visible()
    host.wait_for_timeout(300)
    shot(host, "away-seat-en")

    # back to the first match: present again, the choice withdrawn
    guest.get_by_role("link", name="Lobby").click()
    guest.get_by_test_id(f"back-to-{first_room}").click()
    expect(guest.get_by_test_id("table")).to_be_visible()
    expect(opponent.locator(".badge.away")).to_have_count(0)
    expect(host.get_by_test_id("away-choice")).to_have_count(0)


def test_the_ai_stand_in_option_is_shown_at_the_table(
    gin_server: ServerProcess, new_page: NewPage
) -> None:
    for wanted, said in (
        (True, "An AI (Normal) plays for a person who leaves"),
        (False, "No AI plays for a person who leaves"),
    ):
        page = new_page()
        lobby(page, gin_server)
        page.get_by_test_id("room-options").locator("summary").click()
        if wanted:
            page.get_by_test_id("option-stand-in").check()
        page.get_by_test_id("create-private").click()
        link = page.get_by_test_id("invite-link")
        expect(link).to_have_value(re.compile(r"/join/"))
        guest = new_page(locale="ru-RU")
        take_invite(guest, link.input_value())
        expect(page.get_by_test_id("room-stand-in")).to_contain_text(said)
        in_russian = "ИИ (Средний) играет за ушедшего игрока" if wanted else "ИИ не играет"
        expect(guest.get_by_test_id("room-stand-in")).to_contain_text(in_russian)


def test_a_room_against_the_ai_says_the_match_waits_for_its_player(
    gin_server: ServerProcess, new_page: NewPage
) -> None:
    """No AI plays for a person who leaves a room against the AI (issue 27): the table says
    the match waits for them, in the page's language."""
    for locale, said in (
        ("en-US", "The match waits for you if you leave"),
        ("ru-RU", "Если вы уйдёте, партия будет ждать вас"),
    ):
        page = new_page(locale=locale)
        lobby(page, gin_server)
        page.get_by_test_id("play-ai-easy").click()
        expect(page.get_by_test_id("table")).to_be_visible()
        expect(page.get_by_test_id("room-stand-in")).to_contain_text(said)
        expect(page.get_by_test_id("room-stand-in")).not_to_contain_text("AI (")


def test_a_watcher_closes_a_hand_result_while_the_players_have_not_dealt_on(
    gin_server: ServerProcess, new_page: NewPage
) -> None:
    # the scripted players finish a hand and leave it there: the room stays in hand_over
    with bots_in_a_room(gin_server, public=True, delay=0.05) as scene:
        watcher = new_page()
        watcher.goto(f"{gin_server.http_url}/room/{scene.room}")
        expect(watcher.get_by_test_id("watching")).to_be_visible()
        result = watcher.get_by_test_id("hand-result")
        expect(result).to_be_visible(timeout=60_000)
        table = watcher.get_by_test_id("table")
        expect(table).to_have_attribute("data-phase", "hand_over")
        expect(watcher.get_by_test_id("next-hand")).to_have_count(0)  # a watcher deals nothing
        watcher.get_by_test_id("continue").click()
        # the table again, in reach, with the result a press away
        expect(result).to_have_count(0)
        expect(watcher.get_by_test_id("overlay")).to_have_count(0)
        expect(table).not_to_have_attribute("inert", "")
        expect(table).to_have_attribute("data-phase", "hand_over")
        reopen = watcher.get_by_test_id("reopen-result")
        expect(reopen).to_be_focused()
        expect(reopen).to_have_text("Hand 1 result")
        shot(watcher, "watcher-result-closed-en")
        reopen.click()
        expect(result).to_be_visible()
        # Escape closes it as well
        watcher.keyboard.press("Escape")
        expect(result).to_have_count(0)
        expect(reopen).to_be_visible()
