"""Issue #17, page-feel, in real headless Chromium against a real server, Redis and AI worker:
the settings (remembered, applied to ``<html>`` before the first paint, a keyboard-friendly
dialog), the dark theme (the page's colours change; every text meets WCAG AA), the sound (no
AudioContext before the player turns it on; then the oscillators and noise buffers started
for a draw, a discard, a knock or gin), "your turn" in the tab title, the your-turn
notification while the tab is hidden (and a refused permission), and motion (the setting and
``prefers-reduced-motion``). Screenshots of the settings panel and the dark table (desktop and
390 px phone, English and Arabic) go to ``build/screenshots/``.

Two things a headless browser cannot do are stood in for by init scripts, around the real
objects: counting ``AudioContext`` constructions and ``start()`` calls of the real Web Audio
nodes (the sound is real, nobody hears it), and a hidden tab (headless Chromium reports every
page visible, so ``document.visibilityState`` is switched by the test); the ``Notification``
itself is Chromium's, counted as it is made.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from playwright.sync_api import Browser, BrowserContext, Page, expect

from protocol import messages as m
from tests.browser.helpers import (
    SCREENSHOTS,
    ConsoleWatch,
    TableState,
    close_result,
    move_and_wait,
    shot,
    table_state,
    take_invite,
    wait_for_change,
)
from tests.browser.scenes import bots_in_a_room, hand_against_the_ai, online
from tests.support.server_process import ServerProcess

ATTRIBUTES = ("theme", "deck", "cardSize", "motion", "sound", "hints")

# Counts the real Web Audio objects the page makes; what the oscillators start at tells the
# sounds apart (the knock's thumps start at 150 Hz, gin's arpeggio at 523 Hz; a card is noise).
AUDIO_PROBE = """
(() => {
  const probe = { contexts: 0, starts: [] };
  window.__audio = probe;
  const Real = window.AudioContext;
  window.AudioContext = class extends Real {
    constructor(...args) { super(...args); probe.contexts += 1; }
  };
  const wrap = (proto, name) => {
    const start = proto.start;
    proto.start = function (...args) {
      probe.starts.push(name === 'osc' ? 'osc:' + Math.round(this.frequency.value) : 'noise');
      return start.apply(this, args);
    };
  };
  wrap(OscillatorNode.prototype, 'osc');
  wrap(AudioBufferSourceNode.prototype, 'noise');
})();
"""

# Every title the page sets, in order: the title after a move can last less than a poll (the
# AI's answer, 0.1-0.2 s later, gives the turn back), so the tests read what was set.
TITLE_PROBE = """
(() => {
  const titles = [];
  window.__titles = titles;
  const own = Object.getOwnPropertyDescriptor(Document.prototype, 'title');
  Object.defineProperty(Document.prototype, 'title', {
    configurable: true,
    enumerable: own.enumerable,
    get() { return own.get.call(this); },
    set(value) { titles.push(String(value)); own.set.call(this, value); },
  });
})();
"""


def titles_set(page: Page) -> int:
    """How many titles the page has set so far (``TITLE_PROBE``)."""
    return int(page.evaluate("() => window.__titles.length"))


def expect_title_set_since(page: Page, since: int, title: str) -> None:
    """The page set ``title`` after its first ``since`` titles (it may have changed again)."""
    page.wait_for_function(
        "([since, title]) => window.__titles.slice(since).includes(title)", arg=[since, title]
    )


# What <html> says when the parser reaches <body>: before the app's module runs, so what the
# first paint uses.
FIRST_PAINT_PROBE = """
(() => {
  const seen = new MutationObserver(() => {
    if (!document.body) return;
    window.__firstPaint = Object.assign({}, document.documentElement.dataset);
    seen.disconnect();
  });
  seen.observe(document, { childList: true, subtree: true });
})();
"""

# Headless Chromium shows every page: the test says when the tab is hidden. Notifications
# made by the page are Chromium's own, counted as they are made and closed.
TAB_AND_NOTICES = """
(() => {
  let hidden = false;
  const state = () => (hidden ? 'hidden' : 'visible');
  Object.defineProperty(Document.prototype, 'visibilityState', { get: state, configurable: true });
  Object.defineProperty(Document.prototype, 'hidden', { get: () => hidden, configurable: true });
  window.__setHidden = (value) => {
    hidden = value;
    document.dispatchEvent(new Event('visibilitychange'));
  };
  window.__notes = [];
  const Real = window.Notification;
  window.Notification = class extends Real {
    constructor(title, options) {
      super(title, options);
      const note = { title, body: options && options.body, closed: false };
      window.__notes.push(note);
      const close = this.close.bind(this);
      this.close = () => { note.closed = true; close(); };
    }
  };
})();
"""

# The WCAG contrast of every visible text on the page against what is behind it (the
# gradient stops of the felt, the colours of the panels and of the page).
CONTRAST = """
() => {
  const parse = (text) => {
    // color-mix() is given back as color(srgb r g b / a), each part from 0 to 1
    const mixed = /color\\(srgb ([^)]+)\\)/.exec(text);
    if (mixed) {
      const parts = mixed[1].split(/[\\s\\/]+/).filter(Boolean).map(Number);
      return { r: parts[0] * 255, g: parts[1] * 255, b: parts[2] * 255,
               a: parts.length > 3 ? parts[3] : 1 };
    }
    const found = /rgba?\\(([^)]+)\\)/.exec(text);
    if (!found) return null;
    const parts = found[1].split(/[\\s,\\/]+/).filter(Boolean).map(Number);
    return { r: parts[0], g: parts[1], b: parts[2], a: parts.length > 3 ? parts[3] : 1 };
  };
  const over = (top, under) => ({
    r: top.r * top.a + under.r * (1 - top.a), g: top.g * top.a + under.g * (1 - top.a),
    b: top.b * top.a + under.b * (1 - top.a), a: 1 });
  const channel = (v) => {
    v /= 255;
    return v <= 0.03928 ? v / 12.92 : Math.pow((v + 0.055) / 1.055, 2.4);
  };
  const lum = (c) => 0.2126 * channel(c.r) + 0.7152 * channel(c.g) + 0.0722 * channel(c.b);
  const ratio = (a, b) => {
    const [x, y] = [lum(a), lum(b)].sort((p, q) => q - p);
    return (x + 0.05) / (y + 0.05);
  };
  const white = { r: 255, g: 255, b: 255, a: 1 };
  const behind = (element) => {
    const layers = [];
    let base = [white];
    for (let e = element; e; e = e.parentElement) {
      const style = getComputedStyle(e);
      const image = style.backgroundImage;
      const stops = [...image.matchAll(/rgba?\\([^)]+\\)/g)].map((m) => parse(m[0]));
      if (stops.length) {
        base = stops.map((stop) => over(stop, white));
        break;
      }
      const colour = parse(style.backgroundColor);
      if (colour && colour.a > 0) {
        if (colour.a >= 1) { base = [colour]; break; }
        layers.push(colour);
      }
    }
    return base.map((b) => layers.reduceRight((acc, layer) => over(layer, acc), b));
  };
  const failures = [];
  let checked = 0;
  const roots = [...document.querySelectorAll('dialog[open]')];
  const scope = roots.length ? roots : [document.body];
  for (const root of scope) {
    for (const element of root.querySelectorAll('*')) {
      const own = [...element.childNodes].filter((n) => n.nodeType === 3);
      const text = own.map((n) => n.textContent).join('').trim();
      if (!text || !element.getClientRects().length) continue;
      if (element.closest('.sr-only, [disabled], [aria-disabled="true"], option, .skip')) continue;
      let opacity = 1;
      for (let e = element; e; e = e.parentElement) opacity *= Number(getComputedStyle(e).opacity);
      if (opacity < 1) continue;  // dimmed on purpose (the finished table, a card under the pile)
      const style = getComputedStyle(element);
      if (style.visibility === 'hidden') continue;
      const size = parseFloat(style.fontSize);
      const large = size >= 24 || (size >= 18.66 && Number(style.fontWeight) >= 700);
      const need = large ? 3 : 4.5;
      const ink = parse(style.color);
      const worst = Math.min(...behind(element).map((b) => ratio(over(ink, b), b)));
      checked += 1;
      const card = element.closest('[data-card]');
      const name = `${element.tagName.toLowerCase()}.${element.className}`
        + (card ? ` of ${card.dataset.card}` : '');
      const said = `${name} "${text.slice(0, 40)}": ${worst.toFixed(2)} < ${need}`
        + ` (${style.color} on ${behind(element).map((b) => [b.r, b.g, b.b].map(Math.round))})`;
      if (worst < need) failures.push(said);
    }
  }
  return { checked, failures };
}
"""


def html_attributes(page: Page) -> dict[str, str]:
    data: dict[str, str] = page.evaluate(
        "names => Object.fromEntries(names.map(n => [n, document.documentElement.dataset[n]]))",
        list(ATTRIBUTES),
    )
    return data


def audio(page: Page) -> dict[str, Any]:
    probe: dict[str, Any] = page.evaluate(
        "() => ({...window.__audio, starts: [...window.__audio.starts]})"
    )
    return probe


def open_settings(page: Page) -> None:
    page.get_by_test_id("settings-open").click()
    expect(page.get_by_test_id("settings")).to_be_visible()


def close_settings(page: Page) -> None:
    page.get_by_test_id("settings-close").click()
    expect(page.get_by_test_id("settings")).to_have_count(0)


def dialog_shot(page: Page, name: str) -> None:
    """The viewport with the dialog over it (a full-page shot would show the page's end
    outside the dialog's backdrop)."""
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SCREENSHOTS / f"{name}.png"))


def contrast_failures(page: Page) -> list[str]:
    result = page.evaluate(CONTRAST)
    assert result["checked"] > 3, result
    failures: list[str] = result["failures"]
    return failures


MakePage = Callable[..., Page]


@pytest.fixture
def make_page(browser: Browser, console: ConsoleWatch) -> Iterator[MakePage]:
    """A page in a context of its own with any options (colour scheme, reduced motion,
    permissions) and init scripts; console errors fail the test."""
    contexts: list[BrowserContext] = []

    def make(
        *scripts: str, locale: str = "en-US", width: int = 1280, height: int = 800, **options: Any
    ) -> Page:
        options.setdefault("reduced_motion", "reduce")
        context = browser.new_context(
            locale=locale, viewport={"width": width, "height": height}, **options
        )
        context.set_default_timeout(15_000)
        contexts.append(context)
        for script in scripts:
            context.add_init_script(script)
        return console.watch(context.new_page())

    yield make
    for context in contexts:
        context.close()


def start_ai_match(page: Page, server: ServerProcess) -> None:
    page.goto(server.http_url + "/")
    online(page)
    page.get_by_test_id("play-ai-normal").click()
    expect(page.get_by_test_id("table")).to_be_visible()
    expect(page).to_have_url(re.compile(r"/room/[A-Za-z0-9_-]+$"))


def wait_for_my_draw(page: Page) -> None:
    """Until the page may draw (passing the first turn's offers, closing a hand's result)."""
    deadline = time.monotonic() + 90
    while time.monotonic() < deadline:
        if close_result(page):
            continue
        state = table_state(page)
        if state is not None and state.my_turn and state.phase in ("draw", "first_draw"):
            return
        if state is not None and state.my_turn and page.get_by_test_id("pass").count():
            move_and_wait(page, state)
            continue
        page.wait_for_timeout(30)
    raise AssertionError(f"not this page's draw after 90 s: {table_state(page)}")


def the_turn_comes_back(page: Page) -> bool:
    """After the player's discard: True once it is the player's draw again, False when the
    hand ends first (the opponent knocked or went gin)."""
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        state = table_state(page)
        if page.get_by_test_id("hand-result").count() or (state is not None and state.over):
            return False
        if state is not None and state.my_turn and state.phase == "draw":
            return True
        page.wait_for_timeout(30)
    raise AssertionError(f"neither the turn nor the hand's end came back: {table_state(page)}")


def draw_from_the_stock(page: Page) -> TableState:
    """Click the stock and wait until the page shows the drawn card (the discard phase)."""
    before = table_state(page)
    page.get_by_test_id("stock").click()
    wait_for_change(page, before)
    state = table_state(page)
    assert state is not None and state.my_turn and state.phase == "discard", state
    return state


def test_settings_are_remembered_applied_before_the_first_paint_and_the_dialog_is_keyboard_friendly(
    gin_server: ServerProcess, make_page: MakePage
) -> None:
    page = make_page(FIRST_PAINT_PROBE, reduced_motion="no-preference")
    page.goto(gin_server.http_url + "/")
    online(page)
    defaults = {
        "theme": "light",
        "deck": "two",
        "cardSize": "medium",
        "motion": "full",
        "sound": "off",
        "hints": "on",
    }
    assert html_attributes(page) == defaults
    assert page.evaluate("window.__firstPaint") == {**defaults}

    # the dialog: reached from the header, focus inside, Escape closes it, focus comes back
    opener = page.get_by_test_id("settings-open")
    expect(opener).to_have_accessible_name("Settings")
    opener.focus()
    page.keyboard.press("Enter")
    dialog = page.get_by_role("dialog", name="Settings")
    expect(dialog).to_be_visible()
    expect(page.get_by_test_id("setting-sound")).to_be_focused()
    expect(page.get_by_test_id("setting-sound")).not_to_be_checked()
    page.keyboard.press("Tab")
    expect(page.get_by_test_id("setting-theme-auto")).to_be_focused()
    page.keyboard.press("Escape")
    expect(dialog).to_have_count(0)
    expect(opener).to_be_focused()

    open_settings(page)
    page.get_by_test_id("setting-theme-dark").check()
    page.get_by_test_id("setting-deck").check()
    page.get_by_test_id("setting-card-size-large").check()
    page.get_by_test_id("setting-hints").uncheck()
    page.get_by_test_id("setting-motion").check()
    chosen = {
        "theme": "dark",
        "deck": "four",
        "cardSize": "large",
        "motion": "reduced",
        "sound": "off",
        "hints": "off",
    }
    assert html_attributes(page) == chosen
    dialog_shot(page, "settings-panel-dark-en")
    close_settings(page)
    expect(opener).to_be_focused()
    # the card size is the page's, at once
    scale = page.evaluate(
        "getComputedStyle(document.documentElement).getPropertyValue('--card-scale')"
    )
    assert float(scale) > 1, scale  # styles/cards.css: large cards

    page.reload()
    online(page)
    assert page.evaluate("window.__firstPaint") == chosen
    assert html_attributes(page) == chosen
    open_settings(page)
    expect(page.get_by_test_id("setting-theme-dark")).to_be_checked()
    expect(page.get_by_test_id("setting-card-size-large")).to_be_checked()
    expect(page.get_by_test_id("setting-deck")).to_be_checked()
    expect(page.get_by_test_id("setting-hints")).not_to_be_checked()
    # back to following the device
    page.get_by_test_id("setting-theme-auto").check()
    close_settings(page)
    assert html_attributes(page)["theme"] == "light"

    # what a tampered storage holds falls back to the defaults, without an error
    tampered = {"theme": "purple", "cardSize": "huge", "sound": "yes", "deck": "four"}
    page.evaluate("value => localStorage.setItem('gin.settings', JSON.stringify(value))", tampered)
    page.reload()
    online(page)
    assert html_attributes(page) == {**defaults, "deck": "four"}
    page.evaluate("localStorage.setItem('gin.settings', '{broken')")
    page.reload()
    online(page)
    assert page.evaluate("window.__firstPaint") == defaults
    assert html_attributes(page) == defaults


def test_motion_follows_the_setting_and_prefers_reduced_motion(
    gin_server: ServerProcess, make_page: MakePage
) -> None:
    moving = """() => {
        const thinking = document.createElement('span');
        thinking.className = 'thinking';
        thinking.innerHTML = '<span class="dots"><i></i></span>';
        document.body.append(thinking);
        const name = getComputedStyle(thinking.querySelector('i')).animationName;
        thinking.remove();
        return name;
    }"""
    page = make_page(reduced_motion="no-preference")
    page.goto(gin_server.http_url + "/")
    online(page)
    assert html_attributes(page)["motion"] == "full"
    assert page.evaluate(moving) == "blink"
    open_settings(page)
    page.get_by_test_id("setting-motion").check()
    assert html_attributes(page)["motion"] == "reduced"
    assert page.evaluate(moving) == "none"
    close_settings(page)

    device = make_page(reduced_motion="reduce")
    device.goto(gin_server.http_url + "/")
    online(device)
    assert html_attributes(device)["motion"] == "reduced"
    open_settings(device)
    motion = device.get_by_test_id("setting-motion")
    expect(motion).to_be_checked()
    expect(motion).to_be_disabled()
    expect(device.get_by_test_id("settings")).to_contain_text("Your device asks for reduced motion")


def test_dark_theme_follows_the_device_changes_the_colours_and_keeps_text_readable(
    gin_server: ServerProcess, ai_seats: None, make_page: MakePage
) -> None:
    background = "() => getComputedStyle(document.body).backgroundColor"
    light = make_page()
    light.goto(gin_server.http_url + "/")
    online(light)
    assert html_attributes(light)["theme"] == "light"
    # the light lobby is read too: its clock lines were drawn in the felt's pale ink on white
    assert contrast_failures(light) == []
    light_colours = (
        light.evaluate(background),
        light.evaluate("() => getComputedStyle(document.querySelector('.panel')).backgroundColor"),
    )

    page = make_page(color_scheme="dark")
    page.goto(gin_server.http_url + "/")
    online(page)
    assert html_attributes(page)["theme"] == "dark"
    dark_colours = (
        page.evaluate(background),
        page.evaluate("() => getComputedStyle(document.querySelector('.panel')).backgroundColor"),
    )
    assert dark_colours[0] != light_colours[0] and dark_colours[1] != light_colours[1], (
        light_colours,
        dark_colours,
    )
    assert dark_colours[0] == "rgb(18, 21, 24)", dark_colours
    assert contrast_failures(page) == []
    open_settings(page)
    assert contrast_failures(page) == []
    close_settings(page)
    page.get_by_role("link", name="How to play").click()
    expect(page.get_by_role("heading", level=1)).to_be_visible()
    assert contrast_failures(page) == []

    page.get_by_role("link", name="Lobby").click()
    page.get_by_test_id("play-ai-normal").click()
    expect(page.get_by_test_id("table")).to_be_visible()
    wait_for_my_draw(page)
    assert contrast_failures(page) == []
    # the page's question, then the toast after it
    page.get_by_test_id("leave").click()
    expect(page.get_by_test_id("confirm")).to_be_visible()
    assert contrast_failures(page) == []
    page.get_by_test_id("confirm-yes").click()
    expect(page.get_by_role("alert")).to_contain_text("You left the match")
    assert contrast_failures(page) == []

    # the player's choice beats the device's, and is kept
    open_settings(page)
    page.get_by_test_id("setting-theme-light").check()
    close_settings(page)
    assert html_attributes(page)["theme"] == "light"
    assert page.evaluate(background) == light_colours[0]
    assert page.evaluate("getComputedStyle(document.documentElement).colorScheme") == "light"
    page.reload()
    online(page)
    assert html_attributes(page)["theme"] == "light"


@pytest.mark.parametrize("theme", ["dark", "light"])
def test_a_replay_in_the_dark_and_in_the_light(
    gin_server: ServerProcess, make_page: MakePage, theme: str
) -> None:
    """In the light theme the last caption ("Dead hand: nobody scores") was gold on the
    felt's lightest green, 3.14:1."""
    hand = hand_against_the_ai(gin_server)
    page = make_page(color_scheme=theme)
    page.goto(f"{gin_server.http_url}/replay/{hand}")
    expect(page.get_by_test_id("replay")).to_be_visible()
    page.keyboard.press("End")
    assert html_attributes(page)["theme"] == theme
    assert contrast_failures(page) == []
    shot(page, f"{theme}-replay-en")


@pytest.mark.parametrize("lang", ["en", "ar"])
def test_screenshots_of_the_dark_table_and_the_settings_panel(
    gin_server: ServerProcess, ai_seats: None, make_page: MakePage, lang: str
) -> None:
    page = make_page(locale="ar-EG" if lang == "ar" else "en-US", color_scheme="dark")
    start_ai_match(page, gin_server)
    expect(page.locator("html")).to_have_attribute("dir", "rtl" if lang == "ar" else "ltr")
    wait_for_my_draw(page)
    draw_from_the_stock(page)
    expect(page.locator("[data-testid=my-hand] button.card.live")).not_to_have_count(0)
    assert contrast_failures(page) == []
    shot(page, f"dark-table-desktop-{lang}")
    open_settings(page)
    dialog_shot(page, f"settings-panel-desktop-{lang}")
    close_settings(page)
    page.set_viewport_size({"width": 390, "height": 844})
    page.wait_for_timeout(100)
    assert contrast_failures(page) == []
    shot(page, f"dark-table-phone-{lang}")
    open_settings(page)
    assert contrast_failures(page) == []
    dialog_shot(page, f"settings-panel-phone-{lang}")


def test_sound_is_off_by_default_then_plays_the_games_events_and_the_title_shows_the_turn(
    gin_server: ServerProcess, ai_seats: None, make_page: MakePage
) -> None:
    page = make_page(AUDIO_PROBE, TITLE_PROBE, color_scheme="dark")
    start_ai_match(page, gin_server)
    assert page.title() in ("Gin Rummy", "● Your turn — Gin Rummy")

    # moves with sound off: no AudioContext at all
    wait_for_my_draw(page)
    expect(page).to_have_title("● Your turn — Gin Rummy")
    state = draw_from_the_stock(page)
    expect(page).to_have_title("● Your turn — Gin Rummy")
    since = titles_set(page)
    move_and_wait(page, state)
    expect_title_set_since(page, since, "Gin Rummy")
    assert audio(page) == {"contexts": 0, "starts": []}

    # the opponent's moves with sound off: still none
    wait_for_my_draw(page)
    assert audio(page) == {"contexts": 0, "starts": []}

    # the player turns sound on (their turn: nothing else moves meanwhile); the context is
    # made in that click, and a chime says that sound is on
    open_settings(page)
    page.get_by_test_id("setting-sound").check()
    assert html_attributes(page)["sound"] == "on"
    probe = audio(page)
    assert probe["contexts"] == 1 and probe["starts"] == ["osc:659", "osc:988"], probe
    close_settings(page)

    # my draw: a card
    before = len(audio(page)["starts"])
    state = draw_from_the_stock(page)
    page.wait_for_function(f"() => window.__audio.starts.length > {before}")
    assert audio(page)["starts"][before] == "noise"
    before = len(audio(page)["starts"])
    did = move_and_wait(page, state)
    assert did is not None
    page.wait_for_function(f"() => window.__audio.starts.length > {before}")
    started = audio(page)["starts"][before:]
    if did == "knock":
        assert "osc:150" in started or "osc:523" in started, started
    else:
        assert started[0] == "noise", (did, started)
        # the opponent's discard (a card), then the your-turn chime
        wait_for_my_draw(page)
        expect(page).to_have_title("● Your turn — Gin Rummy")
        page.wait_for_function(
            "() => window.__audio.starts.filter(s => s === 'osc:659').length >= 2"
        )

    # play on until a hand ends with a knock or gin: its sound is heard
    kinds: set[str | None] = set()
    deadline = time.monotonic() + 180
    while time.monotonic() < deadline:
        result = page.get_by_test_id("hand-result")
        if result.count():
            kind = result.get_attribute("data-kind")
            kinds.add(kind)
            if kind in ("knock", "undercut", "gin"):
                # the hand's result over the dark table is as readable as the rest
                assert contrast_failures(page) == []
                shot(page, "dark-result-en")
                break
            close_result(page)
            continue
        now = table_state(page)
        if now is not None and now.my_turn and not now.over:
            move_and_wait(page, now)
        else:
            page.wait_for_timeout(30)
    starts = audio(page)["starts"]
    assert kinds & {"knock", "undercut", "gin"}, kinds
    signature = "osc:523" if "gin" in kinds else "osc:150"
    assert signature in starts, (kinds, starts)
    if "undercut" in kinds:
        assert "osc:392" in starts, starts
    assert audio(page)["contexts"] == 1

    # reloaded: sound stays on, and no AudioContext is made before the player's next gesture
    page.reload()
    expect(page.get_by_test_id("table")).to_be_visible()
    online(page)
    assert html_attributes(page)["sound"] == "on"
    assert audio(page) == {"contexts": 0, "starts": []}


def test_the_title_in_arabic(
    gin_server: ServerProcess, ai_seats: None, make_page: MakePage
) -> None:
    page = make_page(TITLE_PROBE, locale="ar-EG")
    start_ai_match(page, gin_server)
    wait_for_my_draw(page)
    expect(page).to_have_title("● دورك — جين رمي")
    state = draw_from_the_stock(page)
    since = titles_set(page)
    move_and_wait(page, state)
    expect_title_set_since(page, since, "جين رمي")


def test_a_notification_when_the_turn_comes_while_the_tab_is_hidden(
    gin_server: ServerProcess, ai_seats: None, make_page: MakePage
) -> None:
    page = make_page(TAB_AND_NOTICES, permissions=["notifications"])
    start_ai_match(page, gin_server)
    open_settings(page)
    notify = page.get_by_test_id("setting-notifications")
    expect(notify).to_be_enabled()
    notify.check()
    expect(notify).to_be_checked()
    close_settings(page)

    # the player discards and looks at another tab; the AI plays; the turn comes back. A hand
    # that a knock ends before the turn comes back (either side's) is played on in view.
    deadline = time.monotonic() + 240
    while True:
        assert time.monotonic() < deadline, "no turn came back to the player within a hand"
        # the turn comes while the tab is seen: no notification
        wait_for_my_draw(page)
        assert page.evaluate("window.__notes") == []
        state = draw_from_the_stock(page)
        page.evaluate("window.__setHidden(true)")
        did = move_and_wait(page, state)
        assert did is not None
        if did.startswith("discard") and the_turn_comes_back(page):
            break
        # the next hand may be dealt at once, its first turn told while the tab was hidden
        page.evaluate("window.__setHidden(false); window.__notes = []")
    page.wait_for_function("() => window.__notes.length > 0")
    notes = page.evaluate("window.__notes")
    assert len(notes) == 1, notes
    assert notes[0]["title"] == "Your turn", notes
    assert notes[0]["body"] == "AI · Normal has played: it is your move in Gin Rummy.", notes
    assert not notes[0]["closed"]
    # back to the tab: the notification goes
    page.evaluate("window.__setHidden(false)")
    assert page.evaluate("window.__notes[0].closed") is True

    # remembered
    page.reload()
    online(page)
    open_settings(page)
    expect(page.get_by_test_id("setting-notifications")).to_be_checked()


def test_a_refused_notification_permission_is_said_plainly(
    gin_server: ServerProcess, make_page: MakePage
) -> None:
    page = make_page(TAB_AND_NOTICES)
    page.goto(gin_server.http_url + "/")
    online(page)
    open_settings(page)
    notify = page.get_by_test_id("setting-notifications")
    notify.click()
    blocked = page.get_by_test_id("notify-blocked")
    expect(blocked).to_contain_text("Notifications are blocked for this site")
    expect(page.get_by_test_id("setting-notifications")).not_to_be_checked()
    stored = page.evaluate("JSON.parse(localStorage.getItem('gin.settings') || '{}')")
    assert stored.get("notifications") is not True, stored


#: The contrast of the page at a moment of the turn, measured in the same task as the moment
#: is recognised (the opponent's reply cannot come between the two): null until it comes.
CONTRAST_WHEN = """(moment) => {
    const table = document.querySelector('[data-testid=table]');
    const status = document.querySelector('[data-testid=turn-status]');
    if (!table || !status || document.querySelector('[data-testid=overlay]')) return null;
    const mine = table.classList.contains('my-turn');
    const phase = table.dataset.phase;
    const now = mine ? (phase === 'discard' ? 'my-discard' : 'my-draw') : 'theirs';
    if (now !== moment || (now === 'my-draw' && phase !== 'draw' && phase !== 'first_draw')) {
        return null;
    }
    return {status: status.textContent, ...(MEASURE)()};
}""".replace("MEASURE", CONTRAST.strip())


def contrast_at(page: Page, moment: str) -> dict[str, Any]:
    """Waits for ``moment`` (my-draw, my-discard, theirs) and measures the page then."""
    found: dict[str, Any] = page.wait_for_function(
        CONTRAST_WHEN, arg=moment, polling="raf", timeout=60_000
    ).json_value()
    assert found["checked"] > 3, found
    return found


@pytest.mark.parametrize("theme", ["light", "dark"])
def test_every_text_on_the_felt_meets_aa_on_my_turn_and_theirs(
    gin_server: ServerProcess, make_page: MakePage, theme: str
) -> None:
    page = make_page(color_scheme=theme)
    rules = m.Rules(target=500)
    with bots_in_a_room(gin_server, guest=False, delay=0.4, rules=rules) as scene:
        take_invite(page, f"{gin_server.http_url}/join/{scene.invite}")
        online(page)
        assert html_attributes(page)["theme"] == theme
        wait_for_my_draw(page)
        found = contrast_at(page, "my-draw")
        assert found["failures"] == [], found
        shot(page, f"turn-text-{theme}-draw")
        draw_from_the_stock(page)
        found = contrast_at(page, "my-discard")
        assert found["failures"] == [], found
        shot(page, f"turn-text-{theme}-discard")
        page.locator("[data-testid=my-hand] button.card.live").first.click()
        found = contrast_at(page, "theirs")
        assert found["failures"] == [], found
