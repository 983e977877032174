// The guided first hand (a room the server dealt its fixed, friendly deal: view.tutorial): a
// short prompt for the moment of the hand the player is at, what a meld is, what deadwood
// counts, when a knock is possible, and at the result what gin and an undercut are. The player
// may skip the guide (for this room); "How to play" starts the hand again.

import { h } from "../dom";
import { t, type MessageKey } from "../i18n";
import type { GameView, RoomView } from "../protocol";
import type { AppActions } from "./actions";
import { legal, PLAYING } from "./moves";

/** The topic of the moment, or null when the guide has nothing to say (or was skipped). */
export function coachTopic(app: AppActions, view: RoomView, game: GameView): MessageKey | null {
  if (!view.tutorial || view.seat === null || game.hand !== 1 || app.tutorialSkipped(view.room)) return null;
  if (game.phase === "hand_over" || game.phase === "match_over") return "coach.ginUndercut";
  if (game.turn !== view.seat || !PLAYING.has(game.phase)) return null;
  if (game.phase === "first_offer" || game.phase === "second_offer") return "coach.meld";
  if (game.phase === "discard" && (legal(game, "knock") || legal(game, "gin"))) return "coach.knock";
  return "coach.deadwood";
}

export function renderCoach(app: AppActions, view: RoomView, game: GameView): HTMLElement | null {
  const topic = coachTopic(app, view, game);
  if (topic === null) return null;
  return h(
    "aside",
    { class: "coach", role: "note", "aria-labelledby": "coach-title", "data-testid": "coach", "data-topic": topic.slice("coach.".length) },
    h("h2", { id: "coach-title" }, t("coach.title")),
    h("p", null, t(topic)),
    h("button", { "data-key": "coach-skip", "data-testid": "coach-skip", onclick: () => app.skipTutorial(view.room) }, t("coach.skip")),
  );
}
