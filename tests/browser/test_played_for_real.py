"""Issue #15, the web client played for real: one test for each problem the issue numbers.

1. a watcher's table; 2. a forfeit seen from both sides; 3. two matches at once; 4. server-made
names in every language; 5. "How to play" in every language; 6. the scoreboard's owners, the
score sheet, a whole match replayed, "My hands"; 7. the first visit's name field; 8. hints for
touch screens, replay keys; 9. room options on the page. Screenshots of the watcher's table,
the score sheet and the Arabic replay go to ``build/screenshots/``.
"""

from __future__ import annotations

import contextlib
import re

from playwright.sync_api import Error as PlaywrightError
from playwright.sync_api import Page, expect

from protocol import messages as m
from tests.browser.conftest import NewPage
from tests.browser.helpers import play_hand, shot, table_state, take_invite, take_turn
from tests.browser.scenes import (
    LATIN_SERVER_NAMES,
    bots_in_a_room,
    finished_match,
    hand_against_the_ai,
    online,
    seat_rows,
    wait_for_hands,
)
from tests.support.server_process import ServerProcess


def join_by_link(page: Page, server: ServerProcess, invite: str) -> None:
    take_invite(page, f"{server.http_url}/join/{invite}")
    expect(page.get_by_test_id("table")).to_be_visible()


def test_1_a_watcher_sees_both_seats_live_and_every_card_at_the_end(
    gin_server: ServerProcess, new_page: NewPage
) -> None:
    with bots_in_a_room(gin_server, delay=0.4) as scene:
        watcher = new_page()
        # a friend given the room's watch link (a private room shows a stranger nothing)
        watcher.goto(f"{gin_server.http_url}/room/{scene.room}?watch={scene.watch_token}")
        table = watcher.get_by_test_id("table")
        expect(table).to_be_visible()
        expect(table).to_have_attribute("data-seat", "")
        # both seats drawn, one above the other, hands face down; nothing covers the table
        expect(watcher.get_by_test_id("opponent")).to_contain_text("Grace")
        expect(watcher.get_by_test_id("watched-seat")).to_contain_text("Ada")
        top, bottom = seat_rows(watcher)
        assert top["bottom"] <= bottom["top"], (top, bottom)
        assert top["backs"] >= 10 and bottom["backs"] >= 10 and bottom["faces"] == 0
        banner = watcher.get_by_test_id("watching")
        expect(banner).to_contain_text("You are watching Ada vs Grace")
        expect(watcher.locator(".overlay")).to_have_count(0)
        expect(watcher.get_by_test_id("scoreboard")).to_contain_text("Ada 0 – Grace 0")
        # live: the moves of the two players arrive as they are made
        history = watcher.get_by_test_id("history")
        expect(history.locator("li")).not_to_have_count(0)
        watcher.wait_for_timeout(300)
        shot(watcher, "watcher-table-en")
        scene.pace(0.05)  # seen live at a person's pace: the rest of the hand at test speed
        # the hand's end: the result with both hands, every card
        result = watcher.get_by_test_id("hand-result")
        expect(result).to_be_visible(timeout=90_000)
        expect(result.get_by_test_id("result-hand-0").locator(".card")).not_to_have_count(0)
        expect(result.get_by_test_id("result-hand-1").locator(".card")).not_to_have_count(0)
        expect(watcher.get_by_test_id("next-hand")).to_have_count(0)
        shot(watcher, "watcher-result-en")


def test_2_a_forfeit_seen_from_both_sides(gin_server: ServerProcess, new_page: NewPage) -> None:
    host = new_page()
    host.goto(gin_server.http_url + "/")
    online(host)
    host.get_by_test_id("create-private").click()
    link = host.get_by_test_id("invite-link")
    expect(link).to_have_value(re.compile(r"/join/"))
    guest = new_page()
    take_invite(guest, link.input_value())
    expect(guest.get_by_test_id("table")).to_be_visible()
    expect(host.get_by_test_id("table")).to_be_visible()

    # the leaver is asked first; "Cancel" keeps the match
    guest.get_by_role("button", name="Leave the match").click()
    expect(guest.get_by_test_id("confirm")).to_contain_text("Leave the match? You forfeit it.")
    guest.get_by_test_id("confirm-no").click()
    expect(guest.get_by_test_id("confirm")).to_have_count(0)
    expect(guest.get_by_test_id("table")).to_be_visible()
    guest.get_by_role("button", name="Leave the match").click()
    guest.get_by_test_id("confirm-yes").click()
    expect(guest).to_have_url(gin_server.http_url + "/")
    expect(guest.get_by_role("alert")).to_contain_text("your opponent wins it by forfeit")

    # the one who stays is told plainly, and the table behind is inert
    over = host.get_by_test_id("match-over")
    expect(over.get_by_test_id("match-headline")).to_contain_text(
        re.compile(r"^You win by forfeit: Player [A-Za-z0-9_-]{5} left the match$")
    )
    table = host.get_by_test_id("table")
    expect(table).to_have_attribute("inert", "")
    for control in ("pass", "take-upcard", "knock", "gin", "thinking", "turn-status", "leave"):
        expect(host.get_by_test_id(control)).to_have_count(0)
    expect(host.get_by_test_id("rematch")).to_have_count(0)
    expect(table.locator(".live, .seat.active")).to_have_count(0)
    shot(host, "forfeit-win-en")


def test_3_two_matches_at_once(
    gin_server: ServerProcess, ai_seats: None, new_page: NewPage
) -> None:
    first = new_page()
    first.goto(gin_server.http_url + "/")
    online(first)
    first.get_by_test_id("quick-match").click()
    second = new_page()
    second.goto(gin_server.http_url + "/")
    online(second)
    second.get_by_test_id("quick-match").click()
    expect(first.get_by_test_id("table")).to_be_visible()
    quick_url = first.url
    quick_room = quick_url.rsplit("/", 1)[1]

    first.get_by_role("link", name="Lobby").click()
    matches = first.get_by_test_id("my-matches")
    expect(matches.locator("li")).to_have_count(1)
    expect(matches).to_contain_text("quick match")
    # another match while one is in play: asked first, and "Cancel" starts nothing
    first.get_by_test_id("play-ai-easy").click()
    expect(first.get_by_test_id("confirm")).to_contain_text("is still on")
    first.get_by_test_id("confirm-no").click()
    expect(first).to_have_url(gin_server.http_url + "/")
    first.get_by_test_id("play-ai-easy").click()
    first.get_by_test_id("confirm-yes").click()
    expect(first.get_by_test_id("opponent")).to_contain_text("AI · Easy")
    ai_url = first.url
    assert ai_url != quick_url

    # both matches are listed, each one back to it
    first.get_by_role("link", name="Lobby").click()
    expect(matches.locator("li")).to_have_count(2)
    expect(matches).to_contain_text("against AI · Easy")
    shot(first, "lobby-matches-en")
    first.get_by_test_id(f"back-to-{quick_room}").click()
    expect(first).to_have_url(quick_url)
    table = first.get_by_test_id("table")
    expect(table).to_be_visible()
    expect(first.get_by_test_id("opponent")).not_to_contain_text("AI")


def test_4_server_made_names_in_every_language(
    gin_server: ServerProcess, new_page: NewPage
) -> None:
    hand_id = hand_against_the_ai(gin_server)
    expected = {
        "en-US": ("Player ", "AI · Hard"),
        "ar-EG": ("اللاعب ", "ذكاء اصطناعي · صعب"),
        "ka-GE": ("მოთამაშე ", "კომპიუტერი · რთული"),
        "ru-RU": ("Игрок ", "ИИ · Сложный"),
        "tr-TR": ("Oyuncu ", "Yapay zekâ · Zor"),
    }
    for locale, (player, ai) in expected.items():
        page = new_page(locale=locale)
        page.goto(gin_server.http_url + "/")
        online(page)
        recent = page.get_by_test_id("recent-hands")
        expect(recent).to_contain_text(ai)
        expect(recent).to_contain_text(player)
        expect(page.locator("h1")).to_contain_text(player)
        if locale != "en-US":
            text = page.locator("main").inner_text()
            assert not LATIN_SERVER_NAMES.search(text), (locale, text)

    page = new_page(locale="ar-EG")
    page.goto(f"{gin_server.http_url}/replay/{hand_id}")
    heading = page.get_by_test_id("replay-heading")
    expect(heading).to_contain_text("ذكاء اصطناعي · صعب")
    # each name is isolated, so that the heading reads in order right to left
    expect(heading.locator("bdi")).to_have_count(2)
    expect(heading.locator("bdi").first).to_contain_text("اللاعب ")
    assert not LATIN_SERVER_NAMES.search(heading.inner_text())
    page.wait_for_timeout(200)
    shot(page, "replay-ar")


def test_5_how_to_play_in_every_language(gin_server: ServerProcess, new_page: NewPage) -> None:
    english = re.compile(r"\b(knock|layoff|undercut|deadwood|meld|bois mort|version)\b", re.I)
    for lang in ("ka", "ru", "tr", "ar", "en"):
        page = new_page(locale=lang)
        page.goto(gin_server.http_url + "/rules")
        guide = page.get_by_test_id("how-to-play")
        expect(guide).to_be_visible()
        expect(guide.locator("dl.faq dt")).to_have_count(4)
        text = guide.inner_text()
        assert "1.0.0" not in text, lang
        if lang != "en":
            assert not english.search(text), (lang, english.findall(text))
        # the rules card stays there as the reference
        expect(page.get_by_test_id("rules-card")).to_have_count(0 if lang == "en" else 1)


def test_6_scoreboard_score_sheet_and_whole_match_replay(
    gin_server: ServerProcess, new_page: NewPage
) -> None:
    with bots_in_a_room(gin_server, guest=False, delay=0.05, deal_next=True, public=True) as scene:
        page = new_page()
        page.goto(gin_server.http_url + "/")
        online(page)
        page.locator("#player-name").fill("Bea")
        page.get_by_role("button", name="Save").click()
        expect(page.locator("h1")).to_contain_text("Welcome, Bea")
        join_by_link(page, gin_server, scene.invite)
        board = page.get_by_test_id("scoreboard")
        expect(board.get_by_test_id("score-0")).to_contain_text("Ada")
        expect(board.get_by_test_id("score-1")).to_contain_text("You")
        play_hand([page])
        sheet = page.get_by_test_id("score-sheet")
        expect(sheet.get_by_test_id("sheet-hand-1")).to_contain_text(
            re.compile(r"^1(Knock|Gin|Undercut|Dead hand)")
        )
        for column in ("Hand", "How", "Won by", "Points", "You", "Ada"):
            expect(sheet.locator("thead")).to_contain_text(column)
        page.wait_for_timeout(200)
        shot(page, "score-sheet-en")
        state = table_state(page)
        assert state is not None
        sheet.get_by_test_id("sheet-replay-1").click()
        expect(page).to_have_url(f"{gin_server.http_url}/replay/{scene.room}-1")
        expect(page.get_by_test_id("replay-heading")).to_contain_text("Replay of hand 1")

        # my hands: this browser's, by match, dated
        page.get_by_role("link", name="Lobby").click()
        mine = page.get_by_test_id("my-hands")
        expect(mine.locator(f"li[data-room='{scene.room}']")).to_contain_text("Ada vs Bea")
        expect(mine.locator(f"li[data-room='{scene.room}'] ol li")).to_have_count(1)
        expect(page.get_by_test_id("recent-hands")).to_contain_text("Hand 1 ·")

    # a whole match, hand after hand: the next hand, the previous one, and playing on
    with bots_in_a_room(gin_server, rules=m.Rules(target=500), deal_next=True, delay=0) as match:
        wait_for_hands(gin_server, match.room, 2)
        page.goto(f"{gin_server.http_url}/replay/{match.room}-1?match=1")
        heading = page.get_by_test_id("replay-heading")
        expect(heading).to_contain_text("Replay of hand 1")
        page.get_by_test_id("replay-next-hand").click()
        expect(heading).to_contain_text("Replay of hand 2")
        page.get_by_test_id("replay-prev-hand").click()
        expect(heading).to_contain_text("Replay of hand 1")
        expect(page.get_by_test_id("replay-prev-hand")).to_be_disabled()
        page.get_by_test_id("replay-last").click()
        page.get_by_test_id("replay-back").click()
        page.get_by_test_id("replay-play").click()
        expect(heading).to_contain_text("Replay of hand 2")
        expect(page.get_by_test_id("replay")).to_have_attribute("data-step", re.compile(r"^[1-9]"))
        page.get_by_test_id("replay-pause").click()
    # the match's last hand says so
    room, hands = finished_match(gin_server, target=1)
    page.goto(f"{gin_server.http_url}/replay/{room}-{hands}?match=1")
    expect(page.get_by_test_id("replay-next-hand")).to_be_disabled()
    expect(page.get_by_test_id("replay-match-end")).to_be_visible()


def test_7_the_first_visit_shows_the_name_the_server_gave(
    gin_server: ServerProcess, new_page: NewPage
) -> None:
    page = new_page()
    page.goto(gin_server.http_url + "/")
    online(page)
    field = page.locator("#player-name")
    expect(field).to_have_value(re.compile(r"^Player [A-Za-z0-9_-]{5}$"))
    expect(page.locator("h1")).to_have_text(f"Welcome, {field.input_value()}")
    expect(page.get_by_test_id("name-hint")).to_be_visible()
    page.reload()
    online(page)
    expect(field).to_have_value(re.compile(r"^Player [A-Za-z0-9_-]{5}$"))


def test_8_touch_hints_and_replay_keys(gin_server: ServerProcess, new_page: NewPage) -> None:
    with bots_in_a_room(gin_server, guest=False, delay=0.05) as scene:
        phone = new_page(width=400, height=800, has_touch=True, is_mobile=True)
        join_by_link(phone, gin_server, scene.invite)
        hint = phone.get_by_test_id("move-hint")
        # play until a draw or a discard is this page's to make (at most a few moves)
        for _ in range(400):
            if hint.count() or phone.get_by_test_id("hand-result").count():
                break
            with contextlib.suppress(PlaywrightError):  # re-rendered under the click: again
                take_turn(phone)
            phone.wait_for_timeout(50)
        expect(hint).to_have_text("Tap a pile to draw, a card to discard.")

    room, _ = finished_match(gin_server, target=1)
    page = new_page(locale="ar-EG")
    page.goto(f"{gin_server.http_url}/replay/{room}-1")
    replay = page.get_by_test_id("replay")
    expect(replay).to_have_attribute("data-step", "0")
    steps = int(replay.get_attribute("data-steps") or "0")
    # right to left: the left arrow steps forward
    page.keyboard.press("ArrowLeft")
    expect(replay).to_have_attribute("data-step", "1")
    page.keyboard.press("ArrowRight")
    expect(replay).to_have_attribute("data-step", "0")
    page.keyboard.press("End")
    expect(replay).to_have_attribute("data-step", str(steps - 1))
    page.keyboard.press("Home")
    expect(replay).to_have_attribute("data-step", "0")


def test_9_room_options_on_the_create_form(gin_server: ServerProcess, new_page: NewPage) -> None:
    page = new_page()
    page.goto(gin_server.http_url + "/")
    online(page)
    options = page.get_by_test_id("room-options")
    options.locator("summary").click()
    page.get_by_test_id("option-target").fill("10")
    page.get_by_test_id("option-target").dispatch_event("change")
    page.get_by_test_id("option-game_bonus").check()
    page.get_by_test_id("option-clock").select_option("60")
    page.get_by_test_id("option-stand-in").check()
    page.get_by_test_id("create-private").click()
    link = page.get_by_test_id("invite-link")
    expect(link).to_have_value(re.compile(r"/join/"))
    guest = new_page()
    take_invite(guest, link.input_value())
    for seat in (page, guest):
        rules = seat.get_by_test_id("room-rules")
        expect(rules).to_have_text(
            "Match to 10 · Bonuses: Game bonus · 60 s a turn"
            " · An AI (Normal) plays for a person who leaves"
        )
    expect(page.get_by_test_id("scoreboard")).to_contain_text("to 10")
    # the turn clock says whose it is
    clock = re.compile(r"^(You|Player [A-Za-z0-9_-]{5}) · \d+ s$")
    expect(page.get_by_test_id("turn-clock")).to_have_text(clock)


def test_9_room_options_of_an_ai_room(
    gin_server: ServerProcess, ai_seats: None, new_page: NewPage
) -> None:
    page = new_page()
    page.goto(gin_server.http_url + "/")
    online(page)
    page.get_by_test_id("room-options").locator("summary").click()
    page.get_by_test_id("option-target").fill("25")
    page.get_by_test_id("option-target").dispatch_event("change")
    page.get_by_test_id("option-box_bonus").check()
    page.get_by_test_id("play-ai-normal").click()
    expect(page.get_by_test_id("room-rules")).to_have_text(
        "Match to 25 · Bonuses: Box bonus · No turn clock · The match waits for you if you leave"
    )
