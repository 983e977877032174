import { describe, expect, it } from "vitest";

import { chartGeometry, type ChartBox } from "../src/rating-chart";

const BOX: ChartBox = { width: 200, height: 100, pad: 20 };
const HISTORY = [
  { at: 100, rating: 1500, delta: 0 },
  { at: 200, rating: 1600, delta: 100 },
  { at: 300, rating: 1550, delta: -50 },
];

describe("the rating chart's geometry", () => {
  it("runs time left to right, a higher rating higher up", () => {
    const { points, low, high } = chartGeometry(HISTORY, false, BOX);
    expect(points.map((point) => point.x)).toEqual([20, 100, 180]);
    expect(points[1].y).toBeLessThan(points[2].y);
    expect(points[2].y).toBeLessThan(points[0].y);
    expect([low, high]).toEqual([1500, 1600]);
    expect(points[0].y).toBe(100 - 20); // the lowest rating on the plot's bottom edge
    expect(points[1].y).toBe(10); // the highest on its top edge
  });

  it("runs time right to left in a right-to-left page, the heights unchanged", () => {
    const ltr = chartGeometry(HISTORY, false, BOX).points;
    const rtl = chartGeometry(HISTORY, true, BOX).points;
    expect(rtl.map((point) => point.x)).toEqual([180, 100, 20]);
    expect(rtl.map((point) => point.y)).toEqual(ltr.map((point) => point.y));
  });

  it("puts a single match in the middle of a span of at least 50 points", () => {
    const { points, low, high } = chartGeometry([{ at: 1, rating: 1259, delta: -241 }], true, BOX);
    expect(points[0].x).toBe(100);
    expect(high - low).toBe(50);
    expect(points[0].y).toBe(45);
  });
});
