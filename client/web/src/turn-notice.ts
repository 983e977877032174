// The browser notification "your turn", shown only while the tab is hidden, and only when the
// player turned it on in the settings (which is when the browser asks for the permission).

export type NoticePermission = "unsupported" | NotificationPermission;

type NotificationClass = Pick<typeof Notification, "permission" | "requestPermission"> & {
  new (title: string, options?: NotificationOptions): Notification;
};

function browserNotification(): NotificationClass | null {
  return typeof Notification === "undefined" ? null : Notification;
}

export class TurnNotifier {
  private readonly api: NotificationClass | null;
  private shown: Notification | null = null;

  constructor(api: NotificationClass | null = browserNotification()) {
    this.api = api;
    document.addEventListener("visibilitychange", () => {
      if (document.visibilityState === "visible") this.clear();
    });
  }

  get permission(): NoticePermission {
    return this.api ? this.api.permission : "unsupported";
  }

  /** Ask the browser (from the player's click); true when notifications may be shown. */
  async ask(): Promise<boolean> {
    if (!this.api) return false;
    if (this.api.permission === "granted") return true;
    if (this.api.permission === "denied") return false;
    try {
      return (await this.api.requestPermission()) === "granted";
    } catch {
      return false;
    }
  }

  /** Tell a player who is looking at another tab; nothing when this tab is seen. */
  notify(title: string, body: string, lang: string, dir: "ltr" | "rtl", tag = "gin-rummy-turn"): void {
    if (!this.api || this.api.permission !== "granted" || document.visibilityState !== "hidden") return;
    this.clear();
    try {
      const shown = new this.api(title, { body, lang, dir, tag });
      shown.onclick = () => {
        window.focus();
        shown.close();
      };
      this.shown = shown;
    } catch {
      // some browsers allow notifications only from a service worker: the title still tells
    }
  }

  clear(): void {
    this.shown?.close();
    this.shown = null;
  }
}
