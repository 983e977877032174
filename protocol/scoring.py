"""Scoring a hand after a knock, and a match to 100 with its optional bonuses."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass
from typing import Any, Literal

from protocol.cards import to_mask
from protocol.melds import (
    HAND_SIZE,
    KNOCK_LIMIT,
    Layoff,
    best_arrangement,
    best_layoffs,
    knocker_arrangement,
)

GIN_BONUS = 25
UNDERCUT_BONUS = 25
GAME_BONUS = 100
BOX_BONUS = 25
MATCH_TARGET = 100

HandKind = Literal["gin", "knock", "undercut"]


@dataclass(frozen=True, slots=True)
class HandResult:
    """The outcome of a knock: who scores how much, and the laid-out hands behind it."""

    kind: HandKind
    winner: Literal["knocker", "defender"]
    points: int
    knocker_deadwood: int
    defender_deadwood: int
    knocker_melds: tuple[tuple[str, ...], ...]
    knocker_deadwood_cards: tuple[str, ...]
    defender_melds: tuple[tuple[str, ...], ...]
    defender_deadwood_cards: tuple[str, ...]
    layoffs: tuple[Layoff, ...]


#: Knocks scored lately: a knock is scored when it is made, and again for every view of the
#: finished hand (its ``hand_over`` event is rebuilt from the state).
_SCORED_CACHE = 1024
_SCORED: dict[tuple[tuple[str, ...], tuple[str, ...]], HandResult] = {}


def score_hand(knocker_cards: Iterable[str], defender_cards: Iterable[str]) -> HandResult:
    """Score a knock from the two 10-card hands left after the knocker's discard."""
    knocker = tuple(knocker_cards)
    defender = tuple(defender_cards)
    key = (knocker, defender)
    try:
        result = _SCORED.get(key)
    except TypeError:  # not cards: ``_score_hand`` says what is wrong
        return _score_hand(knocker, defender)
    if result is None:
        result = _score_hand(knocker, defender)  # raises on a hand that cannot be scored
        if len(_SCORED) >= _SCORED_CACHE:
            _SCORED.clear()
        _SCORED[key] = result
    return result


def _score_hand(knocker: tuple[str, ...], defender: tuple[str, ...]) -> HandResult:
    if to_mask(knocker) & to_mask(defender):
        raise ValueError("the knocker's and the defender's cards overlap")
    if len(knocker) != HAND_SIZE or len(defender) != HAND_SIZE:
        raise ValueError(
            f"a knock is scored on two 10-card hands, got {len(knocker)} and {len(defender)}"
        )
    arrangement = knocker_arrangement(knocker, defender)
    if arrangement.deadwood_points > KNOCK_LIMIT:
        raise ValueError(
            f"cannot knock with {arrangement.deadwood_points} deadwood points "
            f"(the limit is {KNOCK_LIMIT})"
        )
    if arrangement.deadwood_points == 0:
        own = best_arrangement(defender)
        return HandResult(
            kind="gin",
            winner="knocker",
            points=GIN_BONUS + own.deadwood_points,
            knocker_deadwood=0,
            defender_deadwood=own.deadwood_points,
            knocker_melds=arrangement.melds,
            knocker_deadwood_cards=(),
            defender_melds=own.melds,
            defender_deadwood_cards=own.deadwood,
            layoffs=(),
        )
    defence = best_layoffs(arrangement.melds, defender)
    difference = defence.deadwood_points - arrangement.deadwood_points
    knocker_wins = difference > 0
    return HandResult(
        kind="knock" if knocker_wins else "undercut",
        winner="knocker" if knocker_wins else "defender",
        points=difference if knocker_wins else UNDERCUT_BONUS - difference,
        knocker_deadwood=arrangement.deadwood_points,
        defender_deadwood=defence.deadwood_points,
        knocker_melds=arrangement.melds,
        knocker_deadwood_cards=arrangement.deadwood,
        defender_melds=defence.arrangement.melds,
        defender_deadwood_cards=defence.arrangement.deadwood,
        layoffs=defence.layoffs,
    )


LOCKED_VARIANTS = frozenset({"big_gin", "oklahoma", "oklahoma_gin"})


@dataclass(frozen=True, slots=True)
class MatchRules:
    """Match settings. Bonuses are off by default; Big Gin and Oklahoma Gin cannot be enabled."""

    target: int = MATCH_TARGET
    game_bonus: bool = False
    box_bonus: bool = False
    shutout_bonus: bool = False

    def __post_init__(self) -> None:
        if not isinstance(self.target, int) or isinstance(self.target, bool) or self.target < 1:
            raise ValueError(f"match target must be a positive integer, got {self.target!r}")
        for name in ("game_bonus", "box_bonus", "shutout_bonus"):
            if not isinstance(getattr(self, name), bool):
                raise ValueError(f"{name} must be true or false")

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> MatchRules:
        locked = LOCKED_VARIANTS & set(data)
        if locked:
            raise ValueError(f"locked variant cannot be enabled: {', '.join(sorted(locked))}")
        unknown = set(data) - {"target", "game_bonus", "box_bonus", "shutout_bonus"}
        if unknown:
            raise ValueError(f"unknown match rule: {', '.join(sorted(unknown))}")
        return cls(**data)


@dataclass(frozen=True, slots=True)
class MatchTotals:
    """Final match scores per seat, with the bonuses that went into them."""

    winner: int
    points: tuple[int, int]
    game_bonus: tuple[int, int]
    box_bonus: tuple[int, int]
    shutout: bool
    totals: tuple[int, int]


def match_winner(points: Sequence[int], rules: MatchRules = MatchRules()) -> int | None:
    """The seat whose running points reached the target, if any (checked at the end of a hand)."""
    reached = [seat for seat, total in enumerate(points) if total >= rules.target]
    if len(reached) > 1:
        raise ValueError("both seats cannot reach the target: only one seat scores per hand")
    return reached[0] if reached else None


def final_scores(
    hand_winners: Sequence[tuple[int | None, int]], rules: MatchRules = MatchRules()
) -> MatchTotals:
    """Final totals of a finished match from each hand's (winning seat or None, points).

    Game bonus: 100 to the match winner. Box bonus: 25 per hand won, to each seat. Shutout: the
    winner's total (points and bonuses) is doubled when the loser scored no points.
    """
    points = [0, 0]
    hands_won = [0, 0]
    for seat, scored in hand_winners:
        if seat is None:
            continue
        points[seat] += scored
        hands_won[seat] += 1
    winner = match_winner(points, rules)
    if winner is None:
        raise ValueError("the match is not over: no seat has reached the target")
    loser = 1 - winner
    game = [0, 0]
    box = [0, 0]
    if rules.game_bonus:
        game[winner] = GAME_BONUS
    if rules.box_bonus:
        box = [BOX_BONUS * won for won in hands_won]
    totals = [points[seat] + game[seat] + box[seat] for seat in (0, 1)]
    shutout = rules.shutout_bonus and points[loser] == 0
    if shutout:
        totals[winner] *= 2
    return MatchTotals(
        winner=winner,
        points=(points[0], points[1]),
        game_bonus=(game[0], game[1]),
        box_bonus=(box[0], box[1]),
        shutout=shutout,
        totals=(totals[0], totals[1]),
    )
