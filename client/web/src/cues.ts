// What the page signals about a change of the room, as pure functions: the sounds of its
// events, and whether the player is the one to act (the tab title, the your-turn sound and
// notification). The server says everything; nothing here decides a rule.

import type { GameEvent, RoomView } from "./protocol";

export type Cue = "card" | "knock" | "gin" | "undercut" | "turn" | "won" | "lost";

const PLAYING = new Set(["first_offer", "second_offer", "first_draw", "draw", "discard"]);

/** The player holds a seat and the match waits for their move. */
export function playerToAct(view: RoomView | null): boolean {
  const game = view?.game;
  if (!view || !game || view.status !== "playing" || view.seat === null) return false;
  return game.turn === view.seat && PLAYING.has(game.phase);
}

/** The sounds of one change's events, in order, heard from `seat` (null: a watcher, who
 * hears the table but no win or loss of their own). */
export function eventCues(events: readonly GameEvent[], seat: number | null): Cue[] {
  const cues: Cue[] = [];
  for (const event of events) {
    switch (event.type) {
      case "draw":
      case "take_upcard":
      case "discard":
        cues.push("card");
        break;
      case "knock":
        cues.push("knock");
        break;
      case "gin":
        cues.push("gin");
        break;
      case "hand_over":
        if (event.kind === "undercut") cues.push("undercut");
        break;
      case "match_over":
      case "forfeit":
        if (seat === null || typeof event.winner !== "number") break;
        // leaving is the player's own choice: no sound for it
        if (event.type === "forfeit" && event.seat === seat) break;
        cues.push(event.winner === seat ? "won" : "lost");
        break;
      default:
        break;
    }
  }
  return cues;
}
