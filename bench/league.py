"""League between the AI levels and the Simple player: a Glicko-2 rating for each, on one scale.

Run::

    nice -n 10 env PYTHONPATH=. .venv/bin/python -m bench.league --matches 2400 --seed 1 \
        --workers 1 [--write protocol/ai_ratings.py]

Every pair of players (easy, simple, normal, hard: six pairings) plays the same number of
matches to 100, in-process with the real engine, as ``bench.tournament`` plays them: duplicate
pairs (each match seed played twice, the seats swapped), each policy seeing only its seat's
view. ``--matches`` is the total over all pairings, rounded up to whole rating periods.

Ratings: Glicko-2 with the server's own system and parameters (``server/glicko.py``). Everyone
starts where a new player does (1500, RD 500, volatility 0.09). The matches are played in
**rating periods**: in each period every pairing plays ``--period`` duplicate pairs, and each
player's rating is updated once with all its results of the period, against the opponents'
ratings at the period's start (Glickman's paper). After the last period every rating is shifted
by the same amount so that Simple reads 1500: the system's expectations depend only on rating
differences, so the shift changes nothing but the zero point, and it pins the scale to a player
that never changes (a retuned level moves its own rating, not Simple's).

Printed: each player's rating, RD, matches, its match win share against each other player, and
its points per hand (its own, and net of the opponent's). ``--write PATH`` also writes the
levels' ratings, rounded to 10, as the table the lobby shows (``protocol/ai_ratings.py``).
"""

from __future__ import annotations

import argparse
import itertools
import math
import random
import sys
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from multiprocessing import Pool
from pathlib import Path

from bench.tournament import MatchResult, play_pair
from client.ai.policies import POLICIES
from server import glicko

PLAYERS = ("easy", "simple", "normal", "hard")
#: The player whose rating is pinned to the new players' starting rating.
ANCHOR = "simple"
#: Duplicate pairs each pairing plays in one rating period.
PERIOD_PAIRS = 5

#: The first columns of the printed table.
HEADER = ("player", "rating", "RD", "matches")

Job = tuple[int, str, str]
"""(match seed, player A, player B): one duplicate pair of ``bench.tournament.play_pair``."""


@dataclass(slots=True)
class Record:
    """One player's matches in the league."""

    matches: int = 0
    hands: int = 0
    points: int = 0
    conceded: int = 0
    wins: dict[str, int] = field(default_factory=dict)
    played: dict[str, int] = field(default_factory=dict)

    def add(self, opponent: str, won: bool, hands: int, points: int, conceded: int) -> None:
        self.matches += 1
        self.hands += hands
        self.points += points
        self.conceded += conceded
        self.wins[opponent] = self.wins.get(opponent, 0) + won
        self.played[opponent] = self.played.get(opponent, 0) + 1


@dataclass(frozen=True, slots=True)
class Standing:
    player: str
    rating: glicko.Rating
    record: Record


def pairings(players: Sequence[str]) -> list[tuple[str, str]]:
    return list(itertools.combinations(players, 2))


def schedule(players: Sequence[str], matches: int, period: int, seed: int) -> list[list[Job]]:
    """The league's rating periods, each a list of duplicate pairs: every pairing plays
    ``period`` pairs a period, and there are enough periods for ``matches`` matches in all."""
    if period < 1:
        raise ValueError(f"a rating period has at least one pair a pairing, got {period}")
    games = pairings(players)
    per_period = 2 * period * len(games)
    periods = max(1, math.ceil(matches / per_period))
    seeds = random.Random(seed)
    return [
        [(seeds.getrandbits(63), a, b) for a, b in games for _ in range(period)]
        for _ in range(periods)
    ]


def play(periods: list[list[Job]], workers: int) -> list[list[tuple[MatchResult, MatchResult]]]:
    """Every period's pairs played, in the schedule's order."""
    jobs = [job for period in periods for job in period]
    if workers <= 1:
        played = [play_pair(job) for job in jobs]
    else:
        with Pool(workers) as pool:
            played = list(pool.imap(play_pair, jobs, chunksize=1))
    out = []
    start = 0
    for period in periods:
        out.append(played[start : start + len(period)])
        start += len(period)
    return out


def _outcomes(job: Job, pair: tuple[MatchResult, MatchResult]) -> Iterator[tuple[str, str, bool]]:
    """(A, B, A won) for both matches of a pair."""
    _, a, b = job
    for match in pair:
        yield a, b, match.a_won


def rate(
    players: Sequence[str],
    periods: list[list[Job]],
    results: list[list[tuple[MatchResult, MatchResult]]],
) -> dict[str, glicko.Rating]:
    """Glicko-2 over the rating periods, shifted so that ``ANCHOR`` (when playing) is at the
    starting rating."""
    ratings = {player: glicko.initial() for player in players}
    for jobs, pairs in zip(periods, results, strict=True):
        games: dict[str, list[glicko.Result]] = {player: [] for player in players}
        for job, pair in zip(jobs, pairs, strict=True):
            for a, b, a_won in _outcomes(job, pair):
                games[a].append(glicko.Result(ratings[b], 1.0 if a_won else 0.0))
                games[b].append(glicko.Result(ratings[a], 0.0 if a_won else 1.0))
        ratings = {player: glicko.update(ratings[player], games[player]) for player in players}
    if ANCHOR not in ratings:
        return ratings
    shift = glicko.PARAMETERS.initial_rating - ratings[ANCHOR].rating
    return {
        player: glicko.Rating(r.rating + shift, r.rd, r.volatility) for player, r in ratings.items()
    }


def records(
    periods: list[list[Job]], results: list[list[tuple[MatchResult, MatchResult]]]
) -> dict[str, Record]:
    out: dict[str, Record] = {}
    for jobs, pairs in zip(periods, results, strict=True):
        for (_, a, b), pair in zip(jobs, pairs, strict=True):
            for match in pair:
                out.setdefault(a, Record()).add(
                    b, match.a_won, match.hands, match.a.points, match.b.points
                )
                out.setdefault(b, Record()).add(
                    a, not match.a_won, match.hands, match.b.points, match.a.points
                )
    return out


def standings(
    players: Sequence[str],
    periods: list[list[Job]],
    results: list[list[tuple[MatchResult, MatchResult]]],
) -> list[Standing]:
    """The players, strongest first."""
    ratings = rate(players, periods, results)
    played = records(periods, results)
    table = [Standing(player, ratings[player], played[player]) for player in players]
    return sorted(table, key=lambda s: -s.rating.rating)


def report(players: Sequence[str], periods: list[list[Job]], table: Sequence[Standing]) -> str:
    games = pairings(players)
    pairs = sum(len(period) for period in periods)
    per_pairing = 2 * pairs // len(games)
    shift = f", shifted so that {ANCHOR} reads 1500" if ANCHOR in players else ""
    lines = [
        f"League of {', '.join(players)}: {2 * pairs} matches to 100 ({pairs} duplicate pairs; "
        f"{per_pairing} matches a pairing), in {len(periods)} rating "
        f"period{'s' if len(periods) > 1 else ''} of {2 * len(periods[0])} matches",
        "Glicko-2 (server/glicko.py, the server's parameters), everyone from "
        f"{glicko.PARAMETERS.initial_rating:.0f}/{glicko.PARAMETERS.initial_rd:.0f}/"
        f"{glicko.PARAMETERS.initial_volatility}{shift}",
        "",
        f"  {HEADER[0]:<8} {HEADER[1]:>6} {HEADER[2]:>4} {HEADER[3]:>7} "
        + " ".join(f"{'vs ' + p:>9}" for p in players)
        + f" {'pts/hand':>8} {'net/hand':>8}",
    ]
    for row in table:
        record = row.record
        shares = []
        for other in players:
            if other == row.player:
                shares.append(f"{'-':>9}")
            else:
                share = record.wins.get(other, 0) / max(1, record.played.get(other, 0))
                shares.append(f"{100 * share:8.1f}%")
        hands = max(1, record.hands)
        lines.append(
            f"  {row.player:<8} {row.rating.rating:6.0f} {row.rating.rd:4.0f} "
            f"{record.matches:7d} " + " ".join(shares) + f" {record.points / hands:8.2f} "
            f"{(record.points - record.conceded) / hands:+8.2f}"
        )
    lines.append(
        "  (vs X: share of its matches against X that it won; pts/hand: its points per hand "
        "played; net/hand: minus the opponent's)"
    )
    return "\n".join(lines)


def level_table(table: Sequence[Standing]) -> dict[str, int]:
    """The ratings the lobby shows: every player's, rounded to 10."""
    return {row.player: int(round(row.rating.rating, -1)) for row in table}


def table_module(ratings: dict[str, int], command: str) -> str:
    """The source of ``protocol/ai_ratings.py`` for these ratings."""
    ordered = sorted(ratings.items(), key=lambda item: item[1])
    entries = "".join(f'        "{player}": {rating},\n' for player, rating in ordered)
    return (
        'r"""How strong each AI player is: Glicko-2 ratings on the players\' scale (a new player\n'
        'starts at 1500), from the league of ``bench/league.py`` (docs/ratings.md, "How strong '
        'the AI\nlevels are"). ``simple`` is the benchmark baseline, pinned at 1500; the others '
        "are the levels\nthe lobby offers. Written by the league, not by hand::\n\n"
        f"    {command}\n"
        '"""\n\n'
        "from __future__ import annotations\n\n"
        "from collections.abc import Mapping\n"
        "from types import MappingProxyType\n"
        "from typing import Final, get_args\n\n"
        "from protocol.messages import AILevel\n\n"
        "#: Rating of each AI player, rounded to 10.\n"
        "RATINGS: Final[Mapping[str, int]] = MappingProxyType(\n"
        "    {\n"
        f"{entries}"
        "    }\n"
        ")\n\n"
        "#: The ratings of the levels players are offered, as the ``hello`` ack sends them.\n"
        "LEVEL_RATINGS: Final[Mapping[str, int]] = MappingProxyType(\n"
        "    {level: RATINGS[level] for level in get_args(AILevel)}\n"
        ")\n"
    )


def run_league(
    players: Sequence[str], matches: int, period: int, seed: int, workers: int
) -> tuple[str, list[Standing]]:
    """Play the league: its printout and its table, strongest first."""
    periods = schedule(players, matches, period, seed)
    started = time.monotonic()
    results = play(periods, workers)
    elapsed = time.monotonic() - started
    table = standings(players, periods, results)
    worker_word = "worker" if workers <= 1 else "workers"
    text = report(players, periods, table) + f"\n  ({elapsed:.0f} s, {workers} {worker_word})"
    return text, table


def parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--players", nargs="+", choices=sorted(POLICIES), default=list(PLAYERS))
    parser.add_argument("--matches", type=int, default=2400, help="matches in all")
    parser.add_argument(
        "--period", type=int, default=PERIOD_PAIRS, help="duplicate pairs a pairing a period"
    )
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument("--write", type=Path, help="write the ratings table module here")
    return parser


def command(args: argparse.Namespace) -> str:
    """The command that plays this league again and writes the same table (workers aside)."""
    return (
        f"python -m bench.league --players {' '.join(args.players)} \\\n"
        f"        --matches {args.matches} --period {args.period} --seed {args.seed} "
        f"--write {args.write}"
    )


def main(argv: Sequence[str] | None = None) -> int:
    args = parser().parse_args(argv)
    if len(set(args.players)) < 2 or len(set(args.players)) != len(args.players):
        parser().error("a league needs two or more different players")
    text, table = run_league(args.players, args.matches, args.period, args.seed, args.workers)
    print(text)
    if args.write is not None:
        args.write.write_text(table_module(level_table(table), command(args)))
        print(f"  (wrote {args.write})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
