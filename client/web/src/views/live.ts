// The lobby's "Live now": the public matches being played that anyone may watch, with the
// hand, the score and how many watch each (docs/protocol.md, lobby `live`; GET /api/live).

import { h } from "../dom";
import { t } from "../i18n";
import { nameFromParts } from "../names";
import type { LiveRoom } from "../protocol";
import type { AppActions } from "./actions";
import { bdi, say } from "./common";

export function renderLiveNow(app: AppActions): HTMLElement {
  const rooms = app.liveRooms;
  return h(
    "section",
    { class: "panel wide live-now", "aria-labelledby": "h-live" },
    h("h2", { id: "h-live" }, t("live.title")),
    rooms === null
      ? h("p", { class: "hint" }, t("replay.loading"))
      : rooms.length === 0
        ? h("p", { class: "hint", "data-testid": "live-none" }, t("live.none"))
        : h(
            "ul",
            { class: "recent", "data-testid": "live-now" },
            rooms.map((room) => liveLine(app, room)),
          ),
  );
}

function liveLine(app: AppActions, room: LiveRoom): HTMLElement {
  const names = [0, 1].map((seat) => (room.seats[seat] ? nameFromParts(room.seats[seat]) : t("player.unknown")));
  const path = `/room/${encodeURIComponent(room.room)}`;
  return h(
    "li",
    { "data-room": room.room, "data-testid": `live-${room.room}` },
    h("span", { class: "who" }, say("lobby.handLine", { a: bdi(names[0]), b: bdi(names[1]) })),
    h(
      "span",
      { class: "what" },
      say("live.line", {
        hand: String(room.hand),
        a: bdi(names[0]),
        x: String(room.scores[0] ?? 0),
        y: String(room.scores[1] ?? 0),
        b: bdi(names[1]),
        target: String(room.target),
      }),
      " · ",
      h("span", { class: "watchers", "data-testid": "live-watchers" }, t("live.watchers", { count: room.watchers })),
    ),
    h(
      "a",
      {
        href: path,
        class: "button",
        "data-key": `watch-${room.room}`,
        "data-testid": `watch-${room.room}`,
        onclick: (event: MouseEvent) => {
          if (event.ctrlKey || event.metaKey) return;
          event.preventDefault();
          app.navigate({ name: "room", id: room.room });
        },
      },
      t("live.watch"),
    ),
  );
}
