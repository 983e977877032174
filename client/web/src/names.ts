// Names as the page shows them. The server says what each name it sends is made of (docs/
// protocol.md, "name parts"): `name_id`, the id of a default name it made ("Player " and five
// characters of the id), and `ai`, the level of an AI seat. Both are drawn in the page's
// language from those parts; every other name is the player's own and is shown as given.
// Records stored before the server sent the parts carry only the English name: for those
// (and only those) the two server-made forms are still recognised by their shape.

import { t, type MessageKey } from "./i18n";
import type { NameParts } from "./protocol";
import type { AILevel } from "./wire-types";

/** The AI levels players are offered, weakest first. */
export const AI_LEVELS: readonly AILevel[] = ["easy", "normal", "hard"];

const AI_NAME = /^AI \((easy|normal|hard)\)$/;
const DEFAULT_NAME = /^Player ([A-Za-z0-9_-]{5})$/;
const LEVELS = new Set<string>(AI_LEVELS);

/** The one naming of an AI player, at the table, in the lobby and in replays. */
export function aiName(level: string): string {
  const known = LEVELS.has(level) ? t(`level.${level}` as MessageKey) : level;
  return t("seat.ai", { level: known });
}

/** Whether the server sent what this name is made of (views, lists and records since it does). */
export function hasParts(parts: Partial<NameParts> | null | undefined): parts is NameParts {
  return !!parts && "name_id" in parts;
}

/** A name in the page's language from the parts the server sent. */
export function nameFromParts(parts: NameParts): string {
  if (parts.ai) return aiName(parts.ai);
  if (parts.name_id) return t("player.default", { id: parts.name_id });
  if (typeof parts.name !== "string" || !parts.name) return t("player.unknown");
  return parts.name;
}

/** A name with its parts when the server sent them, else (an old record) by its shape. */
export function seatName(parts: Partial<NameParts> | null | undefined, name?: string | null): string {
  if (hasParts(parts)) return nameFromParts(parts);
  return displayName(name ?? parts?.name ?? null, parts?.ai ?? null);
}

/** A name this browser kept: with the id of its default name when it was kept with it
 * (`nameId` undefined: kept before the server sent the parts). */
export function keptName(name: string | null, ai: string | null, nameId: string | null | undefined): string {
  return nameId === undefined ? displayName(name, ai) : nameFromParts({ name, name_id: nameId, ai });
}

/** Whether a name is the server's default for a new player (they have not chosen one):
 * `nameId` as the server said it (undefined: not said, the shape decides). */
export function isDefaultName(name: string | null | undefined, nameId?: string | null): boolean {
  if (nameId !== undefined) return nameId !== null;
  return typeof name === "string" && DEFAULT_NAME.test(name);
}

/** A name known without its parts (an old record): an AI seat by its level, a default name by
 * its shape. */
export function displayName(name: string | null | undefined, ai: string | null = null): string {
  if (ai) return aiName(ai);
  if (typeof name !== "string" || !name) return t("player.unknown");
  const machine = AI_NAME.exec(name);
  if (machine) return aiName(machine[1]);
  const fallback = DEFAULT_NAME.exec(name);
  if (fallback) return t("player.default", { id: fallback[1] });
  return name;
}
