"""Issue #17, table-layout: the table that uses the screen, the hand result and the match end
as overlays over the table, the movements (and none under reduced motion), and the screenshot
suite: the table on desktop (1280x800) and phone (390x844), in English and Arabic, mid-hand, at
a knock's reveal and at the match end, under ``build/screenshots/table-*.png``.

The opponents are scripted websocket players (``tests.browser.scenes``); the page plays by
clicking, as a person would.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import Any, Literal

import pytest
from playwright.sync_api import Browser, Page, ViewportSize, expect
from playwright.sync_api import Error as PlaywrightError

from protocol import messages as m
from tests.browser.conftest import NewPage
from tests.browser.helpers import (
    SCREENSHOTS,
    ConsoleWatch,
    play_hand,
    table_state,
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
    page.goto(f"{server.http_url}/join/{invite}")
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


def my_draw_or_discard(page: Page, phase: str, limit: int = 400) -> None:
    """Play on (passing the upcard) until this page has a draw (``phase="draw"``) or a
    discard to make; the opponents play theirs."""
    for _ in range(limit):
        state = table_state(page)
        if state is not None and state.my_turn and state.phase == phase:
            return
        if state is not None and state.my_turn and state.phase != phase and not state.over:
            with contextlib.suppress(PlaywrightError):  # re-rendered under the click: again
                if take_turn(page):
                    wait_for_change(page, state)
            continue
        page.wait_for_timeout(30)
    raise AssertionError(f"the page never had a {phase} to make")


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
    const tick = () => {
        for (const animation of document.getAnimations()) {
            const name = animation.id || animation.animationName || animation.transitionProperty
                || 'unnamed';
            if (!window.__animations.includes(name)) window.__animations.push(name);
        }
        requestAnimationFrame(tick);
    };
    tick();
}"""

#: From now on, every card seen on top of the discard pile while a movement runs (looked at
#: each frame), in ``window.__topsWhileMoving``.
RECORD_DISCARD_WHILE_MOVING = """() => {
    window.__topsWhileMoving = [];
    const tick = () => {
        const moving = document.getAnimations().some(
            (a) => a.id.startsWith('motion-') && a.playState === 'running');
        const top = document.querySelector('[data-testid=discard]')?.dataset.top;
        if (moving && top && !window.__topsWhileMoving.includes(top)) {
            window.__topsWhileMoving.push(top);
        }
        requestAnimationFrame(tick);
    };
    tick();
}"""


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
