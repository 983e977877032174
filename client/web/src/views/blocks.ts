// Blocking on a profile page: one's own page lists the players one blocked, each with an
// unblock button; another player's page has a block button (undone there at once). The list
// comes from /api/blocks with this browser's token (docs/protocol.md "Blocking").

import { AccountError, blockHandle, fetchBlocks, unblock, type BlockEntry, type Profile } from "../account";
import { h } from "../dom";
import { t } from "../i18n";
import type { AppActions } from "./actions";
import { bdi } from "./common";

export interface BlocksState {
  token: string;
  /** The asker's block list; null until loaded (or when it could not be). */
  list: BlockEntry[] | null;
  busy: boolean;
  /** The last refusal's code, or null. */
  error: string | null;
}

/** The block list of this browser's player, for the profile page (null: no token). */
export async function loadBlocks(token: string | null): Promise<BlocksState | null> {
  if (!token) return null;
  const state: BlocksState = { token, list: null, busy: false, error: null };
  try {
    state.list = await fetchBlocks(token);
  } catch (error) {
    state.error = error instanceof AccountError ? error.code : "failed";
  }
  return state;
}

async function change(app: AppActions, state: BlocksState, step: () => Promise<unknown>): Promise<void> {
  state.busy = true;
  state.error = null;
  app.render();
  try {
    await step();
    state.list = await fetchBlocks(state.token);
  } catch (error) {
    state.error = error instanceof AccountError ? error.code : "failed";
  }
  state.busy = false;
  app.render();
}

function sameHandle(a: string | null, b: string | null): boolean {
  return a !== null && b !== null && a.toLocaleLowerCase() === b.toLocaleLowerCase();
}

function errorLine(state: BlocksState): HTMLElement | null {
  if (!state.error) return null;
  const limited = state.error === "too_many_block_requests" || state.error === "too_many_blocks";
  return h("p", { class: "error", role: "alert", "data-testid": "blocks-error" }, t(limited ? "blocks.limited" : "blocks.failed"));
}

function ownList(app: AppActions, state: BlocksState): HTMLElement {
  const list = state.list ?? [];
  return h(
    "section",
    { class: "panel", "aria-labelledby": "h-blocks", "data-testid": "profile-blocks" },
    h("h2", { id: "h-blocks" }, t("blocks.title")),
    h("p", { class: "hint" }, t("blocks.hint")),
    list.length
      ? h(
          "ul",
          { class: "block-list", "data-testid": "block-list" },
          list.map((entry) =>
            h(
              "li",
              { "data-testid": "blocked-player" },
              bdi(entry.handle ?? entry.name ?? "?"),
              entry.handle ? "" : ` (${t("blocks.guest")})`,
              " ",
              h("button", { disabled: state.busy, "data-testid": "unblock", onclick: () => void change(app, state, () => unblock(state.token, entry.ref)) }, t("blocks.unblock")),
            ),
          ),
        )
      : h("p", { class: "hint", "data-testid": "blocks-none" }, t("blocks.none")),
    errorLine(state),
  );
}

function otherPlayer(app: AppActions, state: BlocksState, handle: string): HTMLElement {
  const entry = (state.list ?? []).find((item) => sameHandle(item.handle, handle));
  return h(
    "section",
    { class: "panel", "data-testid": "profile-block" },
    entry
      ? [
          h("p", { "data-testid": "blocked-note" }, t("blocks.blocked")),
          h("button", { disabled: state.busy, "data-testid": "unblock", onclick: () => void change(app, state, () => unblock(state.token, entry.ref)) }, t("blocks.unblock")),
        ]
      : [
          h("p", { class: "hint" }, t("blocks.hint")),
          h("button", { disabled: state.busy || state.list === null, "data-testid": "block", onclick: () => void change(app, state, () => blockHandle(state.token, handle)) }, t("blocks.block")),
        ],
    errorLine(state),
  );
}

/** The profile page's blocking section: one's own list, or a block button on another's. */
export function renderBlocks(app: AppActions, profile: Profile, state: BlocksState | null | undefined): HTMLElement | null {
  if (!state) return null;
  if (profile.me) return ownList(app, state);
  return profile.handle ? otherPlayer(app, state, profile.handle) : null;
}
