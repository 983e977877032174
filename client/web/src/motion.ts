// The table's movements: a card travelling from the stock or the pile to a hand and from a hand
// to the pile, the deal, and the reveal of both hands after a knock with the layoffs flying to
// their melds. Purely cosmetic: the page is rendered in its final state first, then the
// elements that moved are played from where they were (FLIP, with the Web Animations API) to
// where they are. Nothing waits for an animation, and none runs under reduced motion.
//
// Elements are found by what the views already mark them with: `data-card` on every card
// face, the pile testids (`stock`, `discard`), `data-seat-index` on each seat.

import type { GameEvent } from "./protocol";

/** What one applied change did, read from its events (the app's `onChange`). */
export interface Cue {
  /** The hand's deal (a new hand began). */
  deal: boolean;
  /** A hand ended: both hands are revealed (the hand result). */
  reveal: boolean;
  /** Draws, in order: who, from where, and the card when the reader may see it. */
  draws: { seat: number; from: "stock" | "discard"; card: string | null }[];
  /** Discards (a knock or a gin included): who and which card. */
  discards: { seat: number; card: string }[];
}

export function emptyCue(): Cue {
  return { deal: false, reveal: false, draws: [], discards: [] };
}

/** The cue of the events of one applied change. */
export function cueOf(events: readonly GameEvent[], into: Cue = emptyCue()): Cue {
  for (const event of events) {
    const seat = typeof event.seat === "number" ? event.seat : -1;
    const card = typeof event.card === "string" ? event.card : null;
    switch (event.type) {
      case "deal":
        into.deal = true;
        break;
      case "hand_over":
        into.reveal = true;
        break;
      case "take_upcard":
        into.draws.push({ seat, from: "discard", card });
        break;
      case "draw":
        into.draws.push({ seat, from: event.source === "discard" ? "discard" : "stock", card });
        break;
      case "discard":
      case "knock":
      case "gin":
        if (card) into.discards.push({ seat, card });
        break;
      default:
        break;
    }
  }
  return into;
}

export function hasMoves(cue: Cue): boolean {
  return cue.deal || cue.reveal || cue.draws.length > 0 || cue.discards.length > 0;
}

/** Where things were on the page before a render. */
export interface Before {
  /** Each card on the table (the hand, the pile's top) by its `data-card`. */
  cards: Map<string, DOMRect>;
  stock: DOMRect | null;
  discard: DOMRect | null;
  /** The last of each seat's hidden cards (`.backs`), by seat index: where a card it
   * discards or shows comes from. */
  backs: Map<number, DOMRect>;
}

const DURATION = 260;
const EASING = "cubic-bezier(0.2, 0.7, 0.3, 1)";
const DEAL_STAGGER = 28;

/** Reduced motion: the player chose it (page settings) or the system asks for it. */
export function motionReduced(): boolean {
  if (document.documentElement.dataset.motion === "reduced") return true;
  return window.matchMedia?.("(prefers-reduced-motion: reduce)").matches ?? false;
}

function rectOf(root: ParentNode, selector: string): DOMRect | null {
  return root.querySelector(selector)?.getBoundingClientRect() ?? null;
}

export function capture(root: ParentNode): Before {
  const cards = new Map<string, DOMRect>();
  for (const element of root.querySelectorAll<HTMLElement>("[data-testid=table] [data-card]")) {
    cards.set(element.dataset.card ?? "", element.getBoundingClientRect());
  }
  const backs = new Map<number, DOMRect>();
  for (const seat of root.querySelectorAll<HTMLElement>("[data-testid=table] [data-seat-index]")) {
    const cards = seat.querySelectorAll(".backs .card");
    const rect = cards.length ? cards[cards.length - 1].getBoundingClientRect() : rectOf(seat, ".backs");
    if (rect) backs.set(Number(seat.dataset.seatIndex), rect);
  }
  return {
    cards,
    stock: rectOf(root, "[data-testid=stock] .card"),
    discard: rectOf(root, "[data-testid=discard] .card.top") ?? rectOf(root, "[data-testid=discard] .card"),
    backs,
  };
}

interface Travel {
  element: Element;
  from: DOMRect;
  id: string;
  delay?: number;
  /** Turn the card over on the way (a back becoming a face, a face becoming a back). */
  turn?: boolean;
}

/** Play `element` from the box `from` to where it is now. */
function travel({ element, from, id, delay = 0, turn = false }: Travel): void {
  const to = element.getBoundingClientRect();
  if (to.width === 0 || from.width === 0) return;
  const dx = from.left + from.width / 2 - (to.left + to.width / 2);
  const dy = from.top + from.height / 2 - (to.top + to.height / 2);
  const scale = from.width / to.width;
  if (Math.abs(dx) < 1 && Math.abs(dy) < 1 && Math.abs(scale - 1) < 0.02) return;
  const start = `perspective(600px) translate(${dx}px, ${dy}px) scale(${scale})${turn ? " rotateY(70deg)" : ""}`;
  element.animate([{ transform: start }, { transform: "perspective(600px)" }], {
    duration: DURATION,
    easing: EASING,
    delay,
    fill: "backwards",
    id,
  });
}

/** The last card back of a seat (the one a draw added, or the one a discard will take). */
function lastBack(root: ParentNode, seat: number): Element | null {
  const backs = root.querySelectorAll(`[data-testid=table] [data-seat-index="${seat}"] .backs .card`);
  return backs.length ? backs[backs.length - 1] : null;
}

/** A card of the table that moved: from where it was, or from where it came from. */
function playTable(root: ParentNode, before: Before, cue: Cue, reader: number | null): void {
  if (cue.deal) return playDeal(root, before);
  const newCards: HTMLElement[] = [];
  for (const element of root.querySelectorAll<HTMLElement>("[data-testid=table] [data-card]")) {
    const was = before.cards.get(element.dataset.card ?? "");
    if (was) travel({ element, from: was, id: "motion-move" });
    else newCards.push(element);
  }
  for (const element of newCards) {
    const card = element.dataset.card ?? "";
    const drawn = cue.draws.find((draw) => draw.card === card && draw.seat === reader);
    if (drawn && drawn.from === "stock" && before.stock) {
      travel({ element, from: before.stock, id: "motion-draw", turn: true });
      continue;
    }
    const discarded = cue.discards.find((discard) => discard.card === card);
    const from = discarded ? before.backs.get(discarded.seat) : undefined;
    if (from) travel({ element, from, id: "motion-discard", turn: true });
  }
  // a hidden hand's draw: a card back travels from the pile to the seat
  for (const draw of cue.draws) {
    if (draw.seat === reader) continue;
    const back = lastBack(root, draw.seat);
    const from = draw.from === "stock" ? before.stock : before.discard;
    if (back && from) travel({ element: back, from, id: "motion-draw" });
  }
}

/** The deal: every card from the stock, one after the other, the two hands in turn. */
function playDeal(root: ParentNode, before: Before): void {
  const stock = before.stock ?? rectOf(root, "[data-testid=stock] .card");
  if (!stock) return;
  const faces = Array.from(root.querySelectorAll<HTMLElement>("[data-testid=my-hand] [data-card]"));
  const backs = Array.from(root.querySelectorAll("[data-testid=table] .backs .card"));
  const count = Math.max(faces.length, backs.length);
  let step = 0;
  for (let index = 0; index < count; index += 1) {
    for (const element of [backs[index], faces[index]]) {
      if (!element) continue;
      travel({ element, from: stock, id: "motion-deal", delay: step * DEAL_STAGGER, turn: faces.includes(element as HTMLElement) });
      step += 1;
    }
  }
  const upcard = root.querySelector("[data-testid=discard] [data-card]");
  if (upcard) travel({ element: upcard, from: stock, id: "motion-deal", delay: step * DEAL_STAGGER, turn: true });
}

/** The reveal: each hand's cards gather from where they were into the result, then the
 * defender's layoffs fly onto the knocker's melds. */
function playReveal(root: ParentNode, before: Before): void {
  const result = root.querySelector<HTMLElement>("[data-testid=hand-result]");
  if (!result) return;
  result.animate([{ opacity: 0, transform: "translateY(12px) scale(0.98)" }, { opacity: 1, transform: "none" }], {
    duration: 200,
    easing: EASING,
    id: "motion-reveal",
  });
  const kind = result.querySelector(".headline .kind");
  kind?.animate([{ opacity: 0, transform: "scale(1.8)" }, { opacity: 1, transform: "none" }], {
    duration: 300,
    easing: EASING,
    delay: 120,
    fill: "backwards",
    id: "motion-knock",
  });
  for (const hand of result.querySelectorAll<HTMLElement>("[data-result-seat]")) {
    const seat = Number(hand.dataset.resultSeat);
    const seatBox = before.backs.get(seat);
    let index = 0;
    for (const element of hand.querySelectorAll<HTMLElement>("[data-card]:not(.laid-off)")) {
      const from = before.cards.get(element.dataset.card ?? "") ?? seatBox;
      if (from) travel({ element, from, id: "motion-reveal", delay: 60 + index * 18, turn: !before.cards.has(element.dataset.card ?? "") });
      index += 1;
    }
  }
  // each laid-off card flies from the defender's hand (its deadwood, where the card was),
  // the size of a card all the way: the box it starts from is a card's box, not the hand's
  const defender = result.querySelector(".result-hand:not(.knocker) .group-deadwood") ?? result.querySelector(".result-hand:not(.knocker) .groups");
  const area = defender?.getBoundingClientRect();
  if (!area) return;
  let index = 0;
  for (const element of result.querySelectorAll(".laid-off")) {
    const card = element.getBoundingClientRect();
    const from = new DOMRect(area.left + area.width / 2 - card.width / 2, area.top + area.height / 2 - card.height / 2, card.width, card.height);
    travel({ element, from, id: "motion-layoff", delay: 420 + index * 90 });
    index += 1;
  }
}

/** After a render: play what the cue moved, from where `before` saw things. */
export function play(root: ParentNode, before: Before | null, cue: Cue, reader: number | null): void {
  if (!before || !hasMoves(cue) || motionReduced() || typeof Element.prototype.animate !== "function") return;
  playTable(root, before, cue, reader);
  if (cue.reveal) playReveal(root, before);
}
