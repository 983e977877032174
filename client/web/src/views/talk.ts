// Quick messages at the table: the button at the player's seat that opens the menu of
// translated phrases and emotes (and the mute), and the bubble shown for a few seconds beside
// the seat that said something. Only the two people of a room talk: no watcher, no AI seat.

import { h } from "../dom";
import { t, type MessageKey } from "../i18n";
import type { RoomView } from "../protocol";
import { EMOTES, PHRASES, isEmote, type QuickMessage } from "../talk";
import type { AppActions } from "./actions";
import { emotePicture } from "./emotes";

/** The words of a quick message in the reader's language (an emote's name). */
export function phraseText(phrase: QuickMessage): string {
  return t((isEmote(phrase) ? `talk.emote.${phrase}` : `talk.phrase.${phrase}`) as MessageKey);
}

/** Whether the reader plays this room against a person (someone to talk to). */
export function canTalk(view: RoomView): boolean {
  if (view.seat === null || !view.game) return false;
  const other = view.seats?.[1 - view.seat];
  return Boolean(other && !other.open && !other.ai);
}

/** The bubble beside `seat`, while it shows something. */
export function renderTalkBubble(app: AppActions, view: RoomView, seat: number): HTMLElement | null {
  const bubble = app.talk.bubble(seat);
  if (!bubble || view.seat === null) return null;
  const mine = seat === view.seat;
  const phrase = bubble.phrase;
  const emote = isEmote(phrase);
  return h(
    "p",
    {
      class: `talk-bubble ${mine ? "mine" : "theirs"}${emote ? " is-emote" : ""}`,
      "data-testid": `talk-bubble-${seat}`,
      "data-phrase": phrase,
      "data-serial": String(bubble.serial),
      "aria-hidden": "true", // the page's live region says it (app.ts)
    },
    isEmote(phrase) ? emotePicture(phrase) : null,
    h("span", { class: emote ? "sr-only" : "talk-words", dir: "auto" }, phraseText(phrase)),
  );
}

/** The quick-message button and, when open, its menu; null when there is nobody to talk to.
 * At the player's seat while the match is on; beside the match's end once it is over (the
 * table is inert then, and "Good game!" is what people say). */
export function renderTalkControl(app: AppActions, view: RoomView, place: "seat" | "match-over" = "seat"): HTMLElement | null {
  if (!canTalk(view) || view.seat === null) return null;
  if ((view.status === "finished") !== (place === "match-over")) return null;
  // an opponent who left the match (a forfeit) is not there to read it
  if (typeof view.forfeit === "number") return null;
  const talk = app.talk;
  const name = app.seatName(view, 1 - view.seat);
  const toggle = h(
    "button",
    {
      class: `talk-toggle${talk.muted ? " muted" : ""}`,
      type: "button",
      "data-key": "talk-toggle",
      "data-testid": "talk-toggle",
      "aria-expanded": talk.open ? "true" : "false",
      "aria-controls": "talk-menu",
      title: t("talk.open"),
      onclick: () => talk.setOpen(!talk.open),
    },
    h("span", { class: "talk-icon", "aria-hidden": "true" }),
    h("span", { class: "talk-label" }, t("talk.open")),
  );
  const menu = talk.open
    ? h(
        "div",
        { class: "talk-menu", id: "talk-menu", role: "group", "aria-label": t("talk.menu", { name }), "data-testid": "talk-menu" },
        h(
          "div",
          { class: "talk-phrases" },
          PHRASES.map((phrase) =>
            h(
              "button",
              { type: "button", class: "talk-phrase", "data-key": `talk-${phrase}`, "data-testid": `talk-${phrase}`, onclick: () => app.say(phrase) },
              phraseText(phrase),
            ),
          ),
        ),
        h(
          "div",
          { class: "talk-emotes" },
          EMOTES.map((emote) =>
            h(
              "button",
              {
                type: "button",
                class: "talk-emote",
                "data-key": `talk-${emote}`,
                "data-testid": `talk-${emote}`,
                "aria-label": phraseText(emote),
                title: phraseText(emote),
                onclick: () => app.say(emote),
              },
              emotePicture(emote),
            ),
          ),
        ),
        h(
          "button",
          {
            type: "button",
            class: "talk-mute",
            "data-key": "talk-mute",
            "data-testid": "talk-mute",
            "aria-pressed": talk.muted ? "true" : "false",
            onclick: () => talk.setMuted(!talk.muted),
          },
          t("talk.mute", { name }),
        ),
      )
    : null;
  return h(
    "div",
    { class: `talk talk-at-${place}`, "data-testid": "talk" },
    toggle,
    talk.muted ? h("span", { class: "talk-muted-note", "data-testid": "talk-muted" }, t("talk.muted", { name })) : null,
    menu,
  );
}
