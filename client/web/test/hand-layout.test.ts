// The player's arrangement of their hand: sorts, their own order, what a reload keeps and
// what a new hand forgets; and the hint among the allowed discards.

import { describe, expect, it } from "vitest";
import { byRank, bySuit, HandLayout, moveTo, ownOrder } from "../src/hand-layout";
import type { GameView, RoomView } from "../src/protocol";
import { Persist } from "../src/storage";
import { MemoryStorage } from "./memory-storage";

function view(cards: string[], extra: Partial<GameView> = {}, hand = 1, room = "r1"): RoomView {
  const game = { hand, phase: "draw", turn: 0, cards, melds: [], deadwood: cards, legal_actions: [], ...extra } as unknown as GameView;
  return { room, seat: 0, game } as unknown as RoomView;
}

describe("sorting", () => {
  it("by rank, then by suit with black and red alternating", () => {
    expect(byRank(["KS", "2D", "2C", "AH", "TD"])).toEqual(["AH", "2C", "2D", "TD", "KS"]);
    expect(bySuit(["KS", "2D", "2C", "AH", "TD", "3S"])).toEqual(["2C", "AH", "3S", "KS", "2D", "TD"]);
  });

  it("keeps the player's order and puts new cards at the end", () => {
    expect(ownOrder(["9S", "AC", "5H"], ["AC", "5H", "9S", "QD"])).toEqual(["9S", "AC", "5H", "QD"]);
    expect(ownOrder(["9S", "AC", "5H"], ["AC", "9S"])).toEqual(["9S", "AC"]);
    expect(moveTo(["A", "B", "C", "D"], "A", 3)).toEqual(["B", "C", "D", "A"]);
    expect(moveTo(["A", "B", "C", "D"], "D", 0)).toEqual(["D", "A", "B", "C"]);
  });
});

describe("the layout across reloads and hands", () => {
  const cards = ["AC", "5H", "9S", "QD"];

  it("a reload keeps the order of the hand in play; a new hand starts from the last chosen sort", () => {
    const storage = new MemoryStorage();
    const first = new HandLayout(new Persist(storage));
    expect(first.sort(view(cards))).toBe("melds");
    expect(first.order(view(cards))).toBeNull();
    first.setSort(view(cards), "suit");
    first.move(view(cards), bySuit(cards), "QD", 0);

    const reloaded = new HandLayout(new Persist(storage));
    expect(reloaded.sort(view(cards))).toBe("custom");
    expect(reloaded.order(view(cards))).toEqual(["QD", ...bySuit(cards).filter((card) => card !== "QD")]);

    const next = view(["2C", "KH", "3D"], {}, 2);
    expect(reloaded.sort(next)).toBe("suit");
    expect(reloaded.order(next)).toEqual(["2C", "KH", "3D"]);
    expect(reloaded.sort(view(cards, {}, 1, "another room"))).toBe("suit");
  });

  it("marks the card drawn until the turn's discard, also after a reload", () => {
    const storage = new MemoryStorage();
    const layout = new HandLayout(new Persist(storage));
    const discarding = view([...cards, "7C"], { phase: "discard", turn: 0 });
    layout.noteDrawn(discarding, "7C");
    expect(new HandLayout(new Persist(storage)).drawn(discarding)).toBe("7C");
    expect(layout.drawn(view(cards, { phase: "draw", turn: 1 }))).toBeNull();
    expect(layout.drawn(view([...cards, "7C"], { phase: "discard", turn: 1 }))).toBeNull();
  });

  it("a storage that refuses leaves the default", () => {
    const layout = new HandLayout(new Persist(null));
    layout.setSort(view(cards), "rank");
    expect(layout.sort(view(cards))).toBe("melds");
  });
});

describe("the hint", () => {
  const hand = ["3H", "4H", "5H", "9C", "9D", "9S", "KD", "2C", "AS", "6C", "7D"];
  const discards = (cards: string[]) => cards.map((card) => ({ kind: "discard" as const, card }));

  it("only when asked, only among allowed discards, gone once the hand changes", () => {
    const layout = new HandLayout(new Persist(null));
    const game = view(hand, { phase: "discard", legal_actions: discards(hand.filter((card) => card !== "KD")) }).game as GameView;
    expect(layout.currentHint(game)).toBeNull();
    expect(layout.askHint(game)?.card).toBe("7D");
    expect(layout.currentHint(game)?.card).toBe("7D");
    const after = view(hand.filter((card) => card !== "7D"), { phase: "draw" }).game as GameView;
    expect(layout.currentHint(after)).toBeNull();
    expect(layout.canHint(after)).toBe(false);
  });
});
