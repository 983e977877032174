"""Challenges in real headless Chromium, in English and Arabic: a friend challenges a player who
sits at the table of another match (against the AI); the challenge shows there at once, over
the table and in the tab's title, and accepting it takes both pages to the table of the new
room (rated, with the clock and the match target asked for: from the profile's form in English;
casual, to the default 100 points, from the friends list in Arabic); the banner says all three.
A blocked player's challenge, sent from the blocker's profile, is refused and the page says so.
Screenshots: ``build/screenshots/challenge-sent-en.png``, ``challenge-at-table-en.png``,
``challenge-accepted-en.png``, ``challenge-accepted-sender-en.png``,
``challenge-refused-en.png`` and the same with ``-ar``; ``challenge-on-replay-en.png``. A
challenge is also a notification while the tab is hidden, only where the player allowed them,
and shows on a replay too; no page asks on its own. In a tab whose timers run once a minute (a
browser's long-hidden tab), the server's nudge still shows a challenge, and its answer to the
sender, at once."""

from __future__ import annotations

import asyncio
import re
from concurrent.futures import ThreadPoolExecutor

from playwright.sync_api import Page, Response, expect

from client.session import Session
from tests.browser.conftest import NewPage
from tests.browser.helpers import ConsoleWatch, shot
from tests.browser.scenes import as_player, finished_match, online
from tests.browser.test_settings_sound import TAB_AND_NOTICES
from tests.support.accounts import PASSWORD, acall, call, claim
from tests.support.fixtures import FAST_CLIENT_ENV, ServerFactory
from tests.support.server_process import ServerProcess

TEXT = {
    "en": {
        "from": "challenges you to a match",
        "rated": "Rated",
        "casual": "Casual",
        "title": "⚔",
        "refused": "This player takes no challenge from you now.",
        "waiting": "Waiting for",
        "target": "Match to {n}",
    },
    "ar": {
        "from": "إلى مباراة",
        "rated": "مصنّفة",
        "casual": "ودّية",
        "title": "⚔",
        "refused": "لا يقبل هذا اللاعب تحدّيًا منك الآن.",
        "waiting": "بانتظار ردّ",
        "target": "المباراة حتى {n}",
    },
}


def accounts(server: ServerProcess, handles: tuple[str, str, str]) -> list[str]:
    """Three account holders: the first two friends, the third blocked by the second."""

    async def run() -> list[str]:
        tokens = []
        for handle in handles:
            guest = await Session.connect(server.ws_url, name=handle.split("_", maxsplit=1)[0])
            await guest.close()
            claimed = await claim(server.http_url, guest.token or "", handle, PASSWORD)
            tokens.append(str(claimed["token"]))
        base = server.http_url
        status, reply = await acall(base, "/api/friends", {"handle": handles[1]}, token=tokens[0])
        assert status == 200, reply
        status, reply = await acall(
            base, "/api/friends/accept", {"handle": handles[0]}, token=tokens[1]
        )
        assert status == 200, reply
        status, reply = await acall(base, "/api/blocks", {"handle": handles[2]}, token=tokens[1])
        assert status == 200, reply
        return tokens

    with ThreadPoolExecutor(1) as pool:  # its own event loop, away from Playwright's
        return pool.submit(asyncio.run, run()).result(timeout=60)


def room_of(page: Page) -> str:
    match = re.search(r"/room/([A-Za-z0-9_-]+)", page.url)
    assert match is not None, page.url
    return match.group(1)


def challenge_at_the_table_and_a_blocked_one(
    new_page: NewPage,
    console: ConsoleWatch,
    server: ServerProcess,
    lang: str,
    handles: tuple[str, str, str],
) -> None:
    site = server.http_url
    text = TEXT[lang]
    ada_handle, bob_handle, _ = handles
    ada_token, bob_token, cy_token = accounts(server, handles)
    locale = "en-US" if lang == "en" else lang
    ada, bob, cy = new_page(locale=locale), new_page(locale=locale), new_page(locale=locale)

    # Bob sits at the table of a match against the AI
    as_player(bob, site, bob_token, "/")
    bob.get_by_test_id("play-ai-easy").click()
    expect(bob).to_have_url(re.compile(r"/room/"))
    expect(bob.get_by_test_id("table")).to_be_visible()
    first_room = room_of(bob)

    if lang == "en":  # Ada challenges him from his profile: rated, a minute a turn, to 250
        rated, clock, target = "true", "60", "250"
        as_player(ada, site, ada_token, f"/@/{bob_handle}")
        form = ada.get_by_test_id("challenge-form")
        form.get_by_test_id("challenge-rated").check()
        form.get_by_test_id("challenge-clock").select_option("60")
        form.get_by_test_id("challenge-target").fill("250")
        form.get_by_test_id("challenge-target").dispatch_event("change")
        form.get_by_test_id("challenge-send").click()
        expect(ada.get_by_test_id("challenge-sent-note")).to_be_visible()
    else:  # from her friends list: casual, the server's turn clock, the default match
        rated, clock, target = "false", "30", "100"
        as_player(ada, site, ada_token, f"/@/{ada_handle}")
        friend = ada.locator(f"[data-testid=friend][data-handle='{bob_handle}']")
        friend.get_by_test_id("friend-challenge").click()
    expect(ada.get_by_test_id("challenge-sent")).to_contain_text(text["waiting"])
    # on a page (not the table) the banner sits above the content: it covers no part of it
    banner = ada.get_by_test_id("challenge-banner").bounding_box()
    heading = ada.get_by_test_id("profile-handle").bounding_box()
    assert banner is not None and heading is not None
    assert banner["y"] + banner["height"] <= heading["y"], (banner, heading)
    shot(ada, f"challenge-sent-{lang}")

    # it shows on his table at once: the banner and the tab's title
    received = bob.get_by_test_id("challenge-received")
    expect(received).to_contain_text(ada_handle)
    expect(received).to_contain_text(text["from"])
    terms = received.get_by_test_id("challenge-terms")
    expect(terms).to_contain_text(text["rated" if rated == "true" else "casual"])
    expect(terms).to_have_attribute("data-rated", rated)
    expect(terms).to_have_attribute("data-turn-seconds", clock)
    expect(terms).to_have_attribute("data-target", target)
    expect(terms).to_contain_text(text["target"].format(n=target))
    expect(bob).to_have_title(re.compile(f"^{text['title']}.*{ada_handle}"))
    expect(bob.get_by_test_id("table")).to_be_visible()  # still at his table
    # over the table, which fills the screen, the banner floats: the table does not move
    expect(bob.get_by_test_id("challenge-banner")).to_have_css("position", "fixed")
    expect(bob.locator("html")).to_have_attribute("dir", "rtl" if lang == "ar" else "ltr")
    shot(bob, f"challenge-at-table-{lang}")

    received.get_by_test_id("challenge-accept").click()
    expect(bob).not_to_have_url(re.compile(f"/room/{first_room}$"))
    expect(bob).to_have_url(re.compile(r"/room/"))
    new_room = room_of(bob)
    expect(bob.get_by_test_id("challenge-banner")).to_have_count(0)
    expect(bob.get_by_test_id("table")).to_be_visible()
    expect(bob.get_by_test_id("table")).to_contain_text(ada_handle.split("_")[0])
    expect(bob.get_by_test_id("scoreboard").locator(".target")).to_contain_text(target)
    shot(bob, f"challenge-accepted-{lang}")
    # the sender's page goes to the same table by itself
    expect(ada).to_have_url(re.compile(f"/room/{new_room}$"))
    expect(ada.get_by_test_id("table")).to_be_visible()
    expect(ada.get_by_test_id("table")).to_contain_text(bob_handle.split("_")[0])
    shot(ada, f"challenge-accepted-sender-{lang}")

    # Cy, whom Bob blocked, challenges him: refused, and his page says so
    as_player(cy, site, cy_token, f"/@/{bob_handle}")
    cy.get_by_test_id("challenge-send").click()
    refusal = cy.get_by_test_id("challenge-form-error")
    expect(refusal).to_have_attribute("data-code", "challenge_refused")
    expect(refusal).to_contain_text(text["refused"])
    expect(bob.get_by_test_id("challenge-banner")).to_have_count(0)
    shot(cy, f"challenge-refused-{lang}")
    # the browser reports the expected 403 of the refusal; nothing else may be there
    expected = [e for e in console.errors if "403" in e and "/api/challenges'" in e]
    assert len(expected) == 1, console.errors
    console.errors.remove(expected[0])
    for page in (ada, bob, cy):
        page.close()


def test_a_challenge_at_the_table_accepted_and_a_blocked_one_refused_in_english_and_arabic(
    new_page: NewPage, console: ConsoleWatch, server_factory: ServerFactory
) -> None:
    server = server_factory(env=FAST_CLIENT_ENV)
    challenge_at_the_table_and_a_blocked_one(
        new_page, console, server, "en", ("Ada_Chall", "Bob_Chall", "Cy_Chall")
    )
    challenge_at_the_table_and_a_blocked_one(
        new_page, console, server, "ar", ("Ada_Tahaddi", "Bob_Tahaddi", "Cy_Tahaddi")
    )


# The tab's visibility as the test says (headless Chromium shows every page), Chromium's own
# notifications counted as they are made, and every permission prompt the page asks for.
ASKED = """
(() => {
  window.__asked = 0;
  const ask = Notification.requestPermission.bind(Notification);
  Notification.requestPermission = (...args) => { window.__asked += 1; return ask(...args); };
})();
"""


def challenge_by_http(server: ServerProcess, token: str, handle: str) -> str:
    status, reply = call(server.http_url, "/api/challenges", {"handle": handle}, token=token)
    assert status == 200, reply
    return str(reply["challenge"]["id"])


def test_a_challenge_is_a_notification_only_while_the_tab_is_hidden_and_allowed(
    new_page: NewPage, server_factory: ServerFactory
) -> None:
    server = server_factory(env=FAST_CLIENT_ENV)
    site = server.http_url
    handles = ("Ada_Notice", "Bob_Notice", "Cy_Notice")
    ada_token, bob_token, cy_token = accounts(server, handles)
    bob = new_page(permissions=["notifications"])  # allowed before
    cy = new_page()  # never allowed: the page asks nothing on its own
    for page, token in ((bob, bob_token), (cy, cy_token)):
        page.add_init_script(TAB_AND_NOTICES)
        page.add_init_script(ASKED)
        as_player(page, site, token, "/")
    status, reply = call(site, "/api/challenges/setting", {"who": "everyone"}, token=cy_token)
    assert status == 200, reply

    # seen: the banner, no notification
    first = challenge_by_http(server, ada_token, handles[1])
    expect(bob.locator(f"[data-testid=challenge-received][data-id='{first}']")).to_be_visible()
    assert bob.evaluate("window.__notes") == []
    bob.get_by_test_id("challenge-decline").click()
    expect(bob.get_by_test_id("challenge-banner")).to_have_count(0)

    # hidden: the notification too
    bob.evaluate("window.__setHidden(true)")
    challenge_by_http(server, ada_token, handles[1])
    bob.wait_for_function("() => window.__notes.length > 0")
    notes = bob.evaluate("window.__notes")
    assert [(n["title"], n["body"]) for n in notes] == [
        ("Gin Rummy", "Ada_Notice challenges you to a match")
    ]
    expect(bob).to_have_title(re.compile("^⚔ Ada_Notice challenges you"))

    # hidden and not allowed: the banner and the title, no notification, and no prompt
    cy.evaluate("window.__setHidden(true)")
    challenge_by_http(server, ada_token, handles[2])
    expect(cy.get_by_test_id("challenge-received")).to_have_count(1)
    expect(cy).to_have_title(re.compile("^⚔ Ada_Notice"))
    assert cy.evaluate("window.__notes") == []
    room, _ = finished_match(server, target=1)
    cy.goto(f"{site}/replay/{room}-1")  # on a replay too
    online(cy)
    expect(cy.get_by_test_id("challenge-received")).to_contain_text("Ada_Notice")
    shot(cy, "challenge-on-replay-en")
    cy.goto(f"{site}/@/{handles[2]}")  # the profile offers the permission; asks only on a click
    online(cy)
    expect(cy.get_by_test_id("challenge-notify")).to_be_visible()
    assert cy.evaluate("window.__asked") == 0
    assert bob.evaluate("window.__asked") == 0


# A tab the browser has hidden for long: its repeating timers run once a minute (Chromium's
# intensive wake-up throttling after 5 minutes hidden; Safari's is alike), here from the start.
ONCE_A_MINUTE = """
(() => {
  const every = window.setInterval.bind(window);
  window.setInterval = (fn, ms, ...args) => every(fn, Math.max(ms || 0, 60000), ...args);
})();
"""


def first_inbox_reading(response: Response) -> bool:
    return (
        response.request.method == "GET"
        and response.url.endswith("/api/challenges")
        and response.request.headers.get("authorization") is not None
    )


def test_a_challenge_reaches_a_hidden_tab_whose_timers_run_once_a_minute(
    new_page: NewPage, server_factory: ServerFactory
) -> None:
    """The inbox is read every second by a timer, which a long-hidden tab runs once a minute,
    longer than a challenge lasts: the server's ``nudge`` over the websocket makes both pages
    read at once (on two server processes): the one challenged sees it and is notified, and
    the sender sees it declined. Before nudges, neither page showed anything for a minute."""
    one, two = server_factory(env=FAST_CLIENT_ENV), server_factory(env=FAST_CLIENT_ENV)
    handles = ("Ada_Hidden", "Bob_Hidden", "Cy_Hidden")
    ada_token, bob_token, _ = accounts(one, handles)
    ada = new_page()
    bob = new_page(permissions=["notifications"])
    for page, server, token in ((ada, one, ada_token), (bob, two, bob_token)):
        page.add_init_script(TAB_AND_NOTICES)
        page.add_init_script(ONCE_A_MINUTE)
        # the page's first reading of its inbox done: what that one finds was there before
        # the page opened and is not notified, so the challenge must come after it
        with page.expect_response(first_inbox_reading):
            as_player(page, server.http_url, token, "/")
        page.evaluate("window.__setHidden(true)")

    sent = challenge_by_http(one, ada_token, handles[1])
    received = bob.locator(f"[data-testid=challenge-received][data-id='{sent}']")
    expect(received).to_be_attached(timeout=10_000)  # well inside the minute
    bob.wait_for_function("() => window.__notes.length > 0", timeout=10_000)
    assert [n["body"] for n in bob.evaluate("window.__notes")] == [
        "Ada_Hidden challenges you to a match"
    ]
    expect(bob).to_have_title(re.compile("^⚔ Ada_Hidden"))

    status, reply = call(two.http_url, "/api/challenges/decline", {"id": sent}, token=bob_token)
    assert status == 200, reply
    outcome = ada.locator(f"[data-testid=challenge-outcome][data-id='{sent}']")
    expect(outcome).to_have_attribute("data-state", "declined", timeout=10_000)


#: Whether anything is drawn over the middle of each of the table's parts: the element found
#: there is not inside it (the score header, the opponent's seat, the pile, one's own hand).
COVERED = """() => ['scoreboard', 'opponent', 'stock', 'my-hand'].filter((id) => {
    const part = document.querySelector(`[data-testid=${id}]`);
    if (!part) return false;
    const r = part.getBoundingClientRect();
    const x = r.left + r.width / 2, y = r.top + Math.min(r.height / 2, 12);
    const top = document.elementFromPoint(x, y);
    return !(top && part.contains(top));
})"""


def put_off_and_back(
    new_page: NewPage,
    server: ServerProcess,
    lang: str,
    size: dict[str, int],
    handles: tuple[str, str, str],
) -> None:
    site = server.http_url
    ada_token, bob_token, _ = accounts(server, handles)
    bob = new_page(locale="en-US" if lang == "en" else lang, **size)
    as_player(bob, site, bob_token, "/")
    # in the lobby the banner sits above the content, covering nothing: no "Later" there
    first = challenge_by_http(server, ada_token, handles[1])
    banner = bob.get_by_test_id("challenge-banner")
    expect(banner.locator(f"[data-id='{first}']")).to_be_visible()
    expect(banner).not_to_have_css("position", "fixed")
    expect(banner.get_by_test_id("challenge-later")).to_have_count(0)
    bob.get_by_test_id("play-ai-easy").click()
    expect(bob.get_by_test_id("table")).to_be_visible()
    expect(banner).to_have_css("position", "fixed")
    # "Later": the banner leaves the table; the header keeps the challenge, counted
    banner.get_by_test_id("challenge-later").first.click()
    expect(banner).to_have_count(0)
    chip = bob.locator("header.topbar").get_by_test_id("challenge-chip")
    expect(chip).to_have_text(re.compile(r"\b1$"))
    # named by what it says (a voice command says what it reads)
    title = {"en": "Challenges", "ar": "التحدّيات"}[lang]
    expect(bob.get_by_role("button", name=f"{title} 1", exact=True)).to_be_visible()
    expect(bob).to_have_title(re.compile(f"^⚔.*{handles[0]}"))
    assert bob.evaluate(COVERED) == [], lang
    box = chip.bounding_box()
    assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= size["width"], box
    width = bob.evaluate("[document.documentElement.scrollWidth, innerWidth]")
    assert width[0] <= width[1], width
    bob.wait_for_timeout(2500)  # the inbox is read again, twice: put off it stays
    expect(banner).to_have_count(0)
    shot(bob, f"challenge-put-off-{lang}-{size['width']}")

    # the header's button brings it back, and "Later" again; then one more comes: both show
    chip.click()
    expect(banner.locator(f"[data-id='{first}']")).to_be_visible()
    expect(chip).to_have_count(0)
    banner.get_by_test_id("challenge-later").first.click()
    expect(chip).to_be_visible()
    second = challenge_by_http(server, ada_token, handles[1])
    expect(banner.locator(f"[data-id='{second}']")).to_be_visible()
    expect(banner.get_by_test_id("challenge-received")).to_have_count(2)
    expect(chip).to_have_count(0)
    for _ in range(2):
        banner.get_by_test_id("challenge-decline").first.click()
        bob.wait_for_timeout(300)
    expect(banner).to_have_count(0)
    bob.close()


def test_a_challenge_at_the_table_is_put_off_to_the_header_and_brought_back(
    new_page: NewPage, console: ConsoleWatch, server_factory: ServerFactory
) -> None:
    """Over the table the banner covered the score header and the opponent's seat for as long
    as the challenge stood (a minute): "Later" moves it into the header, counted."""
    server = server_factory(env=FAST_CLIENT_ENV)
    put_off_and_back(new_page, server, "en", {"width": 1280, "height": 800},
                     ("Ada_Later", "Bob_Later", "Cy_Later"))  # fmt: skip
    put_off_and_back(new_page, server, "ar", {"width": 390, "height": 844},
                     ("Ada_Lahiqan", "Bob_Lahiqan", "Cy_Lahiqan"))  # fmt: skip
