// The server's views of a room and what the lobby lists: plain data inside the messages
// (`view`, `events`, acks' results), written by hand; tests/e2e/test_view_types.py checks them
// against a real match's frames (every entry sent is declared, every required one is sent).
// The messages themselves, and the types shared with them (Action, ...), are generated from
// protocol/messages.py (messages.ts, wire-types.ts): `python -m protocol.typescript`.

import type { Action } from "./wire-types";

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
  /** Since when that person is away (server time, seconds since the epoch); null when here. */
  away_since?: number | null;
  stand_in: string | null;
  /** Away past the grace in a room between people: the other player may claim_win or stand_in. */
  away_choice?: boolean;
}

export interface Move {
  seat: number;
  kind: string;
  card?: string;
  /** Made for the seat's player: by the turn clock, or by an AI standing in while away. */
  by?: "clock" | "stand_in";
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

/** The rules of a room as its view gives them (every field known; cf. the request's Rules). */
export interface GameRules {
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
  /** Draws from the discard pile this hand (the dead-hand safety cap, docs/protocol.md). */
  discard_draws: number;
  history: Move[];
  scores: number[];
  results: { kind: string; winner: number | null; points: number }[];
  rules: GameRules;
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
  /** The guided first hand: its first deal is the server's fixed, friendly one. */
  tutorial?: boolean;
  /** How quickly the AI of a room against the AI plays: "fast" when its person asked. */
  ai_pace?: "normal" | "fast";
  /** Whose result of the last hand is still open (docs/protocol.md, close_result). */
  results_open?: boolean[];
  /** How many spectators follow the room, on every server process. */
  watchers?: number;
  /** The room's place in the queue of seats waiting for an AI player (1: served next), while
   * every AI worker is full; null otherwise. */
  ai_queue?: number | null;
  /** A rated match (docs/ratings.md): account holders only. */
  rated?: boolean;
  /** A rated room's seats' ratings as they sat down (``shown``: "1500?" while provisional),
   * and once the match is rated ``before``, ``after`` and ``delta``. */
  ratings?: (SeatRating | null)[] | null;
}

export interface SeatRating {
  rating: number;
  rd: number;
  shown: string;
  before?: number;
  after?: number;
  delta?: number;
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
