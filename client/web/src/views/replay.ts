// A finished hand, move by move, every card shown: first, back, forward, last, play (the
// arrow keys, Home and End too); the hands of its match one after another, and in match mode
// playing goes on into the next hand until the match's last.

import { cardName } from "../cards";
import { h } from "../dom";
import { direction, getLang, t, type MessageKey } from "../i18n";
import { buildFrames, type Frame, type HandRecord } from "../replay-model";
import type { AppActions } from "./actions";
import { seatName } from "../names";
import { bdi, cardBack, cardGroup, cardView, say } from "./common";
import { resultHand, resultHeadline } from "./result";
import { frameSteps, ReviewModel } from "../review-model";
import { markOf, renderReviewPanel, renderVerdict } from "./review";
import { renderReportButton } from "./report";
import type { ReportTarget } from "../reporting";

const PLAY_EVERY_MS = 900;

const NEXT_HAND_AFTER_MS = 1800;

/** A hand id is the room's id and the hand's number: ROOM-N. */
function siblingId(record: HandRecord | null, step: number): string | null {
  const room = record?.room;
  const hand = record?.hand;
  if (typeof room !== "string" || typeof hand !== "number" || hand + step < 1) return null;
  return `${room}-${hand + step}`;
}

export class ReplayController {
  id: string;
  /** Play on into the match's next hands. */
  readonly matchMode: boolean;
  /** The last hand of the match is shown (its next one was not found). */
  lastOfMatch = false;
  record: HandRecord | null = null;
  frames: Frame[] = [];
  /** The hand's review (docs/review.md), and the record's event index of each frame. */
  review: ReviewModel | null = null;
  steps: number[] = [];
  index = 0;
  playing = false;
  failed = false;
  private timer: ReturnType<typeof setTimeout> | null = null;
  private readonly changed: () => void;

  constructor(id: string, changed: () => void, matchMode = false) {
    this.id = id;
    this.changed = changed;
    this.matchMode = matchMode;
  }

  private static async fetchHand(id: string): Promise<HandRecord | null> {
    const response = await fetch(`/api/hands/${encodeURIComponent(id)}`);
    if (response.status === 404) return null;
    if (!response.ok) throw new Error(String(response.status));
    return (await response.json()) as HandRecord;
  }

  async load(): Promise<void> {
    try {
      const record = await ReplayController.fetchHand(this.id);
      if (record === null) throw new Error("not found");
      this.show(this.id, record);
    } catch {
      this.failed = true;
    }
    this.changed();
  }

  private show(id: string, record: HandRecord): void {
    this.id = id;
    this.record = record;
    this.frames = buildFrames(record);
    this.steps = frameSteps(record, this.frames.map((frame) => frame.event));
    this.index = 0;
    this.lastOfMatch = false;
    this.review?.stop();
    this.review = new ReviewModel(id, this.changed);
    void this.review.load();
  }

  /** Show the match's previous (-1) or next (+1) hand; false when there is none. */
  async hand(step: number): Promise<boolean> {
    const id = siblingId(this.record, step);
    if (id === null || (step > 0 && this.endsMatch)) {
      if (step > 0) this.lastOfMatch = true;
      this.changed();
      return false;
    }
    let record: HandRecord | null = null;
    try {
      record = await ReplayController.fetchHand(id);
    } catch {
      record = null;
    }
    if (record === null) {
      if (step > 0) this.lastOfMatch = true;
      this.changed();
      return false;
    }
    this.show(id, record);
    this.changed();
    return true;
  }

  /** Whether this hand ended its match (its events end with match_over). */
  get endsMatch(): boolean {
    return (this.record?.events ?? []).some((event) => event.type === "match_over");
  }

  get hasPrevious(): boolean {
    return typeof this.record?.hand === "number" && this.record.hand > 1;
  }

  go(index: number): void {
    this.index = Math.max(0, Math.min(this.frames.length - 1, index));
    if (this.index === this.frames.length - 1) {
      const playing = this.playing;
      this.pause();
      if (playing && this.matchMode) this.playNextHand();
    }
    this.changed();
  }

  /** At the end of a hand in match mode: a moment on its result, then the next hand. */
  private playNextHand(): void {
    this.playing = true;
    this.timer = setTimeout(() => {
      this.timer = null;
      void this.hand(1).then((found) => {
        if (found) this.play();
        else {
          this.playing = false;
          this.changed();
        }
      });
    }, NEXT_HAND_AFTER_MS);
  }

  play(): void {
    if (this.index >= this.frames.length - 1) this.index = 0;
    this.playing = true;
    if (this.timer !== null) clearInterval(this.timer);
    this.timer = setInterval(() => this.go(this.index + 1), PLAY_EVERY_MS);
    this.changed();
  }

  pause(): void {
    this.playing = false;
    if (this.timer !== null) {
      clearInterval(this.timer);
      clearTimeout(this.timer);
    }
    this.timer = null;
  }

  stop(): void {
    this.pause();
    this.review?.stop();
  }
}

function caption(frame: Frame, players: string[]): string {
  const event = frame.event;
  const name = (seat: unknown) => `\u2068${players[typeof seat === "number" ? seat : 0] ?? "?"}\u2069`;
  const card = typeof event.card === "string" ? cardName(event.card) : "";
  switch (event.type) {
    case "deal":
      return t("replay.deal", { name: name(event.dealer), card: cardName(String(event.upcard)) });
    case "draw":
      return event.source === "discard"
        ? t("history.draw_discard", { name: name(event.seat), card })
        : t("replay.draw_stock", { name: name(event.seat), card });
    case "hand_over":
      return resultHeadline(frame.result!, (seat) => name(seat));
    default:
      return t(`history.${event.type}` as MessageKey, { name: name(event.seat), card });
  }
}

export function renderReplay(app: AppActions, replay: ReplayController): HTMLElement {
  if (replay.failed) {
    return h("section", { class: "panel" }, h("h1", { tabindex: "-1" }, t("replay.notFound")), backLink(app));
  }
  if (!replay.record || replay.frames.length === 0) {
    return h("section", { class: "panel" }, h("h1", { tabindex: "-1" }, t("replay.loading")));
  }
  const record = replay.record;
  const players = (record.players ?? []).map((name, seat) =>
    name || record.seats?.[seat] ? seatName(record.seats?.[seat], name) : `${t("player.unknown")} ${seat + 1}`,
  );
  const frame = replay.frames[replay.index];
  const last = replay.frames.length - 1;
  // arrows point the way the page reads: mirrored right to left, where First is the right-most
  // button. The glyph is set left to right (dir=ltr): « and ‹ are mirrored characters, which a
  // right-to-left line would turn round again.
  const rtl = direction(getLang()) === "rtl";
  const glyph = { first: rtl ? "»" : "«", back: rtl ? "›" : "‹", forward: rtl ? "‹" : "›", last: rtl ? "«" : "»" };
  const control = (key: string, label: string, symbol: string, onclick: () => void, disabled: boolean) =>
    h("button", { "data-key": `replay-${key}`, "data-testid": `replay-${key}`, "aria-label": label, title: label, disabled, onclick }, h("span", { "aria-hidden": "true", dir: "ltr" }, symbol), h("span", { class: "label" }, label));

  const seatRow = (seat: number) => {
    const hand = frame.hands[seat] ?? [];
    const moved = frame.moved;
    return h(
      "section",
      { class: "replay-seat", "aria-label": players[seat], "data-testid": `replay-hand-${seat}` },
      h("h2", null, bdi(players[seat]), record.dealer === seat ? h("span", { class: "badge dealer" }, t("table.dealer")) : null),
      frame.result
        ? resultHand(frame.result, seat, players[seat])
        : h("div", { class: "hand small", dir: "ltr" }, hand.map((card) => cardView(card, { class: card === moved ? "moved" : "" }))),
    );
  };

  const top = frame.discard[frame.discard.length - 1];
  const review = replay.review;
  const decision = review ? review.decisionAt(replay.steps[replay.index] ?? -1) : null;
  const mark = markOf(decision);
  return h(
    "div",
    { class: "replay", "data-testid": "replay", "data-step": String(replay.index), "data-steps": String(replay.frames.length) },
    h("h1", { tabindex: "-1", "data-testid": "replay-heading" }, t("replay.title", { n: record.hand ?? 1 }), " · ", say("lobby.handLine", { a: bdi(players[0] ?? "?"), b: bdi(players[1] ?? "?") })),
    h(
      "p",
      { class: "buttons match-steps" },
      h("button", { "data-key": "replay-prev-hand", "data-testid": "replay-prev-hand", disabled: !replay.hasPrevious, onclick: () => { replay.pause(); void replay.hand(-1); } }, t("replay.prevHand")),
      h("button", { "data-key": "replay-next-hand", "data-testid": "replay-next-hand", disabled: replay.lastOfMatch || replay.endsMatch, onclick: () => { replay.pause(); void replay.hand(1); } }, t("replay.nextHand")),
      replay.lastOfMatch || replay.endsMatch ? h("span", { class: "hint", "data-testid": "replay-match-end" }, t("replay.matchEnd")) : null,
    ),
    h(
      "div",
      { class: "replay-controls buttons", role: "toolbar", "aria-label": t("replay.title", { n: record.hand ?? 1 }) },
      control("first", t("replay.first"), glyph.first, () => replay.go(0), replay.index === 0),
      control("back", t("replay.back"), glyph.back, () => replay.go(replay.index - 1), replay.index === 0),
      replay.playing
        ? control("pause", t("replay.pause"), "‖", () => { replay.pause(); app.render(); }, false)
        : control("play", t("replay.play"), "▶", () => replay.play(), false),
      control("forward", t("replay.forward"), glyph.forward, () => replay.go(replay.index + 1), replay.index === last),
      control("last", t("replay.last"), glyph.last, () => replay.go(last), replay.index === last),
    ),
    h("p", { class: "step", "data-testid": "replay-step" }, t("replay.step", { i: replay.index, n: last })),
    h("p", { class: "caption", role: "status", "aria-live": "polite", "data-testid": "replay-caption" }, caption(frame, players), mark ? h("span", { class: "review-mark", dir: "ltr", "data-testid": "replay-mark" }, ` ${mark}`) : null),
    renderVerdict(decision),
    seatRow(1),
    h(
      "div",
      { class: "piles small" },
      h("figure", null, h("div", { class: "pile" }, frame.stock.length ? cardBack({ class: "stack" }) : h("span", { class: "card empty" }), h("span", { class: "count" }, String(frame.stock.length))), h("figcaption", null, t("table.stockIdle", { n: frame.stock.length }))),
      h("figure", null, h("div", { class: "pile" }, top ? cardView(top, { class: frame.moved === top ? "moved" : "" }) : h("span", { class: "card empty" })), h("figcaption", null, t("table.discard"))),
      frame.stock.length
        ? h("details", { class: "stock-cards" }, h("summary", null, t("table.stock")), cardGroup([...frame.stock].reverse(), "deadwood"))
        : null,
    ),
    seatRow(0),
    frame.result && frame.result.layoffs?.length
      ? h("p", { class: "layoff-line" }, t("result.layoffs"), ": ", frame.result.layoffs.map((layoff) => cardView(layoff.card, { class: "small" })))
      : null,
    review
      ? renderReviewPanel(review, players, replay.steps, replay.index, (index) => { replay.pause(); replay.go(index); }, () => void review.ask((hand) => app.reviewHand(hand)))
      : null,
    h(
      "p",
      { class: "buttons" },
      h("button", { "data-key": "share", onclick: () => void app.copy(`${location.origin}/replay/${replay.id}`) }, t("replay.share")),
      renderReportButton(app, replayTargets(app, record, players)),
      backLink(app),
    ),
  );
}

/** The people of a replayed match a report may name: its human seats, by room and seat (the
 * server takes a report from a player of that room only), but for the reader's own seat when
 * their name tells it. */
function replayTargets(app: AppActions, record: HandRecord, players: string[]): ReportTarget[] {
  const room = record.room;
  if (!room) return [];
  const people = [0, 1].filter((seat) => !record.seats?.[seat]?.ai && (record.players?.[seat] || record.seats?.[seat]));
  const mine = people.filter((seat) => record.players?.[seat] === app.session.name);
  const others = mine.length === 1 ? people.filter((seat) => seat !== mine[0]) : people;
  return others.map((seat) => ({ name: players[seat], who: { room, seat } }));
}

/** Back where the replay was opened from: the table of the match the page follows (a replay
 * opened from its score sheet), and the lobby. */
function backLink(app: AppActions): HTMLElement[] {
  const room = app.session.tracker?.room;
  const lobby = h("button", { "data-key": "back-lobby", "data-testid": "replay-back-lobby", onclick: () => app.navigate({ name: "lobby" }) }, t("match.lobby"));
  if (!room) return [lobby];
  return [h("button", { class: "primary", "data-key": "back-table", "data-testid": "replay-back-table", onclick: () => app.navigate({ name: "room", id: room }) }, t("replay.backToTable")), lobby];
}
