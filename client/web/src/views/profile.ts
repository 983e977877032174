// A player's profile, /@/HANDLE: the handle, the rating ("1500?" while provisional) with the
// chart of its history, the record (matches, wins, gins, undercuts, knocks, points per hand;
// in all, rated and casual) and the last matches: the opponent, the result, the score, a rated
// match's rating change and the whole-match replay link. A link to the leaderboard. Friends
// (views/friends.ts) and blocking (views/blocks.ts).

import type { Profile, ProfileMatch, RecordCounts } from "../account";
import { h } from "../dom";
import { getLang, t, type MessageKey } from "../i18n";
import { seatName } from "../names";
import type { AppActions } from "./actions";
import { renderBlocks, type BlocksState } from "./blocks";
import { renderChallengeForm, renderChallengeSetting } from "./challenges";
import { bdi, ratingChangeText, say } from "./common";
import { renderFriends, type FriendsState } from "./friends";
import { renderRatingChart } from "./rating-chart";
import { renderReportButton } from "./report";

export interface ProfileState {
  handle: string;
  profile: Profile | null;
  /** The refusal's code (`unknown_handle`, `bad_handle`, `offline`...), or null. */
  error: string | null;
  /** Blocking (views/blocks.ts): this browser's block list, loaded with the profile. */
  blocks?: BlocksState | null;
  /** Friends (views/friends.ts): this browser's friends list, read again while shown. */
  friends?: FriendsState | null;
  /** Whether its reading was started (`App.startFriends`): once per page. */
  friendsStarted?: boolean;
}

function matchRow(app: AppActions, match: ProfileMatch): HTMLElement {
  const opponent = seatName(match.opponent, match.opponent.name);
  const who = match.opponent.handle
    ? h("a", { href: `/@/${encodeURIComponent(match.opponent.handle)}`, "data-testid": "opponent-link", onclick: (event: MouseEvent) => { event.preventDefault(); app.navigate({ name: "profile", handle: match.opponent.handle ?? "" }); } }, bdi(opponent))
    : bdi(opponent);
  const when = new Date(match.finished_at * 1000).toLocaleDateString(getLang());
  const replay = match.replay;
  return h(
    "li",
    { class: `profile-match ${match.result}`, "data-testid": "profile-match", "data-room": match.room },
    h("span", { class: "result", "data-testid": "match-result" }, t(`profile.${match.result}` as MessageKey), match.forfeit ? ` (${t("profile.forfeit")})` : ""),
    " ",
    h("span", { class: "score", dir: "ltr" }, `${match.scores[0]}–${match.scores[1]}`),
    " ",
    h("span", { class: "opponent" }, ...say("profile.vs", { name: who })),
    " ",
    match.rating_change
      ? [h("span", { class: "rating-change", "data-testid": "match-rating-change" }, h("bdi", { dir: "ltr" }, ratingChangeText(match.rating_change.before, match.rating_change.after, match.rating_change.delta))), " "]
      : null,
    h("span", { class: "hint" }, when, match.rated ? ` · ${t("profile.rated")}` : "", match.public ? "" : ` · ${t("profile.private")}`),
    replay
      ? h("a", { class: "replay-link", href: replay, "data-testid": "match-replay", onclick: (event: MouseEvent) => { event.preventDefault(); app.navigate({ name: "replay", id: `${match.room}-1`, match: true }); } }, t("profile.replay"))
      : null,
  );
}

function renderRating(profile: Profile): HTMLElement {
  const rating = profile.rating;
  if (rating === null) return h("p", { class: "rating", "data-testid": "profile-rating" }, `${t("profile.rating")}: `, t("profile.noRating"));
  return h(
    "p",
    { class: "rating", "data-testid": "profile-rating" },
    `${t("profile.rating")}: `,
    h("strong", { class: "rating-shown", "data-testid": "rating-shown", dir: "ltr" }, rating.shown),
    " ",
    h("span", { class: "hint" }, rating.provisional ? `${t("profile.provisional")} · ` : "", t("profile.deviation", { rd: rating.rd }), " · ", t("profile.ratedMatches", { n: rating.matches })),
  );
}

const RECORD_ROWS: [MessageKey, keyof RecordCounts][] = [
  ["stats.matches", "matches"],
  ["stats.wins", "wins"],
  ["stats.hands", "hands"],
  ["stats.gins", "gins"],
  ["stats.undercuts", "undercuts"],
  ["stats.knocks", "knocks"],
  ["profile.pointsPerHand", "points_per_hand"],
];

/** The record in all, rated and casual apart: a row per counter. On a phone too narrow for
 * its longest words (Georgian, Russian at 360 px) the table scrolls in its own box, not the
 * page. */
function renderRecord(profile: Profile): HTMLElement {
  const record = profile.record;
  const cell = (counts: RecordCounts, field: keyof RecordCounts): string => {
    const value = counts[field];
    return value === null ? "—" : value.toLocaleString(getLang());
  };
  const table = h(
    "table",
    { class: "record", "data-testid": "profile-record" },
    h("thead", null, h("tr", null, h("th", null, ""), h("th", { scope: "col" }, t("profile.all")), h("th", { scope: "col" }, t("profile.rated")), h("th", { scope: "col" }, t("profile.casual")))),
    h(
      "tbody",
      null,
      RECORD_ROWS.map(([key, field]) =>
        h(
          "tr",
          null,
          h("th", { scope: "row" }, t(key)),
          h("td", { "data-stat": key }, cell(record, field)),
          h("td", { "data-rated": key }, cell(record.rated, field)),
          h("td", { "data-casual": key }, cell(record.casual, field)),
        ),
      ),
    ),
  );
  return h("div", { class: "table-scroll", tabindex: "0", role: "region", "aria-labelledby": "h-record" }, table);
}

function leaderboardLink(app: AppActions): HTMLElement {
  return h(
    "a",
    { href: "/leaderboard", class: "leaderboard-link", "data-testid": "leaderboard-link", onclick: (event: MouseEvent) => { if (event.ctrlKey || event.metaKey) return; event.preventDefault(); app.navigate({ name: "leaderboard" }); } },
    t("leaderboard.open"),
  );
}

export function renderProfile(app: AppActions, state: ProfileState | null): HTMLElement {
  if (!state || (!state.profile && !state.error)) return h("p", { class: "loading" }, t("profile.loading"));
  const profile = state.profile;
  if (!profile) {
    const missing = state.error === "unknown_handle" || state.error === "bad_handle";
    return h(
      "section",
      { class: "panel profile", "data-testid": "profile-missing" },
      h("h1", { tabindex: "-1" }, bdi(state.handle)),
      h("p", null, t(missing ? "profile.notFound" : "profile.failed")),
      h("button", { "data-key": "back-lobby", onclick: () => app.navigate({ name: "lobby" }) }, t("match.lobby")),
    );
  }
  return h(
    "div",
    { class: "profile", "data-testid": "profile" },
    h(
      "section",
      { class: "panel wide" },
      h("h1", { tabindex: "-1", "data-testid": "profile-handle" }, bdi(profile.handle ?? profile.name)),
      profile.guest ? h("p", { class: "hint", "data-testid": "profile-guest" }, t("profile.guest")) : null,
      renderRating(profile),
      profile.rating_history.length ? renderRatingChart(profile.rating_history) : null,
      leaderboardLink(app),
    ),
    h(
      "section",
      { class: "panel", "aria-labelledby": "h-record" },
      h("h2", { id: "h-record" }, t("profile.record")),
      renderRecord(profile),
    ),
    h(
      "section",
      { class: "panel", "aria-labelledby": "h-matches" },
      h("h2", { id: "h-matches" }, t("profile.matches")),
      profile.matches.length
        ? h("ul", { class: "profile-matches", "data-testid": "profile-matches" }, profile.matches.map((match) => matchRow(app, match)))
        : h("p", { class: "hint", "data-testid": "profile-no-matches" }, t("profile.noMatches")),
    ),
    renderFriends(app, profile, state.friends),
    app.handle !== null && !profile.guest && profile.handle
      ? profile.me
        ? renderChallengeSetting(app, app.challenges)
        : renderChallengeForm(app, app.challenges, profile.handle)
      : null,
    renderBlocks(app, profile, state.blocks),
    !profile.me && profile.handle && state.blocks ? h("p", { class: "report-row" }, renderReportButton(app, [{ name: profile.handle, who: { handle: profile.handle } }])) : null,
    h("button", { "data-key": "back-lobby", onclick: () => app.navigate({ name: "lobby" }) }, t("match.lobby")),
  );
}
