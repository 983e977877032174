"""The soak's printed rows and totals."""

from __future__ import annotations

from dataclasses import dataclass

from bench.soak.counts import Totals, median, percentile

MIB = 1024 * 1024
#: The window over which the servers' RSS growth is judged (s), and its limit.
GROWTH_WINDOW = 30 * 60
GROWTH_LIMIT = 2 * MIB


@dataclass
class Row:
    at: float
    rss: dict[str, int]
    fds: dict[str, int]
    used_memory: int
    keys: int
    acts: int
    p50: float
    p99: float
    moves: int
    matches: int


def header(names: list[str]) -> str:
    rss = "".join(f"{'RSS ' + name:>16}" for name in names)
    fds = "".join(f"{'fds ' + name[-1]:>7}" for name in names if name.startswith("server"))
    return (
        f"{'min':>6}{rss}{fds}{'redis used':>12}{'keys':>8}{'acts':>7}{'p50 ms':>8}{'p99 ms':>8}"
        f"{'moves':>9}{'matches':>8}"
    )


def render_row(row: Row) -> str:
    rss = "".join(f"{value / MIB:>12.1f} MiB" for value in row.rss.values())
    fds = "".join(f"{value:>7}" for name, value in row.fds.items() if name.startswith("server"))
    return (
        f"{row.at / 60:>6.1f}{rss}{fds}{row.used_memory / MIB:>8.1f} MiB{row.keys:>8}"
        f"{row.acts:>7}{row.p50 * 1000:>8.1f}{row.p99 * 1000:>8.1f}{row.moves:>9}{row.matches:>8}"
    )


def make_row(
    at: float, rss: dict[str, int], fds: dict[str, int], memory: tuple[int, int], totals: Totals
) -> Row:
    latencies = totals.take_latencies()
    return Row(
        at,
        rss,
        fds,
        memory[0],
        memory[1],
        len(latencies),
        median(latencies),
        percentile(latencies, 0.99),
        totals.moves,
        totals.matches,
    )


def growth(rows: list[Row], window: float = GROWTH_WINDOW) -> tuple[float, dict[str, int]]:
    """The servers' RSS growth over the last ``window`` seconds of ``rows`` (the last half
    when the run is shorter than twice the window): (the window's length, growth by name)."""
    if len(rows) < 2:
        return 0.0, {}
    end = rows[-1].at
    span = window if end >= 2 * window else end / 2
    start = next(row for row in rows if row.at >= end - span)
    names = [name for name in rows[-1].rss if name.startswith("server")]
    return end - start.at, {name: rows[-1].rss[name] - start.rss[name] for name in names}


def render_totals(totals: Totals, minutes: float) -> list[str]:
    errors = ", ".join(f"{code} {n}" for code, n in totals.errors.most_common()) or "none"
    return [
        f"in {minutes:.1f} min: {totals.matches} matches, {totals.moves} moves "
        f"({totals.moves / max(1e-9, minutes * 60):.1f}/s), {totals.watched_rooms} rooms watched",
        f"errors by code: {errors}",
        f"stalls: {totals.stalls}; sequence gaps: {totals.gaps}; snapshots over unseen numbers: "
        f"{totals.jumps}",
        f"drops: {totals.drops}; reconnects: {totals.reconnects}, resumed exactly: "
        f"{totals.resumed_exactly}; requests lost with a drop (asked again): "
        f"{totals.lost_requests}",
        f"stale_sequence (a race the player resolves by looking again; not errors): "
        f"{totals.stale_after_reconnect} on the view of before a drop, {totals.stale_races} "
        f"after another change (a seat's presence)",
    ]
