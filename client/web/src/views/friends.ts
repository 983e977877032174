// Friends on a profile page: one's own page lists the friends with their presence (online,
// playing with a watch link where the room is public, offline since when), the requests to
// answer (accept, decline) and those sent (take back), and asks by handle; another account
// holder's page has a button to ask them (or accept their request, or remove them); each
// friend has a Challenge button (casual, the server's turn clock: views/challenges.ts). The list
// comes from /api/friends with this browser's token and is read again every second while the
// page is shown, so a friend's presence changes here within about a second (docs/protocol.md
// "Friends and presence").

import { AccountError, acceptFriend, askFriend, declineFriend, fetchFriends, removeFriend, type Friend, type FriendsList, type Presence, type Profile } from "../account";
import { h } from "../dom";
import { getLang, t, type MessageKey } from "../i18n";
import type { AppActions } from "./actions";
import { bdi } from "./common";

/** The list is read again this often (ms) while its page is shown and visible. */
export const FRIENDS_POLL_MS = 1000;

export interface FriendsState {
  token: string;
  /** The asker's friends and requests; null until loaded (or when it could not be). */
  list: FriendsList | null;
  busy: boolean;
  /** The last refusal's code, or null. */
  error: string | null;
  /** The handle typed into the ask field. */
  typed: string;
  /** Set once the page is left: the reading stops. */
  stopped: boolean;
}

/** Read the list again: whether it changed. A failed reading keeps the list shown and says so
 * only when `report` (the first reading; the next one may well succeed). */
async function read(state: FriendsState, report = true): Promise<boolean> {
  const before = JSON.stringify(state.list);
  try {
    state.list = await fetchFriends(state.token);
  } catch (error) {
    if (!report) return false;
    state.error = error instanceof AccountError ? error.code : "failed";
    return true;
  }
  return JSON.stringify(state.list) !== before;
}

/** This browser's friends list for a profile page (null: no token, or a guest: friends are
 * for account holders, and asking would only be refused), read again every `FRIENDS_POLL_MS`
 * until `stopFriends`. */
export async function loadFriends(app: AppActions, token: string | null): Promise<FriendsState | null> {
  if (!token || app.handle === null) return null;
  const state: FriendsState = { token, list: null, busy: false, error: null, typed: "", stopped: false };
  await read(state);
  if (state.error === "account_required" || state.error === "bad_token") return state;
  const timer = window.setInterval(() => {
    if (state.stopped || app.route.name !== "profile") {
      window.clearInterval(timer);
      return;
    }
    if (document.visibilityState !== "visible" || state.busy) return;
    void read(state, false).then((changed) => {
      if (changed && !state.stopped) app.render();
    });
  }, FRIENDS_POLL_MS);
  return state;
}

export function stopFriends(state: FriendsState | null | undefined): void {
  if (state) state.stopped = true;
}

async function change(app: AppActions, state: FriendsState, step: () => Promise<unknown>): Promise<void> {
  state.busy = true;
  state.error = null;
  app.render();
  try {
    await step();
  } catch (error) {
    state.error = error instanceof AccountError ? error.code : "failed";
  }
  await read(state, false);
  state.busy = false;
  app.render();
}

const ERRORS: Record<string, MessageKey> = {
  friend_request_refused: "friends.refused",
  too_many_friend_requests: "friends.limited",
  too_many_open_friend_requests: "friends.limited",
  too_many_friends: "friends.full",
  unknown_handle: "friends.unknown",
  bad_handle: "friends.unknown",
  invalid_argument: "friends.self",
  account_required: "friends.account",
};

function errorLine(state: FriendsState): HTMLElement | null {
  if (!state.error) return null;
  return h("p", { class: "error", role: "alert", "data-testid": "friends-error", "data-code": state.error }, t(ERRORS[state.error] ?? "friends.failed"));
}

function sameHandle(a: string, b: string): boolean {
  return a.toLocaleLowerCase() === b.toLocaleLowerCase();
}

function when(ms: number): string {
  return new Date(ms).toLocaleString(getLang(), { dateStyle: "medium", timeStyle: "short" });
}

function presenceLine(app: AppActions, presence: Presence): HTMLElement {
  if (presence.state === "offline") {
    return h("span", { class: "presence offline", "data-testid": "friend-presence", "data-state": "offline" }, t("friends.offline"), " · ", presence.seen === null ? t("friends.seenNever") : t("friends.seen", { when: when(presence.seen) }));
  }
  if (presence.state === "playing") {
    const watch = presence.watch;
    return h(
      "span",
      { class: "presence playing", "data-testid": "friend-presence", "data-state": "playing" },
      t("friends.playing"),
      watch
        ? [" · ", h("a", { href: watch, "data-testid": "friend-watch", onclick: (event: MouseEvent) => { if (event.ctrlKey || event.metaKey) return; event.preventDefault(); app.navigate({ name: "room", id: watch.split("/").pop() ?? "" }); } }, t("friends.watch"))]
        : null,
    );
  }
  return h("span", { class: "presence online", "data-testid": "friend-presence", "data-state": "online" }, t("friends.online"));
}

function profileLink(app: AppActions, handle: string): HTMLElement {
  return h("a", { href: `/@/${encodeURIComponent(handle)}`, "data-testid": "friend-handle", onclick: (event: MouseEvent) => { event.preventDefault(); app.navigate({ name: "profile", handle }); } }, bdi(handle));
}

function button(app: AppActions, state: FriendsState, key: string, label: MessageKey, step: () => Promise<unknown>): HTMLElement {
  return h("button", { disabled: state.busy, "data-testid": key, onclick: () => void change(app, state, step) }, t(label));
}

function friendRow(app: AppActions, state: FriendsState, friend: Friend): HTMLElement {
  return h(
    "li",
    { "data-testid": "friend", "data-handle": friend.handle },
    profileLink(app, friend.handle),
    " ",
    presenceLine(app, friend.presence),
    " ",
    h("button", { disabled: app.challenges.busy, "data-testid": "friend-challenge", onclick: () => void app.challenges.send(friend.handle, false, app.session.defaultTurnSeconds ?? 30, undefined, false) }, t("challenge.send")),
    " ",
    button(app, state, "friend-remove", "friends.remove", () => removeFriend(state.token, friend.handle)),
  );
}

function askForm(app: AppActions, state: FriendsState): HTMLElement {
  const submit = (event: Event): void => {
    event.preventDefault();
    const handle = state.typed.trim();
    if (handle) void change(app, state, () => askFriend(state.token, handle).then(() => { state.typed = ""; }));
  };
  return h(
    "form",
    { class: "friend-ask", onsubmit: submit },
    h("label", { for: "friend-handle" }, t("friends.handle")),
    " ",
    h("input", { id: "friend-handle", "data-key": "friend-handle", "data-testid": "friend-handle-input", value: state.typed, autocomplete: "off", maxlength: "60", dir: "auto", oninput: (event: Event) => { state.typed = (event.target as HTMLInputElement).value; } }),
    " ",
    h("button", { type: "submit", disabled: state.busy, "data-key": "friend-ask", "data-testid": "friend-ask" }, t("friends.ask")),
  );
}

function ownList(app: AppActions, state: FriendsState): HTMLElement {
  const list = state.list;
  if (state.error === "account_required") {
    return h("section", { class: "panel", "data-testid": "profile-friends" }, h("h2", null, t("friends.title")), h("p", { class: "hint" }, t("friends.account")));
  }
  return h(
    "section",
    { class: "panel", "aria-labelledby": "h-friends", "data-testid": "profile-friends" },
    h("h2", { id: "h-friends" }, t("friends.title")),
    h("p", { class: "hint" }, t("friends.hint")),
    list && list.friends.length
      ? h("ul", { class: "friend-list", "data-testid": "friend-list" }, list.friends.map((friend) => friendRow(app, state, friend)))
      : h("p", { class: "hint", "data-testid": "friends-none" }, t("friends.none")),
    list && list.received.length
      ? [
          h("h3", null, t("friends.received")),
          h(
            "ul",
            { class: "friend-list", "data-testid": "friend-requests" },
            list.received.map((entry) =>
              h(
                "li",
                { "data-testid": "friend-request", "data-handle": entry.handle },
                profileLink(app, entry.handle),
                " ",
                button(app, state, "friend-accept", "friends.accept", () => acceptFriend(state.token, entry.handle)),
                " ",
                button(app, state, "friend-decline", "friends.decline", () => declineFriend(state.token, entry.handle)),
              ),
            ),
          ),
        ]
      : null,
    list && list.sent.length
      ? [
          h("h3", null, t("friends.sent")),
          h(
            "ul",
            { class: "friend-list", "data-testid": "friend-sent" },
            list.sent.map((entry) => h("li", { "data-testid": "friend-asked", "data-handle": entry.handle }, profileLink(app, entry.handle), " ", button(app, state, "friend-cancel", "friends.cancel", () => removeFriend(state.token, entry.handle)))),
          ),
        ]
      : null,
    askForm(app, state),
    errorLine(state),
  );
}

function otherPlayer(app: AppActions, state: FriendsState, handle: string): HTMLElement | null {
  const list = state.list;
  if (!list) return state.error && state.error !== "account_required" ? h("section", { class: "panel", "data-testid": "profile-friend" }, errorLine(state)) : null;
  const friend = list.friends.find((entry) => sameHandle(entry.handle, handle));
  const asksMe = list.received.some((entry) => sameHandle(entry.handle, handle));
  const asked = list.sent.some((entry) => sameHandle(entry.handle, handle));
  let body: (HTMLElement | string | null)[];
  if (friend) {
    body = [h("p", { "data-testid": "friend-note" }, t("friends.isFriend"), " ", presenceLine(app, friend.presence)), button(app, state, "friend-remove", "friends.remove", () => removeFriend(state.token, handle))];
  } else if (asksMe) {
    body = [h("p", { "data-testid": "friend-note" }, t("friends.asksYou")), button(app, state, "friend-accept", "friends.accept", () => acceptFriend(state.token, handle)), " ", button(app, state, "friend-decline", "friends.decline", () => declineFriend(state.token, handle))];
  } else if (asked) {
    body = [h("p", { "data-testid": "friend-note" }, t("friends.asked")), button(app, state, "friend-cancel", "friends.cancel", () => removeFriend(state.token, handle))];
  } else {
    body = [button(app, state, "friend-add", "friends.add", () => askFriend(state.token, handle))];
  }
  return h("section", { class: "panel", "data-testid": "profile-friend" }, ...body, errorLine(state));
}

/** The profile page's friends section: one's own list, or a friend button on another's. */
export function renderFriends(app: AppActions, profile: Profile, state: FriendsState | null | undefined): HTMLElement | null {
  if (!state) return null;
  if (profile.me) return ownList(app, state);
  return profile.handle ? otherPlayer(app, state, profile.handle) : null;
}
