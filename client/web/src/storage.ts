// What survives a reload: the identity token, the current room with its last sequence number
// and view, the player's stats, the language. Kept in localStorage (any Storage-like object
// in tests); a storage that refuses (private mode, quota) is treated as empty.

import type { RoomView } from "./protocol";

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

  get stats(): Stats | null {
    return this.getJson<Stats>("stats");
  }
  set stats(value: Stats | null) {
    this.set("stats", value === null ? null : JSON.stringify(value));
  }
}
