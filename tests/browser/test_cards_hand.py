"""Cards and the hand (issue #17, cards-hand) in real Chromium against a real server and Redis.

The page plays a private room against a scripted websocket player (``bots_in_a_room``). The
hand is reordered by a mouse drag and by a finger (touch events sent through the Chrome
DevTools protocol, as a touch screen sends them), and both orders survive a reload; the sort
buttons order the hand; the hint is checked against the project's meld solver
(``protocol.melds``) on the hand the page shows; every face has its two corner indices, the
top-left one readable when cards overlap; the four-colour deck gives each suit its colour.
Screenshots of the hand go to ``build/screenshots/hand-*.png``.
"""

from __future__ import annotations

import contextlib
import re
import time
from collections.abc import Iterable

from playwright.sync_api import Error as PlaywrightError
from playwright.sync_api import FloatRect, Page, expect

from protocol.melds import best_discards
from tests.browser.conftest import NewPage
from tests.browser.helpers import (
    TableState,
    card_value,
    close_result,
    hand_cards,
    shot,
    spoken,
    table_state,
    take_invite,
    take_turn,
)
from tests.browser.scenes import bots_in_a_room, finished_match, online
from tests.support.server_process import ServerProcess

RANKS = "A23456789TJQK"
SUIT_ORDER = "CHSD"  # the hand's "by suit": black and red alternate


def join(page: Page, server: ServerProcess, invite: str) -> None:
    take_invite(page, f"{server.http_url}/join/{invite}")
    expect(page.get_by_test_id("table")).to_be_visible()
    online(page)


def my_turn_in(page: Page, phases: Iterable[str], timeout: float = 60.0) -> TableState:
    """Play on (passing, drawing, discarding) until it is this page's turn in one of
    ``phases``; the table then holds still until the page moves."""
    wanted = set(phases)
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        close_result(page)
        state = table_state(page)
        if state is not None and state.my_turn and not state.over:
            if state.phase in wanted:
                return state
            with contextlib.suppress(PlaywrightError):  # re-rendered under the click
                take_turn(page)
        page.wait_for_timeout(40)
    raise AssertionError(f"never this page's turn in {sorted(wanted)}")


def hand_key(page: Page) -> str:
    """The hand in play (a new hand starts a new layout)."""
    state = table_state(page)
    assert state is not None
    return f"{state.hand}"


def box(page: Page, card: str) -> FloatRect:
    found = page.get_by_test_id(f"card-{card}").bounding_box()
    assert found is not None, card
    return found


def drag_by_mouse(page: Page, card: str, onto: str, share: float) -> None:
    """Press ``card``, move to ``share`` of ``onto``'s width (on its visible part), release."""
    start, end = box(page, card), box(page, onto)
    page.mouse.move(start["x"] + start["width"] * 0.3, start["y"] + start["height"] * 0.5)
    page.mouse.down()
    target_x, target_y = end["x"] + end["width"] * share, end["y"] + end["height"] * 0.5
    for step in range(1, 9):
        page.mouse.move(
            start["x"] + (target_x - start["x"]) * step / 8,
            start["y"] + (target_y - start["y"]) * step / 8,
        )
    page.mouse.up()


def drag_by_touch(page: Page, card: str, onto: str, share: float) -> None:
    """A finger on ``card``, sliding to ``share`` of ``onto``'s width, lifted."""
    start, end = box(page, card), box(page, onto)
    x0, y0 = start["x"] + start["width"] * 0.3, start["y"] + start["height"] * 0.5
    x1, y1 = end["x"] + end["width"] * share, end["y"] + end["height"] * 0.5
    cdp = page.context.new_cdp_session(page)
    touch = "Input.dispatchTouchEvent"
    cdp.send(touch, {"type": "touchStart", "touchPoints": [{"x": x0, "y": y0}]})
    for step in range(1, 11):
        point = {"x": x0 + (x1 - x0) * step / 10, "y": y0 + (y1 - y0) * step / 10}
        cdp.send(touch, {"type": "touchMove", "touchPoints": [point]})
    cdp.send(touch, {"type": "touchEnd", "touchPoints": []})
    cdp.detach()


def moved(order: list[str], card: str, after: str) -> list[str]:
    rest = [other for other in order if other != card]
    at = rest.index(after) + 1
    return [*rest[:at], card, *rest[at:]]


def reload(page: Page) -> None:
    page.reload()
    expect(page.get_by_test_id("table")).to_be_visible()
    online(page)
    expect(page.get_by_test_id("my-hand").locator("button.card").first).to_be_visible()


def test_drag_to_reorder_by_mouse_and_by_touch_survives_a_reload(
    gin_server: ServerProcess, new_page: NewPage
) -> None:
    with bots_in_a_room(gin_server, guest=False, delay=0.05) as scene:
        page = new_page(has_touch=True)
        join(page, gin_server, scene.invite)
        for _attempt in range(5):  # a hand the bot ends early is played again in the next one
            state = my_turn_in(page, ("draw", "first_draw"))
            hand = hand_key(page)
            expect(page.get_by_test_id("sort-melds")).to_have_attribute("aria-pressed", "true")
            shown = hand_cards(page)
            assert len(shown) == 10

            # the mouse: the first card dropped on the right half of the last one
            drag_by_mouse(page, shown[0], shown[-1], 0.75)
            after_mouse = moved(shown, shown[0], shown[-1])
            expect(page.get_by_test_id("hand-cards")).to_have_attribute("data-sort", "custom")
            assert hand_cards(page) == after_mouse
            for sort in ("melds", "rank", "suit"):
                button = page.get_by_test_id(f"sort-{sort}")
                expect(button).to_have_attribute("aria-pressed", "false")
            reload(page)
            assert hand_cards(page) == after_mouse

            # a finger: the (new) first card onto the right half of the third one
            first, third = after_mouse[0], after_mouse[2]
            drag_by_touch(page, first, third, 0.6)
            after_touch = moved(after_mouse, first, third)
            expect(page.get_by_test_id("hand-cards")).to_have_attribute("data-sort", "custom")
            assert hand_cards(page) == after_touch
            reload(page)
            assert hand_cards(page) == after_touch
            assert table_state(page) == state  # nothing was played meanwhile

            # the stock dragged onto the hand draws: the drawn card at the end, marked
            page.drag_and_drop("[data-testid=stock]", "[data-testid=my-hand]")
            expect(page.get_by_test_id("table")).to_have_attribute("data-phase", "discard")
            now = hand_cards(page)
            assert now[:10] == after_touch and len(now) == 11
            drawn = now[10]
            expect(page.get_by_test_id(f"card-{drawn}")).to_have_class(_has("new"))
            reload(page)
            assert hand_cards(page) == now
            expect(page.get_by_test_id(f"card-{drawn}")).to_have_class(_has("new"))
            expect(page.locator("[data-testid=my-hand] button.card.new")).to_have_count(1)

            # a card dragged onto the discard pile discards it; the mark goes with the turn
            live = page.eval_on_selector_all(
                "[data-testid=my-hand] button.card.live", "els => els.map(e => e.dataset.card)"
            )
            card = max(live, key=card_value)
            page.drag_and_drop(f"[data-testid=card-{card}]", "[data-testid=discard]")
            # on the pile, or already under the opponent's answer and named in the hand's moves
            on_the_pile = page.locator(f"[data-testid=discard][data-top='{card}']")
            in_the_moves = page.locator("[data-testid=history] li.mine .sr-only").filter(
                has_text=re.compile(rf"^You (discarded|knocked, discarding) {spoken(card)}$")
            )
            expect(on_the_pile.or_(in_the_moves).first).to_be_attached()
            if table_state(page) is not None and hand_key(page) == hand:
                assert hand_cards(page) == [c for c in now if c != card]
                expect(page.locator("[data-testid=my-hand] button.card.new")).to_have_count(0)
                return
        raise AssertionError("every hand ended before the page could reorder it")


def _has(name: str) -> re.Pattern[str]:
    return re.compile(rf"(^|\s){name}(\s|$)")


def rank_key(card: str) -> tuple[int, int]:
    return RANKS.index(card[0]), SUIT_ORDER.index(card[1])


def suit_key(card: str) -> tuple[int, int]:
    return SUIT_ORDER.index(card[1]), RANKS.index(card[0])


def test_sort_buttons_order_the_hand_and_melds_stay_the_default(
    gin_server: ServerProcess, new_page: NewPage
) -> None:
    with bots_in_a_room(gin_server, guest=False, delay=0.05) as scene:
        page = new_page()
        join(page, gin_server, scene.invite)
        my_turn_in(page, ("first_offer", "second_offer", "draw", "first_draw", "discard"))
        hand = page.get_by_test_id("hand-cards")
        expect(hand).to_have_attribute("data-sort", "melds")
        cards = hand_cards(page)

        page.get_by_test_id("sort-rank").click()
        expect(page.get_by_test_id("sort-rank")).to_have_attribute("aria-pressed", "true")
        expect(hand).to_have_attribute("data-sort", "rank")
        assert hand_cards(page) == sorted(cards, key=rank_key)
        assert page.locator("[data-testid=my-hand] .group").count() == 1

        page.get_by_test_id("sort-suit").click()
        expect(hand).to_have_attribute("data-sort", "suit")
        assert hand_cards(page) == sorted(cards, key=suit_key)
        reload(page)
        expect(page.get_by_test_id("sort-suit")).to_have_attribute("aria-pressed", "true")
        assert hand_cards(page) == sorted(cards, key=suit_key)

        # back to the server's melds: each meld a group of its own, the deadwood apart
        page.get_by_test_id("sort-melds").click()
        expect(hand).to_have_attribute("data-sort", "melds")
        groups = page.eval_on_selector_all(
            "[data-testid=my-hand] .group",
            "els => els.map(e => ({meld: e.classList.contains('group-meld'),"
            " cards: [...e.querySelectorAll('button.card')].map(c => c.dataset.card)}))",
        )
        assert sorted(card for group in groups for card in group["cards"]) == sorted(cards)
        assert sum(1 for group in groups if not group["meld"]) <= 1
        deadwood = [card for group in groups if not group["meld"] for card in group["cards"]]
        points = sum(card_value(card) for card in deadwood)
        expect(page.get_by_test_id("deadwood")).to_contain_text(str(points))

        # the keyboard: Alt + arrow moves the focused card, which keeps the focus
        shown = hand_cards(page)
        page.get_by_test_id(f"card-{shown[0]}").focus()
        page.keyboard.press("Alt+ArrowRight")
        page.keyboard.press("Alt+ArrowRight")
        expect(hand).to_have_attribute("data-sort", "custom")
        assert hand_cards(page) == [shown[1], shown[2], shown[0], *shown[3:]]
        focused = page.evaluate("document.activeElement.dataset.card")
        assert focused == shown[0]
        page.keyboard.press("Alt+ArrowLeft")
        assert hand_cards(page) == [shown[1], shown[0], *shown[2:]]

        # card sizes from the settings' attribute on <html>
        widths = {}
        for size in ("small", "medium", "large"):
            page.evaluate(f"document.documentElement.dataset.cardSize = '{size}'")
            widths[size] = box(page, shown[0])["width"]
        assert widths["small"] < widths["medium"] < widths["large"], widths


def test_the_hint_names_a_discard_that_leaves_the_least_deadwood(
    gin_server: ServerProcess, new_page: NewPage
) -> None:
    with bots_in_a_room(gin_server, guest=False, delay=0.05) as scene:
        page = new_page()
        join(page, gin_server, scene.invite)
        checked = 0
        while checked < 3:
            my_turn_in(page, ("discard",))
            # never offered on its own: only when the player asks
            expect(page.get_by_test_id("hint-note")).to_have_count(0)
            assert page.locator("[data-testid=my-hand] button.card.hinted").count() == 0
            page.get_by_test_id("hint").click()
            note = page.get_by_test_id("hint-note")
            expect(note).to_be_visible()
            hinted = note.get_attribute("data-card") or ""
            cards = hand_cards(page)
            assert len(cards) == 11 and hinted in cards
            # the card taken from the pile this turn may not be discarded
            allowed = page.eval_on_selector_all(
                "[data-testid=my-hand] button.card.live", "els => els.map(e => e.dataset.card)"
            )
            options = {d.card: d.deadwood_points for d in best_discards(cards) if d.card in allowed}
            least = min(options.values())
            assert options[hinted] == least, (cards, hinted, options)
            tied = [card for card, points in options.items() if points == least]
            assert card_value(hinted) == max(card_value(card) for card in tied), (hinted, tied)
            assert note.get_attribute("data-deadwood") == str(least)
            expect(page.get_by_test_id(f"card-{hinted}")).to_have_class(_has("hinted"))
            if checked == 0:
                shot(page, "hand-hint-desktop-en")
            # the setting turns it off: no button, no hint shown
            page.evaluate("document.documentElement.dataset.hints = 'off'")
            expect(page.get_by_test_id("hint")).to_be_hidden()
            expect(note).to_be_hidden()
            page.evaluate("delete document.documentElement.dataset.hints")
            expect(page.get_by_test_id("hint")).to_be_visible()
            # playing the hinted card: the next turn starts without a hint
            page.get_by_test_id(f"card-{hinted}").click()
            expect(page.get_by_test_id("hint-note")).to_have_count(0)
            checked += 1


FACES = """els => els.map(card => {
    const tl = card.querySelector('.index.tl'), br = card.querySelector('.index.br');
    const face = card.querySelector('.face');
    return {card: card.dataset.card || null,
            tl: tl ? tl.textContent : null, br: br ? br.textContent : null,
            color: face ? getComputedStyle(face).color : null};
})"""


def faces(page: Page) -> list[dict[str, str | None]]:
    found: list[dict[str, str | None]] = page.eval_on_selector_all(
        ".card:not(.back):not(.empty)", FACES
    )
    return found


def expected_index(card: str) -> str:
    rank = "10" if card[0] == "T" else card[0]
    return rank + {"C": "♣", "D": "♦", "H": "♥", "S": "♠"}[card[1]]


def colours_by_suit(page: Page) -> dict[str, set[str]]:
    by_suit: dict[str, set[str]] = {}
    for face in faces(page):
        if face["card"]:
            by_suit.setdefault(face["card"][1], set()).add(str(face["color"]))
    return by_suit


def test_every_face_has_corner_indices_and_the_four_colour_deck_tells_the_suits_apart(
    gin_server: ServerProcess, new_page: NewPage
) -> None:
    room, _ = finished_match(gin_server, target=1)
    page = new_page()
    page.goto(f"{gin_server.http_url}/replay/{room}-1")
    expect(page.get_by_test_id("replay")).to_be_visible()
    # the deal: both hands, the upcard and the stock (folded out) show all 52 cards
    expect(page.get_by_test_id("replay")).to_have_attribute("data-step", "0")
    page.locator("details.stock-cards summary").first.click()
    seen = faces(page)
    named = {face["card"] for face in seen if face["card"]}
    assert len(named) == 52, sorted(c for c in named if c)
    for face in seen:
        assert face["card"] is not None
        assert face["tl"] == expected_index(face["card"]) == face["br"], face

    two = colours_by_suit(page)
    assert all(len(colours) == 1 for colours in two.values()), two
    assert two["C"] == two["S"] and two["D"] == two["H"] and two["C"] != two["H"]
    page.evaluate("document.documentElement.dataset.deck = 'four'")
    four = colours_by_suit(page)
    assert all(len(colours) == 1 for colours in four.values()), four
    assert len({next(iter(colours)) for colours in four.values()}) == 4, four
    assert four["H"] == two["H"] and four["S"] == two["S"]
    shot(page, "cards-replay-four-colour")


READABLE = """els => els.map(card => {
    const index = card.querySelector('.index.tl').getBoundingClientRect();
    const x = index.left + index.width / 2, y = index.top + index.height / 2;
    const hit = document.elementFromPoint(x, y);
    return {card: card.dataset.card, own: !!hit && hit.closest('button.card') === card,
            inside: index.right <= window.innerWidth && index.left >= 0};
})"""


def test_hand_screenshots_desktop_and_phone_and_the_index_shows_when_overlapped(
    gin_server: ServerProcess, new_page: NewPage
) -> None:
    sizes = {"desktop": (1280, 800), "phone": (390, 844)}
    for lang, locale in (("en", "en-US"), ("ar", "ar-EG")):
        for size, (width, height) in sizes.items():
            with bots_in_a_room(gin_server, guest=False, delay=0.05) as scene:
                phone = size == "phone"
                page = new_page(
                    locale=locale, width=width, height=height, has_touch=phone, is_mobile=phone
                )
                join(page, gin_server, scene.invite)
                my_turn_in(page, ("discard",))
                cards = page.locator("[data-testid=my-hand] button.card")
                expect(cards).to_have_count(11)
                readable = page.eval_on_selector_all("[data-testid=my-hand] button.card", READABLE)
                assert all(card["own"] and card["inside"] for card in readable), readable
                if phone:
                    width_used = page.evaluate("document.documentElement.scrollWidth")
                    assert width_used <= width, f"the page scrolls sideways: {width_used} px"
                shot(page, f"hand-{size}-{lang}")
                if size == "desktop":
                    page.get_by_test_id("sort-suit").click()
                    page.evaluate("document.documentElement.dataset.deck = 'four'")
                    shot(page, f"hand-{size}-{lang}-suit-four-colour")
