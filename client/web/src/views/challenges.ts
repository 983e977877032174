// Challenges on the page (challenges.ts keeps them): the banner every page shows while there is
// a challenge to answer (Accept, Decline, the seconds left) or one's own waits or was answered
// (Cancel, or what became of it); the "Challenge" form on another account holder's profile
// (rated or casual, the turn clock, the points the match goes to, the refusal said there); and on one's own profile who may
// challenge one, and the button that allows notifications while the tab is hidden.

import type { ChallengeTerms, ChallengeWho, ReceivedChallenge, SentChallenge } from "../account";
import type { ChallengeInbox } from "../challenges";
import { h } from "../dom";
import { t, type MessageKey } from "../i18n";
import type { AppActions } from "./actions";
import { bdi, say } from "./common";

/** The choice of turn clock a challenge offers (s; 0: none), as the lobby's. */
export const CHALLENGE_CLOCKS = [0, 30, 60, 120];
/** The match a challenge offers unless the sender changes it (points), and the most. */
const CHALLENGE_TARGET = 100;
const MAX_TARGET = 10_000;

const ERRORS: Record<string, MessageKey> = {
  challenge_refused: "challenge.refused",
  too_many_challenges: "challenge.tooMany",
  too_many_challenge_requests: "challenge.limited",
  no_challenge: "challenge.gone",
  challenge_timed_out: "challenge.timedOut",
  too_many_rooms: "challenge.rooms",
  unknown_handle: "friends.unknown",
  invalid_argument: "friends.self",
};

function termsLine(terms: ChallengeTerms, until: number | undefined): HTMLElement {
  const left = Math.max(0, Math.ceil(((until ?? Date.now()) - Date.now()) / 1000));
  return h(
    "span",
    { class: "hint challenge-terms", "data-testid": "challenge-terms", "data-rated": String(terms.rated), "data-turn-seconds": String(terms.turn_seconds), "data-target": String(terms.target) },
    t(terms.rated ? "challenge.rated" : "challenge.casual"),
    " · ",
    t("options.target", { target: terms.target }),
    " · ",
    terms.turn_seconds ? t("options.clockOn", { n: terms.turn_seconds }) : t("options.clockOff"),
    " · ",
    h("span", { "data-challenge-until": String(until ?? Date.now()), "data-testid": "challenge-left" }, t("challenge.left", { n: left })),
  );
}

function who(name: string | null, handle: string | null): HTMLElement | string {
  return bdi(handle ?? name ?? "?");
}

function receivedRow(inbox: ChallengeInbox, entry: ReceivedChallenge, floating: boolean): HTMLElement {
  return h(
    "li",
    { class: "challenge received", "data-testid": "challenge-received", "data-id": entry.id, "data-handle": entry.from.handle },
    h("strong", null, ...say("challenge.from", { name: who(entry.from.name, entry.from.handle) })),
    " ",
    termsLine(entry, inbox.until.get(entry.id)),
    " ",
    h("button", { class: "primary", disabled: inbox.busy, "data-key": `challenge-accept-${entry.id}`, "data-testid": "challenge-accept", onclick: () => void inbox.accept(entry.id) }, t("challenge.accept")),
    " ",
    h("button", { disabled: inbox.busy, "data-key": `challenge-decline-${entry.id}`, "data-testid": "challenge-decline", onclick: () => void inbox.decline(entry.id) }, t("challenge.decline")),
    floating ? " " : null,
    floating ? h("button", { "data-key": `challenge-later-${entry.id}`, "data-testid": "challenge-later", onclick: () => inbox.putAway() }, t("challenge.later")) : null,
  );
}

const OUTCOMES: Partial<Record<SentChallenge["state"], MessageKey>> = {
  declined: "challenge.declined",
  expired: "challenge.expired",
  failed: "challenge.failed",
};

function sentRow(inbox: ChallengeInbox, entry: SentChallenge): HTMLElement {
  const name = who(entry.to.name, entry.to.handle);
  const outcome = OUTCOMES[entry.state];
  if (outcome) {
    return h(
      "li",
      { class: "challenge outcome", role: "alert", "data-testid": "challenge-outcome", "data-state": entry.state, "data-id": entry.id },
      h("span", null, ...say(outcome, { name })),
      " ",
      h("button", { "data-testid": "challenge-close", onclick: () => inbox.close(entry.id) }, t("challenge.close")),
    );
  }
  return h(
    "li",
    { class: "challenge waiting", "data-testid": "challenge-sent", "data-id": entry.id, "data-state": entry.state },
    h("span", null, ...say("challenge.waiting", { name })),
    " ",
    termsLine(entry, inbox.until.get(entry.id)),
    " ",
    h("button", { disabled: inbox.busy, "data-testid": "challenge-cancel", onclick: () => void inbox.cancel(entry.id) }, t("challenge.cancel")),
  );
}

function errorLine(inbox: ChallengeInbox, testid: string): HTMLElement | null {
  if (!inbox.error) return null;
  return h(
    "p",
    { class: "error", role: "alert", "data-testid": testid, "data-code": inbox.error },
    t(ERRORS[inbox.error] ?? "challenge.failedSend"),
    " ",
    h("button", { "data-testid": "challenge-error-close", onclick: () => inbox.close(null) }, t("challenge.close")),
  );
}

/** The banner every page shows above its content while there is a challenge to tell of;
 * ``floating`` over the table (which must not move), where it covers the top of the table:
 * "Later" puts the challenges received out of the way, into the header's button. */
export function renderChallengeBanner(inbox: ChallengeInbox, floating = false): HTMLElement | null {
  const received = inbox.shownReceived;
  const sent = inbox.shownSent;
  const answerError = inbox.error && inbox.errorFor === null;
  if (!received.length && !sent.length && !answerError) return null;
  return h(
    "section",
    { class: floating ? "challenge-banner floating" : "challenge-banner", "aria-label": t("challenge.title"), "data-testid": "challenge-banner" },
    h("ul", { class: "challenge-list" }, received.map((entry) => receivedRow(inbox, entry, floating)), sent.map((entry) => sentRow(inbox, entry))),
    answerError ? errorLine(inbox, "challenge-error") : null,
  );
}

/** The header's button while challenges received wait put off: their number; it shows them. */
export function renderChallengeChip(inbox: ChallengeInbox): HTMLElement | null {
  const waiting = inbox.waitingPutOff;
  if (!waiting) return null;
  return h(
    "button",
    { type: "button", class: "challenge-chip", "data-key": "challenge-chip", "data-testid": "challenge-chip", title: t("challenge.show", { n: waiting }), onclick: () => inbox.bringBack() },
    t("challenge.title"),
    " ",
    h("b", null, String(waiting)),
  );
}

interface FormState {
  rated: boolean;
  clock: number | null;
  target: number;
}

const FORMS = new WeakMap<ChallengeInbox, FormState>();

function formState(inbox: ChallengeInbox): FormState {
  let state = FORMS.get(inbox);
  if (!state) {
    state = { rated: false, clock: null, target: CHALLENGE_TARGET };
    FORMS.set(inbox, state);
  }
  return state;
}

/** The "Challenge" form on another account holder's profile. */
export function renderChallengeForm(app: AppActions, inbox: ChallengeInbox, handle: string): HTMLElement {
  const form = formState(inbox);
  const clock = form.clock ?? app.session.defaultTurnSeconds ?? 30;
  const choices = [...new Set([...CHALLENGE_CLOCKS, clock])].sort((a, b) => a - b);
  const mine = inbox.errorFor !== null && inbox.errorFor.toLocaleLowerCase() === handle.toLocaleLowerCase();
  const sent = inbox.sentTo !== null && inbox.sentTo.toLocaleLowerCase() === handle.toLocaleLowerCase();
  return h(
    "section",
    { class: "panel challenge-form", "aria-labelledby": "h-challenge", "data-testid": "challenge-form" },
    h("h2", { id: "h-challenge" }, t("challenge.sendTitle")),
    h(
      "label",
      { class: "check" },
      h("input", { type: "checkbox", "data-testid": "challenge-rated", checked: form.rated, onchange: (event: Event) => (form.rated = (event.target as HTMLInputElement).checked) }),
      " ",
      t("challenge.ratedOption"),
    ),
    " ",
    h(
      "label",
      null,
      t("options.clockLabel"),
      " ",
      h(
        "select",
        { "data-testid": "challenge-clock", onchange: (event: Event) => (form.clock = Number((event.target as HTMLSelectElement).value)) },
        choices.map((n) => h("option", { value: String(n), selected: clock === n }, n ? t("options.clockOn", { n }) : t("options.clockOff"))),
      ),
    ),
    " ",
    h(
      "label",
      null,
      t("options.targetLabel"),
      " ",
      h("input", {
        type: "number",
        min: "1",
        max: String(MAX_TARGET),
        value: String(form.target),
        "data-testid": "challenge-target",
        onchange: (event: Event) => {
          const value = Number((event.target as HTMLInputElement).value);
          if (Number.isInteger(value) && value >= 1 && value <= MAX_TARGET) form.target = value;
        },
      }),
    ),
    " ",
    h("button", { class: "primary", disabled: inbox.busy, "data-key": "challenge-send", "data-testid": "challenge-send", onclick: () => void inbox.send(handle, form.rated, form.clock ?? clock, form.target) }, t("challenge.send")),
    sent && !mine ? h("p", { class: "hint", role: "status", "data-testid": "challenge-sent-note" }, t("challenge.sent")) : null,
    mine ? errorLine(inbox, "challenge-form-error") : null,
  );
}

const WHO: [ChallengeWho, MessageKey][] = [
  ["friends", "challenge.whoFriends"],
  ["everyone", "challenge.whoEveryone"],
  ["nobody", "challenge.whoNobody"],
];

function notifyControl(app: AppActions): HTMLElement | null {
  if (typeof Notification === "undefined") return null;
  if (Notification.permission === "granted") return h("p", { class: "hint", "data-testid": "challenge-notify-on" }, t("challenge.notifyOn"));
  if (Notification.permission === "denied") return null;
  return h("button", { "data-testid": "challenge-notify", onclick: () => void Notification.requestPermission().then(() => app.render()) }, t("challenge.notify"));
}

/** One's own profile: who may challenge one, and the notifications' button. */
export function renderChallengeSetting(app: AppActions, inbox: ChallengeInbox): HTMLElement {
  const current = inbox.who ?? "friends";
  return h(
    "section",
    { class: "panel", "aria-labelledby": "h-challenge-who", "data-testid": "challenge-setting" },
    h("h2", { id: "h-challenge-who" }, t("challenge.title")),
    h(
      "label",
      null,
      t("challenge.who"),
      " ",
      h(
        "select",
        { "data-testid": "challenge-who", disabled: inbox.busy || inbox.who === null, onchange: (event: Event) => void inbox.setWho((event.target as HTMLSelectElement).value as ChallengeWho) },
        WHO.map(([value, key]) => h("option", { value, selected: current === value }, t(key))),
      ),
    ),
    notifyControl(app),
  );
}
