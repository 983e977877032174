// The player's settings: what they chose (remembered in localStorage through storage.ts), what
// the page does with them (the attributes on <html> that every part of the page reads, never
// this module), and the device's own wishes (dark colours, reduced motion) where the player
// did not choose.
//
// The attributes (the contract with the rest of the page):
//   data-theme="light|dark"  data-deck="two|four"  data-card-size="small|medium|large"
//   data-motion="full|reduced"  data-sound="on|off"  data-hints="on|off"
// index.html sets the same attributes before the first paint from the same stored value
// (localStorage "gin.settings"; test/settings.test.ts runs that script against this module).

export type Theme = "light" | "dark";
export type Deck = "two" | "four";
export type CardSize = "small" | "medium" | "large";
export type MotionChoice = "full" | "reduced";

/** What the player chose. A missing theme or motion follows the device. */
export interface Settings {
  sound: boolean;
  deck: Deck;
  cardSize: CardSize;
  theme: Theme | null;
  motion: MotionChoice | null;
  hints: boolean;
  notifications: boolean;
  /** Ask for a faster AI in the rooms against the AI started from now on (create_room's
   * ai_pace: its moves take about a third of their time). */
  fastAi: boolean;
}

export const DEFAULT_SETTINGS: Readonly<Settings> = Object.freeze({
  sound: false,
  deck: "two",
  cardSize: "medium",
  theme: null,
  motion: null,
  hints: true,
  notifications: false,
  fastAi: false,
});

export const CARD_SIZES: readonly CardSize[] = ["small", "medium", "large"];

/** What the device asks for (the media queries). */
export interface Device {
  dark: boolean;
  reducedMotion: boolean;
}

/** The attributes of <html>, by their dataset names. */
export interface PageAttributes {
  theme: Theme;
  deck: Deck;
  cardSize: CardSize;
  motion: MotionChoice;
  sound: "on" | "off";
  hints: "on" | "off";
}

function oneOf<T extends string>(value: unknown, allowed: readonly T[]): T | undefined {
  return typeof value === "string" && (allowed as readonly string[]).includes(value) ? (value as T) : undefined;
}

/** The stored settings, each bad or missing value replaced by its default. */
export function parseSettings(raw: unknown): Settings {
  const stored = raw !== null && typeof raw === "object" && !Array.isArray(raw) ? (raw as Record<string, unknown>) : {};
  const flag = (value: unknown, fallback: boolean) => (typeof value === "boolean" ? value : fallback);
  return {
    sound: flag(stored.sound, DEFAULT_SETTINGS.sound),
    deck: oneOf(stored.deck, ["two", "four"] as const) ?? DEFAULT_SETTINGS.deck,
    cardSize: oneOf(stored.cardSize, CARD_SIZES) ?? DEFAULT_SETTINGS.cardSize,
    theme: oneOf(stored.theme, ["light", "dark"] as const) ?? null,
    motion: oneOf(stored.motion, ["full", "reduced"] as const) ?? null,
    hints: flag(stored.hints, DEFAULT_SETTINGS.hints),
    notifications: flag(stored.notifications, DEFAULT_SETTINGS.notifications),
    fastAi: flag(stored.fastAi, DEFAULT_SETTINGS.fastAi),
  };
}

/** `parseSettings` of a stored JSON text (null, or text that is not JSON: the defaults). */
export function parseStoredSettings(text: string | null): Settings {
  if (text === null) return parseSettings(null);
  try {
    return parseSettings(JSON.parse(text));
  } catch {
    return parseSettings(null);
  }
}

/** What is worth storing: only what differs from the defaults, so that a default changed in a
 * later version reaches the players who never chose. */
export function storedForm(settings: Settings): Partial<Settings> {
  const stored: Partial<Settings> = {};
  for (const key of Object.keys(DEFAULT_SETTINGS) as (keyof Settings)[]) {
    if (settings[key] !== DEFAULT_SETTINGS[key]) (stored as Record<string, unknown>)[key] = settings[key];
  }
  return stored;
}

/** The page's attributes: the theme follows the device until the player chooses; motion is
 * reduced when the player asks for it or the device does. */
export function pageAttributes(settings: Settings, device: Device): PageAttributes {
  return {
    theme: settings.theme ?? (device.dark ? "dark" : "light"),
    deck: settings.deck,
    cardSize: settings.cardSize,
    motion: settings.motion === "reduced" || device.reducedMotion ? "reduced" : "full",
    sound: settings.sound ? "on" : "off",
    hints: settings.hints ? "on" : "off",
  };
}

export function applyAttributes(root: HTMLElement, attributes: PageAttributes): void {
  for (const [name, value] of Object.entries(attributes)) {
    if (root.dataset[name] !== value) root.dataset[name] = value;
  }
}
