"""Accounts in real headless Chromium with its virtual authenticator (CDP ``WebAuthn``): a
guest opens a room, keeps the player with a passkey on one browser context, signs in with the
same passkey on a second context (a synced passkey: the credential copied between the two
virtual authenticators), sees the same stats and goes back to the same room in play; then
signs out everywhere, its own inbox being read beside it on a slow network. Screenshots of the
account panel (English, Arabic) go to ``build/screenshots/``.
"""

from __future__ import annotations

import re
from typing import Any

from playwright.sync_api import Page, expect

from tests.browser.conftest import NewPage
from tests.browser.helpers import ConsoleWatch, shot
from tests.browser.scenes import online
from tests.support.fixtures import FAST_CLIENT_ENV, ServerFactory
from tests.support.ports import free_port

AUTHENTICATOR = {
    "protocol": "ctap2",
    "transport": "internal",
    "hasResidentKey": True,
    "hasUserVerification": True,
    "isUserVerified": True,
    "automaticPresenceSimulation": True,
}


#: A slow network from a moment of the page on (``window.__slowSignOut = true``): a reading of
#: the challenge inbox leaves the page 0.5 s late (``__inboxHeld`` is true while one waits),
#: and the answer to a sign-out and the server's messages on the socket reach it 1 s late. A
#: reading under way beside the sign-out would reach the server after the token is gone, and
#: its refusal would reach the page before the server's notice of the sign-out.
SLOW_SIGN_OUT = """(() => {
  const realFetch = window.fetch.bind(window);
  const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
  window.fetch = async (input, init) => {
    const url = String(input instanceof Request ? input.url : input);
    if (window.__slowSignOut && url.includes("/api/challenges")) {
      window.__inboxHeld = true;
      await sleep(500);
      window.__inboxHeld = false;
    }
    const reply = await realFetch(input, init);
    if (window.__slowSignOut && url.includes("/api/account/signout")) await sleep(1000);
    return reply;
  };
  const slot = Object.getOwnPropertyDescriptor(WebSocket.prototype, "onmessage");
  Object.defineProperty(WebSocket.prototype, "onmessage", {
    configurable: true,
    get() { return slot.get.call(this); },
    set(handler) {
      const now = (event) => handler.call(this, event);
      const late = (event) => setTimeout(() => now(event), 1000);
      slot.set.call(this, handler && ((event) => (window.__slowSignOut ? late : now)(event)));
    },
  });
})();"""


def authenticator(page: Page) -> tuple[Any, str]:
    cdp = page.context.new_cdp_session(page)
    cdp.send("WebAuthn.enable")
    reply = cdp.send("WebAuthn.addVirtualAuthenticator", {"options": AUTHENTICATOR})
    return cdp, str(reply["authenticatorId"])


def test_a_passkey_keeps_the_player_on_a_second_browser(
    new_page: NewPage, server_factory: ServerFactory, console: ConsoleWatch
) -> None:
    port = free_port()
    server = server_factory(
        env={**FAST_CLIENT_ENV, "GIN_PUBLIC_ORIGIN": f"http://localhost:{port}"}, port=port
    )
    site = f"http://localhost:{port}"
    first = new_page()
    cdp1, auth1 = authenticator(first)
    first.goto(site + "/")
    online(first)
    first.get_by_test_id("create-private").click()
    expect(first).to_have_url(re.compile(r"/room/"))
    room = first.url.rsplit("/room/", 1)[1].split("?")[0]
    invite = first.get_by_test_id("invite-link").input_value()
    first.locator("[data-key=nav-lobby]").click()
    stats = first.get_by_test_id("stats").inner_text()
    shot(first, "account-guest-en")
    first.get_by_test_id("claim-handle").fill("Ада_Passkey")
    first.get_by_test_id("claim-passkey-go").click()
    expect(first.get_by_test_id("signed-in-as")).to_contain_text("Ада_Passkey")
    online(first)
    shot(first, "account-signed-in-en")
    credentials = cdp1.send("WebAuthn.getCredentials", {"authenticatorId": auth1})["credentials"]
    assert len(credentials) == 1 and credentials[0]["isResidentCredential"]

    # another device (a fresh context: empty storage), in Arabic, with the synced passkey
    second = new_page(locale="ar")
    second.add_init_script(SLOW_SIGN_OUT)
    cdp2, auth2 = authenticator(second)
    for credential in credentials:
        cdp2.send("WebAuthn.addCredential", {"authenticatorId": auth2, "credential": credential})
    second.goto(site + "/")
    online(second)
    expect(second.locator("html")).to_have_attribute("dir", "rtl")
    shot(second, "account-guest-ar")
    second.get_by_test_id("signin-passkey-go").click()
    expect(second.get_by_test_id("signed-in-as")).to_contain_text("Ада_Passkey")
    online(second)
    expect(second.get_by_test_id("stats")).to_be_visible()
    shot(second, "account-signed-in-ar")
    # the same player: the same stats (in Arabic labels, the same numbers) and the room in play
    digits = re.findall(r"\d+", stats)
    assert re.findall(r"\d+", second.get_by_test_id("stats").inner_text()) == digits
    second.get_by_test_id(f"back-to-{room}").click()
    expect(second).to_have_url(re.compile(f"/room/{room}"))
    # the same room, seen as its host: the invite of the first browser
    expect(second.get_by_test_id("invite-link")).to_have_value(invite)
    shot(second, "account-resumed-room-ar")
    second.locator("[data-key=nav-lobby]").click()

    # sign out everywhere from the second: the first is cut off and becomes a guest (its
    # inbox, read every second, may be refused once before the server's notice reaches it)
    console.cut_off(first)
    # the second signs out while its own inbox is being read: that reading ends before the
    # sign-out is sent, and none follows it (a refusal would be a console error of `second`)
    second.evaluate("window.__slowSignOut = true")
    second.wait_for_function("window.__inboxHeld === true")
    second.get_by_test_id("sign-out-everywhere").click()
    expect(second.get_by_test_id("claim-open")).to_be_visible()
    expect(first.get_by_test_id("claim-open")).to_be_visible(timeout=20_000)
    refused = len(console.refused)
    first.wait_for_timeout(2_500)  # more than two readings of the inbox
    assert len(console.refused) == refused, "a guest's page went on reading with the old token"
    assert refused <= 1, console.refused
    status, reply = server.get_json("/api/account")
    assert status == 401 and reply["error"] == "not_authenticated"
