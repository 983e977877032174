// What the other player did since the reader's last move: the card they took (the upcard or
// the discard pile's top) and the card they threw, marked on the table until the reader moves
// again. Read from the hand's public history, nothing kept.

import type { Move } from "./view-types";

export interface TheirMoves {
  /** The card the other player took from the discard pile (or the upcard), if they did. */
  took: string | null;
  /** The card the other player discarded, if they did. */
  threw: string | null;
}

const TAKES = new Set(["take_upcard", "draw_discard"]);
const THROWS = new Set(["discard", "knock", "gin"]);

export function theirMovesSince(history: readonly Move[], me: number): TheirMoves {
  const marks: TheirMoves = { took: null, threw: null };
  for (let index = history.length - 1; index >= 0; index--) {
    const move = history[index];
    if (move.seat === me) break;
    if (!move.card) continue;
    if (TAKES.has(move.kind) && marks.took === null) marks.took = move.card;
    if (THROWS.has(move.kind) && marks.threw === null) marks.threw = move.card;
  }
  return marks;
}
