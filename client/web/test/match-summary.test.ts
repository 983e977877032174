import { describe, expect, it } from "vitest";
import { matchSummary } from "../src/match-summary";

describe("a match's summary", () => {
  it("counts each player's gins, undercuts and knocks, an undercut knock the knocker's", () => {
    const [first, second] = matchSummary([
      { kind: "knock", winner: 0, points: 12 },
      { kind: "dead", winner: null, points: 0 },
      { kind: "undercut", winner: 1, points: 31 },
      { kind: "gin", winner: 0, points: 44 },
      { kind: "knock", winner: 1, points: 7 },
      { kind: "gin", winner: 0, points: 44 },
    ]);
    expect(first).toEqual({ gins: 2, undercuts: 0, knocks: 2, best: { hand: 4, kind: "gin", points: 44 } });
    expect(second).toEqual({ gins: 0, undercuts: 1, knocks: 1, best: { hand: 3, kind: "undercut", points: 31 } });
  });

  it("is empty before any hand was won", () => {
    const none = { gins: 0, undercuts: 0, knocks: 0, best: null };
    expect(matchSummary([])).toEqual([none, none]);
    expect(matchSummary([{ kind: "dead", winner: null, points: 0 }])).toEqual([none, none]);
  });
});
