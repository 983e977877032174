// Names as the page shows them. The server makes two kinds of names of its own: a new
// player's default ("Player " and five characters of their id) and an AI seat's ("AI (easy)")
// in the lists of finished hands, where no seat level travels with it. Both are drawn in the
// page's language; every other name is the player's own and is shown as given.

import { t, type MessageKey } from "./i18n";

const AI_NAME = /^AI \((easy|normal|hard)\)$/;
const DEFAULT_NAME = /^Player ([A-Za-z0-9_-]{5})$/;
const LEVELS = new Set(["easy", "normal", "hard"]);

/** The one naming of an AI player, at the table, in the lobby and in replays. */
export function aiName(level: string): string {
  const known = LEVELS.has(level) ? t(`level.${level}` as MessageKey) : level;
  return t("seat.ai", { level: known });
}

/** Whether a name is the server's default for a new player (they have not chosen one). */
export function isDefaultName(name: string | null | undefined): boolean {
  return typeof name === "string" && DEFAULT_NAME.test(name);
}

/** A name in the page's language: an AI seat by its level, a default name by its id. */
export function displayName(name: string | null | undefined, ai: string | null = null): string {
  if (ai) return aiName(ai);
  if (typeof name !== "string" || !name) return t("player.unknown");
  const machine = AI_NAME.exec(name);
  if (machine) return aiName(machine[1]);
  const fallback = DEFAULT_NAME.exec(name);
  if (fallback) return t("player.default", { id: fallback[1] });
  return name;
}
