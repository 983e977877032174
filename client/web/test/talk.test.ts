// Quick messages in the client: the ids are exactly the protocol's (protocol/talk.py), every
// one has words in every language, bubbles last a while and the mute is remembered.

import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { DICTIONARIES, LANGS } from "../src/i18n";
import { en } from "../src/i18n/en";
import { Persist } from "../src/storage";
import { EMOTES, PHRASES, Talk, isEmote, isQuickMessage } from "../src/talk";
import { MemoryStorage } from "./memory-storage";

const TALK_PY = readFileSync(join(__dirname, "..", "..", "..", "protocol", "talk.py"), "utf8");

function pythonTuple(name: string): string[] {
  const body = new RegExp(`^${name}: Final = \\(([^)]*)\\)`, "m").exec(TALK_PY)?.[1] ?? "";
  return [...body.matchAll(/"(\w+)"/g)].map((match) => match[1]);
}

describe("the quick messages", () => {
  it("are the protocol's phrases and emotes, in its order", () => {
    expect([...PHRASES]).toEqual(pythonTuple("PHRASES"));
    expect([...EMOTES]).toEqual(pythonTuple("EMOTES"));
    expect(PHRASES.length).toBeGreaterThanOrEqual(8);
    expect(isEmote("heart") && !isEmote("hello") && isQuickMessage("hello") && !isQuickMessage("free text")).toBe(true);
  });

  it("have words in every language, none of them left in English", () => {
    const keys = [...PHRASES.map((id) => `talk.phrase.${id}`), ...EMOTES.map((id) => `talk.emote.${id}`)];
    for (const key of keys) expect(key in en, key).toBe(true);
    for (const { code } of LANGS) {
      if (code === "en") continue;
      for (const key of [...keys, "talk.open", "talk.mute", "talk.said", "error.too_many_phrases"]) {
        const text = DICTIONARIES[code][key as keyof typeof en];
        expect(text, `${code} ${key}`).not.toBe(en[key as keyof typeof en]);
      }
    }
  });
});

describe("Talk", () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it("shows a bubble for a few seconds, anew when the same phrase comes again", () => {
    const changed = vi.fn();
    const talk = new Talk(new Persist(new MemoryStorage()), changed, 4000);
    expect(talk.show(1, "good_luck")).toBe(true);
    const first = talk.bubble(1);
    expect(first?.phrase).toBe("good_luck");
    vi.advanceTimersByTime(3000);
    talk.show(1, "good_luck");
    expect(talk.bubble(1)?.serial).toBeGreaterThan(first?.serial ?? 0);
    vi.advanceTimersByTime(3000);
    expect(talk.bubble(1)?.phrase).toBe("good_luck"); // the second one keeps its own time
    vi.advanceTimersByTime(1000);
    expect(talk.bubble(1)).toBeNull();
    expect(changed).toHaveBeenCalledTimes(3);
  });

  it("ignores an id it does not know and forgets every bubble for another room", () => {
    const talk = new Talk(new Persist(new MemoryStorage()), () => undefined);
    expect(talk.show(0, "<b>free text</b>")).toBe(false);
    expect(talk.bubble(0)).toBeNull();
    talk.show(0, "heart");
    talk.setOpen(true);
    talk.reset();
    expect(talk.bubble(0)).toBeNull();
    expect(talk.open).toBe(false);
  });

  it("remembers the mute in the browser and hides what is shown", () => {
    const store = new MemoryStorage();
    const talk = new Talk(new Persist(store), () => undefined);
    talk.show(1, "oops");
    talk.setMuted(true);
    expect(talk.bubble(1)).toBeNull();
    expect(new Talk(new Persist(store), () => undefined).muted).toBe(true);
    talk.setMuted(false);
    expect(new Talk(new Persist(store), () => undefined).muted).toBe(false);
  });
});
