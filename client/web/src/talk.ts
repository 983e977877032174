// Quick messages between the two players: the fixed list of phrases and emotes (the same ids
// as protocol/talk.py, checked by test/talk.test.ts), the bubbles shown for a few seconds
// beside a seat, the menu, and the mute (kept in the browser, for every room).

export const PHRASES = ["hello", "good_luck", "well_played", "nice_move", "thanks", "oops", "thinking", "good_game"] as const;
export const EMOTES = ["smile", "laugh", "wow", "sad", "heart"] as const;

export type Phrase = (typeof PHRASES)[number];
export type Emote = (typeof EMOTES)[number];
export type QuickMessage = Phrase | Emote;

/** How long a bubble stays beside its seat. */
export const BUBBLE_MS = 5000;

export function isEmote(id: string): id is Emote {
  return (EMOTES as readonly string[]).includes(id);
}

export function isQuickMessage(id: string): id is QuickMessage {
  return isEmote(id) || (PHRASES as readonly string[]).includes(id);
}

export interface Bubble {
  seat: number;
  phrase: QuickMessage;
  /** Counts the bubbles shown, so that the same phrase twice is drawn (and timed) anew. */
  serial: number;
}

export interface MuteStore {
  talkMuted: boolean;
}

export class Talk {
  open = false;
  private readonly bubbles = new Map<number, Bubble>();
  private readonly timers = new Map<number, ReturnType<typeof setTimeout>>();
  private serial = 0;

  constructor(
    private readonly store: MuteStore,
    private readonly changed: () => void,
    private readonly showMs: number = BUBBLE_MS,
  ) {}

  get muted(): boolean {
    return this.store.talkMuted;
  }

  setMuted(muted: boolean): void {
    this.store.talkMuted = muted;
    if (muted) for (const seat of [...this.bubbles.keys()]) this.hide(seat);
    this.changed();
  }

  setOpen(open: boolean): void {
    if (this.open === open) return;
    this.open = open;
    this.changed();
  }

  bubble(seat: number): Bubble | null {
    return this.bubbles.get(seat) ?? null;
  }

  /** Show `phrase` beside `seat` for a while; false (nothing shown) for an unknown id. */
  show(seat: number, phrase: string): boolean {
    if (!isQuickMessage(phrase)) return false;
    this.serial += 1;
    this.bubbles.set(seat, { seat, phrase, serial: this.serial });
    const timer = this.timers.get(seat);
    if (timer !== undefined) clearTimeout(timer);
    this.timers.set(
      seat,
      setTimeout(() => {
        this.hide(seat);
        this.changed();
      }, this.showMs),
    );
    this.changed();
    return true;
  }

  /** Forget every bubble (another room is shown). */
  reset(): void {
    for (const seat of [...this.bubbles.keys()]) this.hide(seat);
    this.open = false;
  }

  private hide(seat: number): void {
    this.bubbles.delete(seat);
    const timer = this.timers.get(seat);
    if (timer !== undefined) clearTimeout(timer);
    this.timers.delete(seat);
  }
}
