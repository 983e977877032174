"""Issue #17, table-layout: the table that uses the screen, the hand result and the match end
as overlays over the table, the movements (and none under reduced motion), and the screenshot
suite: the table on desktop (1280x800) and phone (390x844), in English and Arabic, mid-hand, at
a knock's reveal and at the match end, under ``build/screenshots/table-*.png``.

The opponents are scripted websocket players (``tests.browser.scenes``); the page plays by
clicking, as a person would.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Iterator
from typing import Any, Literal

import pytest
from playwright.sync_api import Browser, Page, ViewportSize, expect
from playwright.sync_api import Error as PlaywrightError

from protocol import messages as m
from tests.browser.conftest import NewPage
from tests.browser.helpers import (
    ON_ANIMATE,
    SCREENSHOTS,
    ConsoleWatch,
    close_result,
    play_hand,
    shot,
    table_state,
    take_invite,
    take_turn,
    wait_for_change,
)
from tests.browser.scenes import bots_in_a_room, online
from tests.support.server_process import ServerProcess

DESKTOP: ViewportSize = {"width": 1280, "height": 800}
PHONE: ViewportSize = {"width": 390, "height": 844}
FULL_HD: ViewportSize = {"width": 1920, "height": 1080}
SystemMotion = Literal["reduce", "no-preference"]
LANGS = ("en", "ar")

BOX = """selector => {
    const r = document.querySelector(selector).getBoundingClientRect();
    return [r.x, r.y, r.width, r.height];
}"""


def join(page: Page, server: ServerProcess, invite: str) -> None:
    take_invite(page, f"{server.http_url}/join/{invite}")
    expect(page.get_by_test_id("table")).to_be_visible()
    online(page)


PAGE_BOX = """selector => {
    const r = document.querySelector(selector).getBoundingClientRect();
    return [r.x + scrollX, r.y + scrollY, r.width, r.height];
}"""


def box(page: Page, selector: str) -> list[float]:
    """The element's box in the viewport, read in one go (a re-render may replace it)."""
    found: list[float] = page.evaluate(BOX, selector)
    return found


def my_draw_or_discard(page: Page, phase: str, timeout: float = 60.0) -> None:
    """Play on (passing the upcard) until this page has a draw (``phase="draw"``) or a
    discard to make; the opponents play theirs. A hand that ends first (an opponent knocked)
    is closed and play goes on in the next one."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if close_result(page):
            continue
        state = table_state(page)
        if state is not None and state.my_turn and state.phase == phase:
            return
        if state is not None and state.my_turn and state.phase != phase and not state.over:
            with contextlib.suppress(PlaywrightError):  # re-rendered under the click: again
                if take_turn(page):
                    wait_for_change(page, state)
            continue
        page.wait_for_timeout(30)
    raise AssertionError(f"the page never had a {phase} to make: {table_state(page)}")


def shots(page: Page, stage: str) -> None:
    """The page as a player sees it (the viewport, no scrolling) on desktop and phone, in
    English and Arabic: ``table-{desktop|phone}-{en|ar}-{stage}.png``."""
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    for lang in LANGS:
        page.locator("#lang").select_option(lang)
        expect(page.locator("html")).to_have_attribute("dir", "rtl" if lang == "ar" else "ltr")
        for device, size in (("desktop", DESKTOP), ("phone", PHONE)):
            page.set_viewport_size(size)
            page.wait_for_timeout(300)
            if stage != "midhand":
                # the dialog lies over the table (over the whole screen on a phone)
                over = box(page, "[data-testid=overlay]")
                under = box(page, "[data-testid=table]")
                screen = [0, 0, size["width"], size["height"]]
                assert over == (under if device == "desktop" else screen), (device, over, under)
            page.screenshot(path=str(SCREENSHOTS / f"table-{device}-{lang}-{stage}.png"))
    page.locator("#lang").select_option("en")
    page.set_viewport_size(DESKTOP)


def test_screenshots_of_the_table_mid_hand_at_the_reveal_and_at_the_match_end(
    gin_server: ServerProcess, new_page: NewPage
) -> None:
    page = new_page(width=DESKTOP["width"], height=DESKTOP["height"])
    with bots_in_a_room(gin_server, guest=False, rules=m.Rules(target=500)) as scene:
        join(page, gin_server, scene.invite)
        # mid-hand: a few moves made, the discard pile grown, this page to discard
        for _ in range(3):
            my_draw_or_discard(page, "discard")
            before = table_state(page)
            take_turn(page)
            wait_for_change(page, before)
        my_draw_or_discard(page, "discard")
        page.wait_for_timeout(200)
        shots(page, "midhand")
        # a knock's reveal: play to the end of a hand that was knocked (or won by gin)
        while True:
            play_hand([page])
            result = page.get_by_test_id("hand-result")
            if result.get_attribute("data-kind") != "dead":
                break
            page.get_by_test_id("next-hand").click()
            expect(result).to_have_count(0)
        page.wait_for_timeout(200)
        shots(page, "knock")

    # the match end: a match to 1 point ends with its first hand won
    with bots_in_a_room(gin_server, guest=False, rules=m.Rules(target=1)) as scene:
        join(page, gin_server, scene.invite)
        over = page.get_by_test_id("match-over")
        while not over.count():
            play_hand([page])
            if not over.count():
                page.get_by_test_id("next-hand").click()
        expect(over).to_be_visible()
        page.wait_for_timeout(200)
        shots(page, "matchend")


def test_the_table_uses_the_screen_with_the_moves_beside_it_on_desktop(
    gin_server: ServerProcess, new_page: NewPage
) -> None:
    with bots_in_a_room(gin_server, guest=False) as scene:
        page = new_page(width=DESKTOP["width"], height=DESKTOP["height"])
        join(page, gin_server, scene.invite)
        my_draw_or_discard(page, "draw")
        history = page.get_by_test_id("history")
        expect(history.locator("li")).not_to_have_count(0)
        expect(history.locator("li").first).to_be_visible()  # shown, not folded away
        for lang, size in (("en", DESKTOP), ("ar", DESKTOP), ("en", FULL_HD)):
            page.locator("#lang").select_option(lang)
            page.set_viewport_size(size)
            page.wait_for_timeout(100)
            table = box(page, "[data-testid=table]")
            side = box(page, "[data-testid=history]")
            x, y, width, height = table
            # beside the table (on its right, or on its left in Arabic), level with it
            if lang == "ar":
                assert side[0] + side[2] <= x, (table, side)
            else:
                assert side[0] >= x + width, (table, side)
            assert side[1] < y + height and side[1] + side[3] > y, (table, side)
            # the table fills the screen: most of its width, down to the bottom
            assert width >= 0.6 * size["width"], (table, size)
            assert y + height >= size["height"] - 24, (table, size)
            assert page.evaluate("document.documentElement.scrollHeight") <= size["height"]
            assert page.evaluate("document.documentElement.scrollWidth") <= size["width"]
            if size == FULL_HD:
                page.screenshot(path=str(SCREENSHOTS / "table-fullhd-en-midhand.png"))

        # a phone: the moves below the table, folded as before
        page.locator("#lang").select_option("en")
        page.set_viewport_size(PHONE)
        page.wait_for_timeout(100)
        table = box(page, "[data-testid=table]")
        side = box(page, "[data-testid=history]")
        assert side[1] >= table[1] + table[3], (table, side)
        assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
        expect(page.locator("details[data-testid=history]")).to_have_count(1)


RECORD_TABLE_BOX = """() => {
    window.__tableBox = null;
    const tick = () => {
        const table = document.querySelector('[data-testid=table]');
        if (table && !document.querySelector('[data-testid=hand-result]')) {
            const r = table.getBoundingClientRect();
            window.__tableBox = [r.x + scrollX, r.y + scrollY, r.width, r.height];
        }
        requestAnimationFrame(tick);
    };
    tick();
}"""

OVERLAY_ON_TOP = """() => {
    const panel = document.querySelector('[data-testid=hand-result]').getBoundingClientRect();
    const table = document.querySelector('[data-testid=table]').getBoundingClientRect();
    const hit = document.elementFromPoint(panel.x + panel.width / 2, panel.y + 20);
    const overlaps = panel.x < table.right && panel.right > table.x
        && panel.y < table.bottom && panel.bottom > table.y;
    return {top: !!hit && !!hit.closest('[data-testid=overlay]'), overlaps,
            focus: !!document.activeElement.closest('[data-testid=overlay]')};
}"""


def test_the_hand_result_is_a_dialog_over_the_table_which_stays_in_place(
    gin_server: ServerProcess, new_page: NewPage
) -> None:
    with bots_in_a_room(gin_server, guest=False, deal_next=True) as scene:
        page = new_page(width=DESKTOP["width"], height=DESKTOP["height"])
        join(page, gin_server, scene.invite)
        page.evaluate(RECORD_TABLE_BOX)
        play_hand([page])
        result = page.get_by_test_id("hand-result")
        expect(result).to_be_visible()
        before = page.evaluate("window.__tableBox")
        after = page.evaluate(PAGE_BOX, "[data-testid=table]")
        assert after[2] > 0 and before == after, (before, after)
        layered = page.evaluate(OVERLAY_ON_TOP)
        assert layered == {"top": True, "overlaps": True, "focus": True}, layered
        table = page.get_by_test_id("table")
        expect(table).to_be_visible()
        expect(table).to_have_attribute("inert", "")
        # the scripted player dealt on at once: the result may be closed, with Escape
        expect(page.get_by_test_id("continue")).to_be_focused()
        page.keyboard.press("Escape")
        expect(result).to_have_count(0)
        expect(page.get_by_test_id("overlay")).to_have_count(0)
        expect(table).not_to_have_attribute("inert", "")
        assert box(page, "[data-testid=table]")[2:] == after[2:]


# --- movements ---------------------------------------------------------------------------------

RECORD_ANIMATIONS = """() => {
    window.__animations = [];
    const note = (animation) => {
        const name = animation.id || animation.animationName || animation.transitionProperty
            || 'unnamed';
        if (!window.__animations.includes(name)) window.__animations.push(name);
    };
    ON_ANIMATE(note);  // the page's own motions as they are made, the style sheet's each frame
    const tick = () => {
        document.getAnimations().forEach(note);
        requestAnimationFrame(tick);
    };
    tick();
}""".replace("ON_ANIMATE", ON_ANIMATE)

#: From now on, every card seen on top of the discard pile while a movement runs (looked at
#: as each movement is made, and in each frame), in ``window.__topsWhileMoving``.
RECORD_DISCARD_WHILE_MOVING = """() => {
    window.__topsWhileMoving = [];
    const look = () => {
        const top = document.querySelector('[data-testid=discard]')?.dataset.top;
        if (top && !window.__topsWhileMoving.includes(top)) window.__topsWhileMoving.push(top);
    };
    ON_ANIMATE((animation) => { if (animation.id.startsWith('motion-')) look(); });
    const tick = () => {
        if (document.getAnimations().some(
                (a) => a.id.startsWith('motion-') && a.playState === 'running')) look();
        requestAnimationFrame(tick);
    };
    tick();
}""".replace("ON_ANIMATE", ON_ANIMATE)


@pytest.fixture
def motion_page(browser: Browser, console: ConsoleWatch) -> Iterator[Any]:
    """``motion_page(system="reduce"|"no-preference", setting=None|"reduced"|"full")``: a page
    whose system asks for reduced motion or not, and whose ``<html data-motion>`` (the page
    settings' attribute) is set to ``setting`` before the app starts."""
    contexts = []

    def make(system: SystemMotion, setting: str | None = None) -> Page:
        context = browser.new_context(locale="en-US", viewport=DESKTOP, reduced_motion=system)
        context.set_default_timeout(15_000)
        contexts.append(context)
        if setting is not None:
            context.add_init_script(
                f"document.addEventListener('DOMContentLoaded', () => "
                f"{{ document.documentElement.dataset.motion = '{setting}'; }});"
            )
        return console.watch(context.new_page())

    yield make
    for context in contexts:
        context.close()


def draw_and_discard(page: Page) -> str:
    """This page draws from the stock and discards; returns the card discarded."""
    my_draw_or_discard(page, "draw")
    state = table_state(page)
    page.get_by_test_id("stock").click()
    wait_for_change(page, state)
    my_draw_or_discard(page, "discard")
    card = page.eval_on_selector(
        "[data-testid=my-hand] .group-deadwood button.card.live, "
        "[data-testid=my-hand] button.card.live",
        "e => e.dataset.card",
    )
    page.get_by_test_id(f"card-{card}").click()
    return str(card)


@pytest.mark.parametrize(
    ("system", "setting"),
    [("reduce", None), ("no-preference", "reduced")],
    ids=["system", "setting"],
)
def test_reduced_motion_runs_no_animation(
    gin_server: ServerProcess, motion_page: Any, system: SystemMotion, setting: str | None
) -> None:
    with bots_in_a_room(gin_server, guest=False) as scene:
        page = motion_page(system, setting)
        join(page, gin_server, scene.invite)
        if setting:
            expect(page.locator("html")).to_have_attribute("data-motion", setting)
        page.evaluate(RECORD_ANIMATIONS)
        card = draw_and_discard(page)
        expect(page.get_by_test_id("history")).to_contain_text("You discarded")
        # the opponent's draw and discard, and this page's turn again
        my_draw_or_discard(page, "draw")
        assert page.get_by_test_id("discard").get_attribute("data-top") != card
        page.wait_for_timeout(100)
        assert page.evaluate("window.__animations") == []


def test_moves_deal_and_reveal_are_animated_without_waiting_for_them(
    gin_server: ServerProcess, motion_page: Any
) -> None:
    with bots_in_a_room(gin_server, guest=False, delay=0.15) as scene:
        page = motion_page("no-preference")
        join(page, gin_server, scene.invite)
        page.evaluate(RECORD_ANIMATIONS)
        my_draw_or_discard(page, "draw")
        state = table_state(page)
        page.get_by_test_id("stock").click()
        wait_for_change(page, state)
        my_draw_or_discard(page, "discard")
        card = page.eval_on_selector(
            "[data-testid=my-hand] button.card.live", "e => e.dataset.card"
        )
        page.evaluate(RECORD_DISCARD_WHILE_MOVING)
        page.get_by_test_id(f"card-{card}").click()
        # while the card travels, the page is already in its new state: the card on the pile
        # (seen in some frame of its flight, before the opponent's discard may cover it)
        page.wait_for_function(f"() => window.__topsWhileMoving.includes({card!r})")
        my_draw_or_discard(page, "draw")  # the opponent drew and discarded meanwhile
        animations = set(page.evaluate("window.__animations"))
        assert {"motion-draw", "motion-move", "motion-discard"} <= animations, animations

        # the reveal at the hand's end, then the next hand's deal
        play_hand([page])
        page.get_by_test_id("next-hand").click()
        expect(page.get_by_test_id("hand-result")).to_have_count(0)
        expect(page.get_by_test_id("table")).to_have_attribute("data-hand", "2")
        page.wait_for_function("() => window.__animations.includes('motion-deal')", polling="raf")
        # the deal caught in flight, for the eye (build/screenshots/table-desktop-en-deal.png)
        page.evaluate(
            "() => document.getAnimations().forEach(a => { a.pause(); a.currentTime = 180; })"
        )
        page.screenshot(path=str(SCREENSHOTS / "table-desktop-en-deal.png"))
        animations = set(page.evaluate("window.__animations"))
        assert {"motion-reveal", "motion-knock", "motion-deal"} <= animations, animations


#: Where, left to right, the opponent's name and the card of their latest discard are drawn
#: in the moves' text.
NAME_AND_CARD_X = """(name) => {
    for (const item of document.querySelectorAll("[data-testid=history] li.theirs")) {
        const span = item.querySelector("span[aria-hidden=true]");
        const text = span.firstChild;
        const at = text.data.indexOf(name);
        const card = text.data.search(/(10|[2-9AJQK])[♣♦♥♠]/);
        if (at < 0 || card < 0) continue;
        const x = (start, length) => {
            const range = document.createRange();
            range.setStart(text, start);
            range.setEnd(text, start + length);
            return range.getBoundingClientRect().x;
        };
        return { text: text.data, name: x(at, name.length), card: x(card, 1) };
    }
    return null;
}"""


def test_a_move_reads_in_the_page_direction_with_its_name_and_card_in_place(
    gin_server: ServerProcess, new_page: NewPage
) -> None:
    with bots_in_a_room(gin_server, guest=False, rules=m.Rules(target=500)) as scene:
        page = new_page(width=DESKTOP["width"], height=DESKTOP["height"])
        join(page, gin_server, scene.invite)
        found = None
        for _ in range(20):
            my_draw_or_discard(page, "draw")
            found = page.evaluate(NAME_AND_CARD_X, "Ada")
            if found:
                break
            before = table_state(page)
            take_turn(page)
            wait_for_change(page, before)
        assert found, "Ada never discarded"
        # "Ada discarded 7♥": the name first, on the left
        assert found["name"] < found["card"], found
        page.locator("#lang").select_option("ar")
        expect(page.locator("html")).to_have_attribute("dir", "rtl")
        # "Ada رمى 7♥" read right to left: the name first, on the right
        found = page.evaluate(NAME_AND_CARD_X, "Ada")
        assert found and found["name"] > found["card"], found


# --- the table's rough edges: tablets, the phone's hand, the score sheet, a watcher --------------

TABLET_LANDSCAPE: ViewportSize = {"width": 1024, "height": 768}
TABLET_PORTRAIT: ViewportSize = {"width": 768, "height": 1024}
#: A 7-inch tablet held sideways (Nexus 7, many Android tablets): under the desktop's 1000 px.
SMALL_TABLET_LANDSCAPE: ViewportSize = {"width": 960, "height": 600}
TABLETS = (
    ("landscape", TABLET_LANDSCAPE),
    ("portrait", TABLET_PORTRAIT),
    ("landscape-960", SMALL_TABLET_LANDSCAPE),
)
#: The short wide screens, where the table's height is the tightest: the 7-inch tablet held
#: sideways, and a 1366 x 768 laptop's browser window.
SHORT_WIDE: tuple[tuple[str, ViewportSize], ...] = (
    ("landscape-960", SMALL_TABLET_LANDSCAPE),
    ("laptop-1366x625", {"width": 1366, "height": 625}),
)
#: Languages whose words make the table's lines the longest (Georgian's pile captions and
#: turn line are the widest), checked on the short wide screens as well.
OTHER_LANGS = ("ka", "ru", "tr")

#: The boxes (in the viewport) of the table, both piles and every card of my hand, and how far
#: the page is scrolled.
TABLE_PARTS = """() => {
    const rect = (e) => { const r = e.getBoundingClientRect();
        return [r.left, r.top, r.right, r.bottom]; };
    const parts = {table: rect(document.querySelector('[data-testid=table]')),
        stock: rect(document.querySelector('[data-testid=stock]')),
        discard: rect(document.querySelector('[data-testid=discard]'))};
    for (const card of document.querySelectorAll('[data-testid=my-hand] button.card')) {
        parts[card.dataset.card] = rect(card);
    }
    return {parts, scroll: [scrollX, scrollY]};
}"""


def outside_the_viewport(page: Page, size: ViewportSize) -> list[str]:
    """The parts of the table (the table, the piles, my cards) not wholly on the screen."""
    found = page.evaluate(TABLE_PARTS)
    assert found["scroll"] == [0, 0], found["scroll"]
    assert len(found["parts"]) == 3 + 11, found["parts"]  # the discard to make: 11 cards
    return [
        f"{name} {[round(v) for v in edges]}"
        for name, edges in found["parts"].items()
        if edges[0] < 0 or edges[1] < 0 or edges[2] > size["width"] or edges[3] > size["height"]
    ]


@pytest.mark.parametrize("lang", LANGS)
def test_a_tablet_shows_the_whole_table_and_hand_with_the_moves_in_reach(
    gin_server: ServerProcess, new_page: NewPage, lang: str
) -> None:
    with bots_in_a_room(gin_server, guest=False, rules=m.Rules(target=500)) as scene:
        page = new_page(
            locale="ar-EG" if lang == "ar" else "en-US",
            width=TABLET_LANDSCAPE["width"],
            height=TABLET_LANDSCAPE["height"],
            has_touch=True,
        )
        join(page, gin_server, scene.invite)
        expect(page.locator("html")).to_have_attribute("dir", "rtl" if lang == "ar" else "ltr")
        # the tallest turn: a discard to make with a Knock button beside the turn's line (with
        # it the table ran 20 px off a 960 x 600 screen in English, the hand off it in Georgian)
        my_discard_with_a_knock(page)
        for name, size in TABLETS + SHORT_WIDE[1:]:
            page.set_viewport_size(size)
            page.wait_for_timeout(200)
            page.evaluate("scrollTo(0, 0)")
            assert outside_the_viewport(page, size) == [], (name, size)
            assert page.evaluate("document.documentElement.scrollWidth") <= size["width"]
            table = box(page, "[data-testid=table]")
            side = box(page, "[data-testid=history]")
            if size["width"] > size["height"]:
                # the moves in a side panel beside the table (on its left in Arabic), shown
                expect(page.get_by_test_id("history").locator("li").first).to_be_visible()
                if lang == "ar":
                    assert side[0] + side[2] <= table[0], (name, table, side)
                else:
                    assert side[0] >= table[0] + table[2], (name, table, side)
            else:
                # the moves folded under the table, a tap away
                expect(page.locator("details[data-testid=history]")).to_have_count(1)
                assert side[1] >= table[1] + table[3], (name, table, side)
            page.screenshot(path=str(SCREENSHOTS / f"table-tablet-{name}-{lang}.png"))
        if lang == "en":
            for other in OTHER_LANGS:
                page.locator("#lang").select_option(other)
                expect(page.locator("html")).to_have_attribute("lang", other)
                for name, size in SHORT_WIDE:
                    page.set_viewport_size(size)
                    page.wait_for_timeout(200)
                    page.evaluate("scrollTo(0, 0)")
                    assert outside_the_viewport(page, size) == [], (other, name, size)
                    page.screenshot(path=str(SCREENSHOTS / f"table-tablet-{name}-{other}.png"))


def my_discard_with_a_knock(page: Page, timeout: float = 120.0) -> None:
    """Play on (discarding without knocking) until this page has a discard to make and may
    knock with it."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        my_draw_or_discard(page, "discard", timeout=deadline - time.monotonic())
        if page.get_by_test_id("knock").count():
            return
        state = table_state(page)
        with contextlib.suppress(PlaywrightError):  # re-rendered under the click: again
            if take_turn(page):  # no knock to make: a discard
                wait_for_change(page, state)
    raise AssertionError(f"no knock offered in {timeout} s: {table_state(page)}")


#: Each card of my hand: the strip of it left visible (to where the next card of its row
#: starts), and which card the page finds at the strip's middle.
CARD_STRIPS = """() => {
    const cards = [...document.querySelectorAll('[data-testid=my-hand] button.card')];
    return cards.map((card) => {
        const r = card.getBoundingClientRect();
        const next = card.nextElementSibling;
        const n = next && next.matches('button.card') ? next.getBoundingClientRect() : null;
        const sameRow = n && Math.abs(n.top - r.top) < r.height / 2;
        const right = sameRow ? Math.min(r.right, n.left) : r.right;
        const x = (r.left + right) / 2, y = r.top + r.height / 2;
        const hit = document.elementFromPoint(x, y)?.closest('button.card');
        return {card: card.dataset.card, strip: right - r.left, height: r.height,
                hit: hit ? hit.dataset.card : null, top: r.top, bottom: r.bottom};
    });
}"""


@pytest.mark.parametrize("sort", ["melds", "rank"])
def test_a_phone_hand_of_eleven_gives_each_card_a_strip_a_finger_can_press(
    gin_server: ServerProcess, new_page: NewPage, sort: str
) -> None:
    with bots_in_a_room(gin_server, guest=False, rules=m.Rules(target=500)) as scene:
        page = new_page(
            width=PHONE["width"], height=PHONE["height"], has_touch=True, is_mobile=True
        )
        join(page, gin_server, scene.invite)
        page.get_by_test_id(f"sort-{sort}").click()
        my_draw_or_discard(page, "discard")
        for lang in LANGS:
            page.locator("#lang").select_option(lang)
            page.wait_for_timeout(100)
            strips = page.evaluate(CARD_STRIPS)
            assert len(strips) == 11, strips
            for strip in strips:
                assert strip["hit"] == strip["card"], (lang, strip)
                assert strip["strip"] >= 32, (lang, strip)
            # the faces keep readable indices
            rank_px = page.evaluate(
                "parseFloat(getComputedStyle("
                "document.querySelector('[data-testid=my-hand] .index .rank')).fontSize)"
            )
            assert rank_px >= 12, rank_px
            assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
            # the piles and every card on the screen; the table's own box (the sort buttons
            # under the cards) may end below it when the groups take three rows
            off_screen = outside_the_viewport(page, PHONE)
            assert [part for part in off_screen if not part.startswith("table ")] == [], lang
            page.screenshot(path=str(SCREENSHOTS / f"table-phone-hand-{sort}-{lang}.png"))


#: The score sheet's scroll box: how wide its content is and how wide it shows it, and the
#: widest cell's text (what pushes it).
SHEET_WIDTHS = """() => {
    const sheet = document.querySelector('[data-testid=score-sheet]');
    const cells = [...sheet.querySelectorAll('th, td')];
    const widest = cells.reduce((a, b) => (b.scrollWidth > a.scrollWidth ? b : a));
    return {scroll: sheet.scrollWidth, client: sheet.clientWidth,
            rows: sheet.querySelectorAll('tbody tr').length, widest: widest.textContent};
}"""


def test_the_score_sheet_fits_its_panel_on_desktop_and_small_laptops(
    gin_server: ServerProcess, new_page: NewPage
) -> None:
    rules = m.Rules(target=500)
    with bots_in_a_room(gin_server, guest=False, deal_next=True, rules=rules) as scene:
        page = new_page(width=DESKTOP["width"], height=DESKTOP["height"])
        join(page, gin_server, scene.invite)
        for _ in range(3):
            play_hand([page])
            page.get_by_test_id("next-hand").or_(page.get_by_test_id("continue")).first.click()
            expect(page.get_by_test_id("hand-result")).to_have_count(0)
        sheet = page.get_by_test_id("score-sheet")
        expect(sheet.locator("tbody tr")).to_have_count(3)
        for lang in LANGS:
            page.locator("#lang").select_option(lang)
            for size in (DESKTOP, TABLET_LANDSCAPE):
                page.set_viewport_size(size)
                page.wait_for_timeout(150)
                widths = page.evaluate(SHEET_WIDTHS)
                assert widths["scroll"] <= widths["client"], (lang, size, widths)
            sheet.scroll_into_view_if_needed()
            page.set_viewport_size(DESKTOP)
            page.wait_for_timeout(150)
            shot(page, f"score-sheet-desktop-{lang}")
