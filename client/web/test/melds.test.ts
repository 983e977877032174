// The client's meld solver against positions the Python solver (protocol.melds) computed:
// test/fixtures/deadwood.json is written by scripts/make_deadwood_fixture.py.

import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { bestArrangement, bestDiscard, cardPoints, discardOptions, minDeadwood } from "../src/melds";

interface Fixture {
  ten: { cards: string[]; deadwood: number }[];
  eleven: { cards: string[]; after_discard: Record<string, number>; best: number }[];
}

const fixture = JSON.parse(readFileSync(join(__dirname, "fixtures", "deadwood.json"), "utf8")) as Fixture;

describe("least deadwood, as the Python solver computes it", () => {
  it("has enough positions to mean something", () => {
    expect(fixture.ten.length).toBeGreaterThan(400);
    expect(fixture.eleven.length).toBeGreaterThan(300);
    // near-knock hands, where a wrong meld choice shows
    expect(fixture.ten.filter((hand) => hand.deadwood <= 10).length).toBeGreaterThan(15);
    expect(fixture.eleven.filter((hand) => hand.best <= 10).length).toBeGreaterThan(30);
  });

  it("every 10-card hand", () => {
    for (const hand of fixture.ten) expect(minDeadwood(hand.cards), hand.cards.join(" ")).toBe(hand.deadwood);
  });

  it("every discard of every 11-card hand", () => {
    for (const hand of fixture.eleven) {
      const options = Object.fromEntries(discardOptions(hand.cards).map((option) => [option.card, option.deadwood]));
      expect(options, hand.cards.join(" ")).toEqual(hand.after_discard);
      expect(bestDiscard(hand.cards)?.deadwood).toBe(hand.best);
    }
  });
});

describe("the arrangement", () => {
  it("splits into real melds and counts the rest", () => {
    const arrangement = bestArrangement(["7C", "7D", "7H", "7S", "5H", "6H", "8H", "9H", "5S", "6S"]);
    expect(arrangement.points).toBe(11);
    expect(arrangement.melds.flat().length + arrangement.deadwood.length).toBe(10);
    expect(arrangement.deadwood.reduce((sum, card) => sum + cardPoints(card), 0)).toBe(11);
  });

  it("the ace is low only", () => {
    expect(minDeadwood(["QS", "KS", "AS"])).toBe(21);
    expect(minDeadwood(["AS", "2S", "3S"])).toBe(0);
  });
});

describe("the hinted discard", () => {
  it("leaves the least deadwood", () => {
    // 11 cards: a run, a set, and three loose cards; the king goes
    const hand = ["3H", "4H", "5H", "9C", "9D", "9S", "KD", "2C", "AS", "6C", "7D"];
    expect(bestDiscard(hand)).toEqual({ card: "KD", deadwood: 16 });
  });

  it("breaks ties by the card worth more points", () => {
    // gin after discarding the 7♣ or the 8♦: the 8 goes
    const hand = ["TH", "8H", "9S", "8D", "8S", "8C", "9C", "TC", "9H", "7C", "TS"];
    const options = discardOptions(hand);
    const least = Math.min(...options.map((option) => option.deadwood));
    const tied = options.filter((option) => option.deadwood === least).map((option) => option.card);
    expect(tied.length).toBeGreaterThan(1);
    const chosen = bestDiscard(hand)?.card ?? "";
    expect(tied.sort()).toEqual(["7C", "8D"]);
    expect(chosen).toBe("8D");
    for (const card of tied) expect(cardPoints(chosen)).toBeGreaterThanOrEqual(cardPoints(card));
  });

  it("only among the allowed discards (not the card just taken from the pile)", () => {
    const hand = ["3H", "4H", "5H", "9C", "9D", "9S", "KD", "2C", "AS", "6C", "7D"];
    const allowed = hand.filter((card) => card !== "KD");
    expect(bestDiscard(hand, allowed)?.card).toBe("7D");
    expect(bestDiscard(hand, [])).toBeNull();
  });
});
