import { describe, expect, it } from "vitest";
import { cardName, face, sortCards, sortMeld } from "../src/cards";
import { HOW_TO_PLAY, parseDocument } from "../src/content";
import { DICTIONARIES, LANGS, detectLang, direction, format, t, tSeat } from "../src/i18n";
import { en } from "../src/i18n/en";

const placeholders = (text: string) => [...text.matchAll(/\{(\w+)\}/g)].map((match) => match[1]).sort();

describe("dictionaries", () => {
  it("every language translates every key with the same placeholders", () => {
    for (const { code } of LANGS) {
      const dictionary = DICTIONARIES[code];
      expect(Object.keys(dictionary).sort(), code).toEqual(Object.keys(en).sort());
      for (const [key, text] of Object.entries(en)) {
        const translated = dictionary[key as keyof typeof en];
        expect(translated.trim().length, `${code} ${key}`).toBeGreaterThan(0);
        expect(placeholders(translated), `${code} ${key}`).toEqual(placeholders(text));
      }
    }
  });

  it("uses the game terms of the source documents", () => {
    const terms: Record<string, { knock: string; deadwood: string }> = {
      ar: { knock: "طرق", deadwood: "الأوراق الميتة" },
      ru: { knock: "нок", deadwood: "штрафные очки" },
      tr: { knock: "masaya vur", deadwood: "kombinasyon dışı puan" },
      ka: { knock: "დააკაკუნ", deadwood: "შეუკრავი კარტები" },
      en: { knock: "knock", deadwood: "deadwood" },
    };
    for (const [code, term] of Object.entries(terms)) {
      const lang = code as keyof typeof DICTIONARIES;
      expect(t("result.knock", { name: "X", points: 1 }, lang).toLowerCase(), code).toContain(term.knock);
      expect(t("table.deadwood", { n: 3 }, lang).toLowerCase(), code).toContain(term.deadwood.toLowerCase());
    }
  });

  it("speaks to the player about their own moves", () => {
    expect(tSeat("history.discard", true, { name: "Ada", card: "QS" })).toBe("You discarded QS");
    expect(tSeat("history.discard", false, { name: "Ada", card: "QS" })).toBe("Ada discarded QS");
    expect(tSeat("history.pass", true, {})).toBe("You passed");
  });

  it("formats placeholders and leaves unknown ones", () => {
    expect(format("{a} and {b}", { a: 1 })).toBe("1 and {b}");
  });
});

describe("language choice", () => {
  it("takes the saved choice, else the first supported browser language, else English", () => {
    expect(detectLang("ru", ["ar-EG"])).toBe("ru");
    expect(detectLang(null, ["fr-FR", "ka-GE", "en"])).toBe("ka");
    expect(detectLang(null, ["tr"])).toBe("tr");
    expect(detectLang("xx", ["de-DE", "fr"])).toBe("en");
    expect(detectLang(null, [])).toBe("en");
  });

  it("Arabic is right to left, the others left to right", () => {
    expect(direction("ar")).toBe("rtl");
    for (const lang of ["en", "ka", "ru", "tr"] as const) expect(direction(lang)).toBe("ltr");
  });
});

describe("cards", () => {
  it("names a card in each language, for screen readers", () => {
    expect(cardName("7H", "en")).toBe("seven of hearts");
    expect(cardName("TD", "en")).toBe("ten of diamonds");
    expect(cardName("AS", "en")).toBe("ace of spades");
    expect(cardName("7H", "ar")).toBe("سبعة كبة");
    expect(cardName("7H", "ru")).toBe("семёрка червей");
    expect(cardName("QS", "ru")).toBe("дама пик");
    expect(cardName("7H", "tr")).toBe("kupa yedi");
    expect(cardName("7H", "ka")).toBe("გულის შვიდიანი");
    expect(cardName("KC", "ka")).toBe("ჯვრის მეფე");
  });

  it("shows faces with suit symbols and colours", () => {
    expect(face("TD")).toEqual({ rank: "10", suit: "♦", red: true });
    expect(face("QS")).toEqual({ rank: "Q", suit: "♠", red: false });
  });

  it("sorts by suit then rank, and a meld in reading order", () => {
    expect(sortCards(["KS", "2C", "AS", "TD"])).toEqual(["2C", "TD", "AS", "KS"]);
    expect(sortMeld(["9H", "7H", "8H"])).toEqual(["7H", "8H", "9H"]);
    expect(sortMeld(["7S", "7C", "7H"])).toEqual(["7C", "7H", "7S"]);
  });
});

describe("how to play", () => {
  it("has a page in every language, from the source documents", () => {
    for (const { code } of LANGS) {
      const blocks = HOW_TO_PLAY[code].flatMap((text) => parseDocument(text));
      expect(blocks[0].kind, code).toBe("title");
      expect(blocks.filter((block) => block.kind === "heading").length, code).toBeGreaterThanOrEqual(4);
    }
    const arabic = HOW_TO_PLAY.ar.flatMap((text) => parseDocument(text));
    expect(arabic[0]).toEqual({ kind: "title", text: "كيف تلعب جين رمي" });
    const faq = arabic.find((block) => block.kind === "faq");
    expect(faq && faq.kind === "faq" ? faq.items.length : 0).toBe(4);
    expect(HOW_TO_PLAY.ar.join("\n")).toContain("الأوراق الميتة");
    expect(HOW_TO_PLAY.ka.join("\n")).toContain("შეუკრავი კარტები");
    expect(HOW_TO_PLAY.ru.join("\n")).toContain("штрафные очки");
  });

  it("opens with the friendly page and its questions in every language, the rules card after it", () => {
    for (const { code } of LANGS) {
      const [guide, ...cards] = HOW_TO_PLAY[code];
      const blocks = parseDocument(guide);
      const faq = blocks.find((block) => block.kind === "faq");
      expect(faq && faq.kind === "faq" ? faq.items.length : 0, code).toBe(4);
      expect(guide, code).not.toContain("1.0.0");
      expect(cards.length, code).toBe(code === "en" ? 0 : 1);
      if (code !== "en") expect(guide.toLowerCase(), code).not.toMatch(/\b(knock|layoff|undercut|deadwood|meld|bois mort)\b/);
    }
    expect(HOW_TO_PLAY.tr[0]).toContain("masaya vur");
    expect(HOW_TO_PLAY.ka[0]).toContain("დააკაკუნ");
    expect(HOW_TO_PLAY.ru[0]).toContain("нок");
  });

  it("reads numbered and bulleted lists", () => {
    const blocks = parseDocument("Title\nSetup\n1. one\n2. two\n• a\n• b\nA long sentence that ends with a full stop, so it is a paragraph.");
    expect(blocks.map((block) => block.kind)).toEqual(["title", "heading", "list", "list", "paragraph"]);
  });
});
