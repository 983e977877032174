// The lobby: play an AI, a friend (private room, invite code, the room's options) or anyone
// (quick match); the matches still in play; the finished hands to replay (the player's own,
// from the server, by match, and everybody's recent ones); my stats; the leaderboard's link.

import { h } from "../dom";
import { getLang, t, type MessageKey } from "../i18n";
import { AI_LEVELS, displayName, isDefaultName, keptName, seatName } from "../names";
import type { LobbyHand } from "../protocol";
import { handId, handNumber, handsByMatch } from "../my-hands";
import type { AppActions, RoomOptions } from "./actions";
import { bdi, say } from "./common";
import { renderAccount } from "./account";
import { renderLiveNow } from "./live";

function resultLine(hand: LobbyHand): string {
  const kind = hand.kind ?? hand.result?.kind;
  const winner = hand.winner ?? hand.result?.winner;
  const points = hand.points ?? hand.result?.points;
  if (!kind) return "";
  const name = typeof winner === "number" ? `\u2068${handPlayer(hand, winner)}\u2069` : "";
  if (kind === "dead") return t("result.dead");
  return t(`result.${kind}` as MessageKey, { name, points: points ?? 0 });
}

/** A listed hand's player in the page's language, from the name's parts when the record has them. */
function handPlayer(hand: LobbyHand, seat: number): string {
  return seatName(hand.seats?.[seat], hand.players?.[seat] ?? null);
}

function when(ms: number): string {
  return new Date(ms).toLocaleString(getLang(), { dateStyle: "medium", timeStyle: "short" });
}

function replayLink(app: AppActions, id: string, label: string, match = false): HTMLElement {
  return h(
    "a",
    {
      href: `/replay/${id}${match ? "?match=1" : ""}`,
      class: "button",
      "data-key": `replay-${id}${match ? "-match" : ""}`,
      onclick: (event: MouseEvent) => {
        if (event.ctrlKey || event.metaKey) return;
        event.preventDefault();
        app.navigate(match ? { name: "replay", id, match: true } : { name: "replay", id });
      },
    },
    label,
  );
}

/** The options of a new room, kept on the app while the lobby re-renders. */
/** The turn clock a room will get: the one chosen, else the server's default for rooms between
 * people (the hello ack's), shown selected, so that what the lobby shows is what the room gets. */
export function chosenClock(options: RoomOptions, serverDefault: number | null): number {
  return options.turn_seconds ?? serverDefault ?? 0;
}

function clockText(seconds: number): string {
  return seconds ? t("options.clockOn", { n: seconds }) : t("options.clockOff");
}

/** The rated choice of a private room: a checkbox for an account holder; for a guest, the
 * same checkbox turned off and the reason (a rated match is for account holders). */
function renderRatedOption(options: RoomOptions, accountHolder: boolean): HTMLElement[] {
  const box = h(
    "label",
    { class: "check" },
    h("input", {
      type: "checkbox",
      "data-testid": "option-rated",
      checked: accountHolder && options.rated === true,
      disabled: !accountHolder,
      "aria-describedby": accountHolder ? null : "rated-guest",
      onchange: (event: Event) => (options.rated = (event.target as HTMLInputElement).checked),
    }),
    " ",
    t("options.rated"),
  );
  if (accountHolder) return [box];
  return [box, h("span", { class: "hint", id: "rated-guest", "data-testid": "rated-guest-hint" }, t("options.ratedGuest"))];
}

/** What a new private room is asked for: the options chosen, rated only for an account holder. */
export function privateRoomOptions(options: RoomOptions, serverDefault: number | null, accountHolder: boolean): RoomOptions {
  const { rated, ...rest } = options;
  return { ...rest, turn_seconds: chosenClock(options, serverDefault), rules: { ...options.rules }, ...(accountHolder && rated === true ? { rated: true } : {}) };
}

function renderOptions(app: AppActions, options: RoomOptions, serverDefault: number | null, accountHolder: boolean): HTMLElement {
  const clock = chosenClock(options, serverDefault);
  const choices = [...new Set([0, 30, 60, 120, clock])].sort((a, b) => a - b);
  const rules = (options.rules ??= {});
  const check = (name: "game_bonus" | "box_bonus" | "shutout_bonus") =>
    h(
      "label",
      { class: "check" },
      h("input", { type: "checkbox", "data-testid": `option-${name}`, checked: rules[name] === true, onchange: (event: Event) => (rules[name] = (event.target as HTMLInputElement).checked) }),
      " ",
      t(`options.${name}` as MessageKey),
    );
  return h(
    "details",
    {
      class: "room-options",
      "data-testid": "room-options",
      open: app.roomOptionsOpen,
      ontoggle: (event: Event) => {
        app.roomOptionsOpen = (event.target as HTMLDetailsElement).open;
      },
    },
    h("summary", null, t("options.title")),
    h(
      "div",
      { class: "options-grid" },
      h(
        "label",
        null,
        t("options.targetLabel"),
        " ",
        h("input", {
          type: "number",
          min: "1",
          max: "10000",
          value: String(rules.target ?? 100),
          "data-testid": "option-target",
          onchange: (event: Event) => {
            const value = Number((event.target as HTMLInputElement).value);
            if (Number.isInteger(value) && value >= 1 && value <= 10_000) rules.target = value;
          },
        }),
      ),
      check("game_bonus"),
      check("box_bonus"),
      check("shutout_bonus"),
      // "Against a friend, also:" leads the line of the options it is about
      h(
        "div",
        { class: "people-only", role: "group", "aria-labelledby": "people-only", "data-testid": "people-only" },
        h("span", { class: "hint", id: "people-only" }, t("options.peopleOnly")),
        h(
          "label",
          null,
          t("options.clockLabel"),
          " ",
          h(
            "select",
            { "data-testid": "option-clock", onchange: (event: Event) => (options.turn_seconds = Number((event.target as HTMLSelectElement).value)) },
            choices.map((n) => h("option", { value: String(n), selected: clock === n }, clockText(n))),
          ),
        ),
        h(
          "label",
          { class: "check" },
          h("input", { type: "checkbox", "data-testid": "option-stand-in", checked: options.stand_in === true, onchange: (event: Event) => (options.stand_in = (event.target as HTMLInputElement).checked) }),
          " ",
          t("options.standIn"),
        ),
        ...renderRatedOption(options, accountHolder),
      ),
    ),
  );
}

function renderMyMatches(app: AppActions): HTMLElement | null {
  const matches = app.matches;
  if (matches.length === 0) return null;
  return h(
    "section",
    { class: "panel wide", "aria-labelledby": "h-matches" },
    h("h2", { id: "h-matches" }, t("lobby.myMatches")),
    h(
      "ul",
      { class: "recent", "data-testid": "my-matches" },
      [...matches].reverse().map((match) =>
        h(
          "li",
          { "data-room": match.room },
          h("span", { class: "who" }, say("lobby.versus", { name: bdi(keptName(match.opponent, match.opponentAi, match.opponentNameId)) })),
          h("span", { class: "what" }, t(`lobby.mode.${match.mode}` as MessageKey), " · ", when(match.since)),
          h(
            "button",
            { class: "primary", "data-key": `back-to-${match.room}`, "data-testid": `back-to-${match.room}`, onclick: () => app.navigate({ name: "room", id: match.room }) },
            t("lobby.backToIt"),
          ),
        ),
      ),
    ),
  );
}

function renderMyHands(app: AppActions): HTMLElement | null {
  const matches = handsByMatch(app.myHands ?? []);
  if (matches.length === 0) return null;
  return h(
    "section",
    { class: "panel wide", "aria-labelledby": "h-my-hands" },
    h("h2", { id: "h-my-hands" }, t("lobby.myHands")),
    h(
      "ul",
      { class: "my-hands", "data-testid": "my-hands" },
      matches.map(({ room, hands, latest }) => {
        const first = hands[0];
        const firstId = handId(first);
        return h(
          "li",
          { "data-room": room },
          h(
            "p",
            { class: "match-line" },
            h("span", { class: "who" }, say("lobby.handLine", { a: bdi(handPlayer(first, 0)), b: bdi(handPlayer(first, 1)) })),
            " · ",
            h("span", { class: "what" }, when(latest * 1000)),
            " ",
            replayLink(app, firstId ?? `${room}-1`, t("sheet.replayMatch"), true),
          ),
          h(
            "ol",
            { class: "hands" },
            hands.map((hand) => {
              const id = handId(hand);
              return h(
                "li",
                null,
                h("span", null, t("table.handNo", { n: handNumber(hand) ?? 0 }), " · ", resultLine(hand)),
                " ",
                id ? replayLink(app, id, t("lobby.replay")) : null,
              );
            }),
          ),
        );
      }),
    ),
  );
}

export function renderLobby(app: AppActions, options: RoomOptions): HTMLElement {
  const tracker = app.session.tracker;
  // the list of matches in play offers each one; the button is for a match not listed yet
  const inMatch = tracker && tracker.view?.status !== "finished" && !app.matches.some((match) => match.room === tracker.room);
  const nameId = app.session.nameId;
  const name = typeof nameId === "string" ? t("player.default", { id: nameId }) : displayName(app.session.name);
  const chosen = app.session.name !== null && !isDefaultName(app.session.name, nameId);
  const nameInput = h("input", {
    id: "player-name",
    "data-key": "player-name",
    "data-testid": "player-name",
    value: app.session.name === null ? "" : name,
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
    h("p", { class: "hint small-print", "data-testid": "ai-clock" }, clockText(0)),
    Object.keys(app.session.aiRatings).length ? h("p", { class: "hint", "data-testid": "ai-ratings-help" }, t("lobby.aiRatingsHelp")) : null,
    h(
      "div",
      { class: "buttons" },
      AI_LEVELS.map((level) => {
        const rating = app.session.aiRatings[level];
        return h(
          "button",
          {
            class: `primary level-${level}`,
            "data-key": `ai-${level}`,
            "data-testid": `play-ai-${level}`,
            onclick: () => void app.createRoom("ai", level, { rules: { ...options.rules } }),
          },
          t(`level.${level}`),
          rating === undefined
            ? null
            : h("span", { class: "level-rating", "data-testid": `ai-rating-${level}` }, say("lobby.levelRating", { rating: h("bdi", { dir: "ltr" }, String(rating)) })),
        );
      }),
    ),
    h("p", { class: "guided" }, h("button", { class: "link", "data-key": "start-tutorial", "data-testid": "start-tutorial", onclick: () => void app.startTutorial() }, t("coach.start"))),
  );

  const friendSection = h(
    "section",
    { class: "panel", "aria-labelledby": "h-friend" },
    h("h2", { id: "h-friend" }, t("lobby.friend")),
    h(
      "button",
      { class: "primary", "data-key": "create-private", "data-testid": "create-private", onclick: () => void app.createRoom("private", undefined, privateRoomOptions(options, app.session.defaultTurnSeconds, app.handle !== null)) },
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
      : h(
          "div",
          { class: "quick-buttons" },
          h("button", { class: "primary", "data-key": "quick", "data-testid": "quick-match", onclick: () => void app.quickMatch() }, t("lobby.quickGo")),
          h("button", { "data-key": "quick-rated", "data-testid": "rated-match", title: t("lobby.ratedHint"), onclick: () => void app.quickMatch(true) }, t("lobby.ratedGo")),
        ),
    h(
      "p",
      { class: "hint" },
      h(
        "a",
        { href: "/leaderboard", "data-testid": "lobby-leaderboard", onclick: (event: MouseEvent) => { if (event.ctrlKey || event.metaKey) return; event.preventDefault(); app.navigate({ name: "leaderboard" }); } },
        t("leaderboard.open"),
      ),
    ),
    // a quick match takes no options: it always gets the server's clock
    app.session.defaultTurnSeconds === null ? null : h("p", { class: "hint small-print", "data-testid": "quick-clock" }, clockText(app.session.defaultTurnSeconds)),
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
              const number = hand.hand ?? hand.result?.hand;
              return h(
                "li",
                null,
                h("span", { class: "who" }, say("lobby.handLine", { a: bdi(handPlayer(hand, 0)), b: bdi(handPlayer(hand, 1)) })),
                h(
                  "span",
                  { class: "what" },
                  typeof number === "number" ? `${t("table.handNo", { n: number })} · ` : "",
                  resultLine(hand),
                  typeof hand.finished_at === "number" ? ` · ${when(hand.finished_at * 1000)}` : "",
                ),
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
                typeof hand.room === "string" ? replayLink(app, `${hand.room}-1`, t("lobby.wholeMatch"), true) : null,
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
      h("h1", { tabindex: "-1" }, say("lobby.welcome", { name: bdi(app.session.name === null ? "…" : name) })),
      chosen || app.session.name === null ? null : h("p", { class: "hint", "data-testid": "name-hint" }, t("lobby.chooseName")),
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
      renderAccount(app),
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
    renderMyMatches(app),
    h("section", { class: "panel wide options-panel" }, renderOptions(app, options, app.session.defaultTurnSeconds, app.handle !== null)),
    aiSection,
    friendSection,
    quickSection,
    renderLiveNow(app),
    renderMyHands(app),
    recentSection,
    statsSection,
  );
}
