// The settings of this page while it runs: read from storage, applied to <html>, applied again
// when the player changes one or the device changes its mind (dark mode or reduced motion
// turned on in the system while the page is open).

import { applyAttributes, pageAttributes, type Device, type PageAttributes, type Settings } from "./settings";
import type { Persist } from "./storage";

type MediaSource = (query: string) => Pick<MediaQueryList, "matches" | "addEventListener">;

const DARK = "(prefers-color-scheme: dark)";
const REDUCED = "(prefers-reduced-motion: reduce)";

export class PageSettings {
  private readonly persist: Persist;
  private readonly root: HTMLElement;
  private readonly media: MediaSource | null;
  private settings: Settings;
  private readonly listeners: ((settings: Settings) => void)[] = [];

  constructor(persist: Persist, root: HTMLElement = document.documentElement, media: MediaSource | null = window.matchMedia?.bind(window) ?? null) {
    this.persist = persist;
    this.root = root;
    this.media = media;
    this.settings = persist.settings;
  }

  /** Apply the settings now and follow the device's changes from now on. */
  start(): void {
    this.apply();
    for (const query of [DARK, REDUCED]) this.media?.(query).addEventListener("change", () => this.apply());
  }

  get current(): Readonly<Settings> {
    return this.settings;
  }

  get device(): Device {
    return { dark: this.media?.(DARK).matches ?? false, reducedMotion: this.media?.(REDUCED).matches ?? false };
  }

  get attributes(): PageAttributes {
    return pageAttributes(this.settings, this.device);
  }

  /** The player changes some settings: remembered and applied at once. */
  update(change: Partial<Settings>): void {
    this.settings = { ...this.settings, ...change };
    this.persist.settings = this.settings;
    this.apply();
  }

  onChange(listener: (settings: Settings) => void): void {
    this.listeners.push(listener);
  }

  private apply(): void {
    applyAttributes(this.root, this.attributes);
    for (const listener of this.listeners) listener(this.settings);
  }
}
