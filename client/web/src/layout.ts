// Which layout the page is in: the wide one (the history as a side panel beside the table)
// from 1000 px, and from 720 px on a screen held sideways at least 500 px tall (a tablet in
// landscape; not a phone turned on its side); the narrow one (everything in one column, the
// history folded) otherwise. styles/layout.css uses the same query.

export const WIDE_QUERY = "(min-width: 1000px), (min-width: 720px) and (orientation: landscape) and (min-height: 500px)";

export function wideLayout(): boolean {
  return window.matchMedia?.(WIDE_QUERY).matches ?? true;
}
