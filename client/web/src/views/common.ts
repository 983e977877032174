// Pieces every page uses: the header (title, connection status, language, navigation) and
// the card faces.

import { cardName, face, sortMeld } from "../cards";
import { h, type Attrs } from "../dom";
import { LANGS, getLang, isLang, t } from "../i18n";
import type { AppActions } from "./actions";

export function renderHeader(app: AppActions): HTMLElement {
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
    h(
      "span",
      { class: `conn conn-${app.status}`, role: "status", "data-testid": "connection", "data-status": app.status },
      h("span", { class: "dot", "aria-hidden": "true" }),
      t(`conn.${app.status}`),
    ),
    h("label", { class: "lang" }, h("span", { class: "sr-only" }, t("nav.language")), select),
  );
}

/** The visible face of a card (rank over suit), always left to right. */
export function cardFace(card: string): HTMLElement {
  const { rank, suit, red } = face(card);
  return h(
    "span",
    { class: `face ${red ? "red" : "black"}`, dir: "ltr", "aria-hidden": "true" },
    h("span", { class: "rank" }, rank),
    h("span", { class: "suit" }, suit),
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
