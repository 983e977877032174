import { describe, expect, it } from "vitest";
import type { GameEvent, RoomView, UpdateMsg } from "../src/protocol";
import { RoomTracker, type Applied } from "../src/room-state";

function view(seq: number, extra: Partial<RoomView> = {}): RoomView {
  return {
    room: "r1",
    mode: "ai",
    status: "playing",
    seats: [],
    seat: 0,
    turn_deadline: null,
    winner: null,
    rematch: [false, false],
    next_room: null,
    game: null,
    ...extra,
    // a marker so tests can tell views apart
    turn_seconds: seq,
  };
}

function update(seq: number, withView = true, events: GameEvent[] = [{ type: "hidden" }]): UpdateMsg {
  return { t: "update", room: "r1", seq, events, view: withView ? view(seq) : undefined };
}

describe("RoomTracker", () => {
  it("applies updates in sequence and keeps the last number and view", () => {
    const tracker = new RoomTracker("r1");
    expect(tracker.applyUpdate(update(0))).toBe("applied");
    expect(tracker.applyUpdate(update(1))).toBe("applied");
    expect(tracker.lastSeq).toBe(1);
    expect(tracker.view?.turn_seconds).toBe(1);
  });

  it("ignores duplicates (seq <= last) without touching the view", () => {
    const tracker = new RoomTracker("r1", 4, view(4));
    expect(tracker.applyUpdate(update(3))).toBe("duplicate");
    expect(tracker.applyUpdate(update(4))).toBe("duplicate");
    expect(tracker.lastSeq).toBe(4);
    expect(tracker.view?.turn_seconds).toBe(4);
  });

  it("reports a gap (seq > last + 1) and applies nothing", () => {
    const tracker = new RoomTracker("r1", 4, view(4));
    expect(tracker.applyUpdate(update(6))).toBe("gap");
    expect(tracker.lastSeq).toBe(4);
    expect(tracker.view?.turn_seconds).toBe(4);
  });

  it("keeps the previous view through a catch-up of view-less updates; the last one brings it", () => {
    const tracker = new RoomTracker("r1", 2, view(2));
    const applied: Applied[] = [];
    expect(tracker.applyUpdate(update(3, false), applied)).toBe("applied");
    expect(tracker.applyUpdate(update(4, false), applied)).toBe("applied");
    expect(tracker.view?.turn_seconds).toBe(2);
    expect(tracker.lastSeq).toBe(4);
    expect(tracker.applyUpdate(update(5, true), applied)).toBe("applied");
    expect(tracker.view?.turn_seconds).toBe(5);
    expect(applied.map((entry) => [entry.seq, entry.view === null])).toEqual([
      [3, true],
      [4, true],
      [5, false],
    ]);
  });

  it("a catch-up from nothing (-1) starts with no view and ends with the last", () => {
    const tracker = new RoomTracker("r1");
    for (let seq = 0; seq < 5; seq += 1) tracker.applyUpdate(update(seq, seq === 4));
    expect(tracker.lastSeq).toBe(4);
    expect(tracker.view?.turn_seconds).toBe(4);
  });

  it("ignores another room's frames", () => {
    const tracker = new RoomTracker("r2");
    expect(tracker.applyUpdate(update(0))).toBe("other_room");
    expect(tracker.applySnapshot({ t: "snapshot", room: "r1", seq: 3, view: view(3) })).toBe("other_room");
    expect(tracker.lastSeq).toBe(-1);
  });

  it("a snapshot replaces the view and the number unless it is older", () => {
    const tracker = new RoomTracker("r1", 3, view(3));
    expect(tracker.applySnapshot({ t: "snapshot", room: "r1", seq: 9, view: view(9) })).toBe("applied");
    expect(tracker.lastSeq).toBe(9);
    expect(tracker.view?.turn_seconds).toBe(9);
    expect(tracker.applySnapshot({ t: "snapshot", room: "r1", seq: 8, view: view(8) })).toBe("duplicate");
    expect(tracker.view?.turn_seconds).toBe(9);
    // updates continue from the snapshot's number
    expect(tracker.applyUpdate(update(10))).toBe("applied");
  });

  it("remembers the last hand_over, from the events or the view", () => {
    const tracker = new RoomTracker("r1");
    const handOver = { type: "hand_over", hand: 1, kind: "gin", winner: 0, points: 31 };
    tracker.applyUpdate(update(0, false, [{ type: "discard", seat: 0, card: "QS" }, handOver]));
    expect(tracker.lastResult?.kind).toBe("gin");
    expect(tracker.lastResult?.hand).toBe(1);
  });

  it("reset() makes the next resume start from nothing", () => {
    const tracker = new RoomTracker("r1", 7, view(7));
    tracker.reset();
    expect(tracker.lastSeq).toBe(-1);
    expect(tracker.applyUpdate(update(0))).toBe("applied");
  });
});
