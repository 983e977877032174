// Reports and blocks asked for from the page: the table's menu for the opponent (open or
// shut), and the report dialog (whom, why, sending). The views draw it (views/report.ts);
// the requests are the account endpoints' (account.ts).

import { AccountError, sendReport, type PlayerRef, type ReportReason } from "./account";

/** A player a report may name, with the name the page shows for them. */
export interface ReportTarget {
  name: string;
  who: PlayerRef;
}

export interface ReportDialog {
  targets: ReportTarget[];
  /** The index of the target chosen (the only one, or the one picked). */
  chosen: number;
  reason: ReportReason | null;
  busy: boolean;
  /** The last refusal's code, or null. */
  error: string | null;
}

export class Reporting {
  /** The table menu shown open: `room:seat`, or null. */
  menuFor: string | null = null;
  dialog: ReportDialog | null = null;

  constructor(private readonly changed: () => void) {}

  toggleMenu(key: string): void {
    this.menuFor = this.menuFor === key ? null : key;
    this.changed();
  }

  closeMenu(): void {
    if (this.menuFor === null) return;
    this.menuFor = null;
    this.changed();
  }

  open(targets: ReportTarget[]): void {
    if (targets.length === 0) return;
    this.menuFor = null;
    this.dialog = { targets, chosen: 0, reason: null, busy: false, error: null };
    this.changed();
  }

  close(): void {
    this.dialog = null;
    this.changed();
  }

  choose(index: number): void {
    if (this.dialog) this.dialog.chosen = index;
    this.changed();
  }

  pick(reason: ReportReason): void {
    if (this.dialog) this.dialog.reason = reason;
    this.changed();
  }

  /** Send the report; true once the server took it (the dialog closes). */
  async send(token: string | null): Promise<boolean> {
    const dialog = this.dialog;
    const target = dialog?.targets[dialog.chosen];
    if (!dialog || !target || dialog.reason === null || dialog.busy) return false;
    dialog.busy = true;
    dialog.error = null;
    this.changed();
    try {
      await sendReport(token ?? "", target.who, dialog.reason);
      if (this.dialog === dialog) this.dialog = null;
      return true;
    } catch (error) {
      dialog.error = error instanceof AccountError ? error.code : "failed";
      return false;
    } finally {
      dialog.busy = false;
      this.changed();
    }
  }
}
