// Where the points of a rating's history go in the profile's chart: one point per rated match,
// evenly spaced in the order they were played, the rating up. Time runs with the page's reading
// direction: left to right (oldest on the left), and right to left in Arabic (oldest on the
// right, the newest match at the line's left end), as the text of the page reads.

import type { RatingPoint } from "./account";

export interface ChartBox {
  width: number;
  height: number;
  /** Room around the plot for the labels. */
  pad: number;
}

export const CHART_BOX: ChartBox = { width: 400, height: 150, pad: 40 };

export interface PlacedPoint extends RatingPoint {
  x: number;
  y: number;
}

export interface ChartGeometry {
  points: PlacedPoint[];
  /** The rating at the plot's bottom and top edges (a span of at least 50 points). */
  low: number;
  high: number;
}

const MIN_SPAN = 50;

export function chartGeometry(history: readonly RatingPoint[], rtl: boolean, box: ChartBox = CHART_BOX): ChartGeometry {
  const ratings = history.map((point) => point.rating);
  let low = Math.min(...ratings);
  let high = Math.max(...ratings);
  if (high - low < MIN_SPAN) {
    const middle = (low + high) / 2;
    low = middle - MIN_SPAN / 2;
    high = middle + MIN_SPAN / 2;
  }
  const left = box.pad;
  const span = box.width - 2 * box.pad;
  const top = box.pad / 2;
  const tall = box.height - box.pad * 1.5;
  const points = history.map((point, index) => {
    const along = history.length === 1 ? 0.5 : index / (history.length - 1);
    const x = left + span * (rtl ? 1 - along : along);
    const y = top + tall * (1 - (point.rating - low) / (high - low));
    return { ...point, x: Math.round(x * 10) / 10, y: Math.round(y * 10) / 10 };
  });
  return { points, low: Math.round(low), high: Math.round(high) };
}
