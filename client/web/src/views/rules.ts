// How to play: the friendly page in the chosen language, how this site works, and the rules
// card of the source documents as the reference.

import { HOW_TO_PLAY, parseDocument, type Block } from "../content";
import { h } from "../dom";
import { t, type Lang } from "../i18n";
import { renderRulesPictures } from "./rules-pictures";

function renderBlock(block: Block, first: boolean): HTMLElement {
  switch (block.kind) {
    case "title":
      return first ? h("h1", { tabindex: "-1" }, block.text) : h("h2", null, block.text);
    case "heading":
      return h("h3", null, block.text);
    case "paragraph":
      return h("p", null, block.text);
    case "list":
      return h(block.ordered ? "ol" : "ul", null, block.items.map((item) => h("li", null, item)));
    case "faq":
      return h("dl", { class: "faq" }, block.items.map((item) => [h("dt", null, item.q), h("dd", null, item.a)]));
  }
}

export function renderRules(lang: Lang, startTutorial: () => void): HTMLElement {
  const [guide, ...cards] = HOW_TO_PLAY[lang];
  return h(
    "article",
    { class: "rules panel", "data-testid": "rules", lang },
    h(
      "p",
      { class: "buttons guided" },
      h("button", { class: "primary", "data-key": "rules-tutorial", "data-testid": "rules-tutorial", onclick: startTutorial }, t("coach.start")),
    ),
    h("section", { class: "document", "data-testid": "how-to-play" }, parseDocument(guide).map((block, at) => renderBlock(block, at === 0))),
    renderRulesPictures(),
    h(
      "section",
      { class: "document controls" },
      h("h2", null, t("rules.controls")),
      h("ul", null, (["rules.c1", "rules.c2", "rules.c3", "rules.c4", "rules.c5", "rules.c6"] as const).map((key) => h("li", null, t(key)))),
    ),
    cards.map((text) =>
      h(
        "details",
        { class: "document rules-card", "data-testid": "rules-card" },
        h("summary", null, t("rules.card")),
        parseDocument(text).map((block) => renderBlock(block, false)),
      ),
    ),
  );
}
