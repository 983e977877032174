// The settings panel's content (the dialog around it is settings-dialog.ts): sound, colours,
// cards, motion, help and notifications, the AI's pace, each a native control with its label.

import { h, type Child } from "../dom";
import { t, type MessageKey } from "../i18n";
import { CARD_SIZES, type Device, type Settings } from "../settings";
import type { NoticePermission } from "../turn-notice";

export interface SettingsPanelModel {
  readonly settings: Readonly<Settings>;
  readonly device: Device;
  readonly soundSupported: boolean;
  readonly notifications: NoticePermission;
  /** The browser refused the permission when the player last asked. */
  readonly notificationsRefused: boolean;
  change(change: Partial<Settings>): void;
  close(): void;
}

function checkbox(key: string, label: MessageKey, checked: boolean, onChange: (on: boolean) => void, options: { disabled?: boolean; hint?: Child } = {}): HTMLElement {
  const hintId = options.hint ? `setting-${key}-hint` : undefined;
  return h(
    "div",
    { class: "setting" },
    h(
      "label",
      { class: "choice" },
      h("input", {
        type: "checkbox",
        "data-key": `setting-${key}`,
        "data-testid": `setting-${key}`,
        checked,
        disabled: options.disabled,
        "aria-describedby": hintId,
        onchange: (event: Event) => onChange((event.target as HTMLInputElement).checked),
      }),
      h("span", null, t(label)),
    ),
    options.hint ? h("p", { class: "hint", id: hintId }, options.hint) : null,
  );
}

function radios<T extends string>(key: string, legend: MessageKey, values: readonly T[], current: T, label: (value: T) => string, onChange: (value: T) => void): HTMLElement {
  return h(
    "fieldset",
    { class: "radio-group", "data-testid": `setting-${key}` },
    h("legend", null, t(legend)),
    h(
      "div",
      { class: "radios" },
      values.map((value) =>
        h(
          "label",
          { class: "choice" },
          h("input", {
            type: "radio",
            name: `setting-${key}`,
            value,
            checked: value === current,
            "data-key": `setting-${key}-${value}`,
            "data-testid": `setting-${key}-${value}`,
            onchange: () => onChange(value),
          }),
          h("span", null, label(value)),
        ),
      ),
    ),
  );
}

function notificationHint(model: SettingsPanelModel): Child {
  if (model.notifications === "unsupported") return h("span", { class: "warn" }, t("settings.notifyUnsupported"));
  if (model.notifications === "denied" || model.notificationsRefused) return h("span", { class: "warn", "data-testid": "notify-blocked" }, t("settings.notifyBlocked"));
  return t("settings.notifyHint");
}

export function renderSettingsPanel(model: SettingsPanelModel): HTMLElement {
  const { settings, device } = model;
  const themeChoice = settings.theme ?? "auto";
  const blocked = model.notifications === "unsupported" || model.notifications === "denied";
  const motionForced = device.reducedMotion;
  return h(
    "form",
    { method: "dialog", onsubmit: (event: Event) => event.preventDefault() },
    h("h2", { id: "settings-title" }, t("settings.title")),
    h(
      "fieldset",
      null,
      h("legend", null, t("settings.sound")),
      checkbox("sound", "settings.soundOn", settings.sound, (on) => model.change({ sound: on }), {
        disabled: !model.soundSupported,
        hint: model.soundSupported ? t("settings.soundHint") : t("settings.soundUnsupported"),
      }),
    ),
    radios("theme", "settings.theme", ["auto", "light", "dark"] as const, themeChoice, (value) => t(`settings.theme.${value}`), (value) =>
      model.change({ theme: value === "auto" ? null : value }),
    ),
    h(
      "fieldset",
      null,
      h("legend", null, t("settings.cards")),
      checkbox("deck", "settings.fourColour", settings.deck === "four", (on) => model.change({ deck: on ? "four" : "two" }), {
        hint: t("settings.fourColourHint"),
      }),
    ),
    radios("card-size", "settings.cardSize", CARD_SIZES, settings.cardSize, (value) => t(`settings.cardSize.${value}`), (value) => model.change({ cardSize: value })),
    h(
      "fieldset",
      null,
      h("legend", null, t("settings.comfort")),
      checkbox("motion", "settings.reduceMotion", motionForced || settings.motion === "reduced", (on) => model.change({ motion: on ? "reduced" : "full" }), {
        disabled: motionForced,
        hint: motionForced ? t("settings.motionDevice") : t("settings.motionHint"),
      }),
      checkbox("hints", "settings.hints", settings.hints, (on) => model.change({ hints: on }), { hint: t("settings.hintsHint") }),
      checkbox("notifications", "settings.notify", settings.notifications && !blocked, (on) => model.change({ notifications: on }), {
        disabled: blocked,
        hint: notificationHint(model),
      }),
    ),
    h(
      "fieldset",
      null,
      h("legend", null, t("settings.againstAi")),
      checkbox("fast-ai", "settings.fastAi", settings.fastAi, (on) => model.change({ fastAi: on }), { hint: t("settings.fastAiHint") }),
    ),
    h(
      "p",
      { class: "close-row" },
      h("button", { type: "button", class: "primary", "data-key": "settings-close", "data-testid": "settings-close", onclick: () => model.close() }, t("settings.close")),
    ),
  );
}
