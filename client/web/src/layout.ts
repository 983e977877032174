// Which layout the page is in: the wide one (the history as a side panel beside the table)
// from 1000 px, the narrow one (everything in one column, the history folded) below.
// styles/layout.css uses the same width.

export const WIDE_QUERY = "(min-width: 1000px)";

export function wideLayout(): boolean {
  return window.matchMedia?.(WIDE_QUERY).matches ?? true;
}
