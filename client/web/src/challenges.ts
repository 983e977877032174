// Challenges as every page sees them (docs/protocol.md "Challenges"): the inbox of a signed-in
// account holder, read from /api/challenges every second on whatever page is shown (lobby,
// table, replay, profile), so a challenge shows at once, and the outcome of one's own
// challenges: an accepted one takes the sender's page to the new table, a declined or expired
// one is said. When the tab is hidden a new challenge is also a browser notification, only if
// the player allowed them (the page never asks on its own: the profile's button does).
// The views draw it (views/challenges.ts); the requests are account.ts's.

import { AccountError, acceptChallenge, cancelChallenge, declineChallenge, fetchChallenges, fetchChallengeWho, sendChallenge, setChallengeWho, type ChallengeLists, type ChallengeWho, type ReceivedChallenge, type SentChallenge } from "./account";

/** The inbox is read this often (ms) while signed in. */
export const CHALLENGES_POLL_MS = 1000;

export interface ChallengeHost {
  /** The account's token, or null (a guest, or signed out: nothing is read). */
  token(): string | null;
  changed(): void;
  /** An accepted challenge's room: the page goes to its table. */
  openRoom(room: string): void;
  /** A new challenge while the tab is hidden (a notification, where allowed). */
  notify(challenge: ReceivedChallenge): void;
}

/** Refusals of the token itself: reading again would only be refused again. */
const REFUSED = new Set(["bad_token", "not_authenticated", "signed_out", "account_required", "banned"]);

/** What the page shows of one's own challenges: waiting, or an outcome not closed yet. */
function shownSent(entry: SentChallenge): boolean {
  return entry.state === "open" || entry.state === "declined" || entry.state === "expired" || entry.state === "failed";
}

export class ChallengeInbox {
  received: ReceivedChallenge[] = [];
  sent: SentChallenge[] = [];
  /** Who may challenge the player (their profile's setting), once read. */
  who: ChallengeWho | null = null;
  busy = false;
  /** The last refusal of a request of the player's (its code), and the handle it was about. */
  error: string | null = null;
  errorFor: string | null = null;
  /** The handle just challenged (the profile says it was sent). */
  sentTo: string | null = null;
  /** Local time (ms) each open challenge runs out, from the server's seconds left. */
  readonly until = new Map<string, number>();
  private readonly closed = new Set<string>();
  /** The received challenges the player put off ("Later", at the table): drawn as a small
   * button in the page's header instead of the banner, until they are gone or one more comes. */
  private readonly putOff = new Set<string>();
  private readonly known = new Set<string>();
  private readonly opened = new Set<string>();
  /** The reading under way, if any. */
  private reading: Promise<void> | null = null;
  /** A reading was asked for while one was under way (a nudge): read again once it ends. */
  private again = false;
  private first = true;
  private lastToken: string | null = null;
  /** A token the server refused (signed out, not an account): not read again. */
  private refused: string | null = null;

  constructor(private readonly host: ChallengeHost) {}

  start(): void {
    window.setInterval(() => void this.read(), CHALLENGES_POLL_MS);
    void this.read();
  }

  /** The challenges to show: those received, and one's own that wait or were answered. */
  get shownSent(): SentChallenge[] {
    return this.sent.filter((entry) => shownSent(entry) && !this.closed.has(entry.id));
  }

  /** The received challenges the banner shows: those not put off. */
  get shownReceived(): ReceivedChallenge[] {
    return this.received.filter((entry) => !this.putOff.has(entry.id));
  }

  /** How many received challenges wait put off (the header's button says it). */
  get waitingPutOff(): number {
    return this.received.filter((entry) => this.putOff.has(entry.id)).length;
  }

  /** The player chose "Later": the challenges received so far leave the banner. */
  putAway(): void {
    for (const entry of this.received) this.putOff.add(entry.id);
    this.host.changed();
  }

  /** The player asked for the challenges put off: the banner shows them again. */
  bringBack(): void {
    this.putOff.clear();
    this.host.changed();
  }

  async read(): Promise<void> {
    const token = this.host.token();
    if (token !== this.lastToken) {
      this.lastToken = token;
      this.first = true;
      this.who = null;
      this.clear();
    }
    if (!token || token === this.refused) return;
    if (this.reading) {
      this.again = true; // what that reading read may be older than the change
      return;
    }
    this.reading = this.readWith(token);
    try {
      await this.reading;
    } finally {
      this.reading = null;
      if (this.again) {
        this.again = false;
        void this.read();
      }
    }
  }

  /** Run `step` (signing out, deleting the account) with the inbox silent under `token`: the
   * reading under way ends first and none starts, so no reading reaches the server after the
   * token is gone (the browser would log its refusal). If `step` fails, reading goes on. */
  async silentWhile<T>(token: string, step: () => Promise<T>): Promise<T> {
    const before = this.refused;
    this.refused = token;
    try {
      while (this.reading) await this.reading;
      return await step();
    } catch (error) {
      this.refused = before;
      throw error;
    }
  }

  private async readWith(token: string): Promise<void> {
    let lists: ChallengeLists;
    try {
      lists = await fetchChallenges(token);
      if (this.who === null) this.who = (await fetchChallengeWho(token)).who;
    } catch (error) {
      if (error instanceof AccountError && REFUSED.has(error.code)) this.refused = token;
      return; // else read again in a second
    }
    if (token !== this.host.token()) return;
    this.apply(lists);
  }

  private clear(): void {
    this.putOff.clear();
    if (this.received.length || this.sent.length) {
      this.received = [];
      this.sent = [];
      this.host.changed();
    }
  }

  private apply(lists: ChallengeLists): void {
    const before = JSON.stringify([this.received.map((c) => c.id), this.sent.map((c) => [c.id, c.state])]);
    const now = Date.now();
    for (const entry of [...lists.received, ...lists.sent]) this.until.set(entry.id, now + entry.seconds_left * 1000);
    const fresh = lists.received.filter((entry) => !this.known.has(entry.id));
    this.received = lists.received;
    this.sent = lists.sent;
    if (fresh.length) this.putOff.clear(); // one more came: all of them are said again
    else for (const id of this.putOff) if (!lists.received.some((entry) => entry.id === id)) this.putOff.delete(id);
    for (const entry of lists.received) this.known.add(entry.id);
    const first = this.first;
    this.first = false;
    if (!first) for (const entry of fresh) this.host.notify(entry);
    for (const entry of lists.sent) {
      if (entry.state !== "accepted" || !entry.room || this.opened.has(entry.id)) continue;
      this.opened.add(entry.id);
      // one accepted before this page was opened is not followed again
      if (!first) this.host.openRoom(entry.room);
    }
    const after = JSON.stringify([this.received.map((c) => c.id), this.sent.map((c) => [c.id, c.state])]);
    if (after !== before) this.host.changed();
  }

  private fail(error: unknown, about: string | null): void {
    this.error = error instanceof AccountError ? error.code : "failed";
    this.errorFor = about;
  }

  private async step(about: string | null, run: (token: string) => Promise<void>): Promise<void> {
    const token = this.host.token();
    if (!token || this.busy) return;
    this.busy = true;
    this.error = null;
    this.errorFor = null;
    this.host.changed();
    try {
      await run(token);
    } catch (error) {
      this.fail(error, about);
    }
    this.busy = false;
    await this.read();
    this.host.changed();
  }

  /** Challenge ``handle``; a refusal is said by the profile's form (``fromForm``), else by
   * the banner (the friends list's button). */
  send(handle: string, rated: boolean, turnSeconds: number, target?: number, fromForm = true): Promise<void> {
    this.sentTo = null;
    return this.step(fromForm ? handle : null, async (token) => {
      await sendChallenge(token, handle, rated, turnSeconds, target);
      this.sentTo = handle;
    });
  }

  accept(id: string): Promise<void> {
    return this.step(null, async (token) => {
      const { room } = await acceptChallenge(token, id);
      this.host.openRoom(room);
    });
  }

  decline(id: string): Promise<void> {
    return this.step(null, async (token) => {
      await declineChallenge(token, id);
    });
  }

  cancel(id: string): Promise<void> {
    return this.step(null, async (token) => {
      await cancelChallenge(token, id);
    });
  }

  setWho(who: ChallengeWho): Promise<void> {
    return this.step(null, async (token) => {
      this.who = (await setChallengeWho(token, who)).who;
    });
  }

  /** The player closed an outcome (or the error line). */
  close(id: string | null): void {
    if (id === null) {
      this.error = null;
      this.errorFor = null;
    } else this.closed.add(id);
    this.host.changed();
  }
}
