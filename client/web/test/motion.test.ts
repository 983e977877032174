import { describe, expect, it } from "vitest";
import { cueOf, emptyCue, hasMoves } from "../src/motion";

// What the table's movements are told about a change (the events of its updates, as the
// server sends them to seat 0: a draw from the stock shows its card to the drawer only).
describe("cueOf", () => {
  it("reads draws from either pile, discards, knocks and gins, in order", () => {
    const cue = cueOf([
      { type: "draw", seat: 0, source: "stock", card: "7H" },
      { type: "discard", seat: 0, card: "KS" },
      { type: "draw", seat: 1, source: "stock" },
      { type: "knock", seat: 1, card: "9C" },
    ]);
    expect(cue.draws).toEqual([
      { seat: 0, from: "stock", card: "7H" },
      { seat: 1, from: "stock", card: null },
    ]);
    expect(cue.discards).toEqual([
      { seat: 0, card: "KS" },
      { seat: 1, card: "9C" },
    ]);
    expect(cue.deal || cue.reveal).toBe(false);
  });

  it("takes the upcard and a draw from the discard pile as draws from the pile", () => {
    const cue = cueOf([
      { type: "take_upcard", seat: 1, card: "QD" },
      { type: "draw", seat: 0, source: "discard", card: "2C" },
      { type: "gin", seat: 0, card: "3C" },
    ]);
    expect(cue.draws.map((draw) => draw.from)).toEqual(["discard", "discard"]);
    expect(cue.discards).toEqual([{ seat: 0, card: "3C" }]);
  });

  it("marks a deal and a hand's end, and adds to a cue across updates", () => {
    const cue = cueOf([{ type: "hand_over", hand: 1 }]);
    cueOf([{ type: "deal", dealer: 1 }], cue);
    expect(cue.reveal).toBe(true);
    expect(cue.deal).toBe(true);
  });

  it("has nothing to move for room events, passes and hidden events", () => {
    const cue = cueOf([{ type: "pass", seat: 0 }, { type: "presence", seat: 1, away: true }, { type: "hidden" }]);
    expect(hasMoves(cue)).toBe(false);
    expect(cue).toEqual(emptyCue());
  });
});
