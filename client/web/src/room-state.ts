// One followed room as the client knows it: the last sequence number applied and the latest
// view. Pure bookkeeping (docs/protocol.md, "Sequence numbers and resume"):
// - an update with seq == last + 1 is applied (its view replaces ours, unless it is null: a
//   catch-up update carries a view only on the last one);
// - seq <= last is a duplicate (after a resume) and is ignored;
// - seq > last + 1 means a number was missed: the caller sends `resume`.

import type { GameEvent, HandOver, RoomView, SnapshotMsg, UpdateMsg } from "./protocol";

export type ApplyResult = "applied" | "duplicate" | "gap" | "other_room";

export interface Applied {
  seq: number;
  events: GameEvent[];
  /** The view after this update, or null when it came without one (catch-up). */
  view: RoomView | null;
  /** Part of a catch-up (after `resume`): it happened while the page was not listening, so
   * the page does not play it as news (no sound). */
  replayed?: boolean;
}

export class RoomTracker {
  readonly room: string;
  lastSeq: number;
  view: RoomView | null;
  /** The last hand_over seen (from events or the view), kept after the next deal so that the
   * player sees the result even when the other seat deals the next hand at once. */
  lastResult: HandOver | null = null;
  /** What a watcher of a room that is not public gives with every resume (its watch link's). */
  readonly watchToken: string | null;
  /** A resume is under way (every update until its ack is a catch-up), and the last number
   * its ack said it would replay. */
  resuming = false;
  replayThrough = -1;

  constructor(room: string, lastSeq = -1, view: RoomView | null = null, watchToken: string | null = null) {
    this.room = room;
    this.lastSeq = lastSeq;
    this.view = view;
    this.watchToken = watchToken;
  }

  /** Apply an update; `applied` lists what changed so the caller can animate and announce it. */
  applyUpdate(update: UpdateMsg, applied?: Applied[]): ApplyResult {
    if (update.room !== this.room) return "other_room";
    if (update.seq <= this.lastSeq) return "duplicate";
    if (update.seq > this.lastSeq + 1) return "gap";
    this.lastSeq = update.seq;
    if (update.view) this.view = update.view;
    for (const event of update.events) {
      if (event.type === "hand_over") this.lastResult = event as unknown as HandOver;
    }
    const lastHand = update.view?.game?.last_hand;
    if (lastHand) this.lastResult = lastHand;
    const replayed = this.resuming || update.seq <= this.replayThrough;
    applied?.push({ seq: update.seq, events: update.events, view: update.view ?? null, replayed });
    return "applied";
  }

  /** A snapshot replaces the view when it is not older than what we have. */
  applySnapshot(snapshot: SnapshotMsg): ApplyResult {
    if (snapshot.room !== this.room) return "other_room";
    if (snapshot.seq < this.lastSeq) return "duplicate";
    this.lastSeq = snapshot.seq;
    this.view = snapshot.view;
    const lastHand = snapshot.view?.game?.last_hand;
    if (lastHand) this.lastResult = lastHand;
    return "applied";
  }

  /** Forget everything (the server no longer has our numbers): resume from the start. */
  reset(): void {
    this.lastSeq = -1;
  }
}
