// The page an invite link opens (/join/CODE): who invites and to what (their shown name, rated
// or casual, the match target, the turn clock), read with `invite_info` before sitting down.
// A visitor without a name of their own chooses one (or signs in); a player who has one just
// takes the seat. A wrong, expired or used code says so.

import { h } from "../dom";
import { t } from "../i18n";
import { displayName, isDefaultName, nameFromParts } from "../names";
import type { AppActions } from "./actions";
import { renderSignIn } from "./account";
import { bdi, say } from "./common";

/** The greeting of an invite (docs/protocol.md, `invite_info`). */
export interface InviteGreeting {
  inviter: { name: string | null; name_id: string | null };
  rated: boolean;
  target: number;
  turn_seconds: number;
  turn_bank: number;
  /** Only to a player who sits in the room already. */
  room?: string;
  seat?: number;
}

export interface InviteState {
  code: string;
  greeting: InviteGreeting | null;
  /** The refusal's code (`not_found`, `invite_used`, ...), or null. */
  error: string | null;
  busy: boolean;
}

function clockLine(greeting: InviteGreeting): string {
  if (!greeting.turn_seconds) return t("invite.noClock");
  if (!greeting.turn_bank) return t("invite.clock", { n: greeting.turn_seconds });
  return t("invite.clockBank", { n: greeting.turn_seconds, bank: greeting.turn_bank });
}

function refusal(app: AppActions, code: string): HTMLElement {
  const key = code === "invite_used" ? "invite.used" : code === "not_found" ? "invite.notFound" : code === "too_many_lookups" ? "error.too_many_lookups" : "invite.failed";
  return h(
    "section",
    { class: "panel invite", "data-testid": "invite-refused", "data-code": code },
    h("h1", { tabindex: "-1" }, t("invite.refusedTitle")),
    h("p", null, t(key)),
    h("button", { class: "primary", "data-key": "back-lobby", "data-testid": "invite-lobby", onclick: () => app.navigate({ name: "lobby" }, true) }, t("match.lobby")),
  );
}

export function renderInvite(app: AppActions, state: InviteState | null): HTMLElement {
  if (state?.error) return refusal(app, state.error);
  const greeting = state?.greeting;
  if (!state || !greeting) return h("p", { class: "loading", "data-testid": "invite-loading" }, t("invite.loading"));
  const inviter = nameFromParts({ ...greeting.inviter, ai: null });
  const nameId = app.session.nameId;
  // a name of one's own: an account's, or one chosen before; else the visitor chooses here
  const chooses = app.handle === null && (app.session.name === null || isDefaultName(app.session.name, nameId));
  const shownName = typeof nameId === "string" ? t("player.default", { id: nameId }) : displayName(app.session.name);
  const nameInput = h("input", {
    id: "invite-name",
    "data-key": "invite-name",
    "data-testid": "invite-name",
    maxlength: "32",
    autocomplete: "nickname",
    placeholder: shownName,
  }) as HTMLInputElement;
  const accept = () => void app.acceptInvite(chooses ? nameInput.value : "");
  return h(
    "section",
    { class: "panel invite wide", "data-testid": "invite" },
    h("h1", { tabindex: "-1", "data-testid": "invite-title" }, say("invite.title", { name: bdi(inviter) })),
    h(
      "ul",
      { class: "invite-terms", "data-testid": "invite-terms" },
      h("li", { "data-testid": "invite-kind", "data-rated": greeting.rated ? "true" : "false" }, t(greeting.rated ? "invite.greetRated" : "invite.casual")),
      h("li", { "data-testid": "invite-target" }, t("invite.target", { n: greeting.target })),
      h("li", { "data-testid": "invite-clock" }, clockLine(greeting)),
    ),
    greeting.rated && app.handle === null ? h("p", { class: "hint", "data-testid": "invite-rated-hint" }, t("invite.ratedHint")) : null,
    // what a rated match asks of the joiner: taking the seat below is agreeing to it
    greeting.rated && app.handle !== null ? h("p", { class: "rated-terms", "data-testid": "invite-rated-terms" }, t("join.ratedAsk", { target: greeting.target })) : null,
    h(
      "form",
      { class: "name-form invite-form", onsubmit: (event: Event) => { event.preventDefault(); accept(); } },
      chooses
        ? [h("label", { for: "invite-name" }, t("invite.nameLabel")), nameInput, h("p", { class: "hint" }, t("invite.nameHint"))]
        : [
            // the name the seat takes (an account's name, not its handle), and whose account it is
            h("p", { "data-testid": "invite-playing-as" }, say("invite.playingAs", { name: bdi(shownName) })),
            app.handle === null ? null : h("p", { class: "hint", "data-testid": "invite-signed-in-as" }, say("account.signedInAs", { handle: bdi(app.handle) })),
          ],
      h(
        "div",
        { class: "buttons" },
        h("button", { type: "submit", class: "primary", "data-key": "invite-accept", "data-testid": "invite-accept", disabled: state.busy || app.status !== "online" || (greeting.rated && app.handle === null) }, t(greeting.rated ? "join.ratedYes" : "invite.accept")),
        h("button", { type: "button", "data-key": "invite-decline", "data-testid": "invite-decline", onclick: () => app.navigate({ name: "lobby" }, true) }, t("invite.decline")),
      ),
    ),
    app.handle === null ? h("div", { class: "invite-signin", "data-testid": "invite-signin" }, renderSignIn(app)) : null,
  );
}
