// The profile's chart of a rating's history: an inline SVG the page draws itself (no chart
// library). A line through one point per rated match, each point with its date, rating and
// change as a tooltip; the top and bottom ratings on the side time starts from; the first and
// last dates under their ends. Time runs as rating-chart.ts places it (right to left in Arabic).

import type { RatingPoint } from "../account";
import { direction, getLang, t } from "../i18n";
import { CHART_BOX, chartGeometry } from "../rating-chart";

const SVG = "http://www.w3.org/2000/svg";

function svg(tag: string, attrs: Record<string, string | number>, ...children: (Element | string)[]): SVGElement {
  const element = document.createElementNS(SVG, tag);
  for (const [key, value] of Object.entries(attrs)) element.setAttribute(key, String(value));
  for (const child of children) element.append(child);
  return element;
}

function day(at: number): string {
  return new Date(at * 1000).toLocaleDateString(getLang(), { dateStyle: "medium" });
}

/** A date as the chart's left-to-right text draws it: without the direction marks an Arabic
 * date carries (they would reorder its parts). */
function chartDay(at: number): string {
  return day(at).replace(/[\u200e\u200f\u061c]/g, "");
}

function signed(delta: number): string {
  return `${delta >= 0 ? "+" : "−"}${Math.abs(delta)}`;
}

export function renderRatingChart(history: readonly RatingPoint[]): SVGElement {
  const rtl = direction(getLang()) === "rtl";
  const box = CHART_BOX;
  const { points, low, high } = chartGeometry(history, rtl, box);
  const first = points[0];
  const last = points[points.length - 1];
  // the ratings' labels stand on the side time starts from (left, or right in Arabic)
  const axisX = rtl ? box.width - box.pad + 4 : box.pad - 4;
  const axisAnchor = rtl ? "start" : "end";
  const bottom = box.height - box.pad;
  const label = (x: number, y: number, anchor: string, text: string, name: string) =>
    svg("text", { x, y, "text-anchor": anchor, class: `chart-label ${name}`, "data-testid": `chart-${name}` }, text);
  return svg(
    "svg",
    {
      class: "rating-chart",
      "data-testid": "rating-chart",
      "data-points": points.length,
      "data-time": rtl ? "right-to-left" : "left-to-right",
      viewBox: `0 0 ${box.width} ${box.height}`,
      // physical anchors: "start" means left whatever the page's direction
      direction: "ltr",
      role: "img",
      "aria-label": t("profile.chartLabel", { n: points.length, from: day(first.at), to: day(last.at) }),
    },
    svg("line", { x1: box.pad, x2: box.width - box.pad, y1: bottom, y2: bottom, class: "chart-axis" }),
    label(axisX, box.pad / 2 + 4, axisAnchor, String(high), "high"),
    label(axisX, bottom, axisAnchor, String(low), "low"),
    svg("polyline", { class: "chart-line", points: points.map((point) => `${point.x},${point.y}`).join(" ") }),
    ...points.map((point, index) =>
      svg(
        "circle",
        { cx: point.x, cy: point.y, r: points.length > 60 ? 2 : 4, class: "chart-point", "data-rating": point.rating, "data-index": index },
        svg("title", {}, `${day(point.at)}: ${point.rating} (${signed(point.delta)})`),
      ),
    ),
    label(first.x, box.height - 6, points.length === 1 ? "middle" : rtl ? "end" : "start", chartDay(first.at), "first"),
    points.length > 1 ? label(last.x, box.height - 6, rtl ? "start" : "end", chartDay(last.at), "last") : "",
  );
}
