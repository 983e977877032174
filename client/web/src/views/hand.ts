// The player's own hand: the server's melds grouped with the deadwood apart (the default), or
// one overlapped row sorted by rank, by suit, or in the player's own order (melds marked by a
// coloured bar). Cards are moved by dragging: with a mouse through HTML5 drag and drop (the
// same drag that drops a card on the discard pile), with a finger or a pen through pointer
// events; with the keyboard by Alt + arrow. The card just drawn is marked until the discard,
// and the "Hint" button names the discard that leaves the least deadwood.

import { cardName, shortName, sortCards, sortMeld } from "../cards";
import { bestDiscard } from "../melds";
import { h } from "../dom";
import type { HandSort } from "../hand-layout";
import { t, type MessageKey } from "../i18n";
import type { GameView, RoomView } from "../protocol";
import type { AppActions } from "./actions";
import { bdi, cardFace, say } from "./common";
import { CARD_DRAG_TYPE, cardAction, DRAG_TYPE, dragData, drawAction, isCardDrag, PLAYING } from "./moves";
import { seatBadges } from "./seat-badges";
import { renderTalkBubble, renderTalkControl } from "./talk";

/** How far a finger moves before a press becomes a drag (CSS px). */
const DRAG_START = 8;

interface Drop {
  card: string;
  after: boolean;
}

/** The card of the hand under a point, and whether the point is on its right half. */
function dropAt(x: number, y: number): Drop | null {
  const target = document.elementFromPoint(x, y)?.closest<HTMLElement>("[data-testid=my-hand] button.card[data-card]");
  const card = target?.dataset.card;
  if (!target || !card) return null;
  const box = target.getBoundingClientRect();
  return { card, after: x > box.left + box.width / 2 };
}

function overDiscardPile(x: number, y: number): boolean {
  return Boolean(document.elementFromPoint(x, y)?.closest("[data-testid=discard]"));
}

function markDrop(hand: HTMLElement, drop: Drop | null): void {
  for (const marked of hand.querySelectorAll(".drop-before, .drop-after")) marked.classList.remove("drop-before", "drop-after");
  if (!drop) return;
  hand.querySelector(`button.card[data-card="${drop.card}"]`)?.classList.add(drop.after ? "drop-after" : "drop-before");
}

const SORTS: { sort: "melds" | "rank" | "suit"; label: MessageKey }[] = [
  { sort: "melds", label: "hand.sortMelds" },
  { sort: "rank", label: "hand.sortRank" },
  { sort: "suit", label: "hand.sortSuit" },
];

export function renderHand(app: AppActions, view: RoomView, game: GameView): HTMLElement {
  const layout = app.hand;
  const cards = game.cards ?? [];
  const melds = game.melds ?? [];
  const inMelds = new Set(melds.flat());
  const deadwood = sortCards(game.deadwood ?? cards.filter((card) => !inMelds.has(card)));
  const meldNo = new Map<string, number>();
  melds.forEach((meld, index) => meld.forEach((card) => meldNo.set(card, index + 1)));
  const motion = app.motion;
  const drawn = motion?.drawn ?? layout.drawn(view);
  const hint = layout.currentHint(game);
  const sort: HandSort = layout.sort(view);
  const row = layout.order(view);
  const shown = row ?? [...melds.flatMap((meld) => sortMeld(meld)), ...deadwood];
  let firstLive = true;

  const place = (card: string, drop: Drop) => {
    const rest = shown.filter((other) => other !== card);
    const at = rest.indexOf(drop.card);
    if (card === drop.card || at < 0) return;
    layout.move(view, shown, card, at + (drop.after ? 1 : 0));
    app.render();
  };

  const cardButton = (card: string) => {
    const action = cardAction(app, game, card);
    const isNew = drawn === card;
    const hinted = hint?.card === card;
    const label = [cardName(card)];
    if (row) label.push(meldNo.has(card) ? t("table.meld") : t("table.deadwoodGroup"));
    if (isNew) label.push(t("card.new"));
    if (hinted) label.push(t("hand.hinted"));
    if (action && action.kind !== "discard") label.push(t(action.kind === "knock" ? "action.knockWith" : "action.ginWith", { card: cardName(card) }));
    const autofocus = Boolean(action) && firstLive;
    if (action) firstLive = false;
    // a finger's drag (pointer events); a mouse drags through HTML5 drag and drop below
    let press: { id: number; x: number; y: number; moved: boolean } | null = null;
    const button: HTMLButtonElement = h(
      "button",
      {
        class: `card${action ? " live" : ""}${isNew ? " new" : ""}${game.taken_card === card ? " taken" : ""}${app.pick && app.knockCard === card ? " chosen" : ""}${hinted ? " hinted" : ""}`,
        "data-key": `card-${card}`,
        "data-card": card,
        "data-testid": `card-${card}`,
        "data-meld": row && meldNo.has(card) ? String(((meldNo.get(card) ?? 1) - 1) % 3 + 1) : undefined,
        "aria-label": label.join(", "),
        "aria-disabled": action ? undefined : "true",
        "aria-keyshortcuts": "Alt+ArrowLeft Alt+ArrowRight",
        "data-autofocus": autofocus ? true : undefined,
        draggable: "true",
        onclick: (event: MouseEvent) => {
          if (button.dataset.dragged) {
            delete button.dataset.dragged;
            event.preventDefault();
            return;
          }
          if (action && !app.busy) app.act(action);
        },
        onkeydown: (event: KeyboardEvent) => {
          if (!event.altKey || (event.key !== "ArrowLeft" && event.key !== "ArrowRight")) return;
          event.preventDefault();
          const at = shown.indexOf(card) + (event.key === "ArrowRight" ? 1 : -1);
          if (at < 0 || at >= shown.length) return;
          layout.move(view, shown, card, at);
          app.render();
          // the page gives the focus to the next move's control when a card cannot be played
          document.querySelector<HTMLElement>(`[data-testid=my-hand] [data-key="card-${card}"]`)?.focus();
        },
        ondragstart: (event: DragEvent) => {
          event.dataTransfer?.setData(DRAG_TYPE, `card:${card}`);
          event.dataTransfer?.setData(CARD_DRAG_TYPE, card);
          if (event.dataTransfer) event.dataTransfer.effectAllowed = "move";
        },
        ondragover: (event: DragEvent) => {
          if (!isCardDrag(event)) return;
          event.preventDefault();
          event.stopPropagation();
          markDrop(hand, dropAt(event.clientX, event.clientY));
        },
        ondrop: (event: DragEvent) => {
          const moved = event.dataTransfer?.getData(CARD_DRAG_TYPE) ?? "";
          if (!moved) return;
          event.preventDefault();
          event.stopPropagation();
          const drop = dropAt(event.clientX, event.clientY);
          markDrop(hand, null);
          if (drop) place(moved, drop);
        },
        ondragend: () => markDrop(hand, null),
        onpointerdown: (event: PointerEvent) => {
          if (event.pointerType === "mouse" || !event.isPrimary) return;
          press = { id: event.pointerId, x: event.clientX, y: event.clientY, moved: false };
        },
        onpointermove: (event: PointerEvent) => {
          if (!press || event.pointerId !== press.id) return;
          const dx = event.clientX - press.x;
          const dy = event.clientY - press.y;
          if (!press.moved && Math.hypot(dx, dy) < DRAG_START) return;
          if (!press.moved) {
            press.moved = true;
            button.setPointerCapture(event.pointerId);
            button.classList.add("dragging");
          }
          event.preventDefault();
          button.style.transform = `translate(${dx}px, ${dy}px)`;
          markDrop(hand, dropAt(event.clientX, event.clientY));
        },
        onpointerup: (event: PointerEvent) => {
          if (!press || event.pointerId !== press.id) return;
          const moved = press.moved;
          press = null;
          if (!moved) return;
          button.dataset.dragged = "1";
          button.classList.remove("dragging");
          button.style.transform = "";
          const drop = dropAt(event.clientX, event.clientY);
          markDrop(hand, null);
          if (drop) place(card, drop);
          else if (overDiscardPile(event.clientX, event.clientY) && action?.kind === "discard" && !app.busy) app.act(action);
        },
        onpointercancel: () => {
          press = null;
          button.classList.remove("dragging");
          button.style.transform = "";
          markDrop(hand, null);
        },
      },
      cardFace(card),
    );
    return button;
  };

  const groups = row
    ? [h("div", { class: "group group-row", role: "group", "aria-label": t("table.hand"), dir: "ltr" }, row.map(cardButton))]
    : [
        ...melds.map((meld) =>
          h("div", { class: "group group-meld", role: "group", "aria-label": t("table.meld"), dir: "ltr" }, sortMeld(meld).map(cardButton)),
        ),
        deadwood.length
          ? h("div", { class: "group group-deadwood", role: "group", "aria-label": t("table.deadwoodGroup"), dir: "ltr" }, deadwood.map(cardButton))
          : null,
      ];
  const hand = h("div", { class: "hand", "data-count": String(cards.length), "data-sort": sort, "data-testid": "hand-cards" }, groups);

  const seat = view.seat ?? 0;
  const myTurn = view.status === "playing" && game.turn === seat && PLAYING.has(game.phase);
  return h(
    "section",
    {
      class: `seat me${myTurn ? " active" : ""}`,
      "aria-label": t("table.hand"),
      "data-testid": "my-hand",
      "data-seat-index": String(seat),
      ondragover: (event: DragEvent) => {
        if (dragData(event) && (drawAction(game, "stock") || drawAction(game, "discard"))) event.preventDefault();
      },
      ondrop: (event: DragEvent) => {
        const data = event.dataTransfer?.getData(DRAG_TYPE) ?? "";
        if (data !== "stock" && data !== "discard") return;
        event.preventDefault();
        const action = drawAction(game, data);
        if (action && !app.busy) app.act(action);
      },
    },
    h(
      "div",
      { class: "seat-info" },
      h("span", { class: "name" }, say("seat.you", { name: bdi(app.seatName({ ...view, seat: null }, seat)) })),
      seatBadges(app, view, seat),
      h("span", { class: "score", "aria-hidden": "true" }, String(game.scores[seat])),
      deadwoodFigure(game),
      renderTalkControl(app, view),
      renderTalkBubble(app, view, seat),
    ),
    hand,
    renderTools(app, view, game, sort, myTurn),
  );
}

/** The deadwood counter. With eleven cards (the discard to make) it counts the ten left after
 * the best discard, and says which one: all eleven would count a card about to go. */
function deadwoodFigure(game: GameView): HTMLElement {
  const allowed = (game.legal_actions ?? []).filter((action) => action.kind === "discard" && action.card).map((action) => action.card as string);
  const best = game.phase === "discard" && allowed.length ? bestDiscard(game.cards ?? [], allowed) : null;
  if (best) {
    return h(
      "span",
      { class: "deadwood", "data-testid": "deadwood", "data-after": best.card, "data-deadwood": String(best.deadwood) },
      t("table.deadwoodAfter", { card: `\u2066${shortName(best.card)}\u2069`, n: best.deadwood }),
    );
  }
  return h("span", { class: "deadwood", "data-testid": "deadwood", "data-deadwood": String(game.deadwood_points ?? 0) }, t("table.deadwood", { n: game.deadwood_points ?? 0 }));
}

/** The sort buttons, the hint button and the hint itself. */
function renderTools(app: AppActions, view: RoomView, game: GameView, sort: HandSort, myTurn: boolean): HTMLElement {
  const layout = app.hand;
  const hint = layout.currentHint(game);
  const offerHint = myTurn && layout.canHint(game);
  return h(
    "div",
    { class: "hand-tools" },
    h(
      "div",
      { class: "sorts", role: "group", "aria-label": t("hand.sortLabel"), title: t("hand.moveHelp") },
      SORTS.map(({ sort: choice, label }) =>
        h(
          "button",
          {
            "data-key": `sort-${choice}`,
            "data-testid": `sort-${choice}`,
            "aria-pressed": sort === choice ? "true" : "false",
            onclick: () => {
              layout.setSort(view, choice);
              app.render();
            },
          },
          t(label),
        ),
      ),
    ),
    offerHint
      ? h(
          "button",
          {
            class: "hint-button",
            "data-key": "hint",
            "data-testid": "hint",
            onclick: () => {
              if (document.documentElement.dataset.hints === "off") return;
              layout.askHint(game);
              app.render();
            },
          },
          t("hand.hint"),
        )
      : null,
    offerHint && hint
      ? h(
          "p",
          { class: "hint-note", role: "status", "data-testid": "hint-note", "data-card": hint.card, "data-deadwood": String(hint.deadwood) },
          t("hand.hintNote", { card: cardName(hint.card), n: hint.deadwood }),
        )
      : null,
  );
}
