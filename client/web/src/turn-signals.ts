// From each change of the followed room to what the player hears and is told: the sounds of
// the events that just happened (never those replayed by a resume after a reload or a lost
// connection), and once the turn passes to the player, the your-turn chime and, while the tab
// is hidden, a notification.

import { eventCues, playerToAct } from "./cues";
import type { RoomView } from "./protocol";
import type { Applied } from "./room-state";
import type { Settings } from "./settings";
import type { SoundBoard } from "./sounds";
import type { TurnNotifier } from "./turn-notice";

export interface TurnWords {
  title: string;
  body: string;
  lang: string;
  dir: "ltr" | "rtl";
}

export class TurnSignals {
  private readonly settings: () => Readonly<Settings>;
  private readonly sounds: SoundBoard;
  private readonly notifier: TurnNotifier;
  private room: string | null = null;
  private toAct = false;

  constructor(settings: () => Readonly<Settings>, sounds: SoundBoard, notifier: TurnNotifier) {
    this.settings = settings;
    this.sounds = sounds;
    this.notifier = notifier;
  }

  /** What the page already showed before this change (the view saved before a reload). */
  know(room: string, view: RoomView | null): void {
    this.room = room;
    this.toAct = playerToAct(view);
  }

  /** One change of `room`; `words` says the notification in the page's language. */
  changed(room: string, view: RoomView | null, applied: readonly Applied[], words: () => TurnWords): void {
    if (room !== this.room) this.know(room, null);
    const seat = view?.seat ?? null;
    const cues = applied.filter((entry) => !entry.replayed).flatMap((entry) => eventCues(entry.events, seat));
    const toAct = playerToAct(view);
    const turnCame = toAct && !this.toAct;
    this.toAct = toAct;
    const settings = this.settings();
    if (turnCame) {
      cues.push("turn");
      if (settings.notifications) {
        const { title, body, lang, dir } = words();
        this.notifier.notify(title, body, lang, dir);
      }
    } else if (!toAct) {
      this.notifier.clear();
    }
    if (settings.sound && cues.length > 0) this.sounds.play(cues);
  }
}
