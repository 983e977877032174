// The emotes, drawn as small inline SVG pictures (no images fetched, no emoji font needed).
// Colours come from CSS (styles/talk.css): a face is `.emote-face`, its features `.emote-ink`.

import type { Emote } from "../talk";

const SVG = "http://www.w3.org/2000/svg";

type Shape = [tag: string, attrs: Record<string, string>];

const EYES: Shape[] = [
  ["circle", { cx: "8.5", cy: "10", r: "1.4", class: "emote-ink" }],
  ["circle", { cx: "15.5", cy: "10", r: "1.4", class: "emote-ink" }],
];
const FACE: Shape = ["circle", { cx: "12", cy: "12", r: "10", class: "emote-face" }];
const line = (d: string): Shape => ["path", { d, class: "emote-line" }];

const SHAPES: Record<Emote, Shape[]> = {
  smile: [FACE, ...EYES, line("M7.5 14.5 Q12 19 16.5 14.5")],
  laugh: [
    FACE,
    line("M6.8 10.2 Q8.5 8 10.2 10.2"),
    line("M13.8 10.2 Q15.5 8 17.2 10.2"),
    ["path", { d: "M6.5 13.2 H17.5 A5.5 5.5 0 0 1 6.5 13.2 Z", class: "emote-ink" }],
  ],
  wow: [FACE, ...EYES, ["circle", { cx: "12", cy: "16", r: "2.6", class: "emote-ink" }]],
  sad: [FACE, ...EYES, line("M7.5 17.5 Q12 13 16.5 17.5")],
  heart: [["path", { d: "M12 21 C5 15.5 2 12 2 8 A4.8 4.8 0 0 1 12 5.6 A4.8 4.8 0 0 1 22 8 C22 12 19 15.5 12 21 Z", class: "emote-heart" }]],
};

/** The picture of an emote; decorative (its name is said by the element around it). */
export function emotePicture(emote: Emote): SVGSVGElement {
  const svg = document.createElementNS(SVG, "svg");
  svg.setAttribute("viewBox", "0 0 24 24");
  svg.setAttribute("class", `emote emote-${emote}`);
  svg.setAttribute("aria-hidden", "true");
  svg.setAttribute("focusable", "false");
  for (const [tag, attrs] of SHAPES[emote]) {
    const shape = document.createElementNS(SVG, tag);
    for (const [name, value] of Object.entries(attrs)) shape.setAttribute(name, value);
    svg.appendChild(shape);
  }
  return svg;
}
