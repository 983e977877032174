// The end of a hand: both hands in their melds, the layoffs, both deadwood totals, the kind
// and the points, the match score; then the end of the match with the rematch.

import { cardName, shortName, sortCards, sortMeld } from "../cards";
import { h } from "../dom";
import { direction, getLang, t, tSeat, type MessageKey } from "../i18n";
import type { HandOver, RoomView } from "../protocol";
import { matchSummary } from "../match-summary";
import type { AppActions } from "./actions";
import { bdi, cardGroup, cardView, ratingChangeText, say, saySeat } from "./common";

export function resultHeadline(result: HandOver, name: (seat: number) => string, me: number | null = null): string {
  if (result.kind === "dead" || result.winner === null) return t("result.dead");
  return tSeat(`result.${result.kind}`, result.winner === me, { name: `\u2068${name(result.winner)}\u2069`, points: result.points });
}

/** The headline as elements: the winner's name in <bdi>. */
function headlineParts(result: HandOver, name: (seat: number) => string, me: number | null) {
  if (result.kind === "dead" || result.winner === null) return [t("result.dead")];
  return saySeat(`result.${result.kind}`, result.winner === me, { name: bdi(name(result.winner)), points: result.points });
}

/** A knocker's meld with the defender's cards laid off onto it, in rank order; the laid-off
 * cards marked (they fly there from the defender's hand when the hand is revealed). */
function meldWithLayoffs(meld: readonly string[], laidOff: readonly string[]): HTMLElement {
  const laid = new Set(laidOff);
  return h(
    "span",
    { class: "group group-meld small", role: "group", "aria-label": t("table.meld"), dir: "ltr" },
    sortMeld([...meld, ...laidOff]).map((card) =>
      laid.has(card)
        ? cardView(card, { class: "laid-off", "aria-label": t("layout.laidOff", { card: cardName(card) }) })
        : cardView(card),
    ),
  );
}

/** One seat's hand at the end: melds (a knocker's with the layoffs onto them), deadwood and
 * the total. */
export function resultHand(result: HandOver, seat: number, name: string): HTMLElement {
  const melds = result.melds?.[seat] ?? [];
  const deadwood = sortCards(result.deadwood?.[seat] ?? []);
  const layoffs = result.kind === "gin" ? [] : (result.layoffs ?? []);
  const laid = new Set((seat === result.knocker ? [] : layoffs).map((layoff) => layoff.card));
  const knocked = result.knocker === seat;
  const laidOnto = (index: number) => (knocked ? layoffs.filter((layoff) => layoff.meld === index).map((layoff) => layoff.card) : []);
  return h(
    "div",
    { class: `result-hand${knocked ? " knocker" : ""}`, "data-testid": `result-hand-${seat}`, "data-result-seat": String(seat) },
    h(
      "h3",
      null,
      bdi(name),
      knocked ? h("span", { class: "badge" }, result.kind === "gin" ? t("result.kind.gin") : t("result.knocker")) : null,
    ),
    h(
      "div",
      { class: "groups" },
      melds.map((meld, index) => (laidOnto(index).length ? meldWithLayoffs(meld, laidOnto(index)) : cardGroup(meld, "meld"))),
      deadwood.filter((card) => !laid.has(card)).length
        ? cardGroup(deadwood.filter((card) => !laid.has(card)), "deadwood")
        : null,
    ),
    h("p", { class: "deadwood-total", "data-testid": `result-deadwood-${seat}` }, t("result.deadwood", { n: result.deadwood_points?.[seat] ?? 0 })),
  );
}

function layoffList(result: HandOver): HTMLElement | null {
  if (result.knocker === null || result.kind === "gin" || result.kind === "dead") return null;
  const layoffs = result.layoffs ?? [];
  const knockerMelds = result.melds?.[result.knocker] ?? [];
  return h(
    "div",
    { class: "layoffs", "data-testid": "layoffs" },
    h("h3", null, t("result.layoffs")),
    layoffs.length === 0
      ? h("p", { class: "hint" }, t("result.noLayoffs"))
      : h(
          "ul",
          null,
          layoffs.map((layoff) => {
            const meld = sortMeld(knockerMelds[layoff.meld] ?? []);
            return h(
              "li",
              { "aria-label": t("result.layoff", { card: cardName(layoff.card), meld: meld.map((card) => cardName(card)).join(", ") }) },
              cardView(layoff.card, { class: "small" }),
              h("span", { class: "arrow", "aria-hidden": "true" }, direction(getLang()) === "rtl" ? " ← " : " → "),
              h("span", { dir: "ltr", "aria-hidden": "true" }, meld.map(shortName).join(" ")),
            );
          }),
        ),
  );
}

export function renderResult(app: AppActions, view: RoomView, result: HandOver, pending: boolean): HTMLElement {
  const game = view.game!;
  const me = view.seat ?? 0;
  const other = 1 - me;
  const name = (seat: number) => app.seatName(view, seat);
  const target = game.rules?.target ?? 100;
  const scores = pending ? result.scores : game.scores;
  const canNext = !pending && game.legal_actions.some((action) => action.kind === "next_hand");
  const matchOver = !pending && game.phase === "match_over";
  return h(
    "section",
    { class: "result panel", role: "region", "aria-labelledby": "result-title", "data-testid": "hand-result", "data-kind": result.kind },
    h("h2", { id: "result-title", tabindex: "-1" }, t("result.title", { n: result.hand })),
    h("p", { class: `headline kind-${result.kind}`, "data-testid": "result-headline" }, h("span", { class: "kind" }, t(`result.kind.${result.kind}` as MessageKey)), " · ", headlineParts(result, name, view.seat)),
    h("div", { class: "result-hands" }, resultHand(result, me, name(me)), resultHand(result, other, name(other))),
    layoffList(result),
    h(
      "p",
      { class: "match-score", "data-testid": "match-score" },
      `${t("result.scores")}: `,
      bdi(name(me)),
      ` ${scores[me]} – `,
      bdi(name(other)),
      ` ${scores[other]} · ${t("result.toTarget", { target })}`,
    ),
    h(
      "p",
      { class: "buttons review-link" },
      h(
        "a",
        {
          href: `/replay/${view.room}-${result.hand}`,
          "data-key": "result-review",
          "data-testid": "result-review",
          onclick: (event: MouseEvent) => {
            event.preventDefault();
            app.navigate({ name: "replay", id: `${view.room}-${result.hand}` });
          },
        },
        t("review.ask"),
      ),
    ),
    matchOver
      ? null
      : h(
          "div",
          { class: "buttons" },
          canNext
            ? h("button", { class: "primary", "data-key": "next-hand", "data-autofocus": true, "data-testid": "next-hand", onclick: () => app.act({ kind: "next_hand" }) }, t("result.next"))
            : h("button", { class: "primary", "data-key": "continue", "data-autofocus": true, "data-testid": "continue", onclick: () => app.dismissResult() }, t("result.continue")),
        ),
  );
}

/** The player's rating change at a rated match's end: "1512 → 1527, +15" (left to right in
 * every language: numbers). A watcher sees none; a casual match has none. */
function ratingChange(view: RoomView, me: number | null): HTMLElement | null {
  const mine = me === null ? null : view.ratings?.[me];
  if (!view.rated) return null;
  if (!mine || mine.after === undefined || mine.before === undefined) return h("p", { class: "hint", "data-testid": "rating-change" }, t("match.ratingPending"));
  const change = ratingChangeText(mine.before, mine.after, mine.delta);
  return h("p", { class: "rating-change", "data-testid": "rating-change" }, t("match.rating"), " ", h("bdi", { dir: "ltr" }, change));
}

export function renderMatchOver(app: AppActions, view: RoomView): HTMLElement {
  const me = view.seat;
  const name = (seat: number) => app.seatName(view, seat);
  const match = view.game?.match;
  const totals = match?.totals ?? view.game?.scores ?? [0, 0];
  const winner = view.winner;
  const asked = me !== null && (view.rematch?.[me] || app.rematchAsked);
  const other = me === null ? null : 1 - me;
  const first = me ?? 0;
  const otherAsked = other !== null && view.rematch?.[other];
  const forfeit = typeof view.forfeit === "number" ? view.forfeit : null;
  let headline;
  if (forfeit !== null && me === forfeit) headline = say("match.youLeft");
  else if (forfeit !== null && me !== null) headline = say("match.forfeitWin", { name: bdi(name(forfeit)) });
  else if (forfeit !== null) headline = say("match.forfeitWon", { winner: bdi(name(1 - forfeit)), name: bdi(name(forfeit)) });
  else if (winner !== null && winner === me) headline = say("match.youWon");
  else if (winner !== null) headline = say("match.won", { name: bdi(name(winner)) });
  else headline = say("match.over");
  return h(
    "section",
    { class: "match-over panel", role: "region", "aria-labelledby": "match-title", "data-testid": "match-over" },
    h("h2", { id: "match-title", tabindex: "-1" }, t("match.over")),
    h("p", { class: "headline", "data-testid": "match-headline" }, headline),
    h("p", { class: "match-score" }, say("match.totals", { a: [bdi(name(first)), ` ${totals[first]}`], b: [bdi(name(1 - first)), ` ${totals[1 - first]}`] })),
    ratingChange(view, me),
    summaryTable(app, view, first),
    otherAsked && !asked && other !== null ? h("p", null, say("match.rematchAsked", { name: bdi(name(other)) })) : null,
    asked && other !== null ? h("p", { class: "hint" }, say("match.rematchWaiting", { name: bdi(name(other)) })) : null,
    h(
      "div",
      { class: "buttons" },
      me !== null && view.forfeit == null
        ? h(
            "button",
            { class: "primary", "data-key": "rematch", "data-autofocus": true, "data-testid": "rematch", disabled: asked, onclick: () => void app.rematch() },
            t("match.rematch"),
          )
        : null,
      replayMatchLink(app, view),
      h("button", { "data-key": "to-lobby", onclick: () => { app.session.unfollow(); app.navigate({ name: "lobby" }); } }, t("match.lobby")),
    ),
  );
}

/** Each player's gins, undercuts, knocks and best hand (none before a hand was won). */
function summaryTable(app: AppActions, view: RoomView, first: number): HTMLElement | null {
  const results = view.game?.results ?? [];
  if (!results.some((result) => result.winner !== null && result.kind !== "dead")) return null;
  const summary = matchSummary(results);
  const order = [first, 1 - first];
  const row = (label: MessageKey, cell: (seat: number) => string, key: string) =>
    h("tr", { "data-testid": `summary-${key}` }, h("th", { scope: "row" }, t(label)), order.map((seat) => h("td", { "data-seat": String(seat) }, cell(seat))));
  const best = (seat: number) => {
    const hand = summary[seat].best;
    return hand ? t("match.bestHand", { kind: t(`result.kind.${hand.kind}` as MessageKey), points: hand.points, n: hand.hand }) : "—";
  };
  return h(
    "table",
    { class: "match-summary", "data-testid": "match-summary" },
    h("caption", { class: "sr-only" }, t("match.summary")),
    h("thead", null, h("tr", null, h("td"), order.map((seat) => h("th", { scope: "col" }, bdi(app.seatName(view, seat)))))),
    h(
      "tbody",
      null,
      row("stats.gins", (seat) => String(summary[seat].gins), "gins"),
      row("stats.undercuts", (seat) => String(summary[seat].undercuts), "undercuts"),
      row("stats.knocks", (seat) => String(summary[seat].knocks), "knocks"),
      row("match.best", best, "best"),
    ),
  );
}

/** The whole match, replayed from its first hand (none when no hand was played to its end). */
function replayMatchLink(app: AppActions, view: RoomView): HTMLElement | null {
  if (!(view.game?.results ?? []).length) return null;
  const id = `${view.room}-1`;
  return h(
    "a",
    {
      href: `/replay/${id}?match=1`,
      class: "button",
      "data-key": "match-replay",
      "data-testid": "match-replay",
      onclick: (event: MouseEvent) => {
        if (event.ctrlKey || event.metaKey) return;
        event.preventDefault();
        app.navigate({ name: "replay", id, match: true });
      },
    },
    t("sheet.replayMatch"),
  );
}
