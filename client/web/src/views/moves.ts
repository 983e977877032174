// What the player may do now, read from the view's legal actions, and the drag payloads the
// table and the hand share (a pile dragged onto the hand, a card dragged onto the pile or
// within the hand).

import type { Action, GameView } from "../protocol";
import type { AppActions } from "./actions";

export const DRAG_TYPE = "application/x-gin-move";
/** Present on a drag of a card of the hand (its value: the card), so that a drop target can
 * tell a card from a pile while the drag is still over it. */
export const CARD_DRAG_TYPE = "application/x-gin-card";
export const PLAYING = new Set(["first_offer", "second_offer", "first_draw", "draw", "discard"]);

export function legal(game: GameView, kind: string, card?: string): boolean {
  return (game.legal_actions ?? []).some((action) => action.kind === kind && (card === undefined || action.card === card));
}

export function dragData(event: DragEvent): string | null {
  const types = event.dataTransfer?.types ?? [];
  return Array.from(types).includes(DRAG_TYPE) ? DRAG_TYPE : null;
}

export function isCardDrag(event: DragEvent): boolean {
  return Array.from(event.dataTransfer?.types ?? []).includes(CARD_DRAG_TYPE);
}

/** What clicking (or dropping) a card of the hand does now, if anything. */
export function cardAction(app: AppActions, game: GameView, card: string): Action | null {
  if (app.pick === "knock" && legal(game, "knock", card)) return { kind: "knock", card };
  if (app.pick === "gin" && legal(game, "gin", card)) return { kind: "gin", card };
  if (app.pick === null && legal(game, "discard", card)) return { kind: "discard", card };
  return null;
}

export function drawAction(game: GameView, source: "stock" | "discard"): Action | null {
  if (source === "stock") return legal(game, "draw_stock") ? { kind: "draw_stock" } : null;
  if (legal(game, "draw_discard")) return { kind: "draw_discard" };
  if (legal(game, "take_upcard")) return { kind: "take_upcard" };
  return null;
}
