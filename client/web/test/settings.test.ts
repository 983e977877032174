// The settings: what is read back from storage (bad values fall back to their defaults), what
// is stored, the attributes <html> gets, and index.html's first-paint script, which must set
// the very attributes src/settings.ts does for every stored value and device.

import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { PageSettings } from "../src/page-settings";
import { DEFAULT_SETTINGS, pageAttributes, parseSettings, parseStoredSettings, storedForm, type Device, type PageAttributes } from "../src/settings";
import { Persist } from "../src/storage";
import { MemoryStorage } from "./memory-storage";

const LIGHT: Device = { dark: false, reducedMotion: false };

describe("settings read back", () => {
  it("are the defaults when nothing, or nothing usable, is stored", () => {
    for (const raw of [null, undefined, 3, "dark", [], [1, 2], {}]) expect(parseSettings(raw)).toEqual(DEFAULT_SETTINGS);
    expect(parseStoredSettings(null)).toEqual(DEFAULT_SETTINGS);
    expect(parseStoredSettings("{not json")).toEqual(DEFAULT_SETTINGS);
    expect(DEFAULT_SETTINGS).toMatchObject({ sound: false, deck: "two", cardSize: "medium", theme: null, motion: null, hints: true, notifications: false, fastAi: false });
  });

  it("keep each valid value and replace each bad one by its default", () => {
    const good = { sound: true, deck: "four", cardSize: "large", theme: "dark", motion: "reduced", hints: false, notifications: true, fastAi: true };
    expect(parseSettings(good)).toEqual(good);
    const bad = { sound: "yes", deck: "five", cardSize: "huge", theme: "blue", motion: 1, hints: null, notifications: "on", fastAi: "yes", extra: 1 };
    expect(parseSettings(bad)).toEqual(DEFAULT_SETTINGS);
    expect(parseSettings({ deck: "four", cardSize: "tiny" })).toEqual({ ...DEFAULT_SETTINGS, deck: "four" });
  });

  it("store only what differs from the defaults", () => {
    expect(storedForm(DEFAULT_SETTINGS)).toEqual({});
    expect(storedForm({ ...DEFAULT_SETTINGS, sound: true, theme: "light" })).toEqual({ sound: true, theme: "light" });
  });

  it("survive a reload through storage.ts, and a tampered value falls back", () => {
    const store = new MemoryStorage();
    new Persist(store).settings = { ...DEFAULT_SETTINGS, sound: true, cardSize: "small" };
    expect(JSON.parse(store.getItem("gin.settings") ?? "")).toEqual({ sound: true, cardSize: "small" });
    expect(new Persist(store).settings).toEqual({ ...DEFAULT_SETTINGS, sound: true, cardSize: "small" });
    store.setItem("gin.settings", JSON.stringify({ sound: true, cardSize: "enormous" }));
    expect(new Persist(store).settings).toEqual({ ...DEFAULT_SETTINGS, sound: true });
    store.setItem("gin.settings", "]]");
    expect(new Persist(store).settings).toEqual(DEFAULT_SETTINGS);
    expect(new Persist(null).settings).toEqual(DEFAULT_SETTINGS);
  });
});

describe("the attributes of <html>", () => {
  it("follow the device's colours until the player chooses", () => {
    expect(pageAttributes(DEFAULT_SETTINGS, LIGHT).theme).toBe("light");
    expect(pageAttributes(DEFAULT_SETTINGS, { dark: true, reducedMotion: false }).theme).toBe("dark");
    expect(pageAttributes({ ...DEFAULT_SETTINGS, theme: "light" }, { dark: true, reducedMotion: false }).theme).toBe("light");
    expect(pageAttributes({ ...DEFAULT_SETTINGS, theme: "dark" }, LIGHT).theme).toBe("dark");
  });

  it("reduce motion when the player or the device asks", () => {
    expect(pageAttributes(DEFAULT_SETTINGS, LIGHT).motion).toBe("full");
    expect(pageAttributes({ ...DEFAULT_SETTINGS, motion: "reduced" }, LIGHT).motion).toBe("reduced");
    expect(pageAttributes(DEFAULT_SETTINGS, { dark: false, reducedMotion: true }).motion).toBe("reduced");
    expect(pageAttributes({ ...DEFAULT_SETTINGS, motion: "full" }, { dark: false, reducedMotion: true }).motion).toBe("reduced");
  });

  it("say the defaults of the contract: light, two, medium, full, sound off, hints on", () => {
    expect(pageAttributes(DEFAULT_SETTINGS, LIGHT)).toEqual({ theme: "light", deck: "two", cardSize: "medium", motion: "full", sound: "off", hints: "on" });
  });
});

/** Runs index.html's first-paint script with this stored text and device. */
function bootAttributes(stored: string | null, device: Device): Record<string, string> {
  const html = readFileSync(new URL("../index.html", import.meta.url), "utf8");
  const code = /<script data-settings-boot>([\s\S]*?)<\/script>/.exec(html)?.[1];
  if (!code) throw new Error("index.html has no settings script");
  const dataset: Record<string, string> = {};
  const localStorage = { getItem: (key: string) => (key === "gin.settings" ? stored : null) };
  const matchMedia = (query: string) => ({
    matches: (query.includes("prefers-color-scheme: dark") && device.dark) || (query.includes("prefers-reduced-motion: reduce") && device.reducedMotion),
  });
  new Function("document", "localStorage", "window", code)({ documentElement: { dataset } }, localStorage, { matchMedia });
  return dataset;
}

describe("index.html before the first paint", () => {
  const stored = [
    null,
    "{}",
    "garbage{",
    "null",
    JSON.stringify({ theme: "dark" }),
    JSON.stringify({ theme: "light", motion: "reduced", sound: true }),
    JSON.stringify({ deck: "four", cardSize: "large", hints: false }),
    JSON.stringify({ deck: "six", cardSize: 3, theme: "purple", motion: "fast", sound: "yes", hints: 0 }),
  ];
  const devices: Device[] = [LIGHT, { dark: true, reducedMotion: false }, { dark: false, reducedMotion: true }, { dark: true, reducedMotion: true }];

  it("sets what settings.ts sets, for every stored value and device", () => {
    for (const text of stored) {
      for (const device of devices) {
        const expected: PageAttributes = pageAttributes(parseStoredSettings(text), device);
        expect(bootAttributes(text, device), `${text} ${JSON.stringify(device)}`).toEqual({ ...expected });
      }
    }
  });
});

describe("PageSettings", () => {
  /** The device's media queries, changed by the test as a person changes their system. */
  class Device {
    matches = new Map<string, boolean>();
    listeners = new Map<string, (() => void)[]>();
    query = (query: string) => ({
      matches: this.matches.get(query) ?? false,
      addEventListener: (_type: string, listener: () => void) => this.listeners.set(query, [...(this.listeners.get(query) ?? []), listener]),
    });
    set(query: string, on: boolean): void {
      this.matches.set(query, on);
      for (const listener of this.listeners.get(query) ?? []) listener();
    }
  }

  it("applies at start, follows the device until the player chooses, and remembers the choice", () => {
    const store = new MemoryStorage();
    const device = new Device();
    const root = { dataset: {} as Record<string, string> } as unknown as HTMLElement;
    const settings = new PageSettings(new Persist(store), root, device.query as never);
    settings.start();
    expect(root.dataset).toEqual({ theme: "light", deck: "two", cardSize: "medium", motion: "full", sound: "off", hints: "on" });
    device.set("(prefers-color-scheme: dark)", true);
    device.set("(prefers-reduced-motion: reduce)", true);
    expect(root.dataset).toMatchObject({ theme: "dark", motion: "reduced" });
    settings.update({ theme: "light", sound: true });
    expect(root.dataset).toMatchObject({ theme: "light", sound: "on" });
    device.set("(prefers-color-scheme: dark)", false);
    device.set("(prefers-color-scheme: dark)", true);
    expect(root.dataset.theme).toBe("light");
    expect(new Persist(store).settings).toEqual({ ...DEFAULT_SETTINGS, theme: "light", sound: true });
  });
});
