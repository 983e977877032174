// Pieces every page uses: the header (title, connection status, language, navigation) and
// the card faces.

import { cardName, face, sortMeld, suitOf } from "../cards";
import { h, type Attrs, type Child } from "../dom";
import { DICTIONARIES, LANGS, getLang, isLang, t, type MessageKey } from "../i18n";
import type { AppActions, Question } from "./actions";

/** A name kept whole inside text of either direction (a Latin name in an Arabic heading). */
export function bdi(name: string): HTMLElement {
  return h("bdi", null, name);
}

/** A rating's change as the match's end and the profile show it: "1512 → 1527, +15" (numbers
 * left to right in every language). */
export function ratingChangeText(before: number, after: number, delta?: number): string {
  const change = delta ?? Math.round(after) - Math.round(before);
  return `${Math.round(before)} → ${Math.round(after)}, ${change >= 0 ? "+" : "−"}${Math.abs(change)}`;
}

/** A translated sentence whose parameters may be elements (names in <bdi>). */
export function say(key: MessageKey, params: Record<string, Child> = {}): Child[] {
  const template = DICTIONARIES[getLang()][key] ?? DICTIONARIES.en[key];
  return template.split(/(\{\w+\})/).map((part) => {
    const name = /^\{(\w+)\}$/.exec(part)?.[1];
    return name !== undefined && name in params ? params[name] : part;
  });
}

/** `say` of a sentence about a seat: the "you" form when it is the reader's own. */
export function saySeat(key: string, isMe: boolean, params: Record<string, Child> = {}): Child[] {
  const own = `${key}.me`;
  return say((isMe && own in DICTIONARIES.en ? own : key) as MessageKey, params);
}

/** The page's yes/no question, over everything else. */
export function renderQuestion(app: AppActions, question: Question): HTMLElement {
  return h(
    "div",
    { class: "question-backdrop" },
    h(
      "section",
      { class: "question panel", role: "alertdialog", "aria-modal": "true", "aria-labelledby": "question-text", "data-testid": "confirm" },
      h("p", { id: "question-text" }, question.text),
      h(
        "div",
        { class: "buttons" },
        h("button", { class: "primary", "data-key": "confirm-yes", "data-testid": "confirm-yes", onclick: () => app.answer(true) }, question.yes),
        h("button", { "data-key": "confirm-no", "data-testid": "confirm-no", onclick: () => app.answer(false) }, t("action.cancel")),
      ),
    ),
  );
}

/** The page's header; ``aside``: what waits for the player beside the connection (the
 * challenges put off). */
export function renderHeader(app: AppActions, aside: HTMLElement | null = null): HTMLElement {
  const select = h(
    "select",
    {
      id: "lang",
      "data-key": "lang",
      "aria-label": t("nav.language"),
      onchange: (event: Event) => {
        const value = (event.target as HTMLSelectElement).value;
        if (isLang(value)) app.changeLang(value);
      },
    },
    LANGS.map((lang) => h("option", { value: lang.code, lang: lang.code, selected: lang.code === getLang() }, lang.name)),
  );
  const link = (name: "lobby" | "rules", label: string) =>
    h(
      "a",
      {
        href: name === "lobby" ? "/" : "/rules",
        "data-key": `nav-${name}`,
        "aria-current": app.route.name === name ? "page" : undefined,
        onclick: (event: MouseEvent) => {
          if (event.ctrlKey || event.metaKey || event.shiftKey) return;
          event.preventDefault();
          app.navigate({ name });
        },
      },
      label,
    );
  return h(
    "header",
    { class: "topbar" },
    h("a", { class: "skip", href: "#main" }, "↓"),
    h("span", { class: "brand", "aria-hidden": "true" }, "♠♥"),
    h("span", { class: "title" }, t("app.title")),
    h("nav", { "aria-label": t("app.title") }, link("lobby", t("nav.lobby")), link("rules", t("nav.rules"))),
    aside,
    h(
      "span",
      { class: `conn conn-${app.status}`, role: "status", "data-testid": "connection", "data-status": app.status },
      h("span", { class: "dot", "aria-hidden": "true" }),
      t(`conn.${app.status}`),
    ),
    h("label", { class: "lang" }, h("span", { class: "sr-only" }, t("nav.language")), select),
    settingsButton(app),
  );
}

/** The header's way to the settings dialog: three sliders, and the word on wide screens. */
function settingsButton(app: AppActions): HTMLElement {
  const svg = document.createElementNS("http://www.w3.org/2000/svg", "svg");
  svg.setAttribute("viewBox", "0 0 20 20");
  svg.setAttribute("aria-hidden", "true");
  svg.setAttribute("focusable", "false");
  for (const [y, x] of [[4, 13], [10, 6], [16, 11]]) {
    const line = document.createElementNS("http://www.w3.org/2000/svg", "path");
    line.setAttribute("d", `M2 ${y}H18`);
    line.setAttribute("stroke", "currentColor");
    line.setAttribute("stroke-width", "1.8");
    line.setAttribute("stroke-linecap", "round");
    const knob = document.createElementNS("http://www.w3.org/2000/svg", "circle");
    knob.setAttribute("cx", String(x));
    knob.setAttribute("cy", String(y));
    knob.setAttribute("r", "2.6");
    knob.setAttribute("fill", "currentColor");
    svg.append(line, knob);
  }
  return h(
    "button",
    { type: "button", class: "settings-open", "data-key": "settings", "data-testid": "settings-open", "aria-haspopup": "dialog", onclick: () => app.openSettings() },
    svg,
    h("span", { class: "label" }, t("settings.title")),
  );
}

/** The visible face of a card, always left to right: the index (rank over suit) at the top
 * left and, turned, at the bottom right, so that a card overlapped by the next one can be read;
 * in the middle one large suit symbol, or for a court card its letter (cards.css). */
export function cardFace(card: string): HTMLElement {
  const { rank, suit, red } = face(card);
  const court = ["J", "Q", "K"].includes(rank);
  const index = (corner: "tl" | "br") =>
    h("span", { class: `index ${corner}` }, h("span", { class: "rank" }, rank), h("span", { class: "suit" }, suit));
  return h(
    "span",
    { class: `face ${red ? "red" : "black"} suit-${suitOf(card)}${court ? " court" : ""}`, dir: "ltr", "aria-hidden": "true" },
    index("tl"),
    h("span", { class: "middle" }, court ? h("span", { class: "letter" }, rank) : null, h("span", { class: "pip" }, suit)),
    index("br"),
  );
}

/** A card that is only shown (results, replays, the discard pile when it cannot be taken). */
export function cardView(card: string, attrs: Attrs = {}): HTMLElement {
  const extra = typeof attrs.class === "string" ? ` ${attrs.class}` : "";
  return h("span", { ...attrs, class: `card${extra}`, role: "img", "aria-label": cardName(card), "data-card": card }, cardFace(card));
}

export function cardBack(attrs: Attrs = {}): HTMLElement {
  const extra = typeof attrs.class === "string" ? ` ${attrs.class}` : "";
  return h("span", { ...attrs, class: `card back${extra}`, "aria-hidden": "true" });
}

/** A meld or a deadwood group shown small, in reading order. */
export function cardGroup(cards: readonly string[], kind: "meld" | "deadwood", extra: Attrs = {}): HTMLElement {
  const ordered = kind === "meld" ? sortMeld(cards) : [...cards];
  const label = kind === "meld" ? t("table.meld") : t("table.deadwoodGroup");
  return h(
    "span",
    { ...extra, class: `group group-${kind} small`, role: "group", "aria-label": label, dir: "ltr" },
    ordered.map((card) => cardView(card)),
  );
}
