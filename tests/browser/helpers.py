"""Driving the web client like a person: read the table from the page, click piles and cards."""

from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from playwright.sync_api import expect

if TYPE_CHECKING:
    from playwright.sync_api import ConsoleMessage, Page

ROOT = Path(__file__).resolve().parents[2]
SCREENSHOTS = ROOT / "build" / "screenshots"
CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
VALUES = {"A": 1, "T": 10, "J": 10, "Q": 10, "K": 10}


def card_value(card: str) -> int:
    return VALUES.get(card[0]) or int(card[0])


_RANK_WORDS = {
    "A": "ace", "2": "two", "3": "three", "4": "four", "5": "five", "6": "six", "7": "seven",
    "8": "eight", "9": "nine", "T": "ten", "J": "jack", "Q": "queen", "K": "king",
}  # fmt: skip
_SUIT_WORDS = {"C": "clubs", "D": "diamonds", "H": "hearts", "S": "spades"}


def spoken(card: str) -> str:
    """The card as the English page names it to a screen reader: ``KC`` -> "king of clubs"."""
    return f"{_RANK_WORDS[card[0]]} of {_SUIT_WORDS[card[1]]}"


class ConsoleWatch:
    """Every console error and uncaught page error of the pages it watches."""

    def __init__(self) -> None:
        self.errors: list[str] = []
        self.refused: list[str] = []
        self._cut_off: set[int] = set()

    def watch(self, page: Page) -> Page:
        page.on("console", lambda message: self._console(page, message))
        page.on("pageerror", lambda error: self.errors.append(f"page error: {error}"))
        return page

    def cut_off(self, page: Page) -> None:
        """The page's account is about to be signed out from elsewhere: until the server's
        notice reaches it, a request it makes with its old token is refused (401), which the
        browser logs as an error. Those refusals of the page's own API requests are counted in
        ``refused``, not taken as errors; any other error still is one."""
        self._cut_off.add(id(page))

    def _console(self, page: Page, message: ConsoleMessage) -> None:
        if message.type != "error":
            return
        text = f"console error: {message.text} ({message.location})"
        refused = "status of 401 (Unauthorized)" in message.text and "/api/" in str(
            message.location.get("url", "")
        )
        (self.refused if refused and id(page) in self._cut_off else self.errors).append(text)


@dataclass
class TableState:
    phase: str
    turn: int | None
    seat: int | None
    hand: int

    @property
    def my_turn(self) -> bool:
        return self.turn is not None and self.turn == self.seat

    @property
    def over(self) -> bool:
        return self.phase in ("hand_over", "match_over")


def table_state(page: Page) -> TableState | None:
    data = page.evaluate(
        """() => {
            const table = document.querySelector('[data-testid=table]');
            if (!table) return null;
            return {phase: table.dataset.phase, turn: table.dataset.turn,
                    seat: table.dataset.seat, hand: table.dataset.hand};
        }"""
    )
    if not data:
        return None
    return TableState(
        phase=data["phase"],
        turn=int(data["turn"]) if data["turn"] else None,
        seat=int(data["seat"]) if data["seat"] else None,
        hand=int(data["hand"]),
    )


def hand_cards(page: Page) -> list[str]:
    cards: list[str] = page.eval_on_selector_all(
        "[data-testid=my-hand] button.card", "els => els.map(e => e.dataset.card)"
    )
    return cards


def take_turn(page: Page, *, use_drag: bool = False, take_upcard: bool = False) -> str | None:
    """Make one move if it is this page's turn; returns what it did (None: nothing to do)."""
    state = table_state(page)
    if state is None or not state.my_turn or state.over:
        return None
    if page.locator("[data-testid=pass]").count():
        if take_upcard and page.locator("[data-testid=take-upcard]").count():
            page.click("[data-testid=take-upcard]")
            return "take_upcard"
        page.click("[data-testid=pass]")
        return "pass"
    if state.phase in ("draw", "first_draw"):
        if use_drag:
            page.drag_and_drop("[data-testid=stock]", "[data-testid=my-hand]")
            return "drag_stock"
        page.click("[data-testid=stock]")
        return "draw_stock"
    if state.phase == "discard":
        knock = page.locator("[data-testid=gin], [data-testid=knock]")
        if knock.count():
            knock.first.click()
            page.locator("[data-testid=my-hand] button.card.live").first.click()
            page.click("[data-testid=confirm-knock]")  # what it lays down was shown first
            return "knock"
        live: list[str] = page.eval_on_selector_all(
            "[data-testid=my-hand] .group-deadwood button.card.live",
            "els => els.map(e => e.dataset.card)",
        )
        if not live:
            live = page.eval_on_selector_all(
                "[data-testid=my-hand] button.card.live", "els => els.map(e => e.dataset.card)"
            )
        if not live:  # the hand not drawn for this turn yet (seen under load): a later look
            return None
        card = max(live, key=card_value)
        if use_drag:
            page.drag_and_drop(f"[data-testid=card-{card}]", "[data-testid=discard]")
            return f"drag_discard {card}"
        page.click(f"[data-testid=card-{card}]")
        return f"discard {card}"
    return None


def close_result(page: Page) -> bool:
    """Close a hand result if one shows (deal the next hand, or continue) and wait until it
    has gone; True if one showed (False at the match's end, which has no such button).

    Without the wait, a caller's next look could still find the result, shown until the
    server's answer to the click arrives, and click again: that second click then waited for
    a button the answer took away (15 s, seen in CI)."""
    button = page.get_by_test_id("next-hand").or_(page.get_by_test_id("continue"))
    if not page.get_by_test_id("hand-result").count() or not button.count():
        return False
    button.first.click()
    expect(page.get_by_test_id("hand-result")).to_have_count(0)
    return True


def changed(page: Page, before: TableState | None, timeout: float) -> bool:
    """Whether the table changes from ``before`` within ``timeout`` seconds."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if table_state(page) != before:
            return True
        page.wait_for_timeout(30)
    return False


def wait_for_change(page: Page, before: TableState | None, timeout: float = 10.0) -> None:
    if not changed(page, before, timeout):
        raise AssertionError(f"the table did not change from {before}")


def move_and_wait(page: Page, before: TableState | None, **options: bool) -> str | None:
    """``take_turn``, then wait until the table changes: the move must count, including the
    first move of an AI match, which often crosses the worker taking its seat."""
    did = take_turn(page, **options)
    if did is not None:
        wait_for_change(page, before)
    return did


def play_hand(pages: list[Page], *, timeout: float = 90.0, use_drag_once: bool = False) -> int:
    """Play with every page until a hand result shows on the first page; returns the moves made."""
    deadline = time.monotonic() + timeout
    moves = 0
    dragged = not use_drag_once
    while time.monotonic() < deadline:
        if pages[0].locator("[data-testid=hand-result]").count():
            return moves
        acted = False
        for page in pages:
            before = table_state(page)
            try:
                did = move_and_wait(page, before, use_drag=not dragged)
            except Exception as error:
                if not type(error).__module__.startswith("playwright"):
                    raise
                continue  # the page re-rendered under the click: look again
            if did:
                acted = True
                moves += 1
                dragged = dragged or did.startswith("drag")
        if not acted:
            pages[0].wait_for_timeout(40)
    raise AssertionError(f"no hand result after {timeout} s and {moves} moves")


#: ``ON_ANIMATE(see)`` in a page's script: ``see(animation)`` for each animation the page makes
#: with ``Element.animate`` from now on, as it is made (a busy machine may draw no frame of a
#: short one, so sampling frames can miss it).
ON_ANIMATE = """((see) => {
    const animate = Element.prototype.animate;
    Element.prototype.animate = function (...args) {
        const animation = animate.apply(this, args);
        see(animation);
        return animation;
    };
})"""


def shot(page: Page, name: str) -> Path:
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    path = SCREENSHOTS / f"{name}.png"
    page.screenshot(path=str(path), full_page=True)
    return path


def take_invite(page: Page, url: str) -> None:
    """Open an invite link and take its seat: the page greets first, with who invites and to
    what (views/invite.ts), and the seat is taken with its button."""
    page.goto(url)
    page.get_by_test_id("invite-accept").click()
