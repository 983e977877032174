// A finished match told per player: the gins, undercuts and knocks each made, and each one's
// best hand. Counted from the public results of the hands (the view's game.results).

export interface HandPoints {
  kind: string;
  winner: number | null;
  points: number;
}

export interface PlayerSummary {
  gins: number;
  undercuts: number;
  /** Hands this player knocked (a knock that was undercut too; a gin is counted as a gin). */
  knocks: number;
  /** The hand this player won with the most points (1-based), the first of equals. */
  best: { hand: number; kind: string; points: number } | null;
}

export function matchSummary(results: readonly HandPoints[]): [PlayerSummary, PlayerSummary] {
  const summary = (): PlayerSummary => ({ gins: 0, undercuts: 0, knocks: 0, best: null });
  const seats: [PlayerSummary, PlayerSummary] = [summary(), summary()];
  results.forEach((result, index) => {
    const winner = result.winner;
    if (winner !== 0 && winner !== 1 || result.kind === "dead") return;
    const mine = seats[winner];
    if (result.kind === "gin") mine.gins += 1;
    else if (result.kind === "knock") mine.knocks += 1;
    else if (result.kind === "undercut") {
      mine.undercuts += 1;
      seats[1 - winner].knocks += 1;
    }
    if (mine.best === null || result.points > mine.best.points) mine.best = { hand: index + 1, kind: result.kind, points: result.points };
  });
  return seats;
}
