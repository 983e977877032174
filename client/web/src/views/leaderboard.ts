// The leaderboard, /leaderboard: the top 100 by rating among players with a settled rating
// (not provisional) who played a rated match in the last 30 days, each handle linking to its
// profile, and the viewer's own place (GET /api/leaderboard with this browser's token).

import type { Leaderboard } from "../account";
import { h } from "../dom";
import { t } from "../i18n";
import type { AppActions } from "./actions";
import { bdi } from "./common";

export interface LeaderboardState {
  board: Leaderboard | null;
  /** The refusal's code (`offline`, `bad_token`...), or null. */
  error: string | null;
}

function profileLink(app: AppActions, handle: string): HTMLElement {
  return h(
    "a",
    {
      href: `/@/${encodeURIComponent(handle)}`,
      "data-testid": "leader-link",
      onclick: (event: MouseEvent) => {
        if (event.ctrlKey || event.metaKey) return;
        event.preventDefault();
        app.navigate({ name: "profile", handle });
      },
    },
    bdi(handle),
  );
}

function yourPlace(board: Leaderboard): HTMLElement {
  const you = board.you;
  const text =
    you === null
      ? t("leaderboard.youUnrated")
      : you.rank !== null
        ? t("leaderboard.youRank", { rank: you.rank, total: board.total, rating: you.shown })
        : you.provisional
          ? t("leaderboard.youProvisional", { rating: you.shown })
          : t("leaderboard.youAway", { rating: you.shown });
  return h("p", { class: "your-place", "data-testid": "leaderboard-you", "data-rank": you?.rank ?? "" }, text);
}

export function renderLeaderboard(app: AppActions, state: LeaderboardState | null): HTMLElement {
  const heading = h("h1", { tabindex: "-1" }, t("leaderboard.title"));
  const back = h("button", { "data-key": "back-lobby", onclick: () => app.navigate({ name: "lobby" }) }, t("match.lobby"));
  if (!state || (!state.board && !state.error)) return h("section", { class: "panel leaderboard" }, heading, h("p", { class: "loading" }, t("leaderboard.loading")));
  const board = state.board;
  if (!board) return h("section", { class: "panel leaderboard", "data-testid": "leaderboard-failed" }, heading, h("p", null, t("leaderboard.failed")), back);
  return h(
    "section",
    { class: "panel wide leaderboard", "data-testid": "leaderboard" },
    heading,
    h("p", { class: "hint" }, t("leaderboard.who")),
    yourPlace(board),
    board.top.length === 0
      ? h("p", { class: "hint", "data-testid": "leaderboard-empty" }, t("leaderboard.empty"))
      : h(
          "table",
          { class: "leaders", "data-testid": "leaders" },
          h("thead", null, h("tr", null, h("th", { scope: "col", class: "rank" }, t("leaderboard.rank")), h("th", { scope: "col" }, t("leaderboard.player")), h("th", { scope: "col", class: "rating" }, t("profile.rating")))),
          h(
            "tbody",
            null,
            board.top.map((row) =>
              h(
                "tr",
                { "data-testid": "leader", "data-rank": row.rank, class: board.you?.rank === row.rank ? "you" : undefined },
                h("td", { class: "rank" }, String(row.rank)),
                h("td", { class: "who" }, row.handle ? profileLink(app, row.handle) : "—"),
                h("td", { class: "rating", dir: "ltr" }, String(row.rating)),
              ),
            ),
          ),
        ),
    back,
  );
}
