// How to play: how this page works, then the source documents in the chosen language.

import { HOW_TO_PLAY, parseDocument, type Block } from "../content";
import { h } from "../dom";
import { t, type Lang } from "../i18n";

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

export function renderRules(lang: Lang): HTMLElement {
  const documents = HOW_TO_PLAY[lang];
  return h(
    "article",
    { class: "rules panel", "data-testid": "rules", lang },
    documents.map((text, index) => h("section", { class: "document" }, parseDocument(text).map((block, at) => renderBlock(block, index === 0 && at === 0)))),
    h(
      "section",
      { class: "document controls" },
      h("h2", null, t("rules.controls")),
      h("ul", null, (["rules.c1", "rules.c2", "rules.c3", "rules.c4", "rules.c5"] as const).map((key) => h("li", null, t(key)))),
    ),
  );
}
