// The review on the replay page (docs/review.md): a button to ask for it, its progress, a
// summary per player (accuracy, points lost, luck), the verdict on the move shown (its mark,
// and the better choice with the points it saves) and a step to the next mistake.

import { cardName } from "../cards";
import { h } from "../dom";
import { t, type MessageKey } from "../i18n";
import { MARKS, nextMarked, type ReviewDecision, type ReviewModel } from "../review-model";
import { bdi } from "./common";

/** "discard:7H" in words: "discard 7♥". */
export function choiceText(choice: string): string {
  const [kind, card] = choice.split(":");
  return t(`review.${kind}` as MessageKey, { card: card ? cardName(card) : "" });
}

function points(value: number): string {
  return value.toFixed(1);
}

export function markOf(decision: ReviewDecision | null): string | null {
  return decision?.label ? MARKS[decision.label] : null;
}

export function renderVerdict(decision: ReviewDecision | null): HTMLElement | null {
  if (!decision) return null;
  const mark = markOf(decision);
  if (!decision.label || !mark) {
    return h("p", { class: "review-verdict good", "data-testid": "review-verdict" }, t("review.good", { played: choiceText(decision.played) }));
  }
  return h(
    "p",
    { class: `review-verdict ${decision.label}`, "data-testid": "review-verdict", "data-label": decision.label },
    h("span", { class: "review-mark", dir: "ltr" }, mark),
    " ",
    h("strong", null, t(`review.${decision.label}` as MessageKey)),
    ": ",
    choiceText(decision.played),
    " · ",
    t("review.better", { best: choiceText(decision.best), points: points(decision.loss) }),
  );
}

export function renderReviewPanel(
  model: ReviewModel,
  players: string[],
  steps: readonly number[],
  index: number,
  go: (index: number) => void,
  ask: () => void,
): HTMLElement {
  const body: (HTMLElement | string | null)[] = [h("h2", null, t("review.title"))];
  if (model.error) {
    const key = `error.${model.error}` as MessageKey;
    body.push(h("p", { class: "error", role: "alert", "data-testid": "review-error" }, t(key) === key ? t("error.generic", { code: model.error }) : t(key)));
  }
  switch (model.state) {
    case "none":
    case "failed":
      body.push(h("p", { class: "buttons" }, h("button", { "data-key": "review-ask", "data-testid": "review-ask", onclick: ask }, t("review.ask"))));
      break;
    case "queued":
      body.push(h("p", { role: "status", "data-testid": "review-progress" }, t("review.queued")));
      break;
    case "running":
      body.push(
        h("p", { role: "status", "data-testid": "review-progress" }, t("review.running", { done: model.done, total: model.total })),
        h("progress", { max: String(Math.max(1, model.total)), value: String(model.done) }),
      );
      break;
    case "done": {
      const review = model.review;
      if (!review) break;
      body.push(
        h(
          "table",
          { class: "review-summary", "data-testid": "review-summary" },
          h("thead", null, h("tr", null, ...["review.player", "review.accuracy", "review.lost", "review.luck"].map((key) => h("th", { scope: "col" }, t(key as MessageKey))))),
          h(
            "tbody",
            null,
            ...review.players.map((player, seat) =>
              h(
                "tr",
                { "data-testid": `review-player-${seat}` },
                h("th", { scope: "row" }, bdi(players[seat] ?? "?")),
                h("td", null, t("review.percent", { n: player.accuracy.toFixed(0) })),
                h("td", null, h("bdi", { dir: "ltr" }, points(player.loss))),
                h("td", null, h("bdi", { dir: "ltr" }, (player.luck > 0 ? "+" : "") + points(player.luck))),
              ),
            ),
          ),
        ),
        h("p", { class: "hint" }, t("review.luckNote")),
      );
      const next = nextMarked(model, steps, index);
      body.push(
        next === null
          ? h("p", { "data-testid": "review-clean" }, t("review.clean"))
          : h("p", { class: "buttons" }, h("button", { "data-key": "review-next", "data-testid": "review-next", onclick: () => go(next) }, t("review.next"))),
      );
      break;
    }
    default:
      break;
  }
  return h("section", { class: "review panel", "data-testid": "review", "data-state": model.state }, ...body);
}
