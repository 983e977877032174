import { describe, expect, it } from "vitest";
import { theirMovesSince } from "../src/their-moves";

describe("the other player's moves since mine", () => {
  it("are the card they took and the card they threw after my last move", () => {
    const history = [
      { seat: 0, kind: "pass" },
      { seat: 1, kind: "take_upcard", card: "7C" },
      { seat: 1, kind: "discard", card: "KD" },
    ];
    expect(theirMovesSince(history, 0)).toEqual({ took: "7C", threw: "KD" });
    // a draw from the stock names no card: only the throw is marked
    expect(theirMovesSince([...history, { seat: 0, kind: "draw_stock" }, { seat: 0, kind: "discard", card: "2S" }, { seat: 1, kind: "draw_stock" }, { seat: 1, kind: "discard", card: "9H" }], 0)).toEqual({ took: null, threw: "9H" });
  });

  it("are gone once I moved, and none before they moved", () => {
    const history = [
      { seat: 1, kind: "draw_discard", card: "5S" },
      { seat: 1, kind: "discard", card: "QH" },
      { seat: 0, kind: "draw_stock" },
    ];
    expect(theirMovesSince(history, 0)).toEqual({ took: null, threw: null });
    expect(theirMovesSince([], 0)).toEqual({ took: null, threw: null });
    // a pass of the upcard takes nothing
    expect(theirMovesSince([{ seat: 1, kind: "pass" }], 0)).toEqual({ took: null, threw: null });
  });
});
