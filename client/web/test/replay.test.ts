import { describe, expect, it } from "vitest";
import { buildFrames, ReplayError, type HandRecord } from "../src/replay-model";

const HANDS = [
  ["2C", "3C", "4C", "5D", "6D", "7D", "8H", "9H", "TH", "KS"],
  ["AS", "2S", "3S", "4H", "5H", "6H", "7C", "8C", "9C", "QD"],
];

function record(): HandRecord {
  return {
    id: "r1-1",
    room: "r1",
    hand: 1,
    players: ["Ada", "Grace"],
    dealer: 1,
    events: [
      { type: "deal", hand: 1, dealer: 1, hands: HANDS, upcard: "JD", stock: ["QC", "KD", "5C", "JS"], scores: [0, 0] },
      { type: "pass", seat: 0 },
      { type: "take_upcard", seat: 1, card: "JD" },
      { type: "discard", seat: 1, card: "QD" },
      { type: "draw", seat: 0, source: "stock", card: "JS" },
      { type: "discard", seat: 0, card: "JS" },
      { type: "draw", seat: 1, source: "discard", card: "JS" },
      { type: "knock", seat: 1, card: "JD" },
      {
        type: "hand_over",
        hand: 1,
        kind: "knock",
        winner: 1,
        points: 20,
        knocker: 1,
        hands: [HANDS[0], ["AS", "2S", "3S", "4H", "5H", "6H", "7C", "8C", "9C", "JS"]],
        scores: [0, 20],
        melds: [[["2C", "3C", "4C"], ["5D", "6D", "7D"], ["8H", "9H", "TH"]], [["AS", "2S", "3S"], ["4H", "5H", "6H"], ["7C", "8C", "9C"]]],
        deadwood: [["KS"], ["JS"]],
        deadwood_points: [10, 10],
        layoffs: [],
      },
      { type: "match_over", winner: 1, points: [0, 100], game_bonus: [0, 0], box_bonus: [0, 0], shutout: true, totals: [0, 100] },
    ],
  };
}

describe("replay frames", () => {
  it("has the deal, one frame per move and the result", () => {
    const frames = buildFrames(record());
    expect(frames.map((frame) => frame.event.type)).toEqual(["deal", "pass", "take_upcard", "discard", "draw", "discard", "draw", "knock", "hand_over"]);
  });

  it("shows every card at every step: 52 cards, no card twice", () => {
    for (const frame of buildFrames(record())) {
      const all = [...frame.hands[0], ...frame.hands[1], ...frame.stock, ...frame.discard];
      expect(new Set(all).size).toBe(all.length);
      expect(all.length).toBe(10 + 10 + 4 + 1);
    }
  });

  it("moves the cards: upcard taken, stock drawn, discards on the pile", () => {
    const frames = buildFrames(record());
    expect(frames[0].discard).toEqual(["JD"]);
    expect(frames[2].hands[1]).toContain("JD");
    expect(frames[2].discard).toEqual([]);
    expect(frames[3].discard).toEqual(["QD"]);
    expect(frames[4].stock).toEqual(["QC", "KD", "5C"]);
    expect(frames[4].hands[0]).toContain("JS");
    expect(frames[6].hands[1]).toContain("JS");
    expect(frames[7].discard).toEqual(["QD", "JD"]);
    expect(frames[7].hands[1]).toHaveLength(10);
    expect(frames[7].moved).toBe("JD");
  });

  it("ends on the result, with the match totals when the match ended", () => {
    const frames = buildFrames(record());
    const last = frames[frames.length - 1];
    expect(last.result?.kind).toBe("knock");
    expect(last.match?.totals).toEqual([0, 100]);
    // the steps before are untouched
    expect(frames[0].hands[0]).toEqual(["2C", "3C", "4C", "5D", "6D", "7D", "8H", "9H", "TH", "KS"]);
  });

  it("refuses a record without a deal", () => {
    expect(() => buildFrames({ events: [{ type: "pass", seat: 0 }] })).toThrow(ReplayError);
  });
});
