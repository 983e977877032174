"""Quick messages in real headless Chromium: Alice (English) sends "Good luck", Bob (Russian)
sees it beside Alice's seat in Russian and hears it from the live region; a third browser
watching by the watch link never receives nor shows anything said; Bob mutes, and the next
message is not shown (also after a reload) until he unmutes. Screenshots under
build/screenshots/: quick-talk-menu-en.png (Alice's open menu), quick-talk-bubble-ru.png
(Bob's table with Alice's bubble)."""

from __future__ import annotations

import re
from typing import Any

import msgpack
from playwright.sync_api import Page, WebSocket, expect

from tests.browser.conftest import NewPage
from tests.browser.helpers import (
    move_and_wait,
    play_hand,
    shot,
    table_state,
    take_invite,
    wait_for_change,
)
from tests.support.fixtures import FAST_CLIENT_ENV, ServerFactory

TALK_ENV = {**FAST_CLIENT_ENV, "GIN_TALK_BURST": "10"}


def online(page: Page) -> None:
    expect(page.get_by_test_id("connection")).to_have_attribute("data-status", "online")


def record_frames(page: Page) -> list[dict[str, Any]]:
    """Every frame the page's websockets receive from now on, decoded."""
    frames: list[dict[str, Any]] = []

    def on_socket(socket: WebSocket) -> None:
        def received(payload: str | bytes) -> None:
            if isinstance(payload, bytes):
                frames.append(msgpack.unpackb(payload, raw=False))

        socket.on("framereceived", received)

    page.on("websocket", on_socket)
    return frames


def said(frames: list[dict[str, Any]]) -> list[str]:
    return [frame["phrase"] for frame in frames if frame.get("t") == "said"]


def say(page: Page, phrase: str) -> None:
    page.get_by_test_id("talk-toggle").click()
    page.get_by_test_id(f"talk-{phrase}").click()
    expect(page.get_by_test_id("talk-menu")).to_have_count(0)


def barrier(players: list[Page], followers: list[Page]) -> None:
    """Whoever is to play moves, and every follower's table shows the move: whatever was said
    before it has reached (and been handled by) every follower's page, on the same socket."""
    before = {id(page): table_state(page) for page in followers}
    for page in players:
        if move_and_wait(page, table_state(page)):
            break
    else:
        raise AssertionError("nobody could move")
    for page in followers:
        wait_for_change(page, before[id(page)])


def test_a_quick_message_reaches_the_other_seat_in_its_language_never_a_watcher_and_obeys_mute(
    server_factory: ServerFactory, new_page: NewPage
) -> None:
    server = server_factory(env=TALK_ENV)
    alice = new_page()
    alice.goto(server.http_url + "/")
    online(alice)
    alice.get_by_test_id("create-private").click()
    link = alice.get_by_test_id("invite-link")
    expect(link).to_have_value(re.compile(r"/join/[A-Za-z0-9_-]+$"))
    bob = new_page(locale="ru-RU")
    bob_frames = record_frames(bob)
    take_invite(bob, link.input_value())
    expect(bob.get_by_test_id("table")).to_be_visible()
    expect(alice.get_by_test_id("table")).to_be_visible()
    watch = alice.get_by_test_id("watch-link").get_attribute("data-link") or ""
    sam = new_page()
    sam_frames = record_frames(sam)
    sam.goto(watch)
    expect(sam.get_by_test_id("table")).to_have_attribute("data-seat", "")
    expect(sam.get_by_test_id("talk-toggle")).to_have_count(0)  # a watcher has nobody to talk to

    # Alice opens the menu: every phrase and emote, in English
    alice.get_by_test_id("talk-toggle").click()
    menu = alice.get_by_test_id("talk-menu")
    expect(menu.get_by_test_id("talk-good_luck")).to_have_text("Good luck!")
    expect(menu.get_by_test_id("talk-heart")).to_have_attribute("aria-label", "Heart")
    expect(menu.locator("button.talk-phrase")).to_have_count(8)
    expect(menu.locator("button.talk-emote svg")).to_have_count(5)
    shot(alice, "quick-talk-menu-en")
    menu.get_by_test_id("talk-good_luck").click()
    expect(alice.get_by_test_id("talk-bubble-0")).to_have_text("Good luck!")  # her own, sent

    # Bob sees it beside Alice's seat, in Russian, and his screen reader hears it
    bubble = bob.get_by_test_id("opponent").get_by_test_id("talk-bubble-0")
    expect(bubble).to_have_text("Удачи!")
    expect(bob.get_by_test_id("announce")).to_contain_text("Удачи!")
    shot(bob, "quick-talk-bubble-ru")
    expect(bubble).to_have_count(0, timeout=12_000)  # gone after a few seconds

    # an emote back, seen by Alice as a picture with its name for screen readers
    say(bob, "heart")
    heart = alice.get_by_test_id("opponent").get_by_test_id("talk-bubble-1")
    expect(heart.locator("svg.emote-heart")).to_have_count(1)
    expect(heart).to_have_attribute("data-phrase", "heart")

    # the watcher got every update and not one said frame, and shows no bubble
    barrier([alice, bob], [sam, bob])
    assert said(sam_frames) == []
    assert [frame for frame in sam_frames if frame.get("t") == "update"]
    expect(sam.locator(".talk-bubble")).to_have_count(0)

    # Bob mutes Alice: her next message reaches his page and is not shown
    bob.get_by_test_id("talk-toggle").click()
    mute = bob.get_by_test_id("talk-mute")
    expect(mute).to_have_attribute("aria-pressed", "false")
    mute.click()
    expect(mute).to_have_attribute("aria-pressed", "true")
    expect(bob.get_by_test_id("talk-muted")).to_be_visible()
    bob.keyboard.press("Escape")
    expect(bob.get_by_test_id("talk-menu")).to_have_count(0)
    expect(bob.get_by_test_id("talk-toggle")).to_be_focused()  # the keyboard is back on it
    say(alice, "well_played")
    barrier([alice, bob], [bob, sam])
    assert said(bob_frames) == ["good_luck", "well_played"]
    expect(bob.locator(".talk-bubble")).to_have_count(0)
    expect(bob.get_by_test_id("announce")).not_to_contain_text("Хорошо сыграно")

    # the mute is remembered by the browser
    bob.reload()
    expect(bob.get_by_test_id("talk-muted")).to_be_visible()
    online(bob)
    say(alice, "oops")
    barrier([alice, bob], [bob, sam])
    assert said(bob_frames)[-1] == "oops"
    expect(bob.locator(".talk-bubble")).to_have_count(0)

    # and lifted again
    bob.get_by_test_id("talk-toggle").click()
    bob.get_by_test_id("talk-mute").click()
    bob.keyboard.press("Escape")
    say(alice, "thanks")
    expect(bob.get_by_test_id("opponent").get_by_test_id("talk-bubble-0")).to_have_text("Спасибо!")
    barrier([alice, bob], [sam])
    assert said(sam_frames) == []
    expect(sam.locator(".talk-bubble")).to_have_count(0)


def test_quick_messages_on_an_arabic_phone(
    server_factory: ServerFactory, new_page: NewPage
) -> None:
    """Right to left on a 390 px screen: the menu fits the screen and the bubble points at the
    opponent's name. Screenshots quick-talk-menu-ar-phone.png, quick-talk-bubble-ar-phone.png."""
    server = server_factory(env=TALK_ENV)
    phone = {"locale": "ar-EG", "width": 390, "height": 844, "has_touch": True, "is_mobile": True}
    host = new_page(**phone)
    host.goto(server.http_url + "/")
    online(host)
    host.get_by_test_id("create-private").click()
    link = host.get_by_test_id("invite-link")
    expect(link).to_have_value(re.compile(r"/join/[A-Za-z0-9_-]+$"))
    guest = new_page(**phone)
    take_invite(guest, link.input_value())
    expect(guest.get_by_test_id("table")).to_be_visible()
    expect(host.locator("html")).to_have_attribute("dir", "rtl")

    host.get_by_test_id("talk-toggle").click()
    menu = host.get_by_test_id("talk-menu")
    expect(menu).to_be_visible()
    host.get_by_test_id("scoreboard").click()  # pointing anywhere else closes it
    expect(menu).to_have_count(0)
    host.get_by_test_id("talk-toggle").click()
    expect(menu.get_by_test_id("talk-good_game")).to_have_text("مباراة جميلة!")
    box = menu.bounding_box()
    assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= 390, box
    shot(host, "quick-talk-menu-ar-phone")
    menu.get_by_test_id("talk-good_game").click()
    bubble = guest.get_by_test_id("opponent").get_by_test_id("talk-bubble-0")
    expect(bubble).to_have_text("مباراة جميلة!")
    shape = bubble.bounding_box()
    assert shape is not None and shape["x"] >= 0 and shape["x"] + shape["width"] <= 390, shape
    shot(guest, "quick-talk-bubble-ar-phone")


def test_good_game_at_the_match_end(server_factory: ServerFactory, new_page: NewPage) -> None:
    """The table is inert once the match is over: the quick messages move beside the match's
    end, where "Good game!" is said. Screenshot quick-talk-match-over-tr.png (Bob, Turkish)."""
    server = server_factory(env=TALK_ENV)
    alice = new_page()
    alice.goto(server.http_url + "/")
    online(alice)
    alice.get_by_test_id("room-options").locator("summary").click()
    alice.get_by_test_id("option-target").fill("1")
    alice.get_by_test_id("option-target").dispatch_event("change")
    alice.get_by_test_id("create-private").click()
    link = alice.get_by_test_id("invite-link")
    expect(link).to_have_value(re.compile(r"/join/[A-Za-z0-9_-]+$"))
    bob = new_page(locale="tr-TR")
    take_invite(bob, link.input_value())
    expect(bob.get_by_test_id("table")).to_be_visible()
    for _ in range(6):  # a dead hand scores nothing: play on until someone scores
        play_hand([alice, bob])
        if alice.get_by_test_id("match-over").count():
            break
        for page in (alice, bob):
            page.get_by_test_id("next-hand").or_(page.get_by_test_id("continue")).first.click()
        expect(alice.get_by_test_id("hand-result")).to_have_count(0)
    for page in (alice, bob):
        expect(page.get_by_test_id("match-over")).to_be_visible()
        # one button, beside the match's end, none left in the inert table
        expect(page.get_by_test_id("talk-toggle")).to_have_count(1)
        expect(page.get_by_test_id("table").get_by_test_id("talk-toggle")).to_have_count(0)
    say(alice, "good_game")
    bubble = bob.get_by_test_id("opponent").get_by_test_id("talk-bubble-0")
    expect(bubble).to_have_text("İyi oyundu!")
    expect(bob.get_by_test_id("announce")).to_contain_text("İyi oyundu!")
    bob.get_by_test_id("talk-toggle").click()
    expect(bob.get_by_test_id("talk-thanks")).to_have_text("Teşekkürler!")
    shot(bob, "quick-talk-match-over-tr")
    bob.get_by_test_id("talk-thanks").click()
    expect(alice.get_by_test_id("opponent").get_by_test_id("talk-bubble-1")).to_have_text("Thanks!")
