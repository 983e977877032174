// The wire protocol (docs/protocol.md): one MessagePack map per binary websocket frame.
// This module is the only one that knows about MessagePack.

import { decode, encode } from "@msgpack/msgpack";

export const PROTOCOL_VERSION = "1.1";
export const CLIENT_NAME = "web/0.1";

export type RequestId = number | string;
export type Plain = null | boolean | number | string | Uint8Array | Plain[] | { [key: string]: Plain };
export type Fields = Record<string, unknown>;

// --- views (server/engine/views.py, server/room.py room_view) --------------------------------

/** What a name the server sends is made of (docs/protocol.md, "name parts"). */
export interface NameParts {
  name: string | null;
  /** The id of a server-made default name ("Player xxxxx"); null for a chosen name. */
  name_id: string | null;
  /** The level of an AI seat. */
  ai: string | null;
}

export interface SeatInfo {
  name: string | null;
  name_id?: string | null;
  ai: string | null;
  open: boolean;
  away: boolean;
  stand_in: string | null;
  /** Away past the grace in a room between people: the other player may claim_win or stand_in. */
  away_choice?: boolean;
}

export interface Action {
  kind: string;
  card?: string;
}

export interface Move {
  seat: number;
  kind: string;
  card?: string;
}

export interface Layoff {
  card: string;
  meld: number;
}

export interface HandOver {
  type: "hand_over";
  hand: number;
  kind: "knock" | "gin" | "undercut" | "dead";
  winner: number | null;
  points: number;
  knocker: number | null;
  hands: string[][];
  scores: number[];
  melds: string[][][];
  deadwood: string[][];
  deadwood_points: number[];
  layoffs: Layoff[];
}

export interface MatchTotals {
  winner: number | null;
  points: number[];
  game_bonus: number[];
  box_bonus: number[];
  shutout: boolean;
  totals: number[];
}

export interface Rules {
  target: number;
  game_bonus?: boolean;
  box_bonus?: boolean;
  shutout_bonus?: boolean;
}

export interface GameView {
  hand: number;
  dealer: number;
  phase: string;
  turn: number | null;
  seat: number | null;
  hand_sizes: number[];
  stock_size: number;
  discard_pile: string[];
  taken_card: string | null;
  history: Move[];
  scores: number[];
  results: { kind: string; winner: number | null; points: number }[];
  rules: Rules;
  legal_actions: Action[];
  cards?: string[];
  melds?: string[][];
  deadwood?: string[];
  deadwood_points?: number;
  last_hand?: HandOver;
  match?: MatchTotals;
}

export interface RoomView {
  room: string;
  mode: string;
  status: "waiting" | "playing" | "finished";
  seats: SeatInfo[];
  seat: number | null;
  turn_seconds?: number;
  turn_deadline: number | null;
  turn_bank?: number;
  banks?: number[];
  forfeit?: number | null;
  winner: number | null;
  rematch: boolean[];
  next_room: string | null;
  game: GameView | null;
  invite?: string;
  /** Seats of a room that is not public only: the watch link is /room/ID?watch=TOKEN. */
  watch_token?: string;
  connected?: boolean[];
  /** The level of the AI that plays for a person away past the grace while the other person
   * is here; null: none (always none against the AI: that room waits for its person). */
  stand_in_level?: string | null;
  /** How many spectators follow the room, on every server process. */
  watchers?: number;
}

export interface GameEvent {
  type: string;
  [key: string]: unknown;
}

/** One recent hand as the server lists it (the lobby ack or GET /api/hands). */
export interface LobbyHand {
  id?: string;
  room?: string;
  hand?: number;
  players?: (string | null)[];
  /** What each player's name is made of (hands recorded since the server says it). */
  seats?: NameParts[];
  kind?: string;
  winner?: number | null;
  points?: number;
  result?: { kind?: string; winner?: number | null; points?: number; hand?: number } | null;
  finished_at?: number;
}

/** A public room in play, as the lobby's "Live now" lists it. */
export interface LiveRoom {
  room: string;
  mode: string;
  seats: NameParts[];
  hand: number;
  scores: number[];
  target: number;
  watchers: number;
}

// --- server messages -------------------------------------------------------------------------

export interface AckMsg {
  t: "ack";
  id: RequestId;
  result: Record<string, unknown>;
}
export interface ErrorMsg {
  t: "error";
  id: RequestId | null;
  code: string;
  message: string;
  detail?: Record<string, unknown>;
}
export interface PongMsg {
  t: "pong";
  id: RequestId;
}
export interface UpdateMsg {
  t: "update";
  room: string;
  seq: number;
  events: GameEvent[];
  view: RoomView | null;
}
export interface SnapshotMsg {
  t: "snapshot";
  room: string;
  seq: number;
  view: RoomView;
}
export interface RoomAssignedMsg {
  t: "room_assigned";
  room: string;
  seat: number;
}
export interface ReconnectMsg {
  t: "reconnect";
  reason: string;
  retry_ms: number;
}
export interface ByeMsg {
  t: "bye";
  code: string;
  message: string;
}
export interface AiSeatMsg {
  t: "ai_seat";
  room: string;
  seat: number;
  level: string;
}

/** The other player's quick message (a phrase or emote id of talk.ts); never to a watcher. */
export interface SaidMsg {
  t: "said";
  room: string;
  seat: number;
  phrase: string;
  at: number;
}

export type ServerMessage =
  | AckMsg
  | ErrorMsg
  | PongMsg
  | UpdateMsg
  | SnapshotMsg
  | RoomAssignedMsg
  | ReconnectMsg
  | ByeMsg
  | AiSeatMsg
  | SaidMsg;

export class DecodeError extends Error {}

const SERVER_TYPES = new Set([
  "ack",
  "error",
  "pong",
  "update",
  "snapshot",
  "room_assigned",
  "reconnect",
  "bye",
  "ai_seat",
  "said",
]);

/** Encode one message: `t` first, then the fields in the order given; absent (undefined)
 * fields are left out, as the canonical encoding asks. */
export function encodeMessage(t: string, fields: Fields = {}): Uint8Array {
  const message: Fields = { t };
  for (const [key, value] of Object.entries(fields)) {
    if (value !== undefined && key !== "t") message[key] = value;
  }
  return encodeValue(message);
}

/** Encode any plain value (a whole message map included) with the smallest forms. */
export function encodeValue(value: unknown): Uint8Array {
  return encode(value, { ignoreUndefined: true });
}

/** Decode any one MessagePack value (no trailing bytes). */
export function decodeValue(data: ArrayBuffer | Uint8Array): unknown {
  const bytes = data instanceof Uint8Array ? data : new Uint8Array(data);
  return decode(bytes);
}

/** Decode a frame into a message of any type (the fixtures hold both directions). */
export function decodeAny(data: ArrayBuffer | Uint8Array): Fields & { t: string } {
  let value: unknown;
  try {
    value = decodeValue(data);
  } catch (error) {
    throw new DecodeError(`not one MessagePack value: ${String(error)}`);
  }
  if (value === null || typeof value !== "object" || Array.isArray(value) || value instanceof Uint8Array) {
    throw new DecodeError("a frame is one MessagePack map");
  }
  const map = value as Fields;
  if (typeof map.t !== "string") throw new DecodeError("the frame has no type tag t");
  return map as Fields & { t: string };
}

/** Decode a frame the server sent; anything else is a DecodeError. */
export function decodeServerMessage(data: ArrayBuffer | Uint8Array): ServerMessage {
  const map = decodeAny(data);
  if (!SERVER_TYPES.has(map.t)) throw new DecodeError(`unknown message type ${map.t}`);
  if (map.t === "update") {
    if (typeof map.room !== "string" || typeof map.seq !== "number" || !Array.isArray(map.events)) {
      throw new DecodeError("an update has room, seq and events");
    }
  }
  if (map.t === "said" && (typeof map.room !== "string" || typeof map.seat !== "number" || typeof map.phrase !== "string")) {
    throw new DecodeError("a said has room, seat and phrase");
  }
  if (map.t === "snapshot" && (typeof map.room !== "string" || typeof map.seq !== "number")) {
    throw new DecodeError("a snapshot has room and seq");
  }
  return map as unknown as ServerMessage;
}
