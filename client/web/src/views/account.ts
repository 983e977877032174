// The lobby's account panel, beside the player's name: a guest keeps the player (a handle with a
// password or a passkey) or signs in to an account; an account holder signs out (here or
// everywhere) or deletes the account.

import { h } from "../dom";
import { t } from "../i18n";
import type { AppActions } from "./actions";
import { bdi, say } from "./common";

function field(id: string, label: string, attrs: Record<string, string>): [HTMLElement, HTMLInputElement] {
  const input = h("input", { id, "data-testid": id, "data-key": id, ...attrs }) as HTMLInputElement;
  return [h("label", { for: id }, label), input];
}

function signedIn(app: AppActions, handle: string): HTMLElement {
  return h(
    "div",
    { class: "account", "data-testid": "account" },
    h(
      "p",
      { "data-testid": "signed-in-as" },
      say("account.signedInAs", {
        handle: h(
          "a",
          { href: `/@/${encodeURIComponent(handle)}`, "data-testid": "my-profile", title: t("profile.open"), onclick: (event: MouseEvent) => { event.preventDefault(); app.navigate({ name: "profile", handle }); } },
          bdi(handle),
        ),
      }),
    ),
    h(
      "div",
      { class: "buttons" },
      h("button", { "data-testid": "sign-out", "data-key": "sign-out", disabled: app.accountBusy, onclick: () => void app.signOut(false) }, t("account.signout")),
      h("button", { "data-testid": "sign-out-everywhere", "data-key": "sign-out-everywhere", disabled: app.accountBusy, onclick: () => void app.signOut(true) }, t("account.signoutAll")),
      h("button", { class: "danger", "data-testid": "delete-account", "data-key": "delete-account", disabled: app.accountBusy, onclick: () => void app.deleteAccount() }, t("account.delete")),
    ),
  );
}

function guest(app: AppActions): HTMLElement {
  const [handleLabel, handle] = field("claim-handle", t("account.handle"), { maxlength: "20", autocomplete: "username", spellcheck: "false", autocapitalize: "off" });
  const [passwordLabel, password] = field("claim-password", t("account.password"), { type: "password", maxlength: "128", autocomplete: "new-password" });
  return h(
    "div",
    { class: "account", "data-testid": "account" },
    h("p", { class: "hint" }, t("account.guestHint")),
    h(
      "div",
      { class: "account-form", "data-testid": "claim-form" },
      h("h3", { "data-testid": "claim-open" }, t("account.claimTitle")),
      h(
        "form",
        { onsubmit: (event: Event) => { event.preventDefault(); void app.claimAccount(handle.value, password.value); } },
        handleLabel, handle, passwordLabel, password,
        h(
          "div",
          { class: "buttons" },
          h("button", { type: "submit", class: "primary", "data-testid": "claim-password-go", disabled: app.accountBusy }, t("account.claimPassword")),
          h("button", { type: "button", "data-testid": "claim-passkey-go", disabled: app.accountBusy, onclick: () => void app.claimAccount(handle.value, null) }, t("account.claimPasskey")),
        ),
      ),
    ),
    renderSignIn(app),
  );
}

/** The sign-in form (password or passkey): in the account panel, and on an invite's page. */
export function renderSignIn(app: AppActions): HTMLElement {
  const [inLabel, inHandle] = field("signin-handle", t("account.handle"), { maxlength: "20", autocomplete: "username webauthn", spellcheck: "false", autocapitalize: "off" });
  const [inPasswordLabel, inPassword] = field("signin-password", t("account.password"), { type: "password", maxlength: "128", autocomplete: "current-password" });
  return h(
    "div",
    { class: "account-form", "data-testid": "signin-form" },
    h("h3", { "data-testid": "signin-open" }, t("account.signinTitle")),
    h(
      "form",
      { onsubmit: (event: Event) => { event.preventDefault(); void app.signIn(inHandle.value, inPassword.value); } },
      inLabel, inHandle, inPasswordLabel, inPassword,
      h(
        "div",
        { class: "buttons" },
        h("button", { type: "submit", class: "primary", "data-testid": "signin-password-go", disabled: app.accountBusy }, t("account.signin")),
        h("button", { type: "button", "data-testid": "signin-passkey-go", disabled: app.accountBusy, onclick: () => void app.signIn(null, null) }, t("account.signinPasskey")),
      ),
    ),
  );
}

export function renderAccount(app: AppActions): HTMLElement {
  return app.handle === null ? guest(app) : signedIn(app, app.handle);
}
