// The badges beside a seat's name: an AI standing in, away, the dealer.

import { h } from "../dom";
import { t } from "../i18n";
import type { RoomView } from "../protocol";
import type { AppActions } from "./actions";

export function seatBadges(app: AppActions, view: RoomView, seat: number): HTMLElement[] {
  const info = view.seats?.[seat];
  const badges: HTMLElement[] = [];
  if (!info) return badges;
  if (info.stand_in) {
    badges.push(h("span", { class: "badge stand-in", "data-testid": `stand-in-${seat}` }, t("seat.standIn", { name: app.seatName(view, seat) })));
  } else if (info.away) {
    badges.push(h("span", { class: "badge away", "data-testid": `away-${seat}` }, t("seat.away")));
  }
  if (view.game && view.game.dealer === seat) badges.push(h("span", { class: "badge dealer" }, t("table.dealer")));
  return badges;
}
