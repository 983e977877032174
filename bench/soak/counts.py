"""What the soak counts: the totals of the run and the act latencies of each interval."""

from __future__ import annotations

import statistics
from collections import Counter
from dataclasses import dataclass, field


@dataclass
class Totals:
    """Counters of the whole run (the clients add to them)."""

    matches: int = 0
    moves: int = 0
    errors: Counter[str] = field(default_factory=Counter)
    #: Waits of a player for its turn (or a watcher for news) that ran over the stall limit.
    stalls: int = 0
    #: Updates that came with a number past the next one (the session resumed to fill it).
    gaps: int = 0
    #: Snapshots that jumped over numbers the session had not seen (a resume that could not
    #: replay the missing updates).
    jumps: int = 0
    drops: int = 0
    #: Acts refused as ``stale_sequence`` because the player acted on the view it had before
    #: its connection dropped, while the resume's updates were on the way (not an error).
    stale_after_reconnect: int = 0
    #: Other acts refused as ``stale_sequence``: a change came first (a seat's presence
    #: changed when the other person dropped or came back). The player looks again.
    stale_races: int = 0
    #: Requests (a new room) whose answer the drop of the connection lost: asked again.
    lost_requests: int = 0
    reconnects: int = 0
    resumed_exactly: int = 0
    watched_rooms: int = 0
    #: Act latencies (s) since the last row.
    latencies: list[float] = field(default_factory=list)

    def take_latencies(self) -> list[float]:
        taken, self.latencies = self.latencies, []
        return taken

    def faults(self) -> list[str]:
        """What went wrong, in words (empty: nothing)."""
        found = []
        if self.errors:
            found.append(f"{sum(self.errors.values())} errors")
        for name in ("stalls", "gaps", "jumps"):
            if getattr(self, name):
                found.append(f"{getattr(self, name)} {name}")
        if self.resumed_exactly < self.reconnects:
            found.append(f"{self.reconnects - self.resumed_exactly} reconnects not resumed exactly")
        return found


def percentile(values: list[float], share: float) -> float:
    """The ``share`` quantile of ``values`` (nearest rank); 0 when empty."""
    if not values:
        return 0.0
    if len(values) == 1:
        return values[0]
    ranked = sorted(values)
    return ranked[min(len(ranked) - 1, max(0, round(share * len(ranked)) - 1))]


def median(values: list[float]) -> float:
    return statistics.median(values) if values else 0.0
