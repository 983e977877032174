// The application: one session, the followed room, the page's route, and rendering.
// Views are functions of what the app lets them read and ask for (views/actions.ts); every
// change re-renders the page (keeping focus).

import { AccountError, askFriendAt, blockPlayer, claimWithPasskey, claimWithPassword, deleteAccount, fetchLeaderboard, fetchProfile, signInWithPasskey, signInWithPassword, signOut, signOutEverywhere, type SignedIn } from "./account";
import { cardName } from "./cards";
import { DICTIONARIES, detectLang, direction, getLang, setLang, t, tSeat, type Lang, type MessageKey } from "./i18n";
import type { Action, GameEvent, HandOver, LiveRoom, LobbyHand, RoomView } from "./protocol";
import { RoomTracker, type Applied } from "./room-state";
import { parseRoute, routePath, type Route } from "./routes";
import { ConnectionLost, RequestError, Session, type ConnStatus } from "./session";
import { cooldownText } from "./cooldown";
import { keptName, seatName } from "./names";
import { WIDE_QUERY } from "./layout";
import { capture, cueOf, emptyCue, play, type Cue } from "./motion";
import { Persist, type SavedMatch, type Stats } from "./storage";
import { HandLayout } from "./hand-layout";
import { Talk, isQuickMessage, type QuickMessage } from "./talk";
import { clear, h } from "./dom";
import { playerToAct } from "./cues";
import { PageSettings } from "./page-settings";
import { SettingsDialog } from "./settings-dialog";
import { SoundBoard } from "./sounds";
import { TurnNotifier } from "./turn-notice";
import { TurnSignals, type TurnWords } from "./turn-signals";
import type { AppActions, Motion, PickMode, Question, RoomOptions } from "./views/actions";
import { renderHeader, renderQuestion } from "./views/common";
import { renderLobby } from "./views/lobby";
import { renderReplay, ReplayController } from "./views/replay";
import { loadBlocks } from "./views/blocks";
import { loadFriends, stopFriends } from "./views/friends";
import { renderInvite, type InviteGreeting, type InviteState } from "./views/invite";
import { renderReportDialog } from "./views/report";
import { Reporting, type ReportDialog, type ReportTarget } from "./reporting";
import { ChallengeInbox } from "./challenges";
import { renderChallengeBanner, renderChallengeChip } from "./views/challenges";
import { renderProfile, type ProfileState } from "./views/profile";
import { renderLeaderboard, type LeaderboardState } from "./views/leaderboard";
import { renderRules } from "./views/rules";
import { minutesSeconds, renderTable } from "./views/table";
import { phraseText } from "./views/talk";

/** How often the lobby reads "Live now" again. */
const LIVE_REFRESH_MS = 4000;
/** How long a Copy button says "Link copied". */
const COPIED_SHOWN_MS = 2500;
/** What a refused friend request from the table says (the others: friends.failed). */
const FRIEND_AT_TABLE_ERRORS: Record<string, MessageKey> = {
  not_an_account: "friends.guest",
  friend_request_refused: "friends.refused",
  too_many_friend_requests: "friends.limited",
  too_many_open_friend_requests: "friends.limited",
  too_many_friends: "friends.full",
  account_required: "friends.account",
};

/** A saved match's opponent in the page's language. */
function matchOpponent(match: SavedMatch): string {
  return keptName(match.opponent, match.opponentAi, match.opponentNameId);
}

export class App implements AppActions {
  readonly root: HTMLElement;
  readonly persist: Persist;
  readonly session: Session;
  /** How the player lays out their hand, the card just drawn, the hint (hand-layout.ts). */
  readonly hand: HandLayout;
  readonly settings: PageSettings;
  private readonly signals: TurnSignals;
  private readonly settingsDialog: SettingsDialog;
  route: Route = { name: "lobby" };
  status: ConnStatus = "offline";
  pick: PickMode = null;
  /** Per hand (``room:hand``): how many of the moves made for this player they were told. */
  private playedForTold = new Map<string, number>();
  /** The card a knock (or gin) would discard, chosen and shown before it is confirmed. */
  knockCard: string | null = null;
  busy = false;
  toast: string | null = null;
  queued = false;
  lobbyHands: LobbyHand[] | null = null;
  /** The player's own finished hands, from the server (any device of theirs), newest first. */
  myHands: LobbyHand[] | null = null;
  /** The lobby's "Live now", and when it was last read (ms). */
  liveRooms: LiveRoom[] | null = null;
  private liveLoaded = 0;
  stats: Stats | null;
  /** The hand_over the player has not dismissed yet (the other seat may deal at once). */
  pendingResult: HandOver | null = null;
  /** The finished hand ("room-hand") whose result a watcher closed while the players have not
   * dealt on; it shows again when they open it, or with the next hand's end. */
  closedResult: string | null = null;
  /** The room whose guide (the guided first hand's prompts) the player skipped. */
  private skippedGuide: string | null = null;
  motion: Motion | null = null;
  /** What the change being rendered moved (motion.ts plays it after the render). */
  private cue: Cue | null = null;
  /** The overlay (hand result, match end) the keyboard was last taken into. */
  private overlayShown: string | null = null;
  announcement = "";
  rematchAsked = false;
  /** The text the last Copy put on the clipboard, for a few seconds: the button that copied
   * it (and only that one) says so. */
  copied: string | null = null;
  private copiedTimer: number | undefined;
  historyOpen = !window.matchMedia?.("(max-width: 720px)").matches;
  roomOptionsOpen = false;
  replay: ReplayController | null = null;
  question: Question | null = null;
  readonly talk: Talk;
  /** The options of the next room the player creates (the lobby's form). */
  readonly roomOptions: RoomOptions = { rules: {} };
  private toastTimer: ReturnType<typeof setTimeout> | null = null;
  /** The invite link's page: its greeting, before the seat is taken (views/invite.ts). */
  invite: InviteState | null = null;
  readonly reporting = new Reporting(() => this.render());
  /** Challenges to and from the player, read every second on every page (challenges.ts). */
  readonly challenges: ChallengeInbox;
  private reportFocused: ReportDialog | null = null;
  private retryRoom: { room: string; left: number } | null = null;

  constructor(root: HTMLElement, persist: Persist = Persist.browser()) {
    this.root = root;
    this.persist = persist;
    this.stats = persist.stats;
    this.hand = new HandLayout(persist);
    const scheme = location.protocol === "https:" ? "wss" : "ws";
    this.session = new Session({ url: `${scheme}://${location.host}/ws`, persist });
    this.talk = new Talk(persist, () => this.render());
    this.settings = new PageSettings(persist);
    const sounds = new SoundBoard();
    const notifier = new TurnNotifier();
    this.signals = new TurnSignals(() => this.settings.current, sounds, notifier);
    this.settingsDialog = new SettingsDialog(this.settings, sounds, notifier);
    const challengeNotifier = new TurnNotifier();
    this.challenges = new ChallengeInbox({
      token: () => (this.handle !== null ? this.persist.token : null),
      changed: () => this.render(),
      openRoom: (room) => this.navigate({ name: "room", id: room }),
      notify: (entry) => challengeNotifier.notify(t("app.title"), t("challenge.notifyText", { name: entry.from.handle }), getLang(), direction(getLang()), "gin-rummy-challenge"),
    });
  }

  // --- start ---------------------------------------------------------------------------------

  start(): void {
    this.settings.start();
    this.applyLang(detectLang(this.persist.lang, navigator.languages ?? [navigator.language]));
    const saved = this.persist.room;
    if (saved) {
      this.signals.know(saved.room, saved.view);
      // resume from the saved number when we have the view that goes with it, else from scratch
      const tracker = saved.view
        ? new RoomTracker(saved.room, saved.lastSeq, saved.view, saved.watchToken ?? null)
        : new RoomTracker(saved.room, -1, null, saved.watchToken ?? null);
      this.session.follow(tracker, false);
    }
    this.session.on({
      status: (status) => {
        this.status = status;
        this.render();
      },
      change: (tracker, applied) => this.onChange(tracker, applied),
      roomAssigned: (room) => {
        this.queued = false;
        this.followRoom(room, true);
        this.navigate({ name: "room", id: room }, true);
      },
      roomGone: (room) => {
        // a rematch room may be announced a moment before it is created: try again briefly
        if (this.retryRoom?.room === room && this.retryRoom.left > 0) {
          this.retryRoom.left -= 1;
          setTimeout(() => {
            if (this.route.name === "room" && this.route.id === room) {
              const left = this.retryRoom?.left ?? 0;
              this.followRoom(room, true);
              this.retryRoom = { room, left };
            }
          }, 400);
          return;
        }
        this.persist.forgetMatch(room);
        this.showToast(t("error.roomGone"));
        if (this.route.name === "room") this.navigate({ name: "lobby" }, true);
        else this.render();
      },
      notice: (code, message) => {
        if (code === "reconnect") this.showToast(t("notice.reconnect"));
        else if (code === "bad_token") this.showToast(t("notice.bad_token"));
        else if (code === "signed_out") this.becomeGuest();
        else this.showToast(t("notice.bye", { message }));
      },
      ready: () => {
        if (this.route.name === "lobby") this.loadLobby();
        void this.challenges.read(); // the account is known now: its inbox, without waiting
        // a profile page shown before `hello` told the handle: its friends list now
        if (this.route.name === "profile" && this.profile?.profile) void this.startFriends(this.profile).then(() => this.render());
        this.render();
      },
      said: (message) => this.heard(message.room, message.seat, message.phrase),
      // a challenge to answer, or an answer to one's own: at once, even in a tab the browser
      // has hidden for long (its timers, the inbox's reading among them, run once a minute)
      nudge: (about) => {
        if (about === "challenges") void this.challenges.read();
      },
    });
    window.matchMedia?.(WIDE_QUERY).addEventListener?.("change", () => this.render());
    window.addEventListener("popstate", () => this.enterRoute(parseRoute(location.pathname, location.search)));
    document.addEventListener("keydown", (event) => this.onKey(event));
    document.addEventListener("pointerdown", (event) => {
      // the quick-message menu closes when the player points anywhere else
      if (this.talk.open && !(event.target as Element | null)?.closest?.(".talk")) this.talk.setOpen(false);
      if (this.reporting.menuFor && !(event.target as Element | null)?.closest?.(".seat-menu")) this.reporting.closeMenu();
    });
    setInterval(() => this.tickClock(), 1000);
    let route = parseRoute(location.pathname, location.search);
    const tracker = this.session.tracker;
    if (route.name === "lobby" && tracker && tracker.view?.status !== "finished") {
      route = { name: "room", id: tracker.room };
      history.replaceState(null, "", routePath(route));
    }
    this.session.start();
    this.enterRoute(route);
    this.challenges.start();
  }

  // --- language ------------------------------------------------------------------------------

  applyLang(lang: Lang): void {
    setLang(lang);
    document.documentElement.lang = lang;
    document.documentElement.dir = direction(lang);
    document.title = t("app.title");
  }

  changeLang(lang: Lang): void {
    this.persist.lang = lang;
    this.applyLang(lang);
    this.render();
  }

  // --- routes --------------------------------------------------------------------------------

  navigate(route: Route, replace = false): void {
    const path = routePath(route);
    if (location.pathname + location.search !== path) {
      if (replace) history.replaceState(null, "", path);
      else history.pushState(null, "", path);
    }
    this.enterRoute(route);
  }

  private enterRoute(route: Route): void {
    this.route = route;
    this.pick = null;
    this.knockCard = null;
    if (route.name !== "replay" && this.replay) {
      this.replay.stop();
      this.replay = null;
    }
    switch (route.name) {
      case "lobby":
        // a watcher back in the lobby watches no more (a player's seat waits for them)
        if (this.session.tracker?.view?.seat === null) this.session.unfollow();
        if (this.session.online) this.loadLobby();
        break;
      case "room":
        if (this.session.tracker?.room !== route.id) this.followRoom(route.id, true, route.watch);
        break;
      case "join":
        void this.loadInvite(route.code);
        break;
      case "replay":
        this.replay?.stop();
        this.replay = new ReplayController(route.id, () => this.render(), route.match === true);
        void this.replay.load();
        break;
      case "profile":
        void this.loadProfile(route.handle);
        break;
      case "leaderboard":
        void this.loadLeaderboard();
        break;
      default:
        break;
    }
    this.render();
    const heading = this.root.querySelector<HTMLElement>("h1, h2");
    if (route.name !== "room") heading?.focus({ preventScroll: true });
  }

  /** The profile page's friends list, read (and read again every second) once this browser is
   * known to hold an account: when the profile is loaded, or when `hello` tells the handle if
   * that came later (a page opened with a token whose handle it did not know yet). Once per
   * page. */
  private async startFriends(state: ProfileState): Promise<void> {
    if (state.friendsStarted || this.handle === null || !this.persist.token) return;
    state.friendsStarted = true;
    const friends = await loadFriends(this, this.persist.token);
    if (this.profile === state) state.friends = friends;
    else stopFriends(friends);
  }

  /** Fetch the profile of the route's handle (with this browser's token: a private room's
   * match is listed to its own players). */
  private async loadProfile(handle: string): Promise<void> {
    stopFriends(this.profile?.friends);
    const state: ProfileState = { handle, profile: null, error: null };
    this.profile = state;
    try {
      state.profile = await fetchProfile(handle, this.persist.token);
      state.blocks = await loadBlocks(this.persist.token);
      if (this.profile === state) await this.startFriends(state);
    } catch (error) {
      state.error = error instanceof AccountError ? error.code : "failed";
    }
    if (this.profile === state) this.render();
  }

  /** Fetch the leaderboard, with this browser's token for the player's own place. */
  private async loadLeaderboard(): Promise<void> {
    const state: LeaderboardState = { board: null, error: null };
    this.leaderboard = state;
    try {
      state.board = await fetchLeaderboard(this.persist.token);
    } catch (error) {
      state.error = error instanceof AccountError ? error.code : "failed";
    }
    if (this.leaderboard === state) this.render();
  }

  followRoom(room: string, resume: boolean, watchToken?: string): void {
    this.talk.reset();
    this.pendingResult = null;
    this.closedResult = null;
    this.rematchAsked = false;
    this.busy = false;
    this.session.follow(new RoomTracker(room, -1, null, watchToken ?? null), resume);
  }

  // --- server changes ----------------------------------------------------------------------------

  get view(): RoomView | null {
    const tracker = this.session.tracker;
    if (!tracker || this.route.name !== "room" || tracker.room !== this.route.id) return null;
    return tracker.view;
  }

  private onChange(tracker: RoomTracker, applied: Applied[]): void {
    this.busy = false;
    const view = tracker.view;
    const seat = view?.seat ?? null;
    const motion: Motion = { drawn: null };
    const cue = emptyCue();
    let said = "";
    for (const entry of applied) {
      const live = entry.view !== null;
      for (const event of entry.events) {
        if (event.type === "hand_over" && live) this.pendingResult = event as unknown as HandOver;
        if (!live) continue;
        const mine = event.seat === seat;
        if ((event.type === "draw" || event.type === "take_upcard") && mine && typeof event.card === "string") motion.drawn = event.card;
        said = this.describe(event, view) || said;
      }
      if (live) cueOf(entry.events, cue);
    }
    const game = view?.game;
    if (game && seat !== null && game.turn === seat && ["first_offer", "second_offer", "first_draw", "draw"].includes(game.phase)) {
      said = said ? `${said}. ${t("event.yourTurn")}` : t("event.yourTurn");
    }
    if (said) this.announcement = said;
    this.signals.changed(tracker.room, view, applied, () => this.turnWords(view));
    this.motion = motion;
    if (view && motion.drawn) this.hand.noteDrawn(view, motion.drawn);
    if (view) this.remember(view);
    // a rematch both players asked for: follow the new room
    // ... or the rated quick match that seated this player in the room of the one it paired
    if (view?.next_room && seat !== null && (view.rematch[seat] || this.rematchAsked || this.queued) && this.route.name === "room") {
      const next = view.next_room;
      this.followRoom(next, true);
      this.retryRoom = { room: next, left: 5 };
      this.navigate({ name: "room", id: next }, true);
      return;
    }
    if (view?.status === "playing" || view?.status === "finished") this.queued = false;
    this.cue = cue;
    this.render();
    this.cue = null;
    this.motion = null;
  }

  /** The your-turn notification, in the page's language. */
  private turnWords(view: RoomView | null): TurnWords {
    const lang = getLang();
    const other = view?.seat === null || view?.seat === undefined ? 1 : 1 - view.seat;
    return { title: t("notify.title"), body: t("notify.body", { name: this.seatName(view, other) }), lang, dir: direction(lang) };
  }

  openSettings(): void {
    this.settingsDialog.open();
  }

  /** A sentence for the screen reader's live region about one event. */
  describe(event: GameEvent, view: RoomView | null): string {
    const seatOf = (s: unknown) => (typeof s === "number" ? s : -1);
    const name = (s: unknown) => this.seatName(view, seatOf(s));
    const isMe = (s: unknown) => view !== null && view.seat !== null && seatOf(s) === view.seat;
    const card = typeof event.card === "string" ? cardName(event.card) : "";
    switch (event.type) {
      case "take_upcard":
      case "pass":
      case "discard":
      case "knock":
      case "gin":
        return tSeat(`history.${event.type}`, isMe(event.seat), { name: name(event.seat), card });
      case "draw":
        return tSeat(event.source === "discard" ? "history.draw_discard" : "history.draw_stock", isMe(event.seat), { name: name(event.seat), card });
      case "timeout":
        return tSeat("event.timeout", isMe(event.seat), { name: name(event.seat) });
      case "presence":
        if (event.choice) return t("event.awayChoice", { name: name(event.seat) });
        return t(event.away ? "event.away" : "event.back", { name: name(event.seat) });
      case "stand_in":
        return t("event.standIn", { name: name(event.seat) });
      case "deal":
        return tSeat("event.deal", isMe(event.dealer), { name: name(event.dealer) });
      default:
        return "";
    }
  }

  /** What this browser keeps of a room it plays: the match while it is on (its finished hands
   * are the server's, the lobby's `my_hands`). */
  private remember(view: RoomView): void {
    const seat = view.seat;
    if (seat === null) return;
    if (view.status === "finished") this.persist.forgetMatch(view.room);
    else if (view.status === "playing") {
      const other = view.seats?.[1 - seat];
      this.persist.keepMatch({ room: view.room, mode: view.mode, opponent: other?.name ?? null, opponentAi: other?.ai ?? null, opponentNameId: other?.name_id, since: Date.now() });
    }
  }

  /** The matches of this browser still in play, but for the one the page shows. */
  get otherMatches(): SavedMatch[] {
    const shown = this.route.name === "room" ? this.route.id : null;
    return this.persist.matches.filter((match) => match.room !== shown);
  }

  get matches(): SavedMatch[] {
    return this.persist.matches;
  }


  seatName(view: RoomView | null, seat: number): string {
    if (view && seat === view.seat) return t("table.you");
    const info = view?.seats?.[seat];
    if (!info) return t("table.opponent");
    if (!info.ai && !info.name) return t("table.opponent");
    return seatName(info);
  }

  // --- the account ---------------------------------------------------------------------------

  accountBusy = false;
  profile: ProfileState | null = null;
  leaderboard: LeaderboardState | null = null;

  get handle(): string | null {
    return this.persist.handle;
  }

  /** Run an account request; a refusal is told in the page's language. */
  private async accountStep(step: () => Promise<void>): Promise<void> {
    this.accountBusy = true;
    this.render();
    try {
      await step();
    } catch (error) {
      const code = error instanceof AccountError ? error.code : "failed";
      const key = `account.error.${code}` as MessageKey;
      this.showToast(key in DICTIONARIES.en ? t(key) : t("error.generic", { code }));
    } finally {
      this.accountBusy = false;
      this.render();
    }
  }

  /** Signed in (or claimed): the new token is this browser's; the page starts again with it. */
  private signedIn(reply: SignedIn): void {
    this.persist.token = reply.token;
    this.persist.handle = reply.handle;
    this.persist.device = reply.device;
    this.persist.room = null; // the lobby, not the followed room: its matches in play list it
    // signed in from an invite's page: back to it, to take the seat as the account
    window.location.assign(this.route.name === "join" ? routePath(this.route) : "/");
  }

  private becomeGuest(): void {
    this.persist.token = null;
    this.persist.handle = null;
    this.persist.room = null;
    window.location.assign("/");
  }

  claimAccount(handle: string, password: string | null): Promise<void> {
    return this.accountStep(async () => {
      const token = this.persist.token ?? "";
      this.signedIn(password === null ? await claimWithPasskey(token, handle) : await claimWithPassword(token, handle, password));
    });
  }

  signIn(handle: string | null, password: string | null): Promise<void> {
    return this.accountStep(async () => {
      const device = this.persist.device;
      this.signedIn(handle === null || password === null ? await signInWithPasskey(device) : await signInWithPassword(handle, password, device));
    });
  }

  signOut(everywhere: boolean): Promise<void> {
    return this.accountStep(async () => {
      const token = this.persist.token ?? "";
      await this.challenges.silentWhile(token, () => (everywhere ? signOutEverywhere(token) : signOut(token)));
      this.becomeGuest();
    });
  }

  async deleteAccount(): Promise<void> {
    if (!(await this.ask(t("account.deleteAsk", { handle: this.handle ?? "" }), t("account.deleteYes")))) return;
    await this.accountStep(async () => {
      const token = this.persist.token ?? "";
      await this.challenges.silentWhile(token, () => deleteAccount(token));
      this.becomeGuest();
    });
  }

  // --- requests ------------------------------------------------------------------------------

  private fail(error: unknown): void {
    if (error instanceof RequestError) {
      const key = `error.${error.code}` as MessageKey;
      if (error.code === "rated_cooldown") this.showToast(cooldownText(Number(error.detail.seconds ?? 0)));
      else this.showToast(key in DICTIONARIES.en ? t(key) : t("error.generic", { code: error.code }));
    } else if (error instanceof ConnectionLost) {
      this.showToast(t("error.offline"));
    } else {
      this.showToast(t("error.generic", { code: "client" }));
    }
  }

  showToast(message: string): void {
    this.toast = message;
    if (this.toastTimer !== null) clearTimeout(this.toastTimer);
    this.toastTimer = setTimeout(() => {
      this.toast = null;
      this.render();
    }, 5000);
    this.render();
  }

  /** Ask the page's question; resolves with the answer. */
  ask(text: string, yes: string): Promise<boolean> {
    this.question?.resolve(false);
    return new Promise((resolve) => {
      this.question = { text, yes, resolve };
      this.render();
      this.root.querySelector<HTMLElement>("[data-testid=confirm-no]")?.focus();
    });
  }

  answer(yes: boolean): void {
    const question = this.question;
    this.question = null;
    question?.resolve(yes);
    this.render();
  }

  /** Before another match: when one is in play, ask whether to start another beside it. */
  private async mayStartAnother(): Promise<boolean> {
    const other = this.otherMatches[this.otherMatches.length - 1];
    if (!other) return true;
    const name = matchOpponent(other);
    return this.ask(t("confirm.another", { name }), t("confirm.anotherYes"));
  }

  private onKey(event: KeyboardEvent): void {
    if (this.settingsDialog.isOpen) return; // the dialog's own keys (Escape closes it)
    if (event.key === "Escape") {
      if (this.question) this.answer(false);
      else if (this.reporting.dialog) this.reporting.close();
      else if (this.reporting.menuFor) this.reporting.closeMenu();
      else if (this.talk.open) this.closeTalk();
      else if (this.resultDismissable) this.dismissResult();
      else if (this.pick) this.setPick(null);
      return;
    }
    const replay = this.replay;
    const target = event.target as HTMLElement | null;
    if (this.route.name !== "replay" || !replay || this.question || target?.closest("input, select, textarea")) return;
    if (event.altKey || event.ctrlKey || event.metaKey) return;
    const rtl = direction(getLang()) === "rtl";
    const step: Record<string, number> = { ArrowRight: rtl ? -1 : 1, ArrowLeft: rtl ? 1 : -1 };
    if (event.key in step) replay.go(replay.index + step[event.key]);
    else if (event.key === "Home") replay.go(0);
    else if (event.key === "End") replay.go(replay.frames.length - 1);
    else return;
    event.preventDefault();
  }

  async createRoom(mode: "ai" | "private", level?: string, options: RoomOptions = {}): Promise<void> {
    if (!(await this.mayStartAnother())) return;
    try {
      const pace = mode === "ai" && this.settings.current.fastAi ? { ai_pace: "fast" } : {};
      const result = await this.session.createRoom({ mode, level, ...options, ...pace });
      const room = String(result.room);
      this.followRoom(room, false);
      this.navigate({ name: "room", id: room });
    } catch (error) {
      this.fail(error);
    }
  }

  startTutorial(): Promise<void> {
    return this.createRoom("ai", "easy", { tutorial: true });
  }

  tutorialSkipped(room: string): boolean {
    return this.skippedGuide === room;
  }

  skipTutorial(room: string): void {
    this.skippedGuide = room;
    this.render();
  }

  async quickMatch(rated = false): Promise<void> {
    if (!(await this.mayStartAnother())) return;
    try {
      this.queued = true;
      this.render();
      const result = await this.session.request("quick_match", rated ? { rated: true } : {});
      if (typeof result.room === "string") {
        this.followRoom(result.room, false);
        this.queued = result.queued === true;
        this.navigate({ name: "room", id: result.room });
      }
    } catch (error) {
      this.queued = false;
      this.fail(error);
    }
  }

  async cancelQuickMatch(): Promise<void> {
    try {
      await this.session.request("cancel_quick_match");
    } catch (error) {
      this.fail(error);
    }
    this.queued = false;
    this.session.unfollow();
    this.navigate({ name: "lobby" });
  }

  // --- invites ---------------------------------------------------------------------------------

  /** Read the invite's greeting (invite_info); a player seated there already goes back to it. */
  private async loadInvite(code: string): Promise<void> {
    if (this.invite?.code === code && !this.invite.greeting && !this.invite.error) return; // under way
    const state: InviteState = { code, greeting: null, error: null, busy: false };
    this.invite = state;
    try {
      const greeting = (await this.session.request("invite_info", { invite: code })) as unknown as InviteGreeting;
      if (this.invite !== state) return;
      if (typeof greeting.room === "string") {
        this.followRoom(greeting.room, true);
        this.navigate({ name: "room", id: greeting.room }, true);
        return;
      }
      state.greeting = greeting;
    } catch (error) {
      state.error = error instanceof RequestError ? error.code : error instanceof ConnectionLost ? "offline" : "failed";
    }
    if (this.invite === state) this.render();
  }

  async acceptInvite(name: string): Promise<void> {
    const state = this.invite;
    if (!state || state.busy || this.route.name !== "join") return;
    state.busy = true;
    this.render();
    try {
      const chosen = name.trim();
      // a refused name (bad_name) keeps the visitor on the greeting, to choose another
      if (chosen && chosen !== this.session.name) this.nameTaken(chosen, await this.session.request("set_name", { name: chosen }));
      // the greeting said the terms of a rated match beside the button: its click agrees
      const result = await this.joinAgreeing(state.code, state.greeting?.rated === true);
      if (result === null) {
        // a rated room's terms declined: nobody seated, the greeting stays
        state.busy = false;
        this.render();
        return;
      }
      const room = String(result.room);
      this.invite = null;
      this.followRoom(room, false);
      this.navigate({ name: "room", id: room }, true);
    } catch (error) {
      state.busy = false;
      this.fail(error);
    }
  }

  // --- reports and blocks ------------------------------------------------------------------------

  async sendReport(): Promise<void> {
    if (await this.reporting.send(this.persist.token)) this.showToast(t("report.sent"));
  }

  async blockPlayer(target: ReportTarget): Promise<void> {
    this.reporting.closeMenu();
    if (!(await this.ask(t("report.blockAsk", { name: target.name }), t("report.blockYes")))) return;
    try {
      await blockPlayer(this.persist.token ?? "", target.who);
      this.showToast(t("report.blocked", { name: target.name }));
    } catch (error) {
      const code = error instanceof AccountError ? error.code : "failed";
      const limited = code === "too_many_block_requests" || code === "too_many_blocks";
      this.showToast(t(limited ? "blocks.limited" : "blocks.failed"));
    }
  }

  async befriendPlayer(target: ReportTarget): Promise<void> {
    this.reporting.closeMenu();
    try {
      const reply = await askFriendAt(this.persist.token ?? "", target.who);
      this.showToast(t(reply.status === "friends" ? "friends.isFriend" : "friends.asked"));
    } catch (error) {
      const code = error instanceof AccountError ? error.code : "failed";
      this.showToast(t(FRIEND_AT_TABLE_ERRORS[code] ?? "friends.failed", { name: target.name }));
    }
  }

  /** Join by invite; a rated room is joined only once the player agrees to play it rated
   * (`agreed`, else the server answers `rated_not_agreed` and nobody is seated: then they
   * are asked). Null: they said no. */
  private async joinAgreeing(code: string, agreed: boolean): Promise<Record<string, unknown> | null> {
    try {
      return await this.session.request("join_room", agreed ? { invite: code, rated: true } : { invite: code });
    } catch (error) {
      if (!(error instanceof RequestError) || error.code !== "rated_not_agreed") throw error;
      const target = Number(error.detail.target ?? 100);
      if (!(await this.ask(t("join.ratedAsk", { target }), t("join.ratedYes")))) return null;
      return await this.session.request("join_room", { invite: code, rated: true });
    }
  }

  async leave(): Promise<void> {
    const tracker = this.session.tracker;
    if (!tracker) return;
    if (!(await this.ask(t("table.leaveConfirm"), t("table.leave")))) return;
    try {
      await this.session.request("leave", { room: tracker.room });
      this.persist.forgetMatch(tracker.room);
      this.showToast(t("table.left"));
    } catch (error) {
      this.fail(error);
    }
    this.session.unfollow();
    this.navigate({ name: "lobby" });
  }

  /** The away choice (docs/protocol.md, claim_win and stand_in): `kind` is the request sent. */
  async decideForAway(kind: "claim_win" | "stand_in"): Promise<void> {
    const tracker = this.session.tracker;
    if (!tracker) return;
    try {
      await this.session.request(kind, { room: tracker.room });
    } catch (error) {
      this.fail(error);
    }
  }

  async rematch(): Promise<void> {
    const tracker = this.session.tracker;
    if (!tracker) return;
    this.rematchAsked = true;
    this.render();
    try {
      const result = await this.session.request("rematch", { room: tracker.room });
      if (typeof result.room === "string" && this.session.tracker === tracker) {
        this.followRoom(result.room, true);
        this.navigate({ name: "room", id: result.room }, true);
      }
    } catch (error) {
      this.rematchAsked = false;
      this.fail(error);
    }
  }

  act(action: Action): void {
    if (this.busy) return;
    // a knock or a gin is shown first (its melds and deadwood), and played when confirmed:
    // the same action again (the preview's button, or the same card once more)
    if ((action.kind === "knock" || action.kind === "gin") && action.card && this.knockCard !== action.card) {
      this.knockCard = action.card;
      this.render();
      return;
    }
    this.busy = true;
    this.pick = null;
    this.knockCard = null;
    if (action.kind === "next_hand") this.pendingResult = null;
    this.render();
    this.session.act(action).catch((error: unknown) => {
      this.busy = false;
      if (error instanceof RequestError && error.code === "stale_sequence") {
        void this.session.resume();
        this.render();
        return;
      }
      this.fail(error);
    });
  }

  /** The other player's quick message: beside their seat for a while, and said aloud,
   * unless this browser hides them (the mute). */
  private heard(room: string, seat: number, phrase: string): void {
    const view = this.view;
    if (!view || view.room !== room || view.seat === null || seat === view.seat) return;
    if (this.talk.muted || !isQuickMessage(phrase)) return;
    this.announcement = t("talk.said", { name: this.seatName(view, seat), phrase: phraseText(phrase) });
    this.talk.show(seat, phrase);
  }

  /** Close the quick-message menu, the keyboard back on its button. */
  private closeTalk(): void {
    this.talk.setOpen(false);
    this.root.querySelector<HTMLElement>("[data-key=talk-toggle]")?.focus();
  }

  reviewHand(hand: string): Promise<Record<string, unknown>> {
    return this.session.request("review_hand", { hand });
  }

  say(phrase: QuickMessage): void {
    const view = this.view;
    if (!view || view.seat === null) return;
    const seat = view.seat;
    this.closeTalk();
    this.session.request("say", { room: view.room, phrase }).then(
      () => {
        if (this.view?.room === view.room) this.talk.show(seat, phrase);
      },
      (error: unknown) => this.fail(error),
    );
  }

  /** The result of a hand the other seat dealt on from already, or the result a watcher
   * looks at (the players deal the next hand): it may be closed. */
  private get resultDismissable(): boolean {
    const view = this.view;
    const game = view?.game;
    if (!view || !game) return false;
    if (view.seat === null && game.phase === "hand_over" && game.last_hand) return !this.resultClosed(game.last_hand.hand);
    return this.pendingResult !== null && this.pendingResult.hand < game.hand;
  }

  resultClosed(hand: number): boolean {
    return this.view !== null && this.closedResult === `${this.view.room}-${hand}`;
  }

  dismissResult(): void {
    const view = this.view;
    const shown = view?.game?.phase === "hand_over" ? view.game.last_hand : null;
    if (view && shown) this.closedResult = `${view.room}-${shown.hand}`;
    // a player's result of a hand the other dealt on from: a turn of theirs waited for it
    const read = this.pendingResult;
    if (view && read && view.seat !== null && view.results_open?.[view.seat]) {
      this.session.request("close_result", { room: view.room, hand: read.hand }).catch((error: unknown) => this.fail(error));
    }
    this.pendingResult = null;
    this.render();
    this.root.querySelector<HTMLElement>("[data-autofocus]")?.focus();
  }

  reopenResult(): void {
    this.closedResult = null;
    this.render();
  }

  playedForSeen(key: string): number {
    return this.playedForTold.get(key) ?? 0;
  }

  seePlayedFor(key: string, count: number): void {
    this.playedForTold.set(key, count);
    this.render();
  }

  setPick(mode: PickMode): void {
    this.pick = mode;
    this.knockCard = null;
    this.render();
  }

  /** The name the server answered ``set_name`` with is the session's and this browser's. */
  private nameTaken(asked: string, result: Record<string, unknown>): void {
    this.session.name = String(result.name ?? asked);
    this.session.setNameId(result);
    this.persist.name = this.session.name;
  }

  async setName(name: string): Promise<void> {
    const clean = name.trim();
    if (!clean) return;
    try {
      this.nameTaken(clean, await this.session.request("set_name", { name: clean }));
      this.render();
    } catch (error) {
      this.fail(error);
    }
  }

  loadLobby(): void {
    this.session.request("lobby").then(
      (result) => {
        this.lobbyHands = Array.isArray(result.recent_hands) ? (result.recent_hands as LobbyHand[]) : [];
        this.myHands = Array.isArray(result.my_hands) ? (result.my_hands as LobbyHand[]) : [];
        this.addServerMatches(result.my_rooms);
        this.liveRooms = Array.isArray(result.live) ? (result.live as LiveRoom[]) : [];
        this.liveLoaded = Date.now();
        this.render();
      },
      (error: unknown) => this.fail(error),
    );
    this.session.request("stats").then(
      (result) => {
        this.stats = result as Stats;
        this.persist.stats = this.stats;
        this.render();
      },
      (error: unknown) => this.fail(error),
    );
  }

  /** The rooms in play that the server knows of this player (signed in on another device
   * too) join this browser's matches, so the lobby offers each one. */
  private addServerMatches(rooms: unknown): void {
    if (!Array.isArray(rooms)) return;
    const known = new Set(this.persist.matches.map((match) => match.room));
    const added: SavedMatch[] = [];
    for (const item of rooms as { room?: unknown; kind?: unknown }[]) {
      if (typeof item?.room !== "string" || known.has(item.room)) continue;
      added.push({ room: item.room, mode: item.kind === "ai" ? "ai" : "private", opponent: null, opponentAi: null, since: Date.now() });
    }
    if (added.length > 0) this.persist.matches = [...this.persist.matches, ...added];
  }

  /** Read "Live now" again (GET /api/live); the lobby is drawn again only when it changed. */
  private async refreshLive(): Promise<void> {
    this.liveLoaded = Date.now();
    try {
      const response = await fetch("/api/live");
      if (!response.ok) return;
      const body = (await response.json()) as { rooms?: unknown };
      const rooms = Array.isArray(body.rooms) ? (body.rooms as LiveRoom[]) : [];
      if (JSON.stringify(rooms) === JSON.stringify(this.liveRooms)) return;
      this.liveRooms = rooms;
      if (this.route.name === "lobby") this.render();
    } catch {
      // offline: the next tick tries again
    }
  }

  async copy(text: string): Promise<void> {
    try {
      await navigator.clipboard.writeText(text);
      this.copied = text;
      window.clearTimeout(this.copiedTimer);
      this.copiedTimer = window.setTimeout(() => {
        this.copied = null;
        this.render();
      }, COPIED_SHOWN_MS);
    } catch {
      // no clipboard (insecure origin, refused): select the text for a manual copy
      const input = this.root.querySelector<HTMLInputElement>("input[data-copy]");
      input?.select();
      this.copied = null;
    }
    this.render();
  }

  // --- rendering -------------------------------------------------------------------------------

  private tickClock(): void {
    if (this.route.name === "lobby" && this.session.online && Date.now() - this.liveLoaded >= LIVE_REFRESH_MS) {
      void this.refreshLive();
    }
    const clock = this.root.querySelector<HTMLElement>("[data-clock]");
    const deadline = this.view?.turn_deadline;
    if (clock && deadline) {
      const left = Math.max(0, Math.ceil(deadline - Date.now() / 1000));
      clock.textContent = t("table.clock", { n: left });
    }
    for (const left of this.root.querySelectorAll<HTMLElement>("[data-challenge-until]")) {
      const seconds = Math.max(0, Math.ceil((Number(left.dataset.challengeUntil) - Date.now()) / 1000));
      left.textContent = t("challenge.left", { n: seconds });
    }
    const countdown = this.root.querySelector<HTMLElement>("[data-testid=away-countdown]");
    if (countdown) {
      const until = Number(countdown.dataset.until);
      const left = until - Date.now() / 1000;
      countdown.textContent = t("away.countdown", { name: countdown.dataset.name ?? "", time: minutesSeconds(left) });
    }
  }

  /** "● Your turn — Gin Rummy" while the match waits for the player's move. */
  private showTurnInTitle(): void {
    const challenge = this.challenges.received[0];
    const title = challenge
      ? t("title.challenge", { name: challenge.from.handle, title: t("app.title") })
      : playerToAct(this.view)
        ? t("title.yourTurn", { title: t("app.title") })
        : t("app.title");
    if (document.title !== title) document.title = title;
  }

  /** Keep the keyboard where it was; when that control is gone or idle now, go to the
   * control the page offers next (data-autofocus: the stock, a card, "Next hand"...). */
  private restoreFocus(focusKey: string | undefined, lost: boolean): void {
    const next = this.root.querySelector<HTMLElement>("[data-autofocus]");
    if (focusKey) {
      const again = this.root.querySelector<HTMLElement>(`[data-key="${CSS.escape(focusKey)}"]`);
      if (again && (again.getAttribute("aria-disabled") !== "true" || !next)) {
        again.focus({ preventScroll: true });
        return;
      }
    }
    if (lost && next && this.route.name === "room") next.focus({ preventScroll: true });
  }

  /** An overlay that has just appeared takes the keyboard (its first button, else its title). */
  private focusOverlay(): void {
    const overlay = this.root.querySelector<HTMLElement>("[data-overlay]");
    const key = overlay?.dataset.overlay ?? null;
    if (overlay && key !== this.overlayShown) {
      const target = overlay.querySelector<HTMLElement>("[data-autofocus]") ?? overlay.querySelector<HTMLElement>("h2");
      target?.focus({ preventScroll: true });
    }
    this.overlayShown = key;
  }

  /** A report dialog that has just opened takes the keyboard (its title). */
  private focusReportDialog(): void {
    const dialog = this.reporting.dialog;
    if (dialog && dialog !== this.reportFocused) this.root.querySelector<HTMLElement>("#report-title")?.focus({ preventScroll: true });
    this.reportFocused = dialog;
  }

  render(): void {
    const before = this.cue ? capture(this.root) : null;
    const active = document.activeElement as HTMLElement | null;
    const focusKey = active && this.root.contains(active) ? active.dataset.key : undefined;
    const hadFocus = Boolean(active && this.root.contains(active) && active !== this.root);
    // what the player was typing survives the re-render (a field left as it was drawn takes
    // its new value: the name the server gave, once hello is answered)
    const typed = new Map<string, string>();
    for (const input of this.root.querySelectorAll<HTMLInputElement>("input[data-key]:not([readonly])")) {
      if (input.value !== input.defaultValue) typed.set(input.dataset.key ?? "", input.value);
    }
    clear(this.root);
    this.showTurnInTitle();
    this.root.append(renderHeader(this, renderChallengeChip(this.challenges)));
    const challenges = renderChallengeBanner(this.challenges, this.route.name === "room");
    if (challenges) this.root.append(challenges);
    const main = h("main", { id: "main", class: `page page-${this.route.name}`, tabindex: "-1" });
    switch (this.route.name) {
      case "lobby":
        main.append(renderLobby(this, this.roomOptions));
        break;
      case "room":
        main.append(renderTable(this));
        break;
      case "join":
        main.append(renderInvite(this, this.invite));
        break;
      case "replay":
        if (this.replay) main.append(renderReplay(this, this.replay));
        break;
      case "rules":
        main.append(renderRules(getLang(), () => void this.startTutorial()));
        break;
      case "profile":
        main.append(renderProfile(this, this.profile));
        break;
      case "leaderboard":
        main.append(renderLeaderboard(this, this.leaderboard));
        break;
    }
    this.root.append(main);
    this.root.append(h("div", { class: "sr-only", role: "status", "aria-live": "polite", "data-testid": "announce" }, this.announcement));
    if (this.toast) this.root.append(h("div", { class: "toast", role: "alert" }, this.toast));
    const reportDialog = renderReportDialog(this);
    if (reportDialog) this.root.append(reportDialog);
    if (this.question) this.root.append(renderQuestion(this, this.question));
    for (const input of this.root.querySelectorAll<HTMLInputElement>("input[data-key]:not([readonly])")) {
      const value = typed.get(input.dataset.key ?? "");
      if (value !== undefined) input.value = value;
    }
    this.restoreFocus(focusKey, hadFocus || active === document.body || active === null);
    this.focusOverlay();
    this.focusReportDialog();
    if (this.cue) play(this.root, before, this.cue, this.view?.seat ?? null);
  }
}
