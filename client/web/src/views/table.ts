// The table: the opponent's card backs at the top, the stock and the discard pile in the
// middle, your hand at the bottom (views/hand.ts), the moves of this hand, and the result
// when the hand is over. Every move is a click, a drag, or a key.

import { cardName, shortName, sortCards } from "../cards";
import { h } from "../dom";
import { t, tSeat } from "../i18n";
import type { GameView, RoomView } from "../protocol";
import type { AppActions } from "./actions";
import { wideLayout } from "../layout";
import { routePath } from "../routes";
import { theirMovesSince, type TheirMoves } from "../their-moves";
import { bestArrangement } from "../melds";
import { bdi, cardBack, cardFace, cardGroup, say } from "./common";
import { renderCoach } from "./coach";
import { renderHand } from "./hand";
import { cardAction, DRAG_TYPE, dragData, drawAction, legal, PLAYING } from "./moves";
import { renderMatchOver, renderResult } from "./result";
import { renderRoomRules, renderScoreSheet } from "./score-sheet";
import { seatBadges } from "./seat-badges";
import { renderTalkBubble, renderTalkControl } from "./talk";
import { renderSeatMenu } from "./report";

function statusLine(app: AppActions, view: RoomView, game: GameView): string {
  const seat = view.seat;
  if (!PLAYING.has(game.phase) || view.status !== "playing") return "";
  if (seat !== null && game.turn === seat) {
    switch (game.phase) {
      case "first_offer":
      case "second_offer":
        return t("turn.offer");
      case "first_draw":
        return t("turn.firstDraw");
      case "draw":
        return t("turn.draw");
      default:
        if (app.pick) return t(app.pick === "knock" ? "pick.knock" : "pick.gin");
        return legal(game, "knock") ? t("turn.discardKnock") : t("turn.discard");
    }
  }
  // the AI's turn while its seat waits in the AI seat queue: nobody is thinking yet
  if (typeof view.ai_queue === "number") return t("turn.aiQueued");
  // an away person thinks of nothing (their countdown is beside it, renderAway)
  if (opponentAway(view, game.turn ?? 0)) return t("away.waiting", { name: `\u2068${app.seatName(view, game.turn ?? 0)}\u2069` });
  // the other still looks at the last hand's result: their turn's clock waits for them
  if (view.results_open?.[game.turn ?? 0]) return t("turn.reading", { name: `\u2068${app.seatName(view, game.turn ?? 0)}\u2069` });
  return t("turn.theirs", { name: `\u2068${app.seatName(view, game.turn ?? 0)}\u2069` });
}

/** The seat's person is away and nobody plays for them (no AI standing in). */
function opponentAway(view: RoomView, seat: number): boolean {
  const info = view.seats?.[seat];
  return Boolean(info?.away && !info.stand_in && info.ai === null);
}

/** "m:ss" of a count of seconds. */
export function minutesSeconds(seconds: number): string {
  const whole = Math.max(0, Math.ceil(seconds));
  return `${Math.floor(whole / 60)}:${String(whole % 60).padStart(2, "0")}`;
}

/** The other person is away in a room between people: until the away choice opens, how long
 * until the player may claim the win (the server's grace from when they left). */
function renderAwayCountdown(app: AppActions, view: RoomView, away: number): HTMLElement | null {
  const info = view.seats?.[away];
  const grace = app.session.awayGrace;
  if (!info || !opponentAway(view, away) || info.away_choice || view.mode === "ai" || typeof info.away_since !== "number" || grace === null) return null;
  const at = info.away_since + grace;
  const name = `\u2068${app.seatName(view, away)}\u2069`;
  return h(
    "p",
    { class: "away-countdown", role: "status", "data-testid": "away-countdown", "data-until": String(at), "data-name": name },
    t("away.countdown", { name, time: minutesSeconds(at - Date.now() / 1000) }),
  );
}

/** How to play a move, in the words of the pointer at hand (a finger has nothing to drag). */
function moveHint(app: AppActions, game: GameView): string | null {
  if (app.pick || (game.phase !== "draw" && game.phase !== "discard")) return null;
  const touch = window.matchMedia?.("(pointer: coarse)").matches ?? false;
  return t(touch ? "turn.tapHint" : "turn.dragHint");
}

/** A seat whose cards the reader does not see: the opponent at the top, or for a watcher
 * either seat (seat 1 at the top, seat 0 at the bottom). */
function renderOpponent(app: AppActions, view: RoomView, game: GameView | null, seat: number, place: "top" | "bottom" = "top", took: string | null = null): HTMLElement {
  const count = game?.hand_sizes?.[seat] ?? 0;
  const theirTurn = view.status === "playing" && game !== null && game.turn === seat && PLAYING.has(game.phase) && !opponentAway(view, seat);
  const name = app.seatName(view, seat);
  return h(
    "section",
    {
      class: `seat ${place === "top" ? "opponent" : "watched"}${theirTurn ? " active" : ""}`,
      "aria-label": name,
      "data-testid": place === "top" ? "opponent" : "watched-seat",
      "data-seat-index": String(seat),
    },
    h(
      "div",
      { class: "seat-info" },
      h("bdi", { class: "name", title: name }, name),
      seatBadges(app, view, seat),
      game ? h("span", { class: "score", "aria-hidden": "true" }, String(game.scores[seat])) : null,
      took
        ? h("span", { class: "badge move-mark", "data-testid": "their-take", "data-card": took, "aria-label": t("table.theyTook", { card: cardName(took) }) }, say("table.theyTook", { card: h("bdi", { dir: "ltr", "data-suit": took.slice(-1) }, shortName(took)) }))
        : null,
      theirTurn ? h("span", { class: "thinking", "data-testid": "thinking" }, h("span", { class: "dots", "aria-hidden": "true" }, h("i"), h("i"), h("i"))) : null,
      renderTalkBubble(app, view, seat),
      place === "top" ? renderSeatMenu(app, view, seat) : null,
    ),
    h(
      "div",
      { class: "backs", role: "img", "aria-label": t("table.opponentCards", { name, n: count }), "data-count": String(count) },
      Array.from({ length: count }, () => cardBack()),
    ),
  );
}

function renderPiles(app: AppActions, game: GameView, marks: TheirMoves, theirName: string): HTMLElement {
  const stockMove = drawAction(game, "stock");
  const discardMove = drawAction(game, "discard");
  const top = game.discard_pile[game.discard_pile.length - 1];
  const under = game.discard_pile[game.discard_pile.length - 2];
  const offer = game.phase === "first_offer" || game.phase === "second_offer";
  // the card the other player just threw, marked until the reader's next move
  const thrown = top !== undefined && marks.threw === top;

  const stock = h(
    "button",
    {
      class: `pile stock${stockMove ? " live" : ""}`,
      "data-key": "stock",
      "data-testid": "stock",
      "aria-label": stockMove ? t("table.stockLabel", { n: game.stock_size }) : t("table.stockIdle", { n: game.stock_size }),
      "aria-disabled": stockMove ? undefined : "true",
      draggable: stockMove ? "true" : undefined,
      "data-autofocus": stockMove ? true : undefined,
      onclick: () => stockMove && !app.busy && app.act(stockMove),
      ondragstart: (event: DragEvent) => {
        if (!stockMove) return event.preventDefault();
        event.dataTransfer?.setData(DRAG_TYPE, "stock");
        if (event.dataTransfer) event.dataTransfer.effectAllowed = "move";
      },
    },
    game.stock_size > 0 ? cardBack({ class: "stack" }) : h("span", { class: "card empty" }),
    h("span", { class: "count", "aria-hidden": "true" }, String(game.stock_size)),
  );

  const discard = h(
    "button",
    {
      class: `pile discard${discardMove ? " live" : ""}${app.pick || legal(game, "discard") ? " target" : ""}`,
      "data-key": "discard",
      "data-testid": "discard",
      "data-top": top ?? "",
      "aria-label": top
        ? discardMove
          ? t("table.discardLabel", { card: cardName(top) })
          : t("table.discardIdle", { card: cardName(top) })
        : t("table.discardEmpty"),
      "aria-disabled": discardMove ? undefined : "true",
      draggable: discardMove ? "true" : undefined,
      onclick: () => discardMove && !app.busy && app.act(discardMove),
      ondragstart: (event: DragEvent) => {
        if (!discardMove) return event.preventDefault();
        event.dataTransfer?.setData(DRAG_TYPE, "discard");
        if (event.dataTransfer) event.dataTransfer.effectAllowed = "move";
      },
      ondragover: (event: DragEvent) => {
        if (dragData(event) && legal(game, "discard")) event.preventDefault();
      },
      ondrop: (event: DragEvent) => {
        const data = event.dataTransfer?.getData(DRAG_TYPE) ?? "";
        if (!data.startsWith("card:")) return;
        event.preventDefault();
        const action = cardAction(app, game, data.slice(5));
        if (action && !app.busy) app.act(action);
      },
    },
    under ? h("span", { class: "card under", "aria-hidden": "true" }, cardFace(under)) : null,
    top ? h("span", { class: `card top${thrown ? " just-thrown" : ""}`, "data-card": top }, cardFace(top)) : h("span", { class: "card empty" }),
  );

  return h(
    "div",
    { class: "piles" },
    h("figure", null, stock, h("figcaption", null, t("table.stock"))),
    h(
      "figure",
      null,
      discard,
      h("figcaption", null, offer ? t("table.upcard") : t("table.discard")),
      // over the pile's top edge: the mark moves nothing on the table
      thrown ? h("span", { class: "badge move-mark thrown", role: "note", "data-testid": "their-discard", "data-card": top }, t("table.theyThrew", { name: `\u2068${theirName}\u2069` })) : null,
    ),
  );
}

function renderActions(app: AppActions, game: GameView): HTMLElement | null {
  const buttons: HTMLElement[] = [];
  if (legal(game, "take_upcard")) {
    buttons.push(h("button", { class: "primary", "data-key": "take", "data-testid": "take-upcard", onclick: () => app.act({ kind: "take_upcard" }) }, t("action.take")));
  }
  if (legal(game, "pass")) {
    buttons.push(h("button", { "data-key": "pass", "data-testid": "pass", "data-autofocus": true, onclick: () => app.act({ kind: "pass" }) }, t("action.pass")));
  }
  if (app.pick) {
    const chosen = app.knockCard;
    if (chosen && legal(game, app.pick, chosen)) {
      const kind = app.pick;
      buttons.push(h("button", { class: `primary ${kind}`, "data-key": "confirm-knock", "data-testid": "confirm-knock", "data-autofocus": true, onclick: () => app.act({ kind, card: chosen }) }, t(kind === "knock" ? "action.knockWith" : "action.ginWith", { card: shortName(chosen) })));
    }
    buttons.push(h("button", { "data-key": "cancel-pick", "data-testid": "cancel-pick", onclick: () => app.setPick(null) }, t("action.cancel")));
  } else {
    if (legal(game, "knock")) {
      buttons.push(h("button", { class: "primary knock", "data-key": "knock", "data-testid": "knock", onclick: () => app.setPick("knock") }, t("action.knock")));
    }
    if (legal(game, "gin")) {
      buttons.push(h("button", { class: "primary gin", "data-key": "gin", "data-testid": "gin", onclick: () => app.setPick("gin") }, t("action.gin")));
    }
  }
  return buttons.length ? h("div", { class: "actions buttons" }, buttons) : null;
}

/** Before a knock (or gin) is confirmed: the melds and the deadwood it will lay down, the
 * chosen discard left out (the client's solver; the server lays the hand down). */
function renderKnockPreview(app: AppActions, game: GameView): HTMLElement | null {
  const card = app.knockCard;
  if (!app.pick || !card || !legal(game, app.pick, card)) return null;
  const left = (game.cards ?? []).filter((other) => other !== card);
  const laid = bestArrangement(left);
  return h(
    "div",
    { class: "knock-preview", role: "status", "data-testid": "knock-preview", "data-card": card, "data-deadwood": String(laid.points) },
    h("p", null, t(app.pick === "gin" ? "knock.previewGin" : "knock.preview")),
    h(
      "div",
      { class: "groups" },
      laid.melds.map((meld) => cardGroup(meld, "meld")),
      laid.deadwood.length ? cardGroup(sortCards(laid.deadwood), "deadwood") : null,
    ),
    h("p", { class: "deadwood-total" }, t("table.deadwood", { n: laid.points })),
  );
}

/** What was played for this player (the clock, an AI standing in) that they have not yet
 * acknowledged: told when they come back, or when their clock plays for them. */
function renderPlayedForYou(app: AppActions, view: RoomView, game: GameView): HTMLElement | null {
  if (view.seat === null) return null;
  const seat = view.seat;
  const made = (game.history ?? []).filter((move) => move.seat === seat && move.by);
  const key = `${view.room}:${game.hand}`;
  if (made.length <= app.playedForSeen(key)) return null;
  const fresh = made.slice(app.playedForSeen(key));
  return h(
    "div",
    { class: "played-for", role: "status", "data-testid": "played-for-you", "data-count": String(fresh.length) },
    h("p", null, t("playedFor.title")),
    h(
      "ul",
      null,
      fresh.map((move) => {
        const card = move.card ? `\u2066${shortName(move.card)}\u2069` : "";
        const by = t(move.by === "clock" ? "history.byClock" : "history.byStandIn");
        return h("li", { "data-by": move.by }, `${tSeat(`history.${move.kind}`, true, { name: "", card })} · ${by}`);
      }),
    ),
    h("button", { "data-key": "played-for-ok", "data-testid": "played-for-ok", onclick: () => app.seePlayedFor(key, made.length) }, t("playedFor.ok")),
  );
}

/** The moves of this hand, newest first: a side panel always shown in the wide layout, a
 * folding panel (as the player leaves it) in the narrow one. */
function renderHistory(app: AppActions, view: RoomView, game: GameView): HTMLElement {
  const entries = game.history ?? [];
  const title = `${t("history.title")} · ${t("table.handNo", { n: game.hand })}`;
  const moves =
    entries.length === 0
      ? h("p", { class: "hint" }, t("history.empty"))
      : h(
          "ol",
          { class: "moves", reversed: true },
          [...entries].reverse().map((move) => {
            const name = app.seatName(view, move.seat);
            const card = move.card ?? "";
            const mine = move.seat === view.seat;
            const text = tSeat(`history.${move.kind}`, mine, { name: `\u2068${name}\u2069`, card: card ? `\u2066${shortName(card)}\u2069` : "" });
            const spoken = tSeat(`history.${move.kind}`, mine, { name, card: card ? cardName(card) : "" });
            const by = move.by ? t(move.by === "clock" ? "history.byClock" : "history.byStandIn") : null;
            return h(
              "li",
              { class: `${move.seat === view.seat ? "mine" : "theirs"}${by ? " made-for" : ""}`, "data-by": move.by },
              h("span", { "aria-hidden": "true" }, text),
              h("span", { class: "sr-only" }, spoken),
              by ? h("span", { class: "by" }, ` · ${by}`) : null,
            );
          }),
        );
  if (wideLayout()) {
    return h(
      "section",
      { class: "history panel", "aria-labelledby": "history-title", "data-testid": "history" },
      h("h2", { id: "history-title", class: "history-title" }, title),
      moves,
    );
  }
  return h(
    "details",
    {
      class: "history panel",
      open: app.historyOpen,
      "data-testid": "history",
      ontoggle: (event: Event) => {
        app.historyOpen = (event.target as HTMLDetailsElement).open;
      },
    },
    h("summary", null, title),
    moves,
  );
}

function renderWaiting(app: AppActions, view: RoomView): HTMLElement {
  if (view.invite) {
    const link = `${location.origin}/join/${view.invite}`;
    return h(
      "section",
      { class: "panel invite", "data-testid": "invite" },
      h("h2", { tabindex: "-1" }, t("turn.waitingSeat")),
      view.rated ? h("p", { class: "rated-room", "data-testid": "rated-room" }, t("invite.rated")) : null,
      h("p", null, t("invite.waiting")),
      h(
        "div",
        { class: "copy-row" },
        h("input", { readonly: true, value: link, "data-copy": true, "data-testid": "invite-link", "aria-label": t("invite.waiting"), dir: "ltr" }),
        h("button", { class: "primary", "data-key": "copy", onclick: () => void app.copy(link) }, app.copied === link ? t("invite.copied") : t("invite.copy")),
      ),
      h("p", { class: "code" }, t("invite.code", { code: view.invite })),
    );
  }
  return h(
    "section",
    { class: "panel invite" },
    h("h2", { tabindex: "-1" }, h("span", { class: "spinner", "aria-hidden": "true" }), " ", view.mode === "quick" ? t("lobby.searching") : t("turn.waitingSeat")),
    view.mode === "quick"
      ? h("button", { "data-key": "quick-cancel", onclick: () => void app.cancelQuickMatch() }, t("lobby.cancel"))
      : null,
  );
}

/** The link that lets a friend watch a room that is not public (a stranger cannot). */
function renderWatchLink(app: AppActions, room: string, token: string): HTMLElement {
  const link = `${location.origin}${routePath({ name: "room", id: room, watch: token })}`;
  return h(
    "button",
    { class: "link", "data-key": "watch-link", "data-testid": "watch-link", "data-link": link, onclick: () => void app.copy(link) },
    app.copied === link ? t("invite.copied") : t("invite.watchLink"),
  );
}

export function renderTable(app: AppActions): HTMLElement {
  const view = app.view;
  if (!view) return h("p", { class: "loading", "data-testid": "table-loading" }, t("conn.connecting"));
  if (view.status === "waiting" || !view.game) return h("div", { class: "table waiting" }, renderWaiting(app, view));
  // a finished match offers no move, whatever state its last hand was left in
  const game: GameView = view.status === "finished" ? { ...view.game, legal_actions: [] } : view.game;

  const seat = view.seat;
  const me = seat ?? 0;
  const other = 1 - me;
  const finished = view.status === "finished";
  const myTurn = !finished && seat !== null && game.turn === seat && PLAYING.has(game.phase);
  const over = game.phase === "hand_over" || game.phase === "match_over";
  const closed = over && game.last_hand !== undefined && app.resultClosed(game.last_hand.hand);
  const result = over && game.last_hand ? (closed ? null : game.last_hand) : app.pendingResult && app.pendingResult.hand < game.hand ? app.pendingResult : null;
  const pending = !over && result !== null;
  const target = game.rules?.target ?? 100;
  const status = statusLine(app, view, game);
  // what the other player took and threw since the reader's last move (players only)
  const marks: TheirMoves = seat === null || over ? { took: null, threw: null } : theirMovesSince(game.history ?? [], seat);

  const owner = (index: number) =>
    h(
      "span",
      { class: "owner", "data-testid": `score-${index}` },
      bdi(app.seatName(view, index)),
      view.ratings?.[index] ? h("span", { class: "seat-rating", "data-testid": `rating-${index}` }, " (", bdi(view.ratings[index]?.shown ?? ""), ")") : null,
      " ",
      h("b", null, String(game.scores[index])),
    );
  const scoreLabel =
    seat === null
      ? t("table.scoreWatchLabel", { a: app.seatName(view, 0), x: game.scores[0], b: app.seatName(view, 1), y: game.scores[1], target })
      : t("table.scoreLabel", { you: game.scores[me], name: app.seatName(view, other), them: game.scores[other], target });
  const scoreboard = h(
    "p",
    { class: "scoreboard", "data-testid": "scoreboard", "aria-label": scoreLabel },
    h("span", { class: "hand-no" }, t("table.handNo", { n: game.hand })),
    h("span", { class: "sep", "aria-hidden": "true" }, "·"),
    h("span", { class: "owners", "aria-hidden": "true" }, owner(me), " – ", owner(other)),
    // on a phone the score takes the first line, the target and the clock the second
    h("span", { class: "sep line-break", "aria-hidden": "true" }, "·"),
    h("span", { class: "target" }, t("table.target", { target })),
    view.watchers ? h("span", { class: "watchers", "data-testid": "watchers" }, " · ", t("live.watchers", { count: view.watchers })) : null,
    view.turn_deadline && PLAYING.has(game.phase) && !finished && game.turn !== null
      ? h(
          "span",
          { class: "clock", "data-testid": "turn-clock" },
          bdi(app.seatName(view, game.turn)),
          " · ",
          h("span", { "data-clock": true }, t("table.clock", { n: Math.max(0, Math.ceil(view.turn_deadline - Date.now() / 1000)) })),
        )
      : null,
  );

  // the hand result and the match end: a dialog over the table, which stays where it is
  const overlays: HTMLElement[] = [];
  if (finished) overlays.push(renderMatchOver(app, view));
  const coachAtEnd = over && result ? renderCoach(app, view, game) : null;
  if (coachAtEnd) overlays.push(coachAtEnd);
  if (result && !(finished && typeof view.forfeit === "number")) overlays.push(renderResult(app, view, result, pending));
  const talkAtEnd = finished ? renderTalkControl(app, view, "match-over") : null;
  if (talkAtEnd) overlays.push(talkAtEnd);
  const overlay = overlays.length
    ? h(
        "div",
        {
          class: "overlay",
          role: "dialog",
          // over the whole screen on a phone; beside the side panel, still in reach, on desktop
          "aria-modal": wideLayout() ? undefined : "true",
          "aria-labelledby": finished ? "match-title" : "result-title",
          "data-testid": "overlay",
          "data-overlay": finished ? `match-${view.room}` : `result-${view.room}-${result?.hand ?? 0}`,
        },
        h("div", { class: "overlay-panels" }, overlays),
      )
    : null;

  const table = h(
    "div",
    {
      class: `table${myTurn ? " my-turn" : ""}${over ? " over" : ""}${finished ? " finished" : ""}${seat === null ? " watching" : ""}`,
      inert: finished || overlay ? true : undefined,
      "data-testid": "table",
      "data-phase": game.phase,
      "data-turn": game.turn === null ? "" : String(game.turn),
      "data-seat": seat === null ? "" : String(seat),
      "data-hand": String(game.hand),
    },
    h("h1", { class: "sr-only", tabindex: "-1" }, t("app.title")),
    scoreboard,
    renderOpponent(app, view, game, other, "top", marks.took),
    h(
      "section",
      { class: "center", "aria-label": `${t("table.stock")}, ${t("table.discard")}` },
      renderPiles(app, game, marks, app.seatName(view, other)),
      h(
        "div",
        { class: "turn" },
        status ? h("p", { class: `status${myTurn ? " mine" : ""}`, "data-testid": "turn-status" }, status) : null,
        closed && game.last_hand
          ? h(
              "button",
              { "data-key": "reopen-result", "data-testid": "reopen-result", "data-autofocus": true, onclick: () => app.reopenResult() },
              t("result.title", { n: game.last_hand.hand }),
            )
          : null,
        myTurn ? renderActions(app, game) : null,
        myTurn ? renderKnockPreview(app, game) : null,
        over ? null : renderCoach(app, view, game),
        finished ? null : renderPlayedForYou(app, view, game),
        seat !== null && !finished ? renderAwayCountdown(app, view, 1 - seat) : null,
        // the choice takes the place of the status, in the table: nothing else moves
        seat !== null && !finished ? renderAwayChoice(app, view, 1 - seat) : null,
        myTurn && moveHint(app, game) ? h("p", { class: "hint small-print", "data-testid": "move-hint" }, moveHint(app, game)) : null,
      ),
    ),
    seat === null ? renderOpponent(app, view, game, me, "bottom") : renderHand(app, view, game),
  );
  const watching =
    seat === null
      ? h("p", { class: "watching-banner", "data-testid": "watching" }, say("table.watching", { a: bdi(app.seatName(view, 0)), b: bdi(app.seatName(view, 1)) }))
      : null;
  // every AI worker is full: the player is told their place in the queue, which moves
  const queued =
    seat !== null && !finished && typeof view.ai_queue === "number"
      ? h("p", { class: "watching-banner ai-queue", role: "status", "data-testid": "ai-queue", "data-place": String(view.ai_queue) }, t("table.aiQueue", { n: view.ai_queue }))
      : null;
  return h(
    "div",
    { class: `table-page ${wideLayout() ? "wide" : "narrow"}` },
    watching ?? queued,
    overlay,
    table,
    h(
      "aside",
      { class: "side", "aria-label": t("layout.side") },
      renderHistory(app, view, game),
      renderScoreSheet(app, view, game),
      renderRoomRules(view, game),
      h(
        "p",
        { class: "leave-row" },
        seat !== null && view.watch_token ? renderWatchLink(app, view.room, view.watch_token) : null,
        !finished && seat !== null
          ? h(
              "button",
              {
                class: "link",
                "data-key": "leave",
                "data-testid": "leave",
                onclick: () => void app.leave(),
              },
              t("table.leave"),
            )
          : null,
      ),
    ),
  );
}

/** The choice a player gets when the opponent stays away past the grace period. */
function renderAwayChoice(app: AppActions, view: RoomView, away: number): HTMLElement | null {
  const info = view.seats?.[away];
  if (!info?.away_choice || !info.away) return null;
  return h(
    "section",
    { class: "away-choice", "data-testid": "away-choice" },
    h("p", {}, t("away.choice", { name: app.seatName(view, away) })),
    h(
      "p",
      { class: "actions" },
      h("button", { class: "primary", "data-testid": "claim-win", onclick: () => void app.decideForAway("claim_win") }, t("away.claimWin")),
      info.stand_in
        ? null
        : h("button", { "data-testid": "call-stand-in", onclick: () => void app.decideForAway("stand_in") }, t("away.standIn")),
    ),
  );
}
