// "How to play" in pictures: melds, deadwood, a knock, gin and an undercut drawn with the
// page's own card faces, each with a line that counts it.

import { h } from "../dom";
import { t, type MessageKey } from "../i18n";
import { cardGroup } from "./common";

interface Picture {
  key: string;
  title: MessageKey;
  caption: MessageKey;
  /** Rows of groups: each a meld or deadwood, left to right as cards are read. */
  rows: { label?: MessageKey; groups: { cards: string[]; kind: "meld" | "deadwood" }[] }[];
}

const PICTURES: readonly Picture[] = [
  {
    key: "melds",
    title: "pictures.melds",
    caption: "pictures.meldsText",
    rows: [{ groups: [{ cards: ["7C", "7D", "7S"], kind: "meld" }, { cards: ["4H", "5H", "6H", "7H"], kind: "meld" }] }],
  },
  {
    key: "deadwood",
    title: "pictures.deadwood",
    caption: "pictures.deadwoodText",
    rows: [{ groups: [{ cards: ["9C", "9D", "9H"], kind: "meld" }, { cards: ["2S", "3S", "4S"], kind: "meld" }, { cards: ["KS", "3D", "2C", "AH"], kind: "deadwood" }] }],
  },
  {
    key: "knock",
    title: "pictures.knock",
    caption: "pictures.knockText",
    rows: [{ groups: [{ cards: ["AC", "2C", "3C", "4C"], kind: "meld" }, { cards: ["9D", "9H", "9S"], kind: "meld" }, { cards: ["2H", "5S", "AS", "KD"], kind: "deadwood" }] }],
  },
  {
    key: "gin",
    title: "pictures.gin",
    caption: "pictures.ginText",
    rows: [{ groups: [{ cards: ["5S", "6S", "7S", "8S"], kind: "meld" }, { cards: ["JC", "JD", "JH"], kind: "meld" }, { cards: ["2D", "3D", "4D"], kind: "meld" }] }],
  },
  {
    key: "undercut",
    title: "pictures.undercut",
    caption: "pictures.undercutText",
    rows: [
      { label: "pictures.knocker", groups: [{ cards: ["TC", "JC", "QC"], kind: "meld" }, { cards: ["4D", "4H", "4S"], kind: "meld" }, { cards: ["7C", "7H", "7S"], kind: "meld" }, { cards: ["8H"], kind: "deadwood" }] },
      { label: "pictures.defender", groups: [{ cards: ["6C", "6D", "6H", "6S"], kind: "meld" }, { cards: ["8S", "9S", "TS"], kind: "meld" }, { cards: ["AD", "2D", "3C"], kind: "deadwood" }] },
    ],
  },
];

export function renderRulesPictures(): HTMLElement {
  return h(
    "section",
    { class: "document rules-pictures", "data-testid": "rules-pictures", "aria-labelledby": "pictures-title" },
    h("h2", { id: "pictures-title" }, t("pictures.title")),
    PICTURES.map((picture) =>
      h(
        "figure",
        { class: "rules-picture", "data-testid": `picture-${picture.key}` },
        h("h3", null, t(picture.title)),
        picture.rows.map((row) =>
          h(
            "div",
            { class: "picture-row" },
            row.label ? h("span", { class: "picture-label" }, t(row.label)) : null,
            h("div", { class: "groups" }, row.groups.map((group) => cardGroup(group.cards, group.kind))),
          ),
        ),
        h("figcaption", null, t(picture.caption)),
      ),
    ),
  );
}
