"""What a finished rated match means for ratings and abandonment. Pure: no I/O, no clock.

``docs/ratings.md``: a rated match that ends (to the target, or by a forfeit after its first
hand ended) changes both ratings once; a forfeit is a loss for the one who left (they left,
or the other claimed the win while they were away); a match abandoned before its first hand
ended changes no rating. Every forfeit of a rated match in play is an abandonment
(``server.playban``).
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from server.engine.events import Event
from server.glicko import Rating, shown
from server.room import Room

__all__ = [
    "RATED_PREFIX",
    "abandoned_by",
    "paired_elsewhere",
    "rating_scores",
    "seat_rating",
    "with_rated",
    "with_ratings",
]

#: The stat counters of rated matches only: ``rated_matches``, ``rated_wins``... beside the
#: totals (a profile's record tells rated and casual apart: casual = total - rated).
RATED_PREFIX = "rated_"


def seat_rating(rating: Rating) -> dict[str, Any]:
    """A seat's rating as a rated room keeps and shows it (``Room.ratings``)."""
    return {
        "rating": round(rating.rating, 2),
        "rd": round(rating.rd, 2),
        "shown": shown(rating.rating, rating.rd),
    }


def with_rated(counts: dict[str, int], rated: bool) -> dict[str, int]:
    """A finished hand's or match's stat increments, counted again as rated ones if it is."""
    if not rated:
        return counts
    return {**counts, **{RATED_PREFIX + name: amount for name, amount in counts.items()}}


def rating_scores(room: Room) -> tuple[float, float] | None:
    """Each seat's score (1 won, 0 lost) if the finished room's match changes ratings."""
    if not room.rated or room.status != "finished" or room.game is None:
        return None
    winner = room.winner
    if winner is None:
        return None
    if room.forfeit is not None and not room.game.results:
        return None  # abandoned before its first hand ended: not rated
    if any(seat.player is None or seat.ai is not None for seat in room.seats):
        return None
    return (1.0, 0.0) if winner == 0 else (0.0, 1.0)


def abandoned_by(room: Room) -> int | None:
    """The seat that walked out of a rated match (left it, or had the win claimed while
    away), or None."""
    if not room.rated or room.status != "finished" or room.forfeit is None:
        return None
    return room.forfeit


#: What a seat's rating change adds to the room's ``ratings`` (its view shows them to the
#: players and the watchers; the rest of a rating history's entry, the opponent's id and the
#: time, stays in the history).
SHOWN_CHANGE = ("before", "after", "rd", "shown", "delta")


def with_ratings(
    room: Room, changes: tuple[dict[str, Any], dict[str, Any]]
) -> tuple[Room, list[Event]]:
    """The finished room with each seat's rating before and after the match's update
    (``changes``: a rating history's entry per seat, of which ``SHOWN_CHANGE`` is kept), once:
    a room that has them keeps them."""
    current = room.ratings or (None, None)
    if all(entry is not None and "after" in entry for entry in current):
        return room, []
    merged = tuple(
        {**(current[index] or {}), **{key: changes[index][key] for key in SHOWN_CHANGE}}
        for index in (0, 1)
    )
    room = replace(room, ratings=(merged[0], merged[1]))
    return room, [{"type": "rated", "ratings": [dict(entry) for entry in merged]}]


def paired_elsewhere(room: Room, target: str) -> tuple[Room, list[Event]]:
    """Rated quick match paired the player waiting in ``room`` with one waiting in ``target``,
    who seated them there: this room closes and points at ``target`` (``next_room``)."""
    if room.status != "waiting":
        return room, []
    room = replace(room, status="finished", next_room=target, turn_deadline=None)
    return room, [{"type": "paired", "room": target}]
