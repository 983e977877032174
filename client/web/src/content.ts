// The how-to-play texts: the player-facing page with its questions and answers in every
// language (the Arabic one is the source document, shared/seeds; the others are written from
// it with the game terms of each language's rules card), then the rules card of the source
// documents, as it was written, for reference.

import howToAr from "./content/how-to-play.ar.txt?raw";
import howToEn from "./content/how-to-play.en.txt?raw";
import howToKa from "./content/how-to-play.ka.txt?raw";
import howToRu from "./content/how-to-play.ru.txt?raw";
import howToTr from "./content/how-to-play.tr.txt?raw";
import rulesAr from "./content/rules-card.ar.txt?raw";
import rulesKa from "./content/rules-card.ka.txt?raw";
import rulesRu from "./content/rules-card.ru.txt?raw";
import rulesTr from "./content/rules-card.tr.txt?raw";
import type { Lang } from "./i18n";

// The Arabic page ends with a link block to "other games in the network", which this site
// does not have: it is left out.
const howToArPage = howToAr.split("ألعاب أخرى في الشبكة")[0];

/** Per language: the how-to-play page first, then the rules card (none in English). */
export const HOW_TO_PLAY: Record<Lang, string[]> = {
  en: [howToEn],
  ar: [howToArPage, rulesAr],
  ka: [howToKa, rulesKa],
  ru: [howToRu, rulesRu],
  tr: [howToTr, rulesTr],
};

export type Block =
  | { kind: "title"; text: string }
  | { kind: "heading"; text: string }
  | { kind: "paragraph"; text: string }
  | { kind: "list"; ordered: boolean; items: string[] }
  | { kind: "faq"; items: { q: string; a: string }[] };

const ENDS_SENTENCE = /[.:!?؟।。…»"”)]$/u;

/** Split a plain-text document into blocks: the first line is the title, short lines without
 * final punctuation are headings, "1." lines an ordered list, "•" lines a list, and "- "
 * lines question/answer pairs. */
export function parseDocument(text: string): Block[] {
  const lines = text.split(/\r?\n/).map((line) => line.trim());
  const blocks: Block[] = [];
  let first = true;
  for (const line of lines) {
    if (!line) continue;
    const last = blocks[blocks.length - 1];
    if (first) {
      blocks.push({ kind: "title", text: line });
      first = false;
      continue;
    }
    const ordered = /^\d+\.\s+(.*)$/.exec(line);
    const bullet = /^[•·]\s*(.*)$/.exec(line);
    const faq = /^-\s+(.*)$/.exec(line);
    if (ordered || bullet) {
      const item = (ordered ?? bullet)![1];
      const isOrdered = Boolean(ordered);
      if (last && last.kind === "list" && last.ordered === isOrdered) last.items.push(item);
      else blocks.push({ kind: "list", ordered: isOrdered, items: [item] });
    } else if (faq) {
      if (last && last.kind === "faq" && last.items.length && !last.items[last.items.length - 1].a) {
        last.items[last.items.length - 1].a = faq[1];
      } else if (last && last.kind === "faq") {
        last.items.push({ q: faq[1], a: "" });
      } else {
        blocks.push({ kind: "faq", items: [{ q: faq[1], a: "" }] });
      }
    } else if (line.length <= 60 && !ENDS_SENTENCE.test(line)) {
      blocks.push({ kind: "heading", text: line });
    } else {
      blocks.push({ kind: "paragraph", text: line });
    }
  }
  return blocks;
}
