// Reporting and blocking from the page: a small menu beside the opponent's name at the table
// (report, block, and for an account holder a friend request; a person's seat only, to a
// player of the room), a button on a replay and on
// a profile, and the report dialog they open (whom, a reason from the server's short list).

import { REPORT_REASONS } from "../account";
import { h } from "../dom";
import { t } from "../i18n";
import type { RoomView } from "../protocol";
import type { ReportTarget } from "../reporting";
import type { AppActions } from "./actions";
import { bdi } from "./common";

/** The opponent at the table as a report or a block names them (null: nobody to name). */
export function tableTarget(app: AppActions, view: RoomView, seat: number): ReportTarget | null {
  const info = view.seats?.[seat];
  if (view.seat === null || seat === view.seat || !info || info.ai || info.open) return null;
  return { name: app.seatName(view, seat), who: { room: view.room, seat } };
}

/** The "⋯" beside the opponent's name: Report…, Block… and (to an account holder) Add as a
 * friend, folded away until asked for. */
export function renderSeatMenu(app: AppActions, view: RoomView, seat: number): HTMLElement | null {
  const target = tableTarget(app, view, seat);
  if (!target) return null;
  const key = `${view.room}:${seat}`;
  const open = app.reporting.menuFor === key;
  return h(
    "div",
    { class: "seat-menu", "data-testid": "seat-menu" },
    h(
      "button",
      {
        type: "button",
        class: "seat-menu-toggle",
        "data-key": "seat-menu-toggle",
        "data-testid": "seat-menu-toggle",
        "aria-expanded": open ? "true" : "false",
        "aria-controls": "seat-menu-items",
        "aria-label": t("report.menu", { name: target.name }),
        title: t("report.menu", { name: target.name }),
        onclick: () => app.reporting.toggleMenu(key),
      },
      h("span", { "aria-hidden": "true" }, "⋯"),
    ),
    open
      ? h(
          "div",
          { class: "seat-menu-items", id: "seat-menu-items", role: "group", "aria-label": t("report.menu", { name: target.name }) },
          h("button", { type: "button", "data-key": "report-open", "data-testid": "report-open", onclick: () => app.reporting.open([target]) }, t("report.open")),
          h("button", { type: "button", "data-key": "block-open", "data-testid": "block-open", onclick: () => void app.blockPlayer(target) }, t("report.block")),
          app.handle !== null
            ? h("button", { type: "button", "data-key": "friend-at-table", "data-testid": "friend-at-table", onclick: () => void app.befriendPlayer(target) }, t("friends.add"))
            : null,
        )
      : null,
  );
}

/** The report button of a replay or a profile: it opens the dialog for these players. */
export function renderReportButton(app: AppActions, targets: ReportTarget[]): HTMLElement | null {
  if (targets.length === 0) return null;
  const label = targets.length === 1 ? t("report.title", { name: targets[0].name }) : t("report.aPlayer");
  return h("button", { type: "button", class: "link", "data-key": "report-button", "data-testid": "report-button", onclick: () => app.reporting.open(targets) }, label);
}

function errorText(code: string): string {
  if (code === "too_many_reports") return t("report.limited");
  if (code === "not_a_player") return t("report.notYours");
  if (code === "not_found") return t("report.gone");
  return t("report.failed");
}

/** The report dialog over the page (null when closed). */
export function renderReportDialog(app: AppActions): HTMLElement | null {
  const dialog = app.reporting.dialog;
  if (!dialog) return null;
  const target = dialog.targets[dialog.chosen];
  const whom =
    dialog.targets.length > 1
      ? h(
          "fieldset",
          { class: "report-whom", "data-testid": "report-whom" },
          h("legend", null, t("report.whom")),
          dialog.targets.map((option, index) =>
            h(
              "label",
              null,
              h("input", { type: "radio", name: "report-whom", checked: index === dialog.chosen, "data-testid": `report-whom-${index}`, onchange: () => app.reporting.choose(index) }),
              " ",
              bdi(option.name),
            ),
          ),
        )
      : null;
  return h(
    "div",
    { class: "question-backdrop" },
    h(
      "section",
      { class: "question panel report-dialog", role: "dialog", "aria-modal": "true", "aria-labelledby": "report-title", "data-testid": "report-dialog" },
      h("h2", { id: "report-title", tabindex: "-1" }, dialog.targets.length > 1 ? t("report.aPlayer") : t("report.title", { name: target?.name ?? "" })),
      h("p", { class: "hint" }, t("report.hint")),
      whom,
      h(
        "fieldset",
        { class: "report-reasons", "data-testid": "report-reasons" },
        h("legend", null, t("report.why")),
        REPORT_REASONS.map((reason) =>
          h(
            "label",
            null,
            h("input", { type: "radio", name: "report-reason", value: reason, checked: dialog.reason === reason, "data-testid": `report-reason-${reason}`, onchange: () => app.reporting.pick(reason) }),
            " ",
            t(`report.reason.${reason}`),
          ),
        ),
      ),
      dialog.error ? h("p", { class: "error", role: "alert", "data-testid": "report-error" }, errorText(dialog.error)) : null,
      h(
        "div",
        { class: "buttons" },
        h("button", { class: "primary", "data-key": "report-send", "data-testid": "report-send", disabled: dialog.reason === null || dialog.busy, onclick: () => void app.sendReport() }, t("report.send")),
        h("button", { "data-key": "report-cancel", "data-testid": "report-cancel", onclick: () => app.reporting.close() }, t("action.cancel")),
      ),
    ),
  );
}
