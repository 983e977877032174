// What a view may read of the app and ask it to do. The app implements it; views import this
// module (types only) and never the app, so the app can import the views without a circle.

import type { HandLayout } from "../hand-layout";
import type { Lang } from "../i18n";
import type { Action, HandOver, LiveRoom, LobbyHand, RoomView } from "../protocol";
import type { Route } from "../routes";
import type { ConnStatus, Session } from "../session";
import type { SavedMatch, Stats } from "../storage";
import type { QuickMessage, Talk } from "../talk";
import type { ReportTarget, Reporting } from "../reporting";
import type { ChallengeInbox } from "../challenges";

export type PickMode = "knock" | "gin" | null;

/** What the last applied change brought to the reader's hand (the card just drawn, marked as
 * new on the next render). The movements themselves are motion.ts's. */
export interface Motion {
  drawn: string | null;
}

/** A yes/no question the page asks before something that cannot be undone. */
export interface Question {
  text: string;
  /** The label of the button that goes ahead (the other one cancels). */
  yes: string;
  resolve(yes: boolean): void;
}

/** A new room's options (create_room): match rules, turn clock, AI stand-in. */
export interface RoomOptions {
  rules?: { target?: number; game_bonus?: boolean; box_bonus?: boolean; shutout_bonus?: boolean };
  turn_seconds?: number;
  stand_in?: boolean;
  /** A rated private room (account holders only: the lobby offers it to them alone). */
  rated?: boolean;
  /** The guided first hand (against the easy AI only): its fixed, friendly deal. */
  tutorial?: boolean;
}

export interface AppActions {
  // --- what a view reads
  readonly route: Route;
  readonly status: ConnStatus;
  readonly session: Pick<Session, "name" | "nameId" | "tracker" | "unfollow" | "defaultTurnSeconds" | "awayGrace" | "aiRatings">;
  /** The followed room's view when the page shows that room, else null. */
  readonly view: RoomView | null;
  readonly pick: PickMode;
  readonly busy: boolean;
  readonly queued: boolean;
  readonly lobbyHands: readonly LobbyHand[] | null;
  /** The lobby's "Live now" (null until read). */
  readonly liveRooms: readonly LiveRoom[] | null;
  readonly stats: Stats | null;
  readonly pendingResult: HandOver | null;
  /** Whether the reader closed this finished hand's result (a watcher, before the next deal). */
  resultClosed(hand: number): boolean;
  readonly motion: Motion | null;
  /** The player's arrangement of their own hand, the card just drawn, the discard hint. */
  readonly hand: HandLayout;
  readonly rematchAsked: boolean;
  /** The text just copied (for a few seconds), or null. */
  readonly copied: string | null;
  /** Whether the move history is unfolded; the table view keeps it as the player leaves it. */
  historyOpen: boolean;
  /** Whether the lobby's room options are unfolded; kept as the player leaves them, so that
   * the lobby's re-renders (its lists refresh) do not fold them under the player's hand. */
  roomOptionsOpen: boolean;
  /** This browser's matches still in play (and those of them the page does not show). */
  readonly matches: readonly SavedMatch[];
  readonly otherMatches: readonly SavedMatch[];
  /** The player's own finished hands, from the server (null: not read yet). */
  readonly myHands: readonly LobbyHand[] | null;
  readonly question: Question | null;
  /** Quick messages: the bubbles beside the seats, the menu, the mute (views/talk.ts). */
  readonly talk: Pick<Talk, "open" | "muted" | "bubble" | "setOpen" | "setMuted">;
  seatName(view: RoomView | null, seat: number): string;
  /** The account this browser is signed in to (null: a guest), and the account form's state. */
  readonly handle: string | null;
  readonly accountBusy: boolean;

  // --- what a view asks for
  render(): void;
  navigate(route: Route, replace?: boolean): void;
  changeLang(lang: Lang): void;
  setName(name: string): Promise<void>;
  claimAccount(handle: string, password: string | null): Promise<void>;
  signIn(handle: string | null, password: string | null): Promise<void>;
  signOut(everywhere: boolean): Promise<void>;
  deleteAccount(): Promise<void>;
  createRoom(mode: "ai" | "private", level?: string, options?: RoomOptions): Promise<void>;
  answer(yes: boolean): void;
  quickMatch(rated?: boolean): Promise<void>;
  cancelQuickMatch(): Promise<void>;
  leave(): Promise<void>;
  rematch(): Promise<void>;
  act(action: Action): void;
  /** How many of a hand's moves made for this player (``room:hand``) they have seen told. */
  playedForSeen(key: string): number;
  seePlayedFor(key: string, count: number): void;
  /** The card of the knock (or gin) being previewed, before it is confirmed; null: none. */
  readonly knockCard: string | null;
  setPick(mode: PickMode): void;
  dismissResult(): void;
  /** Show again the result of the finished hand the reader closed. */
  reopenResult(): void;
  copy(text: string): Promise<void>;
  /** The settings dialog (sound, theme, cards, motion, hints, notifications). */
  openSettings(): void;
  /** The opponent is away past the grace: claim the win, or let an AI play for them. */
  decideForAway(kind: "claim_win" | "stand_in"): Promise<void>;
  /** Send the other player a quick message. */
  say(phrase: QuickMessage): void;
  /** The guided first hand: start one, whether the player skipped the guide of this room. */
  startTutorial(): Promise<void>;
  tutorialSkipped(room: string): boolean;
  skipTutorial(room: string): void;
  /** Ask for the review of a finished hand (review_hand); resolves with where it stands. */
  reviewHand(hand: string): Promise<Record<string, unknown>>;
  /** Reports and blocks (views/report.ts): the table's menu and the report dialog. */
  /** Challenges to and from the player (challenges.ts), on every page. */
  readonly challenges: ChallengeInbox;
  readonly reporting: Pick<Reporting, "menuFor" | "dialog" | "toggleMenu" | "open" | "close" | "choose" | "pick">;
  /** Send the report the dialog holds; block a player (after asking). */
  sendReport(): Promise<void>;
  blockPlayer(target: ReportTarget): Promise<void>;
  /** Ask the opponent at the table to be friends (an account holder asking). */
  befriendPlayer(target: ReportTarget): Promise<void>;
  /** Take the seat of the invite the page shows, under ``name`` when one is given. */
  acceptInvite(name: string): Promise<void>;
}
