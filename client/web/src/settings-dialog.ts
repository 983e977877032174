// The settings dialog: a modal <dialog> of its own beside the app's root, so that the game's
// re-renders leave it alone. Escape closes it (the browser's cancel), the keyboard stays in
// it while open, and focus goes back to the header's settings button when it closes.

import { clear, h } from "./dom";
import type { PageSettings } from "./page-settings";
import type { Settings } from "./settings";
import type { SoundBoard } from "./sounds";
import type { TurnNotifier } from "./turn-notice";
import { renderSettingsPanel } from "./views/settings-panel";

const OPENER = '[data-key="settings"]';

export class SettingsDialog {
  private readonly settings: PageSettings;
  private readonly sounds: SoundBoard;
  private readonly notifier: TurnNotifier;
  private dialog: HTMLDialogElement | null = null;
  private refused = false;

  constructor(settings: PageSettings, sounds: SoundBoard, notifier: TurnNotifier) {
    this.settings = settings;
    this.sounds = sounds;
    this.notifier = notifier;
  }

  get isOpen(): boolean {
    return this.dialog?.open ?? false;
  }

  open(): void {
    if (this.isOpen) return;
    const dialog = h("dialog", { class: "settings-dialog", "aria-labelledby": "settings-title", "data-testid": "settings" });
    dialog.addEventListener("close", () => this.closed(dialog));
    document.body.append(dialog);
    this.dialog = dialog;
    this.render();
    dialog.showModal();
    dialog.querySelector<HTMLElement>("input:not(:disabled)")?.focus();
  }

  close(): void {
    this.dialog?.close();
  }

  private closed(dialog: HTMLDialogElement): void {
    dialog.remove();
    if (this.dialog === dialog) this.dialog = null;
    document.querySelector<HTMLElement>(OPENER)?.focus();
  }

  private render(): void {
    const dialog = this.dialog;
    if (!dialog) return;
    const focused = (document.activeElement as HTMLElement | null)?.dataset?.key;
    clear(dialog);
    dialog.append(
      renderSettingsPanel({
        settings: this.settings.current,
        device: this.settings.device,
        soundSupported: this.sounds.supported,
        notifications: this.notifier.permission,
        notificationsRefused: this.refused,
        change: (change) => void this.change(change),
        close: () => this.close(),
      }),
    );
    if (focused) dialog.querySelector<HTMLElement>(`[data-key="${CSS.escape(focused)}"]`)?.focus();
  }

  private async change(change: Partial<Settings>): Promise<void> {
    if (change.sound === true) {
      // the player's click: the one moment a browser lets a page start its audio
      this.sounds.unlock();
      this.sounds.play(["turn"]);
    } else if (change.sound === false) {
      this.sounds.rest();
    }
    if (change.notifications === true) {
      const allowed = await this.notifier.ask();
      this.refused = !allowed;
      if (!allowed) change = { ...change, notifications: false };
    }
    this.settings.update(change);
    this.render();
  }
}
