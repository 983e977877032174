// What survives a reload: the identity token, the current room with its last sequence number
// and view, the player's stats, the language, the settings. Kept in localStorage (any Storage-like object
// in tests); a storage that refuses (private mode, quota) is treated as empty.

import type { RoomView } from "./protocol";
import { parseStoredSettings, storedForm, type Settings } from "./settings";

export interface KeyValue {
  getItem(key: string): string | null;
  setItem(key: string, value: string): void;
  removeItem(key: string): void;
}

export interface SavedRoom {
  room: string;
  lastSeq: number;
  view: RoomView | null;
  /** The watch token of a room watched by its link (rooms that are not public). */
  watchToken?: string | null;
}

export type Stats = Record<string, number>;

/** How the player arranged the hand in play (hand-layout.ts); `key` names room, hand and seat. */
export interface SavedHand {
  key: string;
  sort: string;
  order: string[];
  drawn: string | null;
}

/** A match this browser plays (a seat of its own, not finished): the lobby offers it again. */
export interface SavedMatch {
  room: string;
  mode: string;
  /** The opponent as the room names them (a person's name, or null for an AI or nobody). */
  opponent: string | null;
  /** The opponent's AI level, when an AI plays them. */
  opponentAi: string | null;
  /** The id of the opponent's default name (null: a chosen name; absent: kept before). */
  opponentNameId?: string | null;
  /** When this browser first saw the match (ms since the epoch). */
  since: number;
}

const PREFIX = "gin.";

export class Persist {
  private readonly store: KeyValue | null;

  constructor(store: KeyValue | null) {
    this.store = store;
  }

  static browser(): Persist {
    try {
      return new Persist(window.localStorage);
    } catch {
      return new Persist(null);
    }
  }

  private get(key: string): string | null {
    try {
      return this.store?.getItem(PREFIX + key) ?? null;
    } catch {
      return null;
    }
  }

  private set(key: string, value: string | null): void {
    try {
      if (value === null) this.store?.removeItem(PREFIX + key);
      else this.store?.setItem(PREFIX + key, value);
    } catch {
      // full or refused: the page still works, it just will not remember
    }
  }

  private getJson<T>(key: string): T | null {
    const raw = this.get(key);
    if (raw === null) return null;
    try {
      return JSON.parse(raw) as T;
    } catch {
      return null;
    }
  }

  get token(): string | null {
    return this.get("token");
  }
  set token(value: string | null) {
    this.set("token", value);
  }

  /** The account's handle when this browser is signed in to one (null: a guest). */
  get handle(): string | null {
    return this.get("handle");
  }
  set handle(value: string | null) {
    this.set("handle", value);
  }

  /** The proof that this browser signed in before (eases the sign-in limit for its owner). */
  get device(): string | null {
    return this.get("device");
  }
  set device(value: string | null) {
    this.set("device", value);
  }

  get name(): string | null {
    return this.get("name");
  }
  set name(value: string | null) {
    this.set("name", value);
  }

  get lang(): string | null {
    return this.get("lang");
  }
  set lang(value: string | null) {
    this.set("lang", value);
  }

  get room(): SavedRoom | null {
    const saved = this.getJson<SavedRoom>("room");
    if (!saved || typeof saved.room !== "string" || typeof saved.lastSeq !== "number") return null;
    const room: SavedRoom = { room: saved.room, lastSeq: saved.lastSeq, view: saved.view ?? null };
    if (typeof saved.watchToken === "string") room.watchToken = saved.watchToken;
    return room;
  }
  set room(value: SavedRoom | null) {
    this.set("room", value === null ? null : JSON.stringify(value));
  }

  get matches(): SavedMatch[] {
    const saved = this.getJson<SavedMatch[]>("matches");
    return Array.isArray(saved) ? saved.filter((match) => typeof match?.room === "string") : [];
  }
  set matches(value: SavedMatch[]) {
    this.set("matches", JSON.stringify(value));
  }

  /** Add or refresh one match (keeping when it was first seen). */
  keepMatch(match: SavedMatch): void {
    const matches = this.matches;
    const known = matches.find((item) => item.room === match.room);
    if (known && known.opponent === match.opponent && known.opponentAi === match.opponentAi && known.opponentNameId === match.opponentNameId) return;
    const since = known?.since ?? match.since;
    this.matches = [...matches.filter((item) => item.room !== match.room), { ...match, since }];
  }

  forgetMatch(room: string): void {
    const matches = this.matches;
    if (matches.some((item) => item.room === room)) this.matches = matches.filter((item) => item.room !== room);
  }

  get hand(): SavedHand | null {
    const saved = this.getJson<SavedHand>("hand");
    if (!saved || typeof saved.key !== "string" || typeof saved.sort !== "string" || !Array.isArray(saved.order)) return null;
    const order = saved.order.filter((card): card is string => typeof card === "string");
    return { key: saved.key, sort: saved.sort, order, drawn: typeof saved.drawn === "string" ? saved.drawn : null };
  }
  set hand(value: SavedHand | null) {
    this.set("hand", value === null ? null : JSON.stringify(value));
  }

  /** The sort the player last chose (melds, rank, suit): each new hand starts with it. */
  get handSort(): string | null {
    return this.get("handSort");
  }
  set handSort(value: string | null) {
    this.set("handSort", value);
  }

  /** The opponents' quick messages are hidden (views/talk.ts), in every room. */
  get talkMuted(): boolean {
    return this.get("talkMuted") === "1";
  }
  set talkMuted(value: boolean) {
    this.set("talkMuted", value ? "1" : null);
  }

  /** The player's settings; a bad stored value falls back to its default (settings.ts). */
  get settings(): Settings {
    return parseStoredSettings(this.get("settings"));
  }
  set settings(value: Settings) {
    this.set("settings", JSON.stringify(storedForm(value)));
  }

  get stats(): Stats | null {
    return this.getJson<Stats>("stats");
  }
  set stats(value: Stats | null) {
    this.set("stats", value === null ? null : JSON.stringify(value));
  }
}
