// The least deadwood of a hand, exactly as RULES.md counts it (sets of 3–4 of a rank, runs of
// 3+ of a suit, the ace low only, a card in at most one meld), for the discard hint only: the
// server's arrangement stays the one the table shows and scores. Checked against the Python
// solver (protocol.melds) by test/melds.test.ts on fixtures it generated.

import { RANKS, SUITS, rankOf, suitOf } from "./cards";

/** Points of a card: ace 1, 2–10 their number, J Q K 10. */
export function cardPoints(card: string): number {
  return Math.min(RANKS.indexOf(rankOf(card)) + 1, 10);
}

/** Every meld that can be made from these cards (as index lists into `cards`). */
function candidateMelds(cards: readonly string[]): number[][] {
  const melds: number[][] = [];
  const byRank = new Map<string, number[]>();
  const bySuit = new Map<string, Map<number, number>>();
  cards.forEach((card, index) => {
    byRank.set(rankOf(card), [...(byRank.get(rankOf(card)) ?? []), index]);
    const suit = bySuit.get(suitOf(card)) ?? new Map<number, number>();
    suit.set(RANKS.indexOf(rankOf(card)), index);
    bySuit.set(suitOf(card), suit);
  });
  for (const same of byRank.values()) {
    if (same.length < 3) continue;
    melds.push(same);
    if (same.length === 4) for (const skip of same) melds.push(same.filter((index) => index !== skip));
  }
  for (const suit of bySuit.values()) {
    for (let start = 0; start < RANKS.length; start++) {
      const run: number[] = [];
      for (let rank = start; suit.has(rank); rank++) {
        run.push(suit.get(rank) as number);
        if (run.length >= 3) melds.push([...run]);
      }
    }
  }
  return melds;
}

export interface HandArrangement {
  melds: string[][];
  deadwood: string[];
  points: number;
}

/** An arrangement with the fewest deadwood points (exact search; a hand of up to 11 cards). */
export function bestArrangement(cards: readonly string[]): HandArrangement {
  const melds = candidateMelds(cards);
  const containing = cards.map((_, index) => melds.filter((meld) => meld.includes(index)));
  const used = new Array<boolean>(cards.length).fill(false);
  let best: { points: number; melds: number[][] } = { points: Infinity, melds: [] };
  const chosen: number[][] = [];

  const search = (from: number, points: number): void => {
    if (points >= best.points) return;
    let next = from;
    while (next < cards.length && used[next]) next++;
    if (next === cards.length) {
      best = { points, melds: [...chosen] };
      return;
    }
    for (const meld of containing[next]) {
      if (meld.some((index) => used[index])) continue;
      for (const index of meld) used[index] = true;
      chosen.push(meld);
      search(next + 1, points);
      chosen.pop();
      for (const index of meld) used[index] = false;
    }
    used[next] = true;
    search(next + 1, points + cardPoints(cards[next]));
    used[next] = false;
  };
  search(0, 0);

  const inMeld = new Set(best.melds.flat());
  return {
    melds: best.melds.map((meld) => meld.map((index) => cards[index])),
    deadwood: cards.filter((_, index) => !inMeld.has(index)),
    points: best.points,
  };
}

export function minDeadwood(cards: readonly string[]): number {
  return bestArrangement(cards).points;
}

export interface DiscardOption {
  card: string;
  /** The least deadwood of the hand left after discarding `card`. */
  deadwood: number;
}

/** Each of the `allowed` discards with the least deadwood it leaves. */
export function discardOptions(hand: readonly string[], allowed: readonly string[] = hand): DiscardOption[] {
  return allowed
    .filter((card) => hand.includes(card))
    .map((card) => ({ card, deadwood: minDeadwood(hand.filter((other) => other !== card)) }));
}

/** Higher first: the card worth more points, then the higher rank, then the later suit (C D H S). */
function heavier(a: string, b: string): number {
  return (
    cardPoints(b) - cardPoints(a) ||
    RANKS.indexOf(rankOf(b)) - RANKS.indexOf(rankOf(a)) ||
    SUITS.indexOf(suitOf(b)) - SUITS.indexOf(suitOf(a))
  );
}

/** The discard that leaves the least deadwood; among equals the card worth the most points
 * (it would cost the most if the hand ends). Null when nothing may be discarded. */
export function bestDiscard(hand: readonly string[], allowed: readonly string[] = hand): DiscardOption | null {
  const options = discardOptions(hand, allowed);
  options.sort((a, b) => a.deadwood - b.deadwood || heavier(a.card, b.card));
  return options[0] ?? null;
}
