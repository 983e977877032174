// The match at a glance beside the table: the room's options (target, bonuses, turn clock,
// the AI stand-in for a person who leaves, or, against the AI, that the match waits for them)
// and the score sheet, one line a finished hand (how it ended and who won it, the points,
// the running totals), each line opening that hand's replay.

import { h } from "../dom";
import { t, type MessageKey } from "../i18n";
import type { GameView, RoomView } from "../protocol";
import type { AppActions } from "./actions";
import { bdi } from "./common";

/** Words of a player's name up to this many letters are never broken over the sheet's
 * column (a word broken apart is hard to read, and in Arabic its letters change shape); a
 * longer one ("WWWW…") may be, so that the sheet still fits a phone. */
const WHOLE_WORD = 9;

/** A player's name over their column, its short words kept whole. */
function columnName(name: string): HTMLElement {
  const parts = name.split(/(\s+)/).map((part) => (part.trim() && [...part].length <= WHOLE_WORD ? h("span", { class: "word" }, part) : part));
  return h("bdi", null, ...parts);
}

export function handReplayId(room: string, hand: number): string {
  return `${room}-${hand}`;
}

export function renderRoomRules(view: RoomView, game: GameView): HTMLElement {
  const rules = game.rules ?? { target: 100 };
  const bonuses = (["game_bonus", "box_bonus", "shutout_bonus"] as const).filter((name) => rules[name]).map((name) => t(`options.${name}` as MessageKey));
  const clock = view.turn_seconds ? t("options.clockOn", { n: view.turn_seconds }) : t("options.clockOff");
  return h(
    "p",
    { class: "room-rules small-print", "data-testid": "room-rules" },
    t("options.target", { target: rules.target }),
    " · ",
    bonuses.length ? t("options.bonuses", { list: bonuses.join(", ") }) : t("options.noBonuses"),
    " · ",
    clock,
    view.stand_in_level === undefined ? null : h("span", { "data-testid": "room-stand-in" }, " · ", standIn(view)),
    view.ai_pace === "fast" ? h("span", { "data-testid": "room-ai-pace" }, " · ", t("options.fastAi")) : null,
  );
}

/** Who plays for a person who leaves: in a room against the AI nobody, the match waits. */
function standIn(view: RoomView): string {
  if (view.mode === "ai") return t("options.aiRoomWaits");
  const level = view.stand_in_level;
  if (!level) return t("options.standInOff");
  return t("options.standInOn", { level: t(`level.${level}` as MessageKey) });
}

export function renderScoreSheet(app: AppActions, view: RoomView, game: GameView): HTMLElement | null {
  const results = game.results ?? [];
  if (results.length === 0) return null;
  const first = view.seat ?? 0;
  const second = 1 - first;
  const totals = [0, 0];
  const rows = results.map((result, index) => {
    const hand = index + 1;
    if (result.winner !== null && result.winner !== undefined) totals[result.winner] += result.points;
    const id = handReplayId(view.room, hand);
    const winner = result.winner === null || result.winner === undefined || result.kind === "dead" ? null : app.seatName(view, result.winner);
    const replay = t("replay.title", { n: hand });
    return h(
      "tr",
      { "data-testid": `sheet-hand-${hand}` },
      h("td", { class: "num" }, String(hand)),
      h(
        "td",
        { class: "how" },
        t(`result.kind.${result.kind}` as MessageKey),
        h("span", { class: "sr-only" }, " · "),
        h("span", { class: "winner", title: winner ?? undefined }, winner === null ? "—" : bdi(winner)),
      ),
      h("td", { class: "num" }, String(result.points)),
      h("td", { class: "num" }, String(totals[first])),
      h("td", { class: "num" }, String(totals[second])),
      h(
        "td",
        { class: "sheet-replay" },
        h(
          "a",
          {
            href: `/replay/${id}`,
            "aria-label": replay,
            title: replay,
            "data-key": `sheet-replay-${hand}`,
            "data-testid": `sheet-replay-${hand}`,
            onclick: (event: MouseEvent) => {
              if (event.ctrlKey || event.metaKey) return;
              event.preventDefault();
              app.navigate({ name: "replay", id });
            },
          },
          "▶",
        ),
      ),
    );
  });
  // Narrow enough for the side panel (280 px): the hand's number under "#", how the hand
  // ended and who won it in one column, the replay as a ▶; the full words kept for the ear
  // (and in a tooltip), long names cut short with the whole name in theirs.
  const playerHead = (seat: number) =>
    h("th", { scope: "col", class: "num player", title: app.seatName(view, seat) }, columnName(app.seatName(view, seat)));
  return h(
    "section",
    { class: "score-sheet panel", "aria-labelledby": "sheet-title", "data-testid": "score-sheet" },
    h("h2", { id: "sheet-title" }, t("sheet.title")),
    h(
      "table",
      null,
      h(
        "thead",
        null,
        h(
          "tr",
          null,
          h(
            "th",
            { scope: "col", class: "num", title: t("sheet.hand") },
            h("span", { "aria-hidden": "true" }, "#"),
            h("span", { class: "sr-only" }, t("sheet.hand")),
          ),
          h(
            "th",
            { scope: "col", class: "how" },
            t("sheet.how"),
            h("span", { class: "sr-only" }, " · "),
            h("span", { class: "winner" }, t("sheet.winner")),
          ),
          h("th", { scope: "col", class: "num" }, t("sheet.points")),
          playerHead(first),
          playerHead(second),
          h("th", { scope: "col", class: "sheet-replay" }, h("span", { class: "sr-only" }, t("lobby.replay"))),
        ),
      ),
      h("tbody", null, rows),
    ),
    h(
      "p",
      null,
      h(
        "a",
        {
          href: `/replay/${handReplayId(view.room, 1)}?match=1`,
          class: "button",
          "data-key": "replay-match",
          "data-testid": "replay-match",
          onclick: (event: MouseEvent) => {
            if (event.ctrlKey || event.metaKey) return;
            event.preventDefault();
            app.navigate({ name: "replay", id: handReplayId(view.room, 1), match: true });
          },
        },
        t("sheet.replayMatch"),
      ),
    ),
  );
}
