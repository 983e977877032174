"""The web client in real headless Chromium against a real server and Redis.

Every move is a click, a drag or a key press on the page, as a person would play; the
opponents are scripted websocket players (``tests.browser.bot``). Screenshots of the lobby,
the table mid-hand and the hand result (English and Arabic) go to ``build/screenshots/``.
"""

from __future__ import annotations

import contextlib
import re
import time

from playwright.sync_api import Page, expect
from playwright.sync_api import TimeoutError as PlaywrightTimeoutError

from protocol import messages as m
from tests.browser.bot import Bot, BotThread
from tests.browser.conftest import NewPage
from tests.browser.helpers import (
    ConsoleWatch,
    TableState,
    close_result,
    hand_cards,
    move_and_wait,
    play_hand,
    shot,
    table_state,
    take_invite,
    wait_for_change,
)
from tests.support.server_process import ServerProcess


def online(page: Page) -> None:
    expect(page.get_by_test_id("connection")).to_have_attribute("data-status", "online")


def start_ai_match(page: Page, server: ServerProcess, level: str = "normal") -> None:
    page.goto(server.http_url + "/")
    online(page)
    page.get_by_test_id(f"play-ai-{level}").click()
    expect(page.get_by_test_id("table")).to_be_visible()
    expect(page).to_have_url(re.compile(r"/room/[A-Za-z0-9_-]+$"))


#: The opponent's turn as the page shows it (null while it is the page's turn or between hands).
OPPONENTS_TURN = """() => {
    const table = document.querySelector('[data-testid=table]');
    if (!table || table.dataset.turn === table.dataset.seat || table.dataset.turn === '')
        return null;
    return {thinking: !!document.querySelector('[data-testid=thinking]'),
            status: document.querySelector('[data-testid=turn-status]')?.textContent};
}"""


def wait_my_turn(page: Page) -> TableState:
    while True:
        state = table_state(page)
        if not close_result(page) and state is not None and state.my_turn and not state.over:
            return state
        page.wait_for_timeout(30)


def my_moves(page: Page, count: int, **options: bool) -> list[str]:
    """Make ``count`` moves of this page, waiting for its turn each time. A hand that ends
    early (the AI may knock on its first turn) is closed and play goes on in the next one."""
    done: list[str] = []
    while len(done) < count:
        if close_result(page):
            continue
        state = table_state(page)
        if state is None or state.over or not state.my_turn:
            page.wait_for_timeout(30)
            continue
        did = move_and_wait(page, state, **options)
        if did:
            done.append(did)
    return done


def test_lobby_then_a_whole_hand_against_the_ai(
    gin_server: ServerProcess, ai_seats: None, new_page: NewPage
) -> None:
    page = new_page()
    page.goto(gin_server.http_url + "/")
    online(page)
    expect(page.locator("html")).to_have_attribute("lang", "en")
    expect(page.locator("html")).to_have_attribute("dir", "ltr")
    expect(page.get_by_role("heading", name="Play against the computer")).to_be_visible()
    expect(page.get_by_test_id("stats")).to_contain_text("Matches")
    shot(page, "lobby-en")

    page.get_by_test_id("play-ai-normal").click()
    expect(page.get_by_test_id("table")).to_be_visible()
    expect(page.get_by_test_id("opponent")).to_contain_text("AI · Normal")
    # the opponent's ten card backs, the stock and the upcard
    expect(page.get_by_test_id("opponent").locator(".backs")).to_have_attribute(
        "aria-label", re.compile(r"1[01] cards")
    )
    expect(page.get_by_test_id("stock")).to_have_attribute("aria-label", re.compile(r"Stock"))
    # cards are buttons with their names for screen readers
    first = page.locator("[data-testid=my-hand] button.card").first
    expect(first).to_have_attribute(
        "aria-label",
        re.compile(
            r"^(ace|two|three|four|five|six|"
            r"seven|eight|nine|ten|jack|queen|king) of "
            r"(clubs|diamonds|hearts|spades)"
        ),
    )
    moves = my_moves(page, 4, use_drag=True)
    assert any(move.startswith("drag") for move in moves), moves
    # the opponent's turn is shown while it thinks
    mine = re.compile(r"You (passed|drew|discarded)")
    expect(page.get_by_test_id("history")).to_contain_text(mine)
    thinking = None
    deadline = time.monotonic() + 60
    while thinking is None:  # the AI may answer before the page is looked at: move again
        while (state := table_state(page)) is not None and state.my_turn:
            my_moves(page, 1)
        with contextlib.suppress(PlaywrightTimeoutError):
            thinking = page.wait_for_function(OPPONENTS_TURN, timeout=5_000).json_value()
        assert thinking is not None or time.monotonic() < deadline, "no opponent's turn seen"
    assert thinking["thinking"], thinking
    assert "is thinking" in thinking["status"], thinking
    my_moves(page, 2)
    # two moves are a draw and a discard unless a hand ended between them (the next one starts
    # with the upcard's offer): play on to the end of a turn, where the count has no discard
    while (state := table_state(page)) is not None and state.my_turn and state.phase == "discard":
        my_moves(page, 1)
    expect(page.get_by_test_id("deadwood")).to_contain_text(re.compile(r"Deadwood: \d+"))
    page.wait_for_timeout(300)
    shot(page, "table-en")

    play_hand([page])
    result = page.get_by_test_id("hand-result")
    expect(result).to_be_visible()
    expect(result.get_by_test_id("result-headline")).to_contain_text(
        re.compile(r"Knock|Gin|Undercut|Dead hand")
    )
    expect(result.get_by_test_id("result-deadwood-0")).to_contain_text("Deadwood:")
    expect(result.get_by_test_id("result-deadwood-1")).to_contain_text("Deadwood:")
    expect(result.get_by_test_id("match-score")).to_contain_text("First to 100 wins")
    page.wait_for_timeout(300)
    shot(page, "result-en")

    hand = table_state(page)
    assert hand is not None
    # "Next hand" deals it; when the AI dealt first, "Continue" closes the result
    page.get_by_test_id("next-hand").or_(page.get_by_test_id("continue")).click()
    expect(page.get_by_test_id("table")).to_have_attribute("data-hand", str(hand.hand + 1))
    expect(page.get_by_test_id("hand-result")).to_have_count(0)


def test_arabic_is_right_to_left_through_a_hand(
    gin_server: ServerProcess, ai_seats: None, new_page: NewPage
) -> None:
    page = new_page(locale="ar-EG")
    page.goto(gin_server.http_url + "/")
    online(page)
    expect(page.locator("html")).to_have_attribute("dir", "rtl")
    expect(page.locator("html")).to_have_attribute("lang", "ar")
    expect(page.get_by_role("heading", name="العب ضد الحاسوب")).to_be_visible()
    shot(page, "lobby-ar")

    page.get_by_test_id("play-ai-easy").click()
    expect(page.get_by_test_id("table")).to_be_visible()
    first = page.locator("[data-testid=my-hand] button.card").first
    expect(first).to_have_attribute("aria-label", re.compile(r"(كبة|بستوني|ديناري|سباتي)"))
    my_moves(page, 4)
    expect(page.get_by_test_id("deadwood")).to_contain_text("الأوراق الميتة")
    page.wait_for_timeout(300)
    shot(page, "table-ar")
    play_hand([page])
    result = page.get_by_test_id("hand-result")
    expect(result).to_be_visible()
    expect(result.get_by_test_id("result-deadwood-0")).to_contain_text("الأوراق الميتة")
    expect(result.get_by_test_id("match-score")).to_contain_text("أول من يبلغ 100 يفوز")
    page.wait_for_timeout(300)
    shot(page, "result-ar")


def test_two_people_play_through_an_invite_link(
    gin_server: ServerProcess, new_page: NewPage
) -> None:
    host = new_page()
    host.goto(gin_server.http_url + "/")
    online(host)
    host.get_by_test_id("create-private").click()
    link = host.get_by_test_id("invite-link")
    expect(link).to_have_value(re.compile(r"/join/[A-Za-z0-9_-]+$"))
    url = link.input_value()
    shot(host, "invite-en")
    assert url.startswith(gin_server.http_url)

    guest = new_page(locale="ru-RU")
    take_invite(guest, url)
    expect(guest.get_by_test_id("table")).to_be_visible()
    expect(host.get_by_test_id("table")).to_be_visible()
    expect(guest).to_have_url(re.compile(r"/room/"))
    expect(guest.locator("html")).to_have_attribute("lang", "ru")
    assert host.url == guest.url

    play_hand([host, guest])
    expect(host.get_by_test_id("hand-result")).to_be_visible()
    expect(guest.get_by_test_id("hand-result")).to_be_visible()
    expect(guest.get_by_test_id("result-deadwood-0")).to_contain_text("Штрафные очки")

    # the guest closes the page: the host sees them away
    guest.context.close()
    expect(host.get_by_test_id("opponent").locator(".badge.away")).to_be_visible()


def test_reload_and_reopen_return_to_the_same_hand(
    gin_server: ServerProcess, ai_seats: None, new_page: NewPage
) -> None:
    page = new_page()
    start_ai_match(page, gin_server)
    my_moves(page, 3)
    state = table_state(page)
    assert state is not None
    state = wait_my_turn(page)  # so that the table is stable
    cards = hand_cards(page)
    room_url = page.url
    history = page.get_by_test_id("history").locator("li").count()

    page.reload()
    online(page)
    expect(page.get_by_test_id("table")).to_be_visible()
    assert page.url == room_url
    assert table_state(page) == state
    assert sorted(hand_cards(page)) == sorted(cards)
    expect(page.get_by_test_id("history").locator("li")).to_have_count(history)

    # play on with the keyboard only: Enter on a focused button or pile, Space on a card
    state = wait_my_turn(page)
    while state.phase in ("first_offer", "second_offer"):
        page.get_by_test_id("pass").focus()
        page.keyboard.press("Enter")
        wait_for_change(page, state)
        state = wait_my_turn(page)
    if state.phase in ("draw", "first_draw"):
        page.get_by_test_id("stock").focus()
        page.keyboard.press("Enter")
        wait_for_change(page, state)
    after_draw = table_state(page)
    assert after_draw is not None and after_draw.phase == "discard"
    live = page.locator("[data-testid=my-hand] button.card.live")
    live.first.focus()
    page.keyboard.press("Space")
    wait_for_change(page, after_draw)
    assert len(hand_cards(page)) == 10

    # close the page and open the site again: straight back to the match
    context = page.context
    page.close()
    again = new_page(context=context)
    again.goto(gin_server.http_url + "/")
    expect(again).to_have_url(room_url)
    expect(again.get_by_test_id("table")).to_be_visible()
    online(again)
    my_moves(again, 2)


def _finished_hand(server: ServerProcess) -> str:
    """Two scripted players finish one hand of a public private room (listed in the lobby);
    returns the hand's id."""
    invite: dict[str, str] = {}

    async def create(bot: Bot) -> None:
        ack = await bot.request(m.CreateRoom(id=bot._id(), mode="private", public=True))
        assert isinstance(ack, m.Ack), ack
        invite["code"] = str(ack.result["invite"])
        invite["room"] = str(ack.result["room"])

    async def join(bot: Bot) -> None:
        ack = await bot.request(m.JoinRoom(id=bot._id(), invite=invite["code"]))
        assert isinstance(ack, m.Ack), ack

    host = BotThread(Bot(server.ws_url, name="Ada", seed=3, delay=0), create).start()
    guest = BotThread(Bot(server.ws_url, name="Grace", seed=4, delay=0), join).start()
    try:
        for _ in range(400):
            status, body = server.get_json("/api/hands")
            if status == 200 and body["hands"]:
                return str(body["hands"][0]["id"])
            time.sleep(0.05)
        raise AssertionError("the scripted players did not finish a hand")
    finally:
        host.stop()
        guest.stop()


def test_replay_a_finished_hand_from_the_lobby_and_by_link(
    gin_server: ServerProcess, new_page: NewPage, console: ConsoleWatch
) -> None:
    hand_id = _finished_hand(gin_server)
    page = new_page()
    page.goto(gin_server.http_url + "/")
    online(page)
    recent = page.get_by_test_id("recent-hands")
    expect(recent).to_contain_text("Ada vs Grace")
    recent.get_by_role("link", name="Replay").first.click()
    expect(page).to_have_url(f"{gin_server.http_url}/replay/{hand_id}")
    replay = page.get_by_test_id("replay")
    expect(replay).to_be_visible()
    expect(replay).to_have_attribute("data-step", "0")
    steps = int(replay.get_attribute("data-steps") or "0")
    assert steps >= 4
    # the deal: both hands shown face up, ten cards each
    expect(page.get_by_test_id("replay-hand-0").locator(".card")).to_have_count(10)
    expect(page.get_by_test_id("replay-hand-1").locator(".card")).to_have_count(10)
    expect(page.get_by_test_id("replay-caption")).to_contain_text("deals; the upcard is")
    shot(page, "replay-en")
    page.get_by_test_id("replay-forward").click()
    expect(replay).to_have_attribute("data-step", "1")
    page.get_by_test_id("replay-forward").click()
    page.get_by_test_id("replay-back").click()
    expect(replay).to_have_attribute("data-step", "1")
    page.get_by_test_id("replay-last").click()
    expect(replay).to_have_attribute("data-step", str(steps - 1))
    expect(page.get_by_test_id("replay-caption")).to_contain_text(
        re.compile(r"knocked|Gin|Undercut|Dead hand")
    )
    expect(page.get_by_test_id("replay-forward")).to_be_disabled()
    page.get_by_test_id("replay-first").click()
    expect(replay).to_have_attribute("data-step", "0")
    page.get_by_test_id("replay-play").click()
    expect(replay).not_to_have_attribute("data-step", "0")
    page.get_by_test_id("replay-pause").click()

    # the shareable link opens the same replay in a fresh browser
    other = new_page(locale="tr-TR")
    other.goto(f"{gin_server.http_url}/replay/{hand_id}")
    expect(other.get_by_test_id("replay")).to_have_attribute("data-steps", str(steps))
    expect(other.get_by_test_id("replay-hand-0").locator(".card")).to_have_count(10)
    missing = new_page()
    missing.goto(f"{gin_server.http_url}/replay/{hand_id}x")
    expect(missing.get_by_role("heading", name="This hand is not available.")).to_be_visible()
    # the browser reports the 404 of the missing hand itself: that one is expected
    console.errors[:] = [error for error in console.errors if f"/api/hands/{hand_id}x" not in error]


def test_georgian_from_the_browser_and_a_saved_language_choice(
    gin_server: ServerProcess, new_page: NewPage
) -> None:
    page = new_page(locale="ka-GE")
    page.goto(gin_server.http_url + "/")
    online(page)
    expect(page.locator("html")).to_have_attribute("lang", "ka")
    expect(page.get_by_role("heading", name="ითამაშეთ კომპიუტერთან")).to_be_visible()
    expect(page.get_by_test_id("connection")).to_have_text("დაკავშირებულია")
    page.get_by_role("link", name="როგორ ვითამაშოთ").click()
    expect(page.get_by_test_id("rules")).to_contain_text("შეუკრავი კარტები")
    expect(page).to_have_url(f"{gin_server.http_url}/rules")
    shot(page, "rules-ka")

    page.locator("#lang").select_option("tr")
    expect(page.locator("html")).to_have_attribute("lang", "tr")
    expect(page.get_by_test_id("rules")).to_contain_text("Gin rami")
    page.reload()
    expect(page.locator("html")).to_have_attribute("lang", "tr")
    page.locator("#lang").select_option("ar")
    expect(page.get_by_test_id("rules")).to_contain_text("كيف تلعب جين رمي")
    shot(page, "rules-ar")
    expect(page.locator("html")).to_have_attribute("dir", "rtl")


def test_a_phone_screen_fits_the_table(
    gin_server: ServerProcess, ai_seats: None, new_page: NewPage
) -> None:
    page = new_page(width=390, height=844, is_mobile=True, has_touch=True)
    start_ai_match(page, gin_server, "hard")
    my_moves(page, 2)
    wait_my_turn(page)  # the table holds still until this page moves (the AI's turn redraws it)
    width = page.evaluate("document.documentElement.scrollWidth")
    assert width <= 390, f"the page scrolls sideways: {width} px"
    for card in page.locator("[data-testid=my-hand] button.card").all():
        box = card.bounding_box()
        assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= 390
    page.wait_for_timeout(300)
    shot(page, "table-phone-en")


def test_a_dropped_connection_comes_back_by_itself(
    gin_server: ServerProcess, ai_seats: None, new_page: NewPage, console: ConsoleWatch
) -> None:
    page = new_page()
    start_ai_match(page, gin_server)
    my_moves(page, 2)
    cards = sorted(hand_cards(page))
    page.evaluate("window.__ginSocketsBefore = performance.now()")
    gin_server.stop()  # a deploy: the server says reconnect, then goes away
    expect(page.get_by_test_id("connection")).to_have_attribute("data-status", "reconnecting")
    expect(page.get_by_test_id("connection")).to_contain_text("reconnecting")
    gin_server.start()
    expect(page.get_by_test_id("connection")).to_have_attribute(
        "data-status", "online", timeout=20_000
    )
    assert sorted(hand_cards(page)) == cards
    my_moves(page, 2)
    # refused connection attempts while the server was down are the browser's own reports
    console.errors[:] = [error for error in console.errors if "ERR_CONNECTION_REFUSED" not in error]


def test_match_end_and_rematch_follow_the_next_room(
    gin_server: ServerProcess, new_page: NewPage
) -> None:
    """A friend (scripted) opens a room whose match goes to 1 point; the page joins by the
    invite link, plays until the match is over, asks for the rematch and follows the new room."""
    invite: dict[str, str] = {}

    async def create(bot: Bot) -> None:
        ack = await bot.request(m.CreateRoom(id=bot._id(), mode="private", rules=m.Rules(target=1)))
        assert isinstance(ack, m.Ack), ack
        invite["code"] = str(ack.result["invite"])

    friend = BotThread(
        Bot(gin_server.ws_url, name="Grace", delay=0.05, deal_next=True, rematch=True), create
    ).start()
    try:
        page = new_page()
        take_invite(page, f"{gin_server.http_url}/join/{invite['code']}")
        expect(page.get_by_test_id("table")).to_be_visible()
        old_url = page.url
        for _ in range(6):  # a dead hand scores nothing: play on until someone scores
            play_hand([page])
            if page.get_by_test_id("match-over").count():
                break
            button = page.get_by_test_id("next-hand").or_(page.get_by_test_id("continue"))
            button.first.click()
            expect(page.get_by_test_id("hand-result")).to_have_count(0)
        over = page.get_by_test_id("match-over")
        expect(over).to_be_visible()
        expect(over).to_contain_text(re.compile(r"You win the match!|Grace wins the match"))
        expect(over).to_contain_text("Final score")
        page.wait_for_timeout(200)
        shot(page, "match-over-en")
        page.get_by_test_id("rematch").click()
        expect(page).not_to_have_url(old_url)
        expect(page).to_have_url(re.compile(r"/room/[A-Za-z0-9_-]+$"))
        table = page.get_by_test_id("table")
        expect(table).to_be_visible()
        expect(table).to_have_attribute("data-hand", "1")
        expect(page.get_by_test_id("match-over")).to_have_count(0)
    finally:
        friend.stop()


def test_quick_match_pairs_two_people(gin_server: ServerProcess, new_page: NewPage) -> None:
    first = new_page()
    first.goto(gin_server.http_url + "/")
    online(first)
    first.get_by_test_id("quick-match").click()
    expect(first.get_by_text("Looking for an opponent…")).to_be_visible()
    second = new_page(locale="tr-TR")
    second.goto(gin_server.http_url + "/")
    online(second)
    second.get_by_test_id("quick-match").click()
    expect(second.get_by_test_id("table")).to_be_visible()
    expect(first.get_by_test_id("table")).to_be_visible()
    assert first.url == second.url
    expect(second.get_by_test_id("turn-status")).to_be_visible()


def test_a_friend_watches_by_the_watch_link_and_a_stranger_by_the_room_id_sees_nothing(
    gin_server: ServerProcess, new_page: NewPage
) -> None:
    player = new_page()
    start_ai_match(player, gin_server)
    room_url = player.url
    button = player.get_by_test_id("watch-link")
    expect(button).to_have_attribute("data-link", re.compile(r"/room/[A-Za-z0-9_-]+\?watch="))
    link = button.get_attribute("data-link") or ""
    assert link.startswith(room_url + "?watch=")

    friend = new_page()
    friend.goto(link)
    expect(friend.get_by_test_id("table")).to_be_visible()
    expect(friend.get_by_test_id("table")).to_have_attribute("data-seat", "")
    expect(friend.get_by_test_id("watch-link")).to_have_count(0)  # seats share it, not watchers
    friend.reload()  # the saved room keeps its token
    expect(friend.get_by_test_id("table")).to_have_attribute("data-seat", "")

    stranger = new_page()
    stranger.goto(room_url)
    expect(stranger).to_have_url(gin_server.http_url + "/")
    expect(stranger.get_by_test_id("table")).to_have_count(0)
