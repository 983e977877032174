// How the player lays out their own hand: the server's meld groups (the default), sorted by
// rank or by suit, or an order of their own made by dragging. Kept in localStorage for the
// hand in play (room, hand number, seat), so a reload keeps it and the next hand starts
// again from the sort the player last chose. A card drawn into an order of the player's own
// goes at its end, where the "new" mark shows it.
//
// Also: the card the player just drew (marked until the turn's discard), and the discard hint
// the player asked for.

import { RANKS, rankOf, suitOf } from "./cards";
import { bestDiscard, type DiscardOption } from "./melds";
import type { GameView, RoomView } from "./protocol";
import type { Persist } from "./storage";

export type HandSort = "melds" | "rank" | "suit" | "custom";

const CHOSEN_SORTS: readonly string[] = ["melds", "rank", "suit"];
/** By suit: black and red alternate (♣ ♥ ♠ ♦). */
const SUIT_ORDER = "CHSD";

export function byRank(cards: readonly string[]): string[] {
  return [...cards].sort(
    (a, b) => RANKS.indexOf(rankOf(a)) - RANKS.indexOf(rankOf(b)) || SUIT_ORDER.indexOf(suitOf(a)) - SUIT_ORDER.indexOf(suitOf(b)),
  );
}

export function bySuit(cards: readonly string[]): string[] {
  return [...cards].sort(
    (a, b) => SUIT_ORDER.indexOf(suitOf(a)) - SUIT_ORDER.indexOf(suitOf(b)) || RANKS.indexOf(rankOf(a)) - RANKS.indexOf(rankOf(b)),
  );
}

/** The player's own order applied to the cards held now: cards kept where they were, cards
 * not in the order (just drawn) at the end. */
export function ownOrder(order: readonly string[], cards: readonly string[]): string[] {
  const held = new Set(cards);
  const kept = order.filter((card) => held.has(card));
  const placed = new Set(kept);
  return [...kept, ...cards.filter((card) => !placed.has(card))];
}

/** `card` moved to position `to` (0-based, in the order without it). */
export function moveTo(order: readonly string[], card: string, to: number): string[] {
  const rest = order.filter((other) => other !== card);
  const at = Math.max(0, Math.min(rest.length, to));
  return [...rest.slice(0, at), card, ...rest.slice(at)];
}

/** The key of the hand a seat holds: a new hand (or room, or seat) starts fresh. */
export function handKey(view: RoomView): string | null {
  if (view.seat === null || !view.game) return null;
  return `${view.room}/${view.game.hand}/${view.seat}`;
}

function isChosenSort(value: string | null): value is "melds" | "rank" | "suit" {
  return value !== null && CHOSEN_SORTS.includes(value);
}

export interface Hint extends DiscardOption {
  /** The hand the hint was computed for (its cards, sorted, joined). */
  forHand: string;
}

function handId(cards: readonly string[]): string {
  return [...cards].sort().join(" ");
}

export class HandLayout {
  private readonly persist: Persist;
  private hint: Hint | null = null;

  constructor(persist: Persist) {
    this.persist = persist;
  }

  private saved(view: RoomView): { key: string; sort: HandSort; order: string[]; drawn: string | null } | null {
    const key = handKey(view);
    if (key === null) return null;
    const saved = this.persist.hand;
    if (saved && saved.key === key && (isChosenSort(saved.sort) || saved.sort === "custom")) {
      return { key, sort: saved.sort as HandSort, order: saved.order, drawn: saved.drawn };
    }
    const preferred = this.persist.handSort;
    return { key, sort: isChosenSort(preferred) ? preferred : "melds", order: [], drawn: null };
  }

  sort(view: RoomView): HandSort {
    return this.saved(view)?.sort ?? "melds";
  }

  /** The hand's cards in the order the player sees them (null: the meld groups). */
  order(view: RoomView): string[] | null {
    const cards = view.game?.cards ?? [];
    const saved = this.saved(view);
    switch (saved?.sort ?? "melds") {
      case "rank":
        return byRank(cards);
      case "suit":
        return bySuit(cards);
      case "custom":
        return ownOrder(saved?.order ?? [], cards);
      default:
        return null;
    }
  }

  setSort(view: RoomView, sort: "melds" | "rank" | "suit"): void {
    const saved = this.saved(view);
    if (!saved) return;
    this.persist.handSort = sort;
    this.persist.hand = { ...saved, sort, order: [] };
  }

  /** Move `card` to position `to` of the order shown (`shown`: the cards as now displayed). */
  move(view: RoomView, shown: readonly string[], card: string, to: number): void {
    const saved = this.saved(view);
    if (!saved || !shown.includes(card)) return;
    this.persist.hand = { ...saved, sort: "custom", order: moveTo(shown, card, to) };
  }

  /** The player drew `card` (from the app, when the server's event says so). */
  noteDrawn(view: RoomView, card: string): void {
    const saved = this.saved(view);
    if (saved) this.persist.hand = { ...saved, drawn: card };
  }

  /** The card drawn this turn, while the turn's discard is still to come. */
  drawn(view: RoomView): string | null {
    const game = view.game;
    const drawn = this.saved(view)?.drawn ?? null;
    if (!game || drawn === null || game.turn !== view.seat || game.phase !== "discard") return null;
    return (game.cards ?? []).includes(drawn) ? drawn : null;
  }

  /** The discards the rules allow now (the card taken from the pile is not one of them). */
  private static allowed(game: GameView): string[] {
    const cards = new Set<string>();
    for (const action of game.legal_actions ?? []) {
      if (action.kind === "discard" && typeof action.card === "string") cards.add(action.card);
    }
    return [...cards];
  }

  canHint(game: GameView): boolean {
    return game.phase === "discard" && HandLayout.allowed(game).length > 0;
  }

  /** Compute the hint for the hand held now (the player asked). */
  askHint(game: GameView): Hint | null {
    const cards = game.cards ?? [];
    const best = bestDiscard(cards, HandLayout.allowed(game));
    this.hint = best ? { ...best, forHand: handId(cards) } : null;
    return this.hint;
  }

  /** The hint asked for this very hand, if any (a move makes it stale). */
  currentHint(game: GameView): Hint | null {
    if (!this.hint || !this.canHint(game) || this.hint.forHand !== handId(game.cards ?? [])) return null;
    return this.hint;
  }
}
