// The lobby: play an AI, a friend (private room, invite code) or anyone (quick match); the
// recent finished hands to replay; my stats.

import { h } from "../dom";
import { t, type MessageKey } from "../i18n";
import type { LobbyHand } from "../protocol";
import type { AppActions } from "./actions";

export function handId(hand: LobbyHand): string | null {
  if (typeof hand.id === "string") return hand.id;
  const number = hand.hand ?? hand.result?.hand;
  if (typeof hand.room === "string" && typeof number === "number") return `${hand.room}-${number}`;
  return null;
}

function resultLine(hand: LobbyHand): string {
  const kind = hand.kind ?? hand.result?.kind;
  const winner = hand.winner ?? hand.result?.winner;
  const points = hand.points ?? hand.result?.points;
  if (!kind) return "";
  const name = typeof winner === "number" ? (hand.players?.[winner] ?? "") : "";
  if (kind === "dead") return t("result.dead");
  return t(`result.${kind}` as MessageKey, { name, points: points ?? 0 });
}

export function renderLobby(app: AppActions): HTMLElement {
  const tracker = app.session.tracker;
  const inMatch = tracker && tracker.view?.status !== "finished";
  const name = app.session.name ?? "";
  const nameInput = h("input", {
    id: "player-name",
    "data-key": "player-name",
    value: name,
    maxlength: "32",
    autocomplete: "nickname",
  });
  const codeInput = h("input", {
    id: "invite-code",
    "data-key": "invite-code",
    maxlength: "64",
    autocomplete: "off",
    autocapitalize: "characters",
    spellcheck: "false",
    pattern: "[A-Za-z0-9_-]+",
    required: true,
  });

  const aiSection = h(
    "section",
    { class: "panel", "aria-labelledby": "h-ai" },
    h("h2", { id: "h-ai" }, t("lobby.ai")),
    h("p", { class: "hint" }, t("lobby.aiHelp", { target: 100 })),
    h(
      "div",
      { class: "buttons" },
      (["easy", "normal", "hard"] as const).map((level) =>
        h(
          "button",
          {
            class: `primary level-${level}`,
            "data-key": `ai-${level}`,
            "data-testid": `play-ai-${level}`,
            onclick: () => void app.createRoom("ai", level),
          },
          t(`level.${level}`),
        ),
      ),
    ),
  );

  const friendSection = h(
    "section",
    { class: "panel", "aria-labelledby": "h-friend" },
    h("h2", { id: "h-friend" }, t("lobby.friend")),
    h(
      "button",
      { class: "primary", "data-key": "create-private", "data-testid": "create-private", onclick: () => void app.createRoom("private") },
      t("lobby.create"),
    ),
    h(
      "form",
      {
        class: "join-form",
        onsubmit: (event: Event) => {
          event.preventDefault();
          const code = codeInput.value.trim();
          if (/^[A-Za-z0-9_-]{1,64}$/.test(code)) app.navigate({ name: "join", code: code.toUpperCase() });
        },
      },
      h("label", { for: "invite-code" }, t("lobby.code")),
      codeInput,
      h("button", { type: "submit", "data-key": "join-code" }, t("lobby.join")),
    ),
  );

  const quickSection = h(
    "section",
    { class: "panel", "aria-labelledby": "h-quick" },
    h("h2", { id: "h-quick" }, t("lobby.quick")),
    app.queued
      ? h(
          "div",
          { class: "searching" },
          h("span", { class: "spinner", "aria-hidden": "true" }),
          h("span", null, t("lobby.searching")),
          h("button", { "data-key": "quick-cancel", onclick: () => void app.cancelQuickMatch() }, t("lobby.cancel")),
        )
      : h("button", { class: "primary", "data-key": "quick", "data-testid": "quick-match", onclick: () => void app.quickMatch() }, t("lobby.quickGo")),
  );

  const hands = app.lobbyHands;
  const recentSection = h(
    "section",
    { class: "panel wide", "aria-labelledby": "h-recent" },
    h("h2", { id: "h-recent" }, t("lobby.recent")),
    hands === null
      ? h("p", { class: "hint" }, t("replay.loading"))
      : hands.length === 0
        ? h("p", { class: "hint" }, t("lobby.noHands"))
        : h(
            "ul",
            { class: "recent", "data-testid": "recent-hands" },
            hands.slice(0, 12).map((hand) => {
              const id = handId(hand);
              const players = hand.players ?? [];
              return h(
                "li",
                null,
                h("span", { class: "who" }, t("lobby.handLine", { a: players[0] ?? "?", b: players[1] ?? "?" })),
                h("span", { class: "what" }, resultLine(hand)),
                id
                  ? h(
                      "a",
                      {
                        href: `/replay/${id}`,
                        class: "button",
                        "data-key": `replay-${id}`,
                        onclick: (event: MouseEvent) => {
                          if (event.ctrlKey || event.metaKey) return;
                          event.preventDefault();
                          app.navigate({ name: "replay", id });
                        },
                      },
                      t("lobby.replay"),
                    )
                  : null,
              );
            }),
          ),
  );

  const stats = app.stats;
  const statKeys = ["matches", "wins", "hands", "gins", "undercuts", "points"] as const;
  const statsSection = h(
    "section",
    { class: "panel", "aria-labelledby": "h-stats" },
    h("h2", { id: "h-stats" }, t("lobby.stats")),
    h(
      "dl",
      { class: "stats", "data-testid": "stats" },
      statKeys.map((key) => [h("dt", null, t(`stats.${key}`)), h("dd", null, String(stats?.[key] ?? 0))]),
    ),
  );

  return h(
    "div",
    { class: "lobby" },
    h(
      "section",
      { class: "panel hello wide" },
      h("h1", { tabindex: "-1" }, t("lobby.welcome", { name: name || "…" })),
      h(
        "form",
        {
          class: "name-form",
          onsubmit: (event: Event) => {
            event.preventDefault();
            void app.setName(nameInput.value);
          },
        },
        h("label", { for: "player-name" }, t("lobby.name")),
        nameInput,
        h("button", { type: "submit", "data-key": "save-name" }, t("lobby.saveName")),
      ),
      inMatch
        ? h(
            "button",
            {
              class: "primary resume",
              "data-key": "resume",
              "data-testid": "resume-match",
              onclick: () => app.navigate({ name: "room", id: tracker.room }),
            },
            t("lobby.resume"),
          )
        : null,
    ),
    aiSection,
    friendSection,
    quickSection,
    recentSection,
    statsSection,
  );
}
