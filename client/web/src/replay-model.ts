// A finished hand (GET /api/hands/{id}) as a list of frames, one per move, every card shown:
// the deal (both hands, the stock, the upcard), then each move, then the result.

import type { GameEvent, HandOver, MatchTotals, NameParts } from "./protocol";
import { sortCards } from "./cards";

export interface HandRecord {
  id?: string;
  room?: string;
  hand?: number;
  players?: (string | null)[];
  /** What each player's name is made of (records written since the server says it). */
  seats?: NameParts[];
  dealer?: number;
  events: GameEvent[];
  result?: unknown;
  finished_at?: number;
}

export interface Frame {
  hands: string[][];
  stock: string[];
  discard: string[];
  /** The event this frame shows (the deal for the first one). */
  event: GameEvent;
  /** The card that moved in this step, if any. */
  moved: string | null;
  result: HandOver | null;
  match: MatchTotals | null;
}

export class ReplayError extends Error {}

function take(list: string[], card: string): void {
  const index = list.indexOf(card);
  if (index >= 0) list.splice(index, 1);
}

export function buildFrames(record: HandRecord): Frame[] {
  const events = Array.isArray(record.events) ? record.events : [];
  const deal = events.find((event) => event.type === "deal");
  if (!deal) throw new ReplayError("the hand has no deal");
  const dealt = deal.hands as string[][];
  let hands = [sortCards(dealt[0]), sortCards(dealt[1])];
  let stock = [...((deal.stock as string[]) ?? [])];
  let discard = [String(deal.upcard)];
  const frames: Frame[] = [
    { hands, stock, discard, event: deal, moved: String(deal.upcard), result: null, match: null },
  ];
  for (const event of events.slice(events.indexOf(deal) + 1)) {
    const seat = typeof event.seat === "number" ? event.seat : 0;
    const card = typeof event.card === "string" ? event.card : null;
    hands = hands.map((hand) => [...hand]);
    stock = [...stock];
    discard = [...discard];
    switch (event.type) {
      case "take_upcard":
        if (card) {
          take(discard, card);
          hands[seat] = sortCards([...hands[seat], card]);
        }
        break;
      case "draw":
        if (card) {
          if (event.source === "discard") take(discard, card);
          else take(stock, card);
          hands[seat] = sortCards([...hands[seat], card]);
        }
        break;
      case "discard":
      case "knock":
      case "gin":
        if (card) {
          take(hands[seat], card);
          discard.push(card);
        }
        break;
      case "pass":
        break;
      case "hand_over": {
        const last = frames[frames.length - 1];
        frames.push({ ...last, event, moved: null, result: event as unknown as HandOver, match: null });
        continue;
      }
      case "match_over": {
        const last = frames[frames.length - 1];
        last.match = event as unknown as MatchTotals;
        continue;
      }
      default:
        continue; // room events and anything newer: not a move
    }
    frames.push({ hands, stock, discard, event, moved: card, result: null, match: null });
  }
  return frames;
}
