// What the page signals about a change: the sounds of its events, whose move it is, and the
// your-turn chime and notification when the turn passes to the player (never for a resume's
// replay of what happened while the page was not listening).

import { describe, expect, it } from "vitest";
import { eventCues, playerToAct, type Cue } from "../src/cues";
import type { GameView, RoomView } from "../src/protocol";
import type { Applied } from "../src/room-state";
import { DEFAULT_SETTINGS, type Settings } from "../src/settings";
import type { SoundBoard } from "../src/sounds";
import type { TurnNotifier } from "../src/turn-notice";
import { TurnSignals } from "../src/turn-signals";

function view(turn: number | null, phase: string, seat: number | null = 0, status = "playing"): RoomView {
  return {
    room: "r1",
    mode: "ai",
    status,
    seats: [],
    seat,
    turn_deadline: null,
    winner: null,
    rematch: [false, false],
    next_room: null,
    game: { hand: 1, dealer: 1, phase, turn, scores: [0, 0], hand_sizes: [10, 10], stock_size: 31, discard_pile: ["7H"], legal_actions: [] } as unknown as GameView,
  } as RoomView;
}

describe("eventCues", () => {
  it("a card for every draw, upcard taken and discard, of either seat", () => {
    const events = [
      { type: "draw", seat: 1, source: "stock" },
      { type: "draw", seat: 0, source: "discard", card: "7H" },
      { type: "take_upcard", seat: 1, card: "2C" },
      { type: "discard", seat: 0, card: "KS" },
      { type: "pass", seat: 1 },
      { type: "hidden" },
      { type: "deal", dealer: 0 },
    ];
    expect(eventCues(events, 0)).toEqual(["card", "card", "card", "card"]);
  });

  it("knock, gin and an undercut; a knock that wins is only the knock", () => {
    expect(eventCues([{ type: "knock", seat: 1, card: "9C" }, { type: "hand_over", kind: "knock", winner: 1 }], 0)).toEqual(["knock"]);
    expect(eventCues([{ type: "knock", seat: 1, card: "9C" }, { type: "hand_over", kind: "undercut", winner: 0 }], 0)).toEqual(["knock", "undercut"]);
    expect(eventCues([{ type: "gin", seat: 0, card: "9C" }, { type: "hand_over", kind: "gin", winner: 0 }], 0)).toEqual(["gin"]);
    expect(eventCues([{ type: "hand_over", kind: "dead", winner: null }], 0)).toEqual([]);
  });

  it("the match won or lost as the player sees it; a watcher hears neither", () => {
    const end = [{ type: "gin", seat: 1, card: "9C" }, { type: "hand_over", kind: "gin", winner: 1 }, { type: "match_over", winner: 1 }];
    expect(eventCues(end, 1)).toEqual(["gin", "won"]);
    expect(eventCues(end, 0)).toEqual(["gin", "lost"]);
    expect(eventCues(end, null)).toEqual(["gin"]);
  });

  it("a forfeit: won for the one left behind, nothing for the one who left", () => {
    const forfeit = [{ type: "forfeit", seat: 1, winner: 0 }];
    expect(eventCues(forfeit, 0)).toEqual(["won"]);
    expect(eventCues(forfeit, 1)).toEqual([]);
  });
});

describe("playerToAct", () => {
  it("is the player's turn in a playing phase of a match in play", () => {
    for (const phase of ["first_offer", "second_offer", "first_draw", "draw", "discard"]) expect(playerToAct(view(0, phase)), phase).toBe(true);
    expect(playerToAct(view(1, "draw"))).toBe(false);
    expect(playerToAct(view(null, "hand_over"))).toBe(false);
    expect(playerToAct(view(0, "draw", null))).toBe(false);
    expect(playerToAct(view(0, "draw", 0, "finished"))).toBe(false);
    expect(playerToAct(null)).toBe(false);
  });
});

class Heard {
  played: Cue[][] = [];
  notes: string[] = [];
  cleared = 0;
  settings: Settings = { ...DEFAULT_SETTINGS, sound: true, notifications: true };

  signals(): TurnSignals {
    const sounds = { play: (cues: readonly Cue[]) => this.played.push([...cues]) } as unknown as SoundBoard;
    const notifier = {
      notify: (title: string) => this.notes.push(title),
      clear: () => (this.cleared += 1),
    } as unknown as TurnNotifier;
    return new TurnSignals(() => this.settings, sounds, notifier);
  }
}

const words = () => ({ title: "Your turn", body: "", lang: "en", dir: "ltr" as const });
const entry = (seq: number, events: Applied["events"], replayed = false, withView: RoomView | null = null): Applied => ({ seq, events, view: withView, replayed });

describe("TurnSignals", () => {
  it("plays the events of a live change and the chime when the turn comes to the player", () => {
    const heard = new Heard();
    const signals = heard.signals();
    signals.know("r1", view(1, "draw"));
    signals.changed("r1", view(1, "discard"), [entry(5, [{ type: "draw", seat: 1, source: "stock" }])], words);
    signals.changed("r1", view(0, "draw"), [entry(6, [{ type: "discard", seat: 1, card: "QS" }])], words);
    expect(heard.played).toEqual([["card"], ["card", "turn"]]);
    expect(heard.notes).toEqual(["Your turn"]);
    // still the player's turn after their draw: no second chime
    signals.changed("r1", view(0, "discard"), [entry(7, [{ type: "draw", seat: 0, source: "stock", card: "2H" }])], words);
    expect(heard.played[2]).toEqual(["card"]);
    expect(heard.notes).toHaveLength(1);
  });

  it("is silent about a resume's replay, but still says that the turn came", () => {
    const heard = new Heard();
    const signals = heard.signals();
    signals.know("r1", view(1, "draw"));
    signals.changed("r1", view(0, "draw"), [entry(5, [{ type: "draw", seat: 1, source: "stock" }], true), entry(6, [{ type: "discard", seat: 1, card: "QS" }], true)], words);
    expect(heard.played).toEqual([["turn"]]);
  });

  it("after a reload on the player's own turn, the saved view says it was already theirs", () => {
    const heard = new Heard();
    const signals = heard.signals();
    signals.know("r1", view(0, "draw"));
    signals.changed("r1", view(0, "draw"), [], words);
    expect(heard.played).toEqual([]);
    expect(heard.notes).toEqual([]);
  });

  it("plays nothing with sound off, notifies nothing with notifications off, and clears the notice once the turn is gone", () => {
    const heard = new Heard();
    heard.settings = { ...DEFAULT_SETTINGS };
    const signals = heard.signals();
    signals.changed("r1", view(0, "draw"), [entry(1, [{ type: "discard", seat: 1, card: "QS" }])], words);
    signals.changed("r1", view(1, "draw"), [entry(2, [{ type: "discard", seat: 0, card: "2S" }])], words);
    expect(heard.played).toEqual([]);
    expect(heard.notes).toEqual([]);
    expect(heard.cleared).toBe(1);
  });

  it("another room starts afresh", () => {
    const heard = new Heard();
    const signals = heard.signals();
    signals.know("r1", view(0, "draw"));
    signals.changed("r2", view(0, "first_offer"), [], words);
    expect(heard.played).toEqual([["turn"]]);
  });
});
