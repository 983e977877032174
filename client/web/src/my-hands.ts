// "My hands": the player's own finished hands as the server lists them (the lobby's `my_hands`,
// from every device of theirs), by match: the newest match first, its hands in order.

import type { LobbyHand } from "./protocol";

/** A listed hand's id (`ROOM-N`), from its `id` or its room and number. */
export function handId(hand: LobbyHand): string | null {
  if (typeof hand.id === "string") return hand.id;
  const number = handNumber(hand);
  if (typeof hand.room === "string" && typeof number === "number") return `${hand.room}-${number}`;
  return null;
}

export function handNumber(hand: LobbyHand): number | undefined {
  return hand.hand ?? hand.result?.hand;
}

export interface MatchHands {
  room: string;
  /** Its hands, each once, by number. */
  hands: LobbyHand[];
  /** When its latest listed hand ended (unix seconds). */
  latest: number;
}

export function handsByMatch(hands: readonly LobbyHand[]): MatchHands[] {
  const byRoom = new Map<string, Map<string, LobbyHand>>();
  for (const hand of hands) {
    const id = handId(hand);
    if (typeof hand.room !== "string" || id === null) continue;
    const known = byRoom.get(hand.room) ?? new Map<string, LobbyHand>();
    if (!known.has(id)) known.set(id, hand);
    byRoom.set(hand.room, known);
  }
  const matches = [...byRoom.entries()].map(([room, known]) => {
    const list = [...known.values()].sort((a, b) => (handNumber(a) ?? 0) - (handNumber(b) ?? 0));
    return { room, hands: list, latest: Math.max(...list.map((hand) => hand.finished_at ?? 0)) };
  });
  return matches.sort((a, b) => b.latest - a.latest);
}
